"""Root search that never plays worse than its prior: screen challengers, then confirm on fresh dice.

The prior (a scripted captain or a trained policy) proposes its move, the *incumbent*. The search
spends its budget on one question: is there a move whose rollouts do measurably better than the
incumbent's? It answers it in two stages, both under common random numbers (the k-th simulation of
every move rolls the same dice and re-seeds the rollout captain the same way):

1. **Screening** (sequential halving, as Gumbel MuZero's root, Danihelka et al. 2022): challengers
   are the prior's next most likely moves (a policy: its top-k joint actions, deterministically, no
   Gumbel noise at play time), else other captains' moves and component-novel legal draws; rounds
   of equal budget halve them, ranked by mean value on shared dice, until one finalist is left.
2. **Confirmation**: the finalist and the incumbent play the same *fresh* dice samples (none the
   screening saw, so the winner's curse of picking the best of many noisy means does not carry
   over) and the finalist replaces the incumbent only if its mean paired advantage clears a
   one-sided lower confidence bound, Student's t with n - 1 degrees of freedom (a handful of pairs
   is far from normal: with 4 pairs the 95% quantile is 2.35, not 1.645), ``mean - t * sd / sqrt(n) >
   margin``, with at least ``min_paired`` pairs.

So a budget too small to test anything plays the prior's own move, and a larger one deviates only
where its rollouts show an improvement beyond noise: against the prior itself the search scores
0.50 at the smallest budgets and rises with the budget (docs/search.md, the headroom table). The
guarantee is about the rollouts' estimate: with the prior playing the rollouts to the end it is the
game's value against that prior; a depth-limited rollout's leaf (hull fractions, or a value
network) is a proxy, which is why the rollout depth is a measured choice.

A **clairvoyant** search (an upper bound for how far skill can go, not a fair captain) keeps the
real game's dice instead of sampling: each candidate's one simulation sees the dice the real game
will roll, and the best is played without a test.
"""

from __future__ import annotations

import functools
import heapq
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from naval_agents.captains.search.candidates import (
    JointAction,
    allowed_values,
    joint_count,
    novel_sample,
)
from naval_agents.captains.search.chance import reseed
from naval_agents.captains.search.evaluators import Evaluator
from naval_agents.captains.search.tree import ChildStats, SearchResult
from naval_env.core.game import Game

#: A rollout captain re-seeder: called with each simulation's seed so rollouts share their luck too.
Reseeder = Callable[[int], None]


#: Simulations of the incumbent timed to size a search given milliseconds (after one that warms up).
TIMED_SIMULATIONS = 3


@dataclass(frozen=True)
class RootSettings:
    """The root search's knobs (see the module docstring)."""

    max_challengers: int = 16
    """most moves screened against the incumbent"""
    min_paired: int = 4
    """fewest confirmation pairs before a challenger may replace the incumbent"""
    confidence: float = 0.95
    """one-sided confidence of the confirmation test (Student's t on the paired advantages)"""
    margin: float = 0.0
    """mean paired advantage (in value units, [-2, 2]) a challenger must clear beyond the noise"""
    screening_per_challenger: int = 4
    """screening simulations each challenger costs: the budget decides how many are screened"""

    def __post_init__(self) -> None:
        if self.max_challengers < 1 or self.min_paired < 2 or not 0.5 <= self.confidence < 1 or self.margin < 0 \
                or self.screening_per_challenger < 1:
            raise ValueError(f"bad root settings {self}: need max_challengers >= 1, min_paired >= 2, confidence in [0.5, 1), "
                             "margin >= 0 and screening_per_challenger >= 1")

    def plan(self, simulations: int) -> tuple[int, int]:
        """(challengers screened, confirmation pairs) for a budget; (0, 0): too small to test, play the prior."""
        if simulations < 2 * self.min_paired + 1:
            return 0, 0
        pairs = max(self.min_paired, simulations // 4)
        screening = simulations - 2 * pairs
        challengers = max(1, min(self.max_challengers, screening // self.screening_per_challenger))
        return challengers, pairs


def top_joint_actions(probabilities: Sequence[np.ndarray], count: int) -> list[JointAction]:
    """The ``count`` most likely joint actions of independent components, most likely first (exact:
    a beam of width ``count`` keeps every prefix of the top ``count``, as scores only add)."""
    beam: list[tuple[float, JointAction]] = [(0.0, ())]
    for component in probabilities:
        allowed = np.flatnonzero(component > 0)
        ranked = allowed[np.argsort(-component[allowed], kind="stable")][:count]
        logs = np.log(component[ranked])
        extended = [(score + float(log), prefix + (int(value),))
                    for score, prefix in beam for value, log in zip(ranked, logs)]
        beam = heapq.nlargest(count, extended, key=lambda item: item[0])
    return [action for _, action in beam]


def distinct_challengers(incumbent: JointAction, proposals: Sequence[JointAction], allowed: list[list[int]],
                         count: int, rng: np.random.Generator) -> list[JointAction]:
    """``count`` legal moves other than the incumbent: ``proposals`` first (in order), then draws taking
    component values no earlier move used (:func:`~naval_agents.captains.search.candidates.novel_sample`)."""
    chosen: list[JointAction] = []
    seen = {incumbent}
    for action in proposals:
        if len(chosen) == count:
            return chosen
        if action not in seen:
            seen.add(action)
            chosen.append(action)
    count = min(count, joint_count(allowed) - 1)
    used = [{action[i] for action in seen} for i in range(len(allowed))]
    tries = 0
    while len(chosen) < count and tries < 8 * count:
        tries += 1
        action = novel_sample(allowed, used, rng)
        if action not in seen:
            seen.add(action)
            chosen.append(action)
            for i, value in enumerate(action):
                used[i].add(value)
    return chosen


@dataclass
class _Candidate:
    action: JointAction
    values: list[float]

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values) if self.values else -math.inf


class RootSearch:
    """One decision's root search on the real game, which it only ever clones."""

    def __init__(self, settings: RootSettings, evaluator: Evaluator, rng: np.random.Generator,
                 reseed_rollouts: Reseeder | None = None, clairvoyant: bool = False) -> None:
        self.settings = settings
        self.evaluator = evaluator
        self.rng = rng
        _t_inverse()
        self.reseed_rollouts = reseed_rollouts
        self.clairvoyant = clairvoyant

    def run(self, game: Game, agent: str, incumbent: JointAction, proposals: Sequence[JointAction],
            simulations: int | None, time_budget_ms: float | None) -> SearchResult:
        """The move to play: ``incumbent`` unless a challenger (``proposals`` first) proves better."""
        start = time.perf_counter()
        allowed = allowed_values(game.action_spec, game.legal_mask(agent))
        if joint_count(allowed) == 1:
            only = tuple(values[0] for values in allowed)
            return self._result(only, 0, start, [])
        side = game.side_of(agent)
        deadline = None if time_budget_ms is None else start + time_budget_ms / 1000.0
        if self.clairvoyant:
            return self._clairvoyant(game, agent, side, incumbent, proposals, allowed, simulations, deadline, start)
        budget = simulations
        spent = 0
        if budget is None or deadline is not None:
            # Time the incumbent's simulations to size the plan from the budget in milliseconds: the first
            # pays for warming caches and making rollout captains, so the next TIMED_SIMULATIONS are timed and
            # the fastest counts (a pause of the process, on a loaded machine, only ever slows one: one timed
            # simulation caught in a 0.5 s pause once made a 3 s search play its prior after 0.5 s).
            self._simulate(game, agent, side, incumbent, self._seed())
            spent = 1
            per_simulation = math.inf
            while spent <= TIMED_SIMULATIONS and not _past(deadline):
                timed = time.perf_counter()
                self._simulate(game, agent, side, incumbent, self._seed())
                spent += 1
                per_simulation = min(per_simulation, max(time.perf_counter() - timed, 1e-6))
            assert deadline is not None
            affordable = spent + int((deadline - time.perf_counter()) / per_simulation)
            budget = affordable if budget is None else min(budget, affordable)
        challengers_wanted, pairs = self.settings.plan(budget)
        if challengers_wanted == 0:
            return self._result(incumbent, spent, start, [])
        challengers = [_Candidate(a, []) for a in
                       distinct_challengers(incumbent, proposals, allowed, challengers_wanted, self.rng)]
        if not challengers:
            return self._result(incumbent, spent, start, [])
        screening = budget - 2 * pairs - spent
        spent += self._screen(game, agent, side, challengers, screening, deadline)
        finalist = max(challengers, key=lambda c: c.mean)
        pairs = max(pairs, (budget - spent) // 2)    # what screening left (one challenger needs none) confirms
        if deadline is not None and spent:
            # Re-size from the pace of every simulation so far (the plan above trusted the fastest timed one);
            # it reads only the clock, never the values, so the test below stays a fixed-size test.
            pace = (time.perf_counter() - start) / spent
            affordable = int((deadline - time.perf_counter()) / pace) // 2
            pairs = max(pairs, affordable if simulations is None else min(affordable, (simulations - spent) // 2))
        held = _Candidate(incumbent, [])
        confirmed = _Candidate(finalist.action, [])
        spent += self._confirm(game, agent, side, held, confirmed, pairs, deadline)
        stats = [_stats(held), *(_stats(c) for c in challengers)]
        if self._proven([f - i for f, i in zip(confirmed.values, held.values)]):
            return self._result(finalist.action, spent, start, stats, overrode_prior=True)
        return self._result(incumbent, spent, start, stats)

    # ------------------------------------------------------------------ stages
    def _screen(self, game: Game, agent: str, side: str, challengers: list[_Candidate], budget: int,
                deadline: float | None) -> int:
        """Sequential halving over ``challengers`` (values appended in place); returns simulations spent."""
        alive = list(challengers)
        rounds = max(1, math.ceil(math.log2(len(alive)))) if len(alive) > 1 else 0
        spent = 0
        for round_index in range(rounds):
            per = max(1, (budget - spent) // ((rounds - round_index) * len(alive)))
            for _ in range(per):
                if _past(deadline):
                    return spent
                seed = self._seed()
                for candidate in alive:
                    candidate.values.append(self._simulate(game, agent, side, candidate.action, seed))
                    spent += 1
            alive.sort(key=lambda c: c.mean, reverse=True)
            alive = alive[: max(1, math.ceil(len(alive) / 2))]
        return spent

    def _confirm(self, game: Game, agent: str, side: str, incumbent: _Candidate, finalist: _Candidate,
                 pairs: int, deadline: float | None) -> int:
        """Both moves on the same fresh dice, ``pairs`` times (values appended in place); the simulations spent."""
        for done in range(pairs):
            if _past(deadline):
                return 2 * done
            seed = self._seed()
            finalist.values.append(self._simulate(game, agent, side, finalist.action, seed))
            incumbent.values.append(self._simulate(game, agent, side, incumbent.action, seed))
        return 2 * pairs

    def _proven(self, advantages: list[float]) -> bool:
        """Whether the advantages clear the one-sided lower confidence bound (with at least ``min_paired``)."""
        n = len(advantages)
        if n < self.settings.min_paired:
            return False
        mean = sum(advantages) / n
        variance = sum((a - mean) ** 2 for a in advantages) / (n - 1)
        return mean - t_quantile(self.settings.confidence, n - 1) * math.sqrt(variance / n) > self.settings.margin

    def _clairvoyant(self, game: Game, agent: str, side: str, incumbent: JointAction,
                     proposals: Sequence[JointAction], allowed: list[list[int]], simulations: int | None,
                     deadline: float | None, start: float) -> SearchResult:
        """One simulation a candidate on the real dice; the best (the incumbent on ties) is played."""
        wanted = max(0, (simulations or 1 + self.settings.max_challengers) - 1)
        best = _Candidate(incumbent, [self._simulate(game, agent, side, incumbent, 0)])
        stats = [_stats(best)]
        spent = 1
        for action in distinct_challengers(incumbent, proposals, allowed, wanted, self.rng):
            if _past(deadline):
                break
            candidate = _Candidate(action, [self._simulate(game, agent, side, action, 0)])
            spent += 1
            stats.append(_stats(candidate))
            if candidate.mean > best.mean:
                best = candidate
        return self._result(best.action, spent, start, stats, overrode_prior=best.action != incumbent)

    # ------------------------------------------------------------------ parts
    def _seed(self) -> int:
        return int(self.rng.integers(2**62))

    def _simulate(self, game: Game, agent: str, side: str, action: JointAction, seed: int) -> float:
        """``side``'s value after ``agent`` plays ``action`` and the rollout runs, on dice ``seed`` (the real
        dice when clairvoyant)."""
        sim = game.clone()
        if not self.clairvoyant:
            reseed(sim.dice, seed)
        if self.reseed_rollouts is not None:
            self.reseed_rollouts(seed)
        sim.apply(agent, np.array(action, dtype=np.int64))
        return float(self.evaluator(sim)[side])

    @staticmethod
    def _result(action: JointAction, simulations: int, start: float, stats: list[ChildStats],
                overrode_prior: bool = False) -> SearchResult:
        chosen = [s for s in stats if s.action == action]
        others = sorted((s for s in stats if s.action != action), key=lambda s: (s.visits, s.mean), reverse=True)
        return SearchResult(np.array(action, dtype=np.int64), simulations, time.perf_counter() - start,
                            tuple(chosen + others), "root", overrode_prior)


@functools.cache
def _t_inverse() -> Callable[[float, float], float]:
    """scipy's inverse of Student's t distribution function, imported once. ``scipy.special.stdtrit`` gives
    ``scipy.stats.t.ppf``'s values for a fifth of its import (0.2 s against 0.8 s on this machine); a
    :class:`RootSearch` imports it when made, so no decision's clock pays for it."""
    from scipy.special import stdtrit

    return stdtrit  # type: ignore[no-any-return]


@functools.cache
def t_quantile(confidence: float, degrees_of_freedom: int) -> float:
    """Student's t quantile, cached: a decision asks for one or two."""
    return float(_t_inverse()(degrees_of_freedom, confidence))


def _stats(candidate: _Candidate) -> ChildStats:
    return ChildStats(candidate.action, len(candidate.values), candidate.mean if candidate.values else 0.0)


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline
