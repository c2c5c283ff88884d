"""Plain-data game state of `skirmish`: copyable, comparable and JSON-ready."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum, IntEnum
from typing import Any

from naval_env.core.state_parts import TurnOrderState


class Status(str, Enum):
    AFLOAT = "afloat"
    SUNK = "sunk"       # hull 0: off the track, its cell free

    @property
    def fighting(self) -> bool:
        return self is Status.AFLOAT


class Phase(IntEnum):
    ORDERS = 0  # the one decision of a turn: a shot (or none), then a maneuver


@dataclass(slots=True)
class Boat:
    id: str
    side: str
    ahead: int      # +1: the first side sails toward higher cells; -1: the second side, toward lower ones
    cell: int       # a sunk boat keeps the cell it went down on (it holds it no longer)
    hull: int
    max_hull: int
    status: Status = Status.AFLOAT

    def copy(self) -> Boat:
        return dataclasses.replace(self)


@dataclass(slots=True)
class GameState(TurnOrderState):
    track_length: int
    sides: tuple[str, str]
    ships: dict[str, Boat]      # agent order: the first side's boats, then the second's
    order: list[str]            # turn order: red_0, blue_0, red_1, blue_1 (boats alternate sides)
    round: int = 1
    turn: int = 0               # index into ``order`` of the boat deciding
    phase: Phase = Phase.ORDERS
    winner: str | None = None
    end_reason: str | None = None
    ended: bool = False

    def copy(self) -> GameState:
        return dataclasses.replace(self, ships={k: boat.copy() for k, boat in self.ships.items()},
                                   order=list(self.order))

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["sides"] = list(self.sides)
        data["phase"] = self.phase.name.lower()
        for boat in data["ships"].values():
            boat["status"] = boat["status"].value
        return data

    def holder(self, cell: int) -> Boat | None:
        """The boat afloat on ``cell``, if any."""
        return next((b for b in self.ships.values() if b.cell == cell and b.status.fighting), None)


def turn_order(ships: dict[str, Boat], sides: tuple[str, str]) -> list[str]:
    """Boats alternate sides: each side's first boat, then each side's second, ..."""
    def key(ship_id: str) -> tuple[int, int]:
        side, index = ship_id.rsplit("_", 1)
        return int(index), sides.index(side)

    return sorted(ships, key=key)
