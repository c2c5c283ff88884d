"""Fire!, and "Attack actions damage the opponent's ship" (document: Fire!, Step Two - Attack).

Red: trireme (damage 3, attack pool 9) at (2, 5). Blue: bireme (damage 2, health 10, defense pool 8).
"""

from __future__ import annotations

import dataclasses

import pytest

from naval_env.rulesets.pantheon.events import AttackDeclared, TurnStarted
from naval_env.rulesets.pantheon.events import TestThrown as Thrown
from naval_env.rulesets.pantheon.state import Phase, Status
from naval_env.testing import allowed, allowed_labels, damage_list

from .helpers import act, make_game, of, ship


def fire_game(blue_at, dice=(), enhancements=(), red_at=(2, 5)):
    game = make_game([ship("trireme", red_at, "E", wits=4, enhancements=list(enhancements))],
                     [ship("bireme", blue_at, "W", wits=0)], dice=dice)
    assert game.current_agent == "red_0"
    return game


@pytest.mark.parametrize("blue_at, in_range", [
    ((5, 5), True), ((5, 8), True), ((5, 2), True), ((3, 6), True), ((4, 7), True),
    ((6, 5), False), ((5, 9), False), ((6, 1), False), ((2, 9), False),
])
def test_fire_reaches_three_spaces_counting_diagonals_as_one(blue_at, in_range):
    """'This attack requires that the defending ship be within three spaces of the attacking ship.'"""
    game = fire_game(blue_at)
    act(game, maneuver="hold")
    assert allowed(game, "attack", "fire@enemy0") is in_range


def test_fire_does_not_need_a_move():
    """'The attacking ship doesn't have to move in order to use this ability.'"""
    game = fire_game((5, 5), dice=[3, 3])
    act(game, maneuver="hold")
    events = act(game, attack="fire@enemy0")
    assert of(events, AttackDeclared) == [AttackDeclared("red_0", "fire", "blue_0")]
    assert game.state.ships["blue_0"].health == 7


def test_one_attack_option_per_turn_so_fire_ends_the_attack_step():
    """ASSUMPTION (not configurable): 'they may make any of the following attack options' read as one of them
    per turn (one ``attack`` component). Alongside blue, red may Fire! or Board Them!; after a Fire! (3 damage:
    health 10 -> 7) the turn passes to blue with no second option and no other test thrown."""
    game = fire_game((3, 5), dice=[3, 3])
    act(game, maneuver="hold")
    assert {"fire@enemy0", "board@enemy0"} <= set(allowed_labels(game, "attack"))
    events = act(game, attack="fire@enemy0")
    assert of(events, AttackDeclared) == [AttackDeclared("red_0", "fire", "blue_0")]
    assert len(of(events, Thrown)) == 1 and game.state.ships["blue_0"].health == 7
    assert of(events, TurnStarted) == [TurnStarted("blue_0", 1)]
    assert game.current_agent == "blue_0" and game.state.phase is Phase.MOVE


def test_fire_after_moving_into_range():
    game = fire_game((9, 5), dice=[3, 3])
    act(game, maneuver="hold")
    assert not allowed(game, "attack", "fire@enemy0")
    game = fire_game((9, 5), dice=[3, 3])
    act(game, maneuver="ahead 4")                         # to (6,5): three squares off
    assert allowed(game, "attack", "fire@enemy0")


@pytest.mark.parametrize("dice, result, damage", [
    ([1, 5], "failure", 0),      # 'On a failure, no damage is dealt.'
    ([3, 3], "success", 3),      # 'the attacking ship deals damage equal to its damage rating'
    ([5, 1], "exceptional", 4),  # 'its damage rating plus an additional level of damage'
])
def test_fire_damage_by_result(dice, result, damage):
    game = fire_game((5, 5), dice=dice)
    act(game, maneuver="hold")
    events = act(game, attack="fire@enemy0")
    assert of(events, Thrown)[0].result == result
    assert damage_list(events) == ([("blue_0", damage, "red_0", "fire")] if damage else [])
    assert game.state.ships["blue_0"].health == 10 - damage
    assert game.state.ships["red_0"].health == 12            # the firer takes nothing, even on a failure


def test_fire_at_a_wrecked_ship_is_allowed():
    game = fire_game((5, 5), dice=[3, 3, 3, 3])
    game.state.ships["blue_0"].health = 2
    act(game, maneuver="hold")
    events = act(game, attack="fire@enemy0")
    assert damage_list(events) == [("blue_0", 3, "red_0", "fire"), ("blue_0", 5, None, "wrecked")]
    assert game.state.ships["blue_0"].status is Status.WRECKED
    assert game.state.ships["blue_0"].health == -6
    act(game, attack="none")                              # blue is wrecked: straight to its attack step
    act(game, maneuver="hold")
    assert allowed(game, "attack", "fire@enemy0")
    events = act(game, attack="fire@enemy0")
    # -6 - 3 = -9, then blue's turn starts: 5 wrecked damage, of which 1 reaches the floor of -10 (sinking)
    assert damage_list(events) == [("blue_0", 3, "red_0", "fire"), ("blue_0", 1, None, "wrecked")]
    assert game.state.ships["blue_0"].status is Status.SINKING
    assert game.is_over and game.winner == "red"


def test_attack_actions_damage_the_opponents_ship_not_its_people():
    """'Note: Attack actions damage the opponent's ship, not PCs or NPCs.'"""
    game = fire_game((5, 5), dice=[3, 3])
    blue = game.state.ships["blue_0"]
    captain_before = dataclasses.asdict(blue.captain)
    crew_before = (blue.crew_slots, blue.shipwright)
    act(game, maneuver="hold")
    events = act(game, attack="fire@enemy0")
    assert damage_list(events) == [("blue_0", 3, "red_0", "fire")]
    assert blue.health == 7
    assert dataclasses.asdict(blue.captain) == captain_before
    assert (blue.crew_slots, blue.shipwright) == crew_before
