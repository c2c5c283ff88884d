"""A picture as a list of shapes, written out as SVG or drawn into an RGB array.

Each ruleset paints a battle once into a :class:`Scene` (``rulesets/<id>/picture.py``);
the browser replay shows ``scene.to_svg()`` and ``rgb_array`` frames are
``scene.to_rgb()``, so both show the same picture. Coordinates are pixels, y down.
Shapes carry a ``role`` (``ship``, ``hull-bar``, ``wind``, ...) and the ``ref`` of what
they show (a ship id), written into the SVG as ``class`` and ``data-ref``, so tests and
scripts can find them. Pillow is imported only by :meth:`Scene.to_rgb`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np

if TYPE_CHECKING:
    from PIL import ImageDraw, ImageFont

Point = tuple[float, float]


@dataclass(frozen=True, kw_only=True)
class Shape:
    """Paint shared by every shape: colours as ``#rrggbb``, None for none; ``dash`` as (on, off) pixels."""

    fill: str | None = None
    stroke: str | None = None
    width: float = 1.0
    opacity: float = 1.0
    dash: tuple[float, float] | None = None
    role: str = ""
    ref: str = ""

    def svg(self) -> str:
        raise NotImplementedError

    def _paint(self) -> str:
        attrs = [f'fill="{self.fill or "none"}"']
        if self.stroke:
            attrs.append(f'stroke="{self.stroke}" stroke-width="{_num(self.width)}"')
            if self.dash:
                attrs.append(f'stroke-dasharray="{_num(self.dash[0])} {_num(self.dash[1])}"')
        if self.opacity < 1:
            attrs.append(f'opacity="{_num(self.opacity)}"')
        if self.role:
            attrs.append(f"class={quoteattr(self.role)}")
        if self.ref:
            attrs.append(f"data-ref={quoteattr(self.ref)}")
        return " ".join(attrs)


@dataclass(frozen=True, kw_only=True)
class Rect(Shape):
    x: float
    y: float
    w: float
    h: float

    def svg(self) -> str:
        return (f'<rect x="{_num(self.x)}" y="{_num(self.y)}" width="{_num(self.w)}" height="{_num(self.h)}" '
                f"{self._paint()}/>")


@dataclass(frozen=True, kw_only=True)
class Circle(Shape):
    cx: float
    cy: float
    r: float

    def svg(self) -> str:
        return f'<circle cx="{_num(self.cx)}" cy="{_num(self.cy)}" r="{_num(self.r)}" {self._paint()}/>'


@dataclass(frozen=True, kw_only=True)
class Polygon(Shape):
    """A closed outline; ``closed=False`` makes it an open polyline (a line through several points)."""

    points: tuple[Point, ...]
    closed: bool = True

    def svg(self) -> str:
        tag = "polygon" if self.closed else "polyline"
        points = " ".join(f"{_num(x)},{_num(y)}" for x, y in self.points)
        return f'<{tag} points="{points}" {self._paint()}/>'


@dataclass(frozen=True, kw_only=True)
class Segments(Shape):
    """Many separate straight lines in one paint (a grid), written as one SVG path."""

    segments: tuple[tuple[Point, Point], ...]

    def svg(self) -> str:
        d = "".join(f"M{_num(a[0])} {_num(a[1])}L{_num(b[0])} {_num(b[1])}" for a, b in self.segments)
        return f'<path d="{d}" {self._paint()}/>'


@dataclass(frozen=True, kw_only=True)
class Text(Shape):
    """Text whose baseline starts (``anchor="start"``), is centred on or ends at (x, y)."""

    x: float
    y: float
    text: str
    size: float = 12.0
    anchor: str = "start"
    bold: bool = False

    def svg(self) -> str:
        weight = ' font-weight="bold"' if self.bold else ""
        return (f'<text x="{_num(self.x)}" y="{_num(self.y)}" font-size="{_num(self.size)}" '
                f'text-anchor="{self.anchor}"{weight} {self._paint()}>{escape(self.text)}</text>')


def line(a: Point, b: Point, **paint: Any) -> Polygon:
    """A straight line from a to b (an open two-point polyline)."""
    return Polygon(points=(a, b), closed=False, **paint)


@dataclass
class Scene:
    """A picture of ``width`` x ``height`` pixels: shapes painted in order over the background."""

    width: int
    height: int
    background: str = "#ffffff"
    title: str = ""
    shapes: list[Shape] = field(default_factory=list)

    def add(self, *shapes: Shape) -> None:
        self.shapes.extend(shapes)

    def find(self, role: str, ref: str | None = None) -> list[Shape]:
        """Shapes of ``role`` (and of ``ref`` when given), in paint order."""
        return [s for s in self.shapes if s.role == role and (ref is None or s.ref == ref)]

    def to_svg(self) -> str:
        """A standalone SVG document (no external fonts, images or styles)."""
        return "".join(self.svg_parts())

    def svg_parts(self) -> list[str]:
        """The SVG document in pieces: the opening tag with the title and background, one piece per shape,
        the closing tag (pictures of one game share most pieces, so a replay page keeps each once)."""
        title = f"<title>{escape(self.title)}</title>" if self.title else ""
        opening = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="{self.height}" '
                   f'viewBox="0 0 {self.width} {self.height}" font-family="DejaVu Sans, Verdana, sans-serif">'
                   f'{title}<rect x="0" y="0" width="{self.width}" height="{self.height}" '
                   f'fill="{self.background}"/>')
        return [opening, *(shape.svg() for shape in self.shapes), "</svg>"]

    def to_rgb(self) -> np.ndarray:
        """The picture as a ``(height, width, 3)`` uint8 array, drawn with Pillow."""
        from PIL import Image, ImageDraw

        image = Image.new("RGB", (self.width, self.height), self.background)
        draw = ImageDraw.Draw(image, "RGBA")  # RGBA colours blend into the RGB image
        for shape in self.shapes:
            _draw(draw, shape)
        return np.asarray(image, dtype=np.uint8).copy()


def _num(value: float) -> str:
    """Coordinates to two decimals without trailing zeros (keeps the SVG small and stable)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _rgba(colour: str | None, opacity: float) -> tuple[int, int, int, int] | None:
    if colour is None:
        return None
    from PIL import ImageColor

    r, g, b = ImageColor.getrgb(colour)[:3]
    return r, g, b, round(255 * opacity)


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}  # SVG text-anchor -> Pillow anchor on the baseline


def _draw(draw: ImageDraw.ImageDraw, shape: Shape) -> None:
    fill, stroke = _rgba(shape.fill, shape.opacity), _rgba(shape.stroke, shape.opacity)
    width = max(1, round(shape.width)) if stroke else 0
    if isinstance(shape, Rect):
        box = (shape.x, shape.y, shape.x + shape.w - 1, shape.y + shape.h - 1)
        if shape.w >= 1 and shape.h >= 1:
            draw.rectangle(box, fill=fill, outline=None if shape.dash else stroke, width=width)
            if shape.dash and stroke:
                _dashed(draw, _corners(shape), True, stroke, width, shape.dash)
    elif isinstance(shape, Circle):
        box = (shape.cx - shape.r, shape.cy - shape.r, shape.cx + shape.r, shape.cy + shape.r)
        if shape.dash and stroke:
            draw.ellipse(box, fill=fill)
            _dashed(draw, _circle_points(shape), True, stroke, width, shape.dash)
        else:
            draw.ellipse(box, fill=fill, outline=stroke, width=width)
    elif isinstance(shape, Polygon):
        if shape.closed and fill and len(shape.points) >= 3:
            draw.polygon(list(shape.points), fill=fill)
        if stroke:
            if shape.dash:
                _dashed(draw, shape.points, shape.closed, stroke, width, shape.dash)
            else:
                points = [*shape.points, shape.points[0]] if shape.closed else list(shape.points)
                draw.line(points, fill=stroke, width=width, joint="curve")
    elif isinstance(shape, Segments):
        for a, b in shape.segments:
            if shape.dash:
                _dashed(draw, (a, b), False, stroke or (0, 0, 0, 0), width, shape.dash)
            else:
                draw.line([a, b], fill=stroke, width=width)
    elif isinstance(shape, Text):
        draw.text((shape.x, shape.y), shape.text, fill=fill, font=_font(round(shape.size)),
                  anchor=_ANCHORS.get(shape.anchor, "ls"))
    else:
        raise TypeError(f"cannot draw {type(shape).__name__}; shapes are Rect, Circle, Polygon, Segments and Text")


def _corners(rect: Rect) -> tuple[Point, ...]:
    return ((rect.x, rect.y), (rect.x + rect.w, rect.y), (rect.x + rect.w, rect.y + rect.h), (rect.x, rect.y + rect.h))


def _circle_points(circle: Circle, steps: int = 48) -> tuple[Point, ...]:
    return tuple((circle.cx + circle.r * math.cos(2 * math.pi * k / steps),
                  circle.cy + circle.r * math.sin(2 * math.pi * k / steps)) for k in range(steps))


def _dashed(draw: ImageDraw.ImageDraw, points: Sequence[Point], closed: bool, colour: tuple[int, int, int, int],
            width: int, dash: tuple[float, float]) -> None:
    """Pillow draws no dashes: walk the outline and draw the 'on' stretches."""
    for a, b in _dash_segments(points, closed, dash):
        draw.line([a, b], fill=colour, width=width)


def _dash_segments(points: Sequence[Point], closed: bool, dash: tuple[float, float]) -> Iterator[tuple[Point, Point]]:
    on, off = dash
    period = on + off
    walked = 0.0
    path = [*points, points[0]] if closed else list(points)
    for (ax, ay), (bx, by) in pairwise(path):
        length = math.hypot(bx - ax, by - ay)
        t = 0.0
        while t < length:
            phase = (walked + t) % period
            step = min((on - phase) if phase < on else (period - phase), length - t)
            if phase < on and step > 0:
                u, v = t / length, (t + step) / length
                yield (ax + (bx - ax) * u, ay + (by - ay) * u), (ax + (bx - ax) * v, ay + (by - ay) * v)
            t += max(step, 1e-6)
        walked += length
