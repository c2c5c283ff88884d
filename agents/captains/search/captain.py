"""The search captain: a root search that improves on its prior (default) or open-loop MCTS, over the
engine's own clones, for any ruleset and scenario.

It decides for whichever agent holds the decision (a fleet scenario's every ship), from the
engine game in its :class:`~naval_agents.captains.base.Decision`; the real game is only cloned. Every random
choice (dice samples, candidate samples, a random rollout captain) comes from the captain's
own seeded generator, so with a budget in simulations the same seed gives the same actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from naval_agents.captains.base import Captain, Decision
from naval_agents.captains.scripted import (
    default_opponent,
    make_scripted_captain,
    scripted_captains,
)
from naval_agents.captains.search.candidates import JointAction
from naval_agents.captains.search.evaluators import Evaluator, RolloutEvaluator, hull_values
from naval_agents.captains.search.names import (
    DEFAULT_SIMULATIONS,
    MAX_SIMULATIONS,
    MAX_TIME_BUDGET_MS,
    SEARCH,
    is_search_name,
)
from naval_agents.captains.search.root import RootSearch, RootSettings, top_joint_actions
from naval_agents.captains.search.tree import Proposer, SearchResult, TreeSearch, TreeSettings
from naval_env.core.game import Game
from naval_env.core.hooks import hooks_of

DEFAULT_ROLLOUT_DEPTH = 16
#: Rollout depth before a value network's leaf: measured in pantheon (expert, 128 simulations, against zoo over 200
#: games): depth 0 scored 0.41, 1 0.52, 4 0.64, 8 0.61 (docs/search.md, "the value leaf"). Right after a move the
#: position is mid-turn, where the network has seen few positions; a few decisions on it judges well and stays cheap.
VALUE_ROLLOUT_DEPTH = 4
#: The search methods: ``root`` never plays worse than its prior (agents/captains/search/root.py); ``tree`` is the
#: open-loop MCTS (agents/captains/search/tree.py), kept for comparison (it can, at small budgets: docs/search.md).
SearchMethod = Literal["root", "tree"]
SEARCH_METHODS: tuple[SearchMethod, ...] = ("root", "tree")


def default_rollout(ruleset_id: str) -> str:
    """The rollout captain's name when none is given: the strongest scripted one (the ruleset's hook, as its
    rules page measures it), else the first, else random."""
    name = hooks_of(ruleset_id).strongest_scripted
    return name if name is not None and name in scripted_captains(ruleset_id) else default_opponent(ruleset_id)


class SearchCaptain(Captain):
    """A search over the engine's clones with rollouts by a prior captain and a hull-fraction leaf value.

    By default (``method="root"``) it plays the prior's move unless a challenger's rollouts beat it
    beyond noise on the same dice (:mod:`naval_agents.captains.search.root`); ``method="tree"`` is the open-loop MCTS.

    Arguments:
        simulations: simulations a decision (None: only the time budget counts).
        time_budget_ms: milliseconds a decision (None: only the simulations count); with both,
            whichever runs out first. Settable between decisions (an app's difficulty or clock).
        seed: seeds dice samples, candidate samples and a random rollout; ``reset(seed)`` re-seeds.
        rollout: the captain that plays both sides in rollouts, a name (``random`` or a scripted
            captain of the ruleset) or a Captain; default :func:`default_rollout`.
        rollout_depth: decisions a rollout plays before the leaf value (0: the leaf value at once).
        leaf: side -> value in [-1, 1] of the game where a rollout stops; default
            :func:`~naval_agents.captains.search.evaluators.hull_values` (the result when over, else hull fractions).
            A trained policy's value function fits here.
        tree: the tree policy's knobs (:class:`~naval_agents.captains.search.tree.TreeSettings`).
        proposer: the prior: the captain whose move the root search keeps unless a challenger proves
            better, and whose choice a wide tree node tries first (default: the rollout captain). A
            policy giving ``probabilities`` also names the challengers (its most likely other moves).
        method: ``root`` (default) or ``tree``.
        root: the root search's knobs (:class:`~naval_agents.captains.search.root.RootSettings`).
        portfolio: scripted captains whose moves are challengers when the prior gives no probabilities
            (default: every scripted captain of the ruleset but ``random``).
        clairvoyant: see the real game's dice (root method only): an upper bound for how far skill can
            go, never a fair opponent. One simulation a candidate; ``simulations`` counts candidates.
    """

    needs_observation = False

    def __init__(self, simulations: int | None = DEFAULT_SIMULATIONS, time_budget_ms: float | None = None, *,
                 seed: int | None = 0, rollout: str | Captain | None = None,
                 rollout_depth: int = DEFAULT_ROLLOUT_DEPTH, leaf: Evaluator = hull_values,
                 tree: TreeSettings | None = None, name: str | None = None,
                 proposer: Captain | None = None, method: SearchMethod = "root",
                 root: RootSettings | None = None, portfolio: Sequence[str] | None = None,
                 clairvoyant: bool = False) -> None:
        if simulations is not None and not 1 <= simulations <= MAX_SIMULATIONS:
            raise ValueError(f"simulations must be 1 to {MAX_SIMULATIONS} (or None for a time budget only), "
                             f"got {simulations}")
        if simulations is None and time_budget_ms is None:
            raise ValueError("give simulations, time_budget_ms or both: a search needs a budget")
        if rollout_depth < 0:
            raise ValueError(f"rollout_depth must be 0 or more decisions, got {rollout_depth}")
        if isinstance(rollout, str) and is_search_name(rollout):
            raise ValueError(f"rollout {rollout!r}: a rollout captain cannot search; use 'random' or a scripted "
                             "captain's name")
        if method not in SEARCH_METHODS:
            raise ValueError(f"search method {method!r} is not one of {', '.join(SEARCH_METHODS)}")
        if clairvoyant and method != "root":
            raise ValueError("a clairvoyant search needs method='root'")
        self.simulations = simulations
        self._time_budget_ms: float | None = None
        self.time_budget_ms = time_budget_ms
        self.rollout = rollout
        self.rollout_depth = rollout_depth
        self.leaf = leaf
        self.tree = tree or TreeSettings()
        self.proposer = proposer
        self.method: SearchMethod = method
        self.root = root or RootSettings()
        self.portfolio = None if portfolio is None else tuple(portfolio)
        self.clairvoyant = clairvoyant
        self.name = name or (f"{SEARCH}:{simulations}" if time_budget_ms is None
                             else f"{SEARCH}:{time_budget_ms:g}ms")
        self._rollout_captains: dict[str, Captain] = {}
        self._portfolio_captains: dict[str, list[Captain]] = {}
        self.last_result: SearchResult | None = None
        self.reset(seed)

    @property
    def time_budget_ms(self) -> float | None:
        return self._time_budget_ms

    @time_budget_ms.setter
    def time_budget_ms(self, value: float | None) -> None:
        if value is not None and not 0 < value <= MAX_TIME_BUDGET_MS:
            raise ValueError(f"time_budget_ms must be above 0 and at most {MAX_TIME_BUDGET_MS}, got {value}")
        if value is None and self.simulations is None:
            raise ValueError("time_budget_ms cannot be None while simulations is None: a search needs a budget")
        self._time_budget_ms = value

    def reset(self, seed: int | None = None) -> None:
        if seed is None and hasattr(self, "_rng"):
            return
        self._rng = np.random.default_rng(seed)
        owned = [c for c in (self.rollout, self.proposer) if isinstance(c, Captain)]
        portfolio = [c for captains in self._portfolio_captains.values() for c in captains]
        for captain in [*owned, *self._rollout_captains.values(), *portfolio]:
            captain.reset(int(self._rng.integers(2**62)))

    def act(self, decision: Decision) -> np.ndarray:
        game = decision.game
        if game is None:
            raise TypeError(f"{self.name} captain needs the engine game in its Decision (Match.decision gives it)")
        if game.current_agent != decision.agent:
            raise ValueError(f"{self.name}: asked to decide for {decision.agent!r}, but the game's decision is "
                             f"{game.current_agent!r}'s")
        rollout = self._rollout_captain(game)
        if self.method == "tree":
            search = TreeSearch(self.tree, self._evaluator(rollout), self._rng,
                                self._proposer(self.proposer or rollout))
            self.last_result = search.run(game, decision.agent, self.simulations, self.time_budget_ms)
        else:
            self.last_result = self._root_search(game, decision.agent, rollout)
        return self.last_result.action

    def _root_search(self, game: Game, agent: str, rollout: Captain) -> SearchResult:
        prior = self.proposer or rollout
        mask = game.legal_mask(agent)
        observation = game.observe(agent) if prior.needs_observation else np.zeros(0, dtype=np.float32)
        here = Decision(agent, observation, mask, game)
        incumbent = _joint(prior.act(here))
        wanted = self.root.max_challengers + 1
        if type(prior).probabilities is not Captain.probabilities:   # a policy: its own next-best moves
            proposals = top_joint_actions(prior.probabilities(here) or [], wanted)
        else:
            proposals = [_joint(c.act(here)) for c in self._portfolio(game) if c is not prior]
        search = RootSearch(self.root, self._evaluator(rollout), self._rng, rollout.reset, self.clairvoyant)
        return search.run(game, agent, incumbent, proposals, self.simulations, self.time_budget_ms)

    # --------------------------------------------------------------- parts
    def _rollout_captain(self, game: Game) -> Captain:
        if isinstance(self.rollout, Captain):
            return self.rollout
        ruleset_id = game.ruleset_id
        captain = self._rollout_captains.get(ruleset_id)
        if captain is None:
            spec = self.rollout or default_rollout(ruleset_id)
            captain = make_scripted_captain(spec, ruleset_id, game.action_spec, seed=int(self._rng.integers(2**62)))
            self._rollout_captains[ruleset_id] = captain
        return captain

    def _portfolio(self, game: Game) -> list[Captain]:
        """The scripted captains whose moves are a scripted prior's challengers (made once a ruleset)."""
        ruleset_id = game.ruleset_id
        captains = self._portfolio_captains.get(ruleset_id)
        if captains is None:
            names = self.portfolio if self.portfolio is not None else [
                name for name in scripted_captains(ruleset_id) if name != "random"]
            captains = [make_scripted_captain(name, ruleset_id, game.action_spec,
                                              seed=int(self._rng.integers(2**62))) for name in names]
            self._portfolio_captains[ruleset_id] = captains
        return captains

    def _evaluator(self, rollout: Captain) -> Evaluator:
        if self.rollout_depth == 0:
            return self.leaf
        return RolloutEvaluator(rollout, self.rollout_depth, self.leaf)

    @staticmethod
    def _proposer(captain: Captain) -> Proposer:
        def propose(game: Game, agent: str, mask: np.ndarray) -> JointAction:
            observation = game.observe(agent) if captain.needs_observation else np.zeros(0, dtype=np.float32)
            return _joint(captain.act(Decision(agent, observation, mask, game)))

        return propose


def _joint(action: np.ndarray) -> JointAction:
    return tuple(int(v) for v in np.asarray(action).reshape(-1))
