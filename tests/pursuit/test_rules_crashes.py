"""Crashes: immovable object, moving across the path, moving toward the ship; creatures aboard.

Red rams blue from 10 yards of open water (a roll of 10 succeeds). Blue's way of moving is its latest
maneuver (``Ship.motion``), set directly here. Crews have Health 60 unless a test is about them, so no crew
rolls are needed.
"""

from __future__ import annotations

import pytest

from naval_env.rulesets.pursuit.events import (
    Crashed,
    CrewCasualties,
    Destroyed,
    Maneuvered,
    RollMade,
    Scuttled,
)
from naval_env.testing import damage_list, script

from .helpers import act, make_game, of, ship, ships

TOUGH = {"health": 60}


def ram_game(red_health=101, blue_health=101, blue_motion=(0.0, 0.0), red_crew=TOUGH, blue_crew=TOUGH, dice=()):
    classes = {"hulk": {"health": red_health, "rowers": 1}, "barge": {"health": blue_health, "rowers": 1}}
    game = make_game([ship((0, 0), crew=red_crew)], [ship((20, 0), "barge", crew=blue_crew)], dice=dice,
                     classes=classes)
    game.state.ships["blue_0"].motion = blue_motion
    act(game, propulsion="row")
    return game


@pytest.mark.parametrize("motion, kind, dice", [
    ((0.0, 0.0), "immovable", [10]),         # held still
    ((0.0, 10.0), "across", [10]),           # moved north, across red's path
    ((10.0, 0.0), "across", [10]),           # moved away (east): not toward red
    ((-10.0, 0.0), "toward", [10, 1, 1]),    # moved west, toward red (100 each: both scuttled, 1d6 days each)
    ((-7.0, 7.0), "toward", [10, 1, 1]),     # 45 degrees off: still toward
])
def test_crash_kind_follows_how_the_struck_ship_was_moving(motion, kind, dice):
    game = ram_game(blue_motion=motion, dice=dice)
    events = act(game, maneuver="ram@enemy0")
    assert of(events, Crashed)[0].crash == kind


def test_immovable_object_both_take_half_the_ships_health_and_it_stops():
    """'If the ship collides with an immovable object, the ship stops moving. Both the object and the ship take
    damage equal to half the ship's Health.'"""
    game = ram_game(red_health=61, blue_health=101, dice=[10])
    events = act(game, maneuver="ram@enemy0")
    assert damage_list(events) == [("blue_0", 30, "red_0", "ram"), ("red_0", 30, "blue_0", "crash")]
    assert ships(game)["red_0"].motion == (0.0, 0.0)
    assert not ships(game)["red_0"].slowed


def test_across_the_path_both_continue_at_half_speed():
    """'If a ship collides with an object that was moving across its path, both the ship and the object continue
    moving at half the Speed they were traveling before the crash. Both ... take damage equal to half the ship's
    Health.'"""
    game = ram_game(red_health=61, blue_health=101, blue_motion=(0.0, 10.0), dice=[10])
    events = act(game, maneuver="ram@enemy0")
    assert damage_list(events) == [("blue_0", 30, "red_0", "ram"), ("red_0", 30, "blue_0", "crash")]
    assert ships(game)["red_0"].slowed and ships(game)["blue_0"].slowed
    act(game, propulsion="row")                         # blue's turn: its next maneuver at half Speed
    script(game, 10)
    events = act(game, maneuver="flee@enemy0")
    assert of(events, Maneuvered)[0].speed == 5


def test_moving_toward_it_both_stop_and_take_half_of_both_healths():
    """'If the ship collides with an object that was moving toward it, both the ship and the object stop moving.
    Add half the ship's Health to half the Health of the object and deal the total as damage to both.'
    60 + 70 = 130 to each: blue (141) is scuttled; red (121) takes its last 121, is scuttled and destroyed,
    and its captain keeps it afloat (20 - 1 with the 2 scuttled banes = 19)."""
    game = ram_game(red_health=121, blue_health=141, blue_motion=(-10.0, 0.0), red_crew={"health": 100},
                    blue_crew={"health": 100}, dice=[10, 3, 4, 20, 1, 1])
    events = act(game, maneuver="ram@enemy0")
    assert damage_list(events) == [("blue_0", 130, "red_0", "ram"), ("red_0", 121, "blue_0", "crash")]
    assert ships(game)["blue_0"].motion == (0.0, 0.0) and ships(game)["red_0"].motion == (0.0, 0.0)
    assert [(e.ship, e.minutes) for e in of(events, Destroyed)] == [("red_0", 4)]
    assert game.winner == "blue"


def test_creatures_aboard_take_half_and_an_agility_success_halves_again():
    """'Any creature on the object struck or the ship takes half the damage taken by the ship. A creature that
    gets a success on an Agility challenge roll reduces the damage taken by half.' 30 to each ship: 15 to each
    crew member (Health 12: dies), 7 on a success (lives). Blue's 3 crew roll first, then red's 2."""
    game = ram_game(red_health=61, blue_health=101, red_crew={"health": 12, "count": 2},
                    blue_crew={"health": 12, "count": 3}, dice=[10, 10, 9, 15, 3, 12])
    events = act(game, maneuver="ram@enemy0")
    casualties = [(c.ship, c.exposed, c.killed) for c in of(events, CrewCasualties)]
    assert casualties == [("blue_0", 3, 1), ("red_0", 2, 1)]
    assert (ships(game)["blue_0"].crew, ships(game)["red_0"].crew) == (2, 1)


def test_a_crash_can_scuttle_and_destroy():
    """A toward crash of two 61-Health hulls deals 60 to each: both scuttled (1d6 + 3 days), neither destroyed;
    a second crash finishes them. Struck ship first, then the rammer."""
    game = ram_game(red_health=61, blue_health=61, blue_motion=(-10.0, 0.0), dice=[10, 2, 5])
    events = act(game, maneuver="ram@enemy0")
    assert [(e.ship, e.sinks_in_days) for e in of(events, Scuttled)] == [("blue_0", 5), ("red_0", 8)]
    assert not of(events, Destroyed)


def test_destroyed_by_a_crash_rolls_to_keep_afloat():
    """20 + 20 = 40 to two 40-Health hulls: each is scuttled (1d6 days), destroyed, and rolls to keep afloat."""
    game = ram_game(red_health=40, blue_health=40, blue_motion=(-10.0, 0.0),
                    dice=[10, 1, 12, 1, 1, 1, 12, 1, 1])
    events = act(game, maneuver="ram@enemy0")
    rolls = [(e.ship, e.roll) for e in of(events, RollMade)][1:]
    assert rolls == [("blue_0", "keep afloat"), ("red_0", "keep afloat")]
    assert [(e.ship, e.minutes) for e in of(events, Destroyed)] == [("blue_0", 4), ("red_0", 4)]
    assert game.is_over and game.winner is None
