"""The d20 core: attack and challenge rolls, boons and banes, the result bands."""

from __future__ import annotations

import pytest

from naval_env.core.dice import ScriptedDice
from naval_env.rulesets.pursuit.rolls import Band, attack_roll, band_of, boon_die, challenge_roll


@pytest.mark.parametrize("net, faces, expected", [
    (0, [], 0),              # boons and banes cancelled: no die
    (1, [4], 4),             # one boon: +1d6
    (2, [2, 5], 5),          # two boons: the highest of 2d6
    (-1, [3], -3),           # one bane: -1d6
    (-3, [1, 6, 2], -6),     # three banes: minus the highest of 3d6
])
def test_boons_and_banes_roll_that_many_d6_and_keep_the_highest(net, faces, expected):
    dice = ScriptedDice(faces)
    assert boon_die(dice, net, "test") == expected
    assert dice.remaining == 0


@pytest.mark.parametrize("total, target, band", [
    (-2, 10, Band.ZERO_OR_LESS),
    (0, 10, Band.ZERO_OR_LESS),     # "0 or lower"
    (1, 10, Band.FAILURE),
    (9, 10, Band.FAILURE),
    (10, 10, Band.SUCCESS),         # reaching the target is a success
    (19, 10, Band.SUCCESS),
    (20, 10, Band.TWENTY_PLUS),     # "20 or higher"
    (25, 10, Band.TWENTY_PLUS),
    (20, 21, Band.FAILURE),         # 20 or higher needs a success too
])
def test_result_bands(total, target, band):
    assert band_of(total, target) is band


def test_challenge_roll_is_d20_plus_modifier_against_10():
    """Modifier = attribute - 10; d20 first, then the boon or bane dice."""
    dice = ScriptedDice([9, 3])
    roll = challenge_roll(dice, 12, -1, "test")            # 9 + 2 - 3 = 8
    assert (roll.die, roll.modifier, roll.boon_die, roll.total, roll.target) == (9, 2, -3, 8, 10)
    assert roll.band is Band.FAILURE and not roll.succeeded


def test_attack_roll_is_against_the_defending_attribute():
    dice = ScriptedDice([11, 2])
    roll = attack_roll(dice, 11, 13, 1, "test")            # 11 + 1 + 2 = 14 vs 13
    assert (roll.total, roll.target, roll.band) == (14, 13, Band.SUCCESS)
    dice = ScriptedDice([11])
    assert attack_roll(dice, 11, 13, 0, "test").band is Band.FAILURE   # 12 vs 13


def test_a_bane_can_drive_a_roll_to_zero_or_lower():
    dice = ScriptedDice([4, 6])
    roll = challenge_roll(dice, 8, -1, "test")            # 4 - 2 - 6 = -4
    assert roll.band is Band.ZERO_OR_LESS
