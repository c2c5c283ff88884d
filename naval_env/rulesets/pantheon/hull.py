"""Health, Wrecked, Sinking and boarding ties: everything that changes when a hull is hit or mended."""

from __future__ import annotations

from naval_env.core.events import DamageDealt, Event
from naval_env.rulesets.pantheon.events import Healed, SinkingProgress, StatusChanged, TieBroken
from naval_env.rulesets.pantheon.state import GameState, Ship, Status


def damage(state: GameState, target: Ship, amount: int, source: str | None, cause: str,
           events: list[Event]) -> None:
    """Take ``amount`` hull damage. At 0 health the ship is Wrecked; at minus its health, Sinking.

    Health never goes below minus the maximum, so "lost twice its health levels" is the floor.
    """
    if amount <= 0 or not target.status.fighting:
        return
    taken = min(amount, target.health + target.max_health)
    target.health -= taken
    events.append(DamageDealt(target.id, taken, source, cause))
    if target.health <= -target.max_health:
        set_status(state, target, Status.SINKING, events)
    elif target.health <= 0 and target.status is Status.AFLOAT:
        set_status(state, target, Status.WRECKED, events)


def heal(target: Ship, amount: int, cause: str, events: list[Event], state: GameState) -> None:
    """Restore health up to the maximum; a Wrecked ship back above 0 sails again."""
    restored = max(0, min(amount, target.max_health - target.health))
    if restored == 0:
        return
    target.health += restored
    events.append(Healed(target.id, restored, cause))
    if target.status is Status.WRECKED and target.health > 0:
        set_status(state, target, Status.AFLOAT, events)


def set_status(state: GameState, ship: Ship, status: Status, events: list[Event]) -> None:
    ship.status = status
    events.append(StatusChanged(ship.id, status.value))
    if status is Status.SINKING:
        untie(state, ship, "began to sink", events)
    if not status.on_board:
        untie(state, ship, f"{ship.id} left the board", events)
        state.occupancy.pop((ship.x, ship.y), None)


def tie(state: GameState, boarder: Ship, boarded: Ship) -> None:
    boarder.boarding = boarded.id
    boarded.boarded_by = boarder.id


def untie(state: GameState, ship: Ship, reason: str, events: list[Event]) -> None:
    """Break the tie this ship is part of, either as boarder or as boarded."""
    if ship.boarding is not None:
        other = state.ships[ship.boarding]
        ship.boarding, other.boarded_by = None, None
        events.append(TieBroken(ship.id, other.id, reason))
    if ship.boarded_by is not None:
        other = state.ships[ship.boarded_by]
        ship.boarded_by, other.boarding = None, None
        events.append(TieBroken(other.id, ship.id, reason))


def advance_sinking(state: GameState, ship: Ship, turns_to_sink: int, events: list[Event]) -> None:
    """Count one of a sinking ship's turns; after ``turns_to_sink`` it is removed from the board."""
    ship.sinking_turns += 1
    events.append(SinkingProgress(ship.id, ship.sinking_turns))
    if ship.sinking_turns >= turns_to_sink:
        set_status(state, ship, Status.SUNK, events)
