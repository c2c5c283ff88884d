"""One captain's view of the battle as a fixed-size float32 vector of named slices.

Other ships come in slots: allies (the captain's own other ships) then enemies, in side
order (an enemy's slot is its target slot in the actions), then icebergs. Positions are
given in the observer's own frame (``along`` ahead, ``across`` to starboard), so "off my
starboard beam" reads the same whatever the compass heading.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.spaces import ObservationField as F
from naval_env.core.spaces import ObservationSpec, group_fields
from naval_env.rulesets.broadside.config import (
    PEOPLE,
    BroadsideConfig,
    HouseRules,
    Vessel,
    derived_tables,
)
from naval_env.rulesets.broadside.geometry import (
    EPS,
    Hull,
    clip_ray,
    heading_vector,
    hull_distance,
    incidence_angle,
)
from naval_env.rulesets.broadside.movement import speed_allowed, turn_speed, wind_factor
from naval_env.rulesets.broadside.state import Phase, Ship, Speed

if TYPE_CHECKING:
    from naval_env.rulesets.broadside.engine import BroadsideGame

#: numpy's float32 dtype as an object: ``np.frombuffer(buffer, _FLOAT32)`` parses no keyword (a third of its cost).
_FLOAT32 = np.dtype(np.float32)

LENGTH = 1 / 48     # inches
HULL = 1 / 50       # hull points
PERSON = 1 / 20     # people
GUN = 1 / 4
LEG = 1 / 10        # inches per leg
NEAR = 6.0          # edge-to-edge gaps are exact within this many inches, a lower bound beyond
#: Sets of observer constants kept per config, one per (ships, icebergs) line-up: past it they start over.
SCENARIO_CONSTANTS_LIMIT = 256


def self_fields(config: BroadsideConfig) -> list[F]:
    return [
        F("phase", len(Phase), 1.0, "one-hot decision: MANEUVER, GUNNERY, COLLISION_BOARD, BOARDING, MELEE"),
        F("position", 2, LENGTH, "x (east), y (north) in inches"),
        F("edge_distance", 4, LENGTH, "inches from the centre to the north, east, south and west edges"),
        F("heading", 2, 1.0, "sin, cos of the compass heading"),
        F("wind_relative", 2, 1.0, "sin, cos of the wind's direction off the bow"),
        F("vessel", len(config.vessel_names), 1.0, "one-hot vessel type in catalogue order"),
        F("hull", 1, HULL, "hull points left"),
        F("hull_fraction", 1, 1.0, "hull points left / at the start"),
        F("size", 2, 1 / 10, "length and beam in inches"),
        F("leg_length", len(Speed), LEG, "one leg at hold, cruising, battle, ramming on this heading (0: not allowed)"),
        F("max_turn", 1, 1 / 90, "largest turn between legs, degrees"),
        F("can_ram", 1, 1.0, "1 if the vessel may ram"),
        F("people", len(PEOPLE), PERSON, "crew, archers, marines, lieutenants, heroes at home"),
        F("away", 2, PERSON, "own marines and heroes on enemy decks"),
        F("boarded_by", 2, PERSON, "enemy marines and heroes on this deck"),
        F("guns", 3, GUN, "cannons on the port, starboard and turret batteries"),
        F("oar_sweeps", 1, 1 / 2, "times the oars were swept"),
        F("flags", 5, 1.0, "forfeit, activated, archers fired, melee fought, rammed (this turn)"),
        F("grappled", 1, 1 / 3, "ships grappled to this one"),
        F("round", 1, 1.0, "round / round limit"),
    ]


def other_fields(config: BroadsideConfig) -> list[F]:
    return other_fields_for(len(config.vessel_names))


def other_fields_for(vessel_types: int) -> list[F]:
    return [
        F("present", 1, 1.0, "1 if this slot holds a ship afloat"),
        F("vessel", vessel_types, 1.0, "one-hot vessel type"),
        F("offset", 2, LENGTH, "its centre in my frame: along (ahead), across (starboard)"),
        F("distance", 1, LENGTH, "centre to centre, inches"),
        F("gap", 1, LENGTH, "edge to edge, inches (a lower bound beyond 6)"),
        F("heading_relative", 2, 1.0, "sin, cos of its heading minus mine"),
        F("me_in_its_frame", 2, LENGTH, "my centre in its frame: along, across"),
        F("hull", 1, HULL, "hull points left"),
        F("hull_fraction", 1, 1.0, "hull points left / at the start"),
        F("people", len(PEOPLE), PERSON, "crew, archers, marines, lieutenants, heroes at home"),
        F("guns", 3, GUN, "port, starboard, turret cannons"),
        F("can_ram", 1, 1.0, "1 if it may ram"),
        F("in_my_arcs", 3, 1.0, "its centre in my port, starboard, turret arc within 20 inches"),
        F("me_in_its_arcs", 3, 1.0, "my centre in its port, starboard, turret arc within 20 inches"),
        F("my_rake", 2, 1.0, "fire from my port, starboard battery would rake it"),
        F("its_rake", 2, 1.0, "fire from its port, starboard battery would rake me"),
        F("incidence", 1, 1 / 90, "angle of incidence of my course on its keel, degrees"),
        F("my_ram_line", 3, 1.0, "the line ahead of my bow meets its hull: 1/0, inches to it (/48), a full ram there"),
        F("its_ram_line", 3, 1.0, "the line ahead of its bow meets my hull: 1/0, inches to it (/48), a full ram there"),
        F("within_boarding", 1, 1.0, "1 if within boarding distance"),
        F("grappled_with_me", 1, 1.0, "1 if grappled to me"),
        F("my_party_aboard", 2, PERSON, "my marines and heroes on its deck"),
        F("its_party_aboard", 2, PERSON, "its marines and heroes on my deck"),
        F("in_melee", 1, 1.0, "1 if a melee is fought on its deck"),
        F("activated", 1, 1.0, "1 if it has already acted this turn"),
        F("forfeit", 1, 1.0, "1 if it lost its move this turn"),
        F("oar_sweeps", 1, 1 / 2, "times its oars were swept"),
    ]


ICEBERG_FIELDS = [
    F("present", 1, 1.0, "1 if this slot holds an iceberg"),
    F("offset", 2, LENGTH, "its centre in my frame: along, across"),
    F("distance", 1, LENGTH, "centre to centre, inches"),
    F("gap", 1, LENGTH, "edge to edge, inches (a lower bound beyond 6)"),
]


def observation_spec(config: BroadsideConfig) -> ObservationSpec:
    n = config.house_rules.max_ships_per_side
    return ObservationSpec(tuple(
        [F(f"self.{f.name}", f.size, f.scale, f.description) for f in self_fields(config)]
        + group_fields("ally", n - 1, other_fields(config))
        + group_fields("enemy", n, other_fields(config))
        + group_fields("iceberg", config.house_rules.max_icebergs, ICEBERG_FIELDS)
    ))


@dataclass(frozen=True, slots=True)
class ShipTraits:
    """What stays fixed about a vessel type's ships for a whole game, already scaled for their blocks."""

    vessel: Vessel
    one_hot: tuple[float, ...]            # vessel type
    size: tuple[float, float]             # length and beam
    handling: tuple[float, float]         # max turn, can ram
    can_ram: float
    radius: float                         # Hull.radius (its length and beam never change)
    turn_speeds: tuple[float, ...]        # inches per turn at each Speed, before wind


@dataclass(frozen=True, slots=True)
class ScenarioConstants:
    """What the observation takes from the config and the scenario alone; paddings count zeros."""

    ships: dict[str, ShipTraits]
    size: int
    other_size: int
    padding: dict[str, tuple[int, int]]       # zeros after the allies' and after the enemies' slots
    iceberg_radii: tuple[float, ...]


def _scenario_constants(game: BroadsideGame) -> ScenarioConstants:
    config, rules = game.config, game.rules
    ships = list(game.state.ships.values())
    one_of_each = {ship.vessel: ship for ship in ships}
    by_vessel = {vessel: _traits(game, ship) for vessel, ship in one_of_each.items()}
    last = game.observation_spec.fields[-1]
    other_size = _other_size(len(config.vessel_names))
    n = rules.max_ships_per_side
    return ScenarioConstants(
        ships={ship.id: by_vessel[ship.vessel] for ship in ships},
        size=game.observation_spec.offsets[last.name] + last.size,   # ObservationSpec.size sums every field
        other_size=other_size,
        padding={ship.id: (other_size * (n - 1 - len(game.allies_of(ship))),
                           other_size * (n - len(game.enemies_of(ship)))) for ship in ships},
        iceberg_radii=tuple(berg.shape.radius for berg in game.state.icebergs),
    )


class ObserverTables:
    """Per-game tables of the observation: the fleet's constants (built once per config and fleet, not once
    per game) and values kept until the hulls they come from change."""

    def __init__(self, game: BroadsideGame) -> None:
        # Keyed by what the constants come from (each ship's id and vessel, each iceberg's size), not by the
        # scenario's name: a loaded position may field other ships than its scenario.
        state = game.state
        key = (tuple([(s.id, s.vessel) for s in state.ships.values()]),
               tuple([(b.shape.length, b.shape.beam) for b in state.icebergs]))
        tables = derived_tables(game.config).setdefault("observer constants", {})
        constants = tables.get(key)
        if constants is None:
            if len(tables) >= SCENARIO_CONSTANTS_LIMIT:
                tables.clear()
            constants = tables[key] = _scenario_constants(game)
        self.ships = constants.ships
        self.size = constants.size
        self.other_size = constants.other_size
        self.padding = constants.padding
        self.iceberg_radii = constants.iceberg_radii
        # Per (observer, other ship): both hulls and their geometry, kept until either hull is replaced
        # (hulls are immutable and every move replaces one; the stored hulls keep their ids from reuse).
        self._pairs: dict[tuple[str, str], tuple[Hull, Hull, tuple[float, ...], tuple[float, ...]]] = {}
        # Per observer: its hull, oar sweeps and the self block values they alone decide (the same way).
        self._bearings: dict[str, tuple[Hull, int, tuple[float, ...], tuple[float, ...]]] = {}

    def copy(self) -> ObserverTables:
        """Tables for a clone of the game: the constants shared, the kept values in dicts of its own."""
        twin = object.__new__(ObserverTables)
        twin.__dict__.update(self.__dict__)
        twin._pairs = dict(self._pairs)
        twin._bearings = dict(self._bearings)
        return twin

    def own_bearing(self, game: BroadsideGame, me: Ship) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """:func:`_own_bearing` of the observer, computed again only after its hull or oar sweeps changed."""
        hull, sweeps = me.shape, me.oar_sweeps
        known = self._bearings.get(me.id)
        if known is not None and known[0] is hull and known[1] == sweeps:
            return known[2], known[3]
        placement, legs = _own_bearing(game, me, self.ships[me.id])
        self._bearings[me.id] = (hull, sweeps, placement, legs)
        return placement, legs

    def pair_geometry(self, game: BroadsideGame, me: Ship, other: Ship
                      ) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """:func:`_pair_geometry` of the two ships' hulls, computed again only after one of them changed."""
        mine, theirs = me.shape, other.shape
        key = (me.id, other.id)
        known = self._pairs.get(key)
        if known is not None and known[0] is mine and known[1] is theirs:
            return known[2], known[3]
        placement, sighting = _pair_geometry(game.rules, mine, theirs, self.ships[me.id].radius,
                                             self.ships[other.id].radius)
        self._pairs[key] = (mine, theirs, placement, sighting)
        return placement, sighting


def _traits(game: BroadsideGame, ship: Ship) -> ShipTraits:
    """The traits of ``ship``'s vessel type (its hull is the vessel's length and beam)."""
    vessel, hull = game.vessel(ship), ship.shape
    return ShipTraits(
        vessel=vessel,
        one_hot=_vessel_one_hot(game.config.vessel_names, ship.vessel),
        size=(hull.length / 10, hull.beam / 10),
        handling=(vessel.max_turn / 90, float(vessel.can_ram)),
        can_ram=float(vessel.can_ram),
        radius=hull.radius,
        turn_speeds=tuple(turn_speed(vessel, speed) for speed in Speed),
    )


_SPEEDS = tuple(Speed)     # iterating the Enum class itself is slow
_PHASE_HOT = {phase: tuple(1.0 if p is phase else 0.0 for p in Phase) for phase in Phase}
_NO_PHASE = (0.0,) * len(Phase)


def _gap(a: Hull, b: Hull, between: float, a_radius: float, b_radius: float) -> float:
    rough = between - a_radius - b_radius
    return hull_distance(a, b) if rough <= NEAR else rough


def observe(game: BroadsideGame, agent: str) -> np.ndarray:
    state, tables = game.state, game.observer_tables
    me = state.ships[agent]
    # Empty slots stay zero: only the stretches of live values are packed (see _pack).
    stretches: list[tuple[int, list[float]]] = []
    out: list[float] = []
    _self_block(out, game, me, tables.ships[agent])
    start = 0
    ally_padding, enemy_padding = tables.padding[agent]
    for group, padding in ((game.allies_of(me), ally_padding), (game.enemies_of(me), enemy_padding)):
        for other in group:
            if other.status.fighting:
                _other_block(out, game, me, other)
            else:
                start, out = _flush(stretches, start, out, tables.other_size)
        if padding:
            start, out = _flush(stretches, start, out, padding)
    hull, my_radius = me.shape, tables.ships[agent].radius
    for berg, radius in zip(state.icebergs, tables.iceberg_radii):
        along, across = hull.to_local(berg.shape.x, berg.shape.y)
        between = math.hypot(along, across)
        out += (1.0, along * LENGTH, across * LENGTH, between * LENGTH,
                _gap(hull, berg.shape, between, my_radius, radius) * LENGTH)
    _flush(stretches, start, out, 0)
    return _pack(tables.size, stretches)


def _flush(stretches: list[tuple[int, list[float]]], start: int, values: list[float], gap: int
           ) -> tuple[int, list[float]]:
    """Keep the values gathered so far as the stretch at ``start``; returns where the next ones go, after
    ``gap`` zeros, and the list to gather them in."""
    if not values:
        return start + gap, values
    stretches.append((start, values))
    return start + len(values) + gap, []


def _pack(size: int, stretches: list[tuple[int, list[float]]]) -> np.ndarray:
    """The float32 vector of ``size`` zeros with ``stretches`` written in: one C-level ``struct`` pack per
    stretch into a zeroed buffer, which rounds each value as a cast to float32 does with a third of the
    machine instructions of numpy's conversion of a list. A value past float32's range (only a loaded
    position can hold one) is cast by numpy, which makes it inf as before."""
    buffer = bytearray(4 * size)
    try:
        for start, values in stretches:
            _packer(len(values)).pack_into(buffer, 4 * start, *values)
    except OverflowError:
        vector = np.zeros(size, dtype=np.float32)
        for start, values in stretches:
            vector[start: start + len(values)] = values
        return vector
    return np.frombuffer(buffer, _FLOAT32)


@lru_cache(maxsize=64)  # one per stretch length
def _packer(count: int) -> struct.Struct:
    return struct.Struct(f"{count}f")


def _self_block(out: list[float], game: BroadsideGame, me: Ship, traits: ShipTraits) -> None:
    state, rules = game.state, game.rules
    placement, legs = game.observer_tables.own_bearing(game, me)
    out += _PHASE_HOT[state.phase] if state.decider == me.id and not state.ended else _NO_PHASE
    out += placement
    out += traits.one_hot
    out += (me.hull * HULL, me.hull / me.max_hull, *traits.size)
    out += legs
    out += traits.handling
    people = me.people
    out += (people.crew * PERSON, people.archers * PERSON, people.marines * PERSON, people.lieutenants * PERSON,
            people.heroes * PERSON)
    away_m = away_h = 0
    for enemy in game.enemies_of(me):
        party = enemy.boarders.get(me.id)
        if party is not None:
            away_m, away_h = away_m + party.marines, away_h + party.heroes
    aboard_m = aboard_h = 0
    for party in me.boarders.values():
        aboard_m, aboard_h = aboard_m + party.marines, aboard_h + party.heroes
    guns = me.guns
    out += (away_m * PERSON, away_h * PERSON, aboard_m * PERSON, aboard_h * PERSON,
            guns["port"] * GUN, guns["starboard"] * GUN, guns["turret"] * GUN, me.oar_sweeps / 2,
            float(me.forfeit), float(me.activated), float(me.archers_fired), float(me.melee_fought), float(me.rammed),
            len(me.grappled) / 3, state.round / rules.max_rounds)


def _own_bearing(game: BroadsideGame, me: Ship, traits: ShipTraits) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """What the observer's hull and oar sweeps alone decide in its self block: (position to wind_relative,
    leg_length)."""
    state = game.state
    hull = me.shape
    x, y = hull.x, hull.y
    wind = math.radians(state.wind - hull.heading)
    placement = (x * LENGTH, y * LENGTH, (state.height - y) * LENGTH, (state.width - x) * LENGTH, y * LENGTH,
                 x * LENGTH, *heading_vector(hull.heading), math.sin(wind), math.cos(wind))
    return placement, _leg_lengths(game.rules, traits, me, state.wind)


def _leg_lengths(rules: HouseRules, traits: ShipTraits, me: Ship, wind: float) -> tuple[float, ...]:
    """movement.leg_length at every speed (0 where not allowed), the wind band looked up once."""
    vessel = traits.vessel
    factor = wind_factor(rules.wind_factors, me.shape.heading, wind) if vessel.sails else 1.0  # x * 1.0 is exact
    legs = rules.legs_per_turn
    return tuple(inches * factor / legs * LEG if speed_allowed(rules, vessel, me, speed) else 0.0
                 for speed, inches in zip(_SPEEDS, traits.turn_speeds))


@lru_cache(maxsize=64)
def _other_size(vessel_types: int) -> int:
    """Values in one other-ship block (its vessel one-hot is ``vessel_types`` long)."""
    return sum(f.size for f in other_fields_for(vessel_types))


def _arcs(along: float, across: float, length: float, reach: float, between: float, dead_zone: float
          ) -> tuple[float, float, float]:
    """Port, starboard and turret arc flags of a point given in a hull's frame (as geometry.in_arc)."""
    if between > reach + EPS:
        return 0.0, 0.0, 0.0
    band = abs(along) <= length / 2 + EPS
    turret = abs(math.degrees(math.atan2(across, along))) >= dead_zone / 2 - EPS
    return float(band and across < -EPS), float(band and across > EPS), float(turret)


def _other_block(out: list[float], game: BroadsideGame, me: Ship, other: Ship) -> None:
    tables = game.observer_tables
    placement, sighting = tables.pair_geometry(game, me, other)
    mine_party = other.boarders.get(me.id)
    their_party = me.boarders.get(other.id)
    people = other.people
    guns = other.guns
    their_traits = tables.ships[other.id]
    out.append(1.0)
    out += their_traits.one_hot
    out += placement
    out += (
        other.hull * HULL, other.hull / other.max_hull,
        people.crew * PERSON, people.archers * PERSON, people.marines * PERSON, people.lieutenants * PERSON,
        people.heroes * PERSON, guns["port"] * GUN, guns["starboard"] * GUN, guns["turret"] * GUN,
        their_traits.can_ram,
    )
    out += sighting
    out += (
        float(other.id in me.grappled),
        (mine_party.marines if mine_party else 0) * PERSON, (mine_party.heroes if mine_party else 0) * PERSON,
        (their_party.marines if their_party else 0) * PERSON, (their_party.heroes if their_party else 0) * PERSON,
        float(other.in_melee), float(other.activated), float(other.forfeit), other.oar_sweeps / 2,
    )


def _pair_geometry(rules: HouseRules, mine: Hull, theirs: Hull, my_radius: float, their_radius: float
                   ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """What two hulls alone decide in an other-ship block: (offset to heading_relative and me_in_its_frame,
    in_my_arcs to within_boarding)."""
    # Both frames' unit vectors once; every transform below is Hull.to_local / to_world written out.
    ux, uy = heading_vector(mine.heading)
    vx, vy = heading_vector(theirs.heading)
    dx, dy = theirs.x - mine.x, theirs.y - mine.y
    along, across = dx * ux + dy * uy, dx * uy - dy * ux
    dx, dy = mine.x - theirs.x, mine.y - theirs.y
    back_along, back_across = dx * vx + dy * vy, dx * vy - dy * vx
    between = math.hypot(along, across)
    gap = _gap(mine, theirs, between, my_radius, their_radius)
    relative = math.radians(theirs.heading - mine.heading)
    reach, dead = rules.cannon_die, rules.turret_dead_zone
    incidence = incidence_angle(mine.heading, theirs.heading)
    placement = (along * LENGTH, across * LENGTH, between * LENGTH, gap * LENGTH, math.sin(relative),
                 math.cos(relative), back_along * LENGTH, back_across * LENGTH)
    sighting = (
        *_arcs(along, across, mine.length, reach, between, dead),
        *_arcs(back_along, back_across, theirs.length, reach, between, dead),
        # My broadside batteries sit half a beam to either side of my centre; geometry.rakes in its frame.
        *_broadside_rakes(mine, ux, uy, theirs, vx, vy),
        *_broadside_rakes(theirs, vx, vy, mine, ux, uy),
        incidence / 90,
        *_ram_line(mine, ux, uy, theirs, vx, vy, incidence, rules.full_ram_above, rules.end_zone),
        *_ram_line(theirs, vx, vy, mine, ux, uy, incidence, rules.full_ram_above, rules.end_zone),
        float(gap <= rules.boarding_distance),
    )
    return placement, sighting


def _broadside_rakes(shooter: Hull, sx: float, sy: float, target: Hull, tx: float, ty: float
                     ) -> tuple[float, float]:
    """geometry.rakes of fire from the shooter's port and starboard batteries, given both hulls' unit vectors."""
    half_beam = shooter.beam / 2
    beam, length = target.beam, target.length
    # Port battery half a beam to port (across -half_beam), starboard to starboard: Hull.to_world written out.
    dx, dy = shooter.x - half_beam * sy - target.x, shooter.y + half_beam * sx - target.y
    port = abs(dx * tx + dy * ty) * beam > abs(dx * ty - dy * tx) * length + EPS
    dx, dy = shooter.x + half_beam * sy - target.x, shooter.y - half_beam * sx - target.y
    starboard = abs(dx * tx + dy * ty) * beam > abs(dx * ty - dy * tx) * length + EPS
    return float(port), float(starboard)


def _ram_line(rammer: Hull, rx: float, ry: float, target: Hull, tx: float, ty: float, incidence: float,
              full_above: float, end_zone: float) -> tuple[float, float, float]:
    """Whether holding course runs the rammer's bow into the target, how far, and whether it would be full
    (geometry.ray_to_hull from the bow, given both hulls' unit vectors and their angle of incidence)."""
    half_length = rammer.length / 2
    dx, dy = rammer.x + half_length * rx - target.x, rammer.y + half_length * ry - target.y
    met = clip_ray(dx * tx + dy * ty, dx * ty - dy * tx, rx * tx + ry * ty, rx * ty - ry * tx,
                   target.length / 2, target.beam / 2)
    if met is None:
        return 0.0, 0.0, 0.0
    distance, along = met
    full = along <= -target.length / 2 + end_zone or incidence > full_above
    return 1.0, min(distance, 4 * 48) * LENGTH, float(full)


@lru_cache(maxsize=64)
def _vessel_one_hot(names: tuple[str, ...], vessel: str) -> tuple[float, ...]:
    return tuple(1.0 if name == vessel else 0.0 for name in names)
