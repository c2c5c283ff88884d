"""`skirmish` positions: the track, the boats and whose turn it is, as JSON in and out.

The full form (what :meth:`SkirmishPositions.dump` writes) holds every field of the game state, so a
loaded game plays on exactly as the original. A hand-written short form needs only each boat's ``id``
and ``cell``; hulls default to full, the boat to move to the first boat afloat in turn order.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from naval_env.core.dice import Dice
from naval_env.core.position import PositionCodec, PositionModel, side_of
from naval_env.core.position_checks import ShipsBuilder, given_or
from naval_env.core.position_fields import Name, PositionPart, Round

from .config import MAX_TRACK, Scenario, SkirmishConfig
from .engine import LAST_SIDE_AFLOAT, SkirmishGame
from .state import Boat, GameState, Status, turn_order

EndReason = Literal["last side afloat", "round_limit"]
MAX_BOATS = 4   # two sides of at most two boats


class BoatPosition(PositionPart):
    """One boat. Only ``id`` and ``cell`` are required."""

    id: Name
    """``<side>_<i>``, numbered from 0 per side (also the captain's agent id)."""
    side: Name | None = None
    """The boat's side. Default: the prefix of ``id``."""
    cell: int = Field(ge=0, le=MAX_TRACK - 1)
    """Cell of the track, from 0 (the first side's end). A sunk boat keeps the cell it went down on."""
    hull: int | None = Field(default=None, ge=0, le=9)
    """Hull left, 0 for a sunk boat. Default: the house rules' full hull."""
    status: Status | None = Field(default=None, strict=False)
    """afloat or sunk. Default: sunk at hull 0, else afloat."""


class Result(PositionPart):
    """How the battle ended."""

    winner: Name | None
    """The winning side; null for a draw."""
    reason: EndReason
    """Why it ended: one side still afloat, or the round limit (a draw)."""


class SkirmishPosition(PositionModel):
    """A `skirmish` battle at one decision."""

    ruleset: Literal["skirmish"]
    """Always ``skirmish``."""
    round: Round = 1
    """Round number, from 1."""
    to_move: Name | None = None
    """The boat whose decision it is; null once the game is over. Default: the first boat afloat in turn order."""
    result: Result | None = None
    """Null while the battle goes on."""
    ships: list[BoatPosition] = Field(max_length=MAX_BOATS)
    """Every boat in agent order: the scenario's first side, then the second, each numbered from 0."""


class _Builder(ShipsBuilder[Boat]):
    """Checks a position against the config, scenario and rules, noting every problem, and builds its state."""

    config: SkirmishConfig
    scenario: Scenario
    position: SkirmishPosition

    def state(self, dice: Dice) -> GameState | None:
        ships = self.checked_ships()
        if ships is None:
            return None
        p = self.position
        sides = (self.sides[0], self.sides[1])
        order = turn_order(ships, sides)
        state = GameState(self.rules.track_length, sides, ships, order, round=p.round, ended=p.result is not None,
                          winner=p.result.winner if p.result else None, end_reason=p.result.reason if p.result else None)
        if p.result is None:
            to_move = p.to_move or next(s for s in order if ships[s].status.fighting)
            state.turn = order.index(to_move)
        return state

    def build_ship(self, k: int, given: BoatPosition) -> Boat | None:
        side = side_of(given.id)
        if side not in self.sides:
            return None   # check_ship_ids noted it
        full = self.rules.hull
        hull = given_or(given.hull, full)
        status = given_or(given.status, Status.SUNK if hull == 0 else Status.AFLOAT)
        where = f"ships.{k}"
        if given.cell >= self.rules.track_length:
            self.problems.add(f"{where}.cell", f"{given.cell} is off the track: 0 to {self.rules.track_length - 1}")
        if hull > full:
            self.problems.add(f"{where}.hull", f"{hull}; a boat has at most house_rules.hull = {full}")
        if (hull == 0) != (status is Status.SUNK):
            self.problems.add(f"{where}.status", f"{status.value} at hull {hull}: a boat sinks at hull 0, and only then")
        ahead = 1 if side == self.sides[0] else -1
        return Boat(given.id, side, ahead, given.cell, hull, full, status)

    def check_between(self, ships: dict[str, Boat]) -> None:
        held: dict[int, str] = {}
        for k, boat in enumerate(ships.values()):
            if boat.status.fighting:
                other = held.setdefault(boat.cell, boat.id)
                if other != boat.id:
                    self.problems.add(f"ships.{k}.cell", f"{boat.id} is on cell {boat.cell} with {other}: "
                                                         "two boats afloat cannot share a cell")

    def check_turn(self, ships: dict[str, Boat]) -> None:
        p = self.position
        fighting = {boat.side for boat in ships.values() if boat.status.fighting}
        self.check_outcome(p.result, fighting, "afloat", p.round)
        if p.result is None and p.to_move is not None:
            boat = ships.get(p.to_move)
            if boat is None:
                self.problems.add("to_move", f"{p.to_move!r} is not a boat here; boats: {list(ships)}")
            elif not boat.status.fighting:
                self.problems.add("to_move", f"{boat.id} is sunk: only a boat afloat has decisions")
        if p.result is not None and p.result.reason == LAST_SIDE_AFLOAT and len(fighting) != 1:
            self.problems.add("result.reason", f"{LAST_SIDE_AFLOAT!r} with boats afloat on {sorted(fighting)}")


class SkirmishPositions(PositionCodec[SkirmishPosition]):
    """Dumps `skirmish` games into :class:`SkirmishPosition` and builds games from positions."""

    builder = _Builder
    model = SkirmishPosition

    def dump(self, game: SkirmishGame) -> SkirmishPosition:  # type: ignore[override]
        state = game.state
        return SkirmishPosition(
            **self.header(game),
            round=state.round,
            to_move=game.current_agent,
            result=Result(winner=state.winner, reason=state.end_reason) if state.ended else None,  # type: ignore[arg-type]
            ships=[BoatPosition(id=b.id, side=b.side, cell=b.cell, hull=b.hull, status=b.status)
                   for b in state.ships.values()],
        )
