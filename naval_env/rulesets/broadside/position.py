"""`broadside` positions: the whole game as JSON, in the rules' words, and games built from them.

The full form (what :meth:`BroadsidePositions.dump` writes) holds every piece of state
the rules read; a short form names only ships (id, vessel, centre, heading, optionally
hull, people, guns and status), perhaps the wind, and perhaps the round, phase and ship
to move. Everything left out defaults from the config (vessel catalogue) and the
scenario (board, wind, icebergs, each ship id's set-up), as docs/rules/broadside.md
("Positions") sets out. Loading rolls no dice: the set-up jitter of a scenario is for
new games only, and a position's hulls are where it says.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from naval_env.core.dice import Dice
from naval_env.core.game import Game
from naval_env.core.position import PositionCodec, PositionModel, Problems
from naval_env.core.position_checks import (
    AgentOrder,
    check_ending,
    check_headroom,
    known,
    points_up_to,
    rounds_left,
)
from naval_env.core.position_fields import Name, PositionPart, Round
from naval_env.rulesets.broadside.config import PEOPLE, BroadsideConfig, Scenario
from naval_env.rulesets.broadside.engine import (
    ACTIVATIONS,
    BOARDING,
    MELEE,
    BroadsideGame,
    activation_order,
)
from naval_env.rulesets.broadside.geometry import EPS, Hull, overlap
from naval_env.rulesets.broadside.state import (
    BoardingOrder,
    GameState,
    Iceberg,
    Party,
    People,
    Phase,
    Ship,
    Status,
)

RULESET_ID: Literal["broadside"] = "broadside"
PhaseName = Literal["maneuver", "gunnery", "collision_board", "boarding", "melee"]
StageName = Literal["activations", "boarding", "melee"]
StatusName = Literal["afloat", "sunk", "prize", "fled"]
#: Overlap tolerance, inches: the engine's own invariant check allows this much (hulls left touching).
_TOUCHING = 1e-6
#: Ships a side may have (house_rules.max_ships_per_side is at most 5 in any config) and in all.
MAX_SIDE_SHIPS = 5
MAX_SHIPS = 2 * MAX_SIDE_SHIPS
#: Icebergs on a table: house_rules.max_icebergs is at most 4 in any config.
MAX_ICEBERGS = 4
#: Largest table side, inches.
MAX_TABLE = 200.0
#: Inches past the table edge a ship out of the battle may lie (ASSUMPTION: a ship that fled left the table
#: within one move, at most 40 inches; a sunk ship or a prize lies where it was).
MAX_OFF_TABLE = 100.0
Inches = Annotated[float, Field(ge=-MAX_OFF_TABLE, le=MAX_TABLE + MAX_OFF_TABLE)]
OnTable = Annotated[float, Field(ge=0, le=MAX_TABLE)]
Degrees = Annotated[float, Field(ge=0, lt=360)]
#: A ship's heading: as :data:`Degrees`, and also exactly 360 (the same as 0). Turning a hull just west of north by a
#: hair's breadth east lands there in floating point (``-1e-15 + 360.0 == 360.0`` in ``geometry.compass``), so play
#: reaches it and a position must hold it.
ShipHeading = Annotated[float, Field(ge=0, le=360)]
#: People aboard: a vessel's complement is at most 60 crew, archers and marines, 10 lieutenants and 5 heroes
#: in any config; people are only ever lost.
MAX_HANDS, MAX_HEROES = 60, 5
Hands = Annotated[int, Field(ge=0, le=MAX_HANDS)]
#: Marines and heroes also move between the ships of a side (reinforcements, boarders coming home), so one ship,
#: party or order may hold a whole side's: at most a side's ships' complements, which a position's side totals
#: (home, boarding parties) are checked against.
MAX_SIDE_MARINES, MAX_SIDE_HEROES = MAX_SIDE_SHIPS * MAX_HANDS, MAX_SIDE_SHIPS * MAX_HEROES
SideMarines = Annotated[int, Field(ge=0, le=MAX_SIDE_MARINES)]
SideHeroes = Annotated[int, Field(ge=0, le=MAX_SIDE_HEROES)]
#: Oar sweeps a ship may count. Nothing in the rules stops them (the third does nothing the second did not), so
#: the bound comes from the battle's length. In a round a ship's oars are swept at most once by each collision or
#: ram it is in: a move ends at its first collision unless a full ram sank the ship struck, so each of the
#: MAX_SHIPS activations makes at most MAX_SHIPS collisions (MAX_SWEEPS_PER_ROUND). Collateral "oars" hits come on
#: top, but each follows a cannon damage die at its maximum (house_rules.cannon_damage_die, 6) that took as many
#: hull points from a ship still afloat, so a ship takes at most hull // cannon_damage_die of them in the whole
#: battle, each sweeping the chart's amount. A position keeps room for both
#: over its rounds still to play (``_check_growth``), so play never counts past this bound.
MAX_SWEEPS_PER_ROUND = MAX_SHIPS * MAX_SHIPS
MAX_OAR_SWEEPS = 1_000_000


class GunsPosition(PositionPart):
    """Cannons left on each battery. Left out: the vessel's."""

    port: Annotated[int | None, Field(ge=0, le=4)] = None
    """Cannons on the port broadside."""
    starboard: Annotated[int | None, Field(ge=0, le=4)] = None
    """Cannons on the starboard broadside."""
    turret: Annotated[int | None, Field(ge=0, le=4)] = None
    """Cannons on the turret."""


class PartyPosition(PositionPart):
    """Boarders of one enemy ship on this ship's deck."""

    owner: Name
    """Ship id the boarders came from."""
    marines: SideMarines = 0
    """Marines aboard."""
    heroes: SideHeroes = 0
    """Heroes (Captain, Commander, Admiral) aboard."""
    heroes_first: bool = False
    """Its heroes roll their melee dice before its marines."""
    retreat_on_tie: bool = False
    """A boarder whose melee die ties goes home (else stays on deck)."""


class ShipPosition(PositionPart):
    """One ship. Left out: the vessel catalogue's value, or the scenario's set-up for that ship id."""

    id: Name
    """Agent id "<side>_<i>", numbered from 0 within each side."""
    side: Name | None = None
    """Side it fights for. Default: the side in its id."""
    vessel: Name
    """Vessel type (`vessels` of the config), e.g. "galley"."""
    x: Inches
    """Centre of its hull, inches east of the board's west edge."""
    y: Inches
    """Centre of its hull, inches north of the board's south edge."""
    heading: ShipHeading | None = None
    """Compass heading of its bow, degrees (0 north, 90 east). Default: the scenario's set-up for this ship id."""
    hull: Annotated[int | None, Field(ge=0, le=200)] = None
    """Hull points left (0: sunk). Default: the maximum."""
    max_hull: Annotated[int | None, Field(ge=1, le=200)] = None
    """Hull points when whole. Default: the vessel's."""
    status: StatusName | None = None
    """afloat, sunk (hull 0), prize (taken by boarders) or fled (off the table edge). Default: afloat, or sunk
    at 0 hull points."""
    crew: Hands | None = None
    """Crew aboard (at home). Default: the scenario's set-up for this ship id, else the vessel's complement."""
    archers: Hands | None = None
    """Archers aboard (at home)."""
    marines: SideMarines | None = None
    """Marines aboard (at home, not boarding another deck); reinforcements and boarders coming home may bring
    another ship's, up to the side's total."""
    lieutenants: Annotated[int | None, Field(ge=0, le=10)] = None
    """Lieutenants aboard."""
    heroes: SideHeroes | None = None
    """Heroes aboard (at home); like marines, up to the side's total."""
    guns: GunsPosition = Field(default_factory=GunsPosition)
    """Cannons left on each battery (at most the vessel's)."""
    oar_sweeps: Annotated[int, Field(ge=0, le=MAX_OAR_SWEEPS)] = 0
    """Times its oars were swept (no Ramming Speed after one, no Battle Speed after two)."""
    boarders: list[PartyPosition] = Field(default_factory=list, max_length=MAX_SIDE_SHIPS)
    """Enemy boarding parties on its deck, in the order they arrived."""
    grappled: list[Name] = Field(default_factory=list, max_length=MAX_SIDE_SHIPS)
    """Ships grappled to this one (a grapple binds both: either ship may list the other)."""
    activated: bool | None = None
    """It has been activated this turn. Default: it is afloat and its activation has come (`order`)."""
    forfeit: bool = False
    """Struck in a collision before it moved: no move this turn."""
    archers_fired: bool = False
    """Its archers have shot this turn."""
    melee_fought: bool = False
    """This turn's melee on its deck has been fought."""
    rammed: bool = False
    """It has made its one ram of the turn."""


class IcebergPosition(PositionPart):
    """An iceberg: an oriented rectangle, like a hull."""

    x: OnTable
    """Centre, inches east of the west edge."""
    y: OnTable
    """Centre, inches north of the south edge."""
    heading: Degrees = 0.0
    """Compass direction of its length, degrees."""
    length: Annotated[float, Field(gt=0, le=20)] = 4.0
    """Length, inches."""
    beam: Annotated[float, Field(gt=0, le=20)] = 3.0
    """Width, inches."""


class DecisionPosition(PositionPart):
    """A decision still to offer this turn (skipped when the captain has nothing to decide by then)."""

    ship: Name
    """Ship id whose captain decides."""
    phase: PhaseName
    """The decision: maneuver, gunnery, collision_board, boarding or melee."""


class CollisionPosition(PositionPart):
    """A collision whose COLLISION_BOARD decisions are still open."""

    activated: Name
    """Ship id of the activated ship that struck (it may board first)."""
    struck: Name
    """Ship id of the ship it struck."""


class BoardingOrderPosition(PositionPart):
    """A BOARDING declaration made this turn, resolved with the others once every captain has declared."""

    ship: Name
    """Ship id that declared."""
    target: Name | None = None
    """Enemy to board, or friend to reinforce; null: none."""
    reinforce: bool = False
    """The target is a friend in a melee, reinforced."""
    marines: SideMarines = 0
    """Marines sent."""
    heroes: SideHeroes = 0
    """Heroes sent."""
    heroes_first: bool = False
    """Its heroes roll first."""
    archer_target: Name | None = None
    """Enemy its archers shoot at in the melee phase; null: none."""


class BroadsidePosition(PositionModel):
    """A `broadside` battle: ships, wind, icebergs, turn, stage and whose decision it is."""

    ruleset: Literal["broadside"]
    """Always "broadside"."""
    scenario: Name | None = None
    """Scenario whose board, wind, icebergs and set-up defaults apply. Default: the config's default scenario."""
    board: tuple[Annotated[float, Field(ge=12, le=MAX_TABLE)], Annotated[float, Field(ge=12, le=MAX_TABLE)]] | None = (
        Field(default=None, strict=False))
    """Table width (west to east) and height (south to north), inches. Default: the scenario's."""
    wind: Degrees | None = None
    """Compass direction the wind blows toward, degrees. Default: the scenario's."""
    icebergs: list[IcebergPosition] | None = Field(default=None, max_length=MAX_ICEBERGS)
    """Icebergs on the table. Default: the scenario's."""
    round: Round = 1
    """Turn number, from 1 (at most `max_rounds`); the first side activates first in odd turns."""
    stage: StageName | None = None
    """activations (ships move and fire one at a time), boarding (every captain declares) or melee. Default:
    the stage of `phase`."""
    phase: PhaseName = "maneuver"
    """Decision now: maneuver, gunnery, collision_board (activations), boarding or melee."""
    order: list[Name] | None = Field(default=None, max_length=MAX_SHIPS)
    """Activation order of this turn. Default: the sides alternate ship by ship, the first side leading in odd
    turns, over the ships afloat."""
    activation: Annotated[int | None, Field(ge=-1, le=MAX_SHIPS)] = None
    """Index in `order` of the ship activated now (the last index once every ship has moved). Default: the
    ship to move's (the activated ship's in a collision)."""
    to_move: Name | None = None
    """Ship id whose captain decides now; null once the game is over. Default: the first afloat ship in `order`
    (in the boarding and melee stages, the first with that decision to make)."""
    pending: list[DecisionPosition] | None = Field(default=None, max_length=MAX_SHIPS)
    """Decisions still to offer this turn after this one, in order. Default: what follows the decision now
    (a maneuver's gunnery; the struck ship's collision_board and the mover's gunnery; the later ships'
    boarding or melee)."""
    collision: CollisionPosition | None = None
    """The collision whose boarding decisions are open (needed for collision_board); null: none."""
    boarding_orders: list[BoardingOrderPosition] = Field(default_factory=list, max_length=MAX_SHIPS)
    """BOARDING declarations made so far this turn, in order."""
    ships: list[ShipPosition] = Field(max_length=MAX_SHIPS)
    """Every ship in agent order: the first side's ships by number, then the second side's."""
    ended: bool = False
    """The battle is over."""
    winner: Name | None = None
    """Winning side once over; null for a draw or while playing."""
    end_reason: Name | None = None
    """Why the battle ended; null while playing."""


class BroadsidePositions(PositionCodec[BroadsidePosition]):
    model = BroadsidePosition

    def dump(self, game: Game) -> BroadsidePosition:
        if not isinstance(game, BroadsideGame):
            raise TypeError(f"a broadside position dumps a broadside game, not {type(game).__name__}")
        state = game.state
        later = state.pending if state.ended else state.pending[1:]   # pending[0] is the decision now
        return BroadsidePosition(
            **self.header(game), board=(state.width, state.height),
            wind=state.wind, icebergs=[_dump_iceberg(b) for b in state.icebergs], round=state.round,
            stage=state.stage,  # type: ignore[arg-type]  # one of the engine's three stage names
            phase=_PHASE_NAMES[state.phase], order=list(state.order), activation=state.cursor, to_move=state.decider,
            pending=[DecisionPosition(ship=s, phase=_PHASE_NAMES[Phase(p)]) for s, p in later],
            collision=None if state.collision is None else CollisionPosition(
                activated=state.collision[0], struck=state.collision[1]),
            boarding_orders=[BoardingOrderPosition(
                ship=o.ship, target=o.target, reinforce=o.reinforce, marines=o.marines, heroes=o.heroes,
                heroes_first=o.heroes_first, archer_target=o.archer_target) for o in state.boarding_orders],
            ships=[_dump_ship(ship) for ship in state.ships.values()],
            ended=state.ended, winner=state.winner, end_reason=state.end_reason,
        )

    def build(self, config: BroadsideConfig, position: BroadsidePosition, dice: Dice) -> BroadsideGame:
        return _build(self, config, position, dice)


_PHASE_NAMES: dict[Phase, PhaseName] = {
    Phase.MANEUVER: "maneuver", Phase.GUNNERY: "gunnery", Phase.COLLISION_BOARD: "collision_board",
    Phase.BOARDING: "boarding", Phase.MELEE: "melee"}
_PHASES = {name: phase for phase, name in _PHASE_NAMES.items()}
_STAGE_OF: dict[Phase, str] = {Phase.MANEUVER: ACTIVATIONS, Phase.GUNNERY: ACTIVATIONS,
                               Phase.COLLISION_BOARD: ACTIVATIONS, Phase.BOARDING: BOARDING, Phase.MELEE: MELEE}
#: Why the engine offers a captain no such decision (it would have skipped it).
_NOTHING_TO_DECIDE = {
    Phase.MANEUVER: "it cannot move (grappled, or struck before it moved)",
    Phase.GUNNERY: "no battery bears on an enemy within a d20's range and its archers have no shot",
    Phase.COLLISION_BOARD: "it is not in the collision, has no boarders, or the other ship is out of the battle",
    Phase.BOARDING: "no enemy within boarding distance or grappled, no friend's melee to reinforce, no archer shot",
    Phase.MELEE: "none of its boarders is in a melee still to fight",
}


# ------------------------------------------------------------------------- dump
def _dump_ship(ship: Ship) -> ShipPosition:
    shape, people = ship.shape, ship.people
    return ShipPosition(
        id=ship.id, side=ship.side, vessel=ship.vessel, x=shape.x, y=shape.y, heading=shape.heading,
        hull=ship.hull, max_hull=ship.max_hull, status=ship.status.value, crew=people.crew, archers=people.archers,
        marines=people.marines, lieutenants=people.lieutenants, heroes=people.heroes,
        guns=GunsPosition(**ship.guns), oar_sweeps=ship.oar_sweeps,
        boarders=[PartyPosition(owner=owner, marines=p.marines, heroes=p.heroes, heroes_first=p.heroes_first,
                                retreat_on_tie=p.retreat_on_tie) for owner, p in ship.boarders.items()],
        grappled=list(ship.grappled), activated=ship.activated, forfeit=ship.forfeit,
        archers_fired=ship.archers_fired, melee_fought=ship.melee_fought, rammed=ship.rammed,
    )


def _dump_iceberg(berg: Iceberg) -> IcebergPosition:
    shape = berg.shape
    return IcebergPosition(x=shape.x, y=shape.y, heading=shape.heading, length=shape.length, beam=shape.beam)


# ------------------------------------------------------------------------ build
def _build(codec: BroadsidePositions, config: BroadsideConfig, position: BroadsidePosition,
           dice: Dice) -> BroadsideGame:
    """The game ``position`` describes, or :class:`PositionError` with every problem found.

    Fields are checked first, all together; the decision named is then checked against the rules
    (whether the engine offers it), on a game that is not handed out unless it passes."""
    problems = Problems()
    scenario_name = codec.scenario_name(position, config, problems)
    scenario = config.scenarios[scenario_name]
    board = position.board or scenario.board
    icebergs = _icebergs(config, scenario, position, board, problems)
    ships = _ships(config, scenario, position, board, icebergs, problems)
    listed = [s.id for s in position.ships]  # a listed ship left out of ``ships`` has problems of its own
    _engagements(position, ships, listed, problems)
    _check_growth(config, position, ships, problems)
    state = _flow(config, position, scenario, board, icebergs, ships, listed, problems)
    problems.raise_if_any()
    game: BroadsideGame = codec.ruleset.game_from_state(config, scenario_name, dice, state)
    if not state.ended:
        _hold_decision(game, position, problems)
    problems.raise_if_any()
    return game


def _icebergs(config: BroadsideConfig, scenario: Scenario, position: BroadsidePosition,
              board: tuple[float, float], problems: Problems) -> list[Iceberg]:
    if position.icebergs is None:
        given = [IcebergPosition(x=b.position[0], y=b.position[1], heading=b.heading, length=b.length, beam=b.beam)
                 for b in scenario.icebergs]
    else:
        given = position.icebergs
    if len(given) > config.house_rules.max_icebergs:  # refused before any pair is compared
        problems.add("icebergs", f"{len(given)} icebergs; at most house_rules.max_icebergs = "
                                 f"{config.house_rules.max_icebergs}")
        return []
    icebergs = [Iceberg(f"iceberg_{i}", Hull(b.x, b.y, b.heading, b.length, b.beam)) for i, b in enumerate(given)]
    for i, berg in enumerate(icebergs):
        _check_on_board(berg.shape, board, f"icebergs.{i}", problems)
        for other in icebergs[:i]:
            if overlap(berg.shape, other.shape, tolerance=_TOUCHING):
                problems.add(f"icebergs.{i}", f"overlaps {other.id}; icebergs never overlap")
    return icebergs


def _ships(config: BroadsideConfig, scenario: Scenario, position: BroadsidePosition, board: tuple[float, float],
           icebergs: list[Iceberg], problems: Problems) -> dict[str, Ship]:
    """Every well-formed ship of ``position`` by id, in agent order; each fault becomes a problem."""
    agents = AgentOrder([side.name for side in scenario.sides])
    rules = config.house_rules
    ships: dict[str, Ship] = {}
    bodies: list[tuple[str, Hull]] = [(b.id, b.shape) for b in icebergs]
    for i, given in enumerate(position.ships):
        where = f"ships.{i}"
        side = agents.side(where, given.id, given.side, problems)
        if side is None:
            continue
        ship = _ship(config, scenario, given, side, where, problems)
        if ship is None:
            continue
        if ship.status is Status.AFLOAT:  # a ship out of the battle is off the board
            _check_on_board(ship.shape, board, where, problems)
            for other_id, other in bodies:
                if overlap(ship.shape, other, tolerance=_TOUCHING):
                    problems.add(where, f"its hull overlaps {other_id}'s; hulls on the table never overlap")
            bodies.append((ship.id, ship.shape))
        ships[ship.id] = ship
    agents.check_counts(rules.max_ships_per_side, problems)
    return ships


def _ship(config: BroadsideConfig, scenario: Scenario, given: ShipPosition, side: str, where: str,
          problems: Problems) -> Ship | None:
    vessel = known(config.vessels, given.vessel, f"{where}.vessel", "vessel", problems)
    if vessel is None:
        return None
    setup_side = next(s for s in scenario.sides if s.name == side)
    number = int(given.id.rsplit("_", 1)[1])
    setup = setup_side.ships[number] if number < len(setup_side.ships) else None
    heading = given.heading if given.heading is not None else (setup.heading if setup is not None else None)
    if heading is None:
        problems.add(f"{where}.heading", f"required: the scenario sets up no {given.id} to take it from "
                                         f"(compass degrees, 0 <= heading < 360)")
        return None
    people = {}
    for who in PEOPLE:
        value = getattr(given, who)
        if value is None and setup is not None and setup.vessel == given.vessel:
            value = getattr(setup, who)
        people[who] = value if value is not None else getattr(vessel.complement, who)
    guns = {}
    for battery in ("port", "starboard", "turret"):
        mounted = getattr(vessel.guns, battery)
        value = getattr(given.guns, battery)
        guns[battery] = mounted if value is None else value
        if guns[battery] > mounted:
            problems.add(f"{where}.guns.{battery}", f"{value} cannons; a {given.vessel}'s {battery} battery "
                                                    f"mounts {mounted} (guns are only ever lost)")
    hull, max_hull = points_up_to(given.hull, given.max_hull, vessel.hull, f"{where}.hull", "hull points", problems,
                                  lowest="0 (sunk)")
    status = Status(given.status) if given.status is not None else (Status.AFLOAT if hull > 0 else Status.SUNK)
    if (status is Status.SUNK) != (hull == 0):
        problems.add(f"{where}.status", f"{status.value!r} with {hull} hull points: a ship is sunk exactly when "
                                        f"its hull is 0 (afloat, prize and fled ships have hull left)")
    return Ship(
        id=given.id, side=side, vessel=given.vessel,
        shape=Hull(given.x, given.y, heading, vessel.length, vessel.beam), max_hull=max_hull, hull=hull,
        people=People(**people), guns=guns, status=status, oar_sweeps=given.oar_sweeps,
        boarders={p.owner: Party(p.marines, p.heroes, p.heroes_first, p.retreat_on_tie) for p in given.boarders},
        grappled=sorted(set(given.grappled)), activated=bool(given.activated), forfeit=given.forfeit,
        archers_fired=given.archers_fired, melee_fought=given.melee_fought, rammed=given.rammed,
    )


def _check_on_board(shape: Hull, board: tuple[float, float], where: str, problems: Problems) -> None:
    """Every corner on the table (the engine's own test); names the coordinate that runs off it."""
    if shape.inside_board(*board):
        return
    width, height = board
    corners = shape.corners()
    size = f"{shape.length:g} x {shape.beam:g} in at heading {shape.heading:g}"
    xs, ys = [cx for cx, _ in corners], [cy for _, cy in corners]
    if min(xs) < -EPS or max(xs) > width + EPS:
        problems.add(f"{where}.x", f"{shape.x:g} puts the hull ({size}) across the table edge; every corner "
                                   f"needs 0 <= x <= {width:g} ({width:g} x {height:g}-inch table)")
    if min(ys) < -EPS or max(ys) > height + EPS:
        problems.add(f"{where}.y", f"{shape.y:g} puts the hull ({size}) across the table edge; every corner "
                                   f"needs 0 <= y <= {height:g} ({width:g} x {height:g}-inch table)")


def _engagements(position: BroadsidePosition, ships: dict[str, Ship], listed: list[str],
                 problems: Problems) -> None:
    """Boarding parties come from enemies in the battle; grapples join two ships in it, both ways."""
    for i, given in enumerate(position.ships):
        ship = ships.get(given.id)
        if ship is None:
            continue
        seen: set[str] = set()
        for k, party in enumerate(given.boarders):
            where = f"ships.{i}.boarders.{k}"
            owner = ships.get(party.owner)
            if party.owner not in listed:
                problems.add(f"{where}.owner", f"no ship {party.owner!r}; ships: {listed}")
            elif party.owner in seen:
                problems.add(f"{where}.owner", f"{party.owner} is listed twice; one party per ship aboard")
            elif owner is not None and owner.side == ship.side:
                problems.add(f"{where}.owner", f"{party.owner} is a friend; only enemies board")
            elif owner is not None and not owner.status.fighting:
                problems.add(f"{where}.owner", f"{party.owner} is {owner.status.value}: its boarders are lost")
            if party.marines + party.heroes == 0:
                problems.add(where, "an empty party; a party aboard has at least one marine or hero")
            seen.add(party.owner)
        if given.boarders and not ship.status.fighting:
            problems.add(f"ships.{i}.boarders", f"{ship.id} is {ship.status.value}: no melee is fought on it")
        for k, other_id in enumerate(given.grappled):
            where = f"ships.{i}.grappled.{k}"
            other = ships.get(other_id)
            if other_id not in listed:
                problems.add(where, f"no ship {other_id!r}; ships: {listed}")
            elif other_id == ship.id:
                problems.add(where, "a ship is not grappled to itself")
            elif other is not None and other.side == ship.side:
                problems.add(where, f"{other_id} is a friend; only enemies grapple (a ram or boarders aboard)")
            elif not ship.status.fighting:
                problems.add(where, f"{ship.id} is {ship.status.value}: its grapples were cut")
            elif other is not None and not other.status.fighting:
                problems.add(where, f"{other_id} is {other.status.value}: its grapples were cut")
            elif other is not None and ship.id not in other.grappled:
                other.grappled = sorted([*other.grappled, ship.id])   # a grapple binds both ships


def _check_growth(config: BroadsideConfig, position: BroadsidePosition, ships: dict[str, Ship],
                  problems: Problems) -> None:
    """What play can add to stays within its bound: each side's marines and heroes (at home and in boarding
    parties: they only move between the side's ships, or are lost) within a side's complement, and each ship's oar
    sweeps with room for the rounds still to play (see :data:`MAX_OAR_SWEEPS`)."""
    index = {ship_id: k for k, ship_id in enumerate(s.id for s in position.ships)}
    for side in dict.fromkeys(s.side for s in ships.values()):
        own = [s for s in ships.values() if s.side == side]
        parties = [p for host in ships.values() for owner, p in host.boarders.items()
                   if owner in ships and ships[owner].side == side]
        for kind, bound in (("marines", MAX_SIDE_MARINES), ("heroes", MAX_SIDE_HEROES)):
            total = sum(getattr(s.people, kind) for s in own) + sum(getattr(p, kind) for p in parties)
            if total > bound:
                problems.add(f"ships.{index[own[0].id]}.{kind}",
                             f"side {side!r} has {total} {kind} aboard its ships and in its boarding parties; at most "
                             f"{bound} ({MAX_SIDE_SHIPS} ships of at most {bound // MAX_SIDE_SHIPS})")
    oars = [entry.amount.count * max(entry.amount.sides, 1) for entry in config.collateral_chart.values()
            if entry.effect == "oars"]
    left = rounds_left(position.round, config.house_rules.max_rounds, position.ended)
    for ship in ships.values():
        collateral = (ship.hull // config.house_rules.cannon_damage_die) * max(oars, default=0) if left else 0
        check_headroom(problems, f"ships.{index[ship.id]}.oar_sweeps", ship.oar_sweeps + collateral,
                       MAX_SWEEPS_PER_ROUND, left, MAX_OAR_SWEEPS, "oar sweeps (with the collateral hits still possible)")


def _flow(config: BroadsideConfig, position: BroadsidePosition, scenario: Scenario, board: tuple[float, float],
          icebergs: list[Iceberg], ships: dict[str, Ship], listed: list[str], problems: Problems) -> GameState:
    """The state with the turn's bookkeeping: stage, order, activation, decisions, collision, declarations."""
    rules = config.house_rules
    sides = (scenario.sides[0].name, scenario.sides[1].name)
    phase = _PHASES[position.phase]
    stage = position.stage or _STAGE_OF[phase]
    ended = position.ended

    def known(path: str, ship_id: str | None) -> None:
        if ship_id is not None and ship_id not in listed:
            problems.add(path, f"no ship {ship_id!r}; ships: {listed}")

    if position.round > rules.max_rounds:
        problems.add("round", f"turn {position.round}; the battle ends after house_rules.max_rounds = "
                              f"{rules.max_rounds}")
    if not ended and stage != _STAGE_OF[phase]:
        problems.add("stage", f"a {position.phase} decision comes in the {_STAGE_OF[phase]} stage, not {stage}")
    check_ending(sides, position.ended, position.winner, position.end_reason, problems)
    if not ended:
        beaten = [side for side in sides if any(s.side == side for s in ships.values())
                  and not any(s.side == side and s.status.fighting for s in ships.values())]
        if beaten and len(ships) == len(listed):  # (a faulty ship was not built)
            problems.add("ended", f"no {beaten[0]} ship is left fighting, so the battle is over: set ended to "
                                  f"true (and the winner)")
    fleets = [[s for s in ships.values() if s.side == side] for side in sides]
    order = position.order if position.order is not None else activation_order(fleets, position.round)
    for k, ship_id in enumerate(order):
        known(f"order.{k}", ship_id)
        if ship_id in order[:k]:
            problems.add(f"order.{k}", f"{ship_id} is listed twice; each ship is activated once a turn")
    missing = [s.id for s in ships.values() if s.status.fighting and s.id not in order]
    if missing and not ended:
        problems.add("order", f"{missing} afloat but not in the activation order; every ship afloat is activated")
    collision = None
    if position.collision is not None:
        known("collision.activated", position.collision.activated)
        known("collision.struck", position.collision.struck)
        collision = (position.collision.activated, position.collision.struck)
    for k, o in enumerate(position.boarding_orders):
        for name in ("ship", "target", "archer_target"):
            known(f"boarding_orders.{k}.{name}", getattr(o, name))
    later = position.pending
    for k, decision in enumerate(later or []):
        known(f"pending.{k}.ship", decision.ship)
    to_move, activation = _to_move(position, phase, stage, order, collision, ships, listed, problems)
    if later is None:
        later = _later(phase, to_move, order, collision) if to_move is not None else []
    if ended and later:
        problems.add("pending", "the battle is over: no decision is pending")
    pending = [] if ended else [(to_move or "", int(phase))]
    pending += [(d.ship, int(_PHASES[d.phase])) for d in later]
    for ship in ships.values():
        if next(p.activated for p in position.ships if p.id == ship.id) is None:
            in_turn = ship.id in order and (stage != ACTIVATIONS or order.index(ship.id) <= activation)
            ship.activated = ship.status.fighting and in_turn
    return GameState(
        board[0], board[1], position.wind if position.wind is not None else scenario.wind, sides, ships,
        icebergs, round=position.round, order=list(order), cursor=activation, stage=stage, pending=pending,
        decider=to_move, phase=phase, collision=collision,
        boarding_orders=[BoardingOrder(o.ship, o.target, o.reinforce, o.marines, o.heroes, o.heroes_first,
                                       o.archer_target) for o in position.boarding_orders],
        winner=position.winner, end_reason=position.end_reason, ended=ended,
    )


def _to_move(position: BroadsidePosition, phase: Phase, stage: str, order: list[str],
             collision: tuple[str, str] | None, ships: dict[str, Ship], listed: list[str],
             problems: Problems) -> tuple[str | None, int]:
    """(ship to move, activation index). In the boarding and melee stages a ship left out is chosen once the
    game exists (:func:`_hold_decision`): which captains have such a decision is the engine's to say."""
    last = len(order) - 1
    if position.ended:
        if position.to_move is not None:
            problems.add("to_move", "the battle is over: nobody is to move; give null")
        return None, position.activation if position.activation is not None else last
    to_move = position.to_move
    if stage != ACTIVATIONS:
        activation = position.activation if position.activation is not None else last
    elif phase is Phase.COLLISION_BOARD:
        if collision is None:
            problems.add("collision", "a collision_board decision needs the collision: {activated, struck}")
            return to_move, position.activation or 0
        mover = collision[0]
        to_move = to_move or mover
        activation = order.index(mover) if mover in order else -1
        if to_move not in collision:
            problems.add("to_move", f"{to_move} is not in the collision of {collision[0]} and {collision[1]}; "
                                    f"only they may board now")
    else:
        if to_move is None:
            if position.activation is not None and 0 <= position.activation < len(order):
                to_move = order[position.activation]
            else:
                to_move = next((s for s in order if s in ships and ships[s].status.fighting), None)
        activation = order.index(to_move) if to_move in order else -1
    if position.activation is not None and stage == ACTIVATIONS and position.activation != activation:
        problems.add("activation", f"{position.activation} is not the index in order of the activated ship "
                                   f"({activation})")
    if to_move is None:
        if stage == ACTIVATIONS:
            problems.add("to_move", f"no ship in {order} is afloat to be activated")
        return None, activation
    if to_move not in listed:
        problems.add("to_move", f"no ship {to_move!r}; ships: {listed}")
    elif to_move in ships and not ships[to_move].status.fighting:
        problems.add("to_move", f"{to_move} is out of the battle ({ships[to_move].status.value})")
    elif to_move not in order:
        problems.add("to_move", f"{to_move} is not in this turn's order {order}")
    return to_move, activation


def _later(phase: Phase, to_move: str, order: list[str], collision: tuple[str, str] | None) -> list[DecisionPosition]:
    """The decisions the engine queues after ``phase`` of ``to_move``."""
    if phase is Phase.MANEUVER:
        return [DecisionPosition(ship=to_move, phase="gunnery")]
    if phase is Phase.COLLISION_BOARD and collision is not None:
        mover, struck = collision
        after = [DecisionPosition(ship=mover, phase="gunnery")]
        return [DecisionPosition(ship=struck, phase="collision_board"), *after] if to_move == mover else after
    if phase in (Phase.BOARDING, Phase.MELEE) and to_move in order:
        return [DecisionPosition(ship=s, phase=_PHASE_NAMES[phase]) for s in order[order.index(to_move) + 1:]]
    return []


def _hold_decision(game: BroadsideGame, position: BroadsidePosition, problems: Problems) -> None:
    """The decision named must be one the engine offers (it skips a decision with nothing to choose); in the
    boarding and melee stages a ``to_move`` left out is the first ship in order with that decision."""
    state = game.state
    phase = state.phase
    if state.decider is None:  # boarding or melee, nobody named
        offered = [s for s in state.order if game._offer(state.ships[s], phase) is not None]
        if not offered:
            problems.add("to_move", f"no ship in {state.order} has a {position.phase} decision: "
                                    f"{_NOTHING_TO_DECIDE[phase]}")
            return
        state.decider = offered[0]
        if position.pending is None:
            later = _later(phase, offered[0], state.order, state.collision)
            state.pending = [(offered[0], int(phase)), *((d.ship, int(_PHASES[d.phase])) for d in later)]
        else:
            state.pending[0] = (offered[0], int(phase))
        return
    if game._offer(state.ships[state.decider], phase) is None:
        problems.add("to_move", f"{state.decider} has no {position.phase} decision now: "
                                f"{_NOTHING_TO_DECIDE[phase]}")
