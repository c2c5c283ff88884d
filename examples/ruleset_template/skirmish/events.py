"""Events of `skirmish`; each reads as one line of the battle's story."""

from __future__ import annotations

from naval_env.core.events import (
    DamageDealt,
    Event,
    EventCatalog,
    GameEnded,
    StatusChanged,
    TurnStarted,
    event,
)


@event("shot", "{ship} fires at {target}: rolls {roll}, needs {need} -> {outcome}")
class Shot(Event):
    ship: str
    target: str
    roll: int
    need: int
    outcome: str    # "hit" or "miss"


@event("sailed", "{ship} sails from cell {start} to cell {end}")
class Sailed(Event):
    ship: str
    start: int
    end: int


CATALOG = EventCatalog([TurnStarted, Shot, Sailed, StatusChanged])

__all__ = ["CATALOG", "DamageDealt", "GameEnded", "Sailed", "Shot", "StatusChanged", "TurnStarted"]
