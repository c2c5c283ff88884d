"""Weapon arcs and ranges on the square grid.

A target's bearing is read in the firing ship's frame (``ahead``, ``right``):
the bow arc is within 45 degrees of the facing, the stern arc within 45 degrees
of the opposite way, the beams in between. Boundaries belong to both arcs, so a
square exactly 45 degrees off the bow is in the bow arc and in a beam arc.
Works on plain ints and on numpy arrays alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from naval_env.core.grid import STEP

BOW, STARBOARD, STERN, PORT, ALL = range(5)

_FORWARD = STEP
_RIGHT = tuple(STEP[(f + 2) % 8] for f in range(8))


def bearing(dx: Any, dy: Any, facing: int) -> tuple[Any, Any]:
    """(ahead, right) of the offset (dx, dy) for a ship facing ``facing`` (both scaled alike)."""
    fx, fy = _FORWARD[facing]
    rx, ry = _RIGHT[facing]
    return dx * fx + dy * fy, dx * rx + dy * ry


def in_arc(arc: int, ahead: Any, right: Any) -> Any:
    if arc == ALL:
        return np.ones_like(ahead, dtype=bool) if isinstance(ahead, np.ndarray) else True
    if arc == BOW:
        return ahead >= abs(right)
    if arc == STERN:
        return -ahead >= abs(right)
    if arc == STARBOARD:
        return right >= abs(ahead)
    return -right >= abs(ahead)


#: Boards are at most 64 squares a side, so offsets lie within +-63.
OFFSET = 63


def _arc_table() -> np.ndarray:
    """``ARC_TABLE[arc, facing, dx + OFFSET, dy + OFFSET]``: whether the offset lies in the arc."""
    span = np.arange(-OFFSET, OFFSET + 1)
    dx, dy = np.meshgrid(span, span, indexing="ij")
    table = np.zeros((5, 8, span.size, span.size), dtype=bool)
    for facing in range(8):
        ahead, right = bearing(dx, dy, facing)
        for arc in range(5):
            table[arc, facing] = in_arc(arc, ahead, right)
    return table


ARC_TABLE = _arc_table()


def covers(arc: int, facing: Any, dx: Any, dy: Any) -> Any:
    """Whether (dx, dy) lies in the arc of a ship facing ``facing`` (ints, or numpy arrays alike)."""
    return ARC_TABLE[arc, facing, dx + OFFSET, dy + OFFSET]


_SPAN = 2 * OFFSET + 1
_ARC_BYTES = ARC_TABLE.tobytes()
_CELLS = _SPAN * _SPAN

#: ``ARC_CELLS[arc][facing][cell(dx, dy)]``: :func:`covers` for plain ints (1 or 0), the table read as
#: bytes; loops over many squares or weapons look their arc's row up once and index it per square.
ARC_CELLS = tuple(
    tuple(_ARC_BYTES[(arc * 8 + facing) * _CELLS: (arc * 8 + facing + 1) * _CELLS] for facing in range(8))
    for arc in range(5)
)


def cell(dx: int, dy: int) -> int:
    """Index of the offset (dx, dy) in a row of :data:`ARC_CELLS`."""
    return (dx + OFFSET) * _SPAN + dy + OFFSET


def covers_square(arc: int, facing: int, dx: int, dy: int) -> bool:
    """:func:`covers` for plain ints, without numpy's cost per call."""
    return ARC_CELLS[arc][facing][(dx + OFFSET) * _SPAN + dy + OFFSET] == 1


def distance(ax: int, ay: int, bx: int, by: int) -> int:
    """Squares between two ships; a diagonal step counts as one square (5e grid)."""
    return max(abs(ax - bx), abs(ay - by))


def directly_ahead(x: int, y: int, facing: int) -> tuple[int, int]:
    """The square a ship would enter with one more step forward."""
    dx, dy = STEP[facing]
    return x + dx, y + dy
