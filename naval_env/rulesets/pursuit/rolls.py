"""The d20 core: attack rolls and challenge rolls with boons and banes, and their result bands.

A roll is d20 + (attribute - 10) + the boon or bane die. Boons and banes cancel
one for one; what remains rolls that many d6 and adds (boons) or subtracts
(banes) the highest. The d20 is rolled first, then the d6s.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from naval_env.core.dice import Dice

CHALLENGE_TARGET = 10


class Band(IntEnum):
    """Result bands of a roll; "20 or higher" needs a success, "0 or lower" is always a failure."""

    ZERO_OR_LESS = 0
    FAILURE = 1
    SUCCESS = 2
    TWENTY_PLUS = 3

    @property
    def succeeded(self) -> bool:
        return self >= SUCCESS

    @property
    def label(self) -> str:
        return _LABELS[self]


# Band: members as module constants for the rules' hot paths; Python 3.11 looks a member up on its
# Enum class through EnumType.__getattr__, several times slower than a global.
ZERO_OR_LESS, FAILURE, SUCCESS, TWENTY_PLUS = Band.ZERO_OR_LESS, Band.FAILURE, Band.SUCCESS, Band.TWENTY_PLUS
_LABELS = {Band.ZERO_OR_LESS: "0 or lower", Band.FAILURE: "failure", Band.SUCCESS: "success",
           Band.TWENTY_PLUS: "20 or higher"}


class RollResult(NamedTuple):
    """One d20 roll's result. A named tuple, not a frozen dataclass: most decisions roll, and a tuple is built
    several times faster."""

    die: int          # the d20 face
    modifier: int     # attribute - 10
    boons: int        # net boons (negative: banes)
    boon_die: int     # signed highest d6 of the boons or banes (0 without any)
    total: int
    target: int
    band: Band

    @property
    def succeeded(self) -> bool:
        return self.band >= SUCCESS


def boon_die(dice: Dice, net: int, reason: str) -> int:
    """Highest of |net| d6, positive for boons and negative for banes; 0 when they cancel."""
    if net == 0:
        return 0
    best = max(dice.roll(6, abs(net), reason))
    return best if net > 0 else -best


def band_of(total: int, target: int) -> Band:
    if total <= 0:
        return ZERO_OR_LESS
    if total < target:
        return FAILURE
    return TWENTY_PLUS if total >= 20 else SUCCESS


def d20_roll(dice: Dice, score: int, target: int, boons: int, reason: str) -> RollResult:
    """A roll of ``score`` against ``target`` with ``boons`` net boons (negative: banes)."""
    die = dice.d(20, reason)
    extra = boon_die(dice, boons, reason)
    modifier = score - 10
    total = die + modifier + extra
    return RollResult(die, modifier, boons, extra, total, target, band_of(total, target))


def attack_roll(dice: Dice, score: int, defense: int, boons: int, reason: str) -> RollResult:
    """An attack roll: success when the total reaches the defending attribute score."""
    return d20_roll(dice, score, defense, boons, reason)


def challenge_roll(dice: Dice, score: int, boons: int, reason: str) -> RollResult:
    """A challenge roll: success on a total of 10 or more."""
    return d20_roll(dice, score, CHALLENGE_TARGET, boons, reason)
