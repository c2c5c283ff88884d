"""Archers (document: Archers). Red's galley (6 archers) at (10, 20), blue's sailing ship 8 inches east:
each archer's d20 must reach 8 + 6 = 14."""

from __future__ import annotations

import pytest

from naval_env.rulesets.broadside.events import Casualties, Volley
from naval_env.rulesets.broadside.state import Party, Phase
from naval_env.testing import allowed_labels, script

from .helpers import act, decision, make_game, of, pass_until, ship

RED = [ship("galley", (10, 20), 0)]
BLUE = [ship("sailing_ship", (18, 20), 0)]


def red_gunnery(red=RED, blue=BLUE, **kwargs):
    game = make_game(red, blue, **kwargs)
    act(game)                                         # red holds
    assert decision(game) == ("red_0", "GUNNERY")
    return game


def test_a_d20_per_archer_against_distance_plus_six_and_each_success_is_a_casualty():
    """'Measure the distance from the center of the archers' ship to the target ship. Add 6 to the measurement
    and the attacking player rolls a d20 for each archer. For each roll equal to or greater than the total, the
    defender suffers one casualty.'"""
    game = red_gunnery()
    script(game, 14, 13, 20, 1, 15, 2)
    events = act(game, archers="shoot@enemy0")
    assert of(events, Volley) == [Volley("red_0", "archers", "blue_0", 8.0, 14.0, (14, 13, 20, 1, 15, 2), 3, False)]
    assert of(events, Casualties) == [Casualties("blue_0", (("crew", 3),), "archers")]
    assert game.state.ships["blue_0"].people.crew == 10 - 3


def test_archers_measure_to_the_target_ships_centre_not_its_nearest_point():
    """ASSUMPTION (not configurable): '... to the target ship' read as to its centre, as cannon measure 'to the
    center of the target'. Blue's sailing ship (6 inches long) lies end-on, its centre 8 inches east of red's
    and its nearest end 5: each d20 needs 8 + 6 = 14 (two hits below), not 5 + 6 = 11 (five)."""
    game = red_gunnery(blue=[ship("sailing_ship", (18, 20), 90)])
    blue = game.state.ships["blue_0"]
    assert blue.shape.stern == pytest.approx((15.0, 20.0))          # its nearest point: 5 inches from red's centre
    script(game, 13, 11, 12, 14, 20, 1)
    events = act(game, archers="shoot@enemy0")
    assert of(events, Volley) == [Volley("red_0", "archers", "blue_0", 8.0, 14.0, (13, 11, 12, 14, 20, 1), 2, False)]
    assert blue.people.crew == 10 - 2


def test_the_defender_selects_the_casualties_by_its_standing_order():
    """'The defending player selects the casualties.' (as the config's casualty_order)"""
    game = red_gunnery(house_rules={"casualty_order": ["marines", "heroes", "crew", "archers", "lieutenants"]})
    script(game, 20, 20, 20, 1, 1, 1)
    act(game, archers="shoot@enemy0")
    assert game.state.ships["blue_0"].people.marines == 6 - 3


def test_casualties_spill_over_to_the_next_kind():
    game = red_gunnery(blue=[ship("sailing_ship", (18, 20), 0, crew=1)])
    script(game, 20, 20, 20, 1, 1, 1)
    events = act(game, archers="shoot@enemy0")
    assert of(events, Casualties) == [Casualties("blue_0", (("crew", 1), ("archers", 2)), "archers")]


def test_out_of_reach_when_distance_plus_six_passes_twenty():
    game = make_game(RED, [ship("sailing_ship", (24, 20), 0)])    # 14 inches: a 20 still hits
    act(game)
    assert "shoot@enemy0" in allowed_labels(game, "archers")
    game = make_game(RED, [ship("sailing_ship", (24.5, 20), 0)])  # 14.5 inches: no d20 reaches 20.5
    act(game)
    assert decision(game) != ("red_0", "GUNNERY")


def test_archers_fire_once_per_turn_during_the_move_or_in_the_melee_phase_not_both():
    """'if archers fire during movement, they may not fire during melees' / 'Archers may only fire once per
    term.'"""
    game = red_gunnery(blue=[ship("sailing_ship", (12.25, 20), 0)])     # alongside: red could also board
    script(game, 1, 1, 1, 1, 1, 1)
    act(game, archers="shoot@enemy0")
    pass_until(game, "red_0", Phase.BOARDING)
    assert allowed_labels(game, "archers") == ["hold"]


def test_archers_held_during_the_move_fire_in_the_melee_phase_before_any_melee():
    """'Archery fire is resolved before melee.'"""
    game = red_gunnery()
    act(game)                                          # hold the archers
    pass_until(game, "red_0", Phase.BOARDING)
    assert "shoot@enemy0" in allowed_labels(game, "archers")
    script(game, 14, 1, 1, 1, 1, 1)
    act(game, archers="shoot@enemy0")
    events = act(game)                                 # blue's BOARDING declaration closes the stage
    assert of(events, Casualties) == [Casualties("blue_0", (("crew", 1),), "archers")]


def test_archers_may_not_fire_into_a_melee():
    """'Archers are not permitted to fire into melees.'"""
    game = make_game([*RED, ship("galley", (20, 12), 0)], BLUE)
    blue = game.state.ships["blue_0"]
    blue.boarders["red_1"] = Party(marines=2)
    game._mask = None
    act(game)
    assert decision(game) != ("red_0", "GUNNERY") or allowed_labels(game, "archers") == ["hold"]
    assert not game.state.ships["red_0"].archers_fired


@pytest.mark.parametrize("who", ["crew", "archers", "marines", "lieutenants", "heroes"])
def test_every_kind_aboard_can_be_hit_they_are_all_above_board(who):
    """'Only above board crew may be eliminated by archery fire.' Everyone the engine counts is above board
    (rowers and stokers below are not counted: see Assumptions)."""
    order = [who] + [k for k in ("crew", "archers", "marines", "lieutenants", "heroes") if k != who]
    game = red_gunnery(house_rules={"casualty_order": order})
    script(game, 20, 1, 1, 1, 1, 1)
    events = act(game, archers="shoot@enemy0")
    assert of(events, Casualties)[0].losses == ((who, 1),)
