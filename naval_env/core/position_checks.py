"""Checks and defaults every ruleset's position builder shares: the scenario's set-up of a ship id, a value
or its default, ship ids in agent order, and the fields that say how a battle ended.

Each ``rulesets/<id>/position.py`` keeps only its own rules' checks; what reads the same in every ruleset
is here once, with the same messages everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

from naval_env.core.position import Problems, check_ship_ids

T = TypeVar("T")
ShipT = TypeVar("ShipT")

#: A ship id: ``<side>_<i>``, the side a lowercase name, ``i`` numbered from 0 per side without leading zeros.
AGENT_ID = re.compile(r"^([a-z][a-z0-9]*)_(0|[1-9][0-9]*)$")


def known(catalogue: Mapping[str, T], name: str, path: str, what: str, problems: Problems) -> T | None:
    """The entry of the config's ``catalogue`` named ``name``, or None with the problem noted at ``path``
    (naming the known names)."""
    entry = catalogue.get(name)
    if entry is None:
        problems.add(path, f"unknown {what} {name!r}; known: {sorted(catalogue)}")
    return entry


def given_or(value: T | None, default: T) -> T:
    """``value`` unless the position left it out (None)."""
    return default if value is None else value


def points_up_to(points: int | None, maximum: int | None, default_maximum: int, path: str, unit: str,
                 problems: Problems, lowest: str = "0") -> tuple[int, int]:
    """``(points, maximum)`` of a track such as hit points: the maximum given or ``default_maximum``, the
    points given or the maximum; points above the maximum are a problem at ``path``."""
    top = given_or(maximum, default_maximum)
    value = given_or(points, top)
    if value > top:
        problems.add(path, f"{value} {unit}; from {lowest} to the maximum {top}")
    return value, top


class _Side(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def ships(self) -> Sequence[Any]: ...


class _Scenario(Protocol):
    @property
    def sides(self) -> Sequence[_Side]: ...


def setup_of(scenario: _Scenario, ship_id: str) -> Any | None:
    """The scenario's set-up of ``ship_id`` (``<side>_<i>``), if it has one."""
    side_name, index = ship_id.rsplit("_", 1)
    for side in scenario.sides:
        if side.name == side_name and int(index) < len(side.ships):
            return side.ships[int(index)]
    return None


class AgentOrder:
    """Ship ids checked as a position lists them: ``<side>_<number>`` of the scenario's sides, every ship of
    the first side before the second's, numbered from 0 within each side; then 1 to ``max_per_side`` a side."""

    def __init__(self, sides: Sequence[str]) -> None:
        self.sides = list(sides)
        self.counts = dict.fromkeys(self.sides, 0)
        self._listing = 0  # index in ``sides`` of the side being listed

    def side(self, where: str, ship_id: str, given_side: str | None, problems: Problems) -> str | None:
        """The side of the ship listed at ``where``, or None (with the problem noted) when its id is not the
        next one in agent order."""
        sides = self.sides
        match = AGENT_ID.match(ship_id)
        side = match[1] if match else None
        if side is None or side not in self.counts:
            problems.add(f"{where}.id", f"{ship_id!r} is not a ship id '<side>_<number>' of this scenario's "
                                        f"sides {sides}")
            return None
        self._listing = max(self._listing, sides.index(side))
        expected = f"{side}_{self.counts[side]}"
        if ship_id != expected or sides.index(side) < self._listing:
            problems.add(f"{where}.id", f"expected {expected!r}: ships come in agent order, every {sides[0]} ship "
                                        f"before the {sides[1]} ones, numbered from 0 within each side")
            return None
        self.counts[side] += 1
        if given_side is not None and given_side != side:
            problems.add(f"{where}.side", f"{ship_id} fights for {side!r} (its id says so), not {given_side!r}")
        return side

    def check_counts(self, max_per_side: int, problems: Problems) -> None:
        for side in self.sides:
            if self.counts[side] > max_per_side:
                problems.add("ships", f"{self.counts[side]} {side} ships; at most house_rules.max_ships_per_side = "
                                      f"{max_per_side}")
            if self.counts[side] == 0:
                problems.add("ships", f"no {side} ship; each side of the scenario ({', '.join(self.sides)}) needs at "
                                      "least one")


def check_ending(sides: Sequence[str], ended: bool, winner: str | None, end_reason: str | None,
                 problems: Problems) -> None:
    """``winner`` is a side or null; ``winner`` and ``end_reason`` are given only once ``ended``."""
    if winner is not None and winner not in sides:
        problems.add("winner", f"{winner!r} is not a side; choose one of {list(sides)} or null (a draw)")
    if not ended:
        for name, value in (("winner", winner), ("end_reason", end_reason)):
            if value is not None:
                problems.add(name, "only a finished battle has one: set ended to true, or give null")


def rounds_left(round_: int, max_rounds: int, ended: bool) -> int:
    """Rounds still to be played in a battle at ``round_``: this one and each after it up to
    ``house_rules.max_rounds`` (the engines never play past it); none once the battle has ended."""
    return 0 if ended else max(0, max_rounds - round_ + 1)


def check_headroom(problems: Problems, path: str, value: float, per_round: float, left: int, maximum: float,
                   unit: str) -> None:
    """A counter (or a distance) that play can raise by at most ``per_round`` a round must leave room for the
    ``left`` rounds still to play (:func:`rounds_left`) below its ``maximum``: then every position the game can
    reach from this one has it within the model's bound too, and ``position()`` never refuses a reached state.
    ``value`` is compared by its size (a coordinate may be negative)."""
    room = maximum - per_round * left
    if abs(value) > room:
        problems.add(path, f"{value:g} {unit}; with {left} round(s) still to play (to house_rules.max_rounds) it "
                           f"can grow by up to {per_round:g} a round, past the bound {maximum:g}: at most {room:g} "
                           f"now")


class _Result(Protocol):
    @property
    def winner(self) -> str | None: ...


def check_result(sides: Sequence[str], result: _Result | None, to_move: str | None, problems: Problems) -> None:
    """A ``result``'s winner is a side or null (a draw); once it is given nobody is ``to_move``."""
    if result is None:
        return
    if result.winner is not None and result.winner not in sides:
        problems.add("result.winner", f"{result.winner!r} is not a side; sides: {list(sides)} (null: a draw)")
    if to_move is not None:
        problems.add("to_move", "the game is over (result is given): to_move must be null")


def check_going_on(sides: Sequence[str], fighting: set[str], in_battle: str, round_: int, max_rounds: int,
                   problems: Problems) -> None:
    """A battle with no ``result`` still has a ship ``in_battle`` (afloat, ...) on every side (``fighting``:
    the sides that have one), and has not run past ``house_rules.max_rounds``."""
    lost = [side for side in sides if side not in fighting]
    if lost:
        problems.add("result", f"side(s) {lost} have no ship {in_battle}: the battle is over; give its result")
    if round_ > max_rounds:
        problems.add("round", f"{round_} is past house_rules.max_rounds = {max_rounds} while the battle goes on")


class ShipsBuilder(Generic[ShipT]):
    """The start every ``<side>_<i>`` position builder shares: the config, its house rules, the scenario, the
    position and its problems, the scenario's sides, and the ships built one by one (:meth:`build_ship`, the
    ruleset's own) after their ids are checked in agent order."""

    def __init__(self, config: Any, scenario: Any, position: Any, problems: Problems) -> None:
        self.config, self.rules, self.scenario = config, config.house_rules, scenario
        self.position, self.problems = position, problems
        self.sides: tuple[str, ...] = tuple(side.name for side in scenario.sides)

    def ships(self) -> dict[str, ShipT]:
        """Every listed ship that could be built, by id (each fault noted in :attr:`problems`)."""
        check_ship_ids(self.problems, self.position.ships, self.sides, self.rules.max_ships_per_side)
        ships: dict[str, ShipT] = {}
        for k, given in enumerate(self.position.ships):
            ship = self.build_ship(k, given)
            if ship is not None:
                ships[given.id] = ship
        return ships

    def build_ship(self, k: int, given: Any) -> ShipT | None:
        """Ship ``k`` of the position with its defaults filled in, or None with its problems noted."""
        raise NotImplementedError

    def checked_ships(self) -> dict[str, ShipT] | None:
        """Every ship built (:meth:`ships`), then checked against each other (:meth:`check_between`) and
        against the turn's fields (:meth:`check_turn`); None once any problem is noted."""
        ships = self.ships()
        if self.problems.found:
            return None
        self.check_between(ships)
        self.check_turn(ships)
        return None if self.problems.found else ships

    def check_between(self, ships: dict[str, ShipT]) -> None:
        """What must hold between the ships (squares, distances, grapples); nothing unless the ruleset says."""

    def check_turn(self, ships: dict[str, ShipT]) -> None:
        """The turn's fields against the ships (result, round, phase, order, whose decision); likewise."""

    def settle(self, game: Any) -> None:
        """What only the built game can check or work out (nothing unless the ruleset says so)."""

    def check_outcome(self, result: _Result | None, fighting: set[str], in_battle: str, round_: int) -> None:
        """A position's ``result`` (:func:`check_result`), or while there is none, that the battle does go on
        (:func:`check_going_on`: ``fighting`` the sides with a ship ``in_battle``, ``round_`` the round)."""
        check_result(self.sides, result, self.position.to_move, self.problems)
        if result is None:
            check_going_on(self.sides, fighting, in_battle, round_, self.rules.max_rounds, self.problems)
