"""Tests between two pools (and static challenges), with retests.

The document never says how a test resolves (see Assumptions); both methods here
are selected by ``house_rules.test_resolution``.
"""

from __future__ import annotations

from enum import Enum

from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.rulesets.pantheon.config import HouseRules
from naval_env.rulesets.pantheon.events import TestThrown
from naval_env.rulesets.pantheon.state import Ship


class Result(str, Enum):
    FAILURE = "failure"
    SUCCESS = "success"
    EXCEPTIONAL = "exceptional"

    @property
    def succeeded(self) -> bool:
        return self is not Result.FAILURE


def throw(
    dice: Dice, rules: HouseRules, attack_pool: int, defense_pool: int, exceptional_shift: int
) -> tuple[int, int, Result]:
    """One throw: the attacker's die is rolled first, then the defender's."""
    if rules.test_resolution == "opposed_d10":
        attack_roll = dice.d(rules.test_die, "test: attacker")
        defense_roll = dice.d(rules.test_die, "test: defender")
        margin = (attack_pool + attack_roll) - (defense_pool + defense_roll)
        won = margin > 0 or (margin == 0 and rules.ties_go_to == "attacker")
        exceptional = won and margin + exceptional_shift >= rules.exceptional_margin
    else:
        attack_roll = dice.d(3, "test: attacker throws (1 rock, 2 paper, 3 scissors)")
        defense_roll = dice.d(3, "test: defender throws (1 rock, 2 paper, 3 scissors)")
        if attack_roll == defense_roll:
            won = attack_pool > defense_pool or (
                attack_pool == defense_pool and rules.ties_go_to == "attacker"
            )
        else:
            won = (attack_roll - defense_roll) % 3 == 1
        exceptional = won and attack_pool + exceptional_shift >= 2 * max(defense_pool, 1)
    if not won:
        return attack_roll, defense_roll, Result.FAILURE
    return attack_roll, defense_roll, Result.EXCEPTIONAL if exceptional else Result.SUCCESS


def contest(
    dice: Dice,
    rules: HouseRules,
    test: str,
    attacker: Ship,
    defender: Ship | None,
    attack_pool: int,
    defense_pool: int,
    events: list[Event],
    exceptional_shift: int = 0,
) -> Result:
    """Throw a test, then apply the standing retest orders: attacker on failure, then defender when hit.

    Each captain spends at most one retest on one test. ``defender`` None makes
    it a static challenge against ``defense_pool`` as the difficulty.
    """
    defender_id = defender.id if defender is not None else None

    def one_throw(retest_by: str | None) -> Result:
        a, d, result = throw(dice, rules, attack_pool, defense_pool, exceptional_shift)
        events.append(
            TestThrown(test, attacker.id, defender_id, attack_pool, defense_pool, a, d, result.value, retest_by)
        )
        return result

    result = one_throw(None)
    if result is Result.FAILURE and attacker.retest_on_failure and attacker.retests > 0:
        attacker.retests -= 1
        result = one_throw(attacker.id)
    if result.succeeded and defender is not None and defender.retest_when_hit and defender.retests > 0:
        defender.retests -= 1
        result = one_throw(defender.id)
    return result
