"""The look every chart shares: one figure factory, one PNG writer, and the phrases that say what a point is.

Charts are drawn with matplotlib's object API on the Agg canvas (never pyplot), so making one
touches no global backend or figure list and works on machines without a display.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from matplotlib import rc_context
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.typing import RcKeyType

from naval_env.core.ruleset import get_ruleset

DPI = 110
#: rc settings applied to every chart (passed to Figure through matplotlib.rc_context).
STYLE: dict[RcKeyType, Any] = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.fontsize": 9,
    "legend.framealpha": 0.9,
}
WIN_RATE_AXIS = "win rate (a draw counts ½)"
WILSON_NOTE = "95% Wilson score interval"
FOOTNOTE_SIZE = 8


@contextmanager
def styled() -> Iterator[None]:
    """Draw and save a chart inside this, so it takes the shared :data:`STYLE`."""
    with rc_context(STYLE):
        yield


def new_figure(width: float, height: float, *, constrained: bool = True) -> Figure:
    """An empty figure (inches) on its own Agg canvas.

    ``constrained``: laid out by matplotlib's constrained layout, which fits any labels but draws
    the figure twice; without it the caller places the axes (``subplots_adjust``), as the learning
    curve does, since training runs draw it and its layout is fixed.
    """
    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained" if constrained else None)
    FigureCanvasAgg(figure)
    return figure


def wrap_to(figure: Figure, text: str, fontsize: float, share: float = 0.95) -> str:
    """``text`` broken into lines that fit ``share`` of the figure's width at ``fontsize`` points."""
    characters = int(figure.get_size_inches()[0] * share * 72 / (fontsize * 0.6))  # ~0.6 em per character
    return "\n".join(line for paragraph in text.split("\n") for line in textwrap.wrap(paragraph, characters))


def headings(figure: Figure, title: str, detail: str) -> None:
    """A bold title across the figure and, over the first axes, a line on what each number is and how many
    games it holds, wrapped to that axes' width (call it once everything else is drawn)."""
    figure.suptitle(wrap_to(figure, title, 12), fontsize=12, fontweight="bold", x=0.01, ha="left")
    ax = figure.axes[0]
    figure.draw_without_rendering()  # lays the axes out, so their width is known
    share = ax.get_position().width
    ax.set_title(wrap_to(figure, detail, 9.5, share=share), fontsize=9.5, fontweight="normal", loc="left")


def footnote(figure: Figure, text: str) -> float:
    """Small grey text under the axes (definitions, where the numbers come from); returns the share of the
    figure's height it takes, which a constrained layout keeps free by itself."""
    text = wrap_to(figure, text, FOOTNOTE_SIZE, share=0.98)
    lines = text.count("\n") + 1
    share = float((lines * FOOTNOTE_SIZE * 1.35 / 72 + 0.1) / figure.get_size_inches()[1])  # inches / figure's
    layout = figure.get_layout_engine()
    if isinstance(layout, ConstrainedLayoutEngine):
        layout.set(rect=(0, share, 1, 1 - share))
    figure.text(0.01, 0.01, text, fontsize=FOOTNOTE_SIZE, color="0.3", ha="left", va="bottom")
    return share


def save_png(figure: Figure, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png", dpi=DPI)
    return path


def scenario_name(ruleset: str, scenario: str | None, config: str | None = None) -> str:
    """The scenario that was played: ``scenario``, or the ruleset config's default one when None."""
    if scenario is not None:
        return scenario
    rules = get_ruleset(ruleset)
    return f"{rules.load_config(config).default_scenario} (default)"


def count_phrase(counts: Iterable[int], unit: str) -> str:
    """``40 games`` when every point has the same count, ``12–20 games`` when they differ."""
    values = sorted(set(counts))
    if not values:
        return f"no {unit}"
    if len(values) == 1:
        return f"{values[0]} {unit}"
    return f"{values[0]}–{values[-1]} {unit}"
