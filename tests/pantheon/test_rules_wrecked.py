"""Complication - Wrecked! and the wreck's repair challenge (document: Complication - Wrecked!).

Blue acts first and wrecks red (a trireme: health 12, speed 4) with Fire!; red's captain has Wits 4 and
Seamanship 2, so its repair pool is 4 + 2 = 6 against the difficulty 8.
"""

from __future__ import annotations

import pytest

from naval_env.core.events import DamageDealt
from naval_env.rulesets.pantheon.events import Repaired, StatusChanged, TurnStarted
from naval_env.rulesets.pantheon.events import TestThrown as Thrown
from naval_env.rulesets.pantheon.state import Phase, Status
from naval_env.testing import allowed, allowed_labels, damage_list, script

from .helpers import act, make_game, of, ship


def wrecked_game(red_vessel="trireme", red_health=3, blue_at=(5, 5), **red_kw):
    """Blue (attack pool 7+2+3 = 12) fires (12+3 vs at most 10+3: success, 3 damage) and wrecks red."""
    red_kw = {"wits": 4, **red_kw}
    game = make_game([ship(red_vessel, (2, 5), "E", **red_kw)], [ship("trireme", blue_at, "W", wits=7)],
                     dice=[3, 3])
    assert game.current_agent == "blue_0"
    game.state.ships["red_0"].health = red_health
    act(game, maneuver="hold")
    events = act(game, attack="fire@enemy0")
    assert game.current_agent == "red_0"
    return game, events


def test_ship_that_loses_all_health_is_wrecked():
    """'A ship that has lost all of its health is considered immobilized'."""
    game, events = wrecked_game()
    assert StatusChanged("red_0", "wrecked") in events
    assert game.state.ships["red_0"].status is Status.WRECKED
    assert game.is_over is False                           # 'in no danger of sinking yet'


def test_wrecked_ship_takes_five_damage_at_the_start_of_its_turn_before_anything_else():
    """'At the beginning of a captain's turn, if their ship is still Wrecked, that ship immediately takes 5 points of
    damage before the resolution of any other actions that turn.'"""
    game, events = wrecked_game()
    start = events.index(TurnStarted("red_0", 1))
    assert events[start + 1] == DamageDealt("red_0", 5, None, "wrecked")
    assert game.state.ships["red_0"].health == -5


def test_wrecked_ship_skips_the_movement_step():
    """'On the immobilized ship's turn, it proceeds immediately to the attack step, skipping the movement step
    entirely.'"""
    game, _ = wrecked_game()
    assert game.state.phase is Phase.ATTACK
    assert allowed_labels(game, "maneuver") == ["hold"]
    assert not allowed(game, "attack", "get_us_out")     # 'unable to move any further from the spot it is in'
    assert allowed(game, "attack", "fire@enemy0")         # it still has its attack step
    assert allowed(game, "attack", "repair")


def test_repair_is_a_static_challenge_of_wits_or_charisma_plus_seamanship_against_eight():
    """'The captain makes a static challenge of their Wits or Charisma (player's choice) + Seamanship against a
    difficulty of 8.'"""
    game, _ = wrecked_game(wits=2, charisma=5, seamanship=1)
    script(game, 1, 1)
    events = act(game, attack="repair")
    [t] = of(events, Thrown)
    assert (t.test, t.attacker, t.defender, t.attack_pool, t.defense_pool) == ("repair", "red_0", None, 6, 8)
    assert [r.reason for r in game.dice.history[-2:]] == ["test: attacker", "test: defender"]


def test_repair_failure_restores_nothing_and_costs_nothing():
    """'Failure results in no further damage, but no health is restored.'"""
    game, _ = wrecked_game()
    script(game, 1, 5)                                    # 7 vs 13
    events = act(game, attack="repair")
    assert of(events, Thrown)[0].result == "failure"
    assert [d for d in damage_list(events) if d[0] == "red_0"] == []
    red = game.state.ships["red_0"]
    assert (red.status, red.health, red.max_health, red.speed) == (Status.WRECKED, -5, 12, 4)


@pytest.mark.parametrize("vessel, dice, health, speed", [
    ("trireme", [9, 5], 6, 2),        # success: ceil(12 / 2), ceil(4 / 2)
    ("hemiolia", [9, 5], 4, 3),       # ceil(7 / 2), ceil(5 / 2)
    ("trireme", [10, 1], 8, 2),       # exceptional: two extra health levels
    ("hemiolia", [10, 1], 6, 3),
])
def test_repair_success_halves_health_and_speed_rounded_up_as_new_maximums(vessel, dice, health, speed):
    """'On a success, the ship is no longer immobilized and its health is reset to half its maximum health, rounded
    up. Its speed is reduced by half, round up. These values become the ship's new maximum health rating and speed
    ... An exceptional success restores an extra two health levels.'"""
    game, _ = wrecked_game(red_vessel=vessel)
    script(game, *dice)
    events = act(game, attack="repair")
    assert of(events, Repaired) == [Repaired("red_0", health, health, speed)]
    red = game.state.ships["red_0"]
    assert (red.status, red.health, red.max_health, red.speed) == (Status.AFLOAT, health, health, speed)
    assert game.current_agent == "blue_0"                  # the repair was red's attack for the turn


def test_repaired_ship_sails_again_at_its_new_speed():
    game, _ = wrecked_game()
    script(game, 9, 5)
    act(game, attack="repair")
    act(game, maneuver="hold")                             # blue
    act(game, attack="none")
    assert game.state.phase is Phase.MOVE and game.current_agent == "red_0"
    assert game.state.ships["red_0"].speed_this_turn == 2  # speed 2, wind across
    assert allowed(game, "maneuver", "ahead 2") and not allowed(game, "maneuver", "ahead 3")
    assert game.state.ships["red_0"].health == 6           # no more wrecked damage


def test_repair_may_use_a_retest():
    game, _ = wrecked_game()
    script(game, 1, 5, 9, 5)
    events = act(game, attack="repair", retest_on_failure=True)
    assert [(t.result, t.retest_by) for t in of(events, Thrown)] == [("failure", None), ("success", "red_0")]
    assert game.state.ships["red_0"].status is Status.AFLOAT and game.state.ships["red_0"].retests == 1


def test_no_repair_while_being_boarded():
    """'This action cannot be taken if the ship is presently being boarded.'"""
    game, _ = wrecked_game(blue_at=(3, 5))
    act(game, attack="none")                               # red wrecked at -5
    act(game, maneuver="hold")                             # blue
    script(game, 3, 3)
    act(game, attack="board@enemy0")
    assert game.state.ships["red_0"].boarded_by == "blue_0"
    assert game.current_agent == "red_0" and game.state.ships["red_0"].health == -10
    assert not allowed(game, "attack", "repair")


def boarder_wrecked():
    """Red boards blue (9+3 vs 8+3), then blue fires back (8+5 vs 8+1) and wrecks red; red's turn begins."""
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (3, 5), "W", wits=0)],
                     dice=[3, 3, 5, 1])
    act(game, maneuver="hold")
    act(game, attack="board@enemy0")
    game.state.ships["red_0"].health = 3
    act(game, attack="fire@enemy0")
    red = game.state.ships["red_0"]
    assert (red.status, red.health, red.boarding) == (Status.WRECKED, -5, "blue_0")
    assert game.current_agent == "red_0" and game.state.phase is Phase.START
    return game


def test_no_repair_while_tied_as_the_boarder():
    """Engine reading: 'too much combat happening nearby' also holds for the boarder while tied."""
    game = boarder_wrecked()
    act(game, turn_order="proceed")
    assert game.state.phase is Phase.ATTACK
    assert not allowed(game, "attack", "repair")


def test_boarder_may_release_then_repair():
    game = boarder_wrecked()
    act(game, turn_order="release")
    assert game.state.phase is Phase.ATTACK                # wrecked: still no movement step
    assert allowed(game, "attack", "repair")
