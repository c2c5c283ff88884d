"""Text and image rendering of a `broadside` battle (the image is ``picture.py``'s, drawn with Pillow)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.events import Event
from naval_env.rulesets.broadside.geometry import Hull

if TYPE_CHECKING:
    from naval_env.rulesets.broadside.engine import BroadsideGame

CHART_INCHES = 2   # one character of the text chart covers 2 x 2 inches


def _cells(hull: Hull, width: int, height: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the grid cells whose centres lie inside the hull."""
    ys, xs = np.mgrid[0:height, 0:width]
    px = (xs + 0.5) * scale
    py = (height - ys - 0.5) * scale          # row 0 is the north edge
    radians = np.radians(hull.heading)
    ux, uy = np.sin(radians), np.cos(radians)
    dx, dy = px - hull.x, py - hull.y
    along, across = dx * ux + dy * uy, dx * uy - dy * ux
    inside = (np.abs(along) <= hull.length / 2) & (np.abs(across) <= hull.beam / 2)
    rows, cols = np.nonzero(inside)
    return rows, cols


def render_ansi(game: BroadsideGame, events: list[Event]) -> str:
    state = game.state
    cols, rows = int(state.width // CHART_INCHES), int(state.height // CHART_INCHES)
    chart = [["." for _ in range(cols)] for _ in range(rows)]
    for berg in state.icebergs:
        for r, c in zip(*_cells(berg.shape, cols, rows, CHART_INCHES)):
            chart[r][c] = "#"
    for ship in state.ships.values():
        if ship.status.fighting:
            mark = ship.side[0].upper() if ship.side == state.sides[0] else ship.side[0].lower()
            for r, c in zip(*_cells(ship.shape, cols, rows, CHART_INCHES)):
                chart[r][c] = mark
    to_act = "(game over)" if state.ended else f"to act: {state.decider} {state.phase.name}"
    lines = [f"round {state.round}  wind blows toward {state.wind:.0f}deg  {to_act}"]
    lines += ["".join(row) for row in chart]
    for ship in state.ships.values():
        p = ship.people
        engaged = f" grappled:{','.join(ship.grappled)}" if ship.grappled else ""
        aboard = "".join(f" {o}:{b.marines}m{b.heroes}h-aboard" for o, b in ship.boarders.items())
        lines.append(
            f"  {ship.id:<8} {ship.vessel:<12} {ship.status.value:<6} hull {ship.hull:>3}/{ship.max_hull:<3} "
            f"({ship.shape.x:5.1f},{ship.shape.y:5.1f}) {ship.shape.heading:5.1f}deg "
            f"crew {p.crew} archers {p.archers} marines {p.marines} lts {p.lieutenants} heroes {p.heroes}"
            f"{engaged}{aboard}"
        )
    lines += [f"  * {event.text()}" for event in events]
    return "\n".join(lines)

