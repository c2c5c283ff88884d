"""Plain-data game state of `crew_phase`: copyable, comparable and JSON-serialisable."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, IntEnum

from naval_env.core.copying import field_copier
from naval_env.core.state_parts import OccupancyState, TurnOrderState


class Status(str, Enum):
    AFLOAT = "afloat"
    SINKING = "sinking"   # hull points at 0 or below: immobilised, sinking damage each turn
    SUNK = "sunk"         # reached minus half its maximum: out of the game

    @property
    def on_board(self) -> bool:
        return self is not Status.SUNK


class Phase(IntEnum):
    CREW = 0     # Character Phase: the captain assigns every crew member's action
    MOVE = 1     # Ship Phase: the maneuver
    ATTACK = 2   # Ship Phase: ram and the operated weapons' targets


@dataclass(slots=True)
class CrewMember:
    index: int
    role: str
    strength: int
    dexterity: int
    intelligence: int
    charisma: int
    proficiency: int
    water_vehicles: bool
    siege_weapons: bool
    dex_save: int
    ac: int
    max_hp: int
    hp: int
    heals_left: int
    prone: bool = False
    action: int = 0          # crew-action code chosen this round (0: none)

    def copy(self) -> CrewMember:
        return _copy_crew(self)

    @property
    def conscious(self) -> bool:
        """Able to take crew actions: not incapacitated."""
        return self.hp > 0


@dataclass(slots=True)
class WeaponState:
    index: int
    name: str
    arc: int                 # index into config.ARCS
    ability: str
    attack_bonus: int
    dice: tuple[int, int, int]   # count, sides, bonus
    range_ft: int
    long_range_ft: int
    max_hp: int
    hp: int
    ac: int
    ammo: int
    grapples: bool
    operator: int | None = None      # crew member who Operated it this round (fires on the ship's turn)
    readied_by: int | None = None    # crew member who readied it this round (fires on the trigger)
    holding: str | None = None       # ship held by this grappling weapon

    def copy(self) -> WeaponState:
        return _copy_weapon(self)

    @property
    def working(self) -> bool:
        return self.hp > 0


@dataclass(frozen=True, slots=True)
class Grapple:
    """``holder`` grapples ``held`` with its weapon ``weapon``; ``weapon`` None is the mutual grapple of a ram."""

    holder: str
    held: str
    weapon: int | None

    @property
    def from_ram(self) -> bool:
        return self.weapon is None

    def involves(self, ship_id: str) -> bool:
        return ship_id in (self.holder, self.held)

    def other(self, ship_id: str) -> str:
        return self.held if ship_id == self.holder else self.holder


@dataclass(slots=True)
class Ship:
    id: str
    side: str
    vessel: str
    slot: int                # order in the scenario (ties of initiative go to the lower slot)
    size: int                # index into config.SIZES
    speed_unit: int
    sections: int
    self_steering: bool
    agile: bool
    rails: bool
    ac: int
    base_initiative: int
    max_hp: int
    hp: int
    hull_die: int
    hull_dice_max: int
    hull_dice_left: int
    x: int
    y: int
    facing: int
    crew: list[CrewMember]
    weapons: list[WeaponState]
    status: Status = Status.AFLOAT
    # Set in the Character Phase, spent in the Ship Phase of the same round.
    speed_ft: int = 0              # speed gained from Navigate
    sections_manned: int = 0       # bit mask of navigated sections
    helmsman: int | None = None    # crew member who took Steer
    steer_ok: bool = False         # the helm works this round (rough-weather check passed)
    command_successes: int = 0
    cut_lines: bool = False
    # The ship's own Ship Phase turn.
    movement_left: int = 0         # feet
    rammed: bool = False

    def copy(self) -> Ship:
        """An independent copy: every crew member and weapon copied."""
        twin = _copy_ship(self)
        twin.crew = [_copy_crew(member) for member in self.crew]
        twin.weapons = [_copy_weapon(weapon) for weapon in self.weapons]
        return twin

    @property
    def floor(self) -> int:
        """Lowest hull points: minus half the maximum (rounded toward zero)."""
        return -(self.max_hp // 2)

    @property
    def below_half(self) -> bool:
        return 2 * self.hp < self.max_hp

    @property
    def normal_max_speed(self) -> int:
        return self.speed_unit * self.sections

    @property
    def can_turn(self) -> bool:
        """Whether the ship may change facing this round: it steers itself or the helm is manned and working."""
        return self.self_steering or self.steer_ok

    def conscious_crew(self) -> int:
        return sum(1 for c in self.crew if c.hp > 0)

    def has_conscious_crew(self) -> bool:
        for member in self.crew:  # a plain loop: any() over a generator costs several times more
            if member.hp > 0:
                return True
        return False


@dataclass(slots=True)
class GameState(TurnOrderState, OccupancyState):
    width: int
    height: int
    rough: bool
    sides: tuple[str, str]
    ships: dict[str, Ship]
    character_order: list[str]           # fixed ship initiative, highest first
    order: list[str]                     # order of the current phase
    initiative: dict[str, int]           # ship initiative of the current Ship Phase
    round: int = 1
    ship_phase: bool = False
    turn: int = -1                       # index into ``order``
    phase: Phase = Phase.CREW
    grapples: list[Grapple] = field(default_factory=list)
    occupancy: dict[tuple[int, int], str] = field(default_factory=dict)
    ended: bool = False
    winner: str | None = None
    end_reason: str | None = None

    def copy(self) -> GameState:
        """An independent copy (for ``Game.clone``): the ships and every list and dict copied (grapples
        are frozen, so their list is copied and they are shared)."""
        twin = _copy_state(self)
        twin.ships = {ship_id: ship.copy() for ship_id, ship in self.ships.items()}
        twin.character_order = list(self.character_order)
        twin.order = list(self.order)
        twin.initiative = dict(self.initiative)
        twin.grapples = list(self.grapples)
        twin.occupancy = dict(self.occupancy)
        return twin


_copy_crew = field_copier(CrewMember)
_copy_weapon = field_copier(WeaponState)
_copy_ship = field_copier(Ship)
_copy_state = field_copier(GameState)
