"""Ram! (document: Ram!).

Red: trireme (damage 3, health 12, attack pool 4+2+3 = 9). Blue: quinquereme (damage 4, health 16,
defense pool 3+2+1 = 6), so each side's rating can be told apart in the damage dealt.
"""

from __future__ import annotations

import pytest

from naval_env.core.events import DamageDealt
from naval_env.rulesets.pantheon.events import AttackDeclared
from naval_env.rulesets.pantheon.events import TestThrown as Thrown
from naval_env.testing import allowed, damage_list

from .helpers import act, make_game, of, ship


def ram_game(blue_at=(6, 5), red_at=(2, 5), dice=()):
    game = make_game([ship("trireme", red_at, "E", wits=4)], [ship("quinquereme", blue_at, "W", wits=0)],
                     dice=dice)
    assert game.current_agent == "red_0"
    return game


def test_ram_needs_contact_after_moving_forward():
    """'This attack requires that the attacking ship has moved forward this turn to be in contact with the
    defending ship.'"""
    game = ram_game()
    act(game, maneuver="ahead 3")                         # to (5,5), next to (6,5)
    assert allowed(game, "attack", "ram@enemy0")


def test_contact_includes_diagonal_squares():
    game = ram_game(blue_at=(6, 6))
    act(game, maneuver="ahead 3")
    assert allowed(game, "attack", "ram@enemy0")


def test_no_ram_without_contact():
    game = ram_game(blue_at=(7, 5))
    act(game, maneuver="ahead 3")                         # two squares apart
    assert not allowed(game, "attack", "ram@enemy0")
    assert allowed(game, "attack", "fire@enemy0")


@pytest.mark.parametrize("maneuver", ["hold", "turn port1", "turn starboard2"])
def test_ship_that_has_not_moved_forward_this_turn_cannot_ram(maneuver):
    """'If the captain's ship has not moved this turn, it cannot initiate a ramming attack.'"""
    game = ram_game(red_at=(5, 5))                        # already in contact
    act(game, maneuver=maneuver)
    assert not allowed(game, "attack", "ram@enemy0")
    assert allowed(game, "attack", "board@enemy0")


def test_moving_forward_on_an_earlier_turn_does_not_count():
    game = ram_game()
    act(game, maneuver="ahead 3")
    act(game, attack="none")
    act(game, maneuver="hold")                             # blue
    act(game, attack="none")
    act(game, maneuver="hold")                             # red, round 2, still in contact
    assert not allowed(game, "attack", "ram@enemy0")


@pytest.mark.parametrize("dice, result, to_attacker, to_defender", [
    ([1, 5], "failure", 2 * 4, 3),      # 10 vs 11: attacker takes double the defender's rating
    ([2, 4], "success", 4, 2 * 3),      # 11 vs 10: defender takes double the attacker's
    ([5, 3], "exceptional", 0, 3 * 3),  # 14 vs 9: attacker nothing, defender triple
])
def test_ram_damage_by_result(dice, result, to_attacker, to_defender):
    """'On a failure, the attacking ship takes double the defending ship's damage rating while the defending ship
    takes damage equal to the attacker's damage rating. On a success, the attacking ship takes damage equal to the
    defending ship's damage rating while the defending ship takes double the attacking ship's damage. On an
    exceptional success, the attacking ship takes no damage while the defending ship takes triple the attacking
    ship's damage.'"""
    game = ram_game(dice=dice)
    act(game, maneuver="ahead 3")
    events = act(game, attack="ram@enemy0")
    [t] = of(events, Thrown)
    assert (t.test, t.attacker, t.defender, t.attack_pool, t.defense_pool, t.result) == (
        "ram", "red_0", "blue_0", 9, 6, result)
    expected = [("blue_0", to_defender, "red_0", "ram")]
    if to_attacker:
        expected.append(("red_0", to_attacker, "blue_0", "ram recoil"))
    assert damage_list(events) == expected
    assert game.state.ships["red_0"].health == 12 - to_attacker
    assert game.state.ships["blue_0"].health == 16 - to_defender
    assert of(events, AttackDeclared) == [AttackDeclared("red_0", "ram", "blue_0")]


def test_ram_ends_the_attack_step_so_no_boarding_follows():
    """'If the attacking captain's ship has used the ramming action this turn, it cannot initiate a boarding
    action': one attack option per turn, so after Ram! the turn passes."""
    game = ram_game(dice=[2, 4])
    act(game, maneuver="ahead 3")
    act(game, attack="ram@enemy0")
    assert game.current_agent == "blue_0"
    assert game.state.ships["red_0"].boarding is None


def test_ram_recoil_can_wreck_the_rammer():
    game = ram_game(dice=[1, 5])
    game.state.ships["red_0"].health = 8
    act(game, maneuver="ahead 3")
    events = act(game, attack="ram@enemy0")
    assert game.state.ships["red_0"].health == 0
    assert game.state.ships["red_0"].status.value == "wrecked"
    assert [e.amount for e in of(events, DamageDealt)] == [3, 8]
