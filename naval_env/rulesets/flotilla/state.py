"""Plain-data game state of `flotilla`: copyable, comparable and JSON-serialisable."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from naval_env.core.copying import field_copier
from naval_env.core.state_parts import OccupancyState
from naval_env.rulesets.flotilla.geometry import Square

CALM = -1  # GameState.wind when no wind blows


class Phase(IntEnum):
    DEPLOY = 0    # before the battle: each captain chooses its facing
    MOVE = 1      # movement phase: the base move, a maneuver, a ram, a boarding or breaking free
    ATTACK = 2    # attack phase: gun target, mage target, boarding fight
    REACTION = 3  # the defending captain chooses to dodge or counter-attack an incoming attack


class Unit(IntEnum):
    """What fires or is fired at: the ship's guns (its hull when hit) or its mage squad."""

    SHIP = 0
    MAGES = 1


# The members as plain names for the hot paths: ``Phase.MOVE`` is looked up through the enum's metaclass,
# about fifteen times slower than a module global, and the engine tests the phase at every step.
DEPLOY, MOVE, ATTACK, REACTION = Phase.DEPLOY, Phase.MOVE, Phase.ATTACK, Phase.REACTION
SHIP, MAGES = Unit.SHIP, Unit.MAGES


@dataclass(slots=True)
class Ship:
    id: str
    side: str
    ship_class: str
    x: int                      # bow square
    y: int
    facing: int                 # Compass value
    size: int
    max_cohesion: int
    cohesion: int
    captain_dice: int           # Steering Roll dice of the captain (command-room hits remove them)
    captain_alive: bool
    crew_hits: int              # lasting steering penalty dice from crew hits
    combat: int
    range: int
    boarding: int
    base_movement: int
    propulsion_hits: int
    armour: bool
    ram: bool
    bow_guns: bool
    broadside_guns: bool
    sails: bool
    hero: bool
    mages: int                  # mage squad cohesion; 0: none or lost
    max_mages: int
    afloat: bool = True
    grappled_with: str | None = None
    grappled_round: int = 0     # round the current grapple was made
    break_failures: int = 0     # failed attempts to break free of the current grapple
    stuck: bool = False         # loses its next movement (after a collision)
    moved: bool = False         # this round
    tried_break_free: bool = False
    attacked: bool = False      # this round
    squares: tuple[Square, ...] = ()  # bow first; kept in step with x, y, facing by movement.place

    def copy(self) -> Ship:
        """An independent copy: every field is immutable (the squares are a tuple)."""
        return _copy_ship(self)

    @property
    def movement(self) -> int:
        """Movement before the wind: the class's, less propulsion hits."""
        squares = self.base_movement - self.propulsion_hits
        return squares if squares > 0 else 0  # noqa: FURB136 - hot path: a comparison is cheaper than a call


@dataclass(slots=True)
class Attack:
    """One attack waiting to be resolved: ``unit`` of ``attacker`` fires at ``target_unit`` of ``target``."""

    attacker: str
    unit: Unit
    target: str
    target_unit: Unit

    def copy(self) -> Attack:
        return _copy_attack(self)


@dataclass(slots=True)
class GameState(OccupancyState):
    width: int
    height: int
    sides: tuple[str, str]
    attacker_side: str
    ships: dict[str, Ship]
    deploy_order: list[str]
    order: list[str] = field(default_factory=list)   # initiative order of this round, best first
    wind: int = CALM
    round: int = 0
    phase: Phase = Phase.DEPLOY
    cursor: int = 0                                   # index into deploy_order or order
    actor: str | None = None                          # whose decision it is
    attack_queue: list[Attack] = field(default_factory=list)
    pending: Attack | None = None                     # the attack a REACTION decision answers
    winner: str | None = None
    end_reason: str | None = None
    ended: bool = False
    occupancy: dict[Square, str] = field(default_factory=dict)

    @property
    def current(self) -> str | None:
        """The agent deciding now: ``actor`` (as the engines' common contract names it)."""
        return self.actor

    def copy(self) -> GameState:
        """An independent copy (for ``Game.clone``): the ships, the attacks and every list and dict copied."""
        twin = _copy_state(self)
        twin.ships = {ship_id: ship.copy() for ship_id, ship in self.ships.items()}
        twin.deploy_order = list(self.deploy_order)
        twin.order = list(self.order)
        twin.attack_queue = [_copy_attack(attack) for attack in self.attack_queue]
        twin.pending = None if self.pending is None else _copy_attack(self.pending)
        twin.occupancy = dict(self.occupancy)
        return twin


_copy_ship = field_copier(Ship)
_copy_attack = field_copier(Attack)
_copy_state = field_copier(GameState)
