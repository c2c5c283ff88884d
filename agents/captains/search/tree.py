"""Open-loop Monte Carlo tree search over the engine's own game copies.

The design follows OpenSpiel's ``MCTSBot`` (``open_spiel/python/algorithms/mcts.py``): a node
per action with its visit count and summed value from the point of view of the side that chose
it, unvisited children tried first, PUCT selection (its ``puct_value``), an evaluator at each
new leaf, the most visited root child played. Where it departs, and why:

- **Open loop.** Dice are rolled inside ``Game.apply``, not at chance nodes the engine exposes,
  so the tree is over action sequences: each simulation plays on a copy whose dice are a fresh
  sample (:mod:`naval_agents.captains.search.chance`) and a node's statistics average over the samples. The
  same actions can then reach states with another agent to move or other legal actions, so
  children are keyed by (agent, action), only those legal in this simulation's state compete,
  and the parent count in the score is each child's *availability* (how often it was legal when
  its parent was visited), as in information-set MCTS (Cowling, Powley and Whitehouse, 2012).
- **Common random numbers at the root.** Choosing at the root rolls nothing, so the dice are
  sampled after it: the k-th simulation through every root move rolls the same sample, and the
  moves are compared on the same luck (far less noise per simulation where the dice decide much).
- **Joint actions, widened progressively.** A decision is a MultiDiscrete vector whose legal joint
  actions are the product of the components' allowed values (thousands to millions in some
  phases). A node visited n times has up to ``1 + widening * sqrt(n)`` children, never more than
  ``max_children``: the first is the proposer's action (the rollout captain's choice), with prior
  ``policy_prior``; the rest are legal draws sharing the remaining prior, drawn component by
  component from the values no sibling has tried yet (so the few values of a component such as
  the attack are all tried within a few children, where uniform joint draws keep missing one).
  A small budget so refines the rollout captain's play instead of scattering over moves nobody
  has tried.

Values are per side (zero-sum for two sides); each node is scored for the side of the agent
that chose it, so opponents pick adversarially and a fleet's ships cooperate.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from naval_agents.captains.search.candidates import (
    JointAction,
    allowed_values,
    allows,
    enumerate_joint,
    joint_count,
    novel_sample,
)
from naval_agents.captains.search.chance import determinized, reseed
from naval_agents.captains.search.evaluators import Evaluator
from naval_env.core.game import Game

#: (simulation game, agent, mask) -> a legal joint action to try first at a wide node.
Proposer = Callable[[Game, str, np.ndarray], JointAction]
#: Draws tried before a node gives up on adding a new child this visit (then it enumerates, when small).
SAMPLE_TRIES = 8


@dataclass(frozen=True)
class TreeSettings:
    """The tree policy's knobs (see the module docstring)."""

    uct_c: float = 1.0
    """exploration constant of the PUCT score, for values in [-1, 1]"""
    max_children: int = 32
    """most children of a node; a decision with at most this many legal joint actions is enumerated"""
    widening: float = 1.0
    """progressive widening: a node visited n times has up to 1 + widening * sqrt(n) children"""
    policy_prior: float = 0.5
    """prior of the proposer's action; the other children share the rest, 1/max_children-th each at most"""

    def __post_init__(self) -> None:
        if self.uct_c < 0 or self.max_children < 1 or self.widening < 0 or not 0 <= self.policy_prior <= 1:
            raise ValueError(f"bad tree settings {self}: need uct_c >= 0, max_children >= 1, widening >= 0 "
                             "and policy_prior in [0, 1]")

    @property
    def other_prior(self) -> float:
        return (1 - self.policy_prior) / max(self.max_children - 1, 1)


class Node:
    """One action in the tree: who chose it, how often it was tried and available, summed value."""

    __slots__ = ("action", "available", "by_agent", "children", "prior", "side", "value_sum", "visits")

    def __init__(self, side: str | None, action: JointAction | None, prior: float = 1.0) -> None:
        self.side = side          # side of the agent that chose ``action`` (None at the root)
        self.action = action
        self.prior = prior
        self.visits = 0
        self.available = 0
        self.value_sum = 0.0      # summed values for ``side``
        self.children: dict[tuple[str, JointAction], Node] = {}
        self.by_agent: dict[str, list[Node]] = {}

    @property
    def mean(self) -> float:
        return self.value_sum / self.visits if self.visits else 0.0

    def child(self, agent: str, side: str, action: JointAction, prior: float) -> Node:
        """The child for ``agent`` playing ``action``, made on first sight."""
        key = (agent, action)
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = Node(side, action, prior)
            self.by_agent.setdefault(agent, []).append(node)
        return node

    def puct(self, uct_c: float) -> float:
        """AlphaZero's PUCT score (OpenSpiel's ``puct_value``) with availability as the parent count."""
        return self.mean + uct_c * self.prior * math.sqrt(self.available) / (1 + self.visits)


@dataclass(frozen=True)
class ChildStats:
    action: JointAction
    visits: int
    mean: float


@dataclass(frozen=True)
class SearchResult:
    """The chosen action and what the search saw (root children by visits, most first)."""

    action: np.ndarray
    simulations: int
    seconds: float
    children: tuple[ChildStats, ...] = field(default=())
    method: str = "tree"
    """which search made it: ``tree`` or ``root``"""
    overrode_prior: bool = False
    """the root search played a challenger, not its prior's move (always False for the tree search)"""


class TreeSearch:
    """One decision's search: :meth:`run` on the real game, which it only ever clones."""

    def __init__(self, settings: TreeSettings, evaluator: Evaluator, rng: np.random.Generator,
                 proposer: Proposer | None = None) -> None:
        self.settings = settings
        self.evaluator = evaluator
        self.rng = rng
        self.proposer = proposer
        self._dice_seeds: list[int] = []

    def run(self, game: Game, agent: str, simulations: int | None, time_budget_ms: float | None) -> SearchResult:
        """Search until ``simulations`` are done or ``time_budget_ms`` has passed (at least one simulation);
        a decision with one legal action is returned at once."""
        start = time.perf_counter()
        allowed = allowed_values(game.action_spec, game.legal_mask(agent))
        if joint_count(allowed) == 1:
            only = np.array([values[0] for values in allowed], dtype=np.int64)
            return SearchResult(only, 0, time.perf_counter() - start)
        deadline = None if time_budget_ms is None else start + time_budget_ms / 1000.0
        # Simulations copy this copy: its dice history is empty, so each copy is cheaper than one of the game.
        base = determinized(game, 0)
        root = Node(None, None)
        self._dice_seeds = []
        done = 0
        while simulations is None or done < simulations:
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            self._simulate(base, root, agent)
            done += 1
        children = sorted(root.by_agent[agent], key=lambda c: (c.visits, c.mean), reverse=True)
        stats = tuple(ChildStats(c.action, c.visits, c.mean) for c in children if c.action is not None)
        best = children[0].action
        assert best is not None
        return SearchResult(np.array(best, dtype=np.int64), done, time.perf_counter() - start, stats)

    def _dice_seed(self, visit: int) -> int:
        """The dice sample of every root child's ``visit``-th simulation (common random numbers)."""
        while len(self._dice_seeds) <= visit:
            self._dice_seeds.append(int(self.rng.integers(2**62)))
        return self._dice_seeds[visit]

    def _simulate(self, base: Game, root: Node, agent: str) -> None:
        sim = base.clone()
        # Choosing at the root rolls nothing, so the dice can be sampled after it: the k-th simulation of
        # every root move rolls the same sample, and moves are compared on the same luck.
        node = self._select(root, sim, agent)
        reseed(sim.dice, self._dice_seed(node.visits))
        path = [node]
        assert node.action is not None
        sim.apply(agent, np.array(node.action, dtype=np.int64))
        while node.visits > 0 and not sim.is_over:
            acting = sim.current_agent
            assert acting is not None
            node = self._select(node, sim, acting)
            assert node.action is not None
            sim.apply(acting, np.array(node.action, dtype=np.int64))
            path.append(node)
        values = self.evaluator(sim)
        root.visits += 1
        for visited in path:
            assert visited.side is not None
            visited.visits += 1
            visited.value_sum += values[visited.side]

    def _select(self, node: Node, sim: Game, agent: str) -> Node:
        spec = sim.action_spec
        mask = sim.legal_mask(agent)
        side = sim.side_of(agent)
        children = [c for c in node.by_agent.get(agent, ()) if allows(spec, mask, c.action or ())]
        width = min(self.settings.max_children, 1 + int(self.settings.widening * math.sqrt(node.visits)))
        if len(children) < width:
            fresh, proposed = self._propose(node, sim, agent, mask, first=not children)
            if fresh is not None:
                prior = self.settings.policy_prior if proposed else self.settings.other_prior
                children.append(node.child(agent, side, fresh, prior))
        for child in children:
            child.available += 1
        unvisited = [c for c in children if c.visits == 0]
        if unvisited:
            return unvisited[int(self.rng.integers(len(unvisited)))]
        uct_c = self.settings.uct_c
        return max(children, key=lambda c: c.puct(uct_c))

    def _propose(self, node: Node, sim: Game, agent: str, mask: np.ndarray,
                 first: bool) -> tuple[JointAction | None, bool]:
        """A legal joint action this node has no child for yet, and whether the proposer chose it: the
        proposer's when the node has no legal child here, else a draw favouring component values no
        sibling has tried (:func:`novel_sample`); None when the node already holds every legal one."""
        spec = sim.action_spec
        if first and self.proposer is not None:
            action = self.proposer(sim, agent, mask)
            if allows(spec, mask, action) and (agent, action) not in node.children:
                return action, True
        allowed = allowed_values(spec, mask)
        siblings = [c.action for c in node.by_agent.get(agent, ()) if c.action is not None]
        used = [{action[i] for action in siblings} for i in range(len(allowed))]
        for _ in range(SAMPLE_TRIES):
            action = novel_sample(allowed, used, self.rng)
            if (agent, action) not in node.children:
                return action, False
        if joint_count(allowed) <= self.settings.max_children:
            rest = [a for a in enumerate_joint(allowed) if (agent, a) not in node.children]
            return (rest[int(self.rng.integers(len(rest)))] if rest else None), False
        return None, False
