"""Ruleset descriptors and the registry the envs, training and evaluation look rulesets up in."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

from naval_env.core.dice import Dice
from naval_env.core.events import EventCatalog
from naval_env.core.game import Game, register_position_writer
from naval_env.core.position import PositionCodec
from naval_env.core.spaces import ActionSpec, ObservationSpec


class Ruleset(ABC):
    """Fixed facts of a ruleset plus factories; one instance per ruleset, found by ``id``."""

    id: str
    gym_name: str              # e.g. "Pantheon" -> "naval/Pantheon-v0"
    version: str               # bump when rules or spaces change; exports record it
    events: EventCatalog
    #: Dumps games into this ruleset's position model and loads them back (``rulesets/<id>/position.py``).
    positions: PositionCodec[Any]

    @abstractmethod
    def load_config(self, path: str | Path | None = None) -> Any:
        """Validated config (catalogue, scenarios, house rules); default: configs/rulesets/<id>.yaml."""

    @abstractmethod
    def new_game(self, config: Any, scenario: str | None = None, *, seed: int | None = None,
                 dice: Dice | None = None) -> Game:
        """A new battle; pass ``dice`` (e.g. ScriptedDice) to control every roll."""

    @abstractmethod
    def action_spec(self, config: Any) -> ActionSpec: ...

    @abstractmethod
    def observation_spec(self, config: Any) -> ObservationSpec: ...

    @abstractmethod
    def scenarios(self, config: Any) -> list[str]: ...

    @abstractmethod
    def rewards(self, config: Any) -> Any:
        """Reward weights with fields win, loss, draw, damage_dealt, damage_taken."""

    def load_position(self, data: Any, config: Any = None, *, seed: int | None = None,
                      dice: Dice | None = None) -> Game:
        """A game in the position ``data`` (JSON-ready dict, full or short form), rolling ``dice`` or a
        ``Dice(seed)``; raises :class:`~naval_env.core.position.PositionError` naming every bad field."""
        if config is None or isinstance(config, (str, Path)):
            config = self.load_config(config)
        return self.positions.load(config, data, dice if dice is not None else Dice(seed))

    def position_schema(self) -> dict[str, Any]:
        """The JSON Schema of this ruleset's positions, generated from its pydantic model."""
        return self.positions.schema()

    @property
    def gym_id(self) -> str:
        return f"naval/{self.gym_name}-v0"


_REGISTRY: dict[str, Ruleset] = {}


def register(ruleset: Ruleset) -> Ruleset:
    if ruleset.id in _REGISTRY and _REGISTRY[ruleset.id] is not ruleset:
        raise ValueError(f"ruleset {ruleset.id!r} is already registered")
    _REGISTRY[ruleset.id] = ruleset
    register_position_writer(ruleset.id, lambda game: ruleset.positions.dump(game))
    return ruleset


def get_ruleset(ruleset_id: str) -> Ruleset:
    """The registered ruleset ``ruleset_id``; the built-in ones register when ``naval_env`` is imported (which
    importing any of its modules does first)."""
    try:
        return _REGISTRY[ruleset_id]
    except KeyError:
        raise KeyError(f"unknown ruleset {ruleset_id!r}; registered: {sorted(_REGISTRY)}") from None


def ruleset_ids() -> list[str]:
    return sorted(_REGISTRY)
