"""Text and image rendering of a `pursuit` battle (the image is ``picture.py``'s, drawn with Pillow)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from naval_env.core.events import Event

if TYPE_CHECKING:
    from naval_env.rulesets.pursuit.engine import PursuitGame

def render_ansi(game: PursuitGame, events: list[Event]) -> str:
    state = game.state
    todo = "(game over)" if state.ended else f"to act: {state.current} {state.phase.name}"
    lines = [f"round {state.round}  wind {state.wind_strength} toward {state.wind_toward:.0f} deg  {todo}"]
    ships = list(state.ships.values())
    for ship in ships:
        flags = "".join(f" {name}" for name, on in (("scuttled", ship.scuttled), ("aground", ship.grounded)) if on)
        guns = " ".join(("L" if m.loaded else "-") + ("!" if m.misfired else "") for m in ship.machines
                        if not m.destroyed)
        lines.append(
            f"  {ship.id:<7} {ship.ship_class:<9} {ship.status.value:<8} hp {ship.remaining:>3}/{ship.health:<3} "
            f"at ({ship.x:6.1f}, {ship.y:6.1f}) {ship.propulsion.value:<5} crew {ship.crew:>2} guns [{guns}]{flags}"
        )
    for i, a in enumerate(ships):
        for b in ships[i + 1:]:
            if a.side != b.side and a.status.fighting and b.status.fighting:
                lines.append(f"  {a.id} - {b.id}: {math.hypot(a.x - b.x, a.y - b.y):.1f} yards")
    lines += [f"  * {event.text()}" for event in events]
    return "\n".join(lines)

