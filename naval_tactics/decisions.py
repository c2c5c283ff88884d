"""A captain's decision in the boundary's vocabulary: the move by labels, its integers, its probabilities.

Builds on :mod:`naval_env.core.moves` (labels <-> integers): :func:`propose` asks a captain for
its move in a game and gives it back as labels, with the policy's probabilities by label when
the captain has a policy (:meth:`naval_agents.captains.base.Captain.probabilities`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from naval_agents.captains.base import Captain, Decision
from naval_env.core.game import Game
from naval_env.core.moves import Move, decode
from naval_env.core.spaces import ActionSpec

#: What a captain that reads only the engine gets instead of an observation.
EMPTY_OBSERVATION = np.zeros(0, dtype=np.float32)

Probabilities = dict[str, dict[str, float]]


@dataclass(frozen=True)
class Proposal:
    """One captain's move for one seat: every component by label, the same as integers, and the
    policy's probabilities of the allowed labels (None for captains without a policy)."""

    seat: str
    move: Move
    action: list[int]
    probabilities: Probabilities | None


def decision_for(game: Game, seat: str, captain: Captain) -> Decision:
    """The decision ``captain`` gets for ``seat`` (the observation only when it reads one), as the envs build it."""
    observation = game.observe(seat) if captain.needs_observation else EMPTY_OBSERVATION
    return Decision(seat, observation, game.legal_mask(seat), game)


def label_probabilities(spec: ActionSpec, per_component: list[np.ndarray], mask: np.ndarray) -> Probabilities:
    """``{component: {label: p}}`` over each component's allowed labels, in value order."""
    if len(per_component) != len(spec.components):
        raise ValueError(f"{len(per_component)} probability vectors for {len(spec.components)} components")
    result: Probabilities = {}
    for component, offset, values in zip(spec.components, spec.offsets, per_component):
        allowed = np.flatnonzero(mask[offset: offset + component.size])
        result[component.name] = {component.labels[int(v)]: float(values[int(v)]) for v in allowed}
    return result


def propose(game: Game, seat: str, captain: Captain) -> Proposal:
    """``captain``'s move for ``seat`` in ``game``, which it leaves untouched."""
    decision = decision_for(game, seat, captain)
    action = np.asarray(captain.act(decision), dtype=np.int64).reshape(-1)
    per_component = captain.probabilities(decision)
    probabilities = (None if per_component is None
                     else label_probabilities(game.action_spec, per_component, decision.action_mask))
    return Proposal(seat, decode(game.action_spec, action), [int(v) for v in action], probabilities)
