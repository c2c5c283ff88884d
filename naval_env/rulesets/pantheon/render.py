"""Text and image rendering of a `pantheon` battle (no drawing library needed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.events import Event
from naval_env.core.grid import STEP, Compass
from naval_env.rulesets.pantheon.state import Status

if TYPE_CHECKING:
    from naval_env.rulesets.pantheon.engine import PantheonGame

ARROWS = ("^", "7", ">", "J", "v", "L", "<", "F")  # ASCII-only compass glyphs N..NW
SIDE_COLOURS = ((200, 40, 40), (40, 80, 210))
CELL = 16


def render_ansi(game: PantheonGame, events: list[Event]) -> str:
    state = game.state
    grid = [["  ." for _ in range(state.width)] for _ in range(state.height)]
    for ship in state.ships.values():
        if ship.status.on_board:
            mark = ship.side[0].upper() if ship.status is not Status.SINKING else "~"
            grid[ship.y][ship.x] = f"{mark}{ship.id.rsplit('_', 1)[1]}{ARROWS[ship.facing]}"
    lines = [f"round {state.round}  wind blows {Compass(state.wind).name}  "
             f"{'(game over)' if state.ended else 'to act: ' + state.current + ' ' + state.phase.name}"]
    lines += ["".join(row) for row in grid]
    for ship in state.ships.values():
        tied = f" tied:{ship.tied_to}" if ship.tied_to else ""
        lines.append(
            f"  {ship.id:<8} {ship.vessel:<12} {ship.status.value:<8} hp {ship.health:>3}/{ship.max_health:<3}"
            f" spd {ship.speed} dmg {ship.damage} retests {ship.retests}{tied}"
        )
    lines += [f"  * {event.text()}" for event in events]
    return "\n".join(lines)


def render_rgb(game: PantheonGame) -> np.ndarray:
    state = game.state
    image = np.zeros((state.height * CELL, state.width * CELL, 3), dtype=np.uint8)
    image[:, :] = (30, 90, 140)
    image[::CELL, :] = (20, 70, 110)
    image[:, ::CELL] = (20, 70, 110)
    for ship in state.ships.values():
        if not ship.status.on_board:
            continue
        colour = np.array(SIDE_COLOURS[state.sides.index(ship.side) % 2], dtype=np.int64)
        if ship.status is Status.WRECKED:
            colour = colour // 2
        elif ship.status is Status.SINKING:
            colour = np.array((110, 110, 110))
        top, left = ship.y * CELL, ship.x * CELL
        image[top + 3: top + CELL - 3, left + 3: left + CELL - 3] = colour
        dx, dy = STEP[ship.facing]
        cx, cy = left + CELL // 2 + dx * 4, top + CELL // 2 + dy * 4
        image[cy - 2: cy + 2, cx - 2: cx + 2] = (250, 250, 250)
    return image
