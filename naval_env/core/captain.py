"""The captain interface every opponent, evaluator and exported model speaks.

It lives under the environments because they play captains; the captains themselves (scripted,
search, trained, exported) live above, in ``agents``, which re-exports these names from
``naval_agents.captains.base``. A captain gets a :class:`Decision` (observation vector and flat action mask, plus
the engine game for scripted captains that reason over the rules) and returns a
MultiDiscrete action. Learned and exported captains read only the arrays, so an
external front end can drive them with nothing but the export's JSON spec.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple

import numpy as np

from naval_env.core.game import Game
from naval_env.core.spaces import ActionSpec


class Decision(NamedTuple):
    """What a captain decides from (a named tuple: one is built for every decision of every game)."""

    agent: str
    observation: np.ndarray
    action_mask: np.ndarray
    game: Game | None = None


class Captain(ABC):
    """Observation and mask in, action out. ``reset`` is called at the start of each game."""

    name: str = "captain"
    #: Captains that decide from the engine alone set this False; they then get an empty observation.
    needs_observation: bool = True

    def reset(self, seed: int | None = None) -> None:
        """Prepare for a new game; captains with randomness re-seed here."""

    @abstractmethod
    def act(self, decision: Decision) -> np.ndarray: ...

    def probabilities(self, decision: Decision) -> list[np.ndarray] | None:
        """The policy's probability of every value of every component (0 where masked), or None for
        captains without one (scripted captains choose by rule, not by distribution)."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def masked_argmax(scores: np.ndarray, mask: np.ndarray) -> int:
    """Index of the best allowed score (first one on ties)."""
    return int(np.argmax(np.where(mask, scores, -np.inf)))


class RandomCaptain(Captain):
    """Uniformly random legal action, component by component. The baseline every captain must beat."""

    name = "random"
    needs_observation = False

    def __init__(self, action_spec: ActionSpec, seed: int | None = None) -> None:
        self.spec = action_spec
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, decision: Decision) -> np.ndarray:
        return self.spec.sample(decision.action_mask, self._rng)

    def probabilities(self, decision: Decision) -> list[np.ndarray]:
        """Uniform over each component's allowed values."""
        return [part / part.sum() for part in self.spec.split(np.asarray(decision.action_mask, dtype=np.float64))]
