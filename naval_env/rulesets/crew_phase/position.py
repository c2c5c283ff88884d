"""`crew_phase` positions: the whole game as JSON, in the rules' words, and games built from them.

The full form (what :meth:`CrewPhasePositions.dump` writes) holds every piece of state
the rules read; a short form names only ships (id, vessel, place, optionally facing,
hull, crew and weapons) and perhaps the round, phase and ship to move. Everything left
out defaults from the config (vessel, weapon and crew-profile stats) and the scenario
(board, weather, facing, crew sheets), as set out field by field in
docs/rules/crew_phase.md ("Positions"). Loading rolls no dice: nothing in the set-up
of a position is left to chance.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

import numpy as np
from pydantic import Field, field_validator

from naval_env.core.dice import Dice
from naval_env.core.game import Game
from naval_env.core.grid import Compass
from naval_env.core.position import (
    PositionCodec,
    PositionError,
    PositionModel,
    PositionProblem,
    Problems,
)
from naval_env.core.position_checks import AgentOrder, check_ending, given_or, known, points_up_to
from naval_env.core.position_fields import Key, Name, PositionPart, Round
from naval_env.rulesets.crew_phase.config import (
    ARCS,
    SIZES,
    Arc,
    CrewPhaseConfig,
    Direction,
    Scenario,
    Size,
    parse_dice,
)
from naval_env.rulesets.crew_phase.engine import CrewPhaseGame
from naval_env.rulesets.crew_phase.grapple import held_by_larger
from naval_env.rulesets.crew_phase.movement import speed_allowance
from naval_env.rulesets.crew_phase.state import (
    CrewMember,
    GameState,
    Grapple,
    Phase,
    Ship,
    Status,
    WeaponState,
)

RULESET_ID: Literal["crew_phase"] = "crew_phase"
PhaseName = Literal["crew", "move", "attack"]
StatusName = Literal["afloat", "sinking", "sunk"]
#: Ships a position may list: two sides of at most house_rules.max_ships_per_side (at most 4 in any config).
MAX_SHIPS = 8
#: Largest board side, in squares.
MAX_BOARD = 64
#: Crew members, weapon mounts and navigation sections a ship may have: house_rules.max_crew,
#: max_weapons and max_sections are at most 10, 8 and 8 in any config.
MAX_CREW, MAX_WEAPONS, MAX_SECTIONS = 10, 8, 8
#: Most hull points: a vessel's hull_points is at most 1000 in any config.
MAX_HULL = 1000
#: Feet of speed a ship may gain or have left in a round: each crew member's Navigate adds the speed unit
#: (at most 100 ft).
MAX_FEET = MAX_CREW * 100
#: Grapples at once: one a grappling weapon, and one a pair of enemy ships tangled by a ram.
MAX_GRAPPLES = MAX_SHIPS * MAX_WEAPONS + (MAX_SHIPS // 2) ** 2
#: Ship initiative: fixed initiative (-10 to 40) plus house_rules.command_bonus (at most 5) per Command
#: success (at most 10 a round).
MIN_INITIATIVE, MAX_INITIATIVE = -10, 40 + 5 * 10
CrewSlot = Annotated[int, Field(ge=0, le=MAX_CREW - 1)]


class CrewMemberPosition(PositionPart):
    """One crew member (a 5e-style creature; ability values are modifiers). Left out: the profile's value."""

    role: Name
    """Crew profile (`crew_profiles` of the config), e.g. "sailor"."""
    hp: Annotated[int | None, Field(ge=0, le=200)] = None
    """Hit points; 0 is incapacitated. Default: the maximum."""
    max_hp: Annotated[int | None, Field(ge=1, le=200)] = None
    """Maximum hit points. Default: the profile's `hp`."""
    strength: Annotated[int | None, Field(ge=-5, le=10)] = None
    """Strength modifier."""
    dexterity: Annotated[int | None, Field(ge=-5, le=10)] = None
    """Dexterity modifier."""
    intelligence: Annotated[int | None, Field(ge=-5, le=10)] = None
    """Intelligence modifier."""
    charisma: Annotated[int | None, Field(ge=-5, le=10)] = None
    """Charisma modifier."""
    proficiency: Annotated[int | None, Field(ge=0, le=6)] = None
    """Proficiency bonus."""
    water_vehicles: bool | None = None
    """Proficient with Water Vehicles (Navigate, rough-weather Steer, the ram's helmsman)."""
    siege_weapons: bool | None = None
    """Proficient with siege weapons (weapon attacks)."""
    dex_save: Annotated[int | None, Field(ge=-5, le=15)] = None
    """Dexterity saving throw modifier (the ram's save). Default: the profile's, else the dexterity modifier."""
    ac: Annotated[int | None, Field(ge=1, le=30)] = None
    """Armour class."""
    heals_left: Annotated[int | None, Field(ge=0, le=10)] = None
    """Healing uses left this battle. Default: the profile's `heals`."""
    prone: bool = False
    """Knocked prone by a ram this Ship Phase (stands up when the next Character Phase begins)."""
    action: Name = "none"
    """The crew action chosen this round, as a `crew_i` label ("navigate@s0", "operate@w1", ...)."""


class WeaponPosition(PositionPart):
    """One weapon mount (a part with its own hit points). Left out: the weapon catalogue's value."""

    weapon: Name
    """Weapon name (`weapons` of the config), e.g. "ballista"."""
    arc: Arc
    """Arc it fires into: bow, starboard, stern, port (90 degrees each) or all."""
    ability: Literal["strength", "dexterity"] | None = None
    """Ability its operator attacks with."""
    attack_bonus: Annotated[int | None, Field(ge=-5, le=10)] = None
    """Bonus to its attack rolls."""
    damage: Annotated[str | None, Field(max_length=16)] = None
    """Damage dice, e.g. "3d10" or "2d4+2"."""
    range: Annotated[int | None, Field(ge=5, le=1000)] = None
    """Normal range, feet."""
    long_range: Annotated[int | None, Field(ge=5, le=1000)] = None
    """Long range (attacks at disadvantage), feet."""
    hp: Annotated[int | None, Field(ge=0, le=500)] = None
    """Hit points; 0 is destroyed. Default: the maximum."""
    max_hp: Annotated[int | None, Field(ge=1, le=500)] = None
    """Maximum hit points."""
    ac: Annotated[int | None, Field(ge=1, le=30)] = None
    """Armour class."""
    ammo: Annotated[int | None, Field(ge=0, le=99)] = None
    """Shots left."""
    grapples: bool | None = None
    """A hit on a ship grapples it (a harpoon)."""
    operator: CrewSlot | None = None
    """Crew slot that Operated it this round (it fires on the ship's turn); null: nobody."""
    readied_by: CrewSlot | None = None
    """Crew slot that readied it this round (it fires on the trigger); null: nobody."""

    @field_validator("damage")
    @classmethod
    def _dice(cls, value: str | None) -> str | None:
        if value is not None:
            parse_dice(value)
        return value


class ShipPosition(PositionPart):
    """One ship. Left out: the vessel catalogue's value, or the scenario's for that ship id."""

    id: Name
    """Agent id "<side>_<i>", numbered from 0 within each side."""
    side: Name | None = None
    """Side it fights for. Default: the side in its id."""
    vessel: Name
    """Vessel type (`vessels` of the config), e.g. "sailing_ship"."""
    x: int = Field(ge=0, le=MAX_BOARD - 1)
    """Column of its square, from 0 at the west edge."""
    y: int = Field(ge=0, le=MAX_BOARD - 1)
    """Row of its square, from 0 at the north edge (y grows southward)."""
    facing: Direction | None = None
    """Compass facing. Default: the scenario's for this ship, else its side's."""
    hull: int | None = Field(default=None, ge=-(MAX_HULL // 2), le=MAX_HULL)
    """Hull points, down to minus half the maximum (sinking at 0 or below, sunk at the floor). Default: the maximum."""
    max_hull: Annotated[int | None, Field(ge=2, le=MAX_HULL)] = None
    """Maximum hull points."""
    status: StatusName | None = None
    """afloat, sinking or sunk; it follows from the hull. Default: the status the hull gives."""
    size: Size | None = None
    """Size class."""
    speed_unit: Annotated[int | None, Field(ge=5, le=100)] = None
    """Feet gained per successful Navigate."""
    sections: Annotated[int | None, Field(ge=0, le=MAX_SECTIONS)] = None
    """Navigation sections."""
    self_steering: bool | None = None
    """Its propulsion sets its direction (a rowboat): turns need no helm."""
    agile: bool | None = None
    """Turns in place and without spending movement."""
    rails: bool | None = None
    """Rails and walls: half cover for the creatures aboard."""
    ac: Annotated[int | None, Field(ge=1, le=30)] = None
    """Armour class."""
    initiative: Annotated[int | None, Field(ge=-10, le=40)] = None
    """Fixed ship initiative (the Character Phase order; the Ship Phase adds Command)."""
    hull_die: Annotated[int | None, Field(ge=2, le=20)] = None
    """Sides of its hull die (spent by Repair)."""
    hull_dice: Annotated[int | None, Field(ge=0, le=30)] = None
    """Hull dice it carries."""
    hull_dice_left: Annotated[int | None, Field(ge=0, le=30)] = None
    """Hull dice not yet spent. Default: all of them."""
    crew: list[CrewMemberPosition] | None = Field(default=None, max_length=MAX_CREW)
    """Crew members in slot order. Default: the scenario's crew sheet for this ship, else the vessel's crew."""
    weapons: list[WeaponPosition] | None = Field(default=None, max_length=MAX_WEAPONS)
    """Weapon mounts in slot order. Default: the vessel's mounts."""
    speed_gained: Annotated[int, Field(ge=0, le=MAX_FEET)] = 0
    """Feet of speed its crew gained with Navigate this round."""
    sections_navigated: list[Annotated[int, Field(ge=0, le=MAX_SECTIONS - 1)]] = Field(
        default_factory=list, max_length=MAX_SECTIONS)
    """Navigation sections worked this round (each takes one crew member)."""
    helmsman: CrewSlot | None = None
    """Crew slot that took Steer this round; null: nobody."""
    helm_working: bool | None = None
    """The helm works this round (rough weather needs a passed check). Default: a helmsman in calm weather."""
    command_successes: Annotated[int, Field(ge=0, le=10)] = 0
    """Successful Command checks this round (each adds `command_bonus` to the Ship Phase initiative)."""
    cut_lines: bool = False
    """A crew member took axes to the grappling lines this round (they part at its Ship Phase turn)."""
    movement_left: Annotated[int | None, Field(ge=0, le=MAX_FEET)] = None
    """Feet of movement left in its Ship Phase turn. Default: its whole allowance when it is the ship to
    move in a move or attack decision, else 0."""
    rammed: bool = False
    """It has rammed this turn."""


class GrapplePosition(PositionPart):
    """``holder`` holds ``held``: with its grappling weapon, or both ways after a ram (``weapon`` null)."""

    holder: Name
    """Ship id of the holder."""
    held: Name
    """Ship id of the ship held."""
    weapon: Annotated[int | None, Field(ge=0, le=MAX_WEAPONS - 1)] = None
    """Weapon slot of the holder's grappling weapon; null for the mutual grapple a ram leaves."""


class CrewPhasePosition(PositionModel):
    """A `crew_phase` battle: ships, weather, round, phase and whose decision it is."""

    ruleset: Literal["crew_phase"]
    """Always "crew_phase"."""
    scenario: Name | None = None
    """Scenario whose board, weather and set-up defaults apply. Default: the config's default scenario."""
    board: tuple[Annotated[int, Field(ge=4, le=MAX_BOARD)], Annotated[int, Field(ge=4, le=MAX_BOARD)]] | None = (
        Field(default=None, strict=False))
    """Board width and height in squares (one square is `square_feet`). Default: the scenario's."""
    weather: Literal["calm", "rough"] | None = None
    """Rough weather asks a check of the helmsman. Default: the scenario's."""
    round: Round = 1
    """Round number, from 1 (at most `max_rounds`)."""
    phase: PhaseName = "crew"
    """Decision now: crew (Character Phase: crew actions), move (Ship Phase: the maneuver) or attack
    (Ship Phase: ram and weapon targets)."""
    ship_phase: bool | None = None
    """In the Ship Phase (else the Character Phase). Default: whether `phase` is move or attack."""
    order: list[Name] | None = Field(default=None, max_length=MAX_SHIPS)
    """Ship ids in the order they act in this phase. Default: the fixed ship initiative in the Character
    Phase, `initiative` in the Ship Phase (ties to the ship listed first), ships on the board only."""
    turn: Annotated[int | None, Field(ge=0, le=MAX_SHIPS)] = None
    """Index in `order` of the ship whose turn it is (earlier ones have acted). Default: `to_move`'s."""
    to_move: Name | None = None
    """Ship id whose captain decides now; null once the game is over. Default: the first ship in `order`
    that can decide."""
    initiative: dict[Key, Annotated[int, Field(ge=MIN_INITIATIVE, le=MAX_INITIATIVE)]] | None = Field(
        default=None, max_length=MAX_SHIPS)
    """Ship initiative of this Ship Phase (fixed initiative plus Command). Default: worked out from the
    ships in the Ship Phase; none in the Character Phase."""
    grapples: list[GrapplePosition] = Field(default_factory=list, max_length=MAX_GRAPPLES)
    """Grapples in the order they were made."""
    ships: list[ShipPosition] = Field(max_length=MAX_SHIPS)
    """Every ship in agent order: the first side's ships by number, then the second side's."""
    ended: bool = False
    """The battle is over."""
    winner: Name | None = None
    """Winning side once over; null for a draw or while playing."""
    end_reason: Name | None = None
    """Why the battle ended; null while playing."""


class CrewPhasePositions(PositionCodec[CrewPhasePosition]):
    model = CrewPhasePosition

    def dump(self, game: Game) -> CrewPhasePosition:
        if not isinstance(game, CrewPhaseGame):
            raise TypeError(f"a crew_phase position dumps a crew_phase game, not {type(game).__name__}")
        state = game.state
        labels = game.actions.crew.labels
        return CrewPhasePosition(
            **self.header(game), board=(state.width, state.height),
            weather="rough" if state.rough else "calm", round=state.round, phase=_PHASE_NAMES[state.phase],
            ship_phase=state.ship_phase, order=list(state.order), turn=state.turn, to_move=game.current_agent,
            initiative=dict(state.initiative),
            grapples=[GrapplePosition(holder=g.holder, held=g.held, weapon=g.weapon) for g in state.grapples],
            ships=[_dump_ship(ship, labels) for ship in state.ships.values()],
            ended=state.ended, winner=state.winner, end_reason=state.end_reason,
        )

    def build(self, config: CrewPhaseConfig, position: CrewPhasePosition, dice: Dice) -> CrewPhaseGame:
        state, scenario_name = _state(self, config, position)
        game: CrewPhaseGame = self.ruleset.game_from_state(config, scenario_name, dice, state)
        agent = game.current_agent
        # The engine skips a decision with nothing but the no-ops to choose, so a position never rests on one
        # (checked on the built game, once every field is sound; the game is not handed out).
        if agent is not None and np.array_equal(game.legal_mask(agent), game.action_spec.noop_mask()):
            raise PositionError([PositionProblem("to_move", f"{agent} has nothing to choose in its "
                                                            f"{position.phase} decision: {_NOTHING[state.phase]}")])
        return game


_PHASE_NAMES: dict[Phase, PhaseName] = {Phase.CREW: "crew", Phase.MOVE: "move", Phase.ATTACK: "attack"}
#: Why a decision offers nothing but the no-ops (a conscious crew member can always Command).
_NOTHING = {
    Phase.CREW: "its crew are all incapacitated",
    Phase.MOVE: "no square of movement to spend and no turn it may make in place (the engine goes on to its attack)",
    Phase.ATTACK: "no enemy directly ahead to ram and no operated weapon bearing on an enemy",
}
_PHASES = {name: phase for phase, name in _PHASE_NAMES.items()}
_FACINGS: tuple[Direction, ...] = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")  # by Compass value
_SIZES: tuple[Size, ...] = get_args(Size)  # in the order of config.SIZES (a size's code is its index)
_ARCS: tuple[Arc, ...] = get_args(Arc)     # likewise config.ARCS


# ------------------------------------------------------------------------- dump
def _dump_ship(ship: Ship, labels: tuple[str, ...]) -> ShipPosition:
    return ShipPosition(
        id=ship.id, side=ship.side, vessel=ship.vessel, x=ship.x, y=ship.y, facing=_FACINGS[ship.facing],
        hull=ship.hp, max_hull=ship.max_hp, status=ship.status.value, size=_SIZES[ship.size],
        speed_unit=ship.speed_unit, sections=ship.sections, self_steering=ship.self_steering, agile=ship.agile,
        rails=ship.rails, ac=ship.ac, initiative=ship.base_initiative, hull_die=ship.hull_die,
        hull_dice=ship.hull_dice_max, hull_dice_left=ship.hull_dice_left,
        crew=[_dump_member(m, labels) for m in ship.crew], weapons=[_dump_weapon(w) for w in ship.weapons],
        speed_gained=ship.speed_ft, sections_navigated=[s for s in range(ship.sections_manned.bit_length())
                                                        if ship.sections_manned >> s & 1],
        helmsman=ship.helmsman, helm_working=ship.steer_ok, command_successes=ship.command_successes,
        cut_lines=ship.cut_lines, movement_left=ship.movement_left, rammed=ship.rammed,
    )


def _dump_member(m: CrewMember, labels: tuple[str, ...]) -> CrewMemberPosition:
    return CrewMemberPosition(
        role=m.role, hp=m.hp, max_hp=m.max_hp, strength=m.strength, dexterity=m.dexterity,
        intelligence=m.intelligence, charisma=m.charisma, proficiency=m.proficiency,
        water_vehicles=m.water_vehicles, siege_weapons=m.siege_weapons, dex_save=m.dex_save, ac=m.ac,
        heals_left=m.heals_left, prone=m.prone, action=labels[m.action],
    )


def _dump_weapon(w: WeaponState) -> WeaponPosition:
    count, sides, bonus = w.dice
    return WeaponPosition(
        weapon=w.name, arc=_ARCS[w.arc], ability=w.ability,  # type: ignore[arg-type]  # a str of the config
        attack_bonus=w.attack_bonus, damage=f"{count}d{sides}{bonus:+d}" if bonus else f"{count}d{sides}",
        range=w.range_ft, long_range=w.long_range_ft, hp=w.hp, max_hp=w.max_hp, ac=w.ac, ammo=w.ammo,
        grapples=w.grapples, operator=w.operator, readied_by=w.readied_by,
    )


# ------------------------------------------------------------------------ build
def _state(codec: CrewPhasePositions, config: CrewPhaseConfig,
           position: CrewPhasePosition) -> tuple[GameState, str]:
    """The game state ``position`` describes, or :class:`PositionError` with every problem found."""
    problems = Problems()
    scenario_name = codec.scenario_name(position, config, problems)
    scenario = config.scenarios[scenario_name]
    width, height = position.board or scenario.board
    rough = (position.weather or scenario.weather) == "rough"
    sides = (scenario.sides[0].name, scenario.sides[1].name)
    crew_labels = codec.ruleset.specs(config)[0].crew.labels
    ships = _ships(config, scenario, position, (width, height), rough, crew_labels, problems)
    listed = [s.id for s in position.ships]  # a listed ship left out of ``ships`` has problems of its own
    grapples = _grapples(position, ships, listed, problems)
    flow = _flow(config, position, sides, ships, listed, problems)
    problems.raise_if_any()
    ship_phase, phase, order, turn, initiative = flow
    character_order = sorted(ships, key=lambda s: (-ships[s].base_initiative, ships[s].slot))
    occupancy = {(s.x, s.y): s.id for s in ships.values() if s.status is not Status.SUNK}
    state = GameState(width, height, rough, sides, ships, character_order=character_order, order=order,
                      initiative=initiative, round=position.round, ship_phase=ship_phase, turn=turn, phase=phase,
                      grapples=grapples, occupancy=occupancy, ended=position.ended, winner=position.winner,
                      end_reason=position.end_reason)
    for given in position.ships:  # the allowance needs the grapples: worked out last
        ship = ships[given.id]
        if given.movement_left is not None:
            ship.movement_left = given.movement_left
        elif not state.ended and phase is not Phase.CREW and state.current == ship.id:
            ship.movement_left = speed_allowance(ship, held_by_larger(state, ship))
    return state, scenario_name


def _ships(config: CrewPhaseConfig, scenario: Scenario, position: CrewPhasePosition, board: tuple[int, int],
           rough: bool, crew_labels: tuple[str, ...], problems: Problems) -> dict[str, Ship]:
    """Every well-formed ship of ``position`` by id, in agent order; each fault becomes a problem."""
    agents = AgentOrder([side.name for side in scenario.sides])
    rules = config.house_rules
    labels = {label: code for code, label in enumerate(crew_labels)}
    ships: dict[str, Ship] = {}
    squares: dict[tuple[int, int], str] = {}
    for i, given in enumerate(position.ships):
        where = f"ships.{i}"
        side = agents.side(where, given.id, given.side, problems)
        if side is None:
            continue
        width, height = board
        for axis, value, size in (("x", given.x, width), ("y", given.y, height)):
            if not 0 <= value < size:
                problems.add(f"{where}.{axis}", f"{value} is off the board; {axis} runs from 0 to {size - 1} "
                                                f"({width}x{height} board)")
        ship = _ship(config, scenario, given, side, len(ships), rough, labels, where, problems)
        if ship is None:
            continue
        if ship.status is not Status.SUNK:  # a sunk ship is gone from the board: its last square is free
            other = squares.setdefault((ship.x, ship.y), ship.id)
            if other != ship.id:
                problems.add(where, f"on ({ship.x}, {ship.y}) with {other}; two ships on the board never share "
                                    f"a square")
        ships[ship.id] = ship
    agents.check_counts(rules.max_ships_per_side, problems)
    return ships


def _ship(config: CrewPhaseConfig, scenario: Scenario, given: ShipPosition, side: str, slot: int, rough: bool,
          labels: dict[str, int], where: str, problems: Problems) -> Ship | None:
    vessel = known(config.vessels, given.vessel, f"{where}.vessel", "vessel", problems)
    if vessel is None:
        return None
    rules = config.house_rules
    setup_side = next(s for s in scenario.sides if s.name == side)
    number = int(given.id.rsplit("_", 1)[1])
    setup = setup_side.ships[number] if number < len(setup_side.ships) else None
    facing = given.facing or (setup.facing if setup is not None and setup.facing else setup_side.facing)
    roles = setup.crew if setup is not None and setup.vessel == given.vessel and setup.crew else vessel.crew
    crew_given = given.crew if given.crew is not None else [CrewMemberPosition(role=r) for r in roles]
    mounts = given.weapons if given.weapons is not None else [
        WeaponPosition(weapon=m.weapon, arc=m.arc) for m in vessel.weapons]
    crew = [_member(config, j, m, labels, f"{where}.crew.{j}", problems) for j, m in enumerate(crew_given)]
    weapons = [_weapon(config, j, w, len(crew_given), f"{where}.weapons.{j}", problems) for j, w in enumerate(mounts)]
    if not 1 <= len(crew_given) <= rules.max_crew:
        problems.add(f"{where}.crew", f"{len(crew_given)} crew members; from 1 to house_rules.max_crew = "
                                      f"{rules.max_crew}")
    if len(mounts) > rules.max_weapons:
        problems.add(f"{where}.weapons", f"{len(mounts)} weapons; at most house_rules.max_weapons = "
                                         f"{rules.max_weapons}")
    sections = given_or(given.sections, vessel.sections)
    if sections > rules.max_sections:
        problems.add(f"{where}.sections", f"{sections} sections; at most house_rules.max_sections = "
                                          f"{rules.max_sections}")
    max_hull = given_or(given.max_hull, vessel.hull_points)
    hull = given_or(given.hull, max_hull)
    floor = -(max_hull // 2)
    if not floor <= hull <= max_hull:
        problems.add(f"{where}.hull", f"{hull} hull points; allowed from {floor} (minus half the maximum: sunk) "
                                      f"to the maximum {max_hull}")
    status = Status.AFLOAT if hull > 0 else (Status.SUNK if hull <= floor else Status.SINKING)
    if given.status is not None and given.status != status.value:
        problems.add(f"{where}.status", f"{given.status!r} does not follow from {hull} hull points: a ship is "
                                        f"afloat above 0, sinking from 0 to {floor + 1}, sunk at {floor}; "
                                        f"here {status.value!r}")
    hull_dice = given_or(given.hull_dice, vessel.hull_dice.count)
    hull_dice_left = given_or(given.hull_dice_left, hull_dice)
    if hull_dice_left > hull_dice:
        problems.add(f"{where}.hull_dice_left", f"{hull_dice_left} hull dice left; at most the {hull_dice} it carries")
    manned = 0
    for k, section in enumerate(given.sections_navigated):
        if section >= sections or manned >> section & 1:
            problems.add(f"{where}.sections_navigated.{k}", f"section {section}; each once, from 0 to "
                                                            f"{sections - 1} ({sections} sections)")
        manned |= 1 << section
    speed_unit = given_or(given.speed_unit, vessel.speed_unit)
    if given.speed_gained > len(given.sections_navigated) * speed_unit:
        problems.add(f"{where}.speed_gained", f"{given.speed_gained} ft with {len(given.sections_navigated)} "
                                              f"section(s) navigated: each Navigate works one section and gains "
                                              f"at most the speed unit ({speed_unit} ft)")
    if given.command_successes > len(crew_given):
        problems.add(f"{where}.command_successes", f"{given.command_successes} with {len(crew_given)} crew "
                                                   "members: each makes one Command check a round at most")
    if given.helmsman is not None and given.helmsman >= len(crew_given):
        problems.add(f"{where}.helmsman", f"crew slot {given.helmsman}; the ship has crew slots 0 to "
                                          f"{len(crew_given) - 1}")
    helm_working = given.helm_working if given.helm_working is not None else (
        given.helmsman is not None and not rough)
    if helm_working and given.helmsman is None:
        problems.add(f"{where}.helm_working", "the helm works only with a helmsman: set helmsman or give false")
    if any(m is None for m in crew) or any(w is None for w in weapons):
        return None
    return Ship(
        id=given.id, side=side, vessel=given.vessel, slot=slot, size=SIZES.index(given_or(given.size, vessel.size)),
        speed_unit=speed_unit, sections=sections,
        self_steering=given_or(given.self_steering, vessel.self_steering), agile=given_or(given.agile, vessel.agile),
        rails=given_or(given.rails, vessel.rails), ac=given_or(given.ac, vessel.ac),
        base_initiative=given_or(given.initiative, vessel.initiative), max_hp=max_hull, hp=hull,
        hull_die=given_or(given.hull_die, vessel.hull_dice.sides), hull_dice_max=hull_dice, hull_dice_left=hull_dice_left,
        x=given.x, y=given.y, facing=int(Compass.parse(facing)),
        crew=[m for m in crew if m is not None], weapons=[w for w in weapons if w is not None], status=status,
        speed_ft=given.speed_gained, sections_manned=manned, helmsman=given.helmsman, steer_ok=helm_working,
        command_successes=given.command_successes, cut_lines=given.cut_lines, movement_left=0,
        rammed=given.rammed,
    )


def _member(config: CrewPhaseConfig, index: int, given: CrewMemberPosition, labels: dict[str, int], where: str,
            problems: Problems) -> CrewMember | None:
    if given.action not in labels:
        problems.add(f"{where}.action", f"unknown crew action {given.action!r}; choose one of {list(labels)}")
    profile = known(config.crew_profiles, given.role, f"{where}.role", "crew profile", problems)
    if profile is None:
        return None
    hp, max_hp = points_up_to(given.hp, given.max_hp, profile.hp, f"{where}.hp", "hit points", problems)
    dexterity = given_or(given.dexterity, profile.dexterity)
    dex_save = given.dex_save if given.dex_save is not None else (
        profile.dex_save if profile.dex_save is not None else dexterity)
    return CrewMember(
        index=index, role=given.role, strength=given_or(given.strength, profile.strength), dexterity=dexterity,
        intelligence=given_or(given.intelligence, profile.intelligence), charisma=given_or(given.charisma, profile.charisma),
        proficiency=given_or(given.proficiency, profile.proficiency),
        water_vehicles=given_or(given.water_vehicles, profile.water_vehicles),
        siege_weapons=given_or(given.siege_weapons, profile.siege_weapons), dex_save=dex_save,
        ac=given_or(given.ac, profile.ac), max_hp=max_hp, hp=hp, heals_left=given_or(given.heals_left, profile.heals),
        prone=given.prone, action=labels.get(given.action, 0),
    )


def _weapon(config: CrewPhaseConfig, index: int, given: WeaponPosition, crew: int, where: str,
            problems: Problems) -> WeaponState | None:
    for name in ("operator", "readied_by"):
        slot = getattr(given, name)
        if slot is not None and slot >= crew:
            problems.add(f"{where}.{name}", f"crew slot {slot}; the ship has crew slots 0 to {crew - 1}")
    if given.operator is not None and given.readied_by is not None:
        problems.add(f"{where}.readied_by", "a weapon is either operated or readied this round, not both")
    stats = known(config.weapons, given.weapon, f"{where}.weapon", "weapon", problems)
    if stats is None:
        return None
    hp, max_hp = points_up_to(given.hp, given.max_hp, stats.hp, f"{where}.hp", "hit points", problems)
    long_range = given_or(given.long_range, stats.long_range)
    short_range = given_or(given.range, stats.range)
    if long_range < short_range:
        problems.add(f"{where}.long_range", f"{long_range} ft is shorter than its range {short_range} ft")
    ammo = given_or(given.ammo, stats.ammo)
    for name in ("operator", "readied_by"):
        if getattr(given, name) is not None and ammo <= 0:
            problems.add(f"{where}.{name}", "set with ammo 0: Operate (and Ready, which holds it) needs the "
                                            "weapon's ammunition; give null or some ammo")
    return WeaponState(
        index=index, name=given.weapon, arc=ARCS.index(given.arc), ability=given_or(given.ability, stats.ability),
        attack_bonus=given_or(given.attack_bonus, stats.attack_bonus), dice=parse_dice(given_or(given.damage, stats.damage)),
        range_ft=short_range, long_range_ft=long_range, max_hp=max_hp, hp=hp, ac=given_or(given.ac, stats.ac),
        ammo=ammo, grapples=given_or(given.grapples, stats.grapples),
        operator=given.operator, readied_by=given.readied_by,
    )


def _grapples(position: CrewPhasePosition, ships: dict[str, Ship], listed: list[str],
              problems: Problems) -> list[Grapple]:
    """The grapples as the engine holds them (each grappling weapon knows the ship on its line)."""
    grapples: list[Grapple] = []
    for k, given in enumerate(position.grapples):
        where = f"grapples.{k}"
        found = True
        for name in ("holder", "held"):
            ship_id = getattr(given, name)
            if ship_id not in ships:
                if ship_id not in listed:
                    problems.add(f"{where}.{name}", f"no ship {ship_id!r}; ships: {listed}")
                found = False
            elif ships[ship_id].status is Status.SUNK:
                problems.add(f"{where}.{name}", f"{ship_id} is sunk; a sunk ship's grapples are gone")
                found = False
        if not found:
            continue
        holder, held = ships[given.holder], ships[given.held]
        if holder.side == held.side:
            problems.add(where, f"{holder.id} and {held.id} are both {held.side}; only enemies grapple")
            continue
        if given.weapon is None:
            if any(g.from_ram and {g.holder, g.held} == {holder.id, held.id} for g in grapples):
                problems.add(where, f"{holder.id} and {held.id} are already tangled by a ram")
                continue
        elif given.weapon >= len(holder.weapons) or not holder.weapons[given.weapon].grapples:
            grappling = [w.index for w in holder.weapons if w.grapples]
            problems.add(f"{where}.weapon", f"{holder.id} weapon {given.weapon} is not a grappling weapon; "
                                            f"its grappling weapons: {grappling} (null: a ram's grapple)")
            continue
        elif holder.weapons[given.weapon].holding is not None:
            problems.add(f"{where}.weapon", f"{holder.id} weapon {given.weapon} already holds "
                                            f"{holder.weapons[given.weapon].holding}; a line holds one ship")
            continue
        else:
            holder.weapons[given.weapon].holding = held.id
        grapples.append(Grapple(holder.id, held.id, given.weapon))
    return grapples


def _flow(config: CrewPhaseConfig, position: CrewPhasePosition, sides: tuple[str, str], ships: dict[str, Ship],
          listed: list[str], problems: Problems) -> tuple[bool, Phase, list[str], int, dict[str, int]]:
    """(ship_phase, phase, order, turn, initiative): where in the round the battle stands."""
    rules = config.house_rules
    phase = _PHASES[position.phase]
    ship_phase = position.ship_phase if position.ship_phase is not None else phase is not Phase.CREW
    if position.round > rules.max_rounds:
        problems.add("round", f"round {position.round}; the battle ends after house_rules.max_rounds = "
                              f"{rules.max_rounds}")
    if not position.ended and ship_phase != (phase is not Phase.CREW):
        problems.add("ship_phase", f"the {position.phase} decision comes in the "
                                   f"{'Character' if phase is Phase.CREW else 'Ship'} Phase; ship_phase must be "
                                   f"{phase is not Phase.CREW} (or left out)")
    check_ending(sides, position.ended, position.winner, position.end_reason, problems)
    afloat = [s for s in ships.values() if s.status is not Status.SUNK]
    beaten = [side for side in sides if not any(s.side == side for s in afloat)
              and any(s.side == side for s in ships.values())]
    if beaten and len(ships) == len(listed) and not position.ended:  # (a faulty ship was not built)
        problems.add("ended", f"every {beaten[0]} ship is sunk, so the battle is over: set ended to true "
                              f"(and the winner)")
    initiative = position.initiative
    if initiative is None:
        initiative = {s.id: s.base_initiative + rules.command_bonus * s.command_successes
                      for s in afloat} if ship_phase else {}
    for ship_id in initiative:
        if ship_id not in listed:
            problems.add(f"initiative.{ship_id}", f"no ship {ship_id!r}; ships: {listed}")
    order = position.order
    if order is None:
        if ship_phase:
            order = [s.id for s in sorted(afloat, key=lambda s: (-initiative.get(s.id, s.base_initiative), s.slot))]
        else:
            order = [s.id for s in sorted(afloat, key=lambda s: (-s.base_initiative, s.slot))]
    for k, ship_id in enumerate(order):
        if ship_id not in listed:
            problems.add(f"order.{k}", f"no ship {ship_id!r}; ships: {listed}")
        elif ship_id in order[:k]:
            problems.add(f"order.{k}", f"{ship_id} is listed twice; each ship acts once a phase")
    missing = [s.id for s in afloat if s.id not in order]
    if missing and not position.ended:
        problems.add("order", f"{missing} on the board but not in the order; every ship on the board acts "
                              f"in each phase")
    turn = _turn(position, phase, order, ships, listed, problems)
    if phase is Phase.CREW and not position.ended:
        # A ship whose crew has not acted this round has made no Command check yet: its count starts at 0 when
        # it does, so it stays within its crew (and the initiative within its bound) whatever the dice.
        for ship_id in order[turn:]:
            ship = ships.get(ship_id)
            if ship is not None and ship.command_successes:
                problems.add(f"ships.{listed.index(ship_id)}.command_successes",
                             f"{ship.command_successes}: {ship_id}'s crew has not acted yet this round (it comes at or "
                             "after to_move in the Character Phase order), so it has no Command success yet: 0")
    return ship_phase, phase, order, turn, dict(initiative)


def _turn(position: CrewPhasePosition, phase: Phase, order: list[str], ships: dict[str, Ship], listed: list[str],
          problems: Problems) -> int:
    """Index in ``order`` of the ship to move (checked able to decide now)."""
    if position.ended:
        if position.to_move is not None:
            problems.add("to_move", "the battle is over: nobody is to move; give null")
        return position.turn if position.turn is not None else len(order)

    def can_decide(ship_id: str) -> str | None:
        if ship_id not in listed:
            return f"no ship {ship_id!r}; ships: {listed}"
        ship = ships.get(ship_id)
        if ship is None:
            return None  # its own problems are reported
        if ship.status is Status.SUNK:
            return f"{ship_id} is sunk"
        if ship_id not in order:
            return f"{ship_id} is not in this phase's order {order}"
        if phase is Phase.CREW and not ship.has_conscious_crew():
            return f"{ship_id}'s crew are all incapacitated: it has no crew actions to give"
        return None

    to_move = position.to_move
    if to_move is None:
        to_move = next((s for s in order if can_decide(s) is None), None)
        if to_move is None:
            problems.add("to_move", f"no ship in {order} can decide now (sunk, or no conscious crew)")
            return 0
    else:
        reason = can_decide(to_move)
        if reason is not None:
            able = [s for s in order if can_decide(s) is None]
            problems.add("to_move", f"{to_move} cannot decide now: {reason}; ships that can: {able}")
            return 0
    turn = order.index(to_move)
    if position.turn is not None and position.turn != turn:
        problems.add("turn", f"{position.turn} is not the index of to_move {to_move} in order ({turn})")
    return turn

