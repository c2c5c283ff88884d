"""Plain-data game state of `pursuit`: copyable, comparable and JSON-serialisable.

Positions are yards on an open plane (x east, y north). Durations that the
document counts in minutes or hours are stored as the round at whose end they
run out (see ``house_rules.rounds_per_minute`` / ``rounds_per_hour``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from typing import Any

from naval_env.core.copying import field_copier
from naval_env.core.state_parts import TurnOrderState


class Status(str, Enum):
    AFLOAT = "afloat"      # fighting (scuttled and grounded ships are still afloat)
    SINKING = "sinking"    # destroyed: sinks at the end of Size minutes; out of the fight
    SUNK = "sunk"
    ESCAPED = "escaped"    # got beyond the scenario's escape distance

    @property
    def fighting(self) -> bool:
        return self is AFLOAT


class Phase(IntEnum):
    COMMAND = 0    # crew propulsion order and the captain's command (forced rowing, inspiring)
    MANEUVER = 1   # flee, pursue, ram (or hold)
    GUNS = 2       # load, aim, fire each war machine


class Propulsion(str, Enum):
    OARS = "oars"
    SAILS = "sails"


class Drive(IntEnum):
    """How the ship is driven this round (set in its COMMAND phase)."""

    NONE = 0        # nobody rows or tends the sails: the ship makes no way
    ROWED = 1
    SAILED = 2
    SWITCHING = 3   # changing from oars to sails or back
    AGROUND = 4


# Status, Phase, Propulsion and Drive: members as module constants for the rules' hot paths; Python 3.11
# looks a member up on its Enum class through EnumType.__getattr__, several times slower than a global.
AFLOAT, SINKING, SUNK, ESCAPED = Status.AFLOAT, Status.SINKING, Status.SUNK, Status.ESCAPED
COMMAND, MANEUVER, GUNS = Phase.COMMAND, Phase.MANEUVER, Phase.GUNS
OARS, SAILS = Propulsion.OARS, Propulsion.SAILS
ROWED, SAILED = Drive.ROWED, Drive.SAILED


@dataclass(slots=True)
class Controller:
    """The pilot or captain; the ship's Agility comes from them."""

    role: str            # "pilot" or "captain"
    profession: str
    agility: int
    intellect: int
    will: int

    def copy(self) -> Controller:
        return _copy_controller(self)

    @property
    def is_captain(self) -> bool:
        return self.role == "captain"

    @property
    def ship_agility(self) -> int:
        """Pilot: half its Agility. Captain: half its Intellect or Will (the better one)."""
        score = self.agility if self.role == "pilot" else max(self.intellect, self.will)
        return score // 2


@dataclass(slots=True)
class Machine:
    """One war machine aboard, with its own gunners."""

    kind: str
    spot: int
    gunners: int
    gunner_intellect: int
    stone: bool
    health: int
    damage: int = 0
    destroyed: bool = False
    load_progress: int = 0
    loaded: bool = False
    aim_target: str | None = None               # ship being aimed at (aim in progress or done)
    aim_progress: int = 0
    aim_point: tuple[float, float] | None = None  # the space of the finished aim
    last_point: tuple[float, float] | None = None  # the space of the last shot
    misfired: bool = False
    repair_progress: int = 0

    def copy(self) -> Machine:
        """An independent copy: every field is immutable (the points are tuples)."""
        return _copy_machine(self)

    @property
    def damaged(self) -> bool:
        """Damage of half its Health or more: a bane to operate it, a boon to resist it."""
        return 2 * self.damage >= self.health

    @property
    def point(self) -> tuple[float, float] | None:
        """Where it fires without a new aim: the finished aim, else the last shot's space."""
        return self.aim_point if self.aim_point is not None else self.last_point


@dataclass(slots=True)
class Ship:
    id: str
    side: str
    ship_class: str
    controller: Controller
    x: float
    y: float
    health: int
    size: int
    radius: float
    draft: float
    maneuverability: int
    seaworthiness: int
    oars: int
    sails: int
    rowers: int
    sail_crew: int
    deck_spots: int
    crew: int                      # crew members alive aboard
    crew_max: int
    crew_agility: int
    crew_strength: int
    crew_will: int
    crew_health: int
    propulsion: Propulsion
    machines: list[Machine]
    damage: int = 0
    status: Status = Status.AFLOAT
    scuttled: bool = False
    grounded: bool = False
    on_rocks: bool = False
    aground_rounds: int = 0
    sinking_rounds: int = 0
    drive: Drive = Drive.NONE
    switching_until: int = -1      # round at whose end the change of propulsion is done
    rowed_rounds: int = 0          # consecutive rounds rowed
    rowed_this_round: bool = False
    fatigued: bool = False
    health_penalty: int = 0        # of each crew member (rowing while fatigued)
    forced_bonus: int = 0
    forced_until: int = -1
    forced_locked: bool = False    # a failed goad: no more until the captain rests
    inspire_bonus: int = 0
    inspire_until: int = -1
    inspire_retry_after: int = -1  # a failed attempt: no retry before the end of this round
    slowed: bool = False           # next maneuver at half Speed (crash across the path, mishap)
    helm_jammed: bool = False      # no maneuver next round (mishap)
    maneuver_banes: int = 0        # banes on the next maneuver roll (mishap)
    motion: tuple[float, float] = (0.0, 0.0)  # displacement of its latest maneuver

    def copy(self) -> Ship:
        """An independent copy: the controller and every war machine copied."""
        twin = _copy_ship(self)
        twin.controller = _copy_controller(self.controller)
        twin.machines = [_copy_machine(machine) for machine in self.machines]
        return twin

    @property
    def agility(self) -> int:
        return self.controller.ship_agility

    @property
    def defense(self) -> int:
        """Defense when piloted equals its Agility, minimum 5."""
        return max(5, self.agility)

    @property
    def remaining(self) -> int:
        return self.health - self.damage

    @property
    def crew_effective_health(self) -> int:
        health = self.crew_health - self.health_penalty
        return health if health > 0 else 0  # noqa: FURB136 - hot path: a comparison is cheaper than a call

    @property
    def crew_banes(self) -> int:
        """A fatigued crew rolls its challenges with 1 bane."""
        return 1 if self.fatigued else 0


@dataclass(slots=True)
class GameState(TurnOrderState):
    sides: tuple[str, str]
    ships: dict[str, Ship]
    order: list[str]                   # turn order: the first side's ships, then the second side's
    wind_strength: str
    wind_toward: float                 # degrees, 0 = east, 90 = north
    current_toward: float | None
    current_fast: bool
    round: int = 1
    turn: int = 0                      # index into ``order``
    phase: Phase = Phase.COMMAND
    winner: str | None = None
    end_reason: str | None = None
    ended: bool = False
    shots: int = 0                     # projectiles fired (for statistics)
    casualties: dict[str, int] = field(default_factory=dict)

    def copy(self) -> GameState:
        """An independent copy (for ``Game.clone``): the ships, order and casualties copied."""
        twin = _copy_state(self)
        twin.ships = {ship_id: ship.copy() for ship_id, ship in self.ships.items()}
        twin.order = list(self.order)
        twin.casualties = dict(self.casualties)
        return twin

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


_copy_controller = field_copier(Controller)
_copy_machine = field_copier(Machine)
_copy_ship = field_copier(Ship)
_copy_state = field_copier(GameState)
