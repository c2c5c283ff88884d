"""Seeded dice: the only source of randomness in every rules engine.

A game owns one :class:`Dice`. Every draw goes through :meth:`Dice.roll` with a
reason, so a game replays exactly from its seed and tests can swap in
:class:`ScriptedDice` to check a rule with exact numbers.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any, NamedTuple, Self


class DieRoll(NamedTuple):
    """One recorded draw: ``count`` dice of ``sides`` faces, rolled for ``reason``.

    A named tuple, not a frozen dataclass: every roll of every game makes one, and a
    tuple is built several times faster."""

    sides: int
    values: tuple[int, ...]
    reason: str

    @property
    def total(self) -> int:
        return sum(self.values)


#: ``DieRoll(sides, values, reason)`` without the named tuple's Python-level ``__new__``: the same tuple, and
#: the engines' commonest allocation.
_new_roll = tuple.__new__


class DiceExhaustedError(RuntimeError):
    """A :class:`ScriptedDice` was asked for more rolls than the test scripted."""


class Dice:
    """Seeded dice that record every roll.

    Faces come from ``random.Random.random()``, whose output for a given seed
    Python guarantees across versions, so games replay on any CPython 3.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self.history: list[DieRoll] = []

    def _face(self, sides: int) -> int:
        return int(self._rng.random() * sides) + 1

    def roll(self, sides: int, count: int = 1, reason: str = "") -> tuple[int, ...]:
        """Roll ``count`` dice of ``sides`` faces; returns the faces in order."""
        if sides < 1 or count < 0:
            raise ValueError(f"cannot roll {count}d{sides}: need sides >= 1 and count >= 0")
        random = self._rng.random  # the faces of _face, inlined: rolls are the engines' commonest call
        values = tuple([int(random() * sides) + 1 for _ in range(count)])
        self.history.append(_new_roll(DieRoll, (sides, values, reason)))
        return values

    def d(self, sides: int, reason: str = "") -> int:
        """Roll a single die (the same draw as ``roll(sides, 1, reason)``, without its tuple building)."""
        if sides < 1:
            raise ValueError(f"cannot roll a d{sides}: need sides >= 1")
        value = int(self._rng.random() * sides) + 1
        self.history.append(_new_roll(DieRoll, (sides, (value,), reason)))
        return value

    def choice_index(self, n: int, reason: str = "") -> int:
        """A uniform index in ``range(n)``, drawn as a d``n`` roll minus one."""
        return self.d(n, reason) - 1

    def generator_state(self) -> tuple[Any, ...]:
        """The generator's state (``random.Random.getstate()``); dice given it by :meth:`restore` roll the
        same faces as these from here on (a game resumed from a snapshot rolls as if never stopped)."""
        return self._rng.getstate()

    def restore(self, state: tuple[Any, ...]) -> None:
        """Continue from ``state``, a :meth:`generator_state` (the recorded history is left as it is)."""
        self._rng.setstate(state)

    def clone(self) -> Self:
        """An independent copy: the same faces as this one from here on, for the same rolls; its own
        generator and its own history (the recorded rolls are immutable tuples, shared)."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin._rng = _copy_random(self._rng)
        twin.history = list(self.history)
        return twin


class ScriptedDice(Dice):
    """Dice that return the faces a test gives, in order, and fail loudly otherwise.

    A scripted face larger than the die rolled is a mistake in the test, so it
    raises instead of silently producing an impossible game.
    """

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__(seed=None)
        self._faces = list(faces)
        self._next = 0

    def _face(self, sides: int) -> int:
        if self._next >= len(self._faces):
            raise DiceExhaustedError(
                f"scripted dice ran out after {len(self._faces)} rolls (asked for a d{sides})"
            )
        face = self._faces[self._next]
        if not 1 <= face <= sides:
            raise ValueError(f"scripted face {face} at position {self._next} is not on a d{sides}")
        self._next += 1
        return face

    def roll(self, sides: int, count: int = 1, reason: str = "") -> tuple[int, ...]:
        if sides < 1 or count < 0:
            raise ValueError(f"cannot roll {count}d{sides}: need sides >= 1 and count >= 0")
        face = self._face
        values = tuple([face(sides) for _ in range(count)])
        self.history.append(DieRoll(sides, values, reason))
        return values

    def d(self, sides: int, reason: str = "") -> int:
        if sides < 1:
            raise ValueError(f"cannot roll a d{sides}: need sides >= 1")
        value = self._face(sides)
        self.history.append(DieRoll(sides, (value,), reason))
        return value

    def clone(self) -> Self:
        """An independent copy with its own list of the scripted faces: extending one leaves the other's alone."""
        twin = super().clone()
        twin._faces = list(self._faces)
        return twin

    def extend(self, faces: Iterable[int]) -> None:
        """Append faces for rolls made later (tests script a game decision by decision)."""
        self._faces.extend(faces)

    @property
    def remaining(self) -> int:
        return len(self._faces) - self._next


def _copy_random(rng: random.Random) -> random.Random:
    """A generator in ``rng``'s state. ``Random.__new__`` alone skips the seeding that ``Random()`` would do
    only to have ``setstate`` overwrite it."""
    twin = random.Random.__new__(random.Random)
    twin.setstate(rng.getstate())
    return twin
