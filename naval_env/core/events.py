"""Typed events: what a step did. Rewards, text, replays and statistics are all read from them.

Each ruleset defines its events as frozen dataclasses deriving from :class:`Event`
and lists them in an :class:`EventCatalog` so replays can be parsed back (and so
they get the catalog's faster constructor).
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


def _init_through_slots(cls: type[Event]) -> None:
    """Give a frozen, slotted event class an ``__init__`` that sets each slot through its descriptor.

    The ``__init__`` that ``dataclass`` writes for a frozen class calls ``object.__setattr__`` per
    field, about twice as slow. The new one is generated the way ``dataclass`` generates its own, takes
    the same parameters and builds the same instance; a class with field defaults keeps the original.
    """
    fields = dataclasses.fields(cls)
    if any(f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING for f in fields):
        return
    names = [f.name for f in fields]
    namespace: dict[str, Any] = {f"_set_{name}": getattr(cls, name).__set__ for name in names}
    source = (f"def __init__(self, {', '.join(names)}):\n"
              + "".join(f"    _set_{name}(self, {name})\n" for name in names) if names
              else "def __init__(self):\n    pass\n")
    exec(source, namespace)  # noqa: S102 - source built from the dataclass's own field names
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[method-assign]


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "value") and hasattr(value, "name"):  # enums
        return value.value
    return value


class EventCatalog:
    """Maps ``kind`` back to its class so JSON-lines replays can be read again.

    Listing a class here also swaps its ``__init__`` for one that fills the slots directly
    (:func:`_init_through_slots`): engines build several events per decision.
    """

    def __init__(self, classes: Iterable[type[Event]]) -> None:
        self._by_kind: dict[str, type[Event]] = {}
        every: list[type[Event]] = [DamageDealt, GameEnded, *classes]
        for cls in every:
            if cls.kind in self._by_kind and self._by_kind[cls.kind] is not cls:
                raise ValueError(f"two event classes share kind {cls.kind!r}")
            self._by_kind[cls.kind] = cls
            _init_through_slots(cls)

    @property
    def classes(self) -> tuple[type[Event], ...]:
        """Every event class of the ruleset, the shared ones first."""
        return tuple(self._by_kind.values())

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
