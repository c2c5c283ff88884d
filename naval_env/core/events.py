"""Typed events: what a step did. Rewards, text, replays and statistics are all read from them.

Each ruleset declares its events with :func:`event` (a frozen, slotted dataclass
deriving from :class:`Event`, named in JSON by its ``kind``, its story a template over
its fields, with :func:`when` and :func:`listed` parts for words that hang on one field,
or a ``text`` method of its own) and lists them in an :class:`EventCatalog` so replays can be parsed
back (and so they get the catalog's faster constructor).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar, dataclass_transform

from naval_env.core.grid import Compass
from naval_env.core.slots import init_through_slots

EventT = TypeVar("EventT", bound="Event")


@dataclass(frozen=True, slots=True)
class When:
    """A part of an event's story that hangs on one field: ``then`` when the field's value is truthy (true,
    non-zero, not None, not empty), else ``otherwise``; both are templates over the event's fields."""

    field: str
    then: str
    otherwise: str = ""

    def fill(self, values: dict[str, Any]) -> str:
        return (self.then if values[self.field] else self.otherwise).format_map(values)


def when(field: str, then: str, otherwise: str = "") -> When:
    """``@event("ship_lost", "{ship} is {status}{by}", by=when("by", " by {by}"))``: see :class:`When`."""
    return When(field, then, otherwise)


@dataclass(frozen=True, slots=True)
class Listed:
    """A part of an event's story that lists a tuple field's items, joined by ``sep`` (``otherwise`` when
    the tuple is empty)."""

    field: str
    sep: str = ", "
    otherwise: str = ""

    def fill(self, values: dict[str, Any]) -> str:
        return self.sep.join(str(item) for item in values[self.field]) or self.otherwise


def listed(field: str, sep: str = ", ", otherwise: str = "") -> Listed:
    """``@event("round", "== round {round}: {order}", order=listed("order"))``: see :class:`Listed`."""
    return Listed(field, sep, otherwise)


Part = When | Listed


@dataclass(frozen=True, slots=True)
class Event:
    """Base class. ``kind`` names the event in JSON; ``text()`` is its one-line story."""

    kind: ClassVar[str] = "event"
    #: :meth:`str.format` template of ``text()`` over the fields (``"{ship} is now {status}"``); None: the
    #: class writes its own ``text`` (or reads as ``kind(field=value, ...)``).
    template: ClassVar[str | None] = None
    #: The template's :func:`when` and :func:`listed` parts by name; a part named like a field takes its place
    #: in the text (except the names ``@dataclass`` reads, such as ``order``: give such a part another name).
    parts: ClassVar[dict[str, Part]] = {}

    def text(self) -> str:
        if self.template is not None:
            values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
            if self.parts:
                values |= {name: part.fill(values) for name, part in self.parts.items()}
            return self.template.format_map(values)
        fields = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in dataclasses.fields(self))
        return f"{self.kind}({fields})"

    def to_dict(self) -> dict[str, Any]:
        payload = {f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return {"kind": self.kind, **payload}


@dataclass_transform(frozen_default=True)
def event(kind: str, template: str | None = None, **parts: Part) -> Callable[[type[EventT]], type[EventT]]:
    """Declare an event class: ``@event("status", "{ship} is now {status}")`` over an :class:`Event`
    subclass makes it a frozen, slotted dataclass named ``kind`` in JSON, whose ``text()`` fills
    ``template`` with its fields and its :func:`when` and :func:`listed` ``parts`` (leave the template out when the class
    writes its own ``text``)."""

    def declare(cls: type[EventT]) -> type[EventT]:
        cls.kind = kind
        if template is not None:
            cls.template = template
        if parts:
            cls.parts = parts
        return dataclass(frozen=True, slots=True)(cls)

    return declare


# ------------------------------------------------------------------ shared by every ruleset
@event("damage", "{target} takes {amount} damage{source} ({cause})", source=when("source", " from {source}"))
class DamageDealt(Event):
    """Hull damage to ``target``; ``source`` is the ship whose action caused it (None: the sea)."""

    target: str
    amount: int
    source: str | None
    cause: str


@event("game_ended", "game over: {winner} ({reason})", winner=when("winner", "{winner}", "draw"))
class GameEnded(Event):
    """The game is over: ``winner`` is a side name, or None for a draw."""

    winner: str | None
    reason: str


# ----------------------------------------------- shapes several rulesets share (listed in their catalogs)
@event("turn", "-- round {round}: {ship}'s turn")
class TurnStarted(Event):
    """``ship`` begins its turn of ``round`` (a ruleset may tell it in other words: subclass with a template)."""

    ship: str
    round: int


@event("status", "{ship} is now {status}")
class StatusChanged(Event):
    """``ship``'s status (the ruleset's word for it, e.g. ``sinking``) changed to ``status``."""

    ship: str
    status: str


@event("moved")
class Moved(Event):
    """``ship`` moved square by square along ``path`` (start first), its facing (a :class:`Compass` value)
    from ``facing_from`` to ``facing_to``. A ruleset subclasses it with its own fields and ``text``."""

    ship: str
    path: tuple[tuple[int, int], ...]
    facing_from: int
    facing_to: int

    def turning(self) -> str:
        """``", turning N->E"`` when the facing changed, else empty."""
        if self.facing_from == self.facing_to:
            return ""
        return f", turning {Compass(self.facing_from).name}->{Compass(self.facing_to).name}"


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "value") and hasattr(value, "name"):  # enums
        return value.value
    return value


class EventCatalog:
    """Maps ``kind`` back to its class so JSON-lines replays can be read again.

    Listing a class here also swaps its ``__init__`` for one that fills the slots directly
    (:func:`~naval_env.core.slots.init_through_slots`): engines build several events per decision.
    """

    def __init__(self, classes: Iterable[type[Event]]) -> None:
        self._by_kind: dict[str, type[Event]] = {}
        every: list[type[Event]] = [DamageDealt, GameEnded, *classes]
        for cls in every:
            if cls.kind in self._by_kind and self._by_kind[cls.kind] is not cls:
                raise ValueError(f"two event classes share kind {cls.kind!r}")
            self._by_kind[cls.kind] = cls
            init_through_slots(cls)

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
