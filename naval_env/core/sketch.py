"""Shapes the board pictures share: colours, the square grid, ship glyphs with their bows, ranges cut to
the board, lines between ships (rams, grapples, distances) and the compass. Pixels, y down.

Each ruleset's ``picture.py`` draws its board with these and hands the rest to ``core/picture.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from naval_env.core.scene import Circle, Point, Polygon, Rect, Scene, Segments, Text, line

#: Side colours (first side, second side) and a darker edge for each.
SIDE_FILL = ("#c83232", "#2f5fc8")
SIDE_EDGE = ("#7a1414", "#142f6e")
SEA, GRID_LINE, INK, MUTED, PAPER = "#cfe3f1", "#a3c2da", "#1d2733", "#6b7785", "#f6f4ef"
TO_MOVE = "#f2b705"          # outline of the ship whose decision it is
RANGE_FILL = "#f2b705"       # fire range / arcs of the ship to move
RAM_LINE = "#d2331f"
GRAPPLE_LINE = "#5b3a1a"
BOARD = 600                  # pixels of the board area's longer side
MARGIN = 20


@dataclass(frozen=True)
class Area:
    """The board area of a canvas, in pixels."""

    x: float
    y: float
    w: float
    h: float


def side_index(sides: tuple[str, ...], side: str) -> int:
    return sides.index(side) % 2 if side in sides else 0


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

    def ship(self, scene: Scene, ship: dict[str, Any], side: int, *, to_move: bool) -> None:
        """A one-square ship of a position (``id``, ``x``, ``y``, compass ``facing``, ``status``) on its square,
        faded unless afloat."""
        cx, cy = self.centre(ship["x"], ship["y"])
        ship_glyph(scene, ship["id"], side, cx, cy, compass_degrees(ship["facing"]), *self.ship_size(),
                   to_move=to_move, faded=ship["status"] != "afloat")

    def wreck(self, scene: Scene, ship: dict[str, Any]) -> None:
        """Where a one-square ship of a position went down."""
        cx, cy = self.centre(ship["x"], ship["y"])
        cross(scene, cx, cy, self.cell * 0.3, ship["id"])

    def draw(self, scene: Scene) -> None:
        a, c = self.area, self.cell
        scene.add(Rect(x=a.x, y=a.y, w=a.w, h=a.h, fill=SEA, role="sea"))
        columns = tuple(((a.x + i * c, a.y), (a.x + i * c, a.y + a.h)) for i in range(1, self.width))
        rows = tuple(((a.x, a.y + j * c), (a.x + a.w, a.y + j * c)) for j in range(1, self.height))
        scene.add(Segments(segments=columns + rows, stroke=GRID_LINE, width=1, role="grid"))
        scene.add(Rect(x=a.x, y=a.y, w=a.w, h=a.h, stroke=MUTED, width=1.5, role="board-edge"))
        self.draw_coordinates(scene)

    def draw_coordinates(self, scene: Scene) -> None:
        """Square numbers in the margins (x along the top, y down the left), as the rules and the log count
        them from 0; on a fine grid every second or third, so the numbers never touch."""
        a, c = self.area, self.cell
        every = max(1, math.ceil(16 / c))
        for i in range(0, self.width, every):
            scene.add(Text(x=a.x + (i + 0.5) * c, y=a.y - 5, text=str(i), size=9, anchor="middle", fill=MUTED,
                           role="coordinate", ref=f"x{i}"))
        for j in range(0, self.height, every):
            scene.add(Text(x=a.x - 3, y=a.y + (j + 0.5) * c + 3, text=str(j), size=9, anchor="end", fill=MUTED,
                           role="coordinate", ref=f"y{j}"))

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


COMPASS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def compass_degrees(name: str) -> float:
    """Degrees of an eight-point compass name (N = 0, clockwise)."""
    return 45.0 * COMPASS.index(name)


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


def ram_lines(scene: Scene, game: Any, agent: str | None, at: Callable[[str], Point]) -> None:
    """A dashed arrow from ``agent``'s ship to each ship it may ram now; ``at`` gives a ship id's point."""
    if agent is None:
        return
    for target in legal_targets(game, agent, "ram"):
        link(scene, at(agent), at(target), colour=RAM_LINE, role="ram-line", ref=f"{agent}>{target}", dash=(7, 4),
             head=True, label="ram")
