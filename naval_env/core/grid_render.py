"""Drawing pieces shared by the rulesets' text and image renderers (no drawing library needed)."""

from __future__ import annotations

import numpy as np

from naval_env.core.grid import STEP

#: ASCII-only compass glyphs, N..NW, for a ship's facing in text boards.
ARROWS = ("^", "7", ">", "J", "v", "L", "<", "F")
#: RGB of the first and second side.
SIDE_COLOURS = ((200, 40, 40), (40, 80, 210))
#: Pixels per square of a grid board.
CELL = 16
_SEA, _GRID_LINES, _BOW = (30, 90, 140), (20, 70, 110), (250, 250, 250)


def side_colour(sides: tuple[str, ...] | list[str], side: str) -> np.ndarray:
    """The side's colour as an int64 RGB vector (so it can be darkened by integer division)."""
    return np.array(SIDE_COLOURS[list(sides).index(side) % 2], dtype=np.int64)


def ship_number(ship_id: str) -> str:
    """The index part of a ship id (``red_1`` -> ``1``), for one-character board marks."""
    return ship_id.rsplit("_", 1)[1]


def sea(width: int, height: int) -> np.ndarray:
    """An RGB image of a ``width`` x ``height`` square grid of open sea."""
    image = np.zeros((height * CELL, width * CELL, 3), dtype=np.uint8)
    image[:, :] = _SEA
    image[::CELL, :] = _GRID_LINES
    image[:, ::CELL] = _GRID_LINES
    return image


def fill_square(image: np.ndarray, x: int, y: int, colour: np.ndarray, margin: int) -> None:
    """Paint square (x, y), leaving ``margin`` pixels of sea around it."""
    top, left = y * CELL, x * CELL
    image[top + margin: top + CELL - margin, left + margin: left + CELL - margin] = colour


def mark_bow(image: np.ndarray, x: int, y: int, facing: int) -> None:
    """A white dot in square (x, y) toward compass ``facing``: which way the ship points."""
    dx, dy = STEP[facing]
    cx, cy = x * CELL + CELL // 2 + dx * 4, y * CELL + CELL // 2 + dy * 4
    image[cy - 2: cy + 2, cx - 2: cx + 2] = _BOW
