"""The sequential test that stops a pairing once it is decided: a GSPRT on side-swapped game pairs.

What is tested, for a pairing A vs B: H0 "A's Elo advantage over B is ``elo0``" against H1 "it is
``elo1``", Elo being logistic (expected score ``1 / (1 + 10 ** (-elo / 400))``, a draw scoring half).
The data are game *pairs*: one seed played with A on each side. A pair gives A 0, 1/2, 1, 3/2 or 2
points, so its outcome is one of five (the pentanomial model chess engine testing uses for paired
openings); the two games of a pair share board and dice, which the pentanomial accounts for and a
per-game (trinomial or Bernoulli) model would not.

The statistic is fishtest's generalized SPRT (M. Van den Bergh, "LLR_logistic"): under each hypothesis
the pentanomial's probabilities are the maximum-likelihood ones whose mean pair score is that
hypothesis's expected score; the log-likelihood ratio is

    LLR = N * sum_i p_i * log(p1_i / p0_i)

over the observed frequencies ``p_i`` of the five outcomes (``N`` pairs). Zero counts are replaced by
0.001, as fishtest does, so the MLE exists when only one outcome has been seen. Wald's bounds: accept
H1 when ``LLR >= log((1 - beta) / alpha)``, H0 when ``LLR <= log(beta / (1 - alpha))``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

#: A's points in a pair divided by 2: the five outcomes' scores (LL, LD, LW+DD, DW, WW).
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
REGULARIZE = 1e-3
MODEL = ("GSPRT on side-swapped game pairs (pentanomial: A scores 0, 1/2, 1, 3/2 or 2 points a pair, a draw "
         "half a point), logistic Elo of A over B, LLR of the hypotheses' maximum-likelihood pentanomials "
         "(fishtest's LLR_logistic), zero counts regularized to 0.001")


class SprtError(ValueError):
    """Bad SPRT parameters; the message names the field and what is allowed."""


def expected_score(elo: float) -> float:
    """Logistic Elo: the expected score (a draw counting half) of a captain ``elo`` points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def constrained_mle(freqs: Sequence[float], scores: Sequence[float], s: float) -> list[float]:
    """The distribution on ``scores`` closest in likelihood to ``freqs`` whose mean is ``s``.

    The maximiser is ``freqs_i / (1 + theta * (scores_i - s))`` with ``theta`` the root of
    ``sum_i freqs_i * (scores_i - s) / (1 + theta * (scores_i - s)) = 0`` (a Lagrange multiplier).
    ``freqs`` sum to 1 and are positive at the lowest and highest score, which must bracket ``s``.
    """
    from scipy.optimize import brentq  # scipy loads in about a second; only the SPRT needs it

    low, high = min(a for a, p in zip(scores, freqs) if p > 0), max(a for a, p in zip(scores, freqs) if p > 0)
    if not low < s < high:
        raise ValueError(f"the mean {s} is not strictly between the lowest and highest observed score")

    def secular(theta: float) -> float:
        return sum(p * (a - s) / (1 + theta * (a - s)) for a, p in zip(scores, freqs))

    # 1 + theta * (a - s) > 0 for every a in [low, high] holds on this open interval.
    eps = 1e-9
    theta = brentq(secular, -1 / (high - s) + eps, 1 / (s - low) - eps, xtol=1e-15, rtol=1e-15, maxiter=500)
    return [p / (1 + theta * (a - s)) for a, p in zip(scores, freqs)]


def llr(counts: Sequence[float], elo0: float, elo1: float, *, regularize: bool = True) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``) for pentanomial ``counts``."""
    if len(counts) != len(PAIR_SCORES):
        raise ValueError(f"need {len(PAIR_SCORES)} pentanomial counts, got {len(counts)}")
    values = [max(c, REGULARIZE) for c in counts] if regularize else [float(c) for c in counts]
    n = sum(values)
    freqs = [c / n for c in values]
    p0 = constrained_mle(freqs, PAIR_SCORES, expected_score(elo0))
    p1 = constrained_mle(freqs, PAIR_SCORES, expected_score(elo1))
    return n * sum(f * math.log(b / a) for f, a, b in zip(freqs, p0, p1) if f > 0)


@dataclass(frozen=True)
class SprtParams:
    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise SprtError(f"SPRT needs elo1 > elo0, got elo0={self.elo0:g}, elo1={self.elo1:g}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise SprtError(f"SPRT {name} must be between 0 and 0.5 (exclusive), got {value:g}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    def text(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"

    def hypotheses(self) -> str:
        return (f"H0: Elo(A - B) = {self.elo0:g} against H1: Elo(A - B) = {self.elo1:g}, alpha {self.alpha:g}, "
                f"beta {self.beta:g}; LLR bounds [{self.lower:.3f}, {self.upper:.3f}]")


def parse_sprt(text: str) -> SprtParams:
    """``elo0=0,elo1=5,alpha=0.05,beta=0.05``; a key left out keeps its default."""
    defaults = asdict(SprtParams())
    values: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or key not in defaults:
            raise SprtError(f"bad SPRT setting {item!r}; allowed: KEY=VALUE with KEY one of {list(defaults)}, "
                            "e.g. elo0=0,elo1=5,alpha=0.05,beta=0.05")
        try:
            values[key] = float(value)
        except ValueError:
            raise SprtError(f"bad SPRT setting {item!r}: {value!r} is not a number") from None
    return SprtParams(**{**defaults, **values})


@dataclass
class SprtState:
    """The test fed pair by pair, in seed order; frozen at the first pair whose LLR crosses a bound."""

    params: SprtParams
    counts: list[int] = field(default_factory=lambda: [0] * len(PAIR_SCORES))
    llr: float = 0.0
    decision: str | None = None   # "H0" or "H1" once decided

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def add_pair(self, points: float) -> str | None:
        """A's points (0..2) in the next pair; returns the decision (None while undecided)."""
        if self.decision is not None:
            return self.decision
        index = round(points * 2)
        if not 0 <= index < len(PAIR_SCORES) or abs(points * 2 - index) > 1e-9:
            raise ValueError(f"a pair gives 0, 0.5, 1, 1.5 or 2 points, got {points}")
        self.counts[index] += 1
        self.llr = llr(self.counts, self.params.elo0, self.params.elo1)
        if self.llr >= self.params.upper:
            self.decision = "H1"
        elif self.llr <= self.params.lower:
            self.decision = "H0"
        return self.decision

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self.params), "model": MODEL, "pairs": self.pairs, "games": 2 * self.pairs,
                "pentanomial": list(self.counts), "llr": self.llr, "lower": self.params.lower,
                "upper": self.params.upper, "decision": self.decision}
