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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from naval_env.core.hooks import hooks_of
from naval_env.core.scene import Circle, Polygon, Rect, Scene, Text, line
from naval_env.core.sketch import (
    INK,
    MARGIN,
    MUTED,
    PAPER,
    SIDE_FILL,
    TO_MOVE,
    Area,
    Grid,
    arrow,
    forward,
    hull_outline,
)

if TYPE_CHECKING:
    from naval_env.core.game import Game

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
    outcome: tuple[str | None, str | None] | None    # (winner or None for a draw, reason) once over; else None
    wind: Wind
    cards: list[Card] = field(default_factory=list)
    legend: list[LegendItem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)   # extra header lines (weather, current, ...)

    @property
    def result(self) -> str | None:
        """How the panel says the game ended ("red wins (last side fighting)"); None while playing."""
        return None if self.outcome is None else result_text(*self.outcome)


def canvas(board_w: float, board_h: float, ships: int, legend: Sequence[LegendItem]) -> tuple[Scene, Area]:
    """An empty picture with a board area of ``board_w`` x ``board_h`` pixels and room for the panel (its
    cards for ``ships`` ships and the ``legend``).

    Width and height are multiples of 16, so video encoders take the frames as they are.
    """
    panel_h = HEADER_H + ships * CARD_H + 30 + legend_rows(len(legend)) * LEGEND_ROW + MARGIN
    width = _up16(MARGIN + board_w + MARGIN + PANEL_W)
    height = _up16(max(board_h + 2 * MARGIN, panel_h))
    return Scene(width, height, background=PAPER), Area(MARGIN, MARGIN, board_w, board_h)


def grid_canvas(width: int, height: int, ships: int, legend: Sequence[LegendItem]) -> tuple[Scene, Grid]:
    """:func:`canvas` for a board of ``width`` x ``height`` squares (the grid rulesets'), the grid drawn."""
    grid = Grid.fit(width, height)
    scene, _ = canvas(grid.area.w, grid.area.h, ships, legend)
    grid.draw(scene)
    return scene, grid


def _up16(value: float) -> int:
    return int(math.ceil(value / 16) * 16)


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


def picture_of(game: Game) -> Scene:
    """The ruleset's picture of ``game`` at this moment (its picture hook: ``<package>/picture.py``)."""
    return hooks_of(game.ruleset_id).picture(game)


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
