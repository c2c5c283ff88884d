"""Gymnasium spaces built from a ruleset's specs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from naval_env.core.spaces import ActionSpec, ObservationSpec

#: Every observation field is scaled to stay well inside this bound.
OBSERVATION_BOUND = 10.0


class MaskedMultiDiscrete(spaces.MultiDiscrete):
    """``MultiDiscrete`` that understands the toolkit's flat action mask.

    ``sample(mask)`` accepts the flat mask (components one after another) as well
    as gymnasium's tuple of per-component masks. Given a ``mask_source`` (the
    single-agent env binds its current mask), ``sample()`` with no mask draws a
    legal action, so random-action loops and the library checkers play by the rules.
    """

    def __init__(self, spec: ActionSpec, mask_source: Callable[[], np.ndarray] | None = None,
                 seed: int | None = None) -> None:
        super().__init__(spec.nvec.copy(), dtype=np.int64, seed=seed)
        self.spec = spec
        self.mask_source = mask_source

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        if mask is None and probability is None and self.mask_source is not None:
            mask = self.mask_source()
        if isinstance(mask, np.ndarray) and mask.ndim == 1 and mask.size == self.spec.flat_size:
            return self.spec.sample(mask.astype(bool, copy=False), self.np_random)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> Any:
        # The mask source is a bound method of its env: pickle the plain space instead.
        return (MaskedMultiDiscrete, (self.spec,))


def observation_box(spec: ObservationSpec) -> spaces.Box:
    return spaces.Box(-OBSERVATION_BOUND, OBSERVATION_BOUND, shape=(spec.size,), dtype=np.float32)


def action_space(spec: ActionSpec, mask_source: Callable[[], np.ndarray] | None = None) -> MaskedMultiDiscrete:
    return MaskedMultiDiscrete(spec, mask_source)


def mask_box(spec: ActionSpec) -> spaces.Box:
    return spaces.Box(0, 1, shape=(spec.flat_size,), dtype=np.int8)
