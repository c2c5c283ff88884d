"""Wind and the maneuver table: every legal way to spend one movement step.

A maneuver is (forward spaces, turn direction, turn point). Paths for all eight
facings are precomputed once per config, as bit sets: which maneuvers a square
(relative to the bow) lies on, and which stay on the board from a square, so the
legal-move mask is a few integer operations per decision.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from naval_env.core.grid import STEP, points_between, turn

#: Entries each of a maneuver table's kept tables holds at most (past it that table starts over): boards are
#: small, so in play a table holds a few hundred.
TABLE_LIMIT = 1 << 14

# Points between facing and wind direction (0: running with the wind .. 4: into it).
WIND_MODIFIER = (2, 1, 0, -1, -2)


def wind_modifier(facing: int, wind: int) -> int:
    """+2 with the wind, +1 slightly with it, 0 across, -1 partly against, -2 into it."""
    return WIND_MODIFIER[points_between(facing, wind)]


def speed_with_wind(speed: int, facing: int, wind: int) -> int:
    """Movement allowance for the turn; wind never takes it below 1."""
    return max(1, speed + wind_modifier(facing, wind))


@dataclass(frozen=True, slots=True)
class Maneuver:
    forward: int
    turn: int       # compass points: -2..2 (two only when not moving forward)
    turn_at: int    # spaces moved before the turn (0 = before moving)

    @property
    def label(self) -> str:
        if self.forward == 0:
            return "hold" if self.turn == 0 else f"turn {_side(self.turn)}{abs(self.turn)}"
        if self.turn == 0:
            return f"ahead {self.forward}"
        return f"ahead {self.forward}, {_side(self.turn)} after {self.turn_at}"

    def path(self, facing: int) -> tuple[list[tuple[int, int]], int]:
        """Offsets of every square entered, and the final facing."""
        x = y = 0
        cells: list[tuple[int, int]] = []
        heading = facing
        for step in range(self.forward + 1):
            if self.turn and step == self.turn_at:
                heading = turn(heading, self.turn)
            if step == self.forward:
                break
            dx, dy = STEP[heading]
            x, y = x + dx, y + dy
            cells.append((x, y))
        return cells, heading


def _side(turn_points: int) -> str:
    return "starboard" if turn_points > 0 else "port"


def build_maneuvers(max_forward: int, in_place_turns: int) -> tuple[Maneuver, ...]:
    """Index 0 is 'hold'. Turning in place may go ``in_place_turns`` points; moving allows one."""
    table = [Maneuver(0, 0, 0)]
    for points in range(1, in_place_turns + 1):
        table += [Maneuver(0, -points, 0), Maneuver(0, points, 0)]
    for forward in range(1, max_forward + 1):
        table.append(Maneuver(forward, 0, 0))
        for turn_at in range(forward + 1):
            table += [Maneuver(forward, -1, turn_at), Maneuver(forward, 1, turn_at)]
    return tuple(table)


class ManeuverTable:
    """Precomputed paths of every maneuver from every facing."""

    def __init__(self, maneuvers: tuple[Maneuver, ...]) -> None:
        self.maneuvers = maneuvers
        self.labels = tuple(m.label for m in maneuvers)
        n = len(maneuvers)
        self.max_path = max(1, max(m.forward for m in maneuvers))
        self.forward = np.array([m.forward for m in maneuvers], dtype=np.int64)
        # Maneuvers are ordered by distance, so those within an allowance are a prefix of the table.
        self.within = [int(np.searchsorted(self.forward, a, side="right")) for a in range(self.max_path + 1)]
        self.dx = np.zeros((8, n, self.max_path), dtype=np.int64)
        self.dy = np.zeros((8, n, self.max_path), dtype=np.int64)
        self.end_facing = np.zeros((8, n), dtype=np.int64)
        self.end_dx = np.zeros((8, n), dtype=np.int64)
        self.end_dy = np.zeros((8, n), dtype=np.int64)
        self.paths: list[list[list[tuple[int, int]]]] = []
        for facing in range(8):
            per_facing = []
            for i, m in enumerate(maneuvers):
                cells, heading = m.path(facing)
                per_facing.append(cells)
                self.end_facing[facing, i] = heading
                self.end_dx[facing, i], self.end_dy[facing, i] = cells[-1] if cells else (0, 0)
                # Unused path slots repeat the last square (or the start) so they never block.
                padded = cells + [cells[-1] if cells else (0, 0)] * (self.max_path - len(cells))
                self.dx[facing, i] = [c[0] for c in padded]
                self.dy[facing, i] = [c[1] for c in padded]
            self.paths.append(per_facing)

        # Bit i: maneuver i. Per facing, the maneuvers entering each square (relative to the start).
        self.through: list[dict[tuple[int, int], int]] = []
        for per_facing in self.paths:
            through: dict[tuple[int, int], int] = {}
            for i, cells in enumerate(per_facing):
                for cell in cells:
                    through[cell] = through.get(cell, 0) | 1 << i
            self.through.append(through)
        self._on_board: dict[tuple[int, int, int, int, int, int], int] = {}
        self._masks: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.maneuvers)

    def legal_among(self, x: int, y: int, facing: int, allowance: int, width: int, height: int,
                    others: Iterable[tuple[int, int]]) -> np.ndarray:
        """The same mask as :meth:`legal`, from the squares of the other ships instead of a padded grid.

        Read-only: one array per distinct mask is kept and shared.
        """
        return self.mask_of(self.legal_bits(x, y, facing, allowance, width, height, others))

    def legal_bits(self, x: int, y: int, facing: int, allowance: int, width: int, height: int,
                   others: Iterable[tuple[int, int]]) -> int:
        """:meth:`legal_among` as a bit set: bit i for maneuver i."""
        count = self.within[min(allowance, self.max_path)]
        key = (x, y, facing, count, width, height)
        bits = self._on_board.get(key)
        if bits is None:
            bits = self._on_board_bits(*key)
            if len(self._on_board) >= TABLE_LIMIT:
                self._on_board.clear()
            self._on_board[key] = bits
        through = self.through[facing]
        for ox, oy in others:
            hit = through.get((ox - x, oy - y))
            if hit:
                bits &= ~hit
        return bits

    def mask_of(self, bits: int) -> np.ndarray:
        """The read-only boolean mask of the bit set ``bits`` (one kept per distinct set)."""
        mask = self._masks.get(bits)
        if mask is None:
            mask = np.array([bool(bits >> i & 1) for i in range(len(self.maneuvers))], dtype=bool)
            mask.flags.writeable = False
            if len(self._masks) >= TABLE_LIMIT:
                self._masks.clear()
            self._masks[bits] = mask
        return mask

    def _on_board_bits(self, x: int, y: int, facing: int, count: int, width: int, height: int) -> int:
        """Maneuvers among the first ``count`` whose every square lies on the board."""
        bits = 0
        for i, cells in enumerate(self.paths[facing][:count]):
            if all(0 <= x + dx < width and 0 <= y + dy < height for dx, dy in cells):
                bits |= 1 << i
        return bits

    def legal(self, x: int, y: int, facing: int, allowance: int, blocked: np.ndarray, pad: int) -> np.ndarray:
        """Mask of maneuvers within ``allowance`` whose path stays on the board and off other ships.

        ``blocked`` is the board padded by ``pad`` squares of True on every side,
        with the moving ship's own square False.
        """
        allowance = min(allowance, self.max_path)
        count, depth = self.within[allowance], max(allowance, 1)
        cells = blocked[self.dy[facing, :count, :depth] + (y + pad), self.dx[facing, :count, :depth] + (x + pad)]
        legal = np.zeros(len(self.maneuvers), dtype=bool)
        legal[:count] = ~cells.any(axis=1)
        return legal
