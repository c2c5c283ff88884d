"""Every legal maneuver's path at once, for planners (scripted captains); the engine never uses it.

A plan is a speed and one turn per gap between legs. :func:`predict` gives, for every
plan the mask allows, the centre and heading after each leg if nothing is in the way,
and :func:`ram_hits` tells which plans would run the bow into a hull on a leg where a
ram is allowed, and at what angle of incidence. Other ships are taken where they are
now, which is exactly where they will be when this ship moves (ships move one at a time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from naval_env.rulesets.broadside.geometry import Hull
from naval_env.rulesets.broadside.movement import turn_speed
from naval_env.rulesets.broadside.state import Ship, Speed

if TYPE_CHECKING:
    from naval_env.rulesets.broadside.engine import BroadsideGame


@dataclass(frozen=True)
class Paths:
    """Parallel arrays over plans: ``speed`` and ``turns`` (action values), then for each of the
    ``legs + 1`` waypoints the centre (``x``, ``y``), and each leg's ``heading`` (degrees)."""

    speed: np.ndarray
    turns: np.ndarray
    x: np.ndarray
    y: np.ndarray
    heading: np.ndarray
    length: float

    @property
    def end_heading(self) -> np.ndarray:
        return self.heading[:, -1]


def predict(game: BroadsideGame, ship: Ship, mask: np.ndarray) -> Paths:
    """Paths of every plan the MANEUVER mask allows."""
    A, rules, state = game.actions, game.rules, game.state
    vessel = game.vessel(ship)
    parts = game.action_spec.split(mask)
    speed, turns, degrees = _grid(tuple(np.flatnonzero(parts[A.speed])),
                                  tuple(tuple(np.flatnonzero(parts[c])) for c in A.turns), A.turn_choices)
    legs = rules.legs_per_turn
    base = np.array([turn_speed(vessel, Speed(s)) for s in range(len(Speed))])[speed] / legs
    limits, factors = _wind_table(tuple(map(tuple, rules.wind_factors)))
    x = np.empty((speed.size, legs + 1))
    y = np.empty((speed.size, legs + 1))
    heading = np.empty((speed.size, legs))
    hull = ship.shape
    radius = hull.radius
    others = [s.shape for s in state.ships.values() if s.status.fighting and s.id != ship.id]
    others += [b.shape for b in state.icebergs]
    x[:, 0], y[:, 0] = hull.x, hull.y
    reach = float(base.max()) * legs + radius            # no turn can touch a hull farther than this
    near = [o for o in others if math.hypot(o.x - hull.x, o.y - hull.y) <= reach + o.radius]
    current = np.full(speed.size, hull.heading)
    for leg in range(legs):
        if leg > 0:
            turned = np.mod(current + degrees[:, leg - 1], 360.0)
            radians = np.radians(turned)
            ux, uy = np.sin(radians), np.cos(radians)
            fits = _inside(ux, uy, x[:, leg], y[:, leg], hull.length, hull.beam, state.width, state.height)
            for other in near:
                fits &= ~_overlaps(ux, uy, x[:, leg], y[:, leg], hull.length, hull.beam, other, radius)
            current = np.where(fits, turned, current)     # the engine refuses a turn with no room
        heading[:, leg] = current
        step = base
        if vessel.sails:
            off = np.abs((current - state.wind + 180.0) % 360.0 - 180.0)
            step = base * factors[np.minimum(np.searchsorted(limits, off - 1e-9), len(factors) - 1)]
        radians = np.radians(current)
        x[:, leg + 1] = x[:, leg] + step * np.sin(radians)
        y[:, leg + 1] = y[:, leg] + step * np.cos(radians)
    return Paths(speed, turns, x, y, heading, hull.length)


@lru_cache(maxsize=256)
def _grid(speeds: tuple[int, ...], turn_values: tuple[tuple[int, ...], ...], choices: tuple[float, ...]
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every combination of the allowed speed and turn values (speed varying slowest), and the turns in degrees."""
    grids = np.meshgrid(np.array(speeds, dtype=np.int64), *[np.array(v, dtype=np.int64) for v in turn_values],
                        indexing="ij")
    speed = grids[0].reshape(-1)
    turns = np.stack([g.reshape(-1) for g in grids[1:]], axis=1) if turn_values else np.zeros((speed.size, 0),
                                                                                               dtype=np.int64)
    degrees = np.asarray(choices)[turns]
    for array in (speed, turns, degrees):
        array.setflags(write=False)
    return speed, turns, degrees


@lru_cache(maxsize=16)
def _wind_table(bands: tuple[tuple[float, float], ...]) -> tuple[np.ndarray, np.ndarray]:
    return np.array([limit for limit, _ in bands]), np.array([factor for _, factor in bands])


def _inside(ux: np.ndarray, uy: np.ndarray, x: np.ndarray, y: np.ndarray, length: float, beam: float,
            width: float, height: float) -> np.ndarray:
    """Whether a hull at each (x, y), its keel along (ux, uy), lies on the table."""
    reach_x = np.abs(ux) * length / 2 + np.abs(uy) * beam / 2
    reach_y = np.abs(uy) * length / 2 + np.abs(ux) * beam / 2
    return (x - reach_x >= 0) & (x + reach_x <= width) & (y - reach_y >= 0) & (y + reach_y <= height)


def _overlaps(ux: np.ndarray, uy: np.ndarray, x: np.ndarray, y: np.ndarray, length: float, beam: float,
              other: Hull, radius: float) -> np.ndarray:
    """Whether a hull at each (x, y), its keel along (ux, uy), overlaps ``other`` (separating axes, vectorised).

    Only hulls whose bounding circles (``radius`` and the other's) meet are tested; farther ones cannot
    overlap, and a micro-inch of slack keeps that exact for the tolerance below."""
    dx, dy = other.x - x, other.y - y
    close = np.hypot(dx, dy) <= radius + other.radius + 1e-6
    if not close.any():
        return close
    if not close.all():
        overlap = np.zeros(x.shape, dtype=bool)
        overlap[close] = _separating_axes_overlap(ux[close], uy[close], dx[close], dy[close], length, beam, other)
        return overlap
    return _separating_axes_overlap(ux, uy, dx, dy, length, beam, other)


def _separating_axes_overlap(ux: np.ndarray, uy: np.ndarray, dx: np.ndarray, dy: np.ndarray, length: float,
                             beam: float, other: Hull) -> np.ndarray:
    """The other hull's own axes are scalars: the same products as over arrays of them, without building those."""
    o_rad = np.radians(other.heading)
    ox, oy = np.sin(o_rad), np.cos(o_rad)
    separated = np.zeros(dx.shape, dtype=bool)
    # Each axis: the two hulls' half-extents projected on it against the centres' distance along it.
    for ax, ay in ((ux, uy), (uy, -ux), (ox, oy), (oy, -ox)):
        mine = np.abs(ax * ux + ay * uy) * length / 2 + np.abs(ax * uy - ay * ux) * beam / 2
        theirs = np.abs(ax * ox + ay * oy) * other.length / 2 + np.abs(ax * oy - ay * ox) * other.beam / 2
        separated |= np.abs(dx * ax + dy * ay) >= mine + theirs - 1e-7
    return ~separated


@dataclass(frozen=True)
class RamHits:
    """Over plans: ``hit`` (the bow strikes on a leg where ramming is allowed, not earlier),
    ``full`` (stern, or incidence above the full-ram angle), ``incidence`` in degrees, and
    ``touch`` (the bow's track meets the hull at all, ram or plain collision)."""

    hit: np.ndarray
    full: np.ndarray
    incidence: np.ndarray
    touch: np.ndarray


def _segment_enters(target: Hull, x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each segment: whether it enters the target rectangle, when (0..1 along it) and the
    along-keel coordinate where it does (Liang-Barsky clipping in the target's frame)."""
    radians = np.radians(target.heading)
    ux, uy = np.sin(radians), np.cos(radians)
    ax0 = (x0 - target.x) * ux + (y0 - target.y) * uy
    sx0 = (x0 - target.x) * uy - (y0 - target.y) * ux
    ax1 = (x1 - target.x) * ux + (y1 - target.y) * uy
    sx1 = (x1 - target.x) * uy - (y1 - target.y) * ux
    enter = np.zeros_like(ax0)
    leave = np.ones_like(ax0)
    for p0, p1, half in ((ax0, ax1, target.length / 2), (sx0, sx1, target.beam / 2)):
        d = p1 - p0
        d = np.where(np.abs(d) < 1e-12, 1e-12, d)     # a still point: inside the slab or never
        t_low, t_high = (-half - p0) / d, (half - p0) / d
        enter = np.maximum(enter, np.minimum(t_low, t_high))
        leave = np.minimum(leave, np.maximum(t_low, t_high))
    hit = enter < leave
    return hit, np.where(hit, enter, np.inf), ax0 + np.clip(enter, 0, 1) * (ax1 - ax0)


def ram_hits(game: BroadsideGame, ship: Ship, paths: Paths, target: Ship) -> RamHits:
    """Which plans ram ``target`` (by the tracks of the bow's middle and corners; other hulls ignored)."""
    rules = game.rules
    legs = rules.legs_per_turn
    size = paths.speed.size
    edge = ship.shape.beam / 2
    # Tracks of three bow points over every leg at once: arrays of shape (legs, 3, plans).
    radians = np.radians(paths.heading.T)[:, None, :]
    ux, uy = np.sin(radians), np.cos(radians)
    offsets = np.array([0.0, -edge, edge])[None, :, None]
    half = paths.length / 2
    bow_x = half * ux + offsets * uy
    bow_y = half * uy - offsets * ux
    x0, y0 = paths.x.T[:-1, None, :] + bow_x, paths.y.T[:-1, None, :] + bow_y
    x1, y1 = paths.x.T[1:, None, :] + bow_x, paths.y.T[1:, None, :] + bow_y
    enters, when, where = _segment_enters(target.shape, x0, y0, x1, y1)
    first_point = np.argmin(when, axis=1)                                  # (legs, plans)
    along = np.take_along_axis(where, first_point[:, None, :], axis=1)[:, 0, :]
    leg_hit = enters.any(axis=1)                                           # (legs, plans)
    first_leg = np.where(leg_hit.any(axis=0), np.argmax(leg_hit, axis=0), legs)
    touch = first_leg < legs
    straight_start = paths.turns[:, 0] == 0 if paths.turns.shape[1] else np.ones(size, dtype=bool)
    hit = touch & (first_leg > 0) & straight_start
    leg = np.minimum(first_leg, legs - 1)
    index = np.arange(size)
    turned = np.abs((paths.heading[index, leg] - target.shape.heading + 180.0) % 360.0 - 180.0)
    angle = np.minimum(turned, 180.0 - turned)
    stern = along[leg, index] <= -target.shape.length / 2 + rules.end_zone
    full = hit & (stern | (angle > rules.full_ram_above))
    return RamHits(hit, full, np.where(hit, angle, 0.0), touch)
