"""The table around a hull: what else is on it, whether a hull fits, how far it can slide."""

from __future__ import annotations

from naval_env.rulesets.broadside.geometry import EPS, Contact, Hull, edge_exit, overlap, sweep
from naval_env.rulesets.broadside.state import GameState, Status


def obstacles(state: GameState, *skip: str) -> list[tuple[str, Hull]]:
    """Every hull on the board (ships afloat, icebergs) except those named."""
    found = [(s.id, s.shape) for s in state.ships.values() if s.status is Status.AFLOAT and s.id not in skip]
    found += [(b.id, b.shape) for b in state.icebergs if b.id not in skip]
    return found


def has_room(state: GameState, hull: Hull, *skip: str) -> bool:
    """Whether ``hull`` lies on the board without overlapping any other hull."""
    return fits(state, hull, obstacles(state, *skip))


def fits(state: GameState, hull: Hull, others: list[tuple[str, Hull]]) -> bool:
    """:func:`has_room` against obstacles already gathered."""
    if not hull.inside_board(state.width, state.height):
        return False
    return not any(overlap(hull, other) for _, other in others)


def free_run(state: GameState, hull: Hull, heading: float, limit: float, *skip: str) -> float:
    """How far ``hull`` can be pushed along ``heading`` (up to ``limit``) before it meets a hull or the edge."""
    run = min(limit, edge_exit(hull, heading, state.width, state.height))
    for _, other in obstacles(state, *skip):
        contact = sweep(hull, heading, run, other)
        if contact is not None:
            run = min(run, contact.distance)
    return max(run, 0.0)


def first_contact(hull: Hull, others: list[tuple[str, Hull]], limit: float) -> tuple[str, Contact] | None:
    """The first of ``others`` the hull meets moving ahead up to ``limit`` inches (ties: board order)."""
    best: tuple[str, Contact] | None = None
    heading = hull.heading
    for other_id, other in others:
        contact = sweep(hull, heading, limit, other)
        if contact is not None and (best is None or contact.distance < best[1].distance - EPS):
            best = (other_id, contact)
    return best
