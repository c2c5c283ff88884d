"""Movement: the sails and the wind, the base move, maneuver paths, ram lines and drifting.

Every maneuver first turns the ship on its stern square (the bow swings round),
then sails straight ahead; a path is legal when every square the ship would take
is on the map and free of other ships. The base move instead stops short of
anything in its way. Routes are precomputed per (turn, squares, facing, size) as
offsets from the bow, and every maneuver's route is kept per (facing, size, movement)
in a :class:`RouteTable`, so the legality of each maneuver is a few comparisons and
one set test against the other ships seen from the bow.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from naval_env.core.grid import STEP, points_between
from naval_env.rulesets.flotilla.config import HouseRules
from naval_env.rulesets.flotilla.geometry import Square, footprint, pivot
from naval_env.rulesets.flotilla.state import CALM, GameState, Ship

if TYPE_CHECKING:  # actions builds its route table from this module
    from naval_env.rulesets.flotilla.actions import Maneuver


def wind_modifier(ship: Ship, wind: int, rules: HouseRules) -> int:
    """Sails only: +bonus sailing with the wind, -bonus against it, 0 across it or in a calm."""
    if not ship.sails or wind == CALM:
        return 0
    return _wind_bonus((ship.facing - wind) % 8, rules.wind_with_within, rules.sails_bonus)


@lru_cache(maxsize=256)  # eight headings off the wind, one pair of house rules
def _wind_bonus(heading: int, with_within: int, bonus: int) -> int:
    """:func:`wind_modifier` of a ship ``heading`` compass points clockwise of the wind."""
    points = points_between(heading, 0)
    if points <= with_within:
        return bonus
    if points >= 4 - with_within:
        return -bonus
    return 0


def movement_now(ship: Ship, wind: int, rules: HouseRules) -> int:
    """Squares of the base move this round: class movement, less propulsion hits, with the wind."""
    # Ship.movement and wind_modifier written out: the observer and the masks ask several times a decision.
    squares = ship.base_movement - ship.propulsion_hits
    if squares < 0:  # noqa: PLR1730 - hot path: a comparison is cheaper than a call
        squares = 0
    if ship.sails and wind != CALM:
        squares += _wind_bonus((ship.facing - wind) % 8, rules.wind_with_within, rules.sails_bonus)
    return squares if squares > 0 else 0  # noqa: FURB136 - hot path: a comparison is cheaper than a call


def is_free(state: GameState, square: Square, ship_id: str) -> bool:
    x, y = square
    if not (0 <= x < state.width and 0 <= y < state.height):
        return False
    occupant = state.occupancy.get(square)
    return occupant is None or occupant == ship_id


def fits(state: GameState, squares: Iterable[Square], ship_id: str) -> bool:
    """Every square on the map and free of other ships (:func:`is_free`, without a call per square)."""
    width, height, occupancy = state.width, state.height, state.occupancy
    for x, y in squares:
        if not (0 <= x < width and 0 <= y < height):
            return False
        occupant = occupancy.get((x, y))
        if occupant is not None and occupant != ship_id:
            return False
    return True


@lru_cache(maxsize=1 << 12)  # 8 facings x a few sizes, turns and lengths: a few hundred in the armada
def route(turn: int, squares: int, facing: int, size: int) -> tuple[tuple[Square, ...], tuple[Square, ...], int]:
    """Offsets from the bow: the squares that must be free, the bow's path (start first), and the end facing."""
    end = (facing + turn) % 8
    checks: list[Square] = []
    path: list[Square] = [(0, 0)]
    x, y = 0, 0
    if turn:
        x, y = pivot(0, 0, facing, size, end)
        checks += footprint(x, y, end, size)
        if (x, y) != (0, 0):
            path.append((x, y))
    dx, dy = STEP[end]
    for _ in range(squares):
        x, y = x + dx, y + dy
        checks.append((x, y))
        path.append((x, y))
    return tuple(checks), tuple(path), end


def can_sail(state: GameState, ship: Ship, maneuver: Maneuver, movement: int) -> bool:
    """Whether the whole maneuver fits (the base move always can: it stops short)."""
    if maneuver.base:
        return True
    checks = route(maneuver.turn, maneuver.squares(movement), ship.facing, ship.size)[0]
    x, y = ship.x, ship.y
    return fits(state, ((x + dx, y + dy) for dx, dy in checks), ship.id)


class SeaRoute(NamedTuple):
    """One maneuver from a given facing and ship size over a given move, as offsets from the bow."""

    clear: frozenset[Square]    # squares that must be open sea (the base move: those it may stop short of)
    low_x: int                  # the bounding box of ``clear`` and the bow
    low_y: int
    high_x: int
    high_y: int
    path: tuple[Square, ...]    # the bow's path, start first
    facing: int                 # the facing at the end
    base: bool                  # the base move: stops short of the first blocked square


def sea_route(maneuver: Maneuver, movement: int, facing: int, size: int) -> SeaRoute:
    """:func:`route` with the bounding box of its squares, for a map-edge test without visiting each square."""
    checks, path, end = route(maneuver.turn, maneuver.squares(movement), facing, size)
    xs, ys = [0, *(x for x, _ in checks)], [0, *(y for _, y in checks)]
    return SeaRoute(frozenset(checks), min(xs), min(ys), max(xs), max(ys), path, end, maneuver.base)


End = tuple[int, int, int]  # where a route leaves the bow, and the facing: (x, y, facing)
_OPEN_SEA_LIMIT = 1 << 13   # bow squares x headings x moves of open sea kept per config (about 6 MB)
_ROUTES_LIMIT = 1 << 10     # (facing, size, movement) route sets kept per config: a few dozen in play


class RouteTable:
    """Every maneuver's :class:`SeaRoute` by (facing, ship size, movement), worked out on first use."""

    def __init__(self, maneuvers: tuple[Maneuver, ...]) -> None:
        self.maneuvers = maneuvers
        self._routes: dict[tuple[int, int, int], tuple[SeaRoute, ...]] = {}
        self._reach: dict[tuple[int, int, int], frozenset[Square]] = {}  # every square any of the routes needs
        # With no other ship on any route only the map's edges matter: the ends depend on the bow square alone.
        self._open_sea: dict[tuple[int, ...], tuple[End | None, ...]] = {}

    def routes(self, facing: int, size: int, movement: int) -> tuple[SeaRoute, ...]:
        key = (facing, size, movement)
        found = self._routes.get(key)
        if found is None:
            if len(self._routes) >= _ROUTES_LIMIT:
                self._routes.clear()
                self._reach.clear()
            found = self._routes[key] = tuple(sea_route(m, movement, facing, size) for m in self.maneuvers)
            self._reach[key] = frozenset().union(*(route.clear for route in found))
        return found

    def ends(self, state: GameState, ship: Ship, movement: int) -> list[End | None]:
        """:func:`sail_ends` of every maneuver of ``ship`` over ``movement``."""
        facing, size, x, y, me = ship.facing, ship.size, ship.x, ship.y, ship.id
        routes = self.routes(facing, size, movement)
        reach = self._reach[(facing, size, movement)]
        for (sx, sy), owner in state.occupancy.items():
            if owner != me and (sx - x, sy - y) in reach:
                return sail_ends(state, ship, routes)
        key = (facing, size, movement, x, y, state.width, state.height)
        found = self._open_sea.get(key)
        if found is None:
            if len(self._open_sea) >= _OPEN_SEA_LIMIT:
                self._open_sea.clear()
            found = self._open_sea[key] = tuple(_ends(routes, x, y, state.width, state.height, frozenset()))
        return list(found)


def sail_ends(state: GameState, ship: Ship, routes: tuple[SeaRoute, ...]) -> list[End | None]:
    """Where each route leaves the bow, and the facing: (x, y, facing); None when it cannot be sailed."""
    x, y, me = ship.x, ship.y, ship.id
    blocked = {(sx - x, sy - y) for (sx, sy), owner in state.occupancy.items() if owner != me}
    return _ends(routes, x, y, state.width, state.height, blocked)


def _ends(routes: tuple[SeaRoute, ...], x: int, y: int, width: int, height: int, blocked: AbstractSet[Square]
          ) -> list[End | None]:
    """:func:`sail_ends` with the other ships ``blocked`` seen from the bow (x, y): with the map's edges also
    seen from the bow, a route is then four comparisons and one set test."""
    left, top, right, bottom = -x, -y, width - 1 - x, height - 1 - y
    ends: list[End | None] = []
    for clear, low_x, low_y, high_x, high_y, path, facing, base in routes:
        if base:
            end_x = end_y = 0
            for dx, dy in path[1:]:
                if not (left <= dx <= right and top <= dy <= bottom) or (dx, dy) in blocked:
                    break
                end_x, end_y = dx, dy
            ends.append((x + end_x, y + end_y, facing))
        elif left <= low_x and high_x <= right and top <= low_y and high_y <= bottom and blocked.isdisjoint(clear):
            dx, dy = path[-1]
            ends.append((x + dx, y + dy, facing))
        else:
            ends.append(None)
    return ends


def plan(state: GameState, ship: Ship, maneuver: Maneuver, movement: int) -> tuple[list[Square], int] | None:
    """Bow squares along the maneuver (start first) and the final facing; None when it cannot be sailed.

    The base move (``maneuver.base``) is never None: it stops before the first blocked square.
    """
    _, offsets, facing = route(maneuver.turn, maneuver.squares(movement), ship.facing, ship.size)
    if maneuver.base:
        path = [(ship.x, ship.y)]
        for dx, dy in offsets[1:]:
            square = (ship.x + dx, ship.y + dy)
            if not is_free(state, square, ship.id):
                break
            path.append(square)
        return path, facing
    if not can_sail(state, ship, maneuver, movement):
        return None
    return [(ship.x + dx, ship.y + dy) for dx, dy in offsets], facing


def ram_line(state: GameState, ship: Ship, target: Ship, movement: int) -> int | None:
    """Squares the rammer sails before striking ``target`` straight ahead, or None if it cannot reach it."""
    struck = first_struck(state, ship, movement)
    return struck[0] if struck is not None and struck[1] == target.id else None


def first_struck(state: GameState, ship: Ship, movement: int) -> tuple[int, str] | None:
    """The ship ``ship`` would strike sailing straight ahead up to ``movement`` squares: (squares sailed
    before, its id); None when the map ends first or nothing lies ahead. One walk serves every target."""
    dx, dy = STEP[ship.facing]
    x, y = ship.x, ship.y
    for moved in range(movement):
        x, y = x + dx, y + dy
        if not (0 <= x < state.width and 0 <= y < state.height):
            return None
        occupant = state.occupancy.get((x, y))
        if occupant is None or occupant == ship.id:
            continue
        return moved, occupant
    return None


def in_ram_line(state: GameState, rammer: Ship, squares: tuple[Square, ...], target_id: str, movement: int) -> bool:
    """Whether ``rammer`` could ram a ship standing on ``squares`` (``target_id``'s squares elsewhere count
    as open sea): one of them straight ahead within ``movement``, nothing between."""
    return not ram_reach(state, rammer, target_id, movement).isdisjoint(squares)


def ram_reach(state: GameState, rammer: Ship, target_id: str, movement: int) -> frozenset[Square]:
    """The squares straight ahead of ``rammer`` where ``target_id`` could stand and be rammed: within
    ``movement``, up to and including the first square off the map or held by a third ship (a target
    there would be struck first). One walk serves every position the target might take."""
    dx, dy = STEP[rammer.facing]
    x, y = rammer.x, rammer.y
    width, height, occupancy = state.width, state.height, state.occupancy
    reach = []
    for _ in range(movement):
        x, y = x + dx, y + dy
        reach.append((x, y))
        if not (0 <= x < width and 0 <= y < height):
            break
        occupant = occupancy.get((x, y))
        if occupant is not None and occupant != rammer.id and occupant != target_id:
            break
    return frozenset(reach)


def drift_path(state: GameState, ship: Ship, direction: int, squares: int) -> list[Square]:
    """Bow squares of a captainless ship carried by the current (start first); stops before obstacles."""
    dx, dy = STEP[direction]
    path = [(ship.x, ship.y)]
    for step in range(1, squares + 1):
        moved = tuple((x + step * dx, y + step * dy) for x, y in ship.squares)
        if not fits(state, moved, ship.id):
            break
        path.append(moved[0])
    return path


def place(state: GameState, ship: Ship, x: int, y: int, facing: int) -> None:
    """Move a ship (bow to (x, y), new facing) and update its squares and the occupancy."""
    occupancy = state.occupancy
    for square in ship.squares:
        if occupancy.get(square) == ship.id:
            del occupancy[square]
    ship.x, ship.y, ship.facing = x, y, facing
    ship.squares = footprint(x, y, facing, ship.size)
    for square in ship.squares:
        occupancy[square] = ship.id
