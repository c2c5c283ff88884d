"""Plain-data game state of `pantheon`: copyable, comparable and JSON-serialisable."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, IntEnum

from naval_env.core.copying import field_copier
from naval_env.core.state_parts import OccupancyState, TurnOrderState


class Status(str, Enum):
    AFLOAT = "afloat"
    WRECKED = "wrecked"    # health <= 0: immobilised, 5 damage a turn until repaired
    SINKING = "sinking"    # lost twice its health: removed after three of its turns
    SUNK = "sunk"
    ESCAPED = "escaped"    # left by Fair Escape

    @property
    def on_board(self) -> bool:
        return self in _ON_BOARD

    @property
    def fighting(self) -> bool:
        """Still counts for its side: not sinking, sunk or gone."""
        return self in _FIGHTING


# Module constants: a member looked up on the Enum class costs more than the test itself.
_ON_BOARD = (Status.AFLOAT, Status.WRECKED, Status.SINKING)
_FIGHTING = (Status.AFLOAT, Status.WRECKED)


class Phase(IntEnum):
    START = 0   # release a boarded ship or declare Fair Escape
    MOVE = 1    # the movement step
    ATTACK = 2  # crew actions, retest orders and one attack
    ESCAPE = 3  # the extra move of Get Us Out Of Here!


@dataclass(frozen=True, slots=True)
class CaptainSheet:
    wits: int
    charisma: int
    resolve: int
    composure: int
    seamanship: int

    @property
    def attack_attribute(self) -> int:
        """Charisma or Wits, the captain's choice: always the better one."""
        return max(self.charisma, self.wits)

    @property
    def defense_attribute(self) -> int:
        """Resolve or Composure, the captain's choice: always the better one."""
        return max(self.resolve, self.composure)


@dataclass(slots=True)
class Ship:
    id: str
    side: str
    vessel: str
    captain: CaptainSheet
    x: int
    y: int
    facing: int
    max_health: int
    health: int
    speed: int
    damage: int
    maneuverability: int
    crew_slots: int
    shipwright: int
    fire_range: int
    initiative: int
    retests: int
    status: Status = Status.AFLOAT
    sinking_turns: int = 0
    crew_repair_used: bool = False
    buffs: tuple[int, ...] = ()           # crew-action codes chosen at the last attack step
    retest_on_failure: bool = False       # standing order for this captain's own tests
    retest_when_hit: bool = False         # standing order when defending until the next attack step
    moved_forward: bool = False           # this turn
    speed_this_turn: int = 0
    started_at_edge: bool = False
    boarding: str | None = None           # ship this one has boarded (tied as the attacker)
    boarded_by: str | None = None         # ship that boarded this one
    last_turn_start: int = -1             # global turn counter at this ship's last turn start
    targeted_at: int = -1                 # global turn counter when an action was last declared at it

    def copy(self) -> Ship:
        """An independent copy: every field is immutable (the captain sheet is frozen, buffs a tuple)."""
        return _copy_ship(self)

    @property
    def tied_to(self) -> str | None:
        return self.boarding or self.boarded_by

    @property
    def attack_pool(self) -> int:
        return self.captain.attack_attribute + self.captain.seamanship + self.maneuverability

    @property
    def defense_pool(self) -> int:
        return self.captain.defense_attribute + self.captain.seamanship + self.maneuverability


@dataclass(slots=True)
class GameState(TurnOrderState, OccupancyState):
    width: int
    height: int
    wind: int
    sides: tuple[str, str]
    ships: dict[str, Ship]
    order: list[str]                     # initiative order, highest first
    round: int = 1
    turn: int = 0                        # index into ``order``
    turn_counter: int = 0                # turns begun since the start (for Fair Escape)
    phase: Phase = Phase.START
    winner: str | None = None
    end_reason: str | None = None
    ended: bool = False
    fair_escape_ok: bool = False         # the current ship may declare Fair Escape this turn
    occupancy: dict[tuple[int, int], str] = field(default_factory=dict)

    def copy(self) -> GameState:
        """An independent copy (for ``Game.clone``): the ships, order and occupancy copied."""
        twin = _copy_state(self)
        twin.ships = {ship_id: ship.copy() for ship_id, ship in self.ships.items()}
        twin.order = list(self.order)
        twin.occupancy = dict(self.occupancy)
        return twin


_copy_ship = field_copier(Ship)
_copy_state = field_copier(GameState)
