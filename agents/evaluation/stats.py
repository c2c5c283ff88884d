"""Per-game results seen from a pairing, and the summary statistics of each pairing.

Win rates count a draw as half a win (the chess convention): with many round-limit
draws a plain win fraction would call two equal captains both weak, while the
half-point score is symmetric (A's rate + B's rate = 1) and is what ratings and
"A beats B" claims are read from. The Wilson interval is then taken on that score
with ``n`` = games played; fractional successes are allowed by its formula.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

Z_95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a success rate (95% by default).

    ``successes`` may be fractional (draws as half wins). ``n == 0`` gives the
    vacuous interval (0, 1).
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n and n >= 0; got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    # Clamped to contain p: rounding puts 0/6's lower bound at 2.8e-17, above the rate itself,
    # and an interval that misses its own rate breaks error bars (negative lengths).
    return min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


@dataclass(frozen=True)
class GameResult:
    """One game of a pairing ``a`` vs ``b``, told from ``a``'s point of view.

    ``swap`` False: ``a`` captains the scenario's first side; True: the second.
    """

    pairing: int
    a: str
    b: str
    seed: int
    swap: bool
    a_side: str
    b_side: str
    winner_side: str | None
    truncated: bool
    rounds: int
    decisions: int
    a_damage_dealt: int
    a_damage_taken: int
    b_damage_dealt: int
    b_damage_taken: int

    @property
    def winner(self) -> str | None:
        """The winning captain's label; None for a draw."""
        if self.winner_side is None:
            return None
        return self.a if self.winner_side == self.a_side else self.b

    @property
    def a_score(self) -> float:
        """1 for an ``a`` win, 0.5 for a draw, 0 for a loss."""
        if self.winner_side is None:
            return 0.5
        return 1.0 if self.winner_side == self.a_side else 0.0

    @property
    def sort_key(self) -> tuple[int, int, bool]:
        return self.pairing, self.seed, self.swap

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "winner": self.winner}


@dataclass(frozen=True)
class PairingSummary:
    """Everything the report prints for ``a`` vs ``b``, from ``a``'s point of view."""

    a: str
    b: str
    games: int
    wins: int
    draws: int
    losses: int
    win_rate: float          # (wins + draws / 2) / games
    ci_low: float
    ci_high: float
    mean_rounds: float
    mean_decisions: float
    mean_damage_dealt: float
    mean_damage_taken: float
    truncated: int           # games ended by the round limit

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def summarize_pairing(results: Sequence[GameResult], z: float = Z_95) -> PairingSummary:
    """Summary of one pairing's games (all with the same ``a`` and ``b``)."""
    if not results:
        raise ValueError("cannot summarize a pairing with no games")
    a, b = results[0].a, results[0].b
    if any((r.a, r.b) != (a, b) for r in results):
        raise ValueError(f"results mix pairings; expected every game to be {a} vs {b}")
    n = len(results)
    wins = sum(r.a_score == 1.0 for r in results)
    draws = sum(r.winner_side is None for r in results)
    score = wins + draws / 2
    low, high = wilson_interval(score, n, z)
    return PairingSummary(
        a=a, b=b, games=n, wins=wins, draws=draws, losses=n - wins - draws,
        win_rate=score / n, ci_low=low, ci_high=high,
        mean_rounds=sum(r.rounds for r in results) / n,
        mean_decisions=sum(r.decisions for r in results) / n,
        mean_damage_dealt=sum(r.a_damage_dealt for r in results) / n,
        mean_damage_taken=sum(r.a_damage_taken for r in results) / n,
        truncated=sum(r.truncated for r in results),
    )


def summarize(results: Sequence[GameResult], z: float = Z_95) -> list[PairingSummary]:
    """One summary per pairing, in pairing order."""
    by_pairing: dict[int, list[GameResult]] = {}
    for result in sorted(results, key=lambda r: r.sort_key):
        by_pairing.setdefault(result.pairing, []).append(result)
    return [summarize_pairing(games, z) for _, games in sorted(by_pairing.items())]


@dataclass(frozen=True)
class PairedDifference:
    """The mean of paired differences (captain minus reference, same positions and dice) and its interval."""

    n: int
    mean: float
    ci_low: float
    ci_high: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def paired_difference(differences: Sequence[float], z: float = Z_95) -> PairedDifference:
    """Mean of ``differences`` with a normal-approximation interval (sample standard deviation, n - 1).

    Pairing removes what the position and the dice contribute to both scores, so the interval is much
    narrower than the two win rates' intervals side by side. Fewer than two differences: the vacuous
    interval (-1, 1).
    """
    n = len(differences)
    if n == 0:
        raise ValueError("cannot take the mean of no paired differences")
    mean = sum(differences) / n
    if n < 2:
        return PairedDifference(n, mean, -1.0, 1.0)
    variance = sum((d - mean) ** 2 for d in differences) / (n - 1)
    half = z * math.sqrt(variance / n)
    return PairedDifference(n, mean, max(-1.0, mean - half), min(1.0, mean + half))
