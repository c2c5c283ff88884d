"""The rules-engine contract every ruleset implements.

A :class:`Game` is one battle: agents (one per ship captain), whose decision it
is, the legal mask, the observation of any agent, and :meth:`Game.apply`, which
validates an action and returns typed events. Engines import no RL library.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Generic, Protocol, Self, TypeVar

import numpy as np

from naval_env.core.dice import Dice
from naval_env.core.errors import GameOverError, NotYourTurnError
from naval_env.core.events import Event, GameEnded
from naval_env.core.hooks import hooks_of
from naval_env.core.spaces import ActionSpec, ObservationSpec

#: Each registered ruleset's position writer (its codec's ``dump``), by ruleset id. Filled by
#: :func:`naval_env.core.ruleset.register`, so :meth:`Game.position` finds its ruleset's codec while the
#: contract imports neither the codecs nor the registry above it.
_position_writers: dict[str, Callable[[Any], Any]] = {}


def register_position_writer(ruleset_id: str, dump: Callable[[Any], Any] | None) -> None:
    """``dump(game)`` gives the position model of a ``ruleset_id`` game (``PositionCodec.dump``); None forgets it."""
    if dump is None:
        _position_writers.pop(ruleset_id, None)
    else:
        _position_writers[ruleset_id] = dump


class Game(ABC):
    """One battle under one ruleset. Subclasses hold their state in plain dataclasses."""

    ruleset_id: str
    scenario_name: str
    dice: Dice
    action_spec: ActionSpec
    observation_spec: ObservationSpec

    @property
    @abstractmethod
    def agents(self) -> tuple[str, ...]:
        """Every captain of the battle, in a fixed order (sides in order, ships in order)."""

    @property
    @abstractmethod
    def sides(self) -> tuple[str, ...]: ...

    @abstractmethod
    def side_of(self, agent: str) -> str: ...

    @property
    @abstractmethod
    def current_agent(self) -> str | None:
        """The captain who must decide now; None once the game is over."""

    @abstractmethod
    def is_active(self, agent: str) -> bool:
        """Whether the captain can still get decisions (its ship is fighting on the board)."""

    @abstractmethod
    def legal_mask(self, agent: str) -> np.ndarray:
        """Flat boolean mask; an agent that holds no decision gets the no-op mask."""

    @abstractmethod
    def observe(self, agent: str) -> np.ndarray:
        """Float32 vector of ``observation_spec.size`` from the agent's point of view."""

    @abstractmethod
    def apply(self, agent: str, action: Any) -> list[Event]:
        """Validate and apply the current agent's action; raises IllegalActionError, state untouched."""

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @property
    @abstractmethod
    def winner(self) -> str | None:
        """Winning side once over; None for a draw or while playing."""

    @property
    @abstractmethod
    def truncated(self) -> bool:
        """True when the game ended by the round limit rather than by the rules."""

    @property
    @abstractmethod
    def round(self) -> int: ...

    @abstractmethod
    def health(self, agent: str) -> tuple[int, int]:
        """(current, maximum) hull of the agent's ship, for statistics and invariants."""

    @abstractmethod
    def state_dict(self) -> dict[str, Any]:
        """The whole state as JSON-ready data; equal games give equal dicts."""

    def position(self) -> dict[str, Any]:
        """The whole state as a position (JSON-ready): ``load_position(game.position())`` plays on identically."""
        try:
            dump = _position_writers[self.ruleset_id]
        except KeyError:
            raise KeyError(f"ruleset {self.ruleset_id!r} is not registered; registered: {sorted(_position_writers)}"
                           ) from None
        return dump(self).model_dump(mode="json")

    @abstractmethod
    def clone(self) -> Game:
        """An independent copy, dice included: playing on the copy leaves this game untouched, and given the
        same moves the copy rolls the same dice and plays on exactly as this game would (for search)."""

    @abstractmethod
    def render_ansi(self, events: list[Event] | None = None) -> str: ...

    @abstractmethod
    def render_rgb(self) -> np.ndarray: ...


class BattleShip(Protocol):
    """What :class:`ShipBattle` reads of every ship: its id and its side."""

    @property
    def id(self) -> str: ...

    @property
    def side(self) -> str: ...


class BattleState(Protocol):
    """What :class:`ShipBattle` reads and writes of an engine's state dataclass."""

    ended: bool
    winner: str | None
    end_reason: str | None

    @property
    def sides(self) -> Sequence[str]: ...

    @property
    def ships(self) -> Mapping[str, BattleShip]: ...

    @property
    def round(self) -> int: ...

    @property
    def current(self) -> str | None: ...   # None only once the battle has ended

    @property
    def phase(self) -> Any: ...   # each engine's own enum of decisions; refusals name it

    def to_dict(self) -> dict[str, Any]: ...

    def copy(self) -> Self: ...


class BattleConfig(Protocol):
    """What :class:`ShipBattle` reads of a ruleset's config (every ``RulesetConfig`` has it)."""

    @property
    def house_rules(self) -> Any: ...

    @property
    def default_scenario(self) -> str: ...

    def scenario(self, name: str | None) -> Any: ...


StateT = TypeVar("StateT", bound=BattleState)
ConfigT = TypeVar("ConfigT", bound=BattleConfig)


class ShipBattle(Game, Generic[StateT, ConfigT]):
    """The parts of :class:`Game` every ship-captain engine implements the same way.

    A game starts in one of two ways, both here: set up from its scenario (``__init__``: :meth:`_bind`,
    the engine's :meth:`_prepare`, then its :meth:`_open`) or already in a loaded position's state
    (:meth:`from_state`: :meth:`_bind`, :meth:`_prepare`, then :meth:`_enter`). Engines keep their state in
    ``self.state`` with ``sides``, ``ships`` (each with a ``side``), ``ended``, ``winner``, ``end_reason``,
    ``round``, ``phase``, ``current`` (the agent deciding now), ``to_dict()`` and ``copy()`` (an independent
    copy, for :meth:`clone`), index the ships once they are placed (:meth:`_index_ships`), build the mask of
    the decision held in :meth:`_build_mask` and keep it in ``self._mask`` until the state changes. Their
    text renderer and picture are their ruleset's hooks (``naval_env/core/hooks.py``).
    """

    state: StateT
    config: ConfigT
    rules: Any
    scenario_name: str
    scenario: Any
    actions: Any
    #: What happened before the first decision (set-up rolls, the first turn's start).
    opening_events: list[Event]
    _mask: np.ndarray | None
    _agents: tuple[str, ...]
    _enemies: dict[str, list[Any]]
    _allies: dict[str, list[Any]]

    def __init__(self, config: ConfigT, scenario_name: str | None, dice: Dice, actions: Any,
                 observation_spec: ObservationSpec) -> None:
        """A battle set up from the scenario (``None``: the config's default), played to its first decision."""
        self._bind(config, scenario_name, dice, actions, observation_spec)
        self._prepare()
        self.opening_events = self._open()

    @classmethod
    def from_state(cls, config: ConfigT, scenario_name: str | None, dice: Dice, actions: Any,
                   observation_spec: ObservationSpec, state: StateT) -> Self:
        """A game already in ``state`` (a loaded position, checked by the ruleset's ``position.py``): no
        set-up, no roll, no opening events; :meth:`_enter` takes up the decision ``state`` holds."""
        game = cls.__new__(cls)
        game._bind(config, scenario_name, dice, actions, observation_spec)
        game._prepare()
        game._enter(state)
        game.opening_events = []
        return game

    def _prepare(self) -> None:
        """The engine's own caches, empty, once :meth:`_bind` has run and before any state exists."""
        self._mask = None

    def _open(self) -> list[Event]:
        """Set the battle up from ``self.scenario`` (:meth:`_set_up`), hold it (:meth:`_enter`) and play to the
        first decision (:meth:`_start`); what happened meanwhile."""
        self._enter(self._set_up())
        events: list[Event] = []
        self._start(events)
        return events

    def _set_up(self) -> StateT:
        """The state the scenario sets up (placements rolled with the game's dice)."""
        raise NotImplementedError(f"{type(self).__name__} sets no battle up")

    def _start(self, events: list[Event]) -> None:
        """Play a battle just set up to its first decision, noting what happens in ``events``."""
        raise NotImplementedError(f"{type(self).__name__} starts no battle")

    def _enter(self, state: StateT) -> None:
        """Hold a loaded ``state`` and index its ships; engines also rebuild what they derive from it."""
        self.state = state
        self._index_ships()

    def _bind(self, config: ConfigT, scenario_name: str | None, dice: Dice, actions: Any,
              observation_spec: ObservationSpec) -> None:
        """Keep what every engine reads: the config and its house rules, the scenario and its name, the dice
        and the action and observation specs."""
        self.config = config
        self.rules = config.house_rules
        self.scenario_name = scenario_name or config.default_scenario
        self.scenario = config.scenario(self.scenario_name)
        self.dice = dice
        self.actions = actions
        self.action_spec = actions.spec
        self.observation_spec = observation_spec

    def _index_ships(self) -> None:
        """Fix the agent order and each ship's enemies and allies (in side order) once the ships exist.

        An enemy's index in ``enemies_of`` is its target slot in the action components.
        """
        ships = list(self.state.ships.values())
        self._agents = tuple(s.id for s in ships)
        self._enemies = {s.id: [o for o in ships if o.side != s.side] for s in ships}
        self._allies = {s.id: [o for o in ships if o.side == s.side and o.id != s.id] for s in ships}

    def enemies_of(self, ship: Any) -> list[Any]:
        """Enemy ships in side order; an enemy's index here is its target slot."""
        return self._enemies[ship.id]

    def allies_of(self, ship: Any) -> list[Any]:
        """The ship's own side's other ships, in side order."""
        return self._allies[ship.id]

    @property
    def agents(self) -> tuple[str, ...]:
        return self._agents

    @property
    def sides(self) -> tuple[str, ...]:
        return tuple(self.state.sides)

    def side_of(self, agent: str) -> str:
        return str(self.state.ships[agent].side)

    @property
    def is_over(self) -> bool:
        return bool(self.state.ended)

    @property
    def winner(self) -> str | None:
        winner: str | None = self.state.winner
        return winner

    @property
    def truncated(self) -> bool:
        return bool(self.state.end_reason == ROUND_LIMIT)

    @property
    def round(self) -> int:
        return int(self.state.round)

    def state_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = self.state.to_dict()
        return data

    def is_active(self, agent: str) -> bool:
        """By the ship's ``status.fighting``; an engine whose ships keep no such status overrides this."""
        ship: Any = self.state.ships[agent]
        return bool(ship.status.fighting)

    @property
    def current_agent(self) -> str | None:
        state = self.state
        return None if state.ended else state.current

    def _check_decider(self, agent: str) -> None:
        """Raise unless ``agent`` holds the decision now (:meth:`apply`'s first check)."""
        state = self.state
        if state.ended:
            raise GameOverError(f"the game is over ({state.end_reason}); call reset() for a new one")
        decider = state.current
        if agent != decider:
            raise NotYourTurnError(f"it is {decider}'s decision ({state.phase.name}), not {agent}'s")

    def _finish(self, winner: str | None, reason: str, events: list[Event]) -> None:
        """End the battle: ``winner`` a side, or None for a draw; ``reason`` names the rule that ended it."""
        state = self.state
        state.ended, state.winner, state.end_reason = True, winner, reason
        self._mask = None
        events.append(GameEnded(winner, reason))

    def _checked_values(self, agent: str, action: Any, contexts: Any) -> list[int]:
        """``agent``'s ``action`` as plain ints once :meth:`_check_decider` passes and the mask of the decision
        allows it; ``contexts[phase]`` names the decision in a refusal. Raises with the state untouched."""
        self._check_decider(agent)
        return self.action_spec.checked_values(action, self._current_mask(), contexts[self.state.phase])

    def legal_mask(self, agent: str) -> np.ndarray:
        state = self.state  # what current_agent and _current_mask do, inline: the envs ask on every step
        if state.ended or agent != state.current:
            return self.action_spec.noop_mask()
        mask = self._mask
        if mask is None:
            mask = self._mask = self._build_mask(state.ships[agent])
        return mask.copy()

    def _current_mask(self) -> np.ndarray:
        """The mask of the decision held now, read only (:meth:`legal_mask` hands out copies): built once per
        decision (every state change drops ``_mask``)."""
        mask = self._mask
        if mask is None:
            current = self.state.current
            if current is None:
                raise GameOverError("the game is over: no decision is held")
            mask = self._mask = self._build_mask(self.state.ships[current])
        return mask

    def _build_mask(self, ship: Any) -> np.ndarray:
        """The mask of ``ship``'s decision in the state held now."""
        raise NotImplementedError(f"{type(self).__name__} builds no mask")

    def clone(self) -> Self:
        """An independent copy made field by field: the state's own ``copy()``, the dice's ``clone()``, the
        ship indices rebuilt on the copied ships, and :meth:`_clone_caches` for what each engine keeps
        beside its state. Everything else the game holds (config, house rules, scenario, action tables,
        observation spec, the current decision's read-only mask) is immutable and shared: a deep copy of
        the whole game costs ten to forty times one decision."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.dice = self.dice.clone()
        twin.state = self.state.copy()
        twin.opening_events = list(self.opening_events)
        twin._index_ships()
        self._clone_caches(twin)
        return twin

    def _clone_caches(self, twin: Self) -> None:
        """Give ``twin`` (a :meth:`clone` that already holds its own state and dice) its own copy of every
        per-game cache that refers to the state or the dice or changes as the game goes on; caches that are
        pure functions of immutable inputs may stay shared. Engines that keep such caches override this."""

    def render_ansi(self, events: list[Event] | None = None) -> str:
        return hooks_of(self.ruleset_id).render_ansi(self, events or [])

    def render_rgb(self) -> np.ndarray:
        """The ruleset's board picture (what the HTML replay viewer shows), as an RGB array."""
        image: np.ndarray = hooks_of(self.ruleset_id).picture(self).to_rgb()
        return image


#: ``end_reason`` of a game stopped by the round limit (a draw, reported as truncation).
ROUND_LIMIT = "round_limit"
