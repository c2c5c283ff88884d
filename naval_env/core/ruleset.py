"""Ruleset descriptors and the registry the envs, training and evaluation look rulesets up in."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from naval_env.core.cache import PerObjectCache
from naval_env.core.dice import Dice
from naval_env.core.events import EventCatalog
from naval_env.core.game import Game, register_position_writer
from naval_env.core.hooks import RulesetHooks, register_hooks
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
    #: What the floors above read from the ruleset: rendering, picture, words, captains (core/hooks.py).
    hooks: RulesetHooks = RulesetHooks()

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


ConfigT = TypeVar("ConfigT")
GameT = TypeVar("GameT", bound=Game)
ActionsT = TypeVar("ActionsT", bound="_Actions")


class _Actions(Protocol):
    @property
    def spec(self) -> ActionSpec: ...


class _SpecBuilder(Generic[ConfigT, ActionsT]):
    """``(build_actions(config), build_observations(config))``: a class, not a lambda, so that a ruleset (and
    every env holding one) pickles."""

    def __init__(self, build_actions: Callable[[ConfigT], ActionsT],
                 build_observations: Callable[[ConfigT], ObservationSpec]) -> None:
        self.build_actions, self.build_observations = build_actions, build_observations

    def __call__(self, config: ConfigT) -> tuple[ActionsT, ObservationSpec]:
        return self.build_actions(config), self.build_observations(config)


class PackagedRuleset(Ruleset, Generic[ConfigT, ActionsT, GameT]):
    """A ruleset laid out as every built-in one is (``rulesets/<id>/``): a config loader, action tables
    and an observation spec derived from the config, and a game class called as
    ``game(config, scenario, dice, actions, observations)``.

    The tables are fixed per config and costly to build, so :attr:`specs` keeps one pair per config
    object while it lives (an env made and dropped leaves nothing behind).
    """

    def __init__(self, *, id: str, gym_name: str, version: str, events: EventCatalog,
                 positions: PositionCodec[Any], read_config: Callable[[str | Path | None], ConfigT],
                 build_actions: Callable[[ConfigT], ActionsT],
                 build_observations: Callable[[ConfigT], ObservationSpec], game: Callable[..., GameT],
                 hooks: RulesetHooks | None = None) -> None:
        self.id, self.gym_name, self.version = id, gym_name, version
        self.events, self.positions = events, positions
        self.hooks = hooks if hooks is not None else RulesetHooks()
        positions.ruleset = self
        self._read_config, self._game = read_config, game
        self.specs: PerObjectCache[ConfigT, tuple[ActionsT, ObservationSpec]] = PerObjectCache(
            _SpecBuilder(build_actions, build_observations))

    def load_config(self, path: str | Path | None = None) -> ConfigT:
        return self._read_config(path)

    def new_game(self, config: ConfigT, scenario: str | None = None, *, seed: int | None = None,
                 dice: Dice | None = None) -> GameT:
        actions, observations = self.specs(config)
        return self._game(config, scenario, dice if dice is not None else Dice(seed), actions, observations)

    def game_from_state(self, config: ConfigT, scenario_name: str, dice: Dice, state: Any) -> GameT:
        """A game already in ``state`` (a loaded position, checked by ``position.py``)."""
        actions, observations = self.specs(config)
        return self._game.from_state(config, scenario_name, dice, actions, observations, state)  # type: ignore[attr-defined]

    def action_spec(self, config: ConfigT) -> ActionSpec:
        return self.specs(config)[0].spec

    def observation_spec(self, config: ConfigT) -> ObservationSpec:
        return self.specs(config)[1]

    def scenarios(self, config: Any) -> list[str]:
        return list(config.scenarios)

    def rewards(self, config: Any) -> Any:
        return config.rewards


_REGISTRY: dict[str, Ruleset] = {}


RulesetT = TypeVar("RulesetT", bound=Ruleset)


def register(ruleset: RulesetT) -> RulesetT:
    """Make ``ruleset`` findable by its id (its position writer and hooks too); the same one again is a no-op.

    The rules alone: ``naval_env.register_ruleset`` also gives it its Gymnasium id, for a ruleset registered
    after ``naval_env`` was imported (a plugin's, a test's).
    """
    if ruleset.id in _REGISTRY and _REGISTRY[ruleset.id] is not ruleset:
        raise ValueError(f"ruleset {ruleset.id!r} is already registered")
    _REGISTRY[ruleset.id] = ruleset
    register_position_writer(ruleset.id, lambda game: ruleset.positions.dump(game))
    register_hooks(ruleset.id, ruleset.hooks)
    return ruleset


def unregister(ruleset_id: str) -> None:
    """Forget a registered ruleset, its position writer and its hooks (a test's or a plugin's; KeyError if unknown)."""
    get_ruleset(ruleset_id)
    del _REGISTRY[ruleset_id]
    register_position_writer(ruleset_id, None)
    register_hooks(ruleset_id, None)


def get_ruleset(ruleset_id: str) -> Ruleset:
    """The registered ruleset ``ruleset_id``; the built-in ones register when ``naval_env`` is imported (which
    importing any of its modules does first)."""
    try:
        return _REGISTRY[ruleset_id]
    except KeyError:
        raise KeyError(f"unknown ruleset {ruleset_id!r}; registered: {sorted(_REGISTRY)}") from None


def ruleset_ids() -> list[str]:
    return sorted(_REGISTRY)
