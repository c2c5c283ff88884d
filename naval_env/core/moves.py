"""Moves by name: the legal options of a decision as labels, and moves given as labels.

Every action component names its values (``ActionSpec`` labels such as ``"fire@enemy0"``
or ``"ahead 3, starboard after 1"``); a label is unique within its component, so a move
written as ``{component: label}`` maps one-to-one onto the integer ``MultiDiscrete`` form.
A component left out of a move takes its no-op value 0, which is always allowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from naval_env.core.errors import IllegalActionError
from naval_env.core.game import Game
from naval_env.core.spaces import ActionSpec

Move = dict[str, str]


class MoveError(IllegalActionError):
    """A move naming an unknown component or label, or a label the rules do not allow now."""

    def __init__(self, message: str, component: str | None = None, label: Any = None,
                 allowed: list[str] | None = None) -> None:
        super().__init__(message)
        self.component = component
        self.label = label
        self.allowed = allowed

    def to_json(self) -> dict[str, Any]:
        return {"component": self.component, "label": self.label, "allowed": self.allowed}


def options(spec: ActionSpec, mask: np.ndarray) -> dict[str, list[str]]:
    """Every component's allowed labels under the flat ``mask``, in value order."""
    return {
        component.name: [component.labels[int(v)] for v in np.flatnonzero(mask[offset: offset + component.size])]
        for component, offset in zip(spec.components, spec.offsets)
    }


def legal_options(game: Game, agent: str | None = None) -> dict[str, list[str]]:
    """The allowed labels of each component for ``agent`` (default: whoever holds the decision)."""
    agent = agent if agent is not None else game.current_agent
    if agent is None:
        return options(game.action_spec, game.action_spec.noop_mask())
    return options(game.action_spec, game.legal_mask(agent))


def encode(spec: ActionSpec, move: Mapping[str, str], mask: np.ndarray | None = None) -> np.ndarray:
    """The integer action of a move given as ``{component: label}``; with ``mask``, each label must be allowed.

    Raises :class:`MoveError` naming the component, the label and the labels allowed there.
    """
    if not isinstance(move, Mapping):
        raise MoveError(f"a move is an object of component: label, not {type(move).__name__}")
    names = [c.name for c in spec.components]
    values = np.zeros(len(names), dtype=np.int64)
    for name, label in move.items():
        if name not in names:
            raise MoveError(f"unknown action component {name!r}; components: {names}", component=name,
                            allowed=names)
        i = names.index(name)
        component = spec.components[i]
        allowed = _allowed_labels(spec, i, mask)
        if not isinstance(label, str) or label not in component.labels:
            raise MoveError(f"component {name!r}: unknown label {label!r}; allowed now: {allowed}",
                            component=name, label=label, allowed=allowed)
        value = component.labels.index(label)
        if mask is not None and not mask[spec.offsets[i] + value]:
            raise MoveError(f"component {name!r}: {label!r} is not allowed now; allowed now: {allowed}",
                            component=name, label=label, allowed=allowed)
        values[i] = value
    return values


def decode(spec: ActionSpec, action: Any) -> Move:
    """The labels of an integer action, every component included."""
    values = np.asarray(action, dtype=np.int64).reshape(-1)
    if values.shape != spec.nvec.shape or np.any(values < 0) or np.any(values >= spec.nvec):
        raise MoveError(f"action {values.tolist()} does not fit the components' sizes {spec.nvec.tolist()}")
    return {c.name: c.labels[int(v)] for c, v in zip(spec.components, values)}


def decode_choices(spec: ActionSpec, action: Any) -> Move:
    """The labels of an action's components that are not their no-op (what a person would call the move)."""
    return {name: label for (name, label), value in zip(decode(spec, action).items(), np.asarray(action).reshape(-1))
            if value != 0}


def _allowed_labels(spec: ActionSpec, index: int, mask: np.ndarray | None) -> list[str]:
    component = spec.components[index]
    if mask is None:
        return list(component.labels)
    offset = spec.offsets[index]
    return [component.labels[int(v)] for v in np.flatnonzero(mask[offset: offset + component.size])]
