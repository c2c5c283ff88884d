"""The `pursuit` picture. Ships have no board and no facing here (circles on an open plane), so it
shows a sea plot in yards scaled to the ships (their last move as a tail, shoals, the yards between
enemies, aims and rams) over a range ladder: per pair of enemies, the yards between their centres
against each war machine's reach and the scenario's escape distance."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from naval_env.core.picture import Bar, Card, LegendItem, Panel, Wind, canvas, finish
from naval_env.core.scene import Circle, Point, Polygon, Rect, Scene, Text, line
from naval_env.core.sketch import (
    INK,
    MUTED,
    RAM_LINE,
    SEA,
    SIDE_EDGE,
    SIDE_FILL,
    TO_MOVE,
    Area,
    compass_degrees,
    cross,
    link,
    number_of,
    ram_lines,
    side_index,
)
from naval_env.rulesets.pursuit.machines import BETWEEN_HULLS, TO_HULL, reach_of

if TYPE_CHECKING:
    from naval_env.rulesets.pursuit.engine import PursuitGame

PLOT_W, PLOT_H = 600, 360
LADDER_ROW = 62
SHOAL, ROCKS = "#d9c89a", "#a8875a"
LEGEND = (
    LegendItem("ring", TO_MOVE, "to move"),
    LegendItem("line", MUTED, "last move"),
    LegendItem("line", INK, "yards apart"),
    LegendItem("line", RAM_LINE, "ram possible", dash=(7, 4)),
    LegendItem("swatch", SHOAL, "shoal"),
    LegendItem("line", MUTED, "escape distance", dash=(5, 4)),
    LegendItem("swatch", SIDE_FILL[0], "machine reach", opacity=0.45),
)


def picture(game: PursuitGame) -> Scene:
    pos = game.position()
    ships = pos["ships"]
    sides = tuple(game.sides)
    scenario = game.config.scenario(game.scenario_name)
    result = pos["result"]
    to_move = None if result else pos["to_move"]
    fighting = [s for s in ships if s["status"] == "afloat"]
    pairs = [(a, b) for i, a in enumerate(fighting) for b in fighting[i + 1:] if a["side"] != b["side"]][:4]
    rows = min(4, sum(1 for i, a in enumerate(ships) for b in ships[i + 1:] if a["side"] != b["side"]))
    ladder_h = 24 + LADDER_ROW * max(rows, 1)  # fixed for the game, so every frame has one size
    scene, area = canvas(PLOT_W, PLOT_H + 16 + ladder_h, len(ships), LEGEND)
    plot = Area(area.x, area.y, PLOT_W, PLOT_H)
    _sea_plot(scene, game, plot, pos, to_move, scenario)
    _ladder(scene, game, Area(area.x, area.y + PLOT_H + 16, PLOT_W, ladder_h), pairs, to_move, scenario)
    wind = pos["wind"]
    current = pos["current"]
    notes = [f"current toward {current['toward']}{' (fast)' if current['fast'] else ''}"] if current else []
    if scenario.escape is not None:
        notes.append(f"escape: {', '.join(scenario.escape.sides)} beyond {scenario.escape.distance:g} yd")
    panel = Panel(
        ruleset="pursuit", scenario=pos["scenario"], sides=sides, round=pos["round"], phase=f"{pos['phase']} phase",
        to_move=to_move, outcome=(result["winner"], result["reason"]) if result else None,
        wind=Wind(compass_degrees(wind["toward"]), f"{wind['strength']} wind toward {wind['toward']}"),
        cards=[_card(ship, sides) for ship in ships], legend=list(LEGEND), notes=notes,
    )
    return finish(scene, area, panel)


def _axis_numbers(scene: Scene, plot: Area, at: Any, xs: tuple[float, float], ys: tuple[float, float]) -> None:
    """Yards along the plot's top (x) and left edge (y, north up; its caption names the unit), so a ship's (x, y) in the log can be found
    on the plot; a round step (1, 2 or 5 times a power of ten) giving four to ten numbers a side."""
    span = max(xs[1] - xs[0], ys[1] - ys[0])
    step = next(m * 10 ** e for e in range(-1, 7) for m in (1, 2, 5) if m * 10 ** e >= span / 10)
    for value in range(math.ceil(xs[0] / step), math.floor(xs[1] / step) + 1):
        x = at(value * step, 0)[0]
        scene.add(Text(x=x, y=plot.y - 5, text=f"{value * step:g}", size=9, anchor="middle", fill=MUTED,
                       role="coordinate", ref=f"x{value * step:g}"))
    for value in range(math.ceil(ys[0] / step), math.floor(ys[1] / step) + 1):
        y = at(0, value * step)[1]
        scene.add(Text(x=plot.x - 3, y=y + 3, text=f"{value * step:g}", size=9, anchor="end", fill=MUTED,
                       role="coordinate", ref=f"y{value * step:g}"))


def _sea_plot(scene: Scene, game: PursuitGame, plot: Area, pos: dict[str, Any], to_move: str | None,
              scenario: Any) -> None:
    ships = pos["ships"]
    on_sea = [s for s in ships if s["status"] != "escaped"] or ships   # the sunk keep their last place
    xs, ys = [s["x"] for s in on_sea], [s["y"] for s in on_sea]
    span = max(60.0, (max(xs) - min(xs)) * PLOT_H / PLOT_W, max(ys) - min(ys)) * 1.35
    scale = PLOT_H / span
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2

    def at(x: float, y: float) -> Point:
        return plot.x + plot.w / 2 + (x - cx) * scale, plot.y + plot.h / 2 - (y - cy) * scale

    scene.add(Rect(x=plot.x, y=plot.y, w=plot.w, h=plot.h, fill=SEA, role="sea"))
    _axis_numbers(scene, plot, at, (cx - plot.w / 2 / scale, cx + plot.w / 2 / scale),
                  (cy - plot.h / 2 / scale, cy + plot.h / 2 / scale))
    for shoal in scenario.shoals:
        sx, sy = at(*shoal.center)
        scene.add(Circle(cx=sx, cy=sy, r=shoal.radius * scale, fill=ROCKS if shoal.rocks else SHOAL, opacity=0.8,
                         role="shoal"))
    by_id = {s["id"]: s for s in ships}
    radius = {s["id"]: game.config.ship_classes[s["ship_class"]].radius for s in ships}
    for a in ships:
        for b in ships:
            if a["id"] < b["id"] and a["side"] != b["side"] and a["status"] == b["status"] == "afloat":
                link(scene, at(a["x"], a["y"]), at(b["x"], b["y"]), colour=INK, role="distance",
                     ref=f"{a['id']}>{b['id']}", label=f"{_yards(a, b):.0f} yd")
    for ship in ships:
        for machine in ship["machines"]:
            target = by_id.get(machine["aim_target"] or "")
            if target is not None and ship["status"] == "afloat" and target["status"] == "afloat":
                side = side_index(game.sides, ship["side"])
                scene.add(line(at(ship["x"], ship["y"]), at(target["x"], target["y"]), stroke=SIDE_FILL[side],
                               width=1, dash=(2, 3), role="aim", ref=f"{ship['id']}>{target['id']}"))
    for ship in ships:
        px, py = at(ship["x"], ship["y"])
        if ship["status"] == "sunk":
            cross(scene, px, py, 7, ship["id"])
            continue
        if ship["status"] == "escaped":
            continue
        dx, dy = ship["motion"]
        if dx or dy:
            scene.add(line(at(ship["x"] - dx, ship["y"] - dy), (px, py), stroke=MUTED, width=2, role="wake",
                           ref=ship["id"]))
        side = side_index(game.sides, ship["side"])
        r = max(radius[ship["id"]] * scale, 8.0)
        if ship["id"] == to_move:
            scene.add(Circle(cx=px, cy=py, r=r + 5, stroke=TO_MOVE, width=3, role="to-move", ref=ship["id"]))
        scene.add(Circle(cx=px, cy=py, r=r, fill=SIDE_FILL[side], stroke=SIDE_EDGE[side], width=1.5,
                         opacity=1.0 if ship["status"] == "afloat" else 0.45, role="ship", ref=ship["id"]),
                  Text(x=px, y=py + 4, text=number_of(ship["id"]), size=11, anchor="middle", fill="#ffffff",
                       bold=True, role="ship-label", ref=ship["id"]))
    ram_lines(scene, game, to_move, lambda ship: at(by_id[ship]["x"], by_id[ship]["y"]))
    _scale_bar(scene, plot, scale)
    scene.add(Rect(x=plot.x, y=plot.y, w=plot.w, h=plot.h, stroke=MUTED, width=1.5, role="board-edge"),
              Text(x=plot.x + 6, y=plot.y + 14, text="sea plot (no board): yards, north up", size=10, fill=MUTED,
                   role="plot-title"))


def _scale_bar(scene: Scene, plot: Area, scale: float) -> None:
    yards = _nice(80 / scale)
    x0, y0 = plot.x + 12, plot.y + plot.h - 12
    scene.add(line((x0, y0), (x0 + yards * scale, y0), stroke=INK, width=2, role="scale", ref=f"{yards:g}"),
              Text(x=x0 + yards * scale + 5, y=y0 + 4, text=f"{yards:g} yd", size=10, fill=INK, role="scale"))


def _ladder(scene: Scene, game: PursuitGame, box: Area, pairs: list[tuple[dict[str, Any], dict[str, Any]]],
            to_move: str | None, scenario: Any) -> None:
    scene.add(Rect(x=box.x, y=box.y, w=box.w, h=box.h, fill="#ffffff", stroke=MUTED, width=1, role="ladder"),
              Text(x=box.x + 6, y=box.y + 14, text="range ladder: yards between centres, each war machine's reach",
                   size=10, fill=MUTED, role="ladder-title"))
    if not pairs:
        scene.add(Text(x=box.x + box.w / 2, y=box.y + 44, text="no enemies left fighting each other", size=12,
                       anchor="middle", fill=MUTED, role="ladder-empty"))
        return
    escape = scenario.escape.distance if scenario.escape is not None else 0.0
    reaches = {s["id"]: _reaches(game, s, t) for a, b in pairs for s, t in ((a, b), (b, a))}
    longest = max([_yards(a, b) for a, b in pairs] + [escape] + [far for r in reaches.values() for _, far in r])
    top = _nice(longest * 1.1 / 5) * 5
    left, right = box.x + 110, box.x + box.w - 20
    scale = (right - left) / top
    for row, (a, b) in enumerate(pairs):
        y = box.y + 40 + row * LADDER_ROW
        scene.add(Text(x=box.x + 6, y=y + 4, text=f"{a['id']} - {b['id']}", size=11, bold=True, fill=INK,
                       role="ladder-pair", ref=f"{a['id']}>{b['id']}"))
        for k, ship in enumerate((a, b)):
            side = side_index(game.sides, ship["side"])
            kinds = [m.kind for m in game.state.ships[ship["id"]].machines if not m.destroyed]
            for m, (near, far) in enumerate(reaches[ship["id"]]):
                by = y + 4 + 6 * m if k else y - 10 - 6 * m
                scene.add(Rect(x=left + near * scale, y=by, w=max((far - near) * scale, 1), h=3,
                               fill=SIDE_FILL[side], opacity=0.6, role="reach", ref=f"{ship['id']}.m{m}"),
                          Text(x=left + far * scale + 3, y=by + 4, text=kinds[m], size=8, fill=SIDE_EDGE[side],
                               role="reach-label", ref=f"{ship['id']}.m{m}"))
        scene.add(line((left, y), (right, y), stroke=MUTED, width=1, role="ladder-axis"))
        for tick in range(6):
            tx = left + tick * top / 5 * scale
            scene.add(line((tx, y - 3), (tx, y + 3), stroke=MUTED, width=1, role="ladder-tick"),
                      Text(x=tx, y=y + 36, text=f"{tick * top / 5:g}", size=9, anchor="middle", fill=MUTED,
                           role="ladder-tick"))
        if escape:
            ex = left + escape * scale
            scene.add(line((ex, y - 18), (ex, y + 16), stroke=MUTED, width=1.5, dash=(5, 4), role="escape-line"))
        d = _yards(a, b)
        mx = left + min(d, top) * scale
        scene.add(Polygon(points=((mx, y - 2), (mx - 5, y - 10), (mx + 5, y - 10)), fill=INK, role="ladder-mark",
                          ref=f"{a['id']}>{b['id']}"),
                  Text(x=mx, y=y + 26, text=f"{d:.0f} yd", size=10, anchor="middle", fill=INK, bold=True,
                       role="ladder-yards", ref=f"{a['id']}>{b['id']}"))
    scene.add(Text(x=box.x + box.w - 8, y=box.y + 14, text=f"to move: {to_move}" if to_move else "", size=10,
                   anchor="end", fill=MUTED, role="ladder-note"))


def _reaches(game: PursuitGame, ship: dict[str, Any], target: dict[str, Any]) -> list[tuple[float, float]]:
    """(nearest, farthest) centre distance at which each working war machine of ``ship`` reaches ``target``."""
    state_ship = game.state.ships[ship["id"]]
    ship_radius = game.config.ship_classes[ship["ship_class"]].radius
    target_radius = game.config.ship_classes[target["ship_class"]].radius
    found = []
    for machine in state_ship.machines:
        if machine.destroyed:
            continue
        reach = reach_of(game.config.war_machines[machine.kind], machine)
        far = reach.far + (target_radius if reach.gauge in (TO_HULL, BETWEEN_HULLS) else 0.0) + \
            (ship_radius if reach.gauge == BETWEEN_HULLS else 0.0)
        found.append((max(reach.near, 0.0), float(far)))
    return found


def _yards(a: dict[str, Any], b: dict[str, Any]) -> float:
    return math.hypot(a["x"] - b["x"], a["y"] - b["y"])


def _nice(value: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``value``."""
    power = 10 ** math.floor(math.log10(max(value, 1e-9)))
    return next(step * power for step in (1, 2, 5, 10) if step * power >= value)


def _card(ship: dict[str, Any], sides: tuple[str, ...]) -> Card:
    left = ship["health"] - ship["damage"]
    crew = ship["crew"]
    return Card(
        ship=ship["id"], side_index=side_index(sides, ship["side"]),
        title=f"{ship['ship_class']}, {ship['status']}{', aground' if ship['grounded'] else ''}",
        bars=(Bar("hull", left, ship["health"], f"{left}/{ship['health']}"),
              Bar("crew", crew["aboard"], crew["at_start"], f"{crew['aboard']}/{crew['at_start']}")),
        out=ship["status"] in ("sunk", "escaped"),
    )
