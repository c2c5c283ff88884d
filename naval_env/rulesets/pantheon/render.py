"""Text and image rendering of a `pantheon` battle (the image is ``picture.py``'s, drawn with Pillow)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from naval_env.core.events import Event
from naval_env.core.grid import Compass
from naval_env.core.grid_render import ARROWS, ship_number
from naval_env.rulesets.pantheon.state import Status

if TYPE_CHECKING:
    from naval_env.rulesets.pantheon.engine import PantheonGame


def render_ansi(game: PantheonGame, events: list[Event]) -> str:
    state = game.state
    grid = [["  ." for _ in range(state.width)] for _ in range(state.height)]
    for ship in state.ships.values():
        if ship.status.on_board:
            mark = ship.side[0].upper() if ship.status is not Status.SINKING else "~"
            grid[ship.y][ship.x] = f"{mark}{ship_number(ship.id)}{ARROWS[ship.facing]}"
    to_act = "(game over)" if state.ended else f"to act: {state.current} {state.phase.name}"
    lines = [f"round {state.round}  wind blows {Compass(state.wind).name}  {to_act}"]
    lines += ["".join(row) for row in grid]
    for ship in state.ships.values():
        tied = f" tied:{ship.tied_to}" if ship.tied_to else ""
        lines.append(
            f"  {ship.id:<8} {ship.vessel:<12} {ship.status.value:<8} hp {ship.health:>3}/{ship.max_health:<3}"
            f" spd {ship.speed} dmg {ship.damage} retests {ship.retests}{tied}"
        )
    lines += [f"  * {event.text()}" for event in events]
    return "\n".join(lines)

