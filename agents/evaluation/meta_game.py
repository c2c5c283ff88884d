"""The seat meta-game: who wins a scenario when each side picks its best captain from a set.

A mirror (one captain on both sides) measures the scenario only if that captain is as good on one seat as on
the other. Where it is not (a scripted gunner that cannot work a galley, a trained captain that learned one
side better), the mirror measures the captain's seat skew. The seat meta-game takes it out: from the games of
every ordered pair of captains on the same seeds, ``payoff[i][j]`` is the first side's mean score with captain
``i`` on the first side and ``j`` on the second, and the scenario's *seat balance* is the value of that
zero-sum matrix game (the first side maximises, the second minimises; mixed strategies allowed), as in Nash
averaging (Balduzzi et al., "Re-evaluating evaluation", NeurIPS 2018). Where one captain is best on both
seats, the game's value is its mirror's score; otherwise it is what the best play the set offers gives.

The interval is a seed bootstrap (seeds resampled with replacement, the game solved again), with a fixed
generator so the same games give the same interval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

#: Bootstrap resamples of the seeds for the interval (percentile, 95%).
BOOTSTRAP_RESAMPLES = 200
BOOTSTRAP_SEED = 0
#: Strategy weights under this are left out of the printed mix (solver noise).
MIX_FLOOR = 0.01


@dataclass(frozen=True)
class SeatBalance:
    """The seat meta-game's value (the first side's score under the best captain each side can field), its
    95% bootstrap interval, and each side's equilibrium mix of captains (label -> weight)."""

    score: float
    low: float
    high: float
    first_mix: dict[str, float]
    second_mix: dict[str, float]
    seeds: int

    def text(self) -> str:
        return f"{self.score:.2f} [{self.low:.2f}, {self.high:.2f}]"

    def mix_text(self) -> str:
        """``first mix vs second mix``, each the captains with their weights, heaviest first."""
        def words(mix: dict[str, float]) -> str:
            ranked = sorted(mix.items(), key=lambda item: (-item[1], item[0]))
            return " + ".join(label if len(ranked) == 1 else f"{weight:.2f} {label}" for label, weight in ranked)

        return f"{words(self.first_mix)} vs {words(self.second_mix)}"


def solve(payoff: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """The value of the zero-sum game ``payoff`` (rows maximise) and both players' equilibrium strategies."""
    matrix = np.asarray(payoff, dtype=float)
    if matrix.ndim != 2 or 0 in matrix.shape:
        raise ValueError(f"a payoff matrix needs at least one row and one column, got shape {matrix.shape}")
    value, rows = _maximin(matrix)
    _, columns = _maximin(-matrix.T)   # the column player maximises the negated, transposed game
    return value, rows, columns


def _maximin(matrix: np.ndarray) -> tuple[float, np.ndarray]:
    """max over row strategies x of min over columns of x @ matrix: variables (x, v), minimise -v."""
    n_rows, n_columns = matrix.shape
    cost = np.zeros(n_rows + 1)
    cost[-1] = -1.0
    # v - x @ matrix[:, j] <= 0 for every column j
    upper = np.hstack([-matrix.T, np.ones((n_columns, 1))])
    equal = np.hstack([np.ones((1, n_rows)), np.zeros((1, 1))])
    bounds = [(0.0, 1.0)] * n_rows + [(None, None)]
    found = linprog(cost, A_ub=upper, b_ub=np.zeros(n_columns), A_eq=equal, b_eq=[1.0], bounds=bounds,
                    method="highs")
    if not found.success:   # a bounded, feasible LP: failure is a solver fault, not bad input
        raise RuntimeError(f"the meta-game's linear program failed: {found.message}")
    strategy = np.clip(found.x[:-1], 0.0, None)
    return float(found.x[-1]), strategy / strategy.sum()


def seat_balance(scores: Sequence[Sequence[Sequence[float]]], labels: Sequence[str], *,
                 resamples: int = BOOTSTRAP_RESAMPLES, rng_seed: int = BOOTSTRAP_SEED) -> SeatBalance:
    """The seat meta-game of ``scores[seed][i][j]``: the first side's score on a seed with captain ``labels[i]``
    on the first side and ``labels[j]`` on the second."""
    table = np.asarray(scores, dtype=float)
    if table.ndim != 3 or table.shape[0] == 0 or table.shape[1:] != (len(labels), len(labels)):
        raise ValueError(f"scores must be seeds x {len(labels)} x {len(labels)} for captains {list(labels)}, "
                         f"got shape {table.shape}")
    value, first, second = solve(table.mean(axis=0))
    rng = np.random.default_rng(rng_seed)
    n_seeds = table.shape[0]
    values = [_maximin(table[rng.integers(0, n_seeds, n_seeds)].mean(axis=0))[0] for _ in range(resamples)]   # value only
    low, high = (float(q) for q in np.quantile(values, [0.025, 0.975])) if values else (value, value)
    value = min(1.0, max(0.0, value))   # the solver's rounding can step a hair outside the scores' range
    return SeatBalance(value, max(0.0, min(low, value)), min(1.0, max(high, value)), _mix(labels, first),
                       _mix(labels, second), n_seeds)


def _mix(labels: Sequence[str], strategy: np.ndarray) -> dict[str, float]:
    kept = {label: float(weight) for label, weight in zip(labels, strategy) if weight >= MIX_FLOOR}
    total = sum(kept.values())
    return {label: weight / total for label, weight in kept.items()}
