"""The table around a hull: what else is on it, whether a hull fits, how far it can slide."""

from __future__ import annotations

from collections.abc import Callable

from naval_env.rulesets.broadside.geometry import (
    EPS,
    Contact,
    Hull,
    SettledHull,
    edge_exit,
    sweep,
)
from naval_env.rulesets.broadside.state import GameState, Status


def obstacles(state: GameState, *skip: str) -> list[tuple[str, Hull]]:
    """Every hull on the board (ships afloat, icebergs) except those named."""
    found = [(s.id, s.shape) for s in state.ships.values() if s.status is Status.AFLOAT and s.id not in skip]
    found += [(b.id, b.shape) for b in state.icebergs if b.id not in skip]
    return found


def settle(others: list[tuple[str, Hull]]) -> list[tuple[str, SettledHull]]:
    """Obstacles to test hull after hull against, their corners and edge normals worked out once."""
    return [(other_id, SettledHull.of(other)) for other_id, other in others]


def has_room(state: GameState, hull: Hull, *skip: str) -> bool:
    """Whether ``hull`` lies on the board without overlapping any other hull."""
    return fits(state, hull, settle(obstacles(state, *skip)))


def room_test(state: GameState, *skip: str) -> Callable[[Hull], bool]:
    """:func:`has_room` for many hulls in turn while nothing else moves (the obstacles gathered once)."""
    others = settle(obstacles(state, *skip))
    return lambda hull: fits(state, hull, others)


def fits(state: GameState, hull: Hull, others: list[tuple[str, SettledHull]]) -> bool:
    """:func:`has_room` against obstacles already gathered."""
    if not hull.inside_board(state.width, state.height):
        return False
    for _, other in others:
        if other.overlapped_by(hull):
            return False
    return True


def free_run(state: GameState, hull: Hull, heading: float, limit: float, *skip: str) -> float:
    """How far ``hull`` can be pushed along ``heading`` (up to ``limit``) before it meets a hull or the edge."""
    run = min(limit, edge_exit(hull, heading, state.width, state.height))
    for _, other in obstacles(state, *skip):
        contact = sweep(hull, heading, run, other)
        if contact is not None:
            run = min(run, contact.distance)
    return max(run, 0.0)


def first_contact(hull: Hull, others: list[tuple[str, SettledHull]], limit: float) -> tuple[str, Contact] | None:
    """The first of ``others`` the hull meets moving ahead up to ``limit`` inches (ties: board order)."""
    best: tuple[str, Contact] | None = None
    heading = hull.heading
    for other_id, other in others:
        contact = other.swept_by(hull, heading, limit)
        if contact is not None and (best is None or contact.distance < best[1].distance - EPS):
            best = (other_id, contact)
    return best
