"""Open-loop Monte Carlo tree search over the engine's own game copies.

The design follows OpenSpiel's ``MCTSBot`` (``open_spiel/python/algorithms/mcts.py``): a node
per action with visit count and summed value from the point of view of the player who chose
it, UCT selection, unvisited children first, an evaluator at the new leaf, the most visited
root child played. Two departures, because chance here is not a node the engine exposes:

- **Open loop.** Dice are rolled inside ``Game.apply``, so the tree is over action sequences;
  each simulation plays on a copy whose dice are a fresh sample (:mod:`agents.search.chance`)
  and a node's statistics are averaged over those samples. The same action sequence can then
  reach states with a different agent to move or different legal actions, so children are
  keyed by (agent, action), only the children legal in this simulation's state compete, and
  UCT's parent count is each child's *availability* (how often it was legal when its parent
  was visited), as in information-set MCTS (Cowling, Powley and Whitehouse, 2012).
- **Joint actions.** A decision is a MultiDiscrete vector. When the product of the components'
  allowed counts is at most ``max_children`` every legal joint action is a child; otherwise the
  children are a sampled set grown by progressive widening, ``1 + widening * sqrt(visits)``
  capped at ``max_children``: the first is the proposer's action (the rollout captain's choice),
  the rest uniform legal samples.

Values are per side (zero-sum for two sides); each node is scored for the side of the agent
that chose it, so opponents pick adversarially and allies cooperate.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from agents.search.candidates import (
    JointAction,
    allowed_values,
    allows,
    enumerate_joint,
    joint_count,
)
from agents.search.chance import determinized
from agents.search.evaluators import Evaluator
from naval_env.core.game import Game

#: (simulation game, agent, mask) -> a legal joint action to try first at a wide node.
Proposer = Callable[[Game, str, np.ndarray], JointAction]
#: Fresh uniform samples tried before a wide node gives up on adding a new child this visit.
SAMPLE_TRIES = 8


@dataclass(frozen=True)
class TreeSettings:
    """The tree policy's knobs (see the module docstring)."""

    uct_c: float = 1.0
    """UCT exploration constant, for values in [-1, 1]"""
    max_children: int = 32
    """most children of a node: joint actions are enumerated up to this many, sampled beyond"""
    widening: float = 1.0
    """progressive widening of a sampled node: 1 + widening * sqrt(visits) children"""


class Node:
    """One action in the tree: who chose it, how often it was tried and available, summed value."""

    __slots__ = ("action", "available", "by_agent", "children", "side", "value_sum", "visits")

    def __init__(self, side: str | None, action: JointAction | None) -> None:
        self.side = side          # side of the agent that chose ``action`` (None at the root)
        self.action = action
        self.visits = 0
        self.available = 0
        self.value_sum = 0.0      # summed values for ``side``
        self.children: dict[tuple[str, JointAction], Node] = {}
        self.by_agent: dict[str, list[Node]] = {}

    @property
    def mean(self) -> float:
        return self.value_sum / self.visits if self.visits else 0.0

    def child(self, agent: str, side: str, action: JointAction) -> Node:
        """The child for ``agent`` playing ``action``, made on first sight."""
        key = (agent, action)
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = Node(side, action)
            self.by_agent.setdefault(agent, []).append(node)
        return node

    def uct(self, uct_c: float) -> float:
        return self.mean + uct_c * math.sqrt(math.log(self.available) / self.visits)


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


class TreeSearch:
    """One decision's search: :meth:`run` on the real game, which it only ever clones."""

    def __init__(self, settings: TreeSettings, evaluator: Evaluator, rng: np.random.Generator,
                 proposer: Proposer | None = None) -> None:
        self.settings = settings
        self.evaluator = evaluator
        self.rng = rng
        self.proposer = proposer

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
        done = 0
        while simulations is None or done < simulations:
            if deadline is not None and done and time.perf_counter() >= deadline:
                break
            self._simulate(base, root)
            done += 1
        children = sorted(root.by_agent[agent], key=lambda c: (c.visits, c.mean), reverse=True)
        stats = tuple(ChildStats(c.action, c.visits, c.mean) for c in children if c.action is not None)
        best = children[0].action
        assert best is not None
        return SearchResult(np.array(best, dtype=np.int64), done, time.perf_counter() - start, stats)

    def _simulate(self, game: Game, root: Node) -> None:
        sim = determinized(game, int(self.rng.integers(2**62)))
        node, path = root, []
        while not sim.is_over:
            agent = sim.current_agent
            assert agent is not None
            node = self._select(node, sim, agent)
            assert node.action is not None
            sim.apply(agent, np.array(node.action, dtype=np.int64))
            path.append(node)
            if node.visits == 0:
                break
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
        allowed = allowed_values(spec, mask)
        if joint_count(allowed) <= self.settings.max_children:
            children = [node.child(agent, side, action) for action in enumerate_joint(allowed)]
        else:
            children = [c for c in node.by_agent.get(agent, ()) if allows(spec, mask, c.action or ())]
            width = min(self.settings.max_children, 1 + int(self.settings.widening * math.sqrt(node.visits)))
            if len(children) < width:
                fresh = self._propose(node, sim, agent, mask, first=not children)
                if fresh is not None:
                    children.append(node.child(agent, side, fresh))
        for child in children:
            child.available += 1
        unvisited = [c for c in children if c.visits == 0]
        if unvisited:
            return unvisited[int(self.rng.integers(len(unvisited)))]
        uct_c = self.settings.uct_c
        return max(children, key=lambda c: c.uct(uct_c))

    def _propose(self, node: Node, sim: Game, agent: str, mask: np.ndarray, first: bool) -> JointAction | None:
        """A legal joint action this node has no child for yet: the proposer's first, then samples."""
        spec = sim.action_spec
        if first and self.proposer is not None:
            action = self.proposer(sim, agent, mask)
            if allows(spec, mask, action) and (agent, action) not in node.children:
                return action
        for _ in range(SAMPLE_TRIES):
            action = tuple(spec.sample(mask, self.rng).tolist())
            if (agent, action) not in node.children:
                return action
        return None
