"""Plane geometry in yards: headings, the wind and current relation, paths against circles.

Headings are unit vectors (x east, y north). Compass names give where a wind or
current goes *to*: E is 0 degrees, N 90.
"""

from __future__ import annotations

import math
from enum import IntEnum

COMPASS_DEGREES = {"E": 0.0, "NE": 45.0, "N": 90.0, "NW": 135.0, "W": 180.0, "SW": 225.0, "S": 270.0, "SE": 315.0}


class Relation(IntEnum):
    """How a heading lies to the wind (or current)."""

    AGAINST = 0
    ACROSS = 1
    WITH = 2


# Relation: members as module constants for the rules' hot paths; Python 3.11 looks a member up on its
# Enum class through EnumType.__getattr__, several times slower than a global.
AGAINST, ACROSS, WITH = Relation.AGAINST, Relation.ACROSS, Relation.WITH


def unit(degrees: float) -> tuple[float, float]:
    radians = math.radians(degrees)
    return math.cos(radians), math.sin(radians)


def rotate(ux: float, uy: float, degrees: float) -> tuple[float, float]:
    """Rotate a heading counter-clockwise (to port) by ``degrees``; negative turns to starboard."""
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return ux * c - uy * s, ux * s + uy * c


def relation(ux: float, uy: float, wx: float, wy: float, cos_arc: float) -> Relation:
    """WITH when the heading is less than the arc from where the wind blows, AGAINST less than it from where it
    comes from, ACROSS otherwise (so a heading exactly 45 degrees off the wind is across it)."""
    dot = ux * wx + uy * wy
    if dot > cos_arc + 1e-9:
        return WITH
    if dot < -cos_arc - 1e-9:
        return AGAINST
    return ACROSS


def direction(ax: float, ay: float, bx: float, by: float) -> tuple[float, float, float]:
    """Unit vector from a to b and the distance; from a point to itself: east, 0."""
    dx, dy = bx - ax, by - ay
    d = math.hypot(dx, dy)
    if d == 0.0:
        return 1.0, 0.0, 0.0
    return dx / d, dy / d, d


def entry_along(px: float, py: float, ux: float, uy: float, cx: float, cy: float, r: float) -> float | None:
    """Distance along the ray p + t u (t >= 0) at which it first enters the circle (c, r); None if never.

    A ray that starts inside the circle enters at 0.
    """
    fx, fy = px - cx, py - cy
    c = fx * fx + fy * fy - r * r
    if c <= 0.0:
        return 0.0
    b = fx * ux + fy * uy
    if b >= 0.0:
        return None
    disc = b * b - c
    if disc < 0.0:
        return None
    return -b - math.sqrt(disc)


def in_cone(px: float, py: float, ux: float, uy: float, cx: float, cy: float, r: float,
            length: float, half_angle_cos: float) -> bool:
    """Whether a circle (c, r) reaches into a cone from p along u of ``length`` yards.

    The circle counts when its nearest point is within the length and its centre
    is within the cone's half-angle widened by the circle's own angular size.
    """
    dx, dy = cx - px, cy - py
    d = math.hypot(dx, dy)
    if d - r > length:
        return False
    if d <= r:
        return True
    cos_to = (dx * ux + dy * uy) / d
    widen = math.asin(min(1.0, r / d))
    return cos_to >= math.cos(math.acos(half_angle_cos) + widen) - 1e-9
