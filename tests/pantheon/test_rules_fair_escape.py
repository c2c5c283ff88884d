"""Fair Escape (document: Fair Escape).

Red (trireme, acts first) starts on the west edge of a 12 x 12 board.
"""

from __future__ import annotations

from naval_env.rulesets.pantheon.events import FairEscape, StatusChanged
from naval_env.rulesets.pantheon.state import Phase, Status
from naval_env.testing import allowed

from .helpers import act, make_game, of, ship


def edge_game(red_at=(0, 5), blue_at=(11, 5), second_red=False, dice=(), red_facing="E"):
    red = [ship("trireme", red_at, red_facing, wits=4)]
    if second_red:
        red.append(ship("trireme", (5, 11), "E", wits=2))
    game = make_game(red, [ship("trireme", blue_at, "W", wits=3)], dice=dice)
    assert game.state.order[0] == "red_0"
    return game


def quiet_round(game, *agents):
    for agent in agents:
        assert game.current_agent == agent
        if game.state.phase is Phase.START:
            act(game, turn_order="proceed")
        if game.state.phase is Phase.MOVE:
            act(game, maneuver="hold")
        act(game, attack="none")


def test_fair_escape_after_a_full_round_untouched_at_the_edge_removes_the_ship():
    """'must begin its turn at a board edge. Then, if during an entire round, no one has declared an action towards
    you in that round, you may call Fair Escape. Remove your ship from the board, you have escaped.'"""
    game = edge_game(second_red=True)
    assert game.state.phase is Phase.MOVE                 # round 1: no full round has passed yet
    quiet_round(game, "red_0", "blue_0", "red_1")
    assert game.current_agent == "red_0" and game.state.phase is Phase.START
    assert allowed(game, "turn_order", "fair_escape")
    events = act(game, turn_order="fair_escape")
    assert of(events, FairEscape) == [FairEscape("red_0")]
    assert StatusChanged("red_0", "escaped") in events
    assert game.state.ships["red_0"].status is Status.ESCAPED
    assert (0, 5) not in game.state.occupancy
    assert game.current_agent == "blue_0" and not game.is_over
    act(game, maneuver="hold")
    assert not allowed(game, "attack", "fire@enemy0")     # gone from the board
    assert not game.is_active("red_0")


def test_escaped_last_ship_leaves_the_other_side_the_winner():
    game = edge_game()
    quiet_round(game, "red_0", "blue_0")
    act(game, turn_order="fair_escape")
    assert game.is_over and game.winner == "blue"


def test_no_fair_escape_in_the_first_round():
    game = edge_game()
    assert game.state.phase is Phase.MOVE
    assert not allowed(game, "turn_order", "fair_escape")


def test_no_fair_escape_after_an_action_was_declared_at_the_ship_that_round():
    game = edge_game(blue_at=(3, 5), dice=[1, 9])
    quiet_round(game, "red_0")
    act(game, maneuver="hold")
    act(game, attack="fire@enemy0")                       # blue fires at red (and misses)
    assert game.state.ships["red_0"].health == 12
    assert game.current_agent == "red_0" and game.state.phase is Phase.MOVE   # no START: nothing to declare
    act(game, maneuver="hold")
    act(game, attack="none")
    quiet_round(game, "blue_0")                           # a quiet round for red since its last turn
    assert game.state.phase is Phase.START and allowed(game, "turn_order", "fair_escape")


def test_no_fair_escape_unless_the_turn_begins_at_an_edge():
    game = edge_game(red_at=(1, 5))
    quiet_round(game, "red_0", "blue_0")
    assert game.state.phase is Phase.MOVE
    act(game, maneuver="turn port2")                      # face N
    act(game, attack="none")
    quiet_round(game, "blue_0")
    assert game.state.phase is Phase.MOVE                 # still one square off the edge


def test_ship_that_sails_to_the_edge_may_escape_from_its_next_turn():
    game = edge_game(red_at=(2, 5), red_facing="W")
    act(game, maneuver="ahead 2")                         # to x = 0
    act(game, attack="none")
    quiet_round(game, "blue_0")
    assert game.state.phase is Phase.START and allowed(game, "turn_order", "fair_escape")


def test_no_fair_escape_while_tied():
    """'If you are being actively engaged, you cannot Fair Escape.' Red boards blue; nobody declares anything at red."""
    game = edge_game(blue_at=(1, 5), dice=[3, 3])
    act(game, maneuver="hold")
    act(game, attack="board@enemy0")
    quiet_round(game, "blue_0")
    assert game.state.phase is Phase.START                # offered to release, not to escape
    assert allowed(game, "turn_order", "release")
    assert not allowed(game, "turn_order", "fair_escape")


def test_no_fair_escape_while_wrecked():
    """'To declare Fair Escape, your ship must not be Wrecked or Sinking'. Red wrecks itself ramming."""
    game = edge_game(red_at=(0, 5), blue_at=(1, 3), red_facing="N", dice=[1, 9])
    game.state.ships["red_0"].health = 6
    act(game, maneuver="ahead 1")                         # to (0, 4), in contact with (1, 3)
    act(game, attack="ram@enemy0")                        # failure: 6 recoil
    assert game.state.ships["red_0"].status is Status.WRECKED
    quiet_round(game, "blue_0")
    assert game.current_agent == "red_0" and game.state.phase is Phase.ATTACK
    assert not allowed(game, "turn_order", "fair_escape")
