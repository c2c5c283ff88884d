"""`broadside`'s placement hooks (naval_env/core/hooks.py): where a ship stands and whether it is at the table's
edge (about to sail off it and flee), which the difficulty ladder's stall count reads (a round a ship neither moves
nor hurts an enemy, a ship kept pressed against the edge)."""

from __future__ import annotations

from naval_env.rulesets.broadside.engine import BroadsideGame

#: Inches between the circle around a hull and the table's edge within which the ship counts as at the edge.
EDGE_MARGIN = 1.0


def place(game: BroadsideGame, agent: str) -> tuple[float, ...]:
    """``agent``'s hull centre (inches) and heading (degrees)."""
    shape = game.state.ships[agent].shape
    return (shape.x, shape.y, shape.heading)


def at_board_edge(game: BroadsideGame, agent: str) -> bool:
    """Whether the circle around ``agent``'s hull comes within :data:`EDGE_MARGIN` of the table's edge."""
    width, height = game.scenario.board
    return not game.state.ships[agent].shape.clear_of_edges(width, height, EDGE_MARGIN)
