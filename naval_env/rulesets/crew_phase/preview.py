"""What each legal maneuver of a MOVE decision would lead to, as numpy arrays over the maneuvers.

Read by the scripted captains' move scoring and, through :func:`outlook` (the same values in plain
Python: a MOVE decision has a handful of legal maneuvers, too few for numpy calls to pay off), by
the observer's ``move.*`` slices: a captain sees, for each maneuver, what would bear and how close
it would end. ``tests/crew_phase/test_preview.py`` checks that both forms agree exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.grid import STEP
from naval_env.rulesets.crew_phase.arcs import ARC_CELLS, cell, covers
from naval_env.rulesets.crew_phase.state import Ship, Status, WeaponState

if TYPE_CHECKING:
    from naval_env.rulesets.crew_phase.engine import CrewPhaseGame, ManeuverOutcomes

FX = np.array([0, 1, 1, 1, 0, -1, -1, -1])
FY = np.array([-1, -1, 0, 1, 1, 1, 0, -1])


def covers_array(weapon: WeaponState, facing: np.ndarray, dx: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """Whether the offset (dx, dy) lies in the weapon's arc, for each facing."""
    return covers(weapon.arc, facing, dx, dy)


def coverage(game: CrewPhaseGame, ship: Ship, moves: ManeuverOutcomes) -> np.ndarray:
    """Weapons operated this round that would bear on an enemy from each end square
    (1 each at normal range, 1/3 at long range)."""
    square = game.rules.square_feet
    total = np.zeros(moves.index.size)
    weapons = [w for w in ship.weapons if w.operator is not None and w.hp > 0 and w.ammo > 0]
    if not weapons:
        return total
    for enemy in game.enemies_of(ship):
        if enemy.status is Status.SUNK:
            continue
        dx, dy = enemy.x - moves.x, enemy.y - moves.y
        feet = np.maximum(np.abs(dx), np.abs(dy)) * square
        for weapon in weapons:
            covered = covers(weapon.arc, moves.facing, dx, dy)
            total += covered * ((feet <= weapon.range_ft) * (2 / 3) + (feet <= weapon.long_range_ft) * (1 / 3))
    return total


def end_distance(moves: ManeuverOutcomes, enemy: Ship) -> np.ndarray:
    return np.maximum(np.abs(moves.x - enemy.x), np.abs(moves.y - enemy.y))


def ram_ready(moves: ManeuverOutcomes, enemy: Ship) -> np.ndarray:
    """Maneuvers that end with ``enemy`` directly ahead and a square of movement left to ram it."""
    ahead_x, ahead_y = moves.x + FX[moves.facing], moves.y + FY[moves.facing]
    return (ahead_x == enemy.x) & (ahead_y == enemy.y) & (moves.feet_left >= moves.cost)


def in_its_bow(game: CrewPhaseGame, moves: ManeuverOutcomes, enemy: Ship) -> np.ndarray:
    """End squares in front of ``enemy``'s bow within its reach this round or next (its ram threat)."""
    dx, dy = moves.x - enemy.x, moves.y - enemy.y
    fx, fy = FX[enemy.facing], FY[enemy.facing]
    ahead, right = dx * fx + dy * fy, dx * -fy + dy * fx
    reach = max(2, enemy.normal_max_speed // game.rules.square_feet + 1)
    return (ahead >= np.abs(right)) & (end_distance(moves, enemy) <= reach)


def alignment(moves: ManeuverOutcomes, enemy: Ship) -> np.ndarray:
    """Cosine between each end facing and the bearing of ``enemy`` from the end square."""
    fx, fy = FX[moves.facing], FY[moves.facing]
    dx, dy = enemy.x - moves.x, enemy.y - moves.y
    return (dx * fx + dy * fy) / np.maximum(np.hypot(dx, dy) * np.hypot(fx, fy), 1e-9)


def sea_room(game: CrewPhaseGame, moves: ManeuverOutcomes, depth: int) -> np.ndarray:
    """Squares of open water straight ahead of each end square, up to ``depth``."""
    state = game.state
    fx, fy = FX[moves.facing], FY[moves.facing]
    room = np.full(moves.index.size, depth)
    room = np.where(fx > 0, np.minimum(room, state.width - 1 - moves.x), room)
    room = np.where(fx < 0, np.minimum(room, moves.x), room)
    room = np.where(fy > 0, np.minimum(room, state.height - 1 - moves.y), room)
    return np.where(fy < 0, np.minimum(room, moves.y), room)


@dataclass(frozen=True, slots=True)
class Outlook:
    """Per legal maneuver, in the order asked: :func:`coverage`, the least :func:`end_distance` over the
    enemies, and whether :func:`ram_ready` or :func:`in_its_bow` holds for any of them."""

    coverage: list[float]
    nearest: list[int]
    ram: list[bool]
    exposed: list[bool]


_FAR = 1 << 30  # farther than any two squares of a board


def outlook(game: CrewPhaseGame, ship: Ship, legal: list[int]) -> Outlook | None:
    """What the ``legal`` maneuvers of the MOVE decision held now lead to; None with no enemy on the board."""
    square = game.rules.square_feet
    enemies = [(e.x, e.y, *STEP[e.facing], max(2, e.normal_max_speed // square + 1))
               for e in game.enemies_of(ship) if e.status is not Status.SUNK]
    if not enemies:
        return None
    weapons = [(ARC_CELLS[w.arc], w.range_ft, w.long_range_ft) for w in ship.weapons
               if w.operator is not None and w.hp > 0 and w.ammo > 0]
    cost, _ = game.move_cost(ship)
    ends = game.actions.table(ship.agile, ship.speed_unit, cost).ends[ship.facing]
    maneuvers = game.actions.maneuvers
    x0, y0, movement_left = ship.x, ship.y, ship.movement_left
    result = Outlook([], [], [], [])
    for i in legal:
        dx, dy, facing = ends[i]
        x, y = x0 + dx, y0 + dy
        step_x, step_y = STEP[facing]
        ram_left = movement_left - maneuvers[i].forward * cost >= cost
        total, nearest, ram, exposed = 0.0, _FAR, False, False
        for ex, ey, fx, fy, reach in enemies:
            tx, ty = ex - x, ey - y
            span = max(abs(tx), abs(ty))
            if weapons:
                feet = span * square
                offset = cell(tx, ty)
                for arc_cells, normal, long in weapons:  # summed in coverage()'s order, so the floats match
                    if arc_cells[facing][offset]:
                        total += (2 / 3 if feet <= normal else 0.0) + (1 / 3 if feet <= long else 0.0)
            nearest = min(nearest, span)
            ram = ram or (ram_left and tx == step_x and ty == step_y)  # the enemy is directly ahead
            # In its bow: from the enemy the end square is at least as far ahead as to the side.
            exposed = exposed or (-tx * fx - ty * fy >= abs(tx * fy - ty * fx) and span <= reach)
        result.coverage.append(total)
        result.nearest.append(nearest)
        result.ram.append(ram)
        result.exposed.append(exposed)
    return result
