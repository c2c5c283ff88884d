"""The `crew_phase` board picture: the square grid, ships with their facings, the weapon arcs of the
ship to move (normal range shaded, long range dashed), grapples, Ram lines and the panel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from naval_env.core.grid import STEP
from naval_env.core.picture import Bar, Card, LegendItem, Panel, Wind, finish, grid_canvas
from naval_env.core.scene import Point, Polygon, Scene
from naval_env.core.sketch import (
    GRAPPLE_LINE,
    RAM_LINE,
    RANGE_FILL,
    TO_MOVE,
    Grid,
    clip,
    compass_degrees,
    link,
    ram_lines,
    side_index,
)

if TYPE_CHECKING:
    from naval_env.rulesets.crew_phase.engine import CrewPhaseGame

#: Compass points from the bow to the middle of each arc.
ARC_TURN = {"bow": 0, "starboard": 2, "stern": 4, "port": 6}
PHASES = {"crew": "Character Phase", "move": "Ship Phase, move", "attack": "Ship Phase, attack"}
LEGEND = (
    LegendItem("bow", "", "bow (facing)"),
    LegendItem("outline", TO_MOVE, "to move"),
    LegendItem("swatch", RANGE_FILL, "arc to range (to move)", opacity=0.4),
    LegendItem("line", "#b88a00", "long range", dash=(6, 4)),
    LegendItem("line", RAM_LINE, "ram possible", dash=(7, 4)),
    LegendItem("line", GRAPPLE_LINE, "grapple"),
)


def picture(game: CrewPhaseGame) -> Scene:
    pos = game.position()
    width, height = pos["board"]
    ships = pos["ships"]
    sides = tuple(game.sides)
    scene, grid = grid_canvas(width, height, len(ships), LEGEND)
    over = pos["ended"]
    to_move = None if over else pos["to_move"]
    by_id = {ship["id"]: ship for ship in ships}
    feet = game.config.house_rules.square_feet
    mover = by_id.get(to_move) if to_move else None
    if mover is not None and mover["status"] == "afloat":
        for slot, weapon in enumerate(mover["weapons"]):
            if weapon["hp"] > 0 and weapon["ammo"] > 0:
                _arc(scene, grid, mover, weapon, slot, feet)
    for grapple in pos["grapples"]:
        a, b = by_id[grapple["holder"]], by_id[grapple["held"]]
        link(scene, grid.centre(a["x"], a["y"]), grid.centre(b["x"], b["y"]), colour=GRAPPLE_LINE, role="grapple",
             ref=f"{a['id']}>{b['id']}")
    for ship in ships:
        if ship["status"] == "sunk":
            grid.wreck(scene, ship)
        else:
            grid.ship(scene, ship, side_index(sides, ship["side"]), to_move=ship["id"] == to_move)
    ram_lines(scene, game, to_move, lambda ship: grid.centre(by_id[ship]["x"], by_id[ship]["y"]))
    panel = Panel(
        ruleset="crew_phase", scenario=pos["scenario"], sides=sides, round=pos["round"], phase=PHASES[pos["phase"]],
        to_move=to_move, outcome=(pos["winner"], pos["end_reason"]) if over else None,
        wind=Wind(None, f"{pos['weather']} weather" + (": the helm needs a check" if pos["weather"] == "rough" else "")),
        cards=[_card(ship, sides) for ship in ships], legend=list(LEGEND),
    )
    return finish(scene, grid.area, panel)


def _arc(scene: Scene, grid: Grid, ship: dict[str, Any], weapon: dict[str, Any], slot: int, feet: int) -> None:
    """The squares a weapon reaches: its 90-degree arc (or all round) out to its range, in grid distance."""
    ref = f"{ship['id']}.w{slot}"
    for reach, long in ((weapon["range"] / feet, False), (weapon["long_range"] / feet, True)):
        points = clip(_arc_points(grid, ship, weapon["arc"], reach + 0.5), grid.area)
        if long:
            scene.add(Polygon(points=points, stroke="#b88a00", width=1.5, dash=(6, 4), role="long-range", ref=ref))
        else:
            scene.add(Polygon(points=points, fill=RANGE_FILL, opacity=0.2, stroke="#b88a00", width=1,
                              role="weapon-arc", ref=ref))


def _arc_points(grid: Grid, ship: dict[str, Any], arc: str, reach: float) -> tuple[Point, ...]:
    """An arc on the grid: a triangle toward a side (facing N, E, S or W) or a quarter square toward a corner
    (facing NE, ...), as ``arcs.in_arc`` reads bearings; all round: the square of that grid distance."""
    cx, cy = grid.centre(ship["x"], ship["y"])
    c = grid.cell * reach
    if arc == "all":
        return (cx - c, cy - c), (cx + c, cy - c), (cx + c, cy + c), (cx - c, cy + c)
    facing = (int(compass_degrees(ship["facing"]) // 45) + ARC_TURN[arc]) % 8
    fx, fy = STEP[facing]
    rx, ry = STEP[(facing + 2) % 8]
    if facing % 2 == 0:
        return (cx, cy), (cx + c * (fx + rx), cy + c * (fy + ry)), (cx + c * (fx - rx), cy + c * (fy - ry))
    return ((cx, cy), (cx + c * (fx + rx) / 2, cy + c * (fy + ry) / 2), (cx + c * fx, cy + c * fy),
            (cx + c * (fx - rx) / 2, cy + c * (fy - ry) / 2))


def _card(ship: dict[str, Any], sides: tuple[str, ...]) -> Card:
    crew = ship["crew"]
    hp, most = sum(c["hp"] for c in crew), sum(c["max_hp"] for c in crew)
    standing = sum(1 for c in crew if c["hp"] > 0)
    return Card(
        ship=ship["id"], side_index=side_index(sides, ship["side"]), title=f"{ship['vessel']}, {ship['status']}",
        bars=(Bar("hull", max(ship["hull"], 0), ship["max_hull"], f"{ship['hull']}/{ship['max_hull']}"),
              Bar("crew", hp, most, f"{standing}/{len(crew)} up, {hp}/{most} hp")),
        out=ship["status"] == "sunk",
    )
