"""Text and image rendering of a `flotilla` battle (no drawing library needed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.events import Event
from naval_env.core.grid import STEP

if TYPE_CHECKING:
    from naval_env.rulesets.flotilla.engine import FlotillaGame

ARROWS = ("^", "7", ">", "J", "v", "L", "<", "F")  # ASCII-only compass glyphs N..NW
SIDE_COLOURS = ((200, 40, 40), (40, 80, 210))
CELL = 16


def render_ansi(game: FlotillaGame, events: list[Event]) -> str:
    from naval_env.rulesets.flotilla.engine import wind_name

    state = game.state
    grid = [[" ." for _ in range(state.width)] for _ in range(state.height)]
    for ship in state.ships.values():
        if not ship.afloat:
            continue
        mark = ship.side[0].upper()
        for i, (x, y) in enumerate(ship.squares):
            grid[y][x] = f"{mark}{ARROWS[ship.facing]}" if i == 0 else f"{mark.lower()}{ship.id.rsplit('_', 1)[1]}"
    to_act = "(game over)" if state.ended else f"to act: {state.actor} {state.phase.name}"
    lines = [f"round {state.round}  wind {wind_name(state.wind)}  {to_act}"]
    lines += ["".join(row) for row in grid]
    for ship in state.ships.values():
        extras = []
        if ship.grappled_with:
            extras.append(f"grappled:{ship.grappled_with}")
        if ship.mages:
            extras.append(f"mages {ship.mages}")
        if not ship.captain_alive:
            extras.append("no captain")
        status = "afloat" if ship.afloat else "sunk"
        lines.append(
            f"  {ship.id:<8} {ship.ship_class:<10} {status:<6} cohesion {ship.cohesion:>2}/{ship.max_cohesion:<2}"
            f" steer {ship.captain_dice}d6-{ship.crew_hits} guns {ship.combat}d6 r{ship.range}"
            f" board {ship.boarding}d6 move {ship.movement} {' '.join(extras)}"
        )
    lines += [f"  * {event.text()}" for event in events]
    return "\n".join(lines)


def render_rgb(game: FlotillaGame) -> np.ndarray:
    state = game.state
    image = np.zeros((state.height * CELL, state.width * CELL, 3), dtype=np.uint8)
    image[:, :] = (30, 90, 140)
    image[::CELL, :] = (20, 70, 110)
    image[:, ::CELL] = (20, 70, 110)
    for ship in state.ships.values():
        if not ship.afloat:
            continue
        colour = np.array(SIDE_COLOURS[state.sides.index(ship.side) % 2], dtype=np.int64)
        for i, (x, y) in enumerate(ship.squares):
            top, left = y * CELL, x * CELL
            shade = colour if i == 0 else colour * 3 // 4
            image[top + 2: top + CELL - 2, left + 2: left + CELL - 2] = shade
        dx, dy = STEP[ship.facing]
        cx, cy = ship.x * CELL + CELL // 2 + dx * 4, ship.y * CELL + CELL // 2 + dy * 4
        image[cy - 2: cy + 2, cx - 2: cx + 2] = (250, 250, 250)
    return image
