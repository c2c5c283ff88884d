"""Hull points: damage down to minus half the maximum, sinking, sunk, and mending."""

from __future__ import annotations

from naval_env.core.events import DamageDealt, Event
from naval_env.rulesets.crew_phase.events import StatusChanged
from naval_env.rulesets.crew_phase.grapple import end_grapples_of
from naval_env.rulesets.crew_phase.state import GameState, Ship, Status


def damage_hull(state: GameState, ship: Ship, amount: int, source: str | None, cause: str,
                events: list[Event]) -> int:
    """Take hull damage; returns the points actually lost.

    Unlike a creature at 0 hit points, a ship keeps counting damage below 0, down to
    minus half its maximum. At 0 or below it is sinking; at minus half it sinks.
    """
    if amount <= 0 or ship.status is Status.SUNK:
        return 0
    taken = min(amount, ship.hp - ship.floor)
    ship.hp -= taken
    events.append(DamageDealt(ship.id, taken, source, cause))
    if ship.hp <= ship.floor:
        set_status(state, ship, Status.SUNK, events)
    elif ship.hp <= 0 and ship.status is Status.AFLOAT:
        set_status(state, ship, Status.SINKING, events)
    return taken


def restore_hull(state: GameState, ship: Ship, amount: int, events: list[Event]) -> int:
    """Add hull points up to the maximum; a sinking ship mended above 0 is afloat again."""
    restored = max(0, min(amount, ship.max_hp - ship.hp))
    ship.hp += restored
    if ship.status is Status.SINKING and ship.hp > 0:
        set_status(state, ship, Status.AFLOAT, events)
    return restored


def sinking_damage(ship: Ship, divisor: int) -> int:
    """Damage a sinking ship takes at the start of each of its turns: a tenth of its maximum, rounded down."""
    return ship.max_hp // divisor


def set_status(state: GameState, ship: Ship, status: Status, events: list[Event]) -> None:
    ship.status = status
    events.append(StatusChanged(ship.id, status.value))
    if status is Status.SUNK:
        state.occupancy.pop((ship.x, ship.y), None)
        end_grapples_of(state, ship.id, f"{ship.id} sank", events)
