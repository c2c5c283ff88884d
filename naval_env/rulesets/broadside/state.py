"""Plain-data game state of `broadside`: copyable, comparable and JSON-serialisable."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Any

from naval_env.core.copying import field_copier
from naval_env.rulesets.broadside.geometry import Hull


class Status(str, Enum):
    AFLOAT = "afloat"
    SUNK = "sunk"      # hull points gone: off the board at once
    PRIZE = "prize"    # no marines or officers left with boarders aboard: taken by the attacker
    FLED = "fled"      # sailed off the edge of the table

    @property
    def fighting(self) -> bool:
        return self is _AFLOAT


_AFLOAT = Status.AFLOAT     # a module global: Status.AFLOAT costs a class-attribute lookup per use


class Phase(IntEnum):
    """The decision a captain holds (see engine.py for when each one comes)."""

    MANEUVER = 0         # speed for the turn and the turns between legs
    GUNNERY = 1          # cannon batteries and archers, after the ship's move
    COLLISION_BOARD = 2  # board the ship just collided with, at once (the activated ship first)
    BOARDING = 3         # after every ship moved: board, reinforce a friend, archers in the melee phase
    MELEE = 4            # boarders aboard an enemy: fight on (heroes first or last, ties stay or go) or withdraw


class Speed(IntEnum):
    HOLD = 0
    CRUISING = 1
    BATTLE = 2
    RAMMING = 3


@dataclass(slots=True)
class People:
    """Counts of everyone of a ship at home (above board)."""

    crew: int = 0
    archers: int = 0
    marines: int = 0
    lieutenants: int = 0
    heroes: int = 0

    def copy(self) -> People:
        return _copy_people(self)

    @property
    def officers(self) -> int:
        return self.lieutenants + self.heroes

    @property
    def boarders(self) -> int:
        """Who can board: marines and heroes."""
        return self.marines + self.heroes

    def total(self) -> int:
        return self.crew + self.archers + self.marines + self.lieutenants + self.heroes


@dataclass(slots=True)
class Party:
    """One ship's marines and heroes aboard another ship."""

    marines: int = 0
    heroes: int = 0
    heroes_first: bool = False    # the order its dice are rolled in
    retreat_on_tie: bool = False  # a tied melee die sends the boarder home instead of staying

    def copy(self) -> Party:
        return _copy_party(self)

    @property
    def size(self) -> int:
        return self.marines + self.heroes


@dataclass(slots=True)
class Ship:
    id: str
    side: str
    vessel: str
    shape: Hull
    max_hull: int
    hull: int
    people: People
    guns: dict[str, int]                 # battery name -> cannons left
    status: Status = Status.AFLOAT
    oar_sweeps: int = 0
    boarders: dict[str, Party] = field(default_factory=dict)  # enemy parties aboard, by owner, in arrival order
    grappled: list[str] = field(default_factory=list)         # ships grappled to this one (sorted)
    # This round:
    activated: bool = False
    forfeit: bool = False                # struck in a collision before moving: no move this turn
    archers_fired: bool = False
    melee_fought: bool = False
    rammed: bool = False                 # made its one ram of the turn

    def copy(self) -> Ship:
        """An independent copy: people, guns, boarding parties and grapples copied (the hull is frozen)."""
        twin = _copy_ship(self)
        twin.people = _copy_people(self.people)
        twin.guns = dict(self.guns)
        twin.boarders = {owner: _copy_party(party) for owner, party in self.boarders.items()}
        twin.grappled = list(self.grappled)
        return twin

    @property
    def in_melee(self) -> bool:
        """Enemy boarders are fighting on its deck."""
        return bool(self.boarders)


@dataclass(frozen=True, slots=True)
class Iceberg:
    id: str
    shape: Hull


@dataclass(slots=True)
class BoardingOrder:
    """A captain's BOARDING declaration, resolved with everyone else's once all have declared."""

    ship: str
    target: str | None
    reinforce: bool
    marines: int
    heroes: int
    heroes_first: bool
    archer_target: str | None

    def copy(self) -> BoardingOrder:
        return _copy_order(self)


@dataclass(slots=True)
class GameState:
    width: float
    height: float
    wind: float
    sides: tuple[str, str]
    ships: dict[str, Ship]
    icebergs: list[Iceberg]
    round: int = 0
    order: list[str] = field(default_factory=list)       # activation order of this round
    cursor: int = -1                                      # index into ``order`` of the activated ship
    stage: str = "activations"                            # activations, boarding, melee
    pending: list[tuple[str, int]] = field(default_factory=list)  # decisions still to offer: (ship, Phase)
    decider: str | None = None
    phase: Phase = Phase.MANEUVER
    collision: tuple[str, str] | None = None              # (activated ship, struck ship) awaiting boarding
    boarding_orders: list[BoardingOrder] = field(default_factory=list)
    winner: str | None = None
    end_reason: str | None = None
    ended: bool = False

    @property
    def current(self) -> str | None:
        """The agent deciding now: ``decider`` (as the engines' common contract names it)."""
        return self.decider

    def copy(self) -> GameState:
        """An independent copy (for ``Game.clone``): the ships, orders and every list copied (icebergs
        and the ``pending`` and ``collision`` entries are immutable and shared)."""
        twin = _copy_state(self)
        twin.ships = {ship_id: ship.copy() for ship_id, ship in self.ships.items()}
        twin.icebergs = list(self.icebergs)
        twin.order = list(self.order)
        twin.pending = list(self.pending)
        twin.boarding_orders = [_copy_order(order) for order in self.boarding_orders]
        return twin

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_copy_people = field_copier(People)
_copy_party = field_copier(Party)
_copy_ship = field_copier(Ship)
_copy_order = field_copier(BoardingOrder)
_copy_state = field_copier(GameState)
