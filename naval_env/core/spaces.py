"""Action and observation specs: the shapes every env, captain and export agrees on.

An :class:`ActionSpec` is a list of named discrete components (a ``MultiDiscrete``
action). Its flat mask is the components' masks one after another (length = sum
of the sizes, True = allowed), the layout sb3-contrib's MaskablePPO expects.

An :class:`ObservationSpec` is a table of named slices of one float32 vector;
exports carry it so other programs can build the same vector.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from naval_env.core.errors import IllegalActionError

_INT64 = np.dtype(np.int64)
_BOOL = np.dtype(bool)
#: Masks whose draw tables a spec keeps (a game has a few dozen distinct masks; past this the tables start over).
SAMPLE_TABLES_LIMIT = 1024

#: What a mask allows: the first allowed value of every component, and (index, allowed values in order) of
#: each component with more than one (what its draw picks from).
SampleTable = tuple[tuple[int, ...], tuple[tuple[int, tuple[int, ...]], ...]]


@dataclass(frozen=True)
class ActionComponent:
    """One discrete choice. ``labels[i]`` says what value ``i`` means; value 0 is always the no-op."""

    name: str
    labels: tuple[str, ...]
    description: str = ""

    @property
    def size(self) -> int:
        return len(self.labels)


@dataclass(frozen=True)
class ActionSpec:
    components: tuple[ActionComponent, ...]
    nvec: np.ndarray = field(init=False, repr=False, compare=False)
    flat_size: int = field(init=False, repr=False, compare=False)
    offsets: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _offset_array: np.ndarray = field(init=False, repr=False, compare=False)
    _noop_mask: np.ndarray = field(init=False, repr=False, compare=False)
    _shape: tuple[int] = field(init=False, repr=False, compare=False)
    _flat_shape: tuple[int] = field(init=False, repr=False, compare=False)
    _checks: tuple[tuple[int, int], ...] = field(init=False, repr=False, compare=False)
    _ends: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _sample_tables: dict[bytes, SampleTable] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        sizes = [c.size for c in self.components]
        object.__setattr__(self, "nvec", np.asarray(sizes, dtype=np.int64))
        object.__setattr__(self, "flat_size", sum(sizes))  # a field: every sample checks the mask against it
        object.__setattr__(self, "offsets", tuple(int(x) for x in np.cumsum([0, *sizes[:-1]])))
        object.__setattr__(self, "_offset_array", np.asarray(self.offsets, dtype=np.int64))
        noop = np.zeros(sum(sizes), dtype=bool)
        noop[list(self.offsets)] = True
        object.__setattr__(self, "_noop_mask", noop)
        object.__setattr__(self, "_shape", (len(sizes),))
        object.__setattr__(self, "_flat_shape", (sum(sizes),))
        object.__setattr__(self, "_checks", tuple(zip(self.offsets, sizes)))
        object.__setattr__(self, "_ends", tuple(o + n for o, n in zip(self.offsets, sizes)))
        object.__setattr__(self, "_sample_tables", {})

    def index(self, name: str) -> int:
        for i, component in enumerate(self.components):
            if component.name == name:
                return i
        raise KeyError(f"no action component {name!r}; components: {[c.name for c in self.components]}")

    def noop_mask(self) -> np.ndarray:
        """The mask of an agent that holds no decision: only value 0 of every component."""
        return self._noop_mask.copy()

    def noop(self) -> np.ndarray:
        return np.zeros(len(self.components), dtype=np.int64)

    def sample(self, flat_mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random allowed value for every component.

        Every component takes one draw of ``rng.random``, so a component with one allowed value (most of
        them, most decisions) skips only the arithmetic. What a mask allows is kept per mask (masks repeat
        all game long): the value of every component, and the choices of those with more than one.
        """
        draws = rng.random(len(self._ends)).tolist()
        if flat_mask.dtype is _BOOL and flat_mask.shape == self._flat_shape:
            key = flat_mask.tobytes()
            table = self._sample_tables.get(key)
            if table is None:
                table = self._sample_table(flat_mask)
                if len(self._sample_tables) >= SAMPLE_TABLES_LIMIT:
                    self._sample_tables.clear()
                self._sample_tables[key] = table
        else:
            table = self._sample_table(flat_mask)
        firsts, choices = table
        values = list(firsts)
        for i, allowed in choices:
            values[i] = allowed[int(draws[i] * len(allowed))]
        return np.fromiter(values, _INT64, len(values))

    def _sample_table(self, flat_mask: np.ndarray) -> SampleTable:
        """The first allowed value of every component, and (index, allowed values) of those with several."""
        allowed = flat_mask.nonzero()[0].tolist()
        firsts: list[int] = []
        choices: list[tuple[int, tuple[int, ...]]] = []
        first = 0
        for i, (offset, end_offset) in enumerate(zip(self.offsets, self._ends)):
            end = bisect_left(allowed, end_offset, first)
            if end == first:
                raise self._empty_component(flat_mask)
            firsts.append(allowed[first] - offset)
            if end - first > 1:
                choices.append((i, tuple(a - offset for a in allowed[first:end])))
            first = end
        return tuple(firsts), tuple(choices)

    def _empty_component(self, flat_mask: np.ndarray) -> ValueError:
        counts = np.add.reduceat(np.asarray(flat_mask, dtype=np.int64), self._offset_array)
        empty = [c.name for c, n in zip(self.components, counts) if n == 0]
        return ValueError(f"mask allows no value for component(s) {empty}")

    def split(self, flat_mask: np.ndarray) -> list[np.ndarray]:
        return [flat_mask[o : o + c.size] for o, c in zip(self.offsets, self.components)]

    def check(self, action: Any, flat_mask: np.ndarray, context: str = "") -> np.ndarray:
        """Return ``action`` as an int64 vector, or raise naming the component that is not allowed."""
        values = self._as_int_vector(action)
        self._require_allowed(values.tolist(), flat_mask, context)
        return values

    def checked_values(self, action: Any, flat_mask: np.ndarray, context: str = "") -> list[int]:
        """:meth:`check`, returning the values as a list of Python ints (what engines index tables with)."""
        values: list[int] = self._as_int_vector(action).tolist()
        self._require_allowed(values, flat_mask, context)
        return values

    def _require_allowed(self, values: list[int], flat_mask: np.ndarray, context: str) -> None:
        if not self._allows(values, flat_mask):
            raise self._refusal(values, flat_mask, context)

    def _as_int_vector(self, action: Any) -> np.ndarray:
        if type(action) is np.ndarray and action.dtype is _INT64 and action.shape == self._shape:
            return action  # what samplers and policies hand in: nothing to convert
        try:
            values = np.asarray(action).reshape(-1)
        except Exception as exc:  # noqa: BLE001 - any unconvertible input is the caller's error
            raise IllegalActionError(f"action {action!r} is not an array of integers: {exc}") from None
        if values.shape != self._shape:
            raise IllegalActionError(
                f"action has shape {np.asarray(action).shape}; expected ({len(self.components)},) "
                f"for components {[c.name for c in self.components]}"
            )
        if values.dtype.kind not in "iu":
            if values.dtype.kind == "f" and np.all(np.mod(values, 1) == 0):
                return values.astype(np.int64)
            raise IllegalActionError(f"action {values.tolist()} must hold integers")
        if values.dtype.kind == "u":
            # A cast to int64 would wrap 2**64-1 round to -1 and name the wrong value: refuse it as given.
            for component, value in zip(self.components, values.tolist()):
                if value >= component.size:
                    raise IllegalActionError(
                        f"component {component.name!r}: value {value} is out of range 0..{component.size - 1}")
        return values.astype(np.int64, copy=False)

    def _allows(self, values: list[int], flat_mask: np.ndarray) -> bool:
        # Plain Python: on a few values it is cheaper than the numpy calls (this runs every decision). A
        # boolean mask is read as bytes: indexing bytes costs a fifth of indexing the array item by item.
        if flat_mask.dtype is _BOOL and flat_mask.shape == self._flat_shape:
            allowed: Any = flat_mask.tobytes()
        else:
            allowed = flat_mask
        for value, (offset, size) in zip(values, self._checks):
            if not (0 <= value < size and allowed[offset + value]):
                return False
        return True

    def _refusal(self, values: list[int], flat_mask: np.ndarray, context: str) -> IllegalActionError:
        """The error for the first component ``_allows`` refuses."""
        for component, offset, v in zip(self.components, self.offsets, values):
            if not 0 <= v < component.size:
                return IllegalActionError(
                    f"component {component.name!r}: value {v} is out of range 0..{component.size - 1}"
                )
            if not flat_mask[offset + v]:
                allowed = np.flatnonzero(flat_mask[offset : offset + component.size])
                names = ", ".join(f"{a}={component.labels[a]}" for a in allowed[:12])
                more = f" (+{len(allowed) - 12} more)" if len(allowed) > 12 else ""
                where = f" {context}" if context else ""
                return IllegalActionError(
                    f"component {component.name!r}: value {v} ({component.labels[v]}) is not allowed"
                    f"{where}; allowed now: {names}{more}"
                )
        raise AssertionError(f"_refusal called for the allowed action {values}")

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {
                "name": c.name,
                "size": c.size,
                "offset": o,
                "description": c.description,
                "values": list(c.labels),
            }
            for c, o in zip(self.components, self.offsets)
        ]


@dataclass(frozen=True)
class ObservationField:
    """A named slice. The stored value is ``raw * scale`` (so a reader divides to get raw units)."""

    name: str
    size: int
    scale: float
    description: str


@dataclass(frozen=True)
class ObservationSpec:
    fields: tuple[ObservationField, ...]
    offsets: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        offsets: dict[str, int] = {}
        position = 0
        for f in self.fields:
            if f.name in offsets:
                raise ValueError(f"duplicate observation field {f.name!r}")
            offsets[f.name] = position
            position += f.size
        object.__setattr__(self, "offsets", offsets)

    @property
    def size(self) -> int:
        return sum(f.size for f in self.fields)

    def slice(self, name: str) -> slice:
        start = self.offsets[name]
        size = next(f.size for f in self.fields if f.name == name)
        return slice(start, start + size)

    def to_json(self) -> list[dict[str, Any]]:
        return [
            {
                "name": f.name,
                "offset": self.offsets[f.name],
                "size": f.size,
                "scale": f.scale,
                "description": f.description,
            }
            for f in self.fields
        ]


def group_fields(prefix: str, count: int, fields: Sequence[ObservationField]) -> list[ObservationField]:
    """Repeat a block of fields ``count`` times as ``prefix{i}.name`` (one block per ship slot)."""
    return [
        ObservationField(f"{prefix}{i}.{f.name}", f.size, f.scale, f.description)
        for i in range(count)
        for f in fields
    ]
