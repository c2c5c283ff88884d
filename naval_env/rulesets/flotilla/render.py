"""Text and image rendering of a `flotilla` battle (the image is ``picture.py``'s, drawn with Pillow)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from naval_env.core.events import Event
from naval_env.core.grid_render import ARROWS, ship_number

if TYPE_CHECKING:
    from naval_env.rulesets.flotilla.engine import FlotillaGame


def render_ansi(game: FlotillaGame, events: list[Event]) -> str:
    from naval_env.rulesets.flotilla.engine import wind_name

    state = game.state
    grid = [[" ." for _ in range(state.width)] for _ in range(state.height)]
    for ship in state.ships.values():
        if not ship.afloat:
            continue
        mark = ship.side[0].upper()
        for i, (x, y) in enumerate(ship.squares):
            grid[y][x] = f"{mark}{ARROWS[ship.facing]}" if i == 0 else f"{mark.lower()}{ship_number(ship.id)}"
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

