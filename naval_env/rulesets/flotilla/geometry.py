"""Footprints, distances and firing arcs on the square map (a ship is a line of squares, bow first).

A ship of size ``s`` with its bow on (x, y) facing ``f`` occupies the bow square
and the ``s - 1`` squares behind it. Every function here is plain integer math
on tuples, cheap enough to call for every pair of ships at every decision.
"""

from __future__ import annotations

from enum import IntEnum
from functools import lru_cache

from naval_env.core.grid import STEP

Square = tuple[int, int]


class Arc(IntEnum):
    """Where a target lies from a ship: off the bow, abeam (either side) or off the stern."""

    AHEAD = 0
    SIDE = 1
    ASTERN = 2


AHEAD, SIDE, ASTERN = Arc.AHEAD, Arc.SIDE, Arc.ASTERN  # plain names: an enum's member lookup is slow


@lru_cache(maxsize=1 << 14)  # a handful of sizes on a small map: every footprint is asked for again and again
def footprint(x: int, y: int, facing: int, size: int) -> tuple[Square, ...]:
    """The squares of a ship, bow first."""
    dx, dy = STEP[facing]
    return tuple((x - i * dx, y - i * dy) for i in range(size))


def pivot(x: int, y: int, facing: int, size: int, new_facing: int) -> Square:
    """Bow square after turning to ``new_facing`` on the stern square (the bow swings round)."""
    dx, dy = STEP[facing]
    nx, ny = STEP[new_facing]
    back = size - 1
    return x - back * dx + back * nx, y - back * dy + back * ny


def on_map(squares: tuple[Square, ...], width: int, height: int) -> bool:
    return all(0 <= x < width and 0 <= y < height for x, y in squares)


def gap(a: tuple[Square, ...], b: tuple[Square, ...]) -> int:
    """Chebyshev distance between the nearest squares of two footprints (1: adjacent)."""
    best = 1 << 30
    for ax, ay in a:
        for bx, by in b:
            d = ax - bx if ax > bx else bx - ax
            e = ay - by if ay > by else by - ay
            d = d if d > e else e  # noqa: FURB136 - hot path: a comparison is cheaper than a call
            best = best if best < d else d  # noqa: FURB136 - hot path: a comparison is cheaper than a call
    return best


def facing_pair(a: tuple[Square, ...], b: tuple[Square, ...]) -> tuple[int, Square, Square]:
    """(gap, the square of ``b`` nearest to ``a``, the square of ``a`` nearest to ``b``) in one pass;
    ties go to the bow-most square."""
    big = 1 << 30
    best_db, best_b = big, b[0]
    row = [big] * len(a)
    for bx, by in b:
        db = big
        i = 0
        for ax, ay in a:
            d = ax - bx if ax > bx else bx - ax
            e = ay - by if ay > by else by - ay
            d = d if d > e else e  # noqa: FURB136 - hot path: a comparison is cheaper than a call
            db = db if db < d else d  # noqa: FURB136 - hot path: a comparison is cheaper than a call
            if d < row[i]:  # noqa: PLR1730 - hot path
                row[i] = d
            i += 1  # noqa: SIM113 - a counter is cheaper than enumerate() here
        if db < best_db:
            best_db, best_b = db, (bx, by)
    return best_db, best_b, a[row.index(best_db)]


def nearest_square(a: tuple[Square, ...], b: tuple[Square, ...]) -> Square:
    """The square of ``b`` nearest to any square of ``a`` (bow-most on ties)."""
    return facing_pair(a, b)[1]


def arc_of(squares: tuple[Square, ...], facing: int, target: Square) -> Arc:
    """AHEAD when ``target`` is less than 45 degrees off the bow (seen from the bow square),
    ASTERN when less than 45 degrees off the stern (seen from the stern square), else SIDE."""
    ux, uy = STEP[facing]
    bx, by = squares[0]
    vx, vy = target[0] - bx, target[1] - by
    dot, cross = vx * ux + vy * uy, vx * uy - vy * ux
    if dot > abs(cross):
        return AHEAD
    sx, sy = squares[-1]
    vx, vy = target[0] - sx, target[1] - sy
    dot, cross = vx * ux + vy * uy, vx * uy - vy * ux
    if -dot > abs(cross):
        return ASTERN
    return SIDE


@lru_cache(maxsize=1 << 15)  # a C-level hit: cheaper than turning the pair upright in Python, as most calls repeat
def sighting(dx: int, dy: int, facing: int, size: int, other_facing: int, other_size: int) -> tuple[int, Arc, Arc]:
    """(gap, the arc of the other ship from this one, the arc of this ship from the other) for a ship whose
    bow lies (dx, dy) from the other's bow.

    Gaps and arcs depend on the two bows' offset only, not on where on the map they lie, and turning both
    ships a quarter turn or mirroring them along this ship's keel changes neither: the pair is turned until
    this ship faces N or NE, mirrored or not (whichever layout sorts first), and the few thousand such
    layouts met in play are worked out once each."""
    turns = facing >> 1
    if turns == 1:
        dx, dy = dy, -dx
    elif turns == 2:
        dx, dy = -dx, -dy
    elif turns == 3:
        dx, dy = -dy, dx
    facing, other_facing = facing & 1, (other_facing - 2 * turns) & 7
    if facing:  # NE: mirror across the NE-SW diagonal
        mirrored = (-dy, -dx, (2 - other_facing) & 7)
    else:  # N: mirror across the N-S line
        mirrored = (-dx, dy, -other_facing & 7)
    dx, dy, other_facing = min((dx, dy, other_facing), mirrored)
    return _upright_sighting(dx, dy, facing, size, other_facing, other_size)


@lru_cache(maxsize=1 << 16)
def _upright_sighting(dx: int, dy: int, facing: int, size: int, other_facing: int, other_size: int
                      ) -> tuple[int, Arc, Arc]:
    squares, other = footprint(dx, dy, facing, size), footprint(0, 0, other_facing, other_size)
    distance, nearest_other, nearest = facing_pair(squares, other)
    return distance, arc_of(squares, facing, nearest_other), arc_of(other, other_facing, nearest)


def starboard_of(squares: tuple[Square, ...], facing: int, target: Square) -> bool:
    """True when ``target`` lies to starboard of the ship's centre line (y grows southward)."""
    ux, uy = STEP[facing]
    bx, by = squares[0]
    return (target[0] - bx) * -uy + (target[1] - by) * ux > 0
