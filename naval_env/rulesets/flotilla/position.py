"""`flotilla` positions: the map, the fleets, the wind and the round as JSON, in and out.

The full form (what :meth:`FlotillaPositions.dump` writes) holds every field of the game state, so a
loaded game plays on exactly as the original. The short form an app writes by hand needs only the
ships' ids, classes and bow squares; every other field defaults from the ship class, the scenario's
set-up of that ship id (upgrades, player captain, hero, facing) and the rules (see the "Positions"
section of docs/rules/flotilla.md). Fields the rules derive (each ship's squares, the occupancy of the
map, the deploy order, a mage squad's full strength) are rebuilt, not asked for.
"""

from __future__ import annotations

from typing import Annotated, Literal, cast, get_args

from pydantic import Field

from naval_env.core.dice import Dice
from naval_env.core.grid import Compass
from naval_env.core.position import (
    PositionCodec,
    PositionModel,
    Problems,
    side_of,
)
from naval_env.core.position_checks import ShipsBuilder, given_or, known, setup_of
from naval_env.core.position_fields import MAX_ROUND, Name, PositionPart
from naval_env.rulesets.flotilla.combat import can_counter
from naval_env.rulesets.flotilla.config import (
    Direction,
    FlotillaConfig,
    Scenario,
    ShipSetup,
    Trait,
    Upgrade,
    WindName,
)
from naval_env.rulesets.flotilla.engine import WIND_CODES, FlotillaGame, wind_name
from naval_env.rulesets.flotilla.fleet import build_ship
from naval_env.rulesets.flotilla.geometry import footprint, gap, on_map
from naval_env.rulesets.flotilla.state import (
    ATTACK,
    DEPLOY,
    MAGES,
    MOVE,
    REACTION,
    SHIP,
    Attack,
    GameState,
    Phase,
    Ship,
    Unit,
)

PhaseName = Literal["deploy", "move", "attack", "reaction"]
UnitName = Literal["ship", "mages"]
StatusName = Literal["afloat", "sunk"]
EndReason = Literal["last side afloat", "no ship afloat", "round_limit"]
#: The on/off traits in the order a dump lists them.
TRAITS: tuple[str, ...] = get_args(Trait)
_UNITS: dict[str, Unit] = {"ship": SHIP, "mages": MAGES}
#: Ships a position may list: two sides of at most house_rules.max_ships_per_side (at most 8 in any config).
MAX_SHIPS = 16
#: Largest map: house_rules.map_size is at most 40 in any config.
MAX_MAP = 40
#: Most cohesion a ship (or a mage squad) may have: a class's cohesion is at most 30 in any config.
MAX_COHESION = 30
#: Highest upgrade level (ASSUMPTION: the shipped price lists stop at 3; the builder checks each against the
#: config's own list).
MAX_UPGRADE_LEVEL = 10


class ShipPosition(PositionPart):
    """One ship. Only ``id``, ``ship_class``, ``x`` and ``y`` are required; the rest defaults."""

    id: Name
    """``<side>_<i>``, numbered from 0 per side (also the captain's agent id)."""
    side: Name | None = None
    """The ship's side, one of the scenario's two. Default: the prefix of ``id``."""
    ship_class: Name
    """Ship class, a key of the config's ship_classes (cutter, galley, brig, frigate, galleon)."""
    x: int = Field(ge=0, le=MAX_MAP - 1)
    """Bow square, west to east, from 0. A sunk ship keeps the squares it sank on."""
    y: int = Field(ge=0, le=MAX_MAP - 1)
    """Bow square, north to south, from 0."""
    facing: Direction | None = None
    """Compass facing of the bow (N is y decreasing); the ship takes its ``size`` squares in a line from the
    bow astern. Default: the scenario's facing for this ship id, else its side's."""
    upgrades: dict[Upgrade, Annotated[int, Field(ge=0, le=MAX_UPGRADE_LEVEL)]] | None = Field(default=None,
                                                                                           exclude=True)
    """Short form only: upgrades (name: level) used to default the stats below. Default: the scenario's for
    this ship id when it is the same class, else none. Not part of the state: a dump gives the stats."""
    captain_perception: int | None = Field(default=None, ge=1, le=6, exclude=True)
    """Short form only: a player captain's Perception, replacing the class's steering dice in the default of
    ``steering``. Default: the scenario's for this ship id. Not part of the state."""
    hero: bool | None = None
    """A hero aboard (+1 boarding die; rolls its fate when the ship sinks). Default: the scenario's for this
    ship id, else false."""
    size: int | None = Field(default=None, ge=1, le=4)
    """Squares the ship takes. Default: the class's."""
    steering: int | None = Field(default=None, ge=0, le=12)
    """The captain's Steering Roll dice now (each command-room hit removes one; 0: the captain is dead).
    Default: the class's (or ``captain_perception``) + 1 per veteran captain level."""
    captain_alive: bool | None = None
    """Whether the captain lives (a dead captain's ship moves no more, or drifts). Default: ``steering`` > 0."""
    crew_hits: int = Field(default=0, ge=0, le=MAX_COHESION)
    """Crew hits taken: one penalty die each on every steering roll (a hit takes cohesion)."""
    propulsion_hits: int = Field(default=0, ge=0, le=MAX_COHESION)
    """Propulsion hits taken: one square less movement each (a hit takes cohesion)."""
    max_cohesion: int | None = Field(default=None, ge=1, le=MAX_COHESION)
    """Cohesion the ship starts with. Default: the class's."""
    cohesion: int | None = Field(default=None, ge=0, le=MAX_COHESION)
    """Cohesion now, 0 to ``max_cohesion``; at 0 the ship has sunk. Default: ``max_cohesion``."""
    combat: int | None = Field(default=None, ge=1, le=12)
    """Combat Roll dice. Default: the class's + 1 with better artillery."""
    range: int | None = Field(default=None, ge=1, le=16)
    """Gun range in squares. Default: the class's + 1 with better artillery."""
    boarding: int | None = Field(default=None, ge=1, le=12)
    """Boarding Roll dice (without the hero's). Default: the class's + 1 per elite crew level, at most
    house_rules.max_boarding_dice."""
    movement: int | None = Field(default=None, ge=0, le=8)
    """Squares of the base move before propulsion hits and the wind. Default: the class's."""
    traits: list[Trait] | None = Field(default=None, max_length=len(TRAITS))
    """On/off traits: armour, ram, bow_guns, broadside_guns, mage_squad, sails. Default: the class's and
    the upgrades'."""
    mages: int | None = Field(default=None, ge=0, le=MAX_COHESION)
    """Mage squad cohesion now (0: none or lost); at most house_rules.mage_cohesion, with the mage_squad
    trait only. Default: house_rules.mage_cohesion with the trait, else 0."""
    status: StatusName | None = None
    """afloat or sunk; sunk exactly at cohesion 0. Default: from ``cohesion``."""
    grappled_with: Name | None = None
    """The enemy ship this one is grappled with (both stop moving); the other ship's side of the grapple
    defaults from this one."""
    grappled_round: int = Field(default=0, ge=0, le=MAX_ROUND)
    """Round the latest grapple was made (breaking free is allowed from the next round)."""
    break_failures: int = Field(default=0, ge=0, le=MAX_ROUND)
    """Failed attempts to break free of the current grapple: one penalty die each on the next (one a round)."""
    stuck: bool = False
    """Loses its next movement (after a collision)."""
    moved: bool | None = None
    """Has had its movement this round. Default: true for a ship afloat whose movement step has passed
    (before ``turn`` in ``order`` in the move phase; every ship afloat later in the round), else false."""
    tried_break_free: bool = False
    """Has tried to break free this round (once a round)."""
    attacked: bool | None = None
    """Has had its attack step this round. Default: true for a ship afloat before ``turn`` in ``order`` in
    the attack phase (and the attacker of a reaction), else false."""


class AttackPosition(PositionPart):
    """One attack declared and not yet resolved: ``unit`` of ``attacker`` fires at ``target_unit`` of
    ``target``."""

    attacker: Name
    """The attacking ship's id."""
    unit: UnitName
    """What attacks: the ship's guns or its mage squad."""
    target: Name
    """The enemy ship's id."""
    target_unit: UnitName
    """What is attacked: the ship (its cohesion) or its mage squad."""


class Result(PositionPart):
    """How the battle ended."""

    winner: Name | None
    """The winning side; null for a draw."""
    reason: EndReason
    """Why it ended: one side afloat, none, or the round limit (a draw)."""


class FlotillaPosition(PositionModel):
    """A `flotilla` battle at one decision: the map, the wind, the fleets and whose decision it is."""

    ruleset: Literal["flotilla"]
    """Always ``flotilla``."""
    scenario: Name | None = None
    """The scenario whose sides, roles, situations (wind, current) and ship set-ups apply. Default: the
    config's default."""
    map_size: int | None = Field(default=None, ge=1, le=MAX_MAP)
    """Squares a side of the square map; x grows east, y south, from 0. Must be the config's
    house_rules.map_size. Default: that."""
    attacker: Name | None = None
    """The attacking side (the other defends and deploys first). Default: the scenario's."""
    wind: WindName | None = None
    """Direction the wind blows toward, or calm. Default: calm in the deploy phase (not yet rolled); else the
    scenario's fixed wind; else rolled with the game's dice on the set-up table (round 1, or a scenario
    whose wind is not rolled each round) or on the round table."""
    round: int | None = Field(default=None, ge=0, le=MAX_ROUND)
    """Round number, from 1; 0 in the deploy phase. Default: 0 in the deploy phase, else 1."""
    phase: PhaseName | None = None
    """Decision of ``to_move``: deploy (choose a facing before the battle), move (the movement step),
    attack (the attack step) or reaction (dodge or counter the ``pending`` attack). Default: reaction with a
    pending attack, else move."""
    to_move: Name | None = None
    """The ship id (agent) whose decision it is; null once the game is over (or left to its default while it
    goes on). Default: the ship at ``turn`` (in a reaction: the pending attack's target), else the first
    ship afloat in ``order`` (in the deploy phase: the first in the deploy order, the defender's ships
    first)."""
    order: list[Name] | None = Field(default=None, max_length=MAX_SHIPS)
    """This round's initiative order, best first: every ship afloat at the start of the round. Empty in the
    deploy phase. Default: rolled as a round's start rolls it (opposed steering rolls, with the game's
    dice)."""
    turn: int | None = Field(default=None, ge=0, le=MAX_SHIPS)
    """Index in ``order`` (in the deploy phase: in the deploy order) of the ship whose step it is (or was,
    once over); in a reaction, the attacker's. Default: ``to_move``'s index (the attacker's in a reaction)."""
    pending: AttackPosition | None = None
    """The attack the reaction answers; null outside the reaction phase."""
    queue: list[AttackPosition] = Field(default_factory=list, max_length=2)
    """Attacks declared at the same attack step, resolved after ``pending`` (a ship's guns and its mage
    squad each attack once a step); empty outside a reaction."""
    result: Result | None = None
    """Null while the battle goes on."""
    ships: list[ShipPosition] = Field(max_length=MAX_SHIPS)
    """Every ship in agent order: the scenario's first side, then the second, each numbered from 0."""


def _dump_attack(attack: Attack) -> AttackPosition:
    return AttackPosition(attacker=attack.attacker, unit=attack.unit.name.lower(),  # type: ignore[arg-type]
                          target=attack.target, target_unit=attack.target_unit.name.lower())  # type: ignore[arg-type]


def _dump_ship(ship: Ship) -> ShipPosition:
    flags = {"armour": ship.armour, "ram": ship.ram, "bow_guns": ship.bow_guns,
             "broadside_guns": ship.broadside_guns, "mage_squad": ship.max_mages > 0, "sails": ship.sails}
    return ShipPosition(
        id=ship.id, side=ship.side, ship_class=ship.ship_class, x=ship.x, y=ship.y,
        facing=Compass(ship.facing).name,  # type: ignore[arg-type]
        hero=ship.hero, size=ship.size, steering=ship.captain_dice, captain_alive=ship.captain_alive,
        crew_hits=ship.crew_hits, propulsion_hits=ship.propulsion_hits, max_cohesion=ship.max_cohesion,
        cohesion=ship.cohesion, combat=ship.combat, range=ship.range, boarding=ship.boarding,
        movement=ship.base_movement, traits=cast(list[Trait], [t for t in TRAITS if flags[t]]),
        mages=ship.mages, status="afloat" if ship.afloat else "sunk", grappled_with=ship.grappled_with,
        grappled_round=ship.grappled_round, break_failures=ship.break_failures, stuck=ship.stuck,
        moved=ship.moved, tried_break_free=ship.tried_break_free, attacked=ship.attacked,
    )


class _Builder(ShipsBuilder[Ship]):
    """Checks a position against the config, scenario and rules, noting every problem, and builds its state."""

    config: FlotillaConfig
    scenario: Scenario
    position: FlotillaPosition

    def __init__(self, config: FlotillaConfig, scenario: Scenario, position: FlotillaPosition,
                 problems: Problems) -> None:
        super().__init__(config, scenario, position, problems)
        self.size = self.rules.map_size
        p = position
        self.phase = Phase[p.phase.upper()] if p.phase else (REACTION if p.pending is not None else MOVE)
        self.round = p.round if p.round is not None else (0 if self.phase is DEPLOY else 1)
        self.attacker = p.attacker or next(side.name for side in scenario.sides if side.role == "attacker")

    def state(self, dice: Dice) -> GameState | None:
        """The state with every field but the turn's defaults (:meth:`settle`), or None with problems noted.
        The wind is rolled (when it must be) only once every other field has passed."""
        p, add = self.position, self.problems.add
        if p.map_size is not None and p.map_size != self.size:
            add("map_size", f"{p.map_size}; the map is house_rules.map_size = {self.size} squares a side "
                            "(load a config with another map_size to play on another map)")
        if self.attacker not in self.sides:
            add("attacker", f"{self.attacker!r} is not a side; sides: {list(self.sides)}")
        ships = self.checked_ships()
        if ships is None:
            return None
        defender = next(side for side in self.sides if side != self.attacker)
        deploy_order = [s for s in ships if ships[s].side == defender] + [
            s for s in ships if ships[s].side == self.attacker]
        state = GameState(
            self.size, self.size, (self.sides[0], self.sides[1]), self.attacker, ships, deploy_order,
            order=list(p.order or []), wind=WIND_CODES[self._wind(ships, dice)], round=self.round,
            phase=self.phase, cursor=p.turn or 0, actor=p.to_move,
            attack_queue=[_attack(a) for a in p.queue], pending=_attack(p.pending) if p.pending else None,
            winner=p.result.winner if p.result else None, end_reason=p.result.reason if p.result else None,
            ended=p.result is not None,
        )
        if p.to_move is None and p.result is None and p.turn is None and p.order is not None and not (
                self.phase is REACTION or self.phase is DEPLOY):
            state.cursor = next(i for i, s in enumerate(p.order) if ships[s].afloat)
        return state

    def _wind(self, ships: dict[str, Ship], dice: Dice) -> WindName:
        """The given wind, else calm before the battle, the scenario's fixed wind, or one rolled as the engine
        rolls it (the set-up table in round 1, the round table in later rounds while it is rolled each
        round)."""
        p, situations = self.position, self.scenario.situations
        if p.wind is not None:
            return p.wind
        if self.phase is DEPLOY:
            return "calm"
        if situations.wind != "random":
            return situations.wind
        rolled_each_round = self.round > 1 and situations.wind_each_round and any(
            s.sails and s.afloat for s in ships.values())
        table = self.rules.round_wind_table if rolled_each_round else self.rules.setup_wind_table
        return table[dice.d(len(table), "wind") - 1]

    # ------------------------------------------------------------------ ships
    def build_ship(self, k: int, given: ShipPosition) -> Ship | None:
        """The ship with every default filled in (as ``FlotillaGame._set_up`` would), or None."""
        where, add, rules = f"ships.{k}", self.problems.add, self.rules
        if known(self.config.ship_classes, given.ship_class, f"{where}.ship_class", "ship class",
                 self.problems) is None:
            return None
        side_name = side_of(given.id)
        if side_name not in self.sides:
            return None
        setup: ShipSetup | None = setup_of(self.scenario, given.id)
        same = setup if setup is not None and setup.ship == given.ship_class else None
        upgrades = given.upgrades if given.upgrades is not None else dict(same.upgrades if same else {})
        perception = given.captain_perception if given.captain_perception is not None else (
            setup.captain_perception if setup else None)
        build = build_ship(self.config, ShipSetup(ship=given.ship_class, upgrades=upgrades,
                                                  captain_perception=perception))
        for problem in build.problems:
            add(f"{where}.upgrades", f"{problem}")
        side = next(s for s in self.scenario.sides if s.name == side_name)
        facing = given.facing or (setup.facing if setup and setup.facing else None) or side.facing
        traits = set(given.traits) if given.traits is not None else set(build.traits)
        max_mages = rules.mage_cohesion if "mage_squad" in traits else 0
        max_cohesion = given_or(given.max_cohesion, build.cohesion)
        cohesion = given_or(given.cohesion, max_cohesion)
        steering = given_or(given.steering, build.steering)
        ship = Ship(
            id=given.id, side=side_name, ship_class=given.ship_class, x=given.x, y=given.y,
            facing=int(Compass.parse(facing)), size=given_or(given.size, build.size), max_cohesion=max_cohesion,
            cohesion=cohesion, captain_dice=steering,
            captain_alive=given.captain_alive if given.captain_alive is not None else steering > 0,
            crew_hits=given.crew_hits, combat=given_or(given.combat, build.combat),
            range=given_or(given.range, build.range), boarding=given_or(given.boarding, build.boarding),
            base_movement=given_or(given.movement, build.movement), propulsion_hits=given.propulsion_hits,
            armour="armour" in traits, ram="ram" in traits, bow_guns="bow_guns" in traits,
            broadside_guns="broadside_guns" in traits, sails="sails" in traits,
            hero=given.hero if given.hero is not None else bool(setup and setup.hero),
            mages=given_or(given.mages, max_mages), max_mages=max_mages,
            afloat=given.status == "afloat" if given.status is not None else cohesion > 0,
            grappled_with=given.grappled_with, grappled_round=given.grappled_round,
            break_failures=given.break_failures, stuck=given.stuck, moved=bool(given.moved),
            tried_break_free=given.tried_break_free, attacked=bool(given.attacked),
        )
        self._check_ship(where, ship)
        return ship

    def _check_ship(self, where: str, ship: Ship) -> None:
        add, size, rules = self.problems.add, self.size, self.rules
        board = f"the {size}x{size} map"
        if not 0 <= ship.x < size:
            add(f"{where}.x", f"{ship.x} is off {board}: x is 0 to {size - 1}")
        if not 0 <= ship.y < size:
            add(f"{where}.y", f"{ship.y} is off {board}: y is 0 to {size - 1}")
        squares = footprint(ship.x, ship.y, ship.facing, ship.size)
        if 0 <= ship.x < size and 0 <= ship.y < size and not on_map(squares, size, size):
            add(where, f"{ship.id}'s {ship.size} squares from the bow ({ship.x}, {ship.y}) facing "
                       f"{Compass(ship.facing).name} are {list(squares)}: they run off {board} (0 to {size - 1})")
        if ship.cohesion > ship.max_cohesion:
            add(f"{where}.cohesion", f"{ship.cohesion} is above max_cohesion {ship.max_cohesion}: cohesion is 0 to "
                                     f"{ship.max_cohesion}")
        elif ship.afloat and ship.cohesion == 0:
            add(f"{where}.status", "afloat at cohesion 0: a ship that loses all its cohesion sinks at once")
        elif not ship.afloat and ship.cohesion > 0:
            add(f"{where}.status", f"sunk at cohesion {ship.cohesion}: a ship sinks only at cohesion 0")
        if ship.mages > ship.max_mages:
            add(f"{where}.mages", f"{ship.mages}; " + (
                f"a mage squad has at most house_rules.mage_cohesion = {ship.max_mages}" if ship.max_mages
                else "no mage squad aboard (no mage_squad trait): 0"))
        if ship.boarding > rules.max_boarding_dice:
            add(f"{where}.boarding", f"{ship.boarding} dice; at most house_rules.max_boarding_dice = "
                                     f"{rules.max_boarding_dice}")
        if ship.afloat and ship.captain_alive and ship.captain_dice == 0:
            add(f"{where}.captain_alive", "true with steering 0: a captain whose last steering die is lost is dead")
        elif ship.afloat and not ship.captain_alive and ship.captain_dice > 0:
            add(f"{where}.steering", f"{ship.captain_dice} with the captain dead: a dead captain rolls no dice (0)")
        if ship.grappled_round > self.round:
            add(f"{where}.grappled_round", f"{ship.grappled_round} is after this round ({self.round})")
        # Each hit-location roll follows at least one point of cohesion lost (and none at 0: the ship sinks), so
        # the lasting hits never outnumber the cohesion lost: this keeps them within max_cohesion in play too.
        lost = max(0, ship.max_cohesion - ship.cohesion)  # (cohesion above its maximum is refused above)
        if ship.crew_hits + ship.propulsion_hits > lost:
            add(f"{where}.crew_hits", f"{ship.crew_hits} crew and {ship.propulsion_hits} propulsion hits with "
                                      f"{lost} cohesion lost ({ship.cohesion} of {ship.max_cohesion}): each "
                                      "hit costs at least one cohesion, so together at most the cohesion lost")
        # One attempt to break free a round, from the round after the grapple was made.
        if ship.break_failures > max(0, self.round - ship.grappled_round):
            add(f"{where}.break_failures", f"{ship.break_failures} failed attempts to break free of a grapple made in "
                                           f"round {ship.grappled_round}, by round {self.round}: one a round after "
                                           f"it, so at most {max(0, self.round - ship.grappled_round)}")

    # ------------------------------------------------------- between ships
    def check_between(self, ships: dict[str, Ship]) -> None:
        add = self.problems.add
        taken: dict[tuple[int, int], str] = {}
        for k, ship in enumerate(ships.values()):
            if not ship.afloat:
                continue
            for square in footprint(ship.x, ship.y, ship.facing, ship.size):
                other = taken.setdefault(square, ship.id)
                if other != ship.id:
                    add(f"ships.{k}", f"{ship.id} is on square {square} with {other}: two ships afloat cannot "
                                      "share a square (a ship takes its size in squares from the bow astern)")
                    break
        self._check_grapples(ships)

    def _check_grapples(self, ships: dict[str, Ship]) -> None:
        """Each ``grappled_with`` names an adjacent enemy afloat, in one grapple; the other side of a grapple
        given on one ship only is filled in."""
        add, given = self.problems.add, self.position.ships
        ids = list(ships)
        for k, ship in enumerate(ships.values()):
            if ship.grappled_with is None:
                continue
            where, other = f"ships.{k}.grappled_with", ships.get(ship.grappled_with)
            if other is None:
                add(where, f"{ship.grappled_with!r} is not a ship here; ships: {ids}")
            elif other.side == ship.side:
                add(where, f"{other.id} is on {ship.id}'s own side: a ship grapples an enemy")
            elif not (ship.afloat and other.afloat):
                add(where, f"{ship.id} is {_status(ship)} and {other.id} {_status(other)}: only ships afloat "
                           "stay grappled")
            elif gap(footprint(ship.x, ship.y, ship.facing, ship.size),
                     footprint(other.x, other.y, other.facing, other.size)) != 1:
                add(where, f"{other.id} is not alongside {ship.id}: grappled ships are adjacent")
            elif other.grappled_with not in (None, ship.id):
                add(where, f"{other.id} is grappled with {other.grappled_with}: one grapple per ship")
            elif other.grappled_with is None:
                other.grappled_with = ship.id
                if "grappled_round" not in given[ids.index(other.id)].model_fields_set:
                    other.grappled_round = ship.grappled_round
            elif other.grappled_round != ship.grappled_round:
                add(f"ships.{k}.grappled_round", f"{ship.grappled_round}, but {other.id}'s side of the grapple "
                                                 f"says {other.grappled_round}: one grapple, one round")

    # ------------------------------------------------------------ the turn
    def check_turn(self, ships: dict[str, Ship]) -> None:
        """The turn fields checked before any die is rolled (the decision itself in :meth:`settle`)."""
        p, add = self.position, self.problems.add
        self.check_outcome(p.result, {s.side for s in ships.values() if s.afloat}, "afloat", self.round)
        if p.to_move is not None and p.to_move not in ships:
            add("to_move", f"{p.to_move!r} is not a ship here; ships: {list(ships)}")
        elif p.to_move is not None and p.result is None and not ships[p.to_move].afloat:
            add("to_move", f"{p.to_move} is sunk: only a ship afloat has decisions")
        self._check_phase(ships)
        self._check_attacks(ships)
        self._check_order(ships)

    def _check_phase(self, ships: dict[str, Ship]) -> None:
        p, add = self.position, self.problems.add
        if self.phase is DEPLOY:
            if not self.rules.captains_choose_facing:
                add("phase", "deploy: this config has no deploy phase (house_rules.captains_choose_facing is "
                             "false); move, attack or reaction")
            if self.round != 0:
                add("round", f"{self.round} in the deploy phase: the battle starts with round 1 after deployment; "
                             "round is 0")
            if p.wind not in (None, "calm"):
                add("wind", f"{p.wind} in the deploy phase: the wind is rolled after deployment; calm (not yet "
                            "rolled) or leave it out")
            if p.order:
                add("order", "the initiative is rolled at the start of round 1: empty in the deploy phase")
        elif self.round == 0:
            add("round", f"0 outside the deploy phase ({self.phase.name.lower()}): rounds count from 1")

    def _check_attacks(self, ships: dict[str, Ship]) -> None:
        p, add = self.position, self.problems.add
        if self.phase is REACTION and p.pending is None and p.result is None:
            add("pending", "required in the reaction phase: the attack the reaction answers")
        if p.pending is not None and (self.phase is not REACTION or p.result is not None):
            add("pending", "only in the reaction phase while the battle goes on (null otherwise)")
        if p.queue and (self.phase is not REACTION or p.result is not None):
            add("queue", "attacks wait only behind a reaction's pending attack: empty otherwise")
        attacks = ([("pending", p.pending)] if p.pending else []) + [(f"queue.{i}", a) for i, a in enumerate(p.queue)]
        for where, attack in attacks:
            attacker, target = ships.get(attack.attacker), ships.get(attack.target)
            if attacker is None:
                add(f"{where}.attacker", f"{attack.attacker!r} is not a ship here; ships: {list(ships)}")
            if target is None:
                add(f"{where}.target", f"{attack.target!r} is not a ship here; ships: {list(ships)}")
            elif attacker is not None and attacker.side == target.side:
                add(f"{where}.target", f"{target.id} is on {attacker.id}'s own side: ships attack enemies")
            if p.pending is not None and attack.attacker != p.pending.attacker:
                add(f"{where}.attacker", f"{attack.attacker}: the attacks waiting were declared at one attack step, "
                                         f"{p.pending.attacker}'s")
        pending = p.pending
        if pending is None or pending.attacker not in ships or pending.target not in ships:
            return
        if pending.target_unit != "ship":
            add("pending.target_unit", "mages: an attack on a mage squad is defended without a decision; ship")
        if not (ships[pending.attacker].afloat and ships[pending.target].afloat):
            add("pending", f"{pending.attacker} and {pending.target} must both be afloat for the attack to go on")
        if pending.unit == "mages" and ships[pending.attacker].mages == 0:
            add("pending.unit", f"mages: {pending.attacker} has no mage squad left (an attack by lost mages is "
                                "dropped without a decision)")
        if p.to_move is not None and p.to_move != pending.target:
            add("to_move", f"{p.to_move}: the reaction is the attacked captain's, {pending.target}")

    def _check_order(self, ships: dict[str, Ship]) -> None:
        """``order`` lists ships once, every ship afloat among them; ``turn`` fits it and ``to_move``."""
        p, add = self.position, self.problems.add
        if self.phase is DEPLOY:
            if p.turn is not None and p.turn >= len(ships):
                add("turn", f"{p.turn} is past the last ship of the deploy order (0 to {len(ships) - 1})")
            return
        order = p.order
        if order is None:
            if p.turn is not None:
                add("turn", "an index into order: give order as well, or leave turn out")
            return
        afloat = [s for s in ships if ships[s].afloat] if p.result is None else []  # once over: any ships
        if len(set(order)) != len(order) or not set(afloat) <= set(order) <= set(ships):
            add("order", f"{order}: each ship id at most once, every ship afloat among them (a ship sunk this "
                         f"round may stay); ships afloat: {afloat}")
            return
        if not order and p.result is None:
            add("order", "empty while the battle goes on: every ship afloat is in the round's order")
            return
        last = len(order) if p.result is not None else len(order) - 1  # a round-limit end leaves it past the end
        if p.turn is not None and p.turn > last:
            add("turn", f"{p.turn} is past the end of order (0 to {last})")
            return
        step = p.pending.attacker if self.phase is REACTION and p.pending else p.to_move
        if step is None or step not in ships or not ships[step].afloat and step == p.to_move:
            return  # refused above
        if step not in order:
            add("to_move" if step == p.to_move else "pending.attacker",
                f"{step} is not in this round's order: {order}")
        elif p.turn is not None and p.turn < len(order) and order[p.turn] != step:
            add("turn", f"order[{p.turn}] is {order[p.turn]}, not {step}")

    # --------------------------------------------------------- the decision
    def settle(self, game: FlotillaGame) -> None:
        """The cursor and the moved / attacked flags not given, and a check that the ship to move can make
        this decision now (the engine plays a decision with nothing to choose itself, so a position never
        rests on one)."""
        p, state = self.position, game.state
        steps = state.deploy_order if state.phase is DEPLOY else state.order
        if p.turn is None and not state.ended:
            step = state.pending.attacker if state.pending is not None else state.actor
            state.cursor = steps.index(step) if step in steps else 0
        self._default_flags(state)
        if state.ended:
            return
        actor = state.actor
        assert actor is not None
        ship = state.ships[actor]
        k = list(state.ships).index(actor)
        add, name = self.problems.add, state.phase.name.lower()
        if p.turn is not None and state.phase is not REACTION and steps[p.turn] != actor:
            add("turn", f"{name} step {p.turn} is {steps[p.turn]}'s, not to_move {actor}'s")
        if not ship.afloat:
            add("to_move" if p.to_move else "turn", f"{actor} (at turn {state.cursor}) is sunk: only a ship afloat "
                                                    "has decisions")
            return
        if state.phase is MOVE:
            if ship.moved:
                add(f"ships.{k}.moved", f"true for {actor}, whose movement it is: its movement is still to come")
            if ship.stuck:
                add(f"ships.{k}.stuck", f"{actor} is stuck after a collision: it loses this movement without a "
                                        "decision")
            elif not ship.captain_alive:
                add(f"ships.{k}.captain_alive", f"{actor} has no captain: it holds or drifts without a decision")
            elif ship.grappled_with is not None and (ship.tried_break_free or ship.grappled_round >= state.round):
                why = ("has tried to break free this round" if ship.tried_break_free
                       else f"was grappled this round ({ship.grappled_round})")
                add(f"ships.{k}.grappled_with", f"{actor} {why}: a grappled ship tries once a round, from the round "
                                                "after the grapple; it holds without a decision")
        elif state.phase is ATTACK and ship.attacked:
            add(f"ships.{k}.attacked", f"true for {actor}, whose attack step it is: its attack is still to come")
        elif state.phase is REACTION:
            assert state.pending is not None
            if not can_counter(self.rules, ship, state.ships[state.pending.attacker]):
                add("pending", f"{state.pending.attacker} is out of {actor}'s gun range: it cannot counter-attack, "
                               "and the engine dodges without a decision")
        if not self.problems.found and game.legal_mask(actor).sum() <= len(game.action_spec.components):
            add("phase", f"{actor} has nothing to choose in the {name} phase (the engine plays such a decision "
                         "itself): give a position in which it has a choice")

    def _default_flags(self, state: GameState) -> None:
        """``moved`` and ``attacked`` not given: as the round has gone so far (see the fields)."""
        given, phase, cursor = self.position.ships, state.phase, state.cursor
        place = {s: i for i, s in enumerate(state.order)}
        for k, ship in enumerate(state.ships.values()):
            fields = given[k].model_fields_set
            at = place.get(ship.id, -1) if ship.afloat and not state.ended else -1
            if "moved" not in fields:
                ship.moved = at >= 0 and (phase is not MOVE or at < cursor)
            if "attacked" not in fields:
                ship.attacked = at >= 0 and (phase is ATTACK and at < cursor or phase is REACTION and at <= cursor)


def _attack(attack: AttackPosition) -> Attack:
    return Attack(attack.attacker, _UNITS[attack.unit], attack.target, _UNITS[attack.target_unit])


def _status(ship: Ship) -> str:
    return "afloat" if ship.afloat else "sunk"


class FlotillaPositions(PositionCodec[FlotillaPosition]):
    """Dumps `flotilla` games into :class:`FlotillaPosition` and builds games from positions."""

    builder = _Builder
    model = FlotillaPosition

    def dump(self, game: FlotillaGame) -> FlotillaPosition:  # type: ignore[override]
        state = game.state
        return FlotillaPosition(
            **self.header(game),
            map_size=state.width,
            attacker=state.attacker_side,
            wind=wind_name(state.wind),  # type: ignore[arg-type]
            round=state.round,
            phase=state.phase.name.lower(),  # type: ignore[arg-type]
            to_move=game.current_agent,
            order=list(state.order),
            turn=state.cursor,
            pending=_dump_attack(state.pending) if state.pending is not None else None,
            queue=[_dump_attack(attack) for attack in state.attack_queue],
            result=Result(winner=state.winner, reason=state.end_reason) if state.ended else None,  # type: ignore[arg-type]
            ships=[_dump_ship(ship) for ship in state.ships.values()],
        )
