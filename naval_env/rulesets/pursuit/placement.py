"""`pursuit`'s placement hook (naval_env/core/hooks.py): where a ship stands, which the difficulty ladder's stall
count reads (a round a ship neither moves nor hurts an enemy). The sea is an open plane: no edge to stand at."""

from __future__ import annotations

from naval_env.rulesets.pursuit.engine import PursuitGame


def place(game: PursuitGame, agent: str) -> tuple[float, ...]:
    """``agent``'s centre in yards."""
    ship = game.state.ships[agent]
    return (ship.x, ship.y)
