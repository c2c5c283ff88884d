"""The joint actions a search node chooses among, read from the flat mask split by the action spec.

The engine contract makes every component's mask exact and the components of one decision
independent (a decision whose components depend on each other is split into phases), so the
legal joint actions are exactly the product of each component's allowed values.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from naval_env.core.spaces import ActionSpec

#: A joint action as a hashable tuple of component values (a tree node's key).
JointAction = tuple[int, ...]


def allowed_values(spec: ActionSpec, mask: np.ndarray) -> list[list[int]]:
    """Each component's allowed values, in component order."""
    return [np.flatnonzero(part).tolist() for part in spec.split(mask)]


def joint_count(allowed: list[list[int]]) -> int:
    """How many legal joint actions there are (the product of the allowed counts)."""
    return math.prod(len(values) for values in allowed)


def enumerate_joint(allowed: list[list[int]]) -> list[JointAction]:
    """Every legal joint action (call only when :func:`joint_count` is small)."""
    return list(itertools.product(*allowed))


def allows(spec: ActionSpec, mask: np.ndarray, action: JointAction) -> bool:
    """Whether ``mask`` allows every component of ``action``."""
    return all(mask[offset + value] for offset, value in zip(spec.offsets, action))


def novel_sample(allowed: list[list[int]], used: list[set[int]], rng: np.random.Generator) -> JointAction:
    """A legal joint action drawn component by component, each from the allowed values no sibling has
    used yet (all of them once every one has been used): a handful of draws covers every value of the
    components that have only a few, where uniform joint draws would keep missing one."""
    values = []
    for choices, taken in zip(allowed, used):
        fresh = [v for v in choices if v not in taken] or choices
        values.append(fresh[int(rng.integers(len(fresh)))] if len(fresh) > 1 else fresh[0])
    return tuple(values)
