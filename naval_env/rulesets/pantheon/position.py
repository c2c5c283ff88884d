"""`pantheon` positions: the battle mat, the ships and the turn as JSON, in and out.

The full form (what :meth:`PantheonPositions.dump` writes) holds every field of the game state, so a
loaded game plays on exactly as the original. The short form an app writes by hand needs only the
ships' ids, vessels, squares and facings; every other field defaults from the vessel catalogue, the
scenario's set-up of that ship id and the rules (see the "Positions" section of docs/rules/pantheon.md).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from naval_env.core.dice import Dice
from naval_env.core.grid import Compass, chebyshev
from naval_env.core.position import (
    PositionCodec,
    PositionModel,
    Problems,
    side_of,
)
from naval_env.core.position_checks import (
    ShipsBuilder,
    check_going_on,
    check_headroom,
    given_or,
    known,
    rounds_left,
    setup_of,
)
from naval_env.core.position_fields import MAX_ROUND, Name, PositionPart, Round
from naval_env.rulesets.pantheon.config import (
    Attribute,
    CaptainStats,
    Direction,
    Enhancement,
    PantheonConfig,
    Scenario,
    ShipSetup,
    Skill,
    Vessel,
)
from naval_env.rulesets.pantheon.crew import CREW_LABELS, NONE_CODE, REPAIR_CODE
from naval_env.rulesets.pantheon.engine import PantheonGame, roll_initiative
from naval_env.rulesets.pantheon.movement import WIND_MODIFIER, speed_with_wind
from naval_env.rulesets.pantheon.state import CaptainSheet, GameState, Phase, Ship, Status

PhaseName = Literal["start", "move", "attack", "escape"]
EndReason = Literal["last side fighting", "no ship left fighting", "round_limit"]
#: Crew-action buffs a ship can hold (every crew label but "none" and the one-off "repair").
BUFF_LABELS: tuple[str, ...] = CREW_LABELS[NONE_CODE + 1: REPAIR_CODE]
BuffLabel = Literal[BUFF_LABELS]  # type: ignore[valid-type]
#: Ships a position may list: two sides of at most house_rules.max_ships_per_side (at most 5 in any config).
MAX_SHIPS = 10
#: Largest side of the battle mat, in squares.
MAX_BOARD = 64
#: Highest health level (ASSUMPTION: a vessel's health is at most 40 in any config; armor upgrades add a few
#: levels each, at most four upgrades a ship; this bound leaves room for configs with more).
MAX_HEALTH = 200
#: Highest speed, damage, maneuverability or initiative a ship may have (ASSUMPTION: the vessel catalogue
#: stays at 10 and under, upgrades add a few points each; ratings past this do not occur).
MAX_RATING = 100
#: Turns begun in a battle: at most one a ship a round. A position keeps room for the rounds still to play
#: (``turns_begun`` + ships x rounds left <= this), so a battle played on from it never counts past it.
MAX_TURNS = MAX_ROUND * MAX_SHIPS
#: Highest movement allowance: the speed rating plus the best wind modifier ("+2" sailing with the wind).
MAX_ALLOWANCE = MAX_RATING + max(WIND_MODIFIER)


class Board(PositionPart):
    """The battle mat in squares; x grows east (0 = west edge), y grows south (0 = north edge)."""

    width: int = Field(ge=4, le=MAX_BOARD)
    """Squares from west to east."""
    height: int = Field(ge=4, le=MAX_BOARD)
    """Squares from north to south."""


class Captain(PositionPart):
    """The captain's sheet: the attributes and skill the ship combat pools and initiative use."""

    wits: Attribute
    """Wits (initiative; the attack pool takes the better of Wits and Charisma)."""
    charisma: Attribute
    """Charisma (the attack pool takes the better of Wits and Charisma)."""
    resolve: Attribute
    """Resolve (the defense pool takes the better of Resolve and Composure)."""
    composure: Attribute
    """Composure (the defense pool takes the better of Resolve and Composure)."""
    seamanship: Skill
    """Seamanship: in every pool and initiative; the captain starts with this many retests."""


class ShipPosition(PositionPart):
    """One ship. Only ``id``, ``vessel``, ``x``, ``y`` and ``facing`` are required; the rest defaults."""

    id: Name
    """``<side>_<i>``, numbered from 0 per side (also the captain's agent id)."""
    side: Name | None = None
    """The ship's side, one of the scenario's two. Default: the prefix of ``id``."""
    vessel: Name
    """Vessel type, a key of the config's vessel catalogue (trireme, bireme, ...)."""
    x: int = Field(ge=0, le=MAX_BOARD - 1)
    """Square, west to east, from 0. A sunk or escaped ship keeps the square it left from."""
    y: int = Field(ge=0, le=MAX_BOARD - 1)
    """Square, north to south, from 0."""
    facing: Direction
    """Compass facing of the bow; N is up the board (y decreasing)."""
    captain: Captain | None = None
    """Default: the scenario's captain sheet for this ship id, else the config's default sheet."""
    enhancements: list[Enhancement] | None = Field(default=None, exclude=True, max_length=8)
    """Short form only: ship upgrades used to default the stats below (armor, speed, range,
    initiative). Default: the scenario's for this ship id when it is the same vessel, else none.
    Not part of the state: a dump leaves it out and gives the stats instead."""
    health: int | None = Field(default=None, ge=-MAX_HEALTH, le=MAX_HEALTH)
    """Health levels now; 0 or less is Wrecked, minus ``max_health`` is Sinking. Default: ``max_health``."""
    max_health: int | None = Field(default=None, ge=1, le=MAX_HEALTH)
    """Current maximum health (a wreck repair lowers it). Default: vessel health + 5 per armor upgrade."""
    speed: int | None = Field(default=None, ge=1, le=MAX_RATING)
    """Speed rating in squares before the wind. Default: vessel speed + 1 per speed upgrade."""
    damage: int | None = Field(default=None, ge=0, le=MAX_RATING)
    """Damage rating. Default: the vessel's."""
    maneuverability: int | None = Field(default=None, ge=0, le=MAX_RATING)
    """Maneuverability (in both pools and initiative). Default: the vessel's."""
    crew: int | None = Field(default=None, ge=0, le=4)
    """PCs aboard, each giving one crew action. Default: the scenario's, else the vessel's PC capacity."""
    shipwright: Skill | None = None
    """Crafts (Shipwright) rating of the best shipwright aboard, 0 for none. Default: the scenario's, else 0."""
    fire_range: int | None = Field(default=None, ge=1, le=MAX_BOARD)
    """Fire! range in squares. Default: 4 with the range upgrade, else 3 (house rules)."""
    initiative: int | None = Field(default=None, ge=-MAX_RATING, le=MAX_RATING)
    """Initiative rating. Default: Wits + Seamanship + Maneuverability + 3 per initiative upgrade."""
    retests: int | None = Field(default=None, ge=0, le=5)
    """Retests left for the rest of the combat. Default: the captain's Seamanship."""
    status: Status | None = Field(default=None, strict=False)
    """afloat, wrecked, sinking, sunk or escaped. Default: from health (wrecked at 0 or less,
    sinking at minus ``max_health``)."""
    sinking_turns: int = Field(default=0, ge=0, le=MAX_ROUND)
    """Turns a sinking ship has counted so far (removed at the house rules' ``sinking_turns``)."""
    crew_repair_used: bool = False
    """Whether the crew's once-a-combat Repair has been used."""
    buffs: list[BuffLabel] = Field(default_factory=list, max_length=4)
    """Crew-action buffs chosen at this captain's last attack step (at most one per PC aboard),
    as the ``crew_<i>`` action labels, e.g. ``damage+ram``; they last until its next attack step."""
    retest_on_failure: bool = False
    """Standing order: spend a retest when this captain's own test fails."""
    retest_when_hit: bool = False
    """Standing order until its next attack step: spend a retest when an enemy's test against it succeeds."""
    moved_forward: bool = False
    """Whether the ship moved forward this turn (its latest turn for a ship not to move); Ram! needs it."""
    allowance: int | None = Field(default=None, ge=0, le=MAX_ALLOWANCE)
    """Movement allowance of its current or latest turn (speed after the wind, at least 1). Default: the
    wind-modified speed for the ship to move in the move phase, else 0."""
    started_at_edge: bool | None = None
    """Whether its current or latest turn began on an edge square. Default: whether it is on one now."""
    boarding: Name | None = None
    """The enemy ship this one has boarded (the two are tied); the boarded ship is found from this."""
    last_turn_began: int | None = Field(default=None, ge=-1, le=MAX_TURNS)
    """``turns_begun`` when this ship last began a turn; -1: not since the position was set up
    (Fair Escape needs a whole earlier turn). Default: ``turns_begun`` for the ship to move, else -1."""
    last_targeted: int = Field(default=-1, ge=-1, le=MAX_TURNS)
    """``turns_begun`` of the turn in which an action was last declared at this ship; -1: never."""


class Result(PositionPart):
    """How the battle ended."""

    winner: Name | None
    """The winning side; null for a draw."""
    reason: EndReason
    """Why it ended: a side still fighting alone, none left, or the round limit (a draw)."""


class PantheonPosition(PositionModel):
    """A `pantheon` battle at one decision: the mat, the wind, the ships and whose decision it is."""

    ruleset: Literal["pantheon"]
    """Always ``pantheon``."""
    scenario: Name | None = None
    """The scenario whose board, sides and ship set-ups give the defaults. Default: the config's default."""
    board: Board | None = None
    """Default: the scenario's board."""
    wind: Direction | None = None
    """Compass direction the wind blows toward. Default: the scenario's."""
    round: Round = 1
    """Round number, from 1."""
    phase: PhaseName | None = None
    """Step of the turn of ``to_move``: start (release a boarded ship or Fair Escape), move, attack, or
    escape (the extra move of Get Us Out Of Here!). Default: the step its turn begins with."""
    to_move: Name | None = None
    """The ship id (agent) whose decision it is; null once the game is over (or left to its default while it
    goes on). Default: ``order[turn]`` when ``turn`` is given, else the first ship afloat or wrecked in
    initiative order."""
    order: list[Name] | None = Field(default=None, max_length=MAX_SHIPS)
    """Initiative order, every ship id, highest first. Default: rolled as at set-up (initiative, ties by
    a d10 each with the game's dice)."""
    turn: int | None = Field(default=None, ge=0, le=MAX_SHIPS - 1)
    """Index in ``order`` of the ship whose turn it is (or was, once over). Default: ``to_move``'s index."""
    turns_begun: int | None = Field(default=None, ge=0, le=MAX_TURNS)
    """Turns begun since the start of the battle (numbers turns for Fair Escape). Default: 1, or the
    largest ``last_turn_began`` / ``last_targeted`` given."""
    fair_escape: bool = False
    """Whether the ship to move may declare Fair Escape this turn (offered in the start phase)."""
    result: Result | None = None
    """Null while the battle goes on."""
    ships: list[ShipPosition] = Field(max_length=MAX_SHIPS)
    """Every ship in agent order: the scenario's first side, then the second, each numbered from 0."""


def _dump_ship(ship: Ship) -> ShipPosition:
    c = ship.captain
    return ShipPosition(
        id=ship.id, side=ship.side, vessel=ship.vessel, x=ship.x, y=ship.y,
        facing=Compass(ship.facing).name,  # type: ignore[arg-type]
        captain=Captain(wits=c.wits, charisma=c.charisma, resolve=c.resolve, composure=c.composure,
                        seamanship=c.seamanship),
        health=ship.health, max_health=ship.max_health, speed=ship.speed, damage=ship.damage,
        maneuverability=ship.maneuverability, crew=ship.crew_slots, shipwright=ship.shipwright,
        fire_range=ship.fire_range, initiative=ship.initiative, retests=ship.retests, status=ship.status,
        sinking_turns=ship.sinking_turns, crew_repair_used=ship.crew_repair_used,
        buffs=[CREW_LABELS[code] for code in ship.buffs], retest_on_failure=ship.retest_on_failure,
        retest_when_hit=ship.retest_when_hit, moved_forward=ship.moved_forward, allowance=ship.speed_this_turn,
        started_at_edge=ship.started_at_edge, boarding=ship.boarding, last_turn_began=ship.last_turn_start,
        last_targeted=ship.targeted_at,
    )


class _Builder(ShipsBuilder[Ship]):
    """Checks a position against the config, scenario and rules, noting every problem, and builds its state."""

    config: PantheonConfig
    scenario: Scenario
    position: PantheonPosition

    def __init__(self, config: PantheonConfig, scenario: Scenario, position: PantheonPosition,
                 problems: Problems) -> None:
        super().__init__(config, scenario, position, problems)
        board = position.board or Board(width=scenario.board[0], height=scenario.board[1])
        self.width, self.height = board.width, board.height

    def state(self, dice: Dice) -> GameState | None:
        """The state, or None with the problems noted. Dice are rolled (an initiative order not given)
        only once every other field has passed, so a refused position rolls nothing."""
        p, add = self.position, self.problems.add
        ships = self.ships()
        if p.result is not None and p.result.winner is not None and p.result.winner not in self.sides:
            add("result.winner", f"{p.result.winner!r} is not a side; sides: {list(self.sides)} (null: a draw)")
        if self.problems.found:
            return None
        self._check_squares(ships)
        self._check_ties(ships)
        self._check_order(ships)
        if self.problems.found:
            return None
        order = list(p.order) if p.order is not None else roll_initiative(ships, dice)
        state = GameState(self.width, self.height, int(Compass.parse(p.wind or self.scenario.wind)),
                          (self.sides[0], self.sides[1]), ships, order, round=p.round,
                          ended=p.result is not None, winner=p.result.winner if p.result else None,
                          end_reason=p.result.reason if p.result else None, fair_escape_ok=p.fair_escape)
        self._settle_turn(state)
        return None if self.problems.found else state

    # ------------------------------------------------------------------ ships
    def build_ship(self, k: int, given: ShipPosition) -> Ship | None:
        """The ship with every default filled in (as ``PantheonGame._set_up`` would), or None."""
        rules, where = self.rules, f"ships.{k}"
        vessel = known(self.config.vessels, given.vessel, f"{where}.vessel", "vessel", self.problems)
        if vessel is None:
            return None
        if side_of(given.id) not in self.sides:
            return None
        setup: ShipSetup | None = setup_of(self.scenario, given.id)
        same = setup if setup is not None and setup.vessel == given.vessel else None
        ups = given.enhancements if given.enhancements is not None else list(same.enhancements if same else [])
        if len(ups) > rules.max_enhancements or ups.count("range") > 1:
            self.problems.add(f"{where}.enhancements", f"{ups}: at most house_rules.max_enhancements = "
                                                       f"{rules.max_enhancements} upgrades, and 'range' once")
        sheet = given.captain if given.captain is not None else (setup.captain if setup else CaptainStats())
        captain = CaptainSheet(**sheet.model_dump())
        max_health = given_or(given.max_health, vessel.health + rules.armor_enhancement * ups.count("armor"))
        health = given_or(given.health, max_health)
        default_crew = vessel.pc_capacity if same is None or same.crew is None else min(same.crew, vessel.pc_capacity)
        ship = Ship(
            id=given.id, side=side_of(given.id) or "", vessel=given.vessel, captain=captain,
            x=given.x, y=given.y, facing=int(Compass.parse(given.facing)), max_health=max_health, health=health,
            speed=given_or(given.speed, vessel.speed + ups.count("speed")),
            damage=given_or(given.damage, vessel.damage),
            maneuverability=given_or(given.maneuverability, vessel.maneuverability),
            crew_slots=given_or(given.crew, default_crew),
            shipwright=given_or(given.shipwright, same.shipwright if same else 0),
            fire_range=given_or(given.fire_range, rules.range_enhancement if "range" in ups else rules.fire_range),
            initiative=given_or(given.initiative, captain.wits + captain.seamanship + vessel.maneuverability
                              + rules.initiative_enhancement * ups.count("initiative")),
            retests=given_or(given.retests, captain.seamanship),
            status=given.status if given.status is not None else _status_of(health, max_health),
            sinking_turns=given.sinking_turns, crew_repair_used=given.crew_repair_used,
            buffs=tuple(CREW_LABELS.index(label) for label in given.buffs),
            retest_on_failure=given.retest_on_failure, retest_when_hit=given.retest_when_hit,
            moved_forward=given.moved_forward, speed_this_turn=given_or(given.allowance, 0),
            started_at_edge=(given.started_at_edge if given.started_at_edge is not None
                             else self._at_edge(given.x, given.y)),
            boarding=given.boarding, targeted_at=given.last_targeted,
            last_turn_start=given.last_turn_began if given.last_turn_began is not None else -1,
        )
        self._check_ship(where, ship, vessel)
        return ship

    def _check_ship(self, where: str, ship: Ship, vessel: Vessel) -> None:
        add, health, top, status = self.problems.add, ship.health, ship.max_health, ship.status
        if not 0 <= ship.x < self.width:
            add(f"{where}.x", f"{ship.x} is off the {self.width}x{self.height} board: x is 0 to {self.width - 1}")
        if not 0 <= ship.y < self.height:
            add(f"{where}.y", f"{ship.y} is off the {self.width}x{self.height} board: y is 0 to {self.height - 1}")
        if not -top <= health <= top:
            add(f"{where}.health", f"{health} is outside -{top}..{top}: at most max_health ({top}), at least "
                                   "minus max_health (a ship that has lost twice its health is sinking)")
        elif status is Status.AFLOAT and health <= 0:
            add(f"{where}.status", f"afloat at health {health}: at 0 health or less a ship is wrecked")
        elif status is Status.WRECKED and not -top < health <= 0:
            add(f"{where}.status", f"wrecked at health {health}: a wreck has health -{top - 1} to 0")
        elif status in (Status.SINKING, Status.SUNK) and health != -top:
            add(f"{where}.status", f"{status.value} at health {health}: a ship sinks once it has lost twice "
                                   f"its health, at health -{top}")
        elif status is Status.ESCAPED and health <= 0:
            add(f"{where}.status", f"escaped at health {health}: only a ship afloat can escape")
        if ship.crew_slots > vessel.pc_capacity:
            add(f"{where}.crew", f"{ship.crew_slots} PCs; a {ship.vessel} carries at most {vessel.pc_capacity}")
        if len(ship.buffs) > ship.crew_slots:
            add(f"{where}.buffs", f"{len(ship.buffs)} buffs with {ship.crew_slots} PCs aboard: at most one each")
        if ship.retests > ship.captain.seamanship:
            add(f"{where}.retests", f"{ship.retests}; a captain has at most its Seamanship "
                                    f"({ship.captain.seamanship}) retests")
        limit = self.rules.sinking_turns
        if ship.sinking_turns and not (status is Status.SINKING and ship.sinking_turns < limit
                                       or status is Status.SUNK and ship.sinking_turns <= limit):
            add(f"{where}.sinking_turns", f"{ship.sinking_turns}: only a sinking ship counts its turns, "
                                          f"0 to {limit - 1} (house_rules.sinking_turns = {limit})")

    def _at_edge(self, x: int, y: int) -> bool:
        return x in (0, self.width - 1) or y in (0, self.height - 1)

    # ------------------------------------------------------- between ships
    def _check_squares(self, ships: dict[str, Ship]) -> None:
        taken: dict[tuple[int, int], str] = {}
        for k, ship in enumerate(ships.values()):
            if ship.status.on_board:
                other = taken.setdefault((ship.x, ship.y), ship.id)
                if other != ship.id:
                    self.problems.add(f"ships.{k}", f"{ship.id} is on square ({ship.x}, {ship.y}) with {other}: "
                                                    "two ships on the board cannot share a square")

    def _check_ties(self, ships: dict[str, Ship]) -> None:
        """Each ``boarding`` names an adjacent enemy, both afloat or wrecked, one tie per ship; sets
        ``boarded_by`` (derived, not in the position)."""
        add = self.problems.add
        for k, ship in enumerate(ships.values()):
            if ship.boarding is None:
                continue
            where, target = f"ships.{k}.boarding", ships.get(ship.boarding)
            if target is None:
                add(where, f"{ship.boarding!r} is not a ship here; ships: {list(ships)}")
            elif target.side == ship.side:
                add(where, f"{target.id} is on {ship.id}'s own side: a ship boards an enemy")
            elif not (ship.status.fighting and target.status.fighting):
                add(where, f"{ship.id} is {ship.status.value} and {target.id} {target.status.value}: only ships "
                           "afloat or wrecked stay tied")
            elif chebyshev(ship.x, ship.y, target.x, target.y) != 1:
                add(where, f"{target.id} is not in contact with {ship.id}: tied ships are on adjacent squares")
            elif target.boarded_by is not None or target.boarding is not None:
                add(where, f"{target.id} is already tied to another ship: a ship is in one tie at a time")
            else:
                target.boarded_by = ship.id
        for k, ship in enumerate(ships.values()):
            if ship.boarding is not None and ship.boarded_by is not None:
                add(f"ships.{k}.boarding", f"{ship.id} is boarded by {ship.boarded_by}: a ship is in one tie "
                                           "at a time")

    # ------------------------------------------------------------ the turn
    def _check_order(self, ships: dict[str, Ship]) -> None:
        """Checks of the turn fields that need no initiative order (those run before it is rolled)."""
        p, add = self.position, self.problems.add
        if p.order is not None and sorted(p.order) != sorted(ships):
            add("order", f"{p.order}: every ship id exactly once; ships: {list(ships)}")
        if p.order is None and p.turn is not None:
            add("turn", "an index into order: give order as well, or leave turn out")
        elif p.order is not None and p.turn is not None and p.turn >= len(p.order):
            add("turn", f"{p.turn} is past the end of order (0 to {len(p.order) - 1})")
        if p.result is not None:
            if p.to_move is not None:
                add("to_move", "the game is over (result is given): to_move must be null")
            return
        fighting = {s.side for s in ships.values() if s.status.fighting}
        check_going_on(self.sides, fighting, "afloat or wrecked", p.round, self.rules.max_rounds, self.problems)
        if p.to_move is not None and p.to_move not in ships:
            add("to_move", f"{p.to_move!r} is not a ship here; ships: {list(ships)}")

    def _settle_turn(self, state: GameState) -> None:
        """Whose turn, its phase and the counters, given or as the turn would have begun."""
        p = self.position
        to_move = p.to_move
        if to_move is None and p.result is None:
            to_move = state.order[p.turn] if p.turn is not None else next(
                s for s in state.order if state.ships[s].status.fighting)
        if p.turn is not None:
            state.turn = p.turn
            if to_move is not None and state.order[p.turn] != to_move:
                self.problems.add("turn", f"order[{p.turn}] is {state.order[p.turn]}, not to_move {to_move}")
        elif to_move is not None:
            state.turn = state.order.index(to_move)
        latest = max(m for s in state.ships.values() for m in (s.last_turn_start, s.targeted_at))
        state.turn_counter = p.turns_begun if p.turns_begun is not None else max(1, latest)
        if state.turn_counter < latest:
            self.problems.add("turns_begun", f"{state.turn_counter} is less than a ship's last_turn_began or "
                                             f"last_targeted ({latest}): those count the turns begun so far")
        # Each ship begins at most one turn a round, so the rounds still to play may add len(ships) a round.
        left = rounds_left(p.round, self.rules.max_rounds, p.result is not None)
        check_headroom(self.problems, "turns_begun", state.turn_counter, len(state.ships), left, MAX_TURNS,
                       "turns begun")
        if to_move is None:
            state.phase = Phase[p.phase.upper()] if p.phase else Phase.START
            return
        ship = state.ships[to_move]
        k = list(state.ships).index(to_move)
        state.phase = self._phase(ship)
        if p.ships[k].last_turn_began is None:
            ship.last_turn_start = state.turn_counter
        allowance = speed_with_wind(ship.speed, ship.facing, state.wind)
        if state.phase is Phase.MOVE and p.ships[k].allowance is None:
            ship.speed_this_turn = allowance
        self._check_decision(state, ship, k, allowance)

    def _phase(self, ship: Ship) -> Phase:
        """The given phase, else the one the ship's turn begins with (as ``PantheonGame._begin_turn``)."""
        p = self.position
        if p.phase is not None:
            return Phase[p.phase.upper()]
        if p.fair_escape or ship.boarding is not None:
            return Phase.START
        if ship.status is Status.AFLOAT and ship.tied_to is None:
            return Phase.MOVE
        return Phase.ATTACK

    def _check_decision(self, state: GameState, ship: Ship, k: int, allowance: int) -> None:
        """The ship to move can decide now, in this phase."""
        add, phase, name = self.problems.add, state.phase, state.phase.name.lower()
        if not ship.status.fighting:
            add("to_move", f"{ship.id} is {ship.status.value}: only a ship afloat or wrecked has decisions")
            return
        free = ship.status is Status.AFLOAT and ship.tied_to is None
        if phase is Phase.START and ship.boarding is None and not state.fair_escape_ok:
            add("phase", f"start is for releasing a boarded ship or declaring Fair Escape; {ship.id} can do "
                         "neither (boarding is null, fair_escape false)")
        if phase is Phase.START and state.fair_escape_ok and not (free and self._at_edge(ship.x, ship.y)):
            add("fair_escape", f"{ship.id} may declare Fair Escape only afloat, untied and on an edge square")
        if phase in (Phase.MOVE, Phase.ESCAPE) and not free:
            tie = f", tied to {ship.tied_to}" if ship.tied_to else ""
            add("phase", f"{name}: only a ship afloat and untied moves; {ship.id} is {ship.status.value}{tie}")
        if phase in (Phase.START, Phase.MOVE) and ship.moved_forward:
            add(f"ships.{k}.moved_forward", f"true in the {name} phase: {ship.id} has not moved yet this turn")
        if phase is Phase.MOVE and ship.speed_this_turn != allowance:
            add(f"ships.{k}.allowance", f"{ship.speed_this_turn}; in its move phase the allowance is speed "
                                        f"{ship.speed} after the wind: {allowance}")
        if ship.last_turn_start != state.turn_counter:
            add(f"ships.{k}.last_turn_began", f"{ship.last_turn_start}; the ship to move began its turn at "
                                              f"turns_begun = {state.turn_counter}")


def _status_of(health: int, max_health: int) -> Status:
    if health <= -max_health:
        return Status.SINKING
    return Status.WRECKED if health <= 0 else Status.AFLOAT


class PantheonPositions(PositionCodec[PantheonPosition]):
    """Dumps `pantheon` games into :class:`PantheonPosition` and builds games from positions."""

    builder = _Builder
    model = PantheonPosition

    def dump(self, game: PantheonGame) -> PantheonPosition:  # type: ignore[override]
        state = game.state
        return PantheonPosition(
            **self.header(game),
            board=Board(width=state.width, height=state.height),
            wind=Compass(state.wind).name,  # type: ignore[arg-type]
            round=state.round,
            phase=state.phase.name.lower(),  # type: ignore[arg-type]
            to_move=game.current_agent,
            order=list(state.order),
            turn=state.turn,
            turns_begun=state.turn_counter,
            fair_escape=state.fair_escape_ok,
            result=Result(winner=state.winner, reason=state.end_reason) if state.ended else None,  # type: ignore[arg-type]
            ships=[_dump_ship(ship) for ship in state.ships.values()],
        )
