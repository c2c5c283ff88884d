"""One captain's view of the battle as a fixed-size float32 vector of named slices.

Other ships come in slots: allies (the captain's own other ships) then enemies, in side
order (an enemy's slot is its target slot in the actions), then icebergs. Positions are
given in the observer's own frame (``along`` ahead, ``across`` to starboard), so "off my
starboard beam" reads the same whatever the compass heading.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache
from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.spaces import ObservationField as F
from naval_env.core.spaces import ObservationSpec, group_fields
from naval_env.rulesets.broadside.config import PEOPLE, BroadsideConfig
from naval_env.rulesets.broadside.geometry import (
    EPS,
    Hull,
    hull_distance,
    incidence_angle,
    rakes,
    ray_to_hull,
)
from naval_env.rulesets.broadside.movement import leg_length, speed_allowed
from naval_env.rulesets.broadside.state import Phase, Ship, Speed

if TYPE_CHECKING:
    from naval_env.rulesets.broadside.engine import BroadsideGame

LENGTH = 1 / 48     # inches
HULL = 1 / 50       # hull points
PERSON = 1 / 20     # people
GUN = 1 / 4
LEG = 1 / 10        # inches per leg
NEAR = 6.0          # edge-to-edge gaps are exact within this many inches, a lower bound beyond


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
ICEBERG_SIZE = sum(f.size for f in ICEBERG_FIELDS)


def observation_spec(config: BroadsideConfig) -> ObservationSpec:
    n = config.house_rules.max_ships_per_side
    return ObservationSpec(tuple(
        [F(f"self.{f.name}", f.size, f.scale, f.description) for f in self_fields(config)]
        + group_fields("ally", n - 1, other_fields(config))
        + group_fields("enemy", n, other_fields(config))
        + group_fields("iceberg", config.house_rules.max_icebergs, ICEBERG_FIELDS)
    ))


def _one_hot(size: int, index: int) -> list[float]:
    values = [0.0] * size
    values[index] = 1.0
    return values


def _gap(a: Hull, b: Hull, between: float) -> float:
    rough = between - a.radius - b.radius
    return hull_distance(a, b) if rough <= NEAR else rough


def observe(game: BroadsideGame, agent: str) -> np.ndarray:
    state, config, rules = game.state, game.config, game.rules
    me = state.ships[agent]
    hull = me.shape
    vessel = game.vessel(me)
    out: list[float] = []
    add = out.extend
    deciding = state.decider == agent and not state.ended
    add(_one_hot(len(Phase), state.phase) if deciding else [0.0] * len(Phase))
    add((hull.x * LENGTH, hull.y * LENGTH, (state.height - hull.y) * LENGTH, (state.width - hull.x) * LENGTH,
         hull.y * LENGTH, hull.x * LENGTH))
    radians = math.radians(hull.heading)
    wind = math.radians(state.wind - hull.heading)
    add((math.sin(radians), math.cos(radians), math.sin(wind), math.cos(wind)))
    add(_vessel_one_hot(config.vessel_names, me.vessel))
    add((me.hull * HULL, me.hull / me.max_hull, hull.length / 10, hull.beam / 10))
    add(leg_length(rules, vessel, speed, hull.heading, state.wind) * LEG
        if speed_allowed(rules, vessel, me, speed) else 0.0 for speed in Speed)
    add((vessel.max_turn / 90, float(vessel.can_ram)))
    add(getattr(me.people, who) * PERSON for who in PEOPLE)
    away_m = away_h = 0
    for enemy in game.enemies_of(me):
        party = enemy.boarders.get(agent)
        if party is not None:
            away_m, away_h = away_m + party.marines, away_h + party.heroes
    add((away_m * PERSON, away_h * PERSON,
         sum(p.marines for p in me.boarders.values()) * PERSON, sum(p.heroes for p in me.boarders.values()) * PERSON))
    add((me.guns["port"] * GUN, me.guns["starboard"] * GUN, me.guns["turret"] * GUN, me.oar_sweeps / 2))
    add((float(me.forfeit), float(me.activated), float(me.archers_fired), float(me.melee_fought), float(me.rammed),
         len(me.grappled) / 3, state.round / rules.max_rounds))
    n = rules.max_ships_per_side
    size = _other_size(len(config.vessel_names))
    for group, slots in ((game.allies_of(me), n - 1), (game.enemies_of(me), n)):
        for other in group:
            if other.status.fighting:
                _other_block(out, game, me, other)
            else:
                out.extend([0.0] * size)
        out.extend([0.0] * (size * (slots - len(group))))
    for berg in state.icebergs:
        along, across = hull.to_local(berg.shape.x, berg.shape.y)
        between = math.hypot(along, across)
        add((1.0, along * LENGTH, across * LENGTH, between * LENGTH, _gap(hull, berg.shape, between) * LENGTH))
    out.extend([0.0] * ICEBERG_SIZE * (rules.max_icebergs - len(state.icebergs)))
    return np.array(out, dtype=np.float32)


@cache
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
    config, rules = game.config, game.rules
    mine, theirs = me.shape, other.shape
    along, across = mine.to_local(theirs.x, theirs.y)
    back_along, back_across = theirs.to_local(mine.x, mine.y)
    between = math.hypot(along, across)
    gap = _gap(mine, theirs, between)
    relative = math.radians(theirs.heading - mine.heading)
    reach, dead = rules.cannon_die, rules.turret_dead_zone
    half_beam, their_half_beam = mine.beam / 2, theirs.beam / 2
    mine_party = other.boarders.get(me.id)
    their_party = me.boarders.get(other.id)
    people = other.people
    guns = other.guns
    out.append(1.0)
    out.extend(_vessel_one_hot(config.vessel_names, other.vessel))
    out.extend((
        along * LENGTH, across * LENGTH, between * LENGTH, gap * LENGTH, math.sin(relative), math.cos(relative),
        back_along * LENGTH, back_across * LENGTH, other.hull * HULL, other.hull / other.max_hull,
        people.crew * PERSON, people.archers * PERSON, people.marines * PERSON, people.lieutenants * PERSON,
        people.heroes * PERSON, guns["port"] * GUN, guns["starboard"] * GUN, guns["turret"] * GUN,
        float(game.vessel(other).can_ram),
        *_arcs(along, across, mine.length, reach, between, dead),
        *_arcs(back_along, back_across, theirs.length, reach, between, dead),
        # My broadside batteries sit half a beam to either side of my centre; rakes() in its frame.
        float(rakes(theirs, *mine.to_world(0.0, -half_beam))), float(rakes(theirs, *mine.to_world(0.0, half_beam))),
        float(rakes(mine, *theirs.to_world(0.0, -their_half_beam))),
        float(rakes(mine, *theirs.to_world(0.0, their_half_beam))),
        incidence_angle(mine.heading, theirs.heading) / 90,
        *_ram_line(mine, theirs, rules.full_ram_above, rules.end_zone),
        *_ram_line(theirs, mine, rules.full_ram_above, rules.end_zone),
        float(gap <= rules.boarding_distance),
        float(other.id in me.grappled),
        (mine_party.marines if mine_party else 0) * PERSON, (mine_party.heroes if mine_party else 0) * PERSON,
        (their_party.marines if their_party else 0) * PERSON, (their_party.heroes if their_party else 0) * PERSON,
        float(other.in_melee), float(other.activated), float(other.forfeit), other.oar_sweeps / 2,
    ))


def _ram_line(rammer: Hull, target: Hull, full_above: float, end_zone: float) -> tuple[float, float, float]:
    """Whether holding course runs the rammer's bow into the target, how far, and whether it would be full."""
    bx, by = rammer.bow
    met = ray_to_hull(bx, by, rammer.heading, target)
    if met is None:
        return 0.0, 0.0, 0.0
    distance, along = met
    full = along <= -target.length / 2 + end_zone or incidence_angle(rammer.heading, target.heading) > full_above
    return 1.0, min(distance, 4 * 48) * LENGTH, float(full)


@lru_cache(maxsize=64)
def _vessel_one_hot(names: tuple[str, ...], vessel: str) -> tuple[float, ...]:
    return tuple(1.0 if name == vessel else 0.0 for name in names)
