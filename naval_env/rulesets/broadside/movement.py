"""Movement: a turn is ``legs_per_turn`` equal legs at one speed, with a turn in place between legs.

The document never gives its movement rules (see Assumptions): speeds per vessel
(Cruising, Battle, Ramming), sails slowed by the wind's angle, turns only between
legs. A move runs leg by leg; the first hull met stops the ship and hands over to
``collision.resolve``, and a ship whose hull crosses the table edge has fled.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from naval_env.core.events import Event
from naval_env.rulesets.broadside import collision
from naval_env.rulesets.broadside.board import first_contact, fits, obstacles
from naval_env.rulesets.broadside.config import HouseRules, Vessel
from naval_env.rulesets.broadside.events import Moved, TurnBlocked
from naval_env.rulesets.broadside.geometry import EPS, Hull, edge_exit, normalize_angle
from naval_env.rulesets.broadside.hull import leave_battle
from naval_env.rulesets.broadside.state import Ship, Speed, Status

if TYPE_CHECKING:
    from naval_env.rulesets.broadside.engine import BroadsideGame

EDGE_SLACK = 1e-6   # inches: far above the rounding of corner positions, so the quick edge test never lies


def wind_factor(bands: list[tuple[float, float]], heading: float, wind: float) -> float:
    """Share of its speed a sailing ship makes, by how far its heading is off downwind (0..180 degrees)."""
    off = abs(normalize_angle(heading - wind))
    for limit, factor in bands:
        if off <= limit + EPS:
            return factor
    return bands[-1][1]


def turn_speed(vessel: Vessel, speed: Speed) -> float:
    """Inches per turn at ``speed`` before wind (0 when the vessel has no such speed)."""
    if speed is Speed.HOLD:
        return 0.0
    if speed is Speed.CRUISING:
        return vessel.speeds.cruising
    if speed is Speed.BATTLE:
        return vessel.speeds.battle
    return vessel.speeds.ramming or 0.0


def leg_length(rules: HouseRules, vessel: Vessel, speed: Speed, heading: float, wind: float) -> float:
    """One leg's length: the turn's speed split over the legs, sails scaled by the wind on that leg's heading."""
    inches = turn_speed(vessel, speed)
    if vessel.sails:
        inches *= wind_factor(rules.wind_factors, heading, wind)
    return inches / rules.legs_per_turn


def speed_allowed(rules: HouseRules, vessel: Vessel, ship: Ship, speed: Speed) -> bool:
    """Swept oars cost Ramming Speed after the first sweep and Battle Speed after the second."""
    if speed is Speed.RAMMING:
        return vessel.speeds.ramming is not None and ship.oar_sweeps < rules.sweeps_end_ramming_speed \
            and ship.oar_sweeps < rules.sweeps_end_battle_speed
    if speed is Speed.BATTLE:
        return ship.oar_sweeps < rules.sweeps_end_battle_speed
    return True


# ------------------------------------------------------------------ a ship's own move
def move(game: BroadsideGame, ship: Ship, speed: Speed, turns: tuple[float, ...],
         events: list[Event]) -> tuple[str, str] | None:
    """Run the move; returns (ship, struck) when a collision leaves a boarding to offer."""
    state, rules = game.state, game.rules
    vessel = game.vessel(ship)
    waypoints = [_pose(ship.shape)]
    others = obstacles(state, ship.id)     # nothing else moves during the move, short of a collision
    travelled = 0.0
    slowdown = 0.0
    turned_first_gap = False
    for leg in range(rules.legs_per_turn):
        if leg > 0 and turns[leg - 1]:
            turned = ship.shape.turned(turns[leg - 1])
            if fits(state, turned, others):
                ship.shape = turned
                turned_first_gap = turned_first_gap or leg == 1
            else:
                events.append(TurnBlocked(ship.id, leg, turns[leg - 1]))
        remaining = leg_length(rules, vessel, speed, ship.shape.heading, state.wind)
        cut = min(slowdown, remaining)
        remaining, slowdown = remaining - cut, slowdown - cut
        while remaining > EPS:
            hit = first_contact(ship.shape, others, remaining)
            reach = hit[1].distance if hit is not None else remaining
            exit_at = _edge_before(ship.shape, reach, state.width, state.height)
            if exit_at is not None:
                ship.shape = ship.shape.advanced(exit_at)
                travelled += exit_at
                waypoints.append(_pose(ship.shape))
                events.append(Moved(ship.id, speed.name.lower(), tuple(waypoints), round(travelled, 6)))
                leave_battle(state, ship, Status.FLED, None, events)
                return None
            ship.shape = ship.shape.advanced(reach)
            travelled += reach
            remaining -= reach
            if hit is None:
                break
            waypoints.append(_pose(ship.shape))
            events.append(Moved(ship.id, speed.name.lower(), tuple(waypoints), round(travelled, 6)))
            ram_ready = leg > 0 and not turned_first_gap and not ship.rammed
            outcome = collision.resolve(game, ship, hit[0], hit[1], leg, ram_ready, events)
            if not outcome.continues:
                return outcome.boarding
            # A full ram sank its target: the rammer goes on, slowed.
            others = obstacles(state, ship.id)
            waypoints, travelled = [_pose(ship.shape)], 0.0
            slowdown = rules.ram_sink_slowdown
            cut = min(slowdown, remaining)
            remaining, slowdown = remaining - cut, slowdown - cut
        waypoints.append(_pose(ship.shape))
    events.append(Moved(ship.id, speed.name.lower(), tuple(waypoints), round(travelled, 6)))
    return None


def _edge_before(hull: Hull, reach: float, width: float, height: float) -> float | None:
    """How far the hull goes along its heading before a corner crosses the table edge, when that comes
    before ``reach`` inches; else None (at once when the hull is far from every edge)."""
    if hull.clear_of_edges(width, height, reach + EDGE_SLACK):
        return None
    exit_at = edge_exit(hull, hull.heading, width, height)
    return exit_at if exit_at < reach - EPS else None


def _pose(hull: Hull) -> tuple[float, float, float]:
    return round(hull.x, 6), round(hull.y, 6), round(hull.heading, 6)
