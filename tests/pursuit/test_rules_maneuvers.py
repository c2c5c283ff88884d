"""Flee, pursue and ram: the Intellect attack roll with maneuverability, the four result bands, mishaps.

Red (Intellect 10) starts at (0, 0), blue (Intellect 10) at (100, 0); both hulls are 5 yards in radius
and row at Speed 10, so a maneuver roll of 10 is a success and 20 or more is the top band.
"""

from __future__ import annotations

import math

import pytest

from naval_env.core.events import DamageDealt
from naval_env.rulesets.pursuit.events import Crashed, Maneuvered, MishapSuffered, RollMade
from naval_env.testing import allowed, allowed_labels, damage_list, script

from .helpers import act, make_game, of, ship, ships


def duel(red=None, blue=None, dice=(), **kw):
    game = make_game([red or ship((0, 0))], [blue or ship((100, 0))], dice=dice, **kw)
    act(game, propulsion="row")
    assert game.state.phase.name == "MANEUVER"
    return game


def where(game, agent="red_0"):
    s = ships(game)[agent]
    return round(s.x, 6), round(s.y, 6)


@pytest.mark.parametrize("die, band, distance", [
    (20, "20 or higher", 13),   # Speed + 3
    (10, "success", 10),        # Speed
    (9, "failure", 5),          # half Speed
])
def test_flee_bands(die, band, distance):
    """Fleeing: '20 or higher: ... moves its Speed + 3 away ... Success: ... its Speed ... Failure: half its
    Speed.'"""
    game = duel(dice=[die])
    events = act(game, maneuver="flee@enemy0")
    roll = of(events, RollMade)[0]
    assert (roll.roll, roll.target, roll.result) == ("flee", 10, band)
    assert where(game) == (-distance, 0.0)


def test_flee_zero_or_lower_moves_a_quarter_and_brings_a_mishap():
    """'0 or lower: The ship moves one-quarter its Speed away from the other ship and suffers a mishap.'
    Intellect 2 gives -8: a die of 8 totals 0. The mishap die (1d6 on the assumed table) 1: fouled lines."""
    game = duel(red=ship((0, 0), intellect=2), dice=[8, 1])
    events = act(game, maneuver="flee@enemy0")
    assert of(events, RollMade)[0].result == "0 or lower"
    assert where(game) == (-2.0, 0.0)                     # 10 // 4
    assert [(m.roll, m.mishap) for m in of(events, MishapSuffered)] == [(1, "fouled lines")]


@pytest.mark.parametrize("die, distance", [(20, 13), (10, 10), (9, 5)])
def test_pursue_bands(die, distance):
    """Pursuing moves Speed + 3, Speed or half Speed toward the other ship."""
    game = duel(dice=[die])
    act(game, maneuver="pursue@enemy0")
    assert where(game) == (distance, 0.0)


def test_pursue_zero_or_lower_quarter_speed_and_mishap():
    game = duel(red=ship((0, 0), intellect=1), dice=[9, 3])  # 9 - 9 = 0
    events = act(game, maneuver="pursue@enemy0")
    assert where(game) == (2.0, 0.0)
    assert of(events, MishapSuffered)[0].mishap == "man overboard"


def test_pursuer_stops_alongside():
    """A pursuer never passes through its quarry: it stops with the hulls touching (10 yards apart here)."""
    game = duel(blue=ship((15, 0)), dice=[20])
    act(game, maneuver="pursue@enemy0")
    assert where(game) == (5.0, 0.0)


def test_maneuver_is_an_intellect_attack_roll_against_the_opposing_captain():
    """'the captain makes an Intellect attack roll against the Intellect of the opposing captain.'"""
    game = duel(red=ship((0, 0), intellect=13), blue=ship((100, 0), intellect=14), dice=[11])
    events = act(game, maneuver="pursue@enemy0")
    roll = of(events, RollMade)[0]
    assert (roll.die, roll.modifier, roll.total, roll.target, roll.result) == (11, 3, 14, 14, "success")


@pytest.mark.parametrize("maneuverability, dice, total", [
    (2, [9, 3, 5], 14),    # two boons: +highest of 2d6
    (-1, [12, 4], 8),      # one bane
])
def test_maneuverability_boons_and_banes_apply(maneuverability, dice, total):
    """'Boons and banes from the ship's maneuverability apply to this roll.'"""
    game = duel(dice=dice, classes={"hulk": {"maneuverability": maneuverability}})
    events = act(game, maneuver="pursue@enemy0")
    assert of(events, RollMade)[0].total == total


def test_veering_bears_45_degrees_off_the_line():
    """Flee and pursue may bear 45 degrees to port (left) or starboard (right) of the straight line."""
    game = duel(dice=[10])
    act(game, maneuver="pursue_port@enemy0")                # east, turned 45 degrees to the left: north-east
    x, y = where(game)
    assert (round(x, 4), round(y, 4)) == (round(10 / math.sqrt(2), 4), round(10 / math.sqrt(2), 4))
    game = duel(dice=[10])
    act(game, maneuver="flee_starboard@enemy0")             # west, turned right: north-west
    x, y = where(game)
    assert x < 0 and y > 0


def test_ram_only_when_the_other_ship_is_within_reach_this_turn():
    """'This maneuver is possible only if the ship could move into the other's ship's space on its current
    turn': the open water between the hulls (distance - 10) must be within its Speed."""
    assert not allowed(duel(blue=ship((21, 0))), "maneuver", "ram@enemy0")     # 11 yards of water
    assert allowed(duel(blue=ship((20, 0))), "maneuver", "ram@enemy0")         # 10 yards


#: Health 101 (half: 50, not yet scuttling) and crews of Health 60 keep crash rolls out of these tests.
STOUT = {"classes": {"hulk": {"health": 101}}}
TOUGH_CREW = {"health": 60}


def test_ram_success_crashes():
    """'Success: The ship crashes into the other ship.' Blue has not moved: a stationary ship is struck as an
    immovable object, both take half the rammer's Health (50)."""
    game = duel(red=ship((0, 0), crew=TOUGH_CREW), blue=ship((20, 0), crew=TOUGH_CREW), dice=[10], **STOUT)
    events = act(game, maneuver="ram@enemy0")
    assert where(game) == (10.0, 0.0)
    assert of(events, Crashed)[0].crash == "immovable"
    assert damage_list(events) == [("blue_0", 50, "red_0", "ram"), ("red_0", 50, "blue_0", "crash")]


def test_ram_twenty_or_higher_deals_3d6_extra():
    """'20 or higher: The ramming ship crashes into the other ship and deals 3d6 extra damage.'"""
    game = duel(red=ship((0, 0), crew=TOUGH_CREW), blue=ship((20, 0), crew=TOUGH_CREW),
                dice=[20, 1, 2, 3, 4], **STOUT)                 # 3d6 = 6; blue is scuttled (1d6 + 3 days: 7)
    events = act(game, maneuver="ram@enemy0")
    assert of(events, Crashed)[0].extra == 6
    assert damage_list(events) == [("blue_0", 56, "red_0", "ram"), ("red_0", 50, "blue_0", "crash")]


def test_ram_failure_misses_and_comes_alongside():
    """'Failure: The ship misses the other ship.' (It ends alongside, having closed.)"""
    game = duel(blue=ship((20, 0)), dice=[9])
    events = act(game, maneuver="ram@enemy0")
    assert not of(events, Crashed) and not of(events, DamageDealt)
    assert where(game) == (10.0, 0.0)


def test_ram_zero_or_lower_misses_with_a_mishap():
    # mishap 4: sprung planks, 1d6 = 3; struck spot 1 (no machine); 1d6 + 4 = 5% of 10 crew near it: 1, unhurt
    game = duel(red=ship((0, 0), intellect=1), blue=ship((20, 0)), dice=[5, 4, 3, 1, 1])
    events = act(game, maneuver="ram@enemy0")
    assert not of(events, Crashed)
    assert of(events, MishapSuffered)[0].mishap == "sprung planks"
    assert damage_list(events)[0] == ("red_0", 3, None, "sprung planks")


@pytest.mark.parametrize("face, check", [
    (1, lambda s: s.slowed),                      # fouled lines: the next maneuver at half Speed
    (2, lambda s: s.helm_jammed),                 # helm jammed: no maneuver next round
    (3, lambda s: s.crew == 9),                   # man overboard: one crew member lost
    (5, lambda s: s.maneuver_banes == 1),         # broached: 1 bane on the next maneuver roll
])
def test_mishap_table(face, check):
    """The Mishaps table is missing from the document; ours (config ``mishaps``) is rolled on 1d6."""
    game = duel(red=ship((0, 0), intellect=1), dice=[9, face])
    act(game, maneuver="flee@enemy0")
    assert check(ships(game)["red_0"])


def test_mishap_cargo_shifts_unloads_a_war_machine():
    game = make_game([ship((0, 0), intellect=1, machines=["ballista"])], [ship((100, 0))], dice=[])
    game.state.ships["red_0"].machines[0].loaded = True
    act(game, propulsion="row")
    script(game, 9, 6)
    act(game, maneuver="flee@enemy0")
    assert not ships(game)["red_0"].machines[0].loaded


def test_mishap_effects_play_out_next_round():
    """Fouled lines halve the next maneuver's Speed; a jammed helm leaves only 'hold' next round; banes from a
    broach apply to the next roll."""
    game = duel(red=ship((0, 0), intellect=1), dice=[9, 1])
    act(game, maneuver="flee@enemy0")
    while game.current_agent == "blue_0":
        act(game)
    act(game, propulsion="row")
    script(game, 20)
    events = act(game, maneuver="flee@enemy0")
    assert of(events, Maneuvered)[0].speed == 5 and not ships(game)["red_0"].slowed

    game = duel(red=ship((0, 0), intellect=1), dice=[9, 2])
    act(game, maneuver="flee@enemy0")
    while game.current_agent == "blue_0":
        act(game)
    act(game, propulsion="row")
    assert game.current_agent == "blue_0" and not ships(game)["red_0"].helm_jammed   # the hold was played

    game = duel(red=ship((0, 0), intellect=1), dice=[9, 5])
    act(game, maneuver="flee@enemy0")
    while game.current_agent == "blue_0":
        act(game)
    act(game, propulsion="row")
    script(game, 19, 4)
    events = act(game, maneuver="flee@enemy0")
    assert (of(events, RollMade)[0].boons, of(events, RollMade)[0].total) == (-1, 6)


def test_maneuvers_target_only_fighting_enemies_and_hold_is_always_there():
    game = make_game([ship((0, 0))], [ship((100, 0)), ship((0, 100))])
    act(game, propulsion="row")
    labels = allowed_labels(game, "maneuver")
    assert labels[0] == "hold" and "pursue@enemy1" in labels
    from naval_env.rulesets.pursuit.state import Status
    game.state.ships["blue_1"].status = Status.SUNK
    game._mask = None
    assert not any(label.endswith("@enemy1") for label in allowed_labels(game, "maneuver"))
