"""Gymnasium spaces built from a ruleset's specs, and legal sampling for single and vector envs."""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space

from naval_env.core.spaces import ActionSpec, ObservationSpec
from naval_env.envs.joint import JointActions

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
        # The mask source is a bound method of its env: a space pickled alone (vector envs send spaces between
        # processes, SB3 saves them) must not drag its env along, so it is left out; the env binds it again
        # when it is itself unpickled. The generator is kept, so a copy's sample() continues the same draws.
        state = {key: value for key, value in self.__dict__.items() if key != "mask_source"}
        return (MaskedMultiDiscrete, (self.spec,), state)


class MaskedDiscrete(spaces.Discrete):
    """The opt-in flat action space (``action_space="discrete"``): one index per legal joint action of the
    current decision (:class:`naval_env.envs.joint.JointActions`). ``sample(mask)`` takes the env's bool mask
    as well as gymnasium's int8 one; given a ``mask_source``, ``sample()`` draws a legal index."""

    def __init__(self, joint: JointActions, mask_source: Callable[[], np.ndarray] | None = None,
                 seed: int | None = None) -> None:
        super().__init__(joint.size, seed=seed)
        self.joint = joint
        self.mask_source = mask_source

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if mask is None and probability is None and self.mask_source is not None:
            mask = self.mask_source()
        if mask is not None:
            mask = np.asarray(mask).astype(np.int8, copy=False)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> Any:
        # As MaskedMultiDiscrete: without the env the mask source is bound to, with the generator.
        state = {key: value for key, value in self.__dict__.items() if key != "mask_source"}
        return (MaskedDiscrete, (self.joint,), state)


class MaskedBatchBox(spaces.Box):
    """What a vector env makes of :class:`MaskedMultiDiscrete`: gymnasium batches a ``MultiDiscrete``
    into an integer ``Box`` of shape ``(num_envs, components)``, and this is that same Box, except that
    ``sample(mask)`` also takes the vector env's ``info["action_mask"]`` (one flat mask per sub-env)
    and draws a legal action for each. ``sample()`` with no mask stays uniform over the box, so
    it ignores the rules: a vector env cannot know its sub-envs' masks without their infos.
    """

    def __init__(self, spec: ActionSpec, num_envs: int, seed: int | np.random.Generator | None = None) -> None:
        nvec = np.tile(spec.nvec, (num_envs, 1))
        super().__init__(low=np.zeros_like(nvec), high=nvec - 1, dtype=np.int64, seed=seed)
        self.spec = spec

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        if mask is None or probability is not None:
            return super().sample(mask=mask, probability=probability)
        masks = np.asarray(mask)
        if masks.shape != (self.shape[0], self.spec.flat_size):
            raise ValueError(f"mask has shape {masks.shape}; expected ({self.shape[0]}, {self.spec.flat_size}), "
                             "one flat mask per sub-env as in the vector env's info['action_mask']")
        return sample_legal(self.spec, masks, self.np_random)


@batch_space.register(MaskedMultiDiscrete)
def _batch_masked(space: MaskedMultiDiscrete, n: int = 1) -> MaskedBatchBox:
    return MaskedBatchBox(space.spec, n, seed=deepcopy(space.np_random))  # seeded as gymnasium batches a MultiDiscrete


def sample_legal(space: ActionSpec | MaskedMultiDiscrete | MaskedBatchBox | MaskedDiscrete, masks: Any,
                 rng: np.random.Generator | int | None = None) -> np.ndarray:
    """Legal actions drawn uniformly per component from flat masks (True = allowed).

    ``masks`` of shape ``(flat_size,)`` gives one action of shape ``(components,)``; of shape
    ``(n, flat_size)``, such as a vector env's ``info["action_mask"]``, one row per mask. ``space``
    is the env's action space, a vector env's ``single_action_space`` or ``action_space``, or the
    ``ActionSpec`` itself; ``rng`` a Generator or a seed (None: fresh entropy). With the Discrete space
    (``action_space="discrete"``), masks over its indices give legal indices, one per row.
    """
    generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    if isinstance(space, MaskedDiscrete):
        return _sample_indices(int(space.n), masks, generator)
    spec = space if isinstance(space, ActionSpec) else getattr(space, "spec", None)
    if not isinstance(spec, ActionSpec):
        raise TypeError(f"expected a naval env's action space or an ActionSpec, got {type(space).__name__}")
    flat = np.asarray(masks).astype(bool, copy=False)
    if flat.ndim not in (1, 2) or flat.shape[-1] != spec.flat_size:
        raise ValueError(f"masks have shape {flat.shape}; expected ({spec.flat_size},) or (n, {spec.flat_size})")
    if flat.ndim == 1:
        return spec.sample(flat, generator)
    rows = [spec.sample(row, generator) for row in flat]
    return np.array(rows, dtype=np.int64).reshape(len(rows), len(spec.nvec))


def _sample_indices(size: int, masks: Any, rng: np.random.Generator) -> np.ndarray:
    """Legal Discrete indices, one per mask row, uniform among the allowed ones."""
    rows = np.asarray(masks).astype(bool, copy=False)
    if rows.ndim not in (1, 2) or rows.shape[-1] != size:
        raise ValueError(f"masks have shape {rows.shape}; expected ({size},) or (n, {size}) for Discrete({size})")
    picks = [rng.choice(np.flatnonzero(row)) for row in rows.reshape(-1, size)]
    indices = np.asarray(picks, dtype=np.int64)
    return indices[0] if rows.ndim == 1 else indices


def observation_box(spec: ObservationSpec) -> spaces.Box:
    return spaces.Box(-OBSERVATION_BOUND, OBSERVATION_BOUND, shape=(spec.size,), dtype=np.float32)


def action_space(spec: ActionSpec, mask_source: Callable[[], np.ndarray] | None = None) -> MaskedMultiDiscrete:
    return MaskedMultiDiscrete(spec, mask_source)


def mask_size(spec: ActionSpec, joint: JointActions | None = None) -> int:
    """Length of the action mask: the flat component mask, or the Discrete space's size."""
    return spec.flat_size if joint is None else joint.size


def mask_box(spec: ActionSpec, joint: JointActions | None = None) -> spaces.Box:
    return spaces.Box(0, 1, shape=(mask_size(spec, joint),), dtype=np.int8)


def masked_observation_space(observation: ObservationSpec, actions: ActionSpec,
                             joint: JointActions | None = None) -> spaces.Dict:
    """The Gymnasium env's ``mask_in_obs`` observation: the observation with the action mask beside it, as
    in the PettingZoo envs but boolean, the mask type TorchRL's ``ActionMask`` and torch's masking take."""
    return spaces.Dict({"observation": observation_box(observation),
                        # gymnasium takes a bool Box at run time; its stubs name only numeric dtypes
                        "action_mask": spaces.Box(0, 1, shape=(mask_size(actions, joint),), dtype=np.bool_)})  # type: ignore[arg-type]
