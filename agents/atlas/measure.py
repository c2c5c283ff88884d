"""The atlas's numbers for one scenario: win-rate matrix, ratings, side advantage, mirror matches, game lengths.

Every rate counts a draw as half a win and carries its 95% Wilson interval (``agents/evaluation/stats.py``),
so "significant" means one thing everywhere: the interval leaves 0.5 out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from naval_agents.atlas.play import ScenarioGames
from naval_agents.evaluation.plots import WinRateMatrix, win_rate_matrix
from naval_agents.evaluation.ratings import Rating, fit_ratings
from naval_agents.evaluation.seat_paired import SeatPaired, score_index, seat_paired
from naval_agents.evaluation.stats import GameResult, wilson_interval
from naval_agents.evaluation.tournament import rating_order


@dataclass(frozen=True)
class Rate:
    """A share of ``games`` (draws half) with its 95% Wilson interval."""

    games: int
    points: float
    rate: float
    low: float
    high: float

    @classmethod
    def of(cls, points: float, games: int) -> Rate:
        low, high = wilson_interval(points, games)
        return cls(games, points, points / games if games else 0.5, low, high)

    @property
    def above_half(self) -> bool:
        return self.low > 0.5

    @property
    def below_half(self) -> bool:
        return self.high < 0.5

    @property
    def significant(self) -> bool:
        """The interval leaves 0.5 out."""
        return self.above_half or self.below_half

    def text(self) -> str:
        """``0.62 [0.55, 0.68]``; three decimals where two would print a bound as 0.50 and hide which side it is."""
        digits = 3 if any(round(v, 2) == 0.5 and v != 0.5 for v in (self.low, self.high)) else 2
        return f"{self.rate:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}]"


@dataclass(frozen=True)
class Lengths:
    """Game lengths in rounds: the summary a box plot draws, and how many games hit the round limit."""

    games: int
    mean: float
    median: float
    q1: float
    q3: float
    shortest: int
    longest: int
    truncated: int


@dataclass(frozen=True)
class ScenarioNumbers:
    games: ScenarioGames
    ratings: tuple[Rating, ...]     # best ordinal first
    matrix: WinRateMatrix           # captains in the ratings' order
    first_side: Rate                # the first side's share of every round-robin game
    mirror_first_side: Rate | None  # the first side's share of the mirror matches; None: the fleets differ
    lengths: Lengths
    #: (row, column) -> the row captain's seat-paired difference against the reference vs the column captain.
    paired: dict[tuple[str, str], SeatPaired] = field(default_factory=dict)

    @property
    def reference(self) -> str | None:
        return self.games.reference

    @property
    def ruleset(self) -> str:
        return self.games.plan.ruleset

    @property
    def scenario(self) -> str:
        return self.games.plan.scenario

    @property
    def sides(self) -> tuple[str, str]:
        return self.games.plan.sides

    @property
    def captains(self) -> tuple[str, ...]:
        return self.matrix.captains

    def cell(self, row: str, column: str) -> Rate:
        """The row captain's share against the column captain."""
        c = self.matrix.cells[(row, column)]
        return Rate(c.games, c.points, c.rate, c.low, c.high)


def side_rate(results: Sequence[GameResult], side: str) -> Rate:
    """``side``'s share of ``results``: each pairing plays every seed from both sides, so the captains' strengths
    cancel and what remains is the side's own advantage (seat, fleet, who moves first)."""
    points = sum(1.0 if r.winner_side == side else 0.5 if r.winner_side is None else 0.0 for r in results)
    return Rate.of(points, len(results))


def lengths(results: Sequence[GameResult]) -> Lengths:
    rounds = np.array([r.rounds for r in results], dtype=float)
    q1, median, q3 = np.percentile(rounds, [25, 50, 75])
    return Lengths(len(results), float(rounds.mean()), float(median), float(q1), float(q3), int(rounds.min()),
                   int(rounds.max()), sum(r.truncated for r in results))


def scenario_numbers(games: ScenarioGames) -> ScenarioNumbers:
    results = games.results
    if not results:
        raise ValueError(f"{games.plan.ruleset} / {games.plan.scenario}: no games to summarise")
    outcomes = [(r.a, r.b, r.winner) for r in rating_order(results)]
    ratings = tuple(fit_ratings(outcomes, captains=games.plan.names))
    first = games.plan.sides[0]
    matrix = win_rate_matrix(results, [r.name for r in ratings])
    return ScenarioNumbers(
        games=games, ratings=ratings, matrix=matrix,
        first_side=side_rate(results, first),
        mirror_first_side=side_rate(games.mirror, first) if games.mirror else None,
        lengths=lengths(results), paired=paired_cells(games, list(matrix.cells)))


def paired_cells(games: ScenarioGames, cells: Sequence[tuple[str, str]]) -> dict[tuple[str, str], SeatPaired]:
    """Each cell's seat-paired difference against the reference, from the round robin and the reference's
    games against itself (a mirror scenario's mirror matches, else its own); none where it does not play."""
    reference = games.reference
    if reference is None:
        return {}
    index = score_index([*games.results, *games.mirror, *games.reference_games])
    return {(row, column): seat_paired(row, column, reference, games.results, index) for row, column in cells}
