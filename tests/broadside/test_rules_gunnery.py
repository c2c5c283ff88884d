"""Cannon-fire, Damage and Collateral Damage (document). The gunner is a sailing ship at (20, 20) heading north:
its starboard broadside (two cannons, measured from (21, 20)) covers y 17..23 to the east.

Dice order: one d20 per cannon at once; then for each hit its damage (open-ended), then a 2d6 on the
collateral chart (and the entry's own dice) for every 6 in that damage."""

from __future__ import annotations

import pytest

from naval_env.rulesets.broadside.events import Casualties, CollateralDamage, OarsSwept, Volley
from naval_env.rulesets.broadside.state import Phase
from naval_env.testing import allowed_labels, damage_list, script

from .helpers import act, decision, make_game, of, pass_until, ship

GUNNER = [ship("sailing_ship", (20, 20), 0)]


def at_blue_gunnery(red, dice=(), **kwargs):
    """Red holds (and keeps its archers); blue holds and holds the GUNNERY decision."""
    game = make_game(red, GUNNER, dice=dice, **kwargs)
    pass_until(game, "blue_0", Phase.MANEUVER)
    act(game)
    assert game.current_agent == "blue_0" and game.state.phase is Phase.GUNNERY
    return game


def test_a_broadside_bears_only_on_its_own_side():
    """'brought to bear in an area encompassed by perpendiculars from the bow and stern of the firing ship'"""
    game = at_blue_gunnery([ship("galley", (28, 20), 0)])
    assert allowed_labels(game, "starboard") == ["hold", "fire@enemy0"]
    assert allowed_labels(game, "port") == ["hold"]
    assert allowed_labels(game, "turret") == ["hold"]


@pytest.mark.parametrize("rolls, hits", [([7, 6], 1), ([7, 7], 2), ([20, 1], 1), ([6, 6], 0)])
def test_each_cannon_needs_the_range_or_higher_on_a_d20(rolls, hits):
    """'Measure the number of inches from the cannon to the center of the target. The attacking player must roll
    this number or higher on a d20 to score a hit. Roll once for each cannon.'"""
    game = at_blue_gunnery([ship("galley", (28, 20), 0)])
    damage = [3] * hits
    script(game, *rolls, *damage)
    events = act(game, starboard="fire@enemy0")
    [volley] = of(events, Volley)
    assert (volley.battery, volley.target, volley.distance, volley.rolls, volley.hits, volley.rake) == (
        "starboard", "red_0", 7.0, tuple(rolls), hits, False)
    assert damage_list(events) == [("red_0", 3, "blue_0", "cannon")] * hits


@pytest.mark.parametrize("taken_before, sunk, hull_left", [(27, True, 0), (26, False, 1)])
def test_a_galley_sinks_on_the_thirtieth_point_of_damage(taken_before, sunk, hull_left):
    """ASSUMPTION (not configurable): 'Most galleys can sustain 30 points of hull damage before sinking' read as
    sinking when the damage taken reaches the hull value: the 30th point sinks a galley, the 29th leaves 1."""
    game = at_blue_gunnery([ship("galley", (28, 20), 0)])
    red = game.state.ships["red_0"]
    assert red.hull == 30
    red.hull -= taken_before
    script(game, 7, 1, 3)                                    # one hit, 3 points of damage
    events = act(game, starboard="fire@enemy0")
    assert damage_list(events) == [("red_0", 3, "blue_0", "cannon")]
    assert red.hull == hull_left and (red.status.value == "sunk") is sunk
    assert game.is_over is sunk


def test_fractional_range_needs_the_next_whole_number():
    game = at_blue_gunnery([ship("galley", (27.5, 20), 0)])    # 6.5 inches
    script(game, 6, 7, 2)
    [volley] = of(act(game, starboard="fire@enemy0"), Volley)
    assert (volley.needed, volley.hits) == (6.5, 1)


@pytest.mark.parametrize("x, allowed", [(40.5, True), (41.5, False)])
def test_no_target_a_d20_cannot_reach(x, allowed):
    game = make_game([ship("galley", (x, 20), 0)], GUNNER)      # 19.5 or 20.5 inches from the battery
    pass_until(game, "blue_0", Phase.MANEUVER)
    act(game)
    if allowed:
        assert decision(game) == ("blue_0", "GUNNERY") and "fire@enemy0" in allowed_labels(game, "starboard")
    else:
        assert decision(game) != ("blue_0", "GUNNERY")         # nothing in reach: no decision at all


def test_cannon_damage_is_d6_open_ended():
    """'Cannonballs do d6 of Hull Point damage per hit. In the event the damage rolled is a 6 the attacker may
    reroll the dice and add to his total. This may continue to infinity'."""
    game = at_blue_gunnery([ship("galley", (28, 20), 0, crew=6)])
    script(game, 20, 1, 6, 6, 1, 3, 4, 3, 4)   # hit; 6 + 6 + 1 = 13; two 6s: chart 7 (crew 1), 7 (crew 1)
    events = act(game, starboard="fire@enemy0")
    assert damage_list(events) == [("red_0", 13, "blue_0", "cannon")]
    assert [(c.roll, c.effect, c.amount) for c in of(events, CollateralDamage)] == [(7, "crew", 1), (7, "crew", 1)]
    assert game.state.ships["red_0"].people.crew == 4


def test_raking_fire_from_bow_or_stern_is_2d6_open_ended():
    """'When a broadside is pointed directly at the bow or stern of an enemy ship, it can rake the length of the
    ship. If this is the case roll 2d6 for Damage.'"""
    game = at_blue_gunnery([ship("galley", (28, 20), 90)])     # its stern faces the battery
    script(game, 15, 1, 3, 6, 2, 3, 4)
    events = act(game, starboard="fire@enemy0")
    [volley] = of(events, Volley)
    assert volley.rake
    assert damage_list(events) == [("red_0", 11, "blue_0", "raking cannon")]
    assert of(events, Casualties) == [Casualties("red_0", (("crew", 1),), "collateral damage")]


@pytest.mark.parametrize("chart, extra, effect, check", [
    ((1, 1), [3, 4], "hull", lambda red: red.hull == 30 - 7 - 7),              # 2: the magazine, 2d6 more
    ((2, 3), [2], "marines", lambda red: red.people.marines == 10 - 2),        # 5: d3 marines
    ((4, 6), [], "oars", lambda red: red.oar_sweeps == 1),                     # 10: oars count as swept
    ((5, 6), [], "heroes", lambda red: red.people.heroes == 0),                # 11: a hero struck down
    ((1, 3), [], "lieutenants", lambda red: red.people.lieutenants == 0),      # 4: an officer falls
])
def test_collateral_damage_chart_entries(chart, extra, effect, check):
    """'For each "6" that was rolled in Damage roll 2d6 against the following chart' (the chart is ours)."""
    game = at_blue_gunnery([ship("galley", (28, 20), 0)])
    script(game, 20, 1, 6, 1, *chart, *extra)          # one hit: 6 + 1 = 7 damage, one 6 for the chart
    events = act(game, starboard="fire@enemy0")
    assert [c.effect for c in of(events, CollateralDamage)] == [effect]
    assert check(game.state.ships["red_0"])
    if effect == "oars":
        assert of(events, OarsSwept) == [OarsSwept("red_0", 1)]


def test_collateral_can_dismount_a_gun():
    game = make_game([ship("ironclad", (28, 20), 0)], GUNNER)
    pass_until(game, "blue_0", Phase.GUNNERY)
    script(game, 20, 1, 6, 1, 1, 2)                     # chart 3: a gun dismounted (the turret, its only one)
    act(game, starboard="fire@enemy0")
    assert game.state.ships["red_0"].guns == {"port": 0, "starboard": 0, "turret": 0}


def test_galleys_have_no_cannon():
    """'Galleys generally don't have cannons.'"""
    game = make_game([ship("galley", (28, 20), 0)], GUNNER)
    assert game.current_agent == "red_0"
    act(game)
    assert game.state.phase is Phase.GUNNERY                      # offered for its archers only
    for battery in ("port", "starboard", "turret"):
        assert allowed_labels(game, battery) == ["hold"]


@pytest.mark.parametrize("target, allowed", [((10, 30), False), ((11.7, 30), False), ((8.3, 30), False),
                                             ((12, 30), True), ((8, 30), True), ((10, 10), True), ((20, 20), True)])
def test_turret_fires_in_all_directions_except_over_the_bow(target, allowed):
    """'This turret allows for 340° movement, allowing shots in all directions except over the bow': 10 degrees
    either side of the bow are dead (1.7 in off at 10 in is 9.6 degrees, 2 in is 11.3)."""
    game = make_game([ship("ironclad", (10, 20), 0)], [ship("galley", target, 90)])
    act(game)                                                     # the ironclad holds
    assert game.state.phase is Phase.GUNNERY
    assert ("fire@enemy0" in allowed_labels(game, "turret")) is allowed


def test_sinking_the_target_stops_the_rest_of_the_battery():
    game = at_blue_gunnery([ship("galley", (28, 20), 0)])
    game.state.ships["red_0"].hull = 3
    script(game, 20, 20, 5)
    events = act(game, starboard="fire@enemy0")
    assert damage_list(events) == [("red_0", 3, "blue_0", "cannon")]
    assert game.is_over and game.winner == "blue"
