"""Typed events: what a step did. Rewards, text, replays and statistics are all read from them.

Each ruleset defines its events as frozen dataclasses deriving from :class:`Event`
and lists them in an :class:`EventCatalog` so replays can be parsed back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Event:
    """Base class. ``kind`` names the event in JSON; ``text()`` is its one-line story."""

    kind: ClassVar[str] = "event"

    def text(self) -> str:
        fields = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))
        return f"{self.kind}({fields})"

    def to_dict(self) -> dict[str, Any]:
        payload = {f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return {"kind": self.kind, **payload}


@dataclass(frozen=True, slots=True)
class DamageDealt(Event):
    """Hull damage to ``target``; ``source`` is the ship whose action caused it (None: the sea)."""

    kind: ClassVar[str] = "damage"
    target: str
    amount: int
    source: str | None
    cause: str

    def text(self) -> str:
        by = f" from {self.source}" if self.source else ""
        return f"{self.target} takes {self.amount} damage{by} ({self.cause})"


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """The game is over: ``winner`` is a side name, or None for a draw."""

    kind: ClassVar[str] = "game_ended"
    winner: str | None
    reason: str

    def text(self) -> str:
        return f"game over: {self.winner or 'draw'} ({self.reason})"


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "value") and hasattr(value, "name"):  # enums
        return value.value
    return value


class EventCatalog:
    """Maps ``kind`` back to its class so JSON-lines replays can be read again."""

    def __init__(self, classes: Iterable[type[Event]]) -> None:
        self._by_kind: dict[str, type[Event]] = {}
        every: list[type[Event]] = [DamageDealt, GameEnded, *classes]
        for cls in every:
            if cls.kind in self._by_kind and self._by_kind[cls.kind] is not cls:
                raise ValueError(f"two event classes share kind {cls.kind!r}")
            self._by_kind[cls.kind] = cls

    def from_dict(self, payload: dict[str, Any]) -> Event:
        data = dict(payload)
        kind = data.pop("kind")
        try:
            cls = self._by_kind[kind]
        except KeyError:
            raise ValueError(f"unknown event kind {kind!r}; known: {sorted(self._by_kind)}") from None
        hints = {f.name: f.type for f in dataclasses.fields(cls)}
        for name, value in data.items():
            if isinstance(value, list) and "tuple" in str(hints.get(name, "")):
                data[name] = tuple(tuple(v) if isinstance(v, list) else v for v in value)
        return cls(**data)
