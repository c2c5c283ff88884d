"""Movement: a turn is ``legs_per_turn`` equal legs at one speed, with a turn in place between legs.

The document never gives its movement rules (see Assumptions): speeds per vessel
(Cruising, Battle, Ramming), sails slowed by the wind's angle, turns only between
legs. A move runs leg by leg; the first hull met stops the ship and hands over to
``collision.resolve``, and a ship whose hull crosses the table edge has fled.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from naval_env.core.events import Event
from naval_env.rulesets.broadside import collision
from naval_env.rulesets.broadside.board import first_contact, fits, obstacles, settle
from naval_env.rulesets.broadside.config import HouseRules, Vessel
from naval_env.rulesets.broadside.events import Moved, TurnBlocked
from naval_env.rulesets.broadside.geometry import (
    EPS,
    Hull,
    SettledHull,
    compass,
    edge_exit,
    heading_vector,
    normalize_angle,
    round6,
)
from naval_env.rulesets.broadside.hull import leave_battle
from naval_env.rulesets.broadside.state import Ship, Speed, Status

if TYPE_CHECKING:
    from naval_env.rulesets.broadside.engine import BroadsideGame

EDGE_SLACK = 1e-6   # inches: far above the rounding of corner positions, so the quick edge test never lies
REACH_SLACK = 1e-6  # inches: the same for leaving out obstacles too far to meet during a move
SPEED_NAMES = tuple(speed.name.lower() for speed in Speed)   # Enum.name is a property: slow in the move loop
_HOLD, _CRUISING, _BATTLE, _RAMMING = tuple(Speed)           # Speed.X costs a class-attribute lookup per use


def wind_factor(bands: list[tuple[float, float]], heading: float, wind: float) -> float:
    """Share of its speed a sailing ship makes, by how far its heading is off downwind (0..180 degrees)."""
    off = abs(normalize_angle(heading - wind))
    for limit, factor in bands:
        if off <= limit + EPS:
            return factor
    return bands[-1][1]


def turn_speed(vessel: Vessel, speed: Speed) -> float:
    """Inches per turn at ``speed`` before wind (0 when the vessel has no such speed)."""
    if speed is _HOLD:
        return 0.0
    if speed is _CRUISING:
        return vessel.speeds.cruising
    if speed is _BATTLE:
        return vessel.speeds.battle
    return vessel.speeds.ramming or 0.0


def leg_length(rules: HouseRules, vessel: Vessel, speed: Speed, heading: float, wind: float) -> float:
    """One leg's length: the turn's speed split over the legs, sails scaled by the wind on that leg's heading."""
    return _leg(rules, vessel, turn_speed(vessel, speed), heading, wind)


def _leg(rules: HouseRules, vessel: Vessel, inches: float, heading: float, wind: float) -> float:
    """:func:`leg_length` given the turn's speed in inches."""
    if vessel.sails:
        inches *= wind_factor(rules.wind_factors, heading, wind)
    return inches / rules.legs_per_turn


def longest_move(rules: HouseRules, vessel: Vessel, inches: float) -> float:
    """An upper bound on how far a move at ``inches`` per turn can take the ship's centre (every leg at the
    best wind)."""
    if not vessel.sails:
        return inches
    return inches * max(1.0, *(factor for _, factor in rules.wind_factors))


def within_reach(hull: Hull, others: list[tuple[str, Hull]], travel: float) -> list[tuple[str, Hull]]:
    """The obstacles ``hull`` could touch while its centre goes at most ``travel`` inches, turning in place on
    the way (in board order): the others lie beyond both hulls' radii plus ``travel``."""
    x, y, radius = hull.x, hull.y, hull.radius + travel + REACH_SLACK
    return [(other_id, other) for other_id, other in others
            if math.hypot(other.x - x, other.y - y) <= radius + other.radius]


def speed_allowed(rules: HouseRules, vessel: Vessel, ship: Ship, speed: Speed) -> bool:
    """Swept oars cost Ramming Speed after the first sweep and Battle Speed after the second."""
    if speed is _RAMMING:
        return vessel.speeds.ramming is not None and ship.oar_sweeps < rules.sweeps_end_ramming_speed \
            and ship.oar_sweeps < rules.sweeps_end_battle_speed
    if speed is _BATTLE:
        return ship.oar_sweeps < rules.sweeps_end_battle_speed
    return True


# ------------------------------------------------------------------ a ship's own move
def move(game: BroadsideGame, ship: Ship, speed: Speed, turns: tuple[float, ...],
         events: list[Event]) -> tuple[str, str] | None:
    """Run the move; returns (ship, struck) when a collision leaves a boarding to offer."""
    state, rules = game.state, game.rules
    vessel = game.vessel(ship)
    inches = turn_speed(vessel, speed)
    start = ship.shape
    travel = longest_move(rules, vessel, inches)
    # Nothing else moves during the move, short of a collision; only hulls within reach can be met.
    others = settle(within_reach(start, obstacles(state, ship.id), travel))
    if not others and start.clear_of_edges(state.width, state.height, travel + EDGE_SLACK):
        waypoints, travelled = _open_water(ship, rules, vessel, inches, turns, state.wind)
        events.append(Moved(ship.id, SPEED_NAMES[speed], waypoints, round6(travelled)))
        return None
    return _move_among(game, ship, speed, inches, turns, others, travel, events)


def _open_water(ship: Ship, rules: HouseRules, vessel: Vessel, inches: float, turns: tuple[float, ...],
                wind: float) -> tuple[tuple[tuple[float, float, float], ...], float]:
    """:func:`_move_among` when no hull and no table edge is within reach of the whole move: every turn
    fits and every leg runs its full length. Returns the waypoints and the distance travelled."""
    hull = ship.shape
    # Hull.turned and Hull.advanced written out on plain floats: one Hull at the end instead of one per step.
    x, y, heading = hull.x, hull.y, hull.heading
    waypoints = [_pose(hull)]
    travelled = 0.0
    for leg in range(rules.legs_per_turn):
        if leg > 0 and turns[leg - 1]:
            heading = compass(heading + turns[leg - 1])
        remaining = _leg(rules, vessel, inches, heading, wind)
        if remaining > EPS:
            ux, uy = heading_vector(heading)
            x, y = x + ux * remaining, y + uy * remaining
            travelled += remaining
        waypoints.append((round6(x), round6(y), round6(heading)))
    ship.shape = Hull(x, y, heading, hull.length, hull.beam)
    return tuple(waypoints), travelled


def _move_among(game: BroadsideGame, ship: Ship, speed: Speed, inches: float, turns: tuple[float, ...],
                others: list[tuple[str, SettledHull]], travel: float, events: list[Event]) -> tuple[str, str] | None:
    """The move leg by leg, near ``others`` (the obstacles within reach) or the table edge."""
    state, rules = game.state, game.rules
    vessel = game.vessel(ship)
    speed_name = SPEED_NAMES[speed]
    start = ship.shape
    waypoints = [_pose(start)]
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
        remaining = _leg(rules, vessel, inches, ship.shape.heading, state.wind)
        if slowdown:
            cut = min(slowdown, remaining)
            remaining, slowdown = remaining - cut, slowdown - cut
        while remaining > EPS:
            hit = first_contact(ship.shape, others, remaining) if others else None
            reach = hit[1].distance if hit is not None else remaining
            exit_at = _edge_before(ship.shape, reach, state.width, state.height)
            if exit_at is not None:
                ship.shape = ship.shape.advanced(exit_at)
                travelled += exit_at
                waypoints.append(_pose(ship.shape))
                events.append(Moved(ship.id, speed_name, tuple(waypoints), round6(travelled)))
                leave_battle(state, ship, Status.FLED, None, events)
                return None
            ship.shape = ship.shape.advanced(reach)
            travelled += reach
            remaining -= reach
            if hit is None:
                break
            waypoints.append(_pose(ship.shape))
            events.append(Moved(ship.id, speed_name, tuple(waypoints), round6(travelled)))
            ram_ready = leg > 0 and not turned_first_gap and not ship.rammed
            outcome = collision.resolve(game, ship, hit[0], hit[1], leg, ram_ready, events)
            if not outcome.continues:
                return outcome.boarding
            # A full ram sank its target: the rammer goes on, slowed.
            others = settle(within_reach(start, obstacles(state, ship.id), travel))
            waypoints, travelled = [_pose(ship.shape)], 0.0
            slowdown = rules.ram_sink_slowdown
            cut = min(slowdown, remaining)
            remaining, slowdown = remaining - cut, slowdown - cut
        waypoints.append(_pose(ship.shape))
    events.append(Moved(ship.id, speed_name, tuple(waypoints), round6(travelled)))
    return None


def _edge_before(hull: Hull, reach: float, width: float, height: float) -> float | None:
    """How far the hull goes along its heading before a corner crosses the table edge, when that comes
    before ``reach`` inches; else None (at once when the hull is far from every edge)."""
    if hull.clear_of_edges(width, height, reach + EDGE_SLACK):
        return None
    exit_at = edge_exit(hull, hull.heading, width, height)
    return exit_at if exit_at < reach - EPS else None


def _pose(hull: Hull) -> tuple[float, float, float]:
    return round6(hull.x), round6(hull.y), round6(hull.heading)
