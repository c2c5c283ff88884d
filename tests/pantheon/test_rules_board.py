"""Board Them!: the tie, how it ends, the automatic exchange and pressing (document: Board Them!).

Red: trireme (damage 3, health 12, attack pool 9) at (4, 5). Blue: quinquereme (damage 4, health 16,
defense pool 6) at (5, 5). Red acts first.
"""

from __future__ import annotations

import pytest

from naval_env.rulesets.pantheon.events import AttackDeclared, BoardingTied, TieBroken
from naval_env.rulesets.pantheon.events import TestThrown as Thrown
from naval_env.rulesets.pantheon.state import Phase, Status
from naval_env.testing import allowed, allowed_labels, damage_list, script

from .helpers import act, make_game, of, ship

RAFT = {"raft": {"speed": 3, "health": 1, "damage": 1, "maneuverability": 1, "pc_capacity": 0}}


def board_game(blue_at=(5, 5), dice=(), blue_vessel="quinquereme", **kw):
    game = make_game([ship("trireme", (4, 5), "E", wits=4)], [ship(blue_vessel, blue_at, "W", wits=0)],
                     dice=dice, **kw)
    assert game.current_agent == "red_0"
    return game


def tied_game():
    """Red has boarded blue (11 vs 10); it is blue's turn."""
    game = board_game(dice=[2, 4])
    act(game, maneuver="hold")
    act(game, attack="board@enemy0")
    return game


def to_reds_next_attack_step(game):
    assert game.current_agent == "blue_0"
    act(game, attack="none")                              # blue, tied: attack step only
    assert game.current_agent == "red_0" and game.state.phase is Phase.START
    events = act(game, turn_order="proceed")
    assert game.state.phase is Phase.ATTACK               # tied: no movement step
    return events


def test_boarding_needs_contact():
    """'This attack requires that the attacking ship is in contact with the defending ship.'"""
    game = board_game(blue_at=(6, 5))
    act(game, maneuver="hold")
    assert not allowed(game, "attack", "board@enemy0")
    game = board_game(blue_at=(5, 6))                     # diagonal contact
    act(game, maneuver="hold")
    assert allowed(game, "attack", "board@enemy0")


def test_board_failure_no_tie():
    """'On a failure, they are unable to gain purchase on the opposing ship and cannot board it.'"""
    game = board_game(dice=[1, 5])
    act(game, maneuver="hold")
    events = act(game, attack="board@enemy0")
    assert of(events, Thrown)[0].result == "failure"
    assert of(events, BoardingTied) == [] and damage_list(events) == []
    assert game.state.ships["red_0"].boarding is None and game.state.ships["blue_0"].boarded_by is None
    assert game.state.phase is Phase.MOVE                 # blue is free to move


def test_board_success_ties_the_ships_without_damage():
    """'On a success, the two ships are tied together and parties from one ship may cross over to the other.'"""
    game = board_game(dice=[2, 4])
    act(game, maneuver="hold")
    events = act(game, attack="board@enemy0")
    assert of(events, Thrown)[0].result == "success"
    assert of(events, BoardingTied) == [BoardingTied("red_0", "blue_0")]
    assert damage_list(events) == []
    red, blue = game.state.ships["red_0"], game.state.ships["blue_0"]
    assert (red.boarding, red.boarded_by, blue.boarding, blue.boarded_by) == ("blue_0", None, None, "red_0")


def test_tied_ships_do_not_move():
    game = tied_game()
    assert game.state.phase is Phase.ATTACK               # blue skips its movement step
    assert allowed_labels(game, "maneuver") == ["hold"]
    to_reds_next_attack_step(game)
    assert (game.state.ships["red_0"].x, game.state.ships["blue_0"].x) == (4, 5)


def test_boarded_captain_gets_no_exchange_on_its_own_turn():
    game = tied_game()
    events = act(game, attack="none")
    assert damage_list(events) == []


def test_automatic_exchange_at_the_boarders_next_attack_step():
    """'At the beginning of the attacking Captain's next attack action, if the ships remain tied together, each
    ship takes the other ship's damage rating in damage automatically.'"""
    game = tied_game()
    to_reds_next_attack_step(game)
    events = act(game, attack="none")
    assert damage_list(events) == [("blue_0", 3, "red_0", "boarding melee"), ("red_0", 4, "blue_0", "boarding melee")]
    assert (game.state.ships["red_0"].health, game.state.ships["blue_0"].health) == (8, 13)
    assert game.state.ships["red_0"].boarding == "blue_0"     # still tied


@pytest.mark.parametrize("dice, result, extra", [
    ([2, 4], "success", [("blue_0", 3, "red_0", "pressed boarding")]),      # + the boarder's rating
    ([1, 5], "failure", [("red_0", 4, "blue_0", "boarding repelled")]),     # the defender's rating back
    ([5, 3], "exceptional", [("blue_0", 4, "red_0", "pressed boarding")]),  # + an extra level
])
def test_pressing_the_advantage(dice, result, extra):
    """'The attacking captain may then choose to make a test using the ship combat test pool to press their
    advantage. If they succeed, they deal an extra amount of damage equal to their ship's damage rating. However,
    if they fail, the defending ship deals its damage rating back to the attacking ship. An exceptional success on
    this test deals an extra level of damage.'"""
    game = tied_game()
    to_reds_next_attack_step(game)
    assert allowed(game, "attack", "board@enemy0")
    script(game, *dice)
    events = act(game, attack="board@enemy0")
    [t] = of(events, Thrown)
    assert (t.test, t.result) == ("press boarding", result)
    melee = [("blue_0", 3, "red_0", "boarding melee"), ("red_0", 4, "blue_0", "boarding melee")]
    assert damage_list(events) == melee + extra
    assert game.state.ships["red_0"].boarding == "blue_0"     # pressing does not end the tie


def test_boarder_may_choose_another_attack_after_the_exchange():
    game = tied_game()
    to_reds_next_attack_step(game)
    script(game, 2, 4)
    events = act(game, attack="fire@enemy0")
    assert of(events, AttackDeclared) == [AttackDeclared("red_0", "fire", "blue_0")]
    assert damage_list(events) == [
        ("blue_0", 3, "red_0", "boarding melee"), ("red_0", 4, "blue_0", "boarding melee"),
        ("blue_0", 3, "red_0", "fire"),
    ]


def test_boarder_releases_at_the_start_of_its_turn_before_moving():
    """'The attacking captain chooses to release the other ship at the beginning of their turn, before they move.'"""
    game = tied_game()
    assert not allowed(game, "turn_order", "release")      # the boarded captain cannot release
    act(game, attack="none")
    assert allowed(game, "turn_order", "release")
    events = act(game, turn_order="release")
    assert of(events, TieBroken) == [TieBroken("red_0", "blue_0", "released by the boarder")]
    assert game.state.phase is Phase.MOVE                 # free again: it moves
    act(game, maneuver="turn port1")
    events = act(game, attack="none")
    assert damage_list(events) == []                      # no exchange once released


def test_tie_ends_when_a_ship_begins_to_sink():
    """'One ship takes enough damage to begin to sink.'"""
    game = board_game(dice=[2, 4], blue_vessel="raft", vessels=RAFT)
    act(game, maneuver="hold")
    act(game, attack="board@enemy0")
    to_reds_next_attack_step(game)
    events = act(game, attack="board@enemy0")              # the exchange alone sinks the raft
    # both hits of the exchange land (1 -> floor of -1 for the raft); no press follows: the tie is gone
    assert damage_list(events) == [("blue_0", 2, "red_0", "boarding melee"), ("red_0", 1, "blue_0", "boarding melee")]
    assert of(events, Thrown) == []
    assert game.state.ships["blue_0"].status is Status.SINKING
    assert TieBroken("red_0", "blue_0", "began to sink") in events
    assert game.state.ships["red_0"].boarding is None
    assert game.is_over and game.winner == "red"


def test_one_tie_per_ship():
    game = make_game(
        [ship("trireme", (4, 5), "E", wits=6), ship("trireme", (4, 6), "E", wits=5)],
        [ship("quinquereme", (5, 5), "W", wits=0), ship("bireme", (5, 4), "W", wits=0)],
        dice=[2, 4],
    )
    assert game.state.order == ["red_0", "red_1", "blue_1", "blue_0"]
    act(game, maneuver="hold")
    act(game, attack="board@enemy0")                      # red_0 boards blue_0
    act(game, maneuver="hold")                            # red_1, also in contact with blue_0
    assert not allowed(game, "attack", "board@enemy0")
    act(game, attack="none")
    act(game, maneuver="hold")                            # blue_1, in contact with red_0
    assert not allowed(game, "attack", "board@enemy0")
    act(game, attack="none")
    act(game, attack="none")                              # blue_0 (boarded)
    act(game, turn_order="proceed")                       # red_0
    assert not allowed(game, "attack", "board@enemy1")    # the boarder cannot start a second tie
    assert allowed(game, "attack", "board@enemy0")        # but presses the one it holds
