"""What each legal maneuver of a MOVE decision would lead to, as numpy arrays over the maneuvers.

Read by the observer (the ``move.*`` slices: a captain sees, for each maneuver, what would bear
and how close it would end) and by the scripted captains' move scoring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from naval_env.rulesets.crew_phase.arcs import covers
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
