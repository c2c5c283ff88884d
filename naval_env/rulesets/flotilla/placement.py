"""`flotilla`'s placement hooks (naval_env/core/hooks.py): where a ship stands and whether it is at the board's
edge, which the difficulty ladder's stall count reads (a round a ship neither moves nor hurts an enemy, a ship kept
pressed against the edge)."""

from __future__ import annotations

from naval_env.core.grid import on_edge
from naval_env.rulesets.flotilla.engine import FlotillaGame


def place(game: FlotillaGame, agent: str) -> tuple[float, ...]:
    """``agent``'s square and facing."""
    ship = game.state.ships[agent]
    return (ship.x, ship.y, ship.facing)


def at_board_edge(game: FlotillaGame, agent: str) -> bool:
    """Whether ``agent``'s bow square lies on the outermost ring of the square map (``map_size``)."""
    ship = game.state.ships[agent]
    size = game.rules.map_size
    return on_edge(ship.x, ship.y, (size, size))
