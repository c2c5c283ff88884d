"""Positions: a game's whole state as JSON, in and out, in the vocabulary apps speak.

A position names ships, their places, facings, hulls, crews and statuses, the wind,
the round, the phase and whose decision it is, in the same words the rules use.
Each ruleset has one pydantic model of it (a :class:`PositionModel` subclass) and a
:class:`PositionCodec` that dumps a game into that model and builds a game from it.
The JSON Schema an app validates against is generated from the model.

``load(dump(game))`` gives a game whose position is equal and which plays on
identically with the same dice: a position holds every piece of state the rules
read. Fields an app would not know (derived stats, bookkeeping) have defaults taken
from the ruleset config and scenario, so a hand-written short form also loads.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, Protocol, TypeVar, cast

from pydantic import BaseModel, ValidationError

from naval_env.core.dice import Dice
from naval_env.core.errors import NavalError
from naval_env.core.model_keys import allowed_keys
from naval_env.core.position_fields import PART_CONFIG, Name

if TYPE_CHECKING:
    from naval_env.core.game import Game


class PositionProblem(NamedTuple):
    """One thing wrong with a position: where (``ships.1.x``) and what is allowed there."""

    path: str
    message: str


#: Most problems one refusal lists: a position with thousands of faults is refused as fast as one with a
#: few, and the answer stays small (the rest are counted in a last problem).
MAX_PROBLEMS = 20


class PositionError(NavalError):
    """A position that cannot be loaded; ``problems`` lists every field at fault (the first
    :data:`MAX_PROBLEMS`, then one that counts the rest)."""

    def __init__(self, problems: Iterable[PositionProblem], more: int = 0) -> None:
        given = list(problems)
        more += max(0, len(given) - MAX_PROBLEMS)
        self.problems = given[:MAX_PROBLEMS]
        if more:
            self.problems.append(PositionProblem("", f"{more} more problem(s) not listed; fix these first"))
        listed = "; ".join(f"{p.path or '<position>'}: {p.message}" for p in self.problems)
        super().__init__(f"invalid position ({len(self.problems)} problem(s)): {listed}")

    def to_json(self) -> list[dict[str, str]]:
        return [p._asdict() for p in self.problems]


class PositionModel(BaseModel):
    """Fields every ruleset's position starts with. Unknown keys are errors; numbers are strict and finite
    (see :mod:`naval_env.core.position_fields`)."""

    model_config = PART_CONFIG

    ruleset: str
    """The ruleset's id."""
    version: Name | None = None
    """The ruleset version the position was written for; when given it must be the engine's."""
    scenario: Name | None = None
    """The scenario whose board and defaults apply; default: the config's default scenario."""


PositionT = TypeVar("PositionT", bound=PositionModel)


def path_of(loc: Iterable[Any]) -> str:
    """``ships.1.x``; a key that is not printable text (a control character, a lone surrogate) is written
    with backslash escapes, so the path can always be printed and sent as JSON."""
    return ".".join(_printable(str(part)) for part in loc)


def _printable(text: str) -> str:
    if text.isprintable():
        return text
    return text.encode("unicode_escape", "backslashreplace").decode("ascii")


def validate_position(model: type[PositionT], data: Any) -> PositionT:
    """``data`` as ``model``, or :class:`PositionError` naming every bad field and what it allows."""
    if isinstance(data, BaseModel):
        data = data.model_dump(mode="json")
    if not isinstance(data, dict):
        raise PositionError([PositionProblem("", f"a position is a JSON object, not {type(data).__name__}")])
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = []
        errors = exc.errors(include_url=False)
        for err in errors[:MAX_PROBLEMS]:
            message = err["msg"]
            if err["type"] == "extra_forbidden":
                message = f"unknown field; allowed here: {', '.join(allowed_keys(model, err['loc'][:-1]))}"
            elif err["type"] == "missing":
                message = "required field is missing"
            elif err["type"] in _RANGE_ERRORS:
                message = f"{_number(err['input'])} is out of range: {message}"
            problems.append(PositionProblem(path_of(err["loc"]), message))
        raise PositionError(problems, more=len(errors) - len(problems)) from None


#: pydantic's errors for a number past a bound: their message names the bound, not the number given.
_RANGE_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal"})


def _number(value: Any) -> str:
    """A number as a message may quote it: a whole number of hundreds of digits is not written out."""
    if isinstance(value, int) and not -10**15 < value < 10**15:
        return "a whole number of more than 15 digits"
    return repr(value)


class StateBuilder(Protocol):
    """A ruleset's checker and builder of one position's game state (made by :attr:`PositionCodec.builder`)."""

    def state(self, dice: Dice) -> Any | None:
        """The game state, or None with every problem noted; ``dice`` roll what the position leaves to chance
        (only once every other field has passed, so a refused position rolls nothing)."""

    def settle(self, game: Any) -> None:
        """Check and take up what only the built ``game`` can work out (its decision), noting problems."""


class PositionCodec(ABC, Generic[PositionT]):
    """Dumps games of one ruleset into its position model and builds games from positions."""

    model: ClassVar[type[PositionModel]]
    #: ``builder(config, scenario, position, problems)``: the ruleset's :class:`StateBuilder` for :meth:`build`
    #: (set on the class; annotated as an attribute so that it is called unbound).
    builder: Callable[[Any, Any, Any, Problems], StateBuilder]
    #: The ruleset served, bound by :class:`~naval_env.core.ruleset.PackagedRuleset` when it is made: the codec
    #: reads its id, version and game factory here instead of importing its own package.
    ruleset: PositionsOwner

    @abstractmethod
    def dump(self, game: Game) -> PositionT:
        """The game's whole state, every field written out (the full form)."""

    def build(self, config: Any, position: PositionT, dice: Dice) -> Game:
        """A game in ``position`` rolling ``dice``; raises :class:`PositionError` naming each field the
        rules refuse (a ship off the board, two ships on one square, a hull above its maximum, an
        unknown ship type, a decision given to a ship that cannot act, ...). Nothing half-built escapes."""
        problems = Problems()
        scenario_name = self.scenario_name(position, config, problems)
        builder = self.builder(config, config.scenarios[scenario_name], position, problems)
        state = builder.state(dice)
        problems.raise_if_any()
        assert state is not None
        game = self.ruleset.game_from_state(config, scenario_name, dice, state)
        builder.settle(game)
        problems.raise_if_any()
        return cast("Game", game)

    def load(self, config: Any, data: Any, dice: Dice) -> Game:
        position = cast(PositionT, validate_position(self.model, data))  # ``model`` is the PositionT class
        return self.build(config, position, dice)

    def schema(self) -> dict[str, Any]:
        """The JSON Schema of a position, generated from the model (what an app validates against)."""
        return self.model.model_json_schema()

    def header(self, game: Game) -> dict[str, Any]:
        """The fields every dumped position opens with: ``ruleset``, ``version`` (this engine's), ``scenario``."""
        return {"ruleset": self.ruleset.id, "version": self.ruleset.version, "scenario": game.scenario_name}

    def scenario_name(self, position: PositionModel, config: Any, problems: Problems) -> str:
        """The position's scenario, as :func:`scenario_of` checks it against this ruleset's version."""
        return scenario_of(position, config, self.ruleset.id, self.ruleset.version, problems)


class PositionsOwner(Protocol):
    """What a :class:`PositionCodec` reads of its ruleset."""

    id: str
    version: str
    @property
    def specs(self) -> Callable[[Any], tuple[Any, Any]]:
        """``specs(config)``: the config's action tables and observation spec (built once per config)."""

    def game_from_state(self, config: Any, scenario_name: str, dice: Dice, state: Any) -> Any:
        """The ruleset's game already in ``state`` (checked by the codec), with the config's action tables."""


class Problems:
    """Collects the problems of one position, so every bad field is reported at once."""

    def __init__(self) -> None:
        self.found: list[PositionProblem] = []
        self.more = 0  # problems past :data:`MAX_PROBLEMS`, counted and not kept

    def add(self, path: str, message: str) -> None:
        if len(self.found) < MAX_PROBLEMS:
            self.found.append(PositionProblem(path, message))
        else:
            self.more += 1

    def raise_if_any(self) -> None:
        if self.found:
            raise PositionError(self.found, more=self.more)


#: A ship id: ``<side>_<i>``, the side a lowercase name, ``i`` numbered from 0 per side without leading zeros.
SHIP_ID = re.compile(r"^([a-z][a-z0-9]*)_(0|[1-9][0-9]*)$")


def side_of(ship_id: str) -> str | None:
    """The side named by ``ship_id`` (``red`` of ``red_0``); None when it is not ``<side>_<i>``."""
    match = SHIP_ID.match(ship_id)
    return match.group(1) if match else None


class NamedShip(Protocol):
    """What :func:`check_ship_ids` reads of a position's ship: its id and the side it claims, if any."""

    @property
    def id(self) -> str: ...

    @property
    def side(self) -> str | None: ...


def check_ship_ids(problems: Problems, ships: Sequence[NamedShip], sides: Sequence[str],
                   max_per_side: int) -> None:
    """Ids ``<side>_<i>`` in agent order: the first side's ships, then the second's, each numbered from 0;
    a ``side`` given agrees with its id; each side has 1 to ``house_rules.max_ships_per_side`` ships."""
    add = problems.add
    counts = dict.fromkeys(sides, 0)
    for k, given in enumerate(ships):
        side = side_of(given.id)
        if side not in counts:
            add(f"ships.{k}.id", f"{given.id!r} is not '<side>_<i>' with a side of this scenario: {list(sides)}")
            continue
        counts[side] += 1
        if given.side is not None and given.side != side:
            add(f"ships.{k}.side", f"{given.side!r} does not match the id {given.id!r} (side {side!r})")
    expected = iter([f"{side}_{i}" for side in sides for i in range(counts[side])])
    for k, given in enumerate(ships):
        if side_of(given.id) not in counts:
            continue  # refused above; the ids after it are matched as if it were not there
        wanted = next(expected)
        if given.id != wanted:
            add(f"ships.{k}.id", f"{given.id!r}: expected {wanted!r} here; ships are listed "
                                 f"{' then '.join(sides)}, numbered from 0 per side")
    for side, count in counts.items():
        if not 1 <= count <= max_per_side:
            add("ships", f"side {side!r} has {count} ships; each side has 1 to "
                         f"house_rules.max_ships_per_side = {max_per_side}")


def scenario_of(position: PositionModel, config: Any, ruleset_id: str, version: str, problems: Problems) -> str:
    """The position's scenario name (default: the config's). Records a ``version`` other than the engine's,
    and refuses a scenario the config does not have, with every problem found so far."""
    if position.version is not None and position.version != version:
        problems.add("version", f"written for version {position.version!r}; this engine is {ruleset_id} {version!r}")
    name = position.scenario or config.default_scenario
    if name not in config.scenarios:
        problems.add("scenario", f"unknown scenario {name!r}; known: {sorted(config.scenarios)}")
        problems.raise_if_any()
    return str(name)
