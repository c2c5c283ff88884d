"""The `pantheon` board picture: the square mat, ships with their facings, the Fire! range and
Ram! lines of the ship to move, ties between boarder and boarded, and the panel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from naval_env.core.picture import Bar, Card, LegendItem, Panel, Wind, finish, grid_canvas
from naval_env.core.scene import Scene
from naval_env.core.sketch import (
    GRAPPLE_LINE,
    RAM_LINE,
    RANGE_FILL,
    TO_MOVE,
    compass_degrees,
    link,
    ram_lines,
    side_index,
)

if TYPE_CHECKING:
    from naval_env.rulesets.pantheon.engine import PantheonGame

ON_BOARD = ("afloat", "wrecked", "sinking")
LEGEND = (
    LegendItem("bow", "", "bow (facing)"),
    LegendItem("outline", TO_MOVE, "to move"),
    LegendItem("swatch", RANGE_FILL, "Fire! range (to move)", opacity=0.4),
    LegendItem("line", RAM_LINE, "Ram! possible", dash=(7, 4)),
    LegendItem("line", GRAPPLE_LINE, "boarding tie"),
)


def picture(game: PantheonGame) -> Scene:
    pos = game.position()
    board = pos["board"]
    ships = pos["ships"]
    sides = tuple(game.sides)
    scene, grid = grid_canvas(board["width"], board["height"], len(ships), LEGEND)
    to_move = pos["to_move"] if pos["result"] is None else None
    by_id = {ship["id"]: ship for ship in ships}
    mover = by_id.get(to_move) if to_move else None
    if mover is not None:
        r = mover["fire_range"]
        grid.squares_within(scene, mover["x"] - r, mover["y"] - r, mover["x"] + r, mover["y"] + r,
                            role="fire-range", ref=mover["id"])
    for ship in ships:
        if ship["boarding"] and ship["status"] in ON_BOARD:
            link(scene, grid.centre(ship["x"], ship["y"]), grid.centre(by_id[ship["boarding"]]["x"],
                 by_id[ship["boarding"]]["y"]), colour=GRAPPLE_LINE, role="tie", ref=f"{ship['id']}>{ship['boarding']}")
    for ship in ships:
        if ship["status"] in ON_BOARD:
            grid.ship(scene, ship, side_index(sides, ship["side"]), to_move=ship["id"] == to_move)
        elif ship["status"] == "sunk":
            grid.wreck(scene, ship)
    ram_lines(scene, game, to_move, lambda ship: grid.centre(by_id[ship]["x"], by_id[ship]["y"]))
    result = pos["result"]
    panel = Panel(
        ruleset="pantheon", scenario=pos["scenario"], sides=sides, round=pos["round"], phase=f"{pos['phase']} step",
        to_move=to_move, outcome=(result["winner"], result["reason"]) if result else None,
        wind=Wind(compass_degrees(pos["wind"]), f"wind blows toward {pos['wind']}"),
        cards=[_card(game, ship, sides) for ship in ships], legend=list(LEGEND),
    )
    return finish(scene, grid.area, panel)


def _card(game: PantheonGame, ship: dict[str, Any], sides: tuple[str, ...]) -> Card:
    capacity = game.config.vessels[ship["vessel"]].pc_capacity
    health, most = ship["health"], ship["max_health"]
    return Card(
        ship=ship["id"], side_index=side_index(sides, ship["side"]), title=f"{ship['vessel']}, {ship['status']}",
        bars=(Bar("health", max(health, 0), most, f"{health}/{most}"),
              Bar("crew", ship["crew"], capacity, f"{ship['crew']}/{capacity} PCs")),
        out=ship["status"] in ("sunk", "escaped"),
    )
