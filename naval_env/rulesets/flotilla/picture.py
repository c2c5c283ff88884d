"""The `flotilla` board picture: the 15 x 15 map, each ship's footprint (bow first) with its facing,
the gun range of the ship to move, the attack being answered, rams, grapples and the panel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from naval_env.core.picture import Bar, Card, LegendItem, Panel, Wind, finish, grid_canvas
from naval_env.core.scene import Rect, Scene
from naval_env.core.sketch import (
    GRAPPLE_LINE,
    RAM_LINE,
    RANGE_FILL,
    TO_MOVE,
    Grid,
    compass_degrees,
    cross,
    link,
    ram_lines,
    ship_glyph,
    side_index,
)
from naval_env.rulesets.flotilla.geometry import footprint

if TYPE_CHECKING:
    from naval_env.rulesets.flotilla.engine import FlotillaGame

ATTACK_LINE = "#8a1c7c"
PHASES = {"deploy": "deployment", "move": "movement phase", "attack": "attack phase",
          "reaction": "defender's answer"}
LEGEND = (
    LegendItem("bow", "", "bow (facing)"),
    LegendItem("outline", TO_MOVE, "to move"),
    LegendItem("swatch", RANGE_FILL, "gun range (to move)", opacity=0.4),
    LegendItem("swatch", "#8796a8", "footprint squares", opacity=0.5),
    LegendItem("line", RAM_LINE, "ram possible", dash=(7, 4)),
    LegendItem("line", ATTACK_LINE, "attack to answer"),
    LegendItem("line", GRAPPLE_LINE, "grapple"),
)


def picture(game: FlotillaGame) -> Scene:
    pos = game.position()
    size = pos["map_size"]
    ships = pos["ships"]
    sides = tuple(game.sides)
    scene, grid = grid_canvas(size, size, len(ships), LEGEND)
    result = pos["result"]
    to_move = None if result else pos["to_move"]
    by_id = {ship["id"]: ship for ship in ships}
    squares = {ship["id"]: _squares(ship) for ship in ships}
    mover = by_id.get(to_move) if to_move else None
    if mover is not None and pos["phase"] in ("move", "attack"):
        _range(scene, grid, squares[mover["id"]], mover["range"], mover["id"])
    for ship in ships:
        if ship["status"] == "afloat":
            for x, y in squares[ship["id"]]:
                scene.add(Rect(x=grid.area.x + x * grid.cell + 2, y=grid.area.y + y * grid.cell + 2,
                               w=grid.cell - 4, h=grid.cell - 4, fill="#8796a8", opacity=0.45,
                               role="footprint", ref=ship["id"]))
    for ship in ships:
        other = ship["grappled_with"]
        if other and ship["id"] < other and ship["status"] == "afloat":
            link(scene, grid.centre(*squares[ship["id"]][0]), grid.centre(*squares[other][0]),
                 colour=GRAPPLE_LINE, role="grapple", ref=f"{ship['id']}>{other}")
    for ship in ships:
        bow, stern = grid.centre(*squares[ship["id"]][0]), grid.centre(*squares[ship["id"]][-1])
        cx, cy = (bow[0] + stern[0]) / 2, (bow[1] + stern[1]) / 2
        if ship["status"] != "afloat":
            cross(scene, cx, cy, grid.cell * 0.3, ship["id"])
            continue
        span = ((bow[0] - stern[0]) ** 2 + (bow[1] - stern[1]) ** 2) ** 0.5
        ship_glyph(scene, ship["id"], side_index(sides, ship["side"]), cx, cy, compass_degrees(ship["facing"]),
                   span + grid.ship_size()[0] * 0.95, grid.ship_size()[1], to_move=ship["id"] == to_move)
    pending = pos["pending"]
    if pending and not result:
        link(scene, grid.centre(*squares[pending["attacker"]][0]), grid.centre(*squares[pending["target"]][0]),
             colour=ATTACK_LINE, role="attack-line", ref=f"{pending['attacker']}>{pending['target']}", head=True,
             label=pending["unit"])
    ram_lines(scene, game, to_move, lambda ship: grid.centre(*squares[ship][0]))
    wind = pos["wind"]
    panel = Panel(
        ruleset="flotilla", scenario=pos["scenario"], sides=sides, round=pos["round"],
        phase=PHASES[pos["phase"]], to_move=to_move,
        outcome=(result["winner"], result["reason"]) if result else None,
        wind=Wind(None, "calm") if wind == "calm" else Wind(compass_degrees(wind), f"wind blows toward {wind}"),
        cards=[_card(ship, sides) for ship in ships], legend=list(LEGEND),
        notes=[f"attacker: {pos['attacker']}"] if pos.get("attacker") else [],
    )
    return finish(scene, grid.area, panel)


def _squares(ship: dict[str, Any]) -> tuple[tuple[int, int], ...]:
    return footprint(ship["x"], ship["y"], int(compass_degrees(ship["facing"]) // 45), ship["size"])


def _range(scene: Scene, grid: Grid, squares: tuple[tuple[int, int], ...], reach: int, ref: str) -> None:
    """Shade every square within ``reach`` (grid distance to the nearest footprint square), one rectangle
    per run of squares in a row."""
    for y in range(grid.height):
        run: list[int] = []
        for x in range(grid.width + 1):
            inside = x < grid.width and min(max(abs(x - sx), abs(y - sy)) for sx, sy in squares) <= reach
            if inside:
                run.append(x)
            elif run:
                scene.add(Rect(x=grid.area.x + run[0] * grid.cell, y=grid.area.y + y * grid.cell,
                               w=len(run) * grid.cell, h=grid.cell, fill=RANGE_FILL, opacity=0.2,
                               role="gun-range", ref=ref))
                run = []


def _card(ship: dict[str, Any], sides: tuple[str, ...]) -> Card:
    steering, hits = ship["steering"], ship["crew_hits"]
    steer = f"{steering}d6-{hits}" if ship["captain_alive"] else "captain dead"
    return Card(
        ship=ship["id"], side_index=side_index(sides, ship["side"]),
        title=f"{ship['ship_class']}, {ship['status']}",
        bars=(Bar("cohesion", ship["cohesion"], ship["max_cohesion"], f"{ship['cohesion']}/{ship['max_cohesion']}"),
              Bar("steering", max(steering - hits, 0), steering, steer)),
        out=ship["status"] != "afloat",
    )
