"""Plane geometry of `broadside`: hulls as oriented rectangles measured in inches.

Conventions, fixed for the whole ruleset:

- ``x`` grows east and ``y`` grows north; positions are in inches.
- Headings and bearings are compass degrees: 0 is north, 90 east, clockwise.
- A hull's own frame has ``along`` (+ toward the bow) and ``across`` (+ to starboard).
- A hull is a ``length`` x ``beam`` rectangle centred on its position: the bow is the
  forward short edge, the stern the aft one, the broadsides the long edges.

Every function here is pure and exact up to floating point (``EPS``); the rules
modules build collisions, arcs, rakes and boarding distance from them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from naval_env.core.slots import init_through_slots

EPS = 1e-9
Point = tuple[float, float]
Corners = tuple[Point, Point, Point, Point]


@lru_cache(maxsize=8192)
def heading_vector(heading: float) -> Point:
    """Unit vector pointing along a compass heading (cached: ships keep their headings for a while)."""
    radians = math.radians(heading)
    return math.sin(radians), math.cos(radians)


def round6(value: float) -> float:
    """``round(value, 6)``, the same float bit for bit, at about a third of its cost (events round every pose).

    ``round`` finds the decimal nearest to ``value`` through a decimal string. Below 2**36 millionths a
    product ``value * 1e6`` is within 4e-6 of the exact one, so when it lies clear of a half its nearest
    integer n is the exact product's too, and ``n / 1e6`` (two exact operands, one correctly rounded
    division) is the float nearest to n millionths, which is what ``round`` returns. Near a half, at 0
    (whose sign ``round`` keeps), and for huge or non-finite values, ``round`` itself answers.
    """
    scaled = value * 1e6
    if -6.8e10 < scaled < 6.8e10:
        nearest = round(scaled)
        if nearest and -0.4999 < scaled - nearest < 0.4999:
            return nearest / 1e6
    return round(value, 6)


def normalize_angle(angle: float) -> float:
    """The same angle in (-180, 180]."""
    angle = math.fmod(angle, 360.0)
    if angle <= -180.0:
        angle += 360.0
    elif angle > 180.0:
        angle -= 360.0
    return angle


def compass(angle: float) -> float:
    """The same angle in [0, 360)."""
    angle = math.fmod(angle, 360.0)
    return angle + 360.0 if angle < 0 else angle


def bearing(fx: float, fy: float, tx: float, ty: float) -> float:
    """Compass bearing from (fx, fy) to (tx, ty), in [0, 360)."""
    return compass(math.degrees(math.atan2(tx - fx, ty - fy)))


def distance(ax: float, ay: float, bx: float, by: float) -> float:
    return math.hypot(bx - ax, by - ay)


def incidence_angle(course: float, keel: float) -> float:
    """Angle of incidence, in [0, 90], between a course and a target's keel line (bow to stern).

    90 is a strike square on the broadside; 0 runs along the keel (bow to bow, or up the stern).
    """
    turned = abs(normalize_angle(course - keel))
    return min(turned, 180.0 - turned)


class Region(str, Enum):
    """Part of a hull a point lies on."""

    BOW = "bow"
    STERN = "stern"
    PORT = "port"
    STARBOARD = "starboard"

    @property
    def broadside(self) -> bool:
        return self in (Region.PORT, Region.STARBOARD)


class Battery(str, Enum):
    """Where a ship's cannons sit: the two broadsides, or a turret amidships."""

    PORT = "port"
    STARBOARD = "starboard"
    TURRET = "turret"


_PORT, _STARBOARD, _TURRET = tuple(Battery)     # Battery.X costs a class-attribute lookup per use


@init_through_slots
@dataclass(frozen=True, slots=True)
class Hull:
    """An oriented rectangle: centre (x, y), compass heading, length (bow to stern) and beam."""

    x: float
    y: float
    heading: float
    length: float
    beam: float

    @property
    def forward(self) -> Point:
        return heading_vector(self.heading)

    @property
    def radius(self) -> float:
        """Half the diagonal: no point of the hull is farther than this from its centre."""
        return math.hypot(self.length / 2, self.beam / 2)

    def to_local(self, px: float, py: float) -> Point:
        """(along, across) of a world point in this hull's frame."""
        ux, uy = heading_vector(self.heading)
        dx, dy = px - self.x, py - self.y
        return dx * ux + dy * uy, dx * uy - dy * ux

    def to_world(self, along: float, across: float) -> Point:
        ux, uy = heading_vector(self.heading)
        return self.x + along * ux + across * uy, self.y + along * uy - across * ux

    def corners(self) -> Corners:
        """Bow-starboard, bow-port, stern-port and stern-starboard corners (in order around the hull)."""
        ux, uy = heading_vector(self.heading)
        hl, hb = self.length / 2, self.beam / 2
        ax, ay = hl * ux, hl * uy          # half the keel
        sx, sy = hb * uy, -hb * ux         # half the beam, to starboard
        x, y = self.x, self.y
        return ((x + ax + sx, y + ay + sy), (x + ax - sx, y + ay - sy),
                (x - ax - sx, y - ay - sy), (x - ax + sx, y - ay + sy))

    @property
    def bow(self) -> Point:
        return self.to_world(self.length / 2, 0.0)

    @property
    def stern(self) -> Point:
        return self.to_world(-self.length / 2, 0.0)

    def moved(self, dx: float, dy: float) -> Hull:
        return Hull(self.x + dx, self.y + dy, self.heading, self.length, self.beam)

    def advanced(self, distance_: float, heading: float | None = None) -> Hull:
        """Moved ``distance_`` inches along ``heading`` (default: its own)."""
        ux, uy = heading_vector(self.heading if heading is None else heading)
        return self.moved(ux * distance_, uy * distance_)

    def turned(self, degrees: float, pivot: Point | None = None) -> Hull:
        """Rotated ``degrees`` clockwise (to starboard) about ``pivot`` (default: its centre)."""
        heading = compass(self.heading + degrees)
        if pivot is None:
            return Hull(self.x, self.y, heading, self.length, self.beam)
        radians = math.radians(degrees)
        c, s = math.cos(radians), math.sin(radians)
        rx, ry = self.x - pivot[0], self.y - pivot[1]
        return Hull(pivot[0] + rx * c + ry * s, pivot[1] - rx * s + ry * c, heading, self.length, self.beam)

    def axes(self) -> tuple[Point, Point]:
        """The two edge normals: forward and starboard unit vectors."""
        ux, uy = heading_vector(self.heading)
        return (ux, uy), (uy, -ux)

    def contains(self, px: float, py: float) -> bool:
        along, across = self.to_local(px, py)
        return abs(along) <= self.length / 2 + EPS and abs(across) <= self.beam / 2 + EPS

    def inside_board(self, width: float, height: float) -> bool:
        if self.clear_of_edges(width, height, 0.0):
            return True          # no corner is farther from the centre than the radius
        return all(-EPS <= cx <= width + EPS and -EPS <= cy <= height + EPS for cx, cy in self.corners())

    def clear_of_edges(self, width: float, height: float, margin: float) -> bool:
        """Whether the circle around the hull (its radius grown by ``margin``) lies on a width x height board."""
        reach = self.radius + margin
        return reach <= self.x <= width - reach and reach <= self.y <= height - reach

    def region(self, px: float, py: float, end_zone: float) -> Region:
        """Which part of the hull a point on (or near) its edge belongs to.

        The last ``end_zone`` inches of each end are the bow and the stern; the rest is a broadside.
        """
        along, across = self.to_local(px, py)
        if along >= self.length / 2 - end_zone - EPS:
            return Region.BOW
        if along <= -self.length / 2 + end_zone + EPS:
            return Region.STERN
        return Region.STARBOARD if across > 0 else Region.PORT


# ------------------------------------------------------------------ overlap and contact
def overlap(a: Hull, b: Hull, tolerance: float = 1e-7) -> bool:
    """True when the hulls share area (touching edges do not count)."""
    reach = a.radius + b.radius
    if abs(a.x - b.x) > reach or abs(a.y - b.y) > reach:
        return False
    return _corners_overlap(a.corners(), b.corners(), (*a.axes(), *b.axes()), tolerance)


def _corners_overlap(ca: Corners, cb: Corners, axes: tuple[Point, ...], tolerance: float) -> bool:
    """:func:`overlap` past its cheap rejection, given both hulls' corners and edge normals (separating
    axes: the answer does not depend on the order they are tried in)."""
    for axis in axes:
        a0, a1, b0, b1 = _extents(ca, cb, axis)
        if a1 <= b0 + tolerance or b1 <= a0 + tolerance:
            return False
    return True


def _extents(ca: Corners, cb: Corners, axis: Point) -> tuple[float, float, float, float]:
    """Both hulls' corners projected on one axis (unrolled: no list per projection): a's least and greatest
    value, then b's."""
    ax, ay = axis
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = ca
    v0, v1, v2, v3 = x0 * ax + y0 * ay, x1 * ax + y1 * ay, x2 * ax + y2 * ay, x3 * ax + y3 * ay
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = cb
    w0, w1, w2, w3 = x0 * ax + y0 * ay, x1 * ax + y1 * ay, x2 * ax + y2 * ay, x3 * ax + y3 * ay
    return min(v0, v1, v2, v3), max(v0, v1, v2, v3), min(w0, w1, w2, w3), max(w0, w1, w2, w3)


@init_through_slots
@dataclass(frozen=True, slots=True)
class Contact:
    """First touch of a moving hull: how far it travelled and where the hulls meet."""

    distance: float
    point: Point


@init_through_slots
@dataclass(frozen=True, slots=True)
class SettledHull:
    """A hull that stays put while many others are tested against it (a bisection, every obstacle of a
    move): its corners, edge normals and radius worked out once."""

    hull: Hull
    corners: Corners
    axes: tuple[Point, Point]
    radius: float

    @classmethod
    def of(cls, hull: Hull) -> SettledHull:
        return cls(hull, hull.corners(), hull.axes(), hull.radius)

    def overlapped_by(self, other: Hull, tolerance: float = 1e-7) -> bool:
        """``overlap(other, self.hull, tolerance)``."""
        hull = self.hull
        reach = other.radius + self.radius
        if abs(other.x - hull.x) > reach or abs(other.y - hull.y) > reach:
            return False
        return _corners_overlap(other.corners(), self.corners, (*other.axes(), *self.axes), tolerance)

    def swept_by(self, moving: Hull, heading: float, limit: float) -> Contact | None:
        """``sweep(moving, heading, limit, self.hull)``."""
        ux, uy = heading_vector(heading)
        other = self.hull
        reach = moving.radius + self.radius + limit
        if abs(moving.x - other.x) > reach or abs(moving.y - other.y) > reach:
            return None
        ca, cb = moving.corners(), self.corners
        t_enter, t_exit = -math.inf, math.inf
        normal: Point | None = None
        for axis in (*moving.axes(), *self.axes):
            a0, a1, b0, b1 = _extents(ca, cb, axis)
            speed = ux * axis[0] + uy * axis[1]
            if abs(speed) < 1e-12:
                if a1 <= b0 + EPS or b1 <= a0 + EPS:
                    return None
                continue
            if speed > 0:
                enter, leave, towards = (b0 - a1) / speed, (b1 - a0) / speed, axis
            else:
                enter, leave, towards = (b1 - a0) / speed, (b0 - a1) / speed, (-axis[0], -axis[1])
            if enter > t_enter:
                t_enter, normal = enter, towards
            t_exit = min(t_exit, leave)
        if normal is None or t_exit <= EPS or t_enter >= t_exit - EPS or t_enter > limit + EPS:
            return None
        travelled = min(max(t_enter, 0.0), limit)
        return Contact(travelled, _contact_point(moving.advanced(travelled, heading), other, normal))


def sweep(moving: Hull, heading: float, limit: float, other: Hull) -> Contact | None:
    """First distance in [0, limit] at which ``moving``, sliding along ``heading``, touches ``other``.

    Exact for two rectangles (separating axes of the swept motion). Hulls already
    touching count only when the motion closes on the other hull; sliding along an
    edge or moving away is no contact.
    """
    return SettledHull.of(other).swept_by(moving, heading, limit)


def _contact_point(a: Hull, b: Hull, normal: Point) -> Point:
    """Where touching hulls meet; ``normal`` points from ``a`` toward ``b``.

    A corner against an edge meets at the corner; two parallel edges meet at the
    middle of their shared stretch.
    """
    nx, ny = normal
    tolerance = 1e-7
    a_values = [(px * nx + py * ny, (px, py)) for px, py in a.corners()]
    b_values = [(px * nx + py * ny, (px, py)) for px, py in b.corners()]
    a_top = max(v for v, _ in a_values)
    b_low = min(v for v, _ in b_values)
    a_support = [p for v, p in a_values if v >= a_top - tolerance]
    b_support = [p for v, p in b_values if v <= b_low + tolerance]
    if len(a_support) == 1:
        return a_support[0]
    if len(b_support) == 1:
        return b_support[0]
    tx, ty = -ny, nx
    a_span = sorted(px * tx + py * ty for px, py in a_support)
    b_span = sorted(px * tx + py * ty for px, py in b_support)
    middle = (max(a_span[0], b_span[0]) + min(a_span[-1], b_span[-1])) / 2
    return a_top * nx + middle * tx, a_top * ny + middle * ty


def edge_exit(moving: Hull, heading: float, width: float, height: float) -> float:
    """Distance along ``heading`` at which the first corner reaches the edge of a width x height board."""
    ux, uy = heading_vector(heading)
    best = math.inf
    for cx, cy in moving.corners():
        if ux > 1e-12:
            best = min(best, (width - cx) / ux)
        elif ux < -1e-12:
            best = min(best, -cx / ux)
        if uy > 1e-12:
            best = min(best, (height - cy) / uy)
        elif uy < -1e-12:
            best = min(best, -cy / uy)
    return max(best, 0.0)


def _nearest_corner(hull: Hull, points: Corners) -> float:
    """Distance from the nearest of ``points`` to a hull (0 inside), in the hull's frame."""
    ux, uy = heading_vector(hull.heading)
    x, y = hull.x, hull.y
    half_length, half_beam = hull.length / 2, hull.beam / 2
    best = math.inf
    for px, py in points:
        dx, dy = px - x, py - y
        along = abs(dx * ux + dy * uy) - half_length
        across = abs(dx * uy - dy * ux) - half_beam
        if along <= 0 and across <= 0:
            return 0.0          # inside the hull: nothing is nearer
        gap = math.hypot(along if along > 0 else 0.0, across if across > 0 else 0.0)
        best = min(best, gap)
    return best


def hull_distance(a: Hull, b: Hull) -> float:
    """Shortest distance between two hulls' edges (0 when they touch or overlap).

    Between two separate convex polygons the shortest distance is always reached at a
    corner of one of them, so eight corner-to-rectangle distances are enough.
    """
    ca, cb = a.corners(), b.corners()
    reach = a.radius + b.radius
    if abs(a.x - b.x) <= reach and abs(a.y - b.y) <= reach \
            and _corners_overlap(ca, cb, (*a.axes(), *b.axes()), 0.0):
        return 0.0      # overlap(a, b, tolerance=0.0), reusing the corners
    return min(_nearest_corner(b, ca), _nearest_corner(a, cb))


def within(a: Hull, b: Hull, inches: float) -> bool:
    """Whether the hulls come within ``inches`` of each other (cheap rejection first)."""
    reach = a.radius + b.radius + inches
    if abs(a.x - b.x) > reach or abs(a.y - b.y) > reach:
        return False
    return hull_distance(a, b) <= inches + EPS


def ray_to_hull(px: float, py: float, heading: float, hull: Hull) -> tuple[float, float] | None:
    """Where the line ahead of (px, py) along ``heading`` first meets a hull: (distance, along-keel
    coordinate of that point in the hull's frame), or None when it misses (slab clipping, exact)."""
    ux, uy = heading_vector(heading)
    along, across = hull.to_local(px, py)
    hx, hy = heading_vector(hull.heading)
    d_along, d_across = ux * hx + uy * hy, ux * hy - uy * hx     # the direction in the hull's frame
    return clip_ray(along, across, d_along, d_across, hull.length / 2, hull.beam / 2)


def clip_ray(along: float, across: float, d_along: float, d_across: float, half_length: float,
             half_beam: float) -> tuple[float, float] | None:
    """:func:`ray_to_hull` with the start and the direction already in the hull's frame."""
    enter, leave = 0.0, math.inf
    for start, step, half in ((along, d_along, half_length), (across, d_across, half_beam)):
        if abs(step) < 1e-12:
            if abs(start) > half:
                return None
            continue
        low, high = (-half - start) / step, (half - start) / step
        enter, leave = max(enter, min(low, high)), min(leave, max(low, high))
    if enter > leave:
        return None
    return enter, along + enter * d_along


# ------------------------------------------------------------------ arcs and lines of fire
def battery_position(hull: Hull, battery: Battery) -> Point:
    """Where a battery's range is measured from: the middle of that broadside, or the turret amidships."""
    if battery is _PORT:
        return hull.to_world(0.0, -hull.beam / 2)
    if battery is _STARBOARD:
        return hull.to_world(0.0, hull.beam / 2)
    return hull.x, hull.y


def relative_bearing(hull: Hull, px: float, py: float) -> float:
    """Bearing of a point off the bow, in (-180, 180]: positive to starboard."""
    return normalize_angle(bearing(hull.x, hull.y, px, py) - hull.heading)


def in_broadside_arc(hull: Hull, px: float, py: float, battery: Battery) -> bool:
    """The area between the perpendiculars from bow and stern, on that battery's side."""
    along, across = hull.to_local(px, py)
    if abs(along) > hull.length / 2 + EPS:
        return False
    return across > EPS if battery is _STARBOARD else across < -EPS


def in_turret_arc(hull: Hull, px: float, py: float, dead_zone: float) -> bool:
    """A turret swings everywhere except the ``dead_zone`` degrees centred over the bow."""
    return abs(relative_bearing(hull, px, py)) >= dead_zone / 2 - EPS


def in_arc(hull: Hull, px: float, py: float, battery: Battery, dead_zone: float) -> bool:
    if battery is _TURRET:
        return in_turret_arc(hull, px, py, dead_zone)
    return in_broadside_arc(hull, px, py, battery)


def rakes(target: Hull, fx: float, fy: float) -> bool:
    """Whether fire from (fx, fy) at the target's centre enters through its bow or stern edge.

    That is the shot "pointed directly at the bow or stern": it travels the length
    of the ship. In the target's frame the line to the centre crosses an end edge
    exactly when ``|along| * beam > |across| * length`` (outside the diagonals' cones
    of the broadsides).
    """
    along, across = target.to_local(fx, fy)
    return abs(along) * target.beam > abs(across) * target.length + EPS
