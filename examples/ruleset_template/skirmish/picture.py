"""The `skirmish` board picture (its ``picture`` hook): the track as one row of cells, the boats on it facing
the enemy's end, the fire range of the boat to move, and the shared panel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from naval_env.core.picture import Bar, Card, LegendItem, Panel, Wind, finish, grid_canvas
from naval_env.core.scene import Scene
from naval_env.core.sketch import RANGE_FILL, TO_MOVE, side_index

if TYPE_CHECKING:
    from .engine import SkirmishGame

LEGEND = (
    LegendItem("bow", "", "bow (ahead)"),
    LegendItem("outline", TO_MOVE, "to move"),
    LegendItem("swatch", RANGE_FILL, "fire range (to move)", opacity=0.4),
)


def picture(game: SkirmishGame) -> Scene:
    state = game.state
    sides = tuple(game.sides)
    scene, grid = grid_canvas(state.track_length, 1, len(state.ships), LEGEND)
    to_move = game.current_agent
    if to_move is not None:
        mover, reach = state.ships[to_move], game.rules.fire_range
        grid.squares_within(scene, mover.cell - reach, 0, mover.cell + reach, 0, role="fire-range", ref=mover.id)
    for boat in state.ships.values():
        drawn = {"id": boat.id, "x": boat.cell, "y": 0, "facing": "E" if boat.ahead > 0 else "W",
                 "status": boat.status.value}
        if boat.status.fighting:
            grid.ship(scene, drawn, side_index(sides, boat.side), to_move=boat.id == to_move)
        else:
            grid.wreck(scene, drawn)
    panel = Panel(
        ruleset="skirmish", scenario=game.scenario_name, sides=sides, round=state.round, phase="orders",
        to_move=to_move, outcome=(state.winner, state.end_reason) if state.ended else None,
        wind=Wind(None, "no wind in a skirmish"),
        cards=[Card(ship=b.id, side_index=side_index(sides, b.side), title=f"boat, {b.status.value}",
                    bars=(Bar("hull", b.hull, b.max_hull, f"{b.hull}/{b.max_hull}"),), out=not b.status.fighting)
               for b in state.ships.values()],
        legend=list(LEGEND),
    )
    return finish(scene, grid.area, panel)
