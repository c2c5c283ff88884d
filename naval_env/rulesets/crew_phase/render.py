"""Text and image rendering of a `crew_phase` battle (the image is ``picture.py``'s, drawn with Pillow)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from naval_env.core.events import Event
from naval_env.core.grid_render import ARROWS, ship_number
from naval_env.rulesets.crew_phase.state import Status

if TYPE_CHECKING:
    from naval_env.rulesets.crew_phase.engine import CrewPhaseGame


def render_ansi(game: CrewPhaseGame, events: list[Event]) -> str:
    state = game.state
    grid = [["  ." for _ in range(state.width)] for _ in range(state.height)]
    for ship in state.ships.values():
        if ship.status is not Status.SUNK:
            mark = ship.side[0].upper() if ship.status is Status.AFLOAT else "~"
            grid[ship.y][ship.x] = f"{mark}{ship_number(ship.id)}{ARROWS[ship.facing]}"
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

