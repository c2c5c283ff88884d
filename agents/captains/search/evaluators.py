"""Leaf values for the search: the result when a game is over, else hull fractions, after a rollout.

An evaluator takes the simulation's own game copy (it may play on it) and returns a value in
[-1, 1] for every side: 1 a win, -1 a loss, 0 a draw. Written once against the engine
contract (``is_over``, ``winner``, ``sides``, ``side_of``, ``health``, ``current_agent``,
``legal_mask``, ``apply``), so it serves every ruleset.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from naval_agents.captains.base import Captain, Decision
from naval_env.core.game import Game

#: Side -> value in [-1, 1] from that side's point of view.
Values = Mapping[str, float]
Evaluator = Callable[[Game], Values]

_EMPTY_OBSERVATION = np.zeros(0, dtype=np.float32)


def result_values(game: Game) -> dict[str, float]:
    """A finished game's values: 1 for the winning side, -1 for the others, 0 for all on a draw."""
    winner = game.winner
    return {side: 0.0 if winner is None else (1.0 if side == winner else -1.0) for side in game.sides}


def hull_fractions(game: Game) -> dict[str, float]:
    """Each side's remaining hull over its total (``game.health`` summed over its ships)."""
    current = dict.fromkeys(game.sides, 0)
    maximum = dict.fromkeys(game.sides, 0)
    for agent in game.agents:
        now, most = game.health(agent)
        side = game.side_of(agent)
        current[side] += max(now, 0)
        maximum[side] += most
    return {side: current[side] / maximum[side] if maximum[side] else 0.0 for side in game.sides}


def hull_values(game: Game) -> dict[str, float]:
    """The result once over; else a side's hull fraction minus the mean of the other sides' fractions.

    A heuristic, in [-1, 1]: it cannot see a win that is not hull (an escape, a capture) until
    the rollout reaches it.
    """
    if game.is_over:
        return result_values(game)
    fractions = hull_fractions(game)
    values: dict[str, float] = {}
    for side, own in fractions.items():
        others = [f for s, f in fractions.items() if s != side]
        values[side] = own - (sum(others) / len(others) if others else 0.0)
    return values


def netted_side_values(game: Game, agents: list[str], estimates: np.ndarray) -> dict[str, float]:
    """Side values from per-ship estimates in [-1, 1] (``estimates[i]`` for ``agents[i]``, from its side's view):
    each side's mean, netted against the mean of the others' and halved, so both sides' estimates count and the
    values stay in [-1, 1]. A side with no ship among ``agents`` counts as -1."""
    own: dict[str, list[float]] = {side: [] for side in game.sides}
    for agent, value in zip(agents, estimates):
        own[game.side_of(agent)].append(float(value))
    means = {side: sum(v) / len(v) if v else -1.0 for side, v in own.items()}
    values: dict[str, float] = {}
    for side, mean in means.items():
        others = [v for s, v in means.items() if s != side]
        values[side] = (mean - (sum(others) / len(others) if others else 0.0)) / 2
    return values


def play_decision(game: Game, captain: Captain) -> None:
    """Let ``captain`` make the current decision of ``game``."""
    agent = game.current_agent
    assert agent is not None, "play_decision on a finished game"
    mask = game.legal_mask(agent)
    observation = game.observe(agent) if captain.needs_observation else _EMPTY_OBSERVATION
    game.apply(agent, captain.act(Decision(agent, observation, mask, game)))


@dataclass
class RolloutEvaluator:
    """Play ``depth`` more decisions with ``captain`` (every ship, both sides), then ``leaf``'s values.

    ``depth`` counts decisions, not rounds; 0 evaluates the position as it stands.
    """

    captain: Captain
    depth: int
    leaf: Evaluator = hull_values

    def __call__(self, game: Game) -> Values:
        for _ in range(self.depth):
            if game.is_over:
                break
            play_decision(game, self.captain)
        return self.leaf(game)
