"""Dice pools: Nd6, keep the highest, opposed.

Two ways to compare two throws (see the rules page):

- *steering contests* (initiative, maneuvers, rams, boarding, breaking free):
  highest die against highest die, then the next highest and so on (a missing
  die counts as 0); a full tie is thrown again until someone wins;
- *exchanges* (gunfire, counter-attacks, boarding fights): the highest die
  only; a tie means nobody loses cohesion.

A penalty of k dice either removes k dice from the roller's pool or adds k to
the opposing pool (``house_rules.penalty_mode``).
"""

from __future__ import annotations

from functools import lru_cache

from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.rulesets.flotilla.events import Contest

Faces = tuple[int, ...]
WON, LOST, TIE = "won", "lost", "tie"


def pool_sizes(a_dice: int, a_penalty: int, b_dice: int, b_penalty: int, mode: str) -> tuple[int, int]:
    """Dice each side throws after penalties (``mode``: 'remove_die' or 'add_to_opponent')."""
    if mode == "remove_die":
        a, b = a_dice - a_penalty, b_dice - b_penalty
        return (a if a > 0 else 0), (b if b > 0 else 0)  # noqa: FURB136 - hot path: a comparison is cheaper than a call
    return a_dice + b_penalty, b_dice + a_penalty


def throw(dice: Dice, count: int, reason: str) -> Faces:
    """``count`` d6, highest first (no dice: an empty throw that loses to any die)."""
    if count <= 0:
        return ()
    faces = dice.roll(6, count, reason)
    return faces if count == 1 else tuple(sorted(faces, reverse=True))


def highest(faces: Faces) -> int:
    return faces[0] if faces else 0


def compare_highest(a: Faces, b: Faces) -> str:
    ha, hb = highest(a), highest(b)
    return WON if ha > hb else LOST if ha < hb else TIE


def compare_cascade(a: Faces, b: Faces) -> str:
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else 0
        y = b[i] if i < len(b) else 0
        if x != y:
            return WON if x > y else LOST
    return TIE


def steering_contest(dice: Dice, kind: str, a: str, b: str | None, a_count: int, b_count: int,
                     events: list[Event]) -> tuple[bool, Faces, Faces]:
    """Opposed steering roll of ``a`` against ``b`` (None: the maneuver's fixed difficulty).

    Thrown again while fully tied; when both pools are empty the re-throw uses one die each.
    Returns whether ``a`` won and the deciding throws.
    """
    while True:
        fa = throw(dice, a_count, f"{kind}: {a}")
        fb = throw(dice, b_count, f"{kind}: {b or 'difficulty'}")
        result = compare_cascade(fa, fb)
        events.append(Contest(kind, a, b, a_count, b_count, fa, fb, result))
        if result != TIE:
            return result == WON, fa, fb
        a_count, b_count = max(a_count, 1), max(b_count, 1)


def exchange(dice: Dice, kind: str, a: str, b: str, a_count: int, b_count: int,
             events: list[Event]) -> tuple[str, Faces, Faces]:
    """One exchange: both throw, highest die against highest die; a tie decides nothing."""
    fa = throw(dice, a_count, f"{kind}: {a}")
    fb = throw(dice, b_count, f"{kind}: {b}")
    result = compare_highest(fa, fb)
    events.append(Contest(kind, a, b, a_count, b_count, fa, fb, result))
    return result, fa, fb


@lru_cache(maxsize=1 << 12)  # pool sizes: a few dozen pairs in play
def highest_odds(n: int, m: int) -> tuple[float, float]:
    """(P(win), P(tie)) of n dice against m dice, highest die only."""
    def at_most(k: int, count: int) -> float:
        return 1.0 if count == 0 else (k / 6) ** count

    win = tie = 0.0
    for k in range(7):
        p_a = at_most(k, n) - (at_most(k - 1, n) if k > 0 else 0.0)
        if p_a == 0.0:
            continue
        below = at_most(k - 1, m) if k > 0 else 0.0
        equal = at_most(k, m) - below
        win += p_a * below
        tie += p_a * equal
    return win, tie


@lru_cache(maxsize=1 << 12)
def contest_odds(n: int, m: int) -> float:
    """Approximate P(win) of a steering contest of n dice against m (re-thrown until decided)."""
    if n == 0 and m == 0:
        return 0.5
    win, tie = highest_odds(n, m)
    lose = 1.0 - win - tie
    share = n / (n + m)
    return (win + tie * share) / max(1e-9, win + lose + tie)
