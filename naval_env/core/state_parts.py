"""Parts the engines' battle-state dataclasses share, as mixins (slotted, no fields of their own).

- :class:`TurnOrderState`: states where ships decide one after another along ``order``
  (``crew_phase``, ``pantheon``, ``pursuit``): ``current`` is ``order[turn]``.
- :class:`OccupancyState`: square-grid states (``crew_phase``, ``flotilla``, ``pantheon``) whose
  ``occupancy`` maps each held square to the ship on it; square keys do not survive JSON, so
  ``to_dict`` writes the map as rows.
"""

from __future__ import annotations

import dataclasses
from typing import Any

Square = tuple[int, int]


class TurnOrderState:
    """Mixin for a state with ``order`` (agent ids) and ``turn`` (the index of the one deciding)."""

    __slots__ = ()
    order: list[str]
    turn: int

    @property
    def current(self) -> str:
        return self.order[self.turn]


class OccupancyState:
    """Mixin for a slotted state dataclass with an ``occupancy`` field (square -> ship id)."""

    __slots__ = ()
    occupancy: dict[Square, str]

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON-ready data; ``occupancy`` as ``[x, y, ship]`` rows in square order."""
        data = dataclasses.asdict(self)  # type: ignore[call-overload]
        data["occupancy"] = [[x, y, ship] for (x, y), ship in sorted(self.occupancy.items())]
        return data
