"""Square-grid geometry shared by grid rulesets: eight compass directions, y growing southward."""

from __future__ import annotations

from enum import IntEnum
from typing import Any


class Compass(IntEnum):
    """Eight-way compass; one step clockwise is a 45-degree turn to starboard."""

    N = 0
    NE = 1
    E = 2
    SE = 3
    S = 4
    SW = 5
    W = 6
    NW = 7

    @classmethod
    def parse(cls, name: str) -> Compass:
        try:
            return cls[name.upper()]
        except KeyError:
            raise ValueError(f"unknown direction {name!r}; use one of {[c.name for c in cls]}") from None


# (dx, dy) of one step in each direction; y grows to the south.
STEP: tuple[tuple[int, int], ...] = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))


def turn(facing: int, steps: int) -> int:
    """Facing after ``steps`` compass points clockwise (negative: to port)."""
    return (facing + steps) % 8


def points_between(a: int, b: int) -> int:
    """Smallest number of compass points between two directions (0..4)."""
    diff = (a - b) % 8
    return min(diff, 8 - diff)


def chebyshev(ax: int, ay: int, bx: int, by: int) -> int:
    """Grid distance where a diagonal step counts as one space."""
    return max(abs(ax - bx), abs(ay - by))


def on_edge(x: int, y: int, board: tuple[int, int]) -> bool:
    """Whether square (x, y) lies in the outermost ring of a ``board`` = (width, height) grid."""
    width, height = board
    return x in (0, width - 1) or y in (0, height - 1)


def square_place(game: Any, agent: str) -> tuple[float, ...]:
    """A grid ship's square and facing (its ruleset's ``place`` hook, naval_env/core/hooks.py)."""
    ship = game.state.ships[agent]
    return (ship.x, ship.y, ship.facing)


def square_at_edge(game: Any, agent: str) -> bool:
    """Whether a grid ship stands on the outermost ring of its scenario's ``board`` (the ``at_board_edge`` hook)."""
    ship = game.state.ships[agent]
    return on_edge(ship.x, ship.y, game.scenario.board)
