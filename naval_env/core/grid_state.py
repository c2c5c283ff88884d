"""What the square-grid rulesets' battle states share: the squares their ships hold.

``crew_phase``, ``flotilla`` and ``pantheon`` keep an ``occupancy`` map from each held square to the
ship on it. :class:`OccupancyState` is the mixin their state dataclasses take it from, with the
JSON form every one of them writes (square keys do not survive JSON, so the map becomes rows).
"""

from __future__ import annotations

import dataclasses
from typing import Any

Square = tuple[int, int]


class OccupancyState:
    """Mixin for a slotted state dataclass with an ``occupancy`` field (square -> ship id)."""

    __slots__ = ()
    occupancy: dict[Square, str]

    def to_dict(self) -> dict[str, Any]:
        """Every field as JSON-ready data; ``occupancy`` as ``[x, y, ship]`` rows in square order."""
        data = dataclasses.asdict(self)  # type: ignore[call-overload]
        data["occupancy"] = [[x, y, ship] for (x, y), ship in sorted(self.occupancy.items())]
        return data
