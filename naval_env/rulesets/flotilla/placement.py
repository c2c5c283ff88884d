"""`flotilla`'s placement hooks (naval_env/core/hooks.py): a ship's bow square and facing, and whether it lies on
the outer ring of the square map (``map_size``), which the difficulty ladder's stall count reads."""

from __future__ import annotations

from naval_env.core.grid import on_edge
from naval_env.core.grid import square_place as place
from naval_env.rulesets.flotilla.engine import FlotillaGame

__all__ = ["at_board_edge", "place"]


def at_board_edge(game: FlotillaGame, agent: str) -> bool:
    ship = game.state.ships[agent]
    size = game.rules.map_size
    return on_edge(ship.x, ship.y, (size, size))
