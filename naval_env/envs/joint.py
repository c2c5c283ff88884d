"""The flat ``Discrete`` action space: one index per legal joint action of the current decision.

The rules' actions are ``MultiDiscrete`` (one value per component) and their mask is per component, so the
legal joint actions of a decision are the product of each component's allowed values. Index ``i`` is the
``i``-th of them in lexicographic order of the component values (the first component varies slowest): a
mixed-radix number whose digits are positions among each component's allowed values. So the legal indices
of a decision are always ``0 .. count - 1`` (the mask is a prefix), and index 0 is the first allowed value of
every component, value 0 (the no-op) wherever the rules allow it.

An index's meaning depends on the decision, which the observation describes: this is an enumeration of the
legal joint actions, not of every joint action (the rulesets' full products run from 87,120 joint actions
in flotilla to 1.4e16 in crew_phase). The space's size is a bound, ``max_joint_actions``; a decision with
more legal joint actions raises :class:`JointActionsOverflow` rather than hiding any of them. Largest counts
seen in random play are in docs/environments.md.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from naval_env.core.errors import IllegalActionError, NavalError
from naval_env.core.spaces import ActionSpec

#: The default size of the Discrete space: above the largest legal count seen in broadside (196), pursuit (72)
#: and flotilla (25); pantheon and crew_phase decisions reach about a million and more (docs/environments.md).
DEFAULT_MAX_JOINT_ACTIONS = 256

#: The env argument that picks the action space, and its choices.
ACTION_SPACES = ("multidiscrete", "discrete")


class JointActionsOverflow(NavalError):
    """A decision has more legal joint actions than the ``Discrete`` space has indices."""


def check_action_space(action_space: str, max_joint_actions: int) -> None:
    """Refuse an unknown ``action_space`` or a ``max_joint_actions`` that is no positive integer."""
    if action_space not in ACTION_SPACES:
        raise ValueError(f"action_space {action_space!r} is not one of {ACTION_SPACES}")
    if isinstance(max_joint_actions, bool) or not isinstance(max_joint_actions, int) or max_joint_actions < 1:
        raise ValueError(f"max_joint_actions must be a positive integer, got {max_joint_actions!r}")


class JointActions:
    """Translates between a ``Discrete(size)`` index and the MultiDiscrete action it stands for, given the
    decision's flat mask (components one after another, True = allowed)."""

    def __init__(self, spec: ActionSpec, size: int = DEFAULT_MAX_JOINT_ACTIONS, ruleset: str = "") -> None:
        check_action_space("discrete", size)
        self.spec, self.size, self.ruleset = spec, size, ruleset
        self._starts = np.asarray(spec.offsets, dtype=np.int64)

    def count(self, flat_mask: np.ndarray) -> int:
        """How many legal joint actions the mask allows (the product of each component's allowed count)."""
        counts = np.add.reduceat(np.asarray(flat_mask, dtype=np.int64), self._starts)
        return math.prod(counts.tolist())

    def mask(self, flat_mask: np.ndarray) -> np.ndarray:
        """The Discrete mask (bool, ``size`` values): True for the indices ``0 .. count - 1``."""
        count = self.count(flat_mask)
        if count > self.size:
            where = f"this {self.ruleset} decision" if self.ruleset else "this decision"
            raise JointActionsOverflow(
                f"{where} has {count:,} legal joint actions, more than the Discrete space's max_joint_actions="
                f"{self.size:,}; pass max_joint_actions={count:,} or more, or use action_space='multidiscrete' "
                "(the component-wise mask, as MaskablePPO takes it)")
        return np.arange(self.size) < count

    def _allowed(self, flat_mask: np.ndarray) -> list[list[int]]:
        return [np.flatnonzero(part).tolist() for part in self.spec.split(np.asarray(flat_mask))]

    def decode(self, index: int, flat_mask: np.ndarray) -> np.ndarray:
        """The MultiDiscrete action of legal index ``index``; raises IllegalActionError past the legal ones."""
        allowed = self._allowed(flat_mask)
        count = math.prod(len(values) for values in allowed)
        if not 0 <= index < count:
            raise IllegalActionError(f"action index {index} is not allowed: this decision has {count} legal joint "
                                     f"actions, indices 0..{count - 1}")
        values = [0] * len(allowed)
        for i in reversed(range(len(allowed))):
            index, digit = divmod(index, len(allowed[i]))
            values[i] = allowed[i][digit]
        return np.asarray(values, dtype=np.int64)

    def encode(self, action: Any, flat_mask: np.ndarray) -> int:
        """The index of a legal MultiDiscrete ``action``; raises IllegalActionError naming a forbidden component."""
        values = self.spec.checked_values(action, np.asarray(flat_mask, dtype=bool))
        index = 0
        for value, allowed in zip(values, self._allowed(flat_mask)):
            index = index * len(allowed) + allowed.index(value)
        return index

    def check_index(self, index: Any) -> int:
        """``index`` as an int, refused (IllegalActionError) unless it is one integer in ``0 .. size - 1``: an
        action outside the space, which no illegal-action policy replaces."""
        value = np.asarray(index)
        if value.size != 1 or value.dtype.kind not in "iu":
            raise IllegalActionError(f"action {index!r} is not one integer index of the Discrete({self.size}) "
                                     "action space")
        number = int(value.reshape(-1)[0])
        if not 0 <= number < self.size:
            raise IllegalActionError(f"action index {number} is out of range 0..{self.size - 1}")
        return number
