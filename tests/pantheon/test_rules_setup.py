"""Setup (zones, five ships a side), Initiative, and the Movement-then-Attack turn (document: Setup, Initiative)."""

from __future__ import annotations

import pytest

from naval_env.core.dice import DiceExhaustedError
from naval_env.core.errors import ConfigError
from naval_env.rulesets.pantheon.engine import check_invariants
from naval_env.rulesets.pantheon.events import InitiativeRolled, Moved, TurnStarted
from naval_env.rulesets.pantheon.state import Phase
from naval_env.testing import allowed, allowed_labels

from .helpers import act, make_config, make_game, of, ship

SMALL_ZONE = {"x": [0, 1], "y": [0, 1]}
FAR_ZONE = {"x": [10, 11], "y": [10, 11]}


# --------------------------------------------------------------------- Setup
def test_ships_are_placed_where_the_captain_puts_them_with_their_facing():
    """'captains are able to place their ships anywhere within that zone'."""
    game = make_game(
        [ship("trireme", (1, 0), wits=4), ship("bireme", (0, 1), "S", wits=5)],
        [ship("trireme", (10, 11))],
        zones=(SMALL_ZONE, FAR_ZONE),
    )
    s = game.state.ships
    assert (s["red_0"].x, s["red_0"].y, s["red_0"].facing) == (1, 0, 2)      # side facing E
    assert (s["red_1"].x, s["red_1"].y, s["red_1"].facing) == (0, 1, 4)      # own facing S
    assert (s["blue_0"].x, s["blue_0"].y, s["blue_0"].facing) == (10, 11, 6)  # side facing W
    assert game.state.occupancy == {(1, 0): "red_0", (0, 1): "red_1", (10, 11): "blue_0"}
    assert game.dice.history == []  # explicit positions and distinct initiatives: no dice at set-up


def test_ship_outside_its_zone_is_refused():
    """'The Storyteller will lay out an area that each ship can enter from'."""
    with pytest.raises(ConfigError, match=r"position \(5, 5\) is outside the zone"):
        make_config([ship("trireme", (5, 5))], [ship("trireme", (10, 10))], zones=(SMALL_ZONE, FAR_ZONE))


def test_unplaced_ships_draw_a_free_square_of_their_zone_in_side_order():
    """Placement without a position: one die over the zone's free squares (row by row), first side first."""
    game = make_game(
        [ship("trireme", wits=4), ship("bireme", wits=5)],
        [ship("trireme")],
        dice=[3, 1, 4],
        zones=(SMALL_ZONE, FAR_ZONE),
    )
    s = game.state.ships
    assert (s["red_0"].x, s["red_0"].y) == (0, 1)    # 3rd of (0,0) (1,0) (0,1) (1,1)
    assert (s["red_1"].x, s["red_1"].y) == (0, 0)    # 1st of the three left
    assert (s["blue_0"].x, s["blue_0"].y) == (11, 11)
    assert [(r.sides, r.values, r.reason) for r in game.dice.history] == [
        (4, (3,), "placement"), (3, (1,), "placement"), (4, (4,), "placement"),
    ]


def test_random_placement_never_takes_a_square_given_to_a_later_ship():
    """Engine fix: squares given explicitly are reserved before unplaced ships draw theirs."""
    game = make_game(
        [ship("trireme", wits=4), ship("bireme", (0, 0), wits=5)],
        [ship("trireme", (10, 10))],
        dice=[1],
        zones=(SMALL_ZONE, FAR_ZONE),
    )
    s = game.state.ships
    assert (s["red_1"].x, s["red_1"].y) == (0, 0)
    assert (s["red_0"].x, s["red_0"].y) == (1, 0)    # first of (1,0) (0,1) (1,1)
    assert game.dice.history[0].sides == 3
    check_invariants(game)


def test_five_ships_a_side_are_allowed():
    """'a maximum of five ships per side'."""
    red = [ship("bireme", (0, y), wits=1 + y) for y in range(5)]
    config = make_config(red, [ship("trireme", (11, 0), wits=9)])
    assert len(config.scenarios["test"].sides[0].ships) == 5


def test_a_sixth_ship_on_a_side_is_refused():
    red = [ship("bireme", (0, y), wits=1 + y) for y in range(6)]
    with pytest.raises(ConfigError, match="6 ships; at most house_rules.max_ships_per_side = 5"):
        make_config(red, [ship("trireme", (11, 0))])


def test_house_rule_cannot_raise_the_five_ship_limit():
    with pytest.raises(ConfigError, match="max_ships_per_side"):
        make_config([ship("bireme", (0, 0))], [ship("trireme", (11, 0))], house_rules={"max_ships_per_side": 6})


# ---------------------------------------------------------------- Initiative
def test_initiative_is_wits_plus_seamanship_plus_maneuverability_highest_first():
    """'Initiative is determined by the sum of each captain's Wits + Seamanship + Ship's Maneuverability.
    The highest value goes first, ending at the lowest value.'"""
    game = make_game(
        [ship("trireme", (0, 0), wits=3, seamanship=2),          # 3+2+3 = 8
         ship("hemiolia", (0, 2), wits=1, seamanship=1)],        # 1+1+5 = 7
        [ship("quinquereme", (11, 0), wits=5, seamanship=4,      # 5+4+1 = 10
              charisma=0)],
    )
    assert game.state.order == ["blue_0", "red_0", "red_1"]
    [rolled] = of(game.opening_events, InitiativeRolled)
    assert rolled.order == ("blue_0", "red_0", "red_1")
    assert rolled.scores == (10, 8, 7)
    assert game.current_agent == "blue_0"


def test_charisma_does_not_count_for_initiative():
    game = make_game([ship("trireme", (0, 0), wits=1, charisma=9)], [ship("trireme", (11, 0), wits=2, charisma=0)])
    assert [game.state.ships[s].initiative for s in game.state.order] == [7, 6]
    assert game.state.order == ["blue_0", "red_0"]


def test_initiative_ties_are_broken_by_a_d10_each():
    game = make_game([ship("trireme", (0, 0))], [ship("trireme", (11, 0))], dice=[4, 7])
    assert game.state.order == ["blue_0", "red_0"]
    assert [(r.sides, r.values[0], r.reason) for r in game.dice.history] == [
        (10, 4, "initiative tie: red_0"), (10, 7, "initiative tie: blue_0"),
    ]


def test_initiative_tie_dice_are_rerolled_while_still_tied():
    game = make_game([ship("trireme", (0, 0))], [ship("trireme", (11, 0))], dice=[5, 5, 9, 2])
    assert game.state.order == ["red_0", "blue_0"]
    assert game.dice.remaining == 0


def test_only_the_tied_ships_roll_for_initiative():
    game = make_game(
        [ship("trireme", (0, 0)), ship("trireme", (0, 2), wits=6)],     # 8 and 11
        [ship("trireme", (11, 0))],                                      # 8
        dice=[3, 8],
    )
    assert game.state.order == ["red_1", "blue_0", "red_0"]
    assert len(game.dice.history) == 2


def test_placement_dice_come_before_initiative_tie_dice():
    game = make_game([ship("trireme")], [ship("trireme", (10, 10))], dice=[2, 1, 6],
                     zones=(SMALL_ZONE, FAR_ZONE))
    assert [r.reason for r in game.dice.history] == ["placement", "initiative tie: red_0", "initiative tie: blue_0"]
    assert (game.state.ships["red_0"].x, game.state.ships["red_0"].y) == (1, 0)
    assert game.state.order == ["blue_0", "red_0"]


def test_initiative_tie_without_dice_scripted_fails_loudly():
    with pytest.raises(DiceExhaustedError):
        make_game([ship("trireme", (0, 0))], [ship("trireme", (11, 0))])


def test_each_captain_starts_with_retests_equal_to_seamanship():
    """'each captain has a number of retests ... equal to their Seamanship rating'."""
    game = make_game([ship("trireme", (0, 0), seamanship=4)], [ship("trireme", (11, 0), seamanship=0)])
    assert game.state.ships["red_0"].retests == 4
    assert game.state.ships["blue_0"].retests == 0


# ------------------------------------------------------------ turn sequence
def test_a_turn_is_movement_then_attack_then_the_next_captain_in_order():
    """'These turns will be comprised of two steps that are taken in order ... Movement, then Attack.'"""
    game = make_game([ship("trireme", (2, 5), wits=4)], [ship("trireme", (9, 5))])
    assert game.current_agent == "red_0" and game.state.phase is Phase.MOVE
    assert allowed_labels(game, "attack") == ["none"]               # no attack before moving
    act(game, maneuver="ahead 2")
    assert game.current_agent == "red_0" and game.state.phase is Phase.ATTACK
    assert allowed_labels(game, "maneuver") == ["hold"]             # the move is done
    events = act(game, attack="none")
    assert of(events, TurnStarted) == [TurnStarted("blue_0", 1)]
    assert game.current_agent == "blue_0" and game.state.phase is Phase.MOVE
    act(game, maneuver="hold")
    events = act(game, attack="none")
    assert of(events, TurnStarted) == [TurnStarted("red_0", 2)]
    assert game.state.round == 2


def test_a_move_is_final_once_made_chess_rules():
    """'once you have moved your ship and let go of it, that is the position it will be in'."""
    game = make_game([ship("trireme", (2, 5), wits=4)], [ship("trireme", (9, 5))])
    events = act(game, maneuver="ahead 1")
    assert of(events, Moved)[0].path == ((2, 5), (3, 5))
    assert not allowed(game, "maneuver", "ahead 1")
    act(game, attack="none")
    assert (game.state.ships["red_0"].x, game.state.ships["red_0"].y) == (3, 5)
