"""Tests between the attack and defense pools, their resolution, and retests (document: Step Two - Attack).

Resolution is the project's assumption (house_rules.test_resolution): opposed_d10 by default,
or rock_paper_scissors. Fire! is used as the probe: failure 0 damage, success the trireme's
rating 3, exceptional 3 + 1.
"""

from __future__ import annotations

import pytest

from naval_env.core.dice import DiceExhaustedError, ScriptedDice
from naval_env.rulesets.pantheon.challenge import Result, throw
from naval_env.rulesets.pantheon.config import HouseRules
from naval_env.rulesets.pantheon.events import TestThrown as Thrown
from naval_env.testing import allowed, damage_list, script

from .helpers import act, make_game, of, ship


def fire_once(dice, red=None, blue=None, house_rules=None, **act_kw):
    """Red (trireme, attack pool 9 by default) holds and fires at blue (trireme, defense pool 8) three squares off.
    Blue's Wits (not in its defense pool) is 0 so red acts first."""
    red = {"wits": 4, **(red or {})}
    blue = {"wits": 0, **(blue or {})}
    game = make_game([ship("trireme", (2, 5), "E", **red)], [ship("trireme", (5, 5), "W", **blue)],
                     dice=dice, house_rules=house_rules)
    assert game.current_agent == "red_0"
    act(game, maneuver="hold")
    events = act(game, attack="fire@enemy0", **act_kw)
    return game, events


# ---------------------------------------------------------------- the pools
def test_attack_pool_is_better_of_charisma_or_wits_plus_seamanship_plus_maneuverability():
    """'the attacking captain's Charisma or Wits (their choice) + Seamanship + Maneuverability versus the defending
    captain's Resolve or Composure (their choice) + Seamanship + Maneuverability'."""
    _, events = fire_once([1, 1], red={"wits": 4, "charisma": 6, "seamanship": 1},
                          blue={"resolve": 2, "composure": 5, "seamanship": 3})
    [t] = of(events, Thrown)
    assert (t.attack_pool, t.defense_pool) == (6 + 1 + 3, 5 + 3 + 3)
    _, events = fire_once([1, 1], red={"wits": 7, "charisma": 2, "seamanship": 1},
                          blue={"resolve": 6, "composure": 0, "seamanship": 0})
    [t] = of(events, Thrown)
    assert (t.attack_pool, t.defense_pool) == (7 + 1 + 3, 6 + 0 + 3)


def test_maneuverability_of_each_ship_counts_in_its_pool():
    game = make_game([ship("hemiolia", (2, 5), "E", wits=4)], [ship("quinquereme", (5, 5), "W")], dice=[1, 1])
    act(game, maneuver="hold")
    [t] = of(act(game, attack="fire@enemy0"), Thrown)
    assert (t.attack_pool, t.defense_pool) == (4 + 2 + 5, 3 + 2 + 1)


# --------------------------------------------------------- opposed_d10 mode
def test_opposed_d10_attacker_die_first_then_defender():
    game, events = fire_once([3, 7])
    [t] = of(events, Thrown)
    assert (t.attack_roll, t.defense_roll) == (3, 7)
    assert [r.reason for r in game.dice.history] == ["test: attacker", "test: defender"]
    assert all(r.sides == 10 for r in game.dice.history)


@pytest.mark.parametrize("dice, result, health", [
    ([3, 3], "success", 9),        # 9+3 > 8+3
    ([2, 3], "failure", 12),       # 9+2 = 8+3: a tie goes to the defender
    ([1, 5], "failure", 12),       # lower total
    ([4, 1], "success", 9),        # margin 4
    ([5, 1], "exceptional", 8),    # margin 5: exceptional, one more level of damage
    ([10, 1], "exceptional", 8),
])
def test_opposed_d10_success_needs_a_higher_total_exceptional_a_margin_of_five(dice, result, health):
    game, events = fire_once(dice)
    [t] = of(events, Thrown)
    assert t.result == result
    assert game.state.ships["blue_0"].health == health


def test_ties_can_go_to_the_attacker():
    game, events = fire_once([2, 3], house_rules={"ties_go_to": "attacker"})
    assert of(events, Thrown)[0].result == "success"
    assert game.state.ships["blue_0"].health == 9


def test_exceptional_margin_is_a_house_rule():
    _, events = fire_once([3, 1], house_rules={"exceptional_margin": 3})
    assert of(events, Thrown)[0].result == "exceptional"
    assert damage_list(events) == [("blue_0", 4, "red_0", "fire")]


def test_test_die_is_a_house_rule():
    game, _ = fire_once([6, 1], house_rules={"test_die": 6})
    assert [r.sides for r in game.dice.history] == [6, 6]
    with pytest.raises(ValueError, match="not on a d6"):
        fire_once([7, 1], house_rules={"test_die": 6})


# --------------------------------------------------- rock_paper_scissors mode
RPS = {"test_resolution": "rock_paper_scissors"}


@pytest.mark.parametrize("attack_throw, defense_throw, result", [
    (2, 1, "success"),   # paper covers rock
    (3, 2, "success"),   # scissors cut paper
    (1, 3, "success"),   # rock blunts scissors
    (1, 2, "failure"),
    (2, 3, "failure"),
    (3, 1, "failure"),
])
def test_rock_paper_scissors_throws(attack_throw, defense_throw, result):
    game, events = fire_once([attack_throw, defense_throw], house_rules=RPS)
    [t] = of(events, Thrown)
    assert t.result == result
    assert [r.sides for r in game.dice.history] == [3, 3]
    assert game.state.ships["blue_0"].health == (9 if result == "success" else 12)


@pytest.mark.parametrize("red, blue, ties, result", [
    ({"wits": 4}, {}, "defender", "success"),      # 9 vs 8: the larger pool wins the tie
    ({"wits": 3}, {"resolve": 4}, "defender", "failure"),  # 8 vs 9
    ({"wits": 3}, {}, "defender", "failure"),      # 8 vs 8: ties_go_to
    ({"wits": 3}, {}, "attacker", "success"),
])
def test_rock_paper_scissors_tied_throw_goes_to_the_larger_pool(red, blue, ties, result):
    _, events = fire_once([2, 2], red=red, blue=blue, house_rules={**RPS, "ties_go_to": ties})
    assert of(events, Thrown)[0].result == result


def test_rock_paper_scissors_exceptional_when_pool_at_least_double():
    # attack 9 vs defense 0+0+3 = 3 -> 9 >= 6: a win is exceptional
    game, events = fire_once([2, 1], blue={"resolve": 0, "composure": 0, "seamanship": 0}, house_rules=RPS)
    assert of(events, Thrown)[0].result == "exceptional"
    assert game.state.ships["blue_0"].health == 12 - 4
    # attack 9 vs defense 5+0+3 = 8 -> not double: a plain success
    game, events = fire_once([2, 1], blue={"resolve": 5, "seamanship": 0}, house_rules=RPS)
    assert of(events, Thrown)[0].result == "success"


def test_throw_function_directly():
    rules = HouseRules()
    assert throw(ScriptedDice([7, 2]), rules, 5, 5, 0) == (7, 2, Result.EXCEPTIONAL)
    assert throw(ScriptedDice([6, 2]), rules, 5, 5, 0) == (6, 2, Result.SUCCESS)
    assert throw(ScriptedDice([6, 2]), rules, 5, 5, 1) == (6, 2, Result.EXCEPTIONAL)


# ------------------------------------------------------------------- retests
def test_retests_do_nothing_unless_ordered():
    game, events = fire_once([1, 9])
    assert [t.retest_by for t in of(events, Thrown)] == [None]
    assert game.state.ships["red_0"].retests == 2


def test_attacker_retest_on_failure_throws_again_and_costs_one_retest():
    """'each captain has a number of retests they may use on any test they wish equal to their Seamanship'."""
    game, events = fire_once([1, 9, 4, 2], retest_on_failure=True)
    throws = of(events, Thrown)
    assert [(t.result, t.retest_by) for t in throws] == [("failure", None), ("success", "red_0")]
    assert game.state.ships["red_0"].retests == 1
    assert game.state.ships["blue_0"].health == 9


def test_attacker_retest_is_not_spent_on_a_success():
    game, events = fire_once([8, 2], retest_on_failure=True)
    assert len(of(events, Thrown)) == 1
    assert game.state.ships["red_0"].retests == 2


def blue_first_game(blue_seamanship=2):
    """Blue acts first (wits 6) and stands 3 squares off red; returns the game at blue's attack step."""
    game = make_game([ship("trireme", (2, 5), "E")], [ship("trireme", (5, 5), "W", wits=6, seamanship=blue_seamanship)])
    assert game.current_agent == "blue_0"
    act(game, maneuver="hold")
    return game


def test_defender_retest_when_hit_throws_again():
    game = blue_first_game()
    act(game, attack="none", retest_when_hit=True)
    act(game, maneuver="hold")
    script(game, 9, 1, 1, 9)
    events = act(game, attack="fire@enemy0")
    assert [(t.result, t.retest_by) for t in of(events, Thrown)] == [("exceptional", None), ("failure", "blue_0")]
    assert game.state.ships["blue_0"].retests == 1
    assert game.state.ships["blue_0"].health == 12


def test_defender_retest_is_not_spent_when_the_attack_fails():
    game = blue_first_game()
    act(game, attack="none", retest_when_hit=True)
    act(game, maneuver="hold")
    script(game, 1, 9)
    events = act(game, attack="fire@enemy0")
    assert [(t.result, t.retest_by) for t in of(events, Thrown)] == [("failure", None)]
    assert game.state.ships["blue_0"].retests == 2


def test_one_retest_per_captain_per_test_attacker_first_then_defender():
    """'A captain may not use more than one of their retests on any one challenge, though one may be used by the
    attacker and one then used by the defender.'"""
    game = blue_first_game()
    act(game, attack="none", retest_when_hit=True)
    act(game, maneuver="hold")
    script(game, 1, 9, 9, 1, 1, 9)
    events = act(game, attack="fire@enemy0", retest_on_failure=True)
    throws = of(events, Thrown)
    assert [(t.result, t.retest_by) for t in throws] == [
        ("failure", None), ("exceptional", "red_0"), ("failure", "blue_0"),
    ]
    assert game.dice.remaining == 0                       # red does not retest a second time
    assert (game.state.ships["red_0"].retests, game.state.ships["blue_0"].retests) == (1, 1)
    assert game.state.ships["blue_0"].health == 12


def test_retests_last_for_the_whole_combat_and_run_out():
    """'This number of retests lasts for the entire combat'."""
    game = make_game([ship("trireme", (2, 5), "E", wits=4, seamanship=1)], [ship("trireme", (5, 5), "W", wits=0)])
    act(game, maneuver="hold")
    script(game, 1, 9, 1, 9)
    act(game, attack="fire@enemy0", retest_on_failure=True)
    assert game.state.ships["red_0"].retests == 0
    act(game, maneuver="hold")
    act(game, attack="none")
    act(game, maneuver="hold")                            # round 2: still 0, not refreshed
    assert game.state.ships["red_0"].retests == 0
    assert not allowed(game, "retest_on_failure", "yes")
    assert not allowed(game, "retest_when_hit", "yes")
    script(game, 1, 9)
    events = act(game, attack="fire@enemy0")
    assert len(of(events, Thrown)) == 1


def test_retest_when_hit_lasts_until_the_defenders_next_attack_step():
    game = blue_first_game()
    act(game, attack="none", retest_when_hit=True)
    act(game, maneuver="hold")
    script(game, 9, 1, 9, 1)
    events = act(game, attack="fire@enemy0")             # blue retests: success again
    assert [t.retest_by for t in of(events, Thrown)] == [None, "blue_0"]
    assert game.state.ships["blue_0"].health == 8
    act(game, maneuver="hold")
    act(game, attack="none")                              # blue's next attack step: order not renewed
    act(game, maneuver="hold")
    script(game, 9, 1)
    events = act(game, attack="fire@enemy0")
    assert [t.retest_by for t in of(events, Thrown)] == [None]
    assert game.state.ships["blue_0"].health == 4
    assert game.state.ships["blue_0"].retests == 1


def test_captain_without_seamanship_has_no_retests():
    game = blue_first_game(blue_seamanship=0)
    assert not allowed(game, "retest_when_hit", "yes")
    assert allowed(game, "retest_when_hit", "no")


def test_unscripted_retest_would_need_dice():
    """Sanity: a retest is a real extra throw (it asks the dice again)."""
    with pytest.raises(DiceExhaustedError):
        fire_once([1, 9], retest_on_failure=True)
