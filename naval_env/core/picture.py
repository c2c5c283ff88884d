"""The board picture every ruleset paints: its board on the left, a panel on the right.

The panel is the same in every ruleset: ruleset and scenario, round, phase and whose
decision it is (or the result), the wind, one card per ship with its bars (hull, crew,
... in the ruleset's words) and a legend. Each ruleset's ``picture.py`` fills a
:class:`Panel`, paints its board inside :func:`canvas`'s board area and calls
:func:`finish`. :func:`picture_of` finds the ruleset's painter for a game, and
:func:`picture_of_position` paints a position (JSON) without a game in hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Any

from naval_env.core.scene import Circle, Point, Polygon, Rect, Scene, Segments, Text, line

if TYPE_CHECKING:
    from naval_env.core.game import Game

#: Side colours (first side, second side) and a darker edge for each.
SIDE_FILL = ("#c83232", "#2f5fc8")
SIDE_EDGE = ("#7a1414", "#142f6e")
SEA, GRID_LINE, INK, MUTED, PAPER = "#cfe3f1", "#a3c2da", "#1d2733", "#6b7785", "#f6f4ef"
TO_MOVE = "#f2b705"          # ring round the ship whose decision it is
RANGE_FILL = "#f2b705"       # fire range / arcs of the ship to move
RAM_LINE = "#d2331f"
GRAPPLE_LINE = "#5b3a1a"

BOARD = 600                  # pixels of the board area's longer side
MARGIN = 20
PANEL_W = 330
BAR_W = 150                  # a bar's full width: the fill is BAR_W * value / maximum
CARD_H = 50
HEADER_H = 150
LEGEND_ROW = 18


@dataclass(frozen=True)
class Bar:
    """One bar of a ship card: ``value`` out of ``maximum`` (clamped to 0..1 when drawn)."""

    name: str            # "hull", "crew", "cohesion", ...
    value: float
    maximum: float
    text: str            # the numbers as the rules say them, e.g. "12/12" or "3d6-1"

    @property
    def fraction(self) -> float:
        return 0.0 if self.maximum <= 0 else min(1.0, max(0.0, self.value / self.maximum))


@dataclass(frozen=True)
class Card:
    ship: str
    side_index: int
    title: str           # vessel and status, e.g. "trireme, afloat"
    bars: tuple[Bar, ...]
    out: bool = False    # sunk, escaped, ...: drawn faded


@dataclass(frozen=True)
class Wind:
    """Where the wind blows toward, in compass degrees; None when there is no direction (calm)."""

    toward: float | None
    text: str


@dataclass(frozen=True)
class LegendItem:
    kind: str            # "swatch", "line", "ring", "outline", "bow"
    colour: str
    label: str
    dash: tuple[float, float] | None = None
    opacity: float = 1.0


@dataclass
class Panel:
    ruleset: str
    scenario: str
    sides: tuple[str, ...]
    round: int
    phase: str
    to_move: str | None
    result: str | None                 # "red wins (last side fighting)"; None while playing
    wind: Wind
    cards: list[Card] = field(default_factory=list)
    legend: list[LegendItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # extra header lines (weather, current, ...)


@dataclass(frozen=True)
class Area:
    """The board area of a canvas, in pixels."""

    x: float
    y: float
    w: float
    h: float


def canvas(board_w: float, board_h: float, ships: int, legend_rows: int) -> tuple[Scene, Area]:
    """An empty picture with a board area of ``board_w`` x ``board_h`` pixels and room for the panel.

    Width and height are multiples of 16, so video encoders take the frames as they are.
    """
    panel_h = HEADER_H + ships * CARD_H + 30 + legend_rows * LEGEND_ROW + MARGIN
    width = _up16(MARGIN + board_w + MARGIN + PANEL_W)
    height = _up16(max(board_h + 2 * MARGIN, panel_h))
    return Scene(width, height, background=PAPER), Area(MARGIN, MARGIN, board_w, board_h)


def _up16(value: float) -> int:
    return int(math.ceil(value / 16) * 16)


def side_index(sides: tuple[str, ...], side: str) -> int:
    return sides.index(side) % 2 if side in sides else 0


def side_of_id(ship_id: str) -> str:
    return ship_id.rsplit("_", 1)[0]


def number_of(ship_id: str) -> str:
    return ship_id.rsplit("_", 1)[-1]


def forward(heading: float) -> Point:
    """Screen vector (y down) of a compass heading in degrees."""
    radians = math.radians(heading)
    return math.sin(radians), -math.cos(radians)


def hull_outline(cx: float, cy: float, heading: float, length: float, beam: float) -> tuple[Point, ...]:
    """A ship's outline on screen: a box with a pointed bow, ``length`` along ``heading``."""
    fx, fy = forward(heading)
    rx, ry = -fy, fx                     # to starboard
    half, side = length / 2, beam / 2
    shoulder = half - min(beam * 0.9, length * 0.4)

    def at(along: float, across: float) -> Point:
        return cx + along * fx + across * rx, cy + along * fy + across * ry

    return (at(half, 0), at(shoulder, side), at(-half, side), at(-half, -side), at(shoulder, -side))


def wedge(cx: float, cy: float, heading: float, half_angle: float, radius: float, steps: int = 18
          ) -> tuple[Point, ...]:
    """A pie slice centred on ``heading`` (compass degrees), ``half_angle`` each way."""
    points = [(cx, cy)]
    for k in range(steps + 1):
        angle = heading - half_angle + 2 * half_angle * k / steps
        fx, fy = forward(angle)
        points.append((cx + radius * fx, cy + radius * fy))
    return tuple(points)


def clip(points: tuple[Point, ...], area: Area) -> tuple[Point, ...]:
    """A convex or concave polygon cut to the area's rectangle (Sutherland-Hodgman), so ranges stay on the board."""
    edges = (
        (lambda p: p[0] >= area.x, lambda p, q: _cross_x(p, q, area.x)),
        (lambda p: p[0] <= area.x + area.w, lambda p, q: _cross_x(p, q, area.x + area.w)),
        (lambda p: p[1] >= area.y, lambda p, q: _cross_y(p, q, area.y)),
        (lambda p: p[1] <= area.y + area.h, lambda p, q: _cross_y(p, q, area.y + area.h)),
    )
    out = list(points)
    for inside, crossing in edges:
        if not out:
            break
        given, out = out, []
        for k, current in enumerate(given):
            previous = given[k - 1]
            if inside(current):
                if not inside(previous):
                    out.append(crossing(previous, current))
                out.append(current)
            elif inside(previous):
                out.append(crossing(previous, current))
    return tuple(out)


def _cross_x(p: Point, q: Point, x: float) -> Point:
    t = (x - p[0]) / (q[0] - p[0])
    return x, p[1] + t * (q[1] - p[1])


def _cross_y(p: Point, q: Point, y: float) -> Point:
    t = (y - p[1]) / (q[1] - p[1])
    return p[0] + t * (q[0] - p[0]), y


def arrow(a: Point, b: Point, head: float = 7.0) -> tuple[Point, ...]:
    """The two barbs of an arrow head at ``b`` coming from ``a`` (an open polyline through b)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy) or 1.0
    ux, uy = dx / length, dy / length
    left = (b[0] - head * ux + head * 0.5 * uy, b[1] - head * uy - head * 0.5 * ux)
    right = (b[0] - head * ux - head * 0.5 * uy, b[1] - head * uy + head * 0.5 * ux)
    return left, b, right


def ship_glyph(scene: Scene, ship: str, side: int, cx: float, cy: float, heading: float, length: float,
               beam: float, *, to_move: bool, faded: bool = False, label: bool = True) -> None:
    """A ship with its bow toward ``heading``, in its side's colour, numbered; ringed when it is to move."""
    outline = hull_outline(cx, cy, heading, length, beam)
    if to_move:   # a thick outline under the hull, whatever its size
        scene.add(Polygon(points=outline, stroke=TO_MOVE, width=7, role="to-move", ref=ship))
    scene.add(Polygon(points=outline, fill=SIDE_FILL[side], stroke=SIDE_EDGE[side], width=1.5,
                      opacity=0.45 if faded else 1.0, role="ship", ref=ship))
    bow = outline[0]
    scene.add(Circle(cx=bow[0] * 0.6 + cx * 0.4, cy=bow[1] * 0.6 + cy * 0.4, r=max(1.5, beam * 0.1),
                     fill="#ffffff", role="bow", ref=ship))
    if label:
        scene.add(Text(x=cx, y=cy + 4, text=number_of(ship), size=11, anchor="middle", fill="#ffffff", bold=True,
                       role="ship-label", ref=ship))


def cross(scene: Scene, cx: float, cy: float, size: float, ship: str) -> None:
    """Where a ship went down, with its number."""
    scene.add(line((cx - size, cy - size), (cx + size, cy + size), stroke=MUTED, width=2, role="wreck", ref=ship),
              line((cx - size, cy + size), (cx + size, cy - size), stroke=MUTED, width=2, role="wreck", ref=ship),
              Text(x=cx + size + 2, y=cy + size, text=ship, size=9, fill=MUTED, role="wreck-label", ref=ship))


def link(scene: Scene, a: Point, b: Point, *, colour: str, role: str, ref: str, label: str = "",
         dash: tuple[float, float] | None = None, head: bool = False) -> None:
    """A line between two ships (a ram, a grapple, a range), with a label at its middle."""
    scene.add(line(a, b, stroke=colour, width=2.5, dash=dash, role=role, ref=ref))
    if head:
        scene.add(Polygon(points=arrow(a, b), closed=False, stroke=colour, width=2.5, role=role, ref=ref))
    if label:
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        scene.add(Text(x=mx, y=my - 5, text=label, size=11, anchor="middle", fill=colour, bold=True, role=f"{role}-label",
                       ref=ref))


def banner(scene: Scene, area: Area, text: str) -> None:
    """The result across the top of the board."""
    scene.add(Rect(x=area.x, y=area.y, w=area.w, h=30, fill="#ffffff", opacity=0.85, role="result-band"),
              Text(x=area.x + area.w / 2, y=area.y + 21, text=text, size=16, anchor="middle", fill=INK, bold=True,
                   role="result"))


def finish(scene: Scene, area: Area, panel: Panel) -> Scene:
    """Draw the panel beside the board (and the result over it once the game is over)."""
    if panel.result:
        banner(scene, area, panel.result)
    x = area.x + area.w + MARGIN
    y = MARGIN + 14.0
    scene.title = f"{panel.ruleset} {panel.scenario}: round {panel.round}"
    scene.add(Text(x=x, y=y, text=f"{panel.ruleset} \u00b7 {panel.scenario}", size=15, bold=True, fill=INK,
                   role="title"))
    y += 22
    scene.add(Text(x=x, y=y, text=f"round {panel.round} \u00b7 {panel.phase}", size=13, fill=INK, role="round"))
    y += 20
    if panel.result:
        short = panel.result.split(" (")[0]       # the reason is on the banner over the board
        scene.add(Text(x=x, y=y, text=f"over: {short}", size=13, bold=True, fill=INK, role="status"))
    else:
        scene.add(Text(x=x, y=y, text=f"to move: {panel.to_move or '-'}", size=13, bold=True, fill=INK,
                       role="status", ref=panel.to_move or ""))
    y += 14
    _wind(scene, x + 22, y + 24, panel.wind)
    for k, note in enumerate(panel.notes[:2]):
        scene.add(Text(x=x + 52, y=y + 44 + 16 * k, text=note, size=12, fill=MUTED, role="note"))
    y = MARGIN + HEADER_H
    for card in panel.cards:
        _card(scene, x, y, card, to_move=card.ship == panel.to_move and not panel.result)
        y += CARD_H
    y += 14
    scene.add(Text(x=x, y=y, text="legend", size=12, bold=True, fill=MUTED, role="legend-title"))
    for k, side in enumerate(panel.sides[:2]):
        _legend(scene, x + 160 * k, y + LEGEND_ROW, LegendItem("swatch", SIDE_FILL[k], f"side {side}"))
    y += LEGEND_ROW
    for k, item in enumerate(panel.legend):
        _legend(scene, x + 160 * (k % 2), y + LEGEND_ROW * (k // 2 + 1), item)
    return scene


def legend_rows(items: int) -> int:
    """Rows the legend takes: its title, the sides, then two items a row."""
    return 2 + (items + 1) // 2


def _wind(scene: Scene, cx: float, cy: float, wind: Wind) -> None:
    scene.add(Circle(cx=cx, cy=cy, r=18, fill="#ffffff", stroke=MUTED, width=1, role="wind-rose"))
    scene.add(Text(x=cx, y=cy - 20, text="N", size=9, anchor="middle", fill=MUTED, role="wind-rose"))
    if wind.toward is not None:
        fx, fy = forward(wind.toward)
        tail, tip = (cx - 14 * fx, cy - 14 * fy), (cx + 14 * fx, cy + 14 * fy)
        scene.add(line(tail, tip, stroke=INK, width=2.5, role="wind", ref=f"{wind.toward:g}"),
                  Polygon(points=arrow(tail, tip, 6), closed=False, stroke=INK, width=2.5, role="wind",
                          ref=f"{wind.toward:g}"))
    else:
        scene.add(Circle(cx=cx, cy=cy, r=3, fill=INK, role="wind", ref="calm"))
    scene.add(Text(x=cx + 30, y=cy + 5, text=wind.text, size=12, fill=INK, role="wind-text"))


def _card(scene: Scene, x: float, y: float, card: Card, *, to_move: bool) -> None:
    opacity = 0.5 if card.out else 1.0
    if to_move:
        scene.add(Rect(x=x - 6, y=y - 2, w=PANEL_W - 14, h=CARD_H - 4, fill="#fff3c4", stroke=TO_MOVE, width=1.5,
                       role="card-to-move", ref=card.ship))
    scene.add(Rect(x=x, y=y + 4, w=10, h=10, fill=SIDE_FILL[card.side_index], opacity=opacity, role="card-side",
                   ref=card.ship))
    scene.add(Text(x=x + 16, y=y + 14, text=f"{card.ship}  {card.title}", size=12, bold=True, fill=INK,
                   opacity=opacity, role="card-title", ref=card.ship))
    for k, bar in enumerate(card.bars[:2]):
        by = y + 20 + 12 * k
        scene.add(Text(x=x, y=by + 8, text=bar.name, size=10, fill=MUTED, role="bar-name", ref=card.ship))
        scene.add(Rect(x=x + 62, y=by, w=BAR_W, h=9, fill="#dde3ea", role=f"{bar.name}-track", ref=card.ship))
        scene.add(Rect(x=x + 62, y=by, w=round(BAR_W * bar.fraction, 2), h=9, fill=_bar_colour(k, bar.fraction),
                       opacity=opacity, role=f"{bar.name}-bar", ref=card.ship))
        scene.add(Text(x=x + 68 + BAR_W, y=by + 8, text=bar.text, size=10, fill=INK, role="bar-text", ref=card.ship))


def _bar_colour(row: int, fraction: float) -> str:
    if row > 0:
        return "#7a62b0"                 # the second bar (crew and the like): one colour
    return "#3a9d4a" if fraction > 0.5 else "#e0a526" if fraction > 0.25 else "#d0452f"


def _legend(scene: Scene, x: float, y: float, item: LegendItem) -> None:
    if item.kind == "swatch":
        scene.add(Rect(x=x, y=y - 9, w=14, h=10, fill=item.colour, opacity=item.opacity, role="legend"))
    elif item.kind == "ring":
        scene.add(Circle(cx=x + 7, cy=y - 4, r=6, stroke=item.colour, width=2.5, role="legend"))
    elif item.kind == "outline":
        scene.add(Polygon(points=hull_outline(x + 7, y - 4, 90, 14, 7), fill=MUTED, stroke=item.colour, width=3,
                          role="legend"))
    elif item.kind == "bow":
        scene.add(Polygon(points=hull_outline(x + 7, y - 4, 90, 16, 8), fill=MUTED, role="legend"),
                  Circle(cx=x + 12, cy=y - 4, r=1.8, fill="#ffffff", role="legend"))
    else:
        scene.add(line((x, y - 4), (x + 16, y - 4), stroke=item.colour, width=2.5, dash=item.dash,
                       opacity=item.opacity, role="legend"))
    scene.add(Text(x=x + 21, y=y, text=item.label, size=11, fill=INK, role="legend-text"))


@dataclass(frozen=True)
class Grid:
    """A board of squares inside an area: square (x, y) -> pixels; x grows east, y south, from 0."""

    area: Area
    width: int
    height: int
    cell: float

    @classmethod
    def fit(cls, width: int, height: int) -> Grid:
        """Squares as large as fit ``BOARD`` pixels on the longer side (whole pixels, so lines stay crisp)."""
        cell = float(BOARD // max(width, height))
        return cls(Area(MARGIN, MARGIN, cell * width, cell * height), width, height, cell)

    def ship_size(self) -> tuple[float, float]:
        """Length and beam of a one-square ship glyph: most of a square, never too small to read."""
        return max(self.cell * 0.9, 28.0), max(self.cell * 0.5, 14.0)

    def centre(self, x: float, y: float) -> Point:
        return self.area.x + (x + 0.5) * self.cell, self.area.y + (y + 0.5) * self.cell

    def draw(self, scene: Scene) -> None:
        a, c = self.area, self.cell
        scene.add(Rect(x=a.x, y=a.y, w=a.w, h=a.h, fill=SEA, role="sea"))
        columns = tuple(((a.x + i * c, a.y), (a.x + i * c, a.y + a.h)) for i in range(1, self.width))
        rows = tuple(((a.x, a.y + j * c), (a.x + a.w, a.y + j * c)) for j in range(1, self.height))
        scene.add(Segments(segments=columns + rows, stroke=GRID_LINE, width=1, role="grid"))
        scene.add(Rect(x=a.x, y=a.y, w=a.w, h=a.h, stroke=MUTED, width=1.5, role="board-edge"))

    def squares_within(self, scene: Scene, x0: int, y0: int, x1: int, y1: int, *, role: str, ref: str) -> None:
        """Shade the squares x0..x1, y0..y1 (clipped to the board) with a dashed edge: a range."""
        x0, y0 = max(0, x0), max(0, y0)
        x1, y1 = min(self.width - 1, x1), min(self.height - 1, y1)
        if x0 > x1 or y0 > y1:
            return
        a, c = self.area, self.cell
        scene.add(Rect(x=a.x + x0 * c, y=a.y + y0 * c, w=(x1 - x0 + 1) * c, h=(y1 - y0 + 1) * c, fill=RANGE_FILL,
                       opacity=0.18, role=role, ref=ref),
                  Rect(x=a.x + x0 * c, y=a.y + y0 * c, w=(x1 - x0 + 1) * c, h=(y1 - y0 + 1) * c, stroke="#b88a00",
                       width=1.5, dash=(6, 4), role=f"{role}-edge", ref=ref))


def legal_targets(game: Any, agent: str | None, verb: str) -> list[str]:
    """Enemy ship ids ``agent`` may ``verb`` now (labels ``verb@enemyK`` or ``verb@eK`` its mask allows)."""
    if agent is None or game.is_over or game.current_agent != agent:
        return []
    from naval_env.core.moves import legal_options

    enemies = [ship.id for ship in game.enemies_of(game.state.ships[agent])]
    found: list[str] = []
    for labels in legal_options(game, agent).values():
        for label in labels:
            name, _, target = label.partition("@")
            if name == verb and target:
                slot = int(target.removeprefix("enemy").removeprefix("e"))
                if slot < len(enemies) and enemies[slot] not in found:
                    found.append(enemies[slot])
    return found


COMPASS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def compass_degrees(name: str) -> float:
    """Degrees of an eight-point compass name (N = 0, clockwise)."""
    return 45.0 * COMPASS.index(name)


def picture_of(game: Game) -> Scene:
    """The ruleset's picture of ``game`` at this moment (``naval_env/rulesets/<id>/picture.py``)."""
    module = import_module(f"naval_env.rulesets.{game.ruleset_id}.picture")
    scene: Scene = module.picture(game)
    return scene


def picture_of_position(data: dict[str, Any], config: Any = None) -> Scene:
    """The picture of a position (a JSON dict with its ``ruleset``), loaded as the rules load it."""
    from naval_env.core.ruleset import get_ruleset

    if not isinstance(data, dict) or "ruleset" not in data:
        raise ValueError("a position is a JSON object with a 'ruleset' field")
    return picture_of(get_ruleset(str(data["ruleset"])).load_position(data, config, seed=0))


def result_text(winner: str | None, reason: str | None) -> str:
    """How the panel says a finished game ended."""
    why = f" ({reason.replace('_', ' ')})" if reason else ""
    return f"{winner} wins{why}" if winner else f"draw{why}"
