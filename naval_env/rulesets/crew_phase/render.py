"""Text and image rendering of a `crew_phase` battle (no drawing library needed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.events import Event
from naval_env.core.grid import STEP
from naval_env.rulesets.crew_phase.state import Status

if TYPE_CHECKING:
    from naval_env.rulesets.crew_phase.engine import CrewPhaseGame

ARROWS = ("^", "7", ">", "J", "v", "L", "<", "F")  # ASCII-only compass glyphs N..NW
SIDE_COLOURS = ((200, 40, 40), (40, 80, 210))
CELL = 16


def render_ansi(game: CrewPhaseGame, events: list[Event]) -> str:
    state = game.state
    grid = [["  ." for _ in range(state.width)] for _ in range(state.height)]
    for ship in state.ships.values():
        if ship.status is not Status.SUNK:
            mark = ship.side[0].upper() if ship.status is Status.AFLOAT else "~"
            grid[ship.y][ship.x] = f"{mark}{ship.id.rsplit('_', 1)[1]}{ARROWS[ship.facing]}"
    phase = "Ship Phase" if state.ship_phase else "Character Phase"
    doing = "(game over)" if state.ended else f"to act: {state.current} {state.phase.name}"
    lines = [f"round {state.round} {phase}{'  rough weather' if state.rough else ''}  {doing}"]
    lines += ["".join(row) for row in grid]
    for ship in state.ships.values():
        crew = "".join("o" if c.hp > 0 else "x" for c in ship.crew)
        arms = " ".join(f"{w.name}:{w.hp}hp/{w.ammo}" for w in ship.weapons)
        grapples = [g.other(ship.id) for g in state.grapples if g.involves(ship.id)]
        tied = f" grappled:{','.join(grapples)}" if grapples else ""
        lines.append(
            f"  {ship.id:<8} {ship.vessel:<13} {ship.status.value:<8} hull {ship.hp:>4}/{ship.max_hp:<4}"
            f" dice {ship.hull_dice_left}d{ship.hull_die} crew [{crew}] {arms}{tied}"
        )
    lines += [f"  * {event.text()}" for event in events]
    return "\n".join(lines)


def render_rgb(game: CrewPhaseGame) -> np.ndarray:
    state = game.state
    image = np.zeros((state.height * CELL, state.width * CELL, 3), dtype=np.uint8)
    image[:, :] = (30, 90, 140)
    image[::CELL, :] = (20, 70, 110)
    image[:, ::CELL] = (20, 70, 110)
    for ship in state.ships.values():
        if ship.status is Status.SUNK:
            continue
        colour = np.array(SIDE_COLOURS[state.sides.index(ship.side) % 2], dtype=np.int64)
        if ship.status is Status.SINKING:
            colour = colour // 3
        top, left = ship.y * CELL, ship.x * CELL
        image[top + 3: top + CELL - 3, left + 3: left + CELL - 3] = colour
        dx, dy = STEP[ship.facing]
        cx, cy = left + CELL // 2 + dx * 4, top + CELL // 2 + dy * 4
        image[cy - 2: cy + 2, cx - 2: cx + 2] = (250, 250, 250)
    return image
