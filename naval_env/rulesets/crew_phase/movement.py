"""Ship movement: speed from Navigate, the hull penalty, towing cost, and the maneuver table.

A maneuver is (squares ahead, 45-degree turn points to one side, timing). A ship
never moves backwards and, unless Agile, turns only while moving: each point of
turn needs one speed unit of movement spent first. "Early" turns each point as
soon as it is paid for, "late" turns every point after the last square. Agile
ships turn freely: early is before moving (in place when not moving), late after.
Paths for all eight facings are precomputed per turn rate, as bit sets of the
maneuvers crossing each square, so the legal-move mask is a few integer ANDs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from naval_env.core.grid import STEP, turn
from naval_env.rulesets.crew_phase.state import Ship, Status


def speed_allowance(ship: Ship, held_by_larger: bool) -> int:
    """Feet the ship may move this Ship Phase.

    Sinking ships have a speed unit of 0; a ship held by a larger one gains nothing
    from Navigate; below half its hull points the maximum speed is halved and the
    Navigate speed beyond it is wasted.
    """
    if ship.status is not Status.AFLOAT or held_by_larger:
        return 0
    cap = ship.normal_max_speed // 2 if ship.below_half else ship.normal_max_speed
    return min(ship.speed_ft, cap)


def tow_multiplier(mover_size: int, towed_sizes: list[int]) -> int:
    """Feet of speed per foot moved: one, plus one per towed ship not two sizes smaller than the mover."""
    return 1 + sum(1 for size in towed_sizes if size > mover_size - 2)


@dataclass(frozen=True, slots=True)
class Maneuver:
    forward: int
    points: int     # 45-degree turns: positive to starboard, negative to port
    late: bool      # turn after the last square instead of as early as allowed

    @property
    def label(self) -> str:
        side = "starboard" if self.points > 0 else "port"
        if self.forward == 0:
            return "hold" if self.points == 0 else f"pivot {side} {abs(self.points)}"
        if self.points == 0:
            return f"ahead {self.forward}"
        return f"ahead {self.forward}, {side} {abs(self.points)} {'late' if self.late else 'early'}"


def build_maneuvers(max_forward: int, max_points: int) -> tuple[Maneuver, ...]:
    """Index 0 is 'hold'; then turns in place (Agile only); then by distance, so a prefix fits any allowance."""
    table = [Maneuver(0, 0, False)]
    for points in range(1, max_points + 1):
        table += [Maneuver(0, -points, False), Maneuver(0, points, False)]
    for forward in range(1, max_forward + 1):
        table.append(Maneuver(forward, 0, False))
        for points in range(1, max_points + 1):
            for late in (False, True):
                table += [Maneuver(forward, -points, late), Maneuver(forward, points, late)]
    return tuple(table)


def plan(maneuver: Maneuver, facing: int, squares_per_point: Fraction | None
         ) -> tuple[list[tuple[int, int]], int] | None:
    """Offsets of every square entered and the final facing; None when the turns are not paid for.

    ``squares_per_point`` is the movement one 45-degree turn costs, in squares (None: Agile, free).
    """
    n, k = maneuver.forward, abs(maneuver.points)
    sign = 1 if maneuver.points > 0 else -1
    if squares_per_point is None:
        turn_at = [n if maneuver.late else 0] * k
    else:
        if k and n == 0:
            return None
        if maneuver.late:
            if k * squares_per_point > n:
                return None
            turn_at = [n] * k
        else:
            turn_at = [math.ceil(i * squares_per_point) for i in range(1, k + 1)]
            if turn_at and turn_at[-1] > n:
                return None
    x = y = 0
    heading = facing
    cells: list[tuple[int, int]] = []
    pending = 0
    for step in range(n + 1):
        while pending < k and turn_at[pending] == step:
            heading = turn(heading, sign)
            pending += 1
        if step == n:
            break
        dx, dy = STEP[heading]
        x, y = x + dx, y + dy
        cells.append((x, y))
    return cells, heading


class ManeuverTable:
    """Every maneuver's path from every facing, for one turn rate (squares of movement per turn point).

    Sets of maneuvers are Python ints used as bit sets (bit ``i``: maneuver ``i``): a legal-move
    mask is then a few integer ANDs per moving ship instead of numpy calls on a padded board.
    """

    def __init__(self, maneuvers: tuple[Maneuver, ...], squares_per_point: Fraction | None) -> None:
        self.maneuvers = maneuvers
        n = len(maneuvers)
        self.max_path = max(1, max(m.forward for m in maneuvers))
        self.forward = np.array([m.forward for m in maneuvers], dtype=np.int64)
        self.within = [int(np.searchsorted(self.forward, a, side="right")) for a in range(self.max_path + 1)]
        self.end_facing = np.zeros((8, n), dtype=np.int64)
        self.end_dx = np.zeros((8, n), dtype=np.int64)
        self.end_dy = np.zeros((8, n), dtype=np.int64)
        self.paths: list[list[list[tuple[int, int]]]] = []
        self.ends: list[list[tuple[int, int, int]]] = []   # per facing and maneuver: end offset and facing
        self._feasible = 0
        self._straight = sum(1 << i for i, m in enumerate(maneuvers) if m.points == 0)
        self._through: list[dict[tuple[int, int], int]] = []
        self._fits: list[tuple[list[int], list[int], list[int], list[int]]] = []
        for facing in range(8):
            per_facing: list[list[tuple[int, int]]] = []
            for i, m in enumerate(maneuvers):
                planned = plan(m, facing, squares_per_point)
                if planned is None:
                    per_facing.append([])
                    self.end_facing[facing, i] = facing
                    continue
                cells, heading = planned
                self._feasible |= 1 << i
                per_facing.append(cells)
                self.end_facing[facing, i] = heading
                self.end_dx[facing, i], self.end_dy[facing, i] = cells[-1] if cells else (0, 0)
            self.paths.append(per_facing)
            self.ends.append([(int(self.end_dx[facing, i]), int(self.end_dy[facing, i]),
                               int(self.end_facing[facing, i])) for i in range(n)])
            self._through.append(_cells_crossed(per_facing))
            self._fits.append(_edge_fits(per_facing, self.max_path))

    def legal(self, facing: int, max_squares: int, can_turn: bool, movers: list[tuple[int, int]],
              width: int, height: int, blockers: list[tuple[int, int]]) -> int:
        """Bit set of the maneuvers within ``max_squares`` whose paths stay on the board and off other ships.

        ``movers`` are the squares of every ship moving along (the mover first, then the ships it
        tows; each follows the same path from its own square); ``blockers`` are the squares of the
        other ships on the board.
        """
        top = self.max_path
        legal = self.within_reach(max_squares, can_turn)
        through = self._through[facing]
        north, east, south, west = self._fits[facing]
        for x, y in movers:
            legal &= (north[min(y, top)] & east[min(width - 1 - x, top)] & south[min(height - 1 - y, top)]
                      & west[min(x, top)])
            for bx, by in blockers:
                legal &= ~through.get((bx - x, by - y), 0)
        return legal

    def within_reach(self, max_squares: int, can_turn: bool) -> int:
        """Bit set of the maneuvers paid for by ``max_squares`` of movement, board and ships aside
        (with no square of movement, all that is left: hold and turning in place, which nothing blocks)."""
        reach = ((1 << self.within[min(max(max_squares, 0), self.max_path)]) - 1) & self._feasible
        return reach if can_turn else reach & self._straight


def _cells_crossed(paths: list[list[tuple[int, int]]]) -> dict[tuple[int, int], int]:
    """For each square offset, the bit set of the maneuvers whose path enters it."""
    crossed: dict[tuple[int, int], int] = {}
    for i, cells in enumerate(paths):
        for cell in cells:
            crossed[cell] = crossed.get(cell, 0) | 1 << i
    return crossed


def _edge_fits(paths: list[list[tuple[int, int]]], top: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """Per edge (north, east, south, west), indexed by the squares of sea room on that side (capped at
    ``top``): the bit set of the maneuvers whose path stays within it."""
    reach = [(max([0, *(-y for _, y in cells)]), max([0, *(x for x, _ in cells)]),
              max([0, *(y for _, y in cells)]), max([0, *(-x for x, _ in cells)])) for cells in paths]
    return tuple(  # type: ignore[return-value]
        [sum(1 << i for i, r in enumerate(reach) if r[edge] <= room) for room in range(top + 1)]
        for edge in range(4)
    )


_BINARY_DIGITS_TO_BYTES = bytes.maketrans(b"01", b"\x00\x01")


def bits_to_bytes(bits: int, size: int) -> bytes:
    """A bit set of ``size`` values as one byte 0 or 1 per value (bit ``i`` -> byte ``i``), all in C
    through the binary digits as text."""
    return format(bits, f"0{size}b")[::-1].encode().translate(_BINARY_DIGITS_TO_BYTES)
