"""`pursuit` positions: the ships on the open sea, the weather and the round as JSON, in and out.

The full form (what :meth:`PursuitPositions.dump` writes) holds every field of the game state, so a
loaded game plays on exactly as the original. The short form an app writes by hand needs only the
ships' ids, classes and places in yards; every other field defaults from the ship class, the
scenario's set-up of that ship id and the rules (see the "Positions" section of docs/rules/pursuit.md).
Fields the rules derive (scuttled from the damage, a machine destroyed by its damage, the round order)
are rebuilt, not asked for.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from naval_env.core.dice import Dice
from naval_env.core.position import PositionCodec, PositionModel, side_of
from naval_env.core.position_checks import (
    ShipsBuilder,
    check_headroom,
    given_or,
    known,
    rounds_left,
    setup_of,
)
from naval_env.core.position_fields import MAX_ROUND, Key, Name, PositionPart, Round
from naval_env.rulesets.pursuit.config import (
    Controller as ControllerSetup,
)
from naval_env.rulesets.pursuit.config import (
    CrewStats,
    Direction,
    MountSetup,
    PursuitConfig,
    Scenario,
    Score,
    ShipClass,
    ShipSetup,
    WindStrength,
    mounts_of,
)
from naval_env.rulesets.pursuit.engine import PursuitGame
from naval_env.rulesets.pursuit.geometry import COMPASS_DEGREES
from naval_env.rulesets.pursuit.propulsion import crew_options, working_drive
from naval_env.rulesets.pursuit.state import (
    Controller,
    Drive,
    GameState,
    Machine,
    Phase,
    Propulsion,
    Ship,
    Status,
)

PhaseName = Literal["command", "maneuver", "guns"]
DriveName = Literal["none", "rowed", "sailed", "switching", "aground"]
EndReason = Literal["last side fighting", "no ship left fighting", "escaped", "enemy escaped", "round_limit"]
#: Ships a position may list: two sides of at most house_rules.max_ships_per_side (at most 4 in any config).
MAX_SHIPS = 8
#: War machines a ship may carry: house_rules.max_machines is at most 8 in any config.
MAX_MACHINES = 8
#: Crew a ship may hold: a ship class's crew is at most 60 in any config.
MAX_CREW = 60
#: Yards from the origin a place may lie (ASSUMPTION: the open sea has no edge; escapes happen within a few
#: hundred yards, so this is far past any battle).
MAX_YARDS = 100_000.0
#: Yards a ship's latest maneuver may have carried it (ASSUMPTION: the fastest class in any config, 30, with
#: the strongest wind and current, moves well under this in a round).
MAX_MOTION = 1_000.0
#: Last round a boost or a change of propulsion may run to: a round plus an hour (house_rules.rounds_per_hour
#: is at most 3600 in any config).
MAX_UNTIL = MAX_ROUND + 3600
#: Aim actions a machine may hold: an aim order adds every gunner's action (at most 6) to a count still below the
#: class's aim number (at most 6), and the aim is then done.
MAX_AIM_PROGRESS = 6 - 1 + 6
#: A crew's Health penalty: 1d6 for each failed rowing challenge while fatigued, at most two challenges a round (the
#: hourly endurance one and the one when forced rowing ends), so it grows by at most 12 a round; the rules stop it
#: nowhere, so its bound follows from the battle's length.
PENALTY_PER_ROUND = 2 * 6
MAX_HEALTH_PENALTY = PENALTY_PER_ROUND * MAX_ROUND
Yards = Annotated[float, Field(ge=-MAX_YARDS, le=MAX_YARDS)]
Point = tuple[Yards, Yards]
Motion = tuple[Annotated[float, Field(ge=-MAX_MOTION, le=MAX_MOTION)],
               Annotated[float, Field(ge=-MAX_MOTION, le=MAX_MOTION)]]
_COMPASS_NAMES = {degrees: name for name, degrees in COMPASS_DEGREES.items()}


class WindPosition(PositionPart):
    """The wind over the battle."""

    strength: WindStrength
    """calm, light, moderate, strong or gale (a row of the Sailing Speed by Wind table)."""
    toward: Direction
    """Compass direction the wind blows toward (N is +y)."""


class CurrentPosition(PositionPart):
    """The current of the water."""

    toward: Direction
    """Compass direction the water flows toward."""
    fast: bool = True
    """A fast-flowing current changes a rowed ship's Speed; a slow one changes nothing."""


class ControllerPosition(PositionPart):
    """The pilot or captain; the ship's Agility comes from them."""

    role: Literal["pilot", "captain"]
    """A pilot gives the ship half its Agility; a captain half its Intellect or Will (the better)."""
    profession: Name
    """A captain needs a seafaring profession (house rules' captain_professions)."""
    agility: Score
    """Agility score."""
    intellect: Score
    """Intellect score (maneuver attack rolls, keeping a destroyed ship afloat)."""
    will: Score
    """Will score (forced rowing, inspiring the crew)."""


class CrewPosition(PositionPart):
    """The crew, acting as one group for its rolls. Every field defaults."""

    aboard: int | None = Field(default=None, ge=0, le=MAX_CREW)
    """Crew members alive aboard. Default: ``at_start``."""
    at_start: int | None = Field(default=None, ge=1, le=MAX_CREW)
    """Crew at the start of the battle. Default: the scenario's count for this ship id, else the class's crew."""
    agility: Score | None = None
    """Agility score of each member. Default: the scenario's, else 10."""
    strength: Score | None = None
    """Strength score (rowing endurance). Default: the scenario's, else 11."""
    will: Score | None = None
    """Will score (resisting forced rowing). Default: the scenario's, else 10."""
    health: int | None = Field(default=None, ge=1, le=100)
    """Health of each member. Default: the scenario's, else 12."""
    fatigued: bool = False
    """Fatigued by rowing: 1 bane on the crew's challenge rolls."""
    health_penalty: int = Field(default=0, ge=0, le=MAX_HEALTH_PENALTY)
    """Lowers each member's Health (rowing on while fatigued); past the Health (at most 100) it lowers nothing
    more."""


class MachinePosition(PositionPart):
    """One war machine aboard; machine i stands on deck spot i. Only ``kind`` is required."""

    kind: Name
    """War machine type, a key of the config's war_machines (ballista, cannon, ...)."""
    gunners: int | None = Field(default=None, ge=1, le=6)
    """Its own crew, one action each a round. Default: the scenario's mount, else the stat block's crew."""
    gunner_intellect: Score | None = None
    """Intellect of its gunners (indirect fire). Default: the scenario's mount, else 10."""
    ammunition: Literal["standard", "stone"] | None = None
    """A round stone halves range and damage. Default: the scenario's mount, else standard."""
    damage: int = Field(default=0, ge=0, le=200)
    """Damage taken; at its Health it is destroyed, at half it is damaged."""
    loaded: bool = False
    """Loaded and ready to fire."""
    load_progress: int = Field(default=0, ge=0, le=6)
    """Load actions spent toward its load number."""
    aim_target: Name | None = None
    """The enemy ship id being aimed at (an aim in progress or done)."""
    aim_progress: int = Field(default=0, ge=0, le=MAX_AIM_PROGRESS)
    """Aim actions spent toward its aim number: below it while the aim is not done (no ``aim_point``); an aim
    order spends all the gunners' actions, so a finished aim may hold up to aim - 1 + gunners."""
    aim_point: Point | None = Field(default=None, strict=False)
    """[x, y] yards of a finished aim (the target's place when the aim was done)."""
    last_point: Point | None = Field(default=None, strict=False)
    """[x, y] yards of its last shot (where it fires without a new aim)."""
    misfired: bool = False
    """Misfired: needs repair before it fires again."""
    repair_progress: int = Field(default=0, ge=0, le=12)
    """Repair actions spent (twice the load number repairs it)."""


class ShipPosition(PositionPart):
    """One ship. Only ``id``, ``ship_class``, ``x`` and ``y`` are required; the rest defaults."""

    id: Name
    """``<side>_<i>``, numbered from 0 per side (also the captain's agent id)."""
    side: Name | None = None
    """The ship's side, one of the scenario's two. Default: the prefix of ``id``."""
    ship_class: Name
    """Ship class, a key of the config's ship_classes (rowboat, galley, galleon, ...); its stat block
    (Size, radius, draft, Speeds, boons and banes, crew needed, deck spots) comes from the config."""
    x: Yards
    """Yards east of the origin (the centre of the hull). A sunk or escaped ship keeps its last place."""
    y: Yards
    """Yards north of the origin."""
    controller: ControllerPosition | None = None
    """Default: the scenario's pilot or captain for this ship id, else a captain (sailor, 10/11/11)."""
    crew: CrewPosition | None = None
    """Default: every crew field from the scenario's set-up (same class), else the class and the defaults."""
    propulsion: Literal["oars", "sails"] | None = None
    """The propulsion in use (or being changed to). Default: the scenario's, else sails if it has any."""
    machines: list[MachinePosition] | None = Field(default=None, max_length=MAX_MACHINES)
    """War machines aboard, unloaded and unaimed unless said. Default: the scenario's mounts for this
    ship id (same class), else the class's armament."""
    health: int | None = Field(default=None, ge=2, le=1000)
    """Health rating of the hull. Default: the class's."""
    damage: int = Field(default=0, ge=0, le=1000)
    """Damage total; scuttled at half the Health, destroyed at the Health."""
    status: Status | None = Field(default=None, strict=False)
    """afloat, sinking (destroyed, going down), sunk or escaped. Default: afloat, or sinking at full damage."""
    grounded: bool = False
    """Aground: it cannot be sailed or rowed for the rest of the battle."""
    on_rocks: bool = False
    """Aground on rocks (1d6 damage each hour)."""
    aground_rounds: int = Field(default=0, ge=0, le=MAX_ROUND)
    """Rounds spent on rocks so far."""
    sinking_rounds: int = Field(default=0, ge=0, le=MAX_ROUND)
    """Rounds a sinking ship has spent going down (it sinks after Size minutes)."""
    drive: DriveName | None = None
    """How the ship is driven this round, set by its crew order: none, rowed, sailed, switching (changing
    propulsion) or aground. Default: for the ship to move past its command phase, what its crew can work
    (rowed, sailed, switching, aground or none); otherwise none."""
    switching_until: int = Field(default=-1, ge=-1, le=MAX_UNTIL)
    """Round at whose end a change of propulsion is done; -1: not changing."""
    rowed_rounds: int = Field(default=0, ge=0, le=MAX_ROUND)
    """Consecutive rounds rowed (rowing endurance)."""
    forced_bonus: int = Field(default=0, ge=0, le=6)
    """Speed from forced rowing (1d6 while it lasts)."""
    forced_until: int | None = Field(default=None, ge=-1, le=MAX_UNTIL)
    """Round at whose end forced rowing ends. Default: an hour from this round with a bonus, else -1."""
    forced_locked: bool = False
    """A failed goad: no more forced rowing this battle."""
    inspire_bonus: int = Field(default=0, ge=0, le=6)
    """Base Speed from inspiring the crew (1d6 while it lasts)."""
    inspire_until: int | None = Field(default=None, ge=-1, le=MAX_UNTIL)
    """Round at whose end inspiring ends. Default: an hour from this round with a bonus, else -1."""
    inspire_retry_after: int = Field(default=-1, ge=-1, le=MAX_UNTIL)
    """A failed attempt: no new attempt before the end of this round."""
    slowed: bool = False
    """Its next maneuver is at half Speed (a crash across the path, or a mishap)."""
    helm_jammed: bool = False
    """No maneuver next round (mishap)."""
    maneuver_banes: int = Field(default=0, ge=0, le=20)
    """Banes on its next maneuver roll (mishap; a mishap's amount is at most 10)."""
    motion: Motion = Field(default=(0.0, 0.0), strict=False)
    """[dx, dy] yards of its latest maneuver (how it was moving when rammed)."""


class Result(PositionPart):
    """How the battle ended."""

    winner: Name | None
    """The winning side; null for a draw."""
    reason: EndReason
    """Why it ended."""


class PursuitPosition(PositionModel):
    """A `pursuit` battle at one decision: the sea, the weather, the ships and whose decision it is."""

    ruleset: Literal["pursuit"]
    """Always ``pursuit``."""
    scenario: Name | None = None
    """The scenario whose shoals, escape rule and ship set-ups apply. Default: the config's default."""
    wind: WindPosition | None = None
    """Default: the scenario's wind."""
    current: CurrentPosition | None = None
    """Default: the scenario's current; null: no current."""
    round: Round = 1
    """Round number, from 1."""
    phase: PhaseName = "command"
    """Decision of ``to_move``'s turn: command (the crew's propulsion order and the captain's command),
    maneuver (flee, pursue, ram or hold) or guns (an order for each war machine)."""
    to_move: Name | None = None
    """The ship id (agent) whose decision it is; null once the game is over (or left to its default while it
    goes on). Default: the ship of ``turn`` when given, else the first ship afloat in the round order (the
    first side's ships, then the second's)."""
    turn: int | None = Field(default=None, ge=0, le=MAX_SHIPS - 1)
    """Index in the round order (= ``ships``) of the ship whose turn it is (or was, once over).
    Default: ``to_move``'s index."""
    result: Result | None = None
    """Null while the battle goes on."""
    shots: int = Field(default=0, ge=0, le=MAX_ROUND * MAX_SHIPS * MAX_MACHINES)
    """Projectiles fired so far (statistics; each machine fires at most once a round)."""
    casualties: dict[Key, Annotated[int, Field(ge=0, le=MAX_CREW)]] = Field(default_factory=dict,
                                                                            max_length=MAX_SHIPS)
    """Crew members killed so far, by ship id, for ships struck at least once (statistics)."""
    ships: list[ShipPosition] = Field(max_length=MAX_SHIPS)
    """Every ship in agent order: the scenario's first side, then the second, each numbered from 0."""


def _dump_ship(ship: Ship) -> ShipPosition:
    c = ship.controller
    return ShipPosition(
        id=ship.id, side=ship.side, ship_class=ship.ship_class, x=ship.x, y=ship.y,
        controller=ControllerPosition(role=c.role, profession=c.profession, agility=c.agility,  # type: ignore[arg-type]
                                      intellect=c.intellect, will=c.will),
        crew=CrewPosition(aboard=ship.crew, at_start=ship.crew_max, agility=ship.crew_agility,
                          strength=ship.crew_strength, will=ship.crew_will, health=ship.crew_health,
                          fatigued=ship.fatigued, health_penalty=ship.health_penalty),
        propulsion=ship.propulsion.value, machines=[_dump_machine(m) for m in ship.machines],
        health=ship.health, damage=ship.damage, status=ship.status, grounded=ship.grounded,
        on_rocks=ship.on_rocks, aground_rounds=ship.aground_rounds, sinking_rounds=ship.sinking_rounds,
        drive=ship.drive.name.lower(),  # type: ignore[arg-type]
        switching_until=ship.switching_until, rowed_rounds=ship.rowed_rounds,
        forced_bonus=ship.forced_bonus, forced_until=ship.forced_until, forced_locked=ship.forced_locked,
        inspire_bonus=ship.inspire_bonus, inspire_until=ship.inspire_until,
        inspire_retry_after=ship.inspire_retry_after, slowed=ship.slowed, helm_jammed=ship.helm_jammed,
        maneuver_banes=ship.maneuver_banes, motion=ship.motion,
    )


def _dump_machine(m: Machine) -> MachinePosition:
    return MachinePosition(
        kind=m.kind, gunners=m.gunners, gunner_intellect=m.gunner_intellect,
        ammunition="stone" if m.stone else "standard", damage=m.damage, loaded=m.loaded,
        load_progress=m.load_progress, aim_target=m.aim_target, aim_progress=m.aim_progress,
        aim_point=m.aim_point, last_point=m.last_point, misfired=m.misfired, repair_progress=m.repair_progress,
    )


class _Builder(ShipsBuilder[Ship]):
    """Checks a position against the config, scenario and rules, noting every problem, and builds its state."""

    config: PursuitConfig
    scenario: Scenario
    position: PursuitPosition

    def state(self, dice: Dice) -> GameState | None:
        """The state with every field but the turn's defaults (:meth:`settle`), or None with problems noted
        (no die is rolled: ``dice`` go to the game)."""
        p = self.position
        ships = self.checked_ships()
        if ships is None:
            return None
        wind = p.wind or WindPosition(strength=self.scenario.wind.strength, toward=self.scenario.wind.toward)
        scenario_current = self.scenario.current
        current = p.current if "current" in p.model_fields_set else (
            CurrentPosition(toward=scenario_current.toward, fast=scenario_current.fast) if scenario_current else None)
        return GameState(
            sides=(self.sides[0], self.sides[1]), ships=ships, order=list(ships), wind_strength=wind.strength,
            wind_toward=COMPASS_DEGREES[wind.toward],
            current_toward=COMPASS_DEGREES[current.toward] if current else None,
            current_fast=bool(current and current.fast), round=p.round, phase=Phase[p.phase.upper()],
            winner=p.result.winner if p.result else None, end_reason=p.result.reason if p.result else None,
            ended=p.result is not None, shots=p.shots, casualties=dict(p.casualties),
        )

    def _check_growth(self, ships: dict[str, Ship]) -> None:
        """What play adds to each round stays within its bound over the rounds still to play: a place moves at most
        :data:`MAX_MOTION` a round (one maneuver a ship), the round counters (rowing, rocks, sinking) one a round,
        the Health penalty :data:`PENALTY_PER_ROUND`, and ``shots`` one for each machine aboard (one order each a
        round). So no position reached from this one lies past the model's bounds."""
        p, problems = self.position, self.problems
        left = rounds_left(p.round, self.rules.max_rounds, p.result is not None)
        for k, ship in enumerate(ships.values()):
            where = f"ships.{k}"
            check_headroom(problems, f"{where}.x", ship.x, MAX_MOTION, left, MAX_YARDS, "yards")
            check_headroom(problems, f"{where}.y", ship.y, MAX_MOTION, left, MAX_YARDS, "yards")
            for name in ("rowed_rounds", "aground_rounds", "sinking_rounds"):
                check_headroom(problems, f"{where}.{name}", getattr(ship, name), 1, left, MAX_ROUND, "rounds")
            check_headroom(problems, f"{where}.crew.health_penalty", ship.health_penalty, PENALTY_PER_ROUND, left,
                           MAX_HEALTH_PENALTY, "Health penalty")
        machines = sum(len(ship.machines) for ship in ships.values())
        check_headroom(problems, "shots", p.shots, machines, left, MAX_ROUND * MAX_SHIPS * MAX_MACHINES, "shots")

    # ------------------------------------------------------------------ ships
    def build_ship(self, k: int, given: ShipPosition) -> Ship | None:
        """The ship with every default filled in (as ``PursuitGame._set_up`` would), or None."""
        where = f"ships.{k}"
        cls = known(self.config.ship_classes, given.ship_class, f"{where}.ship_class", "ship class", self.problems)
        if cls is None:
            return None
        if side_of(given.id) not in self.sides:
            return None
        setup: ShipSetup | None = setup_of(self.scenario, given.id)
        same = setup if setup is not None and setup.ship == given.ship_class else None
        controller = given.controller or (setup.controller if setup else ControllerSetup())
        crew_setup = same.crew if same else CrewStats()
        crew = given.crew or CrewPosition()
        at_start = given_or(crew.at_start, crew_setup.count if crew_setup.count is not None else cls.crew)
        health = given_or(given.health, cls.health)
        propulsion = given.propulsion or (same.propulsion if same and same.propulsion else None) or (
            "sails" if cls.sails else "oars")
        ship = Ship(
            id=given.id, side=side_of(given.id) or "", ship_class=given.ship_class,
            controller=Controller(role=controller.role, profession=controller.profession,
                                  agility=controller.agility, intellect=controller.intellect, will=controller.will),
            x=float(given.x), y=float(given.y), health=health, size=cls.size, radius=cls.radius, draft=cls.draft,
            maneuverability=cls.maneuverability, seaworthiness=cls.seaworthiness, oars=cls.oars, sails=cls.sails,
            rowers=cls.rowers, sail_crew=cls.sail_crew, deck_spots=cls.deck_spots,
            crew=given_or(crew.aboard, at_start), crew_max=at_start,
            crew_agility=given_or(crew.agility, crew_setup.agility), crew_strength=given_or(crew.strength, crew_setup.strength),
            crew_will=given_or(crew.will, crew_setup.will), crew_health=given_or(crew.health, crew_setup.health),
            propulsion=Propulsion(propulsion), machines=self._machines(where, given, same, cls),
            damage=given.damage, scuttled=2 * given.damage >= health,
            status=given.status if given.status is not None else (
                Status.SINKING if given.damage >= health else Status.AFLOAT),
            grounded=given.grounded, on_rocks=given.on_rocks, aground_rounds=given.aground_rounds,
            sinking_rounds=given.sinking_rounds, drive=Drive[given.drive.upper()] if given.drive else Drive.NONE,
            switching_until=given.switching_until, rowed_rounds=given.rowed_rounds,
            fatigued=crew.fatigued, health_penalty=crew.health_penalty, forced_bonus=given.forced_bonus,
            forced_until=self._until(given.forced_until, given.forced_bonus), forced_locked=given.forced_locked,
            inspire_bonus=given.inspire_bonus, inspire_until=self._until(given.inspire_until, given.inspire_bonus),
            inspire_retry_after=given.inspire_retry_after, slowed=given.slowed, helm_jammed=given.helm_jammed,
            maneuver_banes=given.maneuver_banes, motion=(float(given.motion[0]), float(given.motion[1])),
        )
        ship.rowed_this_round = ship.drive is Drive.ROWED  # rowing is the only way to that drive
        self._check_ship(where, ship, cls)
        return ship

    def _until(self, until: int | None, bonus: int) -> int:
        """A boost's end: given, else an hour from this round while it has a bonus, else -1."""
        if until is not None:
            return until
        return self.position.round + self.rules.rounds_per_hour - 1 if bonus else -1

    def _machines(self, where: str, given: ShipPosition, same: ShipSetup | None, cls: ShipClass) -> list[Machine]:
        add, catalogue = self.problems.add, self.config.war_machines
        mounts = mounts_of(self.config, same) if same else [MountSetup(machine=m) for m in cls.armament]
        if given.machines is None:
            wanted = [MachinePosition(kind=m.machine) for m in mounts]
        else:
            wanted = given.machines
        limit = min(self.rules.max_machines, cls.deck_spots)
        if len(wanted) > limit:
            add(f"{where}.machines", f"{len(wanted)} war machines; a {given.ship_class} carries at most {limit}")
        machines = []
        for j, m in enumerate(wanted):
            here = f"{where}.machines.{j}"
            machine_class = known(catalogue, m.kind, f"{here}.kind", "war machine", self.problems)
            if machine_class is None:
                continue
            mount = mounts[j] if j < len(mounts) and mounts[j].machine == m.kind else MountSetup(machine=m.kind)
            ammunition = m.ammunition or mount.ammunition
            if ammunition == "stone" and not machine_class.stone:
                add(f"{here}.ammunition", f"a {m.kind} cannot fire a round stone; standard only")
            machine = Machine(
                kind=m.kind, spot=j, gunners=given_or(m.gunners, mount.gunners or machine_class.crew),
                gunner_intellect=given_or(m.gunner_intellect, mount.gunner_intellect), stone=ammunition == "stone",
                health=machine_class.health, damage=m.damage, destroyed=m.damage >= machine_class.health,
                load_progress=m.load_progress, loaded=m.loaded, aim_target=m.aim_target,
                aim_progress=m.aim_progress, aim_point=_point(m.aim_point), last_point=_point(m.last_point),
                misfired=m.misfired, repair_progress=m.repair_progress,
            )
            if machine.damage > machine.health:
                add(f"{here}.damage", f"{machine.damage}; a {m.kind} has Health {machine.health}: 0 to that")
            elif machine.destroyed and machine.loaded:
                add(f"{here}.loaded", f"a destroyed {m.kind} (damage {machine.damage} of {machine.health}) "
                                      "holds no load")
            if machine.load_progress >= machine_class.load:
                add(f"{here}.load_progress", f"{machine.load_progress}; a {m.kind} is loaded at "
                                             f"{machine_class.load}: 0 to {machine_class.load - 1}")
            if machine.aim_point is None and machine.aim_progress >= machine_class.aim:
                add(f"{here}.aim_progress", f"{machine.aim_progress} with no aim_point; a {m.kind}'s aim is done (its "
                                            f"point taken) at {machine_class.aim}: 0 to {machine_class.aim - 1}, or "
                                            "give the aim_point")
            if machine.misfired and not machine_class.misfire_faces:
                add(f"{here}.misfired", f"a {m.kind} never misfires (only indirect-fire machines roll to fire)")
            machines.append(machine)
        return machines

    def _check_ship(self, where: str, ship: Ship, cls: ShipClass) -> None:
        add, status = self.problems.add, ship.status
        if ship.damage > ship.health:
            add(f"{where}.damage", f"{ship.damage} is above the Health {ship.health}: damage is 0 to {ship.health}")
        elif status in (Status.AFLOAT, Status.ESCAPED) and ship.damage >= ship.health:
            add(f"{where}.status", f"{status.value} with damage {ship.damage} of Health {ship.health}: a ship "
                                   "whose damage reaches its Health is sinking or sunk")
        elif status in (Status.SINKING, Status.SUNK) and ship.damage != ship.health:
            add(f"{where}.status", f"{status.value} with damage {ship.damage}: a ship sinks once its damage "
                                   f"equals its Health ({ship.health})")
        controller = ship.controller
        if cls.needs_captain and controller.role != "captain":
            add(f"{where}.controller.role", f"a {ship.ship_class} needs a captain, not a {controller.role}")
        if controller.role == "captain" and controller.profession not in self.rules.captain_professions:
            add(f"{where}.controller.profession", f"{controller.profession!r} cannot captain a ship; allowed: "
                                                  f"{self.rules.captain_professions}")
        if ship.crew_max > cls.crew:
            add(f"{where}.crew.at_start", f"{ship.crew_max}; a {ship.ship_class} holds at most {cls.crew}")
        if ship.crew > ship.crew_max:
            add(f"{where}.crew.aboard", f"{ship.crew} is more than the {ship.crew_max} aboard at the start")
        if getattr(cls, ship.propulsion.value) == 0:
            other = "sails" if ship.propulsion is Propulsion.OARS else "oars"
            add(f"{where}.propulsion", f"a {ship.ship_class} has no {ship.propulsion.value}; {other} only")
        if ship.on_rocks and not ship.grounded:
            add(f"{where}.on_rocks", "on rocks but not grounded: a ship on rocks is aground")
        if ship.sinking_rounds and status is not Status.SINKING and status is not Status.SUNK:
            add(f"{where}.sinking_rounds", f"{ship.sinking_rounds}: only a sinking ship counts them")

    # ------------------------------------------------------- between ships
    def check_between(self, ships: dict[str, Ship]) -> None:
        add = self.problems.add
        ids = list(ships)
        seen: dict[tuple[float, float], str] = {}
        for k, ship in enumerate(ships.values()):
            if ship.status in (Status.AFLOAT, Status.SINKING):
                other = seen.setdefault((ship.x, ship.y), ship.id)
                if other != ship.id:
                    add(f"ships.{k}", f"{ship.id} is at ({ship.x}, {ship.y}), the centre of {other}: two ships on "
                                      "the sea cannot have one place (hulls may overlap, centres may not)")
            for j, machine in enumerate(ship.machines):
                target = ships.get(machine.aim_target) if machine.aim_target is not None else None
                if machine.aim_target is not None and (target is None or target.side == ship.side):
                    enemies = [s for s in ids if ships[s].side != ship.side]
                    add(f"ships.{k}.machines.{j}.aim_target", f"{machine.aim_target!r} is not an enemy ship here; "
                                                             f"enemies: {enemies}")
        for ship_id, killed in self.position.casualties.items():
            if ship_id not in ships:
                add(f"casualties.{ship_id}", f"not a ship here; ships: {ids}")
            elif killed + ships[ship_id].crew > ships[ship_id].crew_max:
                # The dead are counted as they leave the crew, which never grows: so casualties stay within it.
                ship = ships[ship_id]
                add(f"casualties.{ship_id}", f"{killed} with {ship.crew} of its {ship.crew_max} crew aboard: at most "
                                             f"the {ship.crew_max - ship.crew} lost")

    def check_turn(self, ships: dict[str, Ship]) -> None:
        """The turn fields checked before the game exists (the rest in :meth:`settle`)."""
        p, add = self.position, self.problems.add
        self._check_growth(ships)
        if p.turn is not None and p.turn >= len(ships):
            add("turn", f"{p.turn} is past the last ship of the round order (0 to {len(ships) - 1})")
        self.check_outcome(p.result, {s.side for s in ships.values() if s.status is Status.AFLOAT}, "afloat", p.round)
        if p.result is not None:
            return
        if p.to_move is not None and p.to_move not in ships:
            add("to_move", f"{p.to_move!r} is not a ship here; ships: {list(ships)}")
        elif p.to_move is not None and ships[p.to_move].status is not Status.AFLOAT:
            add("to_move", f"{p.to_move} is {ships[p.to_move].status.value}: only a ship afloat has decisions")
        elif p.to_move is not None and p.turn is not None and p.turn < len(ships) and list(ships)[p.turn] != p.to_move:
            add("turn", f"ship {p.turn} of the round order is {list(ships)[p.turn]}, not to_move {p.to_move}")

    # ------------------------------------------------------------ the turn
    def settle(self, game: PursuitGame) -> None:
        """Whose turn, its drive, and a check that the decision has a choice (the engine plays a decision
        with nothing to choose itself, so a position never rests on one)."""
        p, state = self.position, game.state
        ids = list(state.ships)
        to_move = p.to_move
        if to_move is None and p.result is None:
            to_move = ids[p.turn] if p.turn is not None else next(
                s for s in ids if state.ships[s].status is Status.AFLOAT)
        state.turn = p.turn if p.turn is not None else (ids.index(to_move) if to_move is not None else 0)
        if to_move is None:
            return
        ship, k = state.ships[to_move], ids.index(to_move)
        if ship.status is not Status.AFLOAT:
            self.problems.add("turn", f"ship {state.turn} of the round order, {to_move}, is {ship.status.value}: "
                                      "only a ship afloat has decisions")
            return
        if p.ships[k].drive is None and state.phase is not Phase.COMMAND:
            ship.drive = working_drive(game.table, ship, crew_options(game.table, ship))
            ship.rowed_this_round = ship.drive is Drive.ROWED
        if game.legal_mask(to_move).sum() <= len(game.action_spec.components):
            self.problems.add("phase", f"{to_move} has nothing to choose in the {p.phase} phase (the engine plays "
                                       "such a decision itself): give the phase in which it has a choice")


def _point(point: Point | None) -> tuple[float, float] | None:
    return None if point is None else (float(point[0]), float(point[1]))


class PursuitPositions(PositionCodec[PursuitPosition]):
    """Dumps `pursuit` games into :class:`PursuitPosition` and builds games from positions."""

    builder = _Builder
    model = PursuitPosition

    def dump(self, game: PursuitGame) -> PursuitPosition:  # type: ignore[override]
        state = game.state
        current = None if state.current_toward is None else CurrentPosition(
            toward=_COMPASS_NAMES[state.current_toward], fast=state.current_fast)  # type: ignore[arg-type]
        return PursuitPosition(
            **self.header(game),
            wind=WindPosition(strength=state.wind_strength,  # type: ignore[arg-type]
                              toward=_COMPASS_NAMES[state.wind_toward]),  # type: ignore[arg-type]
            current=current,
            round=state.round,
            phase=state.phase.name.lower(),  # type: ignore[arg-type]
            to_move=game.current_agent,
            turn=state.turn,
            result=Result(winner=state.winner, reason=state.end_reason) if state.ended else None,  # type: ignore[arg-type]
            shots=state.shots,
            casualties=dict(state.casualties),
            ships=[_dump_ship(ship) for ship in state.ships.values()],
        )
