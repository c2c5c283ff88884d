"""Scenario set-up on a square grid, shared by the grid rulesets: entry zones and the checks every
such scenario needs (board size, side names, zones on the board, ships per side, free squares, and
room in each zone for the ships drawn into it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, Literal, Protocol, TypeVar

from pydantic import Field

from naval_env.core.config import StrictModel

#: An eight-point compass direction, as configs and positions write it.
Direction = Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
ShipSetupT = TypeVar("ShipSetupT")


class Zone(StrictModel):
    """Inclusive rectangle a side may enter from."""

    x: tuple[int, int]
    y: tuple[int, int]

    def contains(self, x: int, y: int) -> bool:
        return self.x[0] <= x <= self.x[1] and self.y[0] <= y <= self.y[1]


class GridSideSetup(StrictModel, Generic[ShipSetupT]):
    """A side of a grid scenario: its name, the zone its ships enter from, the facing they start with, and
    the ruleset's set-up of each of its ships."""

    name: str = Field(pattern=r"^[a-z][a-z0-9]*$")
    zone: Zone
    facing: Direction
    ships: list[ShipSetupT] = Field(min_length=1)


class GridSide(Protocol):
    """What the checks read of a side; read-only, so each ruleset's own side model fits."""

    @property
    def name(self) -> str: ...

    @property
    def zone(self) -> Zone: ...

    @property
    def ships(self) -> Sequence[Any]: ...


def check_grid_scenario(name: str, board: tuple[int, int], sides: Sequence[GridSide], vessels: Mapping[str, Any],
                        max_ships_per_side: int, check_ship: Callable[[str, Any], None]) -> None:
    """Raise ``ValueError`` naming the field of scenario ``name`` that cannot be set up.

    ``check_ship(where, ship)`` adds the ruleset's own checks of one ship (upgrades, crew).
    """
    width, height = board
    if not (4 <= width <= 64 and 4 <= height <= 64):
        raise ValueError(f"scenarios.{name}.board: {board} must be between 4x4 and 64x64")
    names = [side.name for side in sides]
    if len(set(names)) != len(names):
        raise ValueError(f"scenarios.{name}.sides: side names must differ, got {names}")
    taken: set[tuple[int, int]] = set()
    for side in sides:
        where = f"scenarios.{name}.sides[{side.name}]"
        zone = side.zone
        if not (0 <= zone.x[0] <= zone.x[1] < width and 0 <= zone.y[0] <= zone.y[1] < height):
            raise ValueError(f"{where}.zone: {zone} does not fit the {width}x{height} board")
        if len(side.ships) > max_ships_per_side:
            raise ValueError(f"{where}.ships: {len(side.ships)} ships; at most "
                             f"house_rules.max_ships_per_side = {max_ships_per_side}")
        for i, ship in enumerate(side.ships):
            if ship.vessel not in vessels:
                raise ValueError(f"{where}.ships[{i}].vessel: unknown vessel {ship.vessel!r}; "
                                 f"choose one of {sorted(vessels)}")
            check_ship(f"{where}.ships[{i}]", ship)
            if ship.position is not None:
                x, y = ship.position
                if not zone.contains(x, y):
                    raise ValueError(f"{where}.ships[{i}].position {ship.position} is outside the zone {zone}")
                if (x, y) in taken:
                    raise ValueError(f"{where}.ships[{i}].position {ship.position} is already taken")
                taken.add((x, y))
    check_zone_room(name, sides, taken)


def check_zone_room(name: str, sides: Sequence[GridSide], reserved: set[tuple[int, int]]) -> None:
    """Refuse a zone that could run out of squares for the ships drawn into it.

    A ship without a position is drawn on a free square of its side's zone, side after side, once the
    ``reserved`` squares (ships with a position) are taken. Where zones overlap, an earlier side's
    ships may land on a later side's squares: each later side counts them at their worst.
    """
    earlier: list[tuple[set[tuple[int, int]], int]] = []  # free squares and ships drawn, per side so far
    for side in sides:
        zone = side.zone
        free = {(x, y) for x in range(zone.x[0], zone.x[1] + 1) for y in range(zone.y[0], zone.y[1] + 1)} - reserved
        drawn = sum(1 for ship in side.ships if ship.position is None)
        lost = sum(min(count, len(free & squares)) for squares, count in earlier)
        if len(free) - lost < drawn:
            shared = f", of which earlier sides' ships may take {lost}" if lost else ""
            raise ValueError(
                f"scenarios.{name}.sides[{side.name}].zone: {zone} has {len(free)} free square(s){shared}, "
                f"too few for the {drawn} ship(s) placed at random in it; widen the zone or give ships a position")
        earlier.append((free, drawn))
