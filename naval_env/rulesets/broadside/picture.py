"""The `broadside` table picture, in inches: hulls to scale with their headings, icebergs, the
arcs of the ship to move (broadsides between the perpendiculars from bow and stern, the turret
all round but its dead zone, each out to the cannon's reach; archers' reach dashed), grapples,
the collision being resolved and the panel."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from naval_env.core.picture import Bar, Card, LegendItem, Panel, Wind, canvas, finish
from naval_env.core.scene import Circle, Point, Polygon, Rect, Scene, Text, line
from naval_env.core.sketch import (
    BOARD,
    GRAPPLE_LINE,
    MARGIN,
    RAM_LINE,
    RANGE_FILL,
    SEA,
    TO_MOVE,
    Area,
    clip,
    cross,
    link,
    ship_glyph,
    side_index,
    wedge,
)
from naval_env.rulesets.broadside.config import PEOPLE
from naval_env.rulesets.broadside.geometry import Hull

if TYPE_CHECKING:
    from naval_env.rulesets.broadside.engine import BroadsideGame

ICE = "#f4fbff"
ARCHERS = "#3d7a3d"
LEGEND = (
    LegendItem("bow", "", "bow (heading)"),
    LegendItem("outline", TO_MOVE, "to move"),
    LegendItem("swatch", RANGE_FILL, "gun arcs (to move)", opacity=0.4),
    LegendItem("line", ARCHERS, "archers' reach", dash=(4, 4)),
    LegendItem("line", RAM_LINE, "collision", dash=(7, 4)),
    LegendItem("line", GRAPPLE_LINE, "grapple"),
    LegendItem("swatch", ICE, "iceberg"),
)


class Table:
    """Inches on the table (x east, y north) -> pixels (y down)."""

    def __init__(self, width: float, height: float) -> None:
        self.scale = BOARD / max(width, height)
        self.width, self.height = width, height
        self.area = Area(MARGIN, MARGIN, width * self.scale, height * self.scale)

    def at(self, x: float, y: float) -> Point:
        return self.area.x + x * self.scale, self.area.y + (self.height - y) * self.scale

    def hull(self, hull: Hull) -> tuple[Point, ...]:
        return tuple(self.at(x, y) for x, y in hull.corners())


def picture(game: BroadsideGame) -> Scene:
    pos = game.position()
    table = Table(*pos["board"])
    ships = pos["ships"]
    sides = tuple(game.sides)
    rules = game.rules
    scene, area = canvas(table.area.w, table.area.h, len(ships), LEGEND)
    scene.add(Rect(x=area.x, y=area.y, w=area.w, h=area.h, fill=SEA, role="sea"))
    _inch_marks(scene, table)
    for berg in pos["icebergs"]:
        hull = Hull(berg["x"], berg["y"], berg["heading"], berg["length"], berg["beam"])
        scene.add(Polygon(points=table.hull(hull), fill=ICE, stroke="#8fb3c9", width=1.5, role="iceberg"))
    over = pos["ended"]
    to_move = None if over else pos["to_move"]
    by_id = {ship["id"]: ship for ship in ships}
    hulls = {ship["id"]: _hull(game, ship) for ship in ships}
    mover = by_id.get(to_move) if to_move else None
    if mover is not None and mover["status"] == "afloat":
        hull = hulls[mover["id"]]
        for battery in ("port", "starboard", "turret"):
            if mover["guns"][battery]:
                points = _battery_arc(hull, battery, rules.cannon_die, rules.turret_dead_zone)
                scene.add(Polygon(points=clip(tuple(table.at(x, y) for x, y in points), area), fill=RANGE_FILL,
                                  opacity=0.22, stroke="#b88a00", width=1, role="gun-arc",
                                  ref=f"{mover['id']}.{battery}"))
        if mover["archers"] and not mover["archers_fired"]:
            cx, cy = table.at(hull.x, hull.y)
            reach = (rules.archer_die - rules.archer_bonus) * table.scale
            scene.add(Circle(cx=cx, cy=cy, r=reach, stroke=ARCHERS, width=1.5, dash=(4, 4), role="archer-reach",
                             ref=mover["id"]))
    drawn: set[frozenset[str]] = set()
    for ship in ships:
        for other in ship["grappled"]:
            pair = frozenset((ship["id"], other))
            if pair not in drawn and other in by_id:
                drawn.add(pair)
                link(scene, table.at(ship["x"], ship["y"]), table.at(by_id[other]["x"], by_id[other]["y"]),
                     colour=GRAPPLE_LINE, role="grapple", ref=f"{ship['id']}>{other}")
    for ship in ships:
        cx, cy = table.at(ship["x"], ship["y"])
        if ship["status"] == "sunk":
            cross(scene, cx, cy, 8, ship["id"])
        elif ship["status"] != "fled":
            hull = hulls[ship["id"]]
            ship_glyph(scene, ship["id"], side_index(sides, ship["side"]), cx, cy, ship["heading"],
                       hull.length * table.scale, hull.beam * table.scale, to_move=ship["id"] == to_move,
                       faded=ship["status"] == "prize")
    collision = pos["collision"]
    if collision and not over:
        a, b = by_id[collision["activated"]], by_id[collision["struck"]]
        link(scene, table.at(a["x"], a["y"]), table.at(b["x"], b["y"]), colour=RAM_LINE, role="collision",
             ref=f"{a['id']}>{b['id']}", dash=(7, 4), head=True, label="collision")
    panel = Panel(
        ruleset="broadside", scenario=pos["scenario"], sides=sides, round=pos["round"],
        phase=_phase(pos["stage"], pos["phase"]), to_move=to_move,
        outcome=(pos["winner"], pos["end_reason"]) if over else None,
        wind=Wind(pos["wind"], f"wind blows toward {pos['wind']:.0f}\u00b0"),
        cards=[_card(game, ship, sides) for ship in ships], legend=list(LEGEND),
        notes=[f"table {table.width:g} x {table.height:g} inches"],
    )
    return finish(scene, area, panel)


def _phase(stage: str, phase: str) -> str:
    """The panel's stage and phase, once when they are the same word ("boarding", not "boarding, boarding")."""
    stage, phase = stage.replace("_", " "), phase.replace("_", " ")
    return stage if stage == phase else f"{stage}, {phase}"


def _hull(game: BroadsideGame, ship: dict[str, Any]) -> Hull:
    vessel = game.config.vessels[ship["vessel"]]
    return Hull(ship["x"], ship["y"], ship["heading"], vessel.length, vessel.beam)


def _inch_marks(scene: Scene, table: Table) -> None:
    """A faint line every 6 inches, labelled along the south and west edges."""
    for x in range(6, int(table.width), 6):
        scene.add(line(table.at(x, 0), table.at(x, table.height), stroke="#b7cfe1", width=1, role="grid"))
        px, py = table.at(x, 0)
        scene.add(Text(x=px, y=py - 3, text=f"{x}in", size=9, anchor="middle", fill="#6f8aa0", role="grid"))
    for y in range(6, int(table.height), 6):
        scene.add(line(table.at(0, y), table.at(table.width, y), stroke="#b7cfe1", width=1, role="grid"))
        px, py = table.at(0, y)
        scene.add(Text(x=px + 3, y=py - 3, text=f"{y}in", size=9, fill="#6f8aa0", role="grid"))
    a = table.area
    scene.add(Rect(x=a.x, y=a.y, w=a.w, h=a.h, stroke="#6b7785", width=1.5, role="board-edge"))


def _battery_arc(hull: Hull, battery: str, reach: float, dead_zone: float) -> list[Point]:
    """Table points of a battery's field of fire out to ``reach`` inches (as ``geometry.in_arc`` reads it)."""
    if battery == "turret":
        # a pie slice in the table's own frame (y north): wedge() works in screen axes, so flip y back
        points = wedge(hull.x, -hull.y, hull.heading + 180, 180 - dead_zone / 2, reach, steps=36)
        return [(x, -y) for x, y in points]
    side = 1.0 if battery == "starboard" else -1.0
    half = hull.length / 2
    outer = math.sqrt(max(reach**2 - half**2, 0.0))
    local = [(-half, 0.0), (half, 0.0)]
    start = math.atan2(outer, half)
    for k in range(13):  # the reach's circle round the battery, from abreast the bow to abreast the stern
        angle = start + (math.pi - 2 * start) * k / 12
        local.append((reach * math.cos(angle), reach * math.sin(angle)))
    return [hull.to_world(along, side * (hull.beam / 2 + across)) for along, across in local]


def _card(game: BroadsideGame, ship: dict[str, Any], sides: tuple[str, ...]) -> Card:
    aboard = sum(ship[who] for who in PEOPLE)
    full = max(_complement(game, ship), aboard)
    return Card(
        ship=ship["id"], side_index=side_index(sides, ship["side"]), title=f"{ship['vessel']}, {ship['status']}",
        bars=(Bar("hull", ship["hull"], ship["max_hull"], f"{ship['hull']}/{ship['max_hull']}"),
              Bar("people", aboard, full, f"{aboard}/{full} aboard")),
        out=ship["status"] != "afloat",
    )


def _complement(game: BroadsideGame, ship: dict[str, Any]) -> int:
    """People the scenario put aboard this ship id (the vessel's complement where its set-up gives none)."""
    vessel = game.config.vessels[ship["vessel"]]
    setups = {side.name: side.ships for side in game.config.scenario(game.scenario_name).sides}
    index = int(ship["id"].rsplit("_", 1)[1])
    side_ships = setups.get(ship["side"], [])
    setup = side_ships[index] if index < len(side_ships) and side_ships[index].vessel == ship["vessel"] else None
    return sum(getattr(setup, who) if setup is not None and getattr(setup, who) is not None
               else getattr(vessel.complement, who) for who in PEOPLE)
