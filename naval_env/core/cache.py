"""Tables derived from one config object, built once and dropped when the config is.

Loaded configs are frozen pydantic models, so what the rules derive from one (action
tables, observation specs, masks) never changes and is worth keeping. It is kept by
the object's identity, not its value: comparing or hashing whole configs costs more than
the tables save, and a copy made with changes (``model_copy``) must get tables of its
own. The cache holds the config only weakly, so an env made and dropped leaves nothing
behind. A value must not refer back to its config, or the two would keep each other alive.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

KeyT = TypeVar("KeyT")
ValueT = TypeVar("ValueT")
ShipT = TypeVar("ShipT")


class PerObjectCache(Generic[KeyT, ValueT]):
    """``cache(obj)``: ``build(obj)``, computed on the first call for this object and kept while it lives."""

    def __init__(self, build: Callable[[KeyT], ValueT]) -> None:
        self._build = build
        self._entries: dict[int, tuple[weakref.ref[KeyT], ValueT]] = {}

    def __call__(self, obj: KeyT) -> ValueT:
        entry = self._entries.get(id(obj))
        if entry is not None and entry[0]() is obj:
            return entry[1]
        value = self._build(obj)
        key = id(obj)
        ref = weakref.ref(obj, lambda dead: self._forget(key, dead))
        self._entries[key] = (ref, value)
        return value

    def __getstate__(self) -> dict[str, Any]:
        # Entries are keyed by id() and held by weak references, neither of which means anything in a copy or
        # another process (and weak references cannot be pickled): a pickled or deep-copied cache starts empty
        # and rebuilds its tables for the copied objects on first use.
        return {"_build": self._build}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._build = state["_build"]
        self._entries = {}

    def _forget(self, key: int, dead: weakref.ref[KeyT]) -> None:
        entry = self._entries.get(key)
        if entry is not None and entry[0] is dead:  # not a newer object that took the same id
            del self._entries[key]

    def __len__(self) -> int:
        """Objects with tables now (the memory tests watch that it stays flat)."""
        return len(self._entries)


def _empty_table(_: Any) -> dict[str, Any]:
    """A config's scenario table before any scenario is built (a module function, so caches pickle)."""
    return {}


class PerScenarioCache(Generic[KeyT, ValueT]):
    """``cache(config, scenario_name)``: ``build(config, scenario_name)``, computed once per config object
    and scenario (a config names few scenarios, so each config's table stays small)."""

    def __init__(self, build: Callable[[KeyT, str], ValueT]) -> None:
        self._build = build
        self._tables: PerObjectCache[KeyT, dict[str, ValueT]] = PerObjectCache(_empty_table)

    def __call__(self, config: KeyT, scenario_name: str) -> ValueT:
        table = self._tables(config)
        found = table.get(scenario_name)
        if found is None:
            found = table[scenario_name] = self._build(config, scenario_name)
        return found


def scenario_ships(build_ship: Callable[[Any, Any, Any, str, int], ShipT]) -> PerScenarioCache[Any, tuple[ShipT, ...]]:
    """Each scenario's ship templates, built once per config: ``build_ship(config, side, setup, ship_id, slot)``
    for every ship the scenario sets up, in agent order (``ship_id`` ``<side>_<i>``, ``slot`` counting on
    across the sides). An engine copies the templates into each new game and places them."""

    def build(config: Any, scenario_name: str) -> tuple[ShipT, ...]:
        ships: list[ShipT] = []
        for side in config.scenario(scenario_name).sides:
            for index, setup in enumerate(side.ships):
                ships.append(build_ship(config, side, setup, f"{side.name}_{index}", len(ships)))
        return tuple(ships)

    return PerScenarioCache(build)
