"""Text rendering of a `skirmish` battle (its ``render_ansi`` hook): the track in one line, then each boat."""

from __future__ import annotations

from typing import TYPE_CHECKING

from naval_env.core.events import Event

if TYPE_CHECKING:
    from .engine import SkirmishGame


def render_ansi(game: SkirmishGame, events: list[Event]) -> str:
    state = game.state
    track = [" . "] * state.track_length
    for boat in state.ships.values():
        if boat.status.fighting:
            arrow = ">" if boat.ahead > 0 else "<"
            track[boat.cell] = f"{boat.side[0].upper()}{boat.id.rsplit('_', 1)[1]}{arrow}"
    to_act = "(game over)" if state.ended else f"to act: {state.current}"
    lines = [f"round {state.round}  {to_act}", "".join(track)]
    lines += [f"  {b.id:<8} cell {b.cell:>2}  hull {b.hull}/{b.max_hull}  {b.status.value}"
              for b in state.ships.values()]
    lines += [f"  * {event.text()}" for event in events]
    return "\n".join(lines)
