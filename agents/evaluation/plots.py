"""Pictures of an evaluation, written beside its JSON and CSV.

- ``winrate_matrix.png``: the row captain's win rate against each column captain, each cell
  with its 95% Wilson interval and its number of games;
- ``ratings.png``: each captain's OpenSkill mu with a mu ± 3 sigma bar, best ordinal first.

The numbers come from the functions :func:`win_rate_matrix` and :func:`rating_bars`, which the
tests check; the drawing functions only place them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure

from naval_agents.evaluation.ratings import Rating
from naval_agents.evaluation.stats import GameResult, wilson_interval
from naval_agents.evaluation.tournament import Evaluation, Tournament
from naval_agents.plots import (
    WILSON_NOTE,
    WIN_RATE_AXIS,
    count_phrase,
    footnote,
    headings,
    new_figure,
    save_png,
    scenario_name,
    styled,
)

WIN_RATE_MATRIX = "winrate_matrix.png"
RATINGS = "ratings.png"
PLOT_FILES = (WIN_RATE_MATRIX, RATINGS)
#: Ratings are drawn as mu ± this many sigma; the left end is openskill's ordinal (mu - 3 sigma).
SIGMAS = 3
#: Characters of a captain name on one line of an axis label (longer names are broken after a slash).
TICK_LABEL_WIDTH = 24


@dataclass(frozen=True)
class Cell:
    """The row captain's games against the column captain: points (a draw counts half), rate, Wilson interval."""

    games: int
    points: float
    rate: float
    low: float
    high: float


@dataclass(frozen=True)
class WinRateMatrix:
    captains: tuple[str, ...]             # rows and columns, in this order
    cells: dict[tuple[str, str], Cell]    # (row, column) -> the row captain's results; absent: not played

    def grid(self, field: str) -> np.ndarray:
        """One field of every cell as a (rows, columns) float array, NaN where the pair did not play."""
        values = np.full((len(self.captains), len(self.captains)), np.nan)
        for (row, column), cell in self.cells.items():
            values[self.captains.index(row), self.captains.index(column)] = getattr(cell, field)
        return values


def win_rate_matrix(results: Sequence[GameResult], captains: Sequence[str]) -> WinRateMatrix:
    """Every ordered pair of captains that met, pooled over all their games (whichever pairing they came from).

    A game of ``a`` against ``b`` counts for cell (a, b) with a's score and for cell (b, a) with b's,
    so the two cells' rates add up to 1. A captain's games against itself fill its diagonal cell once.
    """
    totals: dict[tuple[str, str], list[float]] = {}
    for result in results:
        seats = [(result.a, result.b, result.a_score)]
        if result.a != result.b:
            seats.append((result.b, result.a, 1.0 - result.a_score))
        for row, column, score in seats:
            games_points = totals.setdefault((row, column), [0, 0.0])
            games_points[0] += 1
            games_points[1] += score
    unknown = sorted({name for pair in totals for name in pair} - set(captains))
    if unknown:
        raise ValueError(f"results name captains {unknown} that are not among the matrix's captains {list(captains)}")
    cells = {}
    for pair, (games, points) in totals.items():
        low, high = wilson_interval(points, int(games))
        cells[pair] = Cell(int(games), points, points / games, low, high)
    return WinRateMatrix(tuple(captains), cells)


@dataclass(frozen=True)
class RatingBar:
    name: str
    mu: float
    low: float    # mu - 3 sigma: openskill's ordinal, the number the ranking sorts by
    high: float   # mu + 3 sigma
    games: int


def rating_bars(ratings: Sequence[Rating]) -> list[RatingBar]:
    """One bar per captain, in the order given (the evaluation's: best ordinal first)."""
    return [RatingBar(r.name, r.mu, r.mu - SIGMAS * r.sigma, r.mu + SIGMAS * r.sigma, r.games) for r in ratings]


def _setting(tournament: Tournament) -> str:
    return f"{tournament.ruleset} / {scenario_name(tournament.ruleset, tournament.scenario, tournament.config)}"


def _seeds(tournament: Tournament) -> str:
    t = tournament
    return f"seeds {t.seed}..{t.seed + t.games - 1}, each played once from either side"


def draw_win_rate_matrix(matrix: WinRateMatrix, tournament: Tournament,
                         source: str = "results.json, games.csv") -> Figure:
    """``source``: where the games behind the cells are written, named in the footnote."""
    size = len(matrix.captains)
    figure = new_figure(max(6.5, 2.8 + 1.6 * size), max(5.0, 2.6 + 1.15 * size))
    ax = figure.subplots()
    games = [cell.games for cell in matrix.cells.values()]
    colours = colormaps["RdBu"].with_extremes(bad="0.92")  # red: the row captain loses; white: even; blue: wins
    image = ax.imshow(np.ma.masked_invalid(matrix.grid("rate")), cmap=colours, vmin=0, vmax=1)
    bar = figure.colorbar(image, ax=ax, shrink=0.85)
    bar.set_label(f"{WIN_RATE_AXIS} of the row captain")
    for i, row in enumerate(matrix.captains):
        for j, column in enumerate(matrix.captains):
            cell = matrix.cells.get((row, column))
            if cell is None:
                ax.text(j, i, "—" if i == j else "did not\nplay", ha="center", va="center", color="0.45")
                continue
            ink = "white" if abs(cell.rate - 0.5) > 0.3 else "black"
            ax.text(j, i, f"{cell.rate:.2f}", ha="center", va="bottom", color=ink, fontsize=12, fontweight="bold")
            ax.text(j, i, f"[{cell.low:.2f}, {cell.high:.2f}]\n{cell.games} games", ha="center", va="top",
                    color=ink, fontsize=8.5)
    ticks = range(size)
    ax.set_xticks(ticks, matrix.captains, rotation=20 if size > 3 else 0, ha="right" if size > 3 else "center")
    ax.set_yticks(ticks, matrix.captains)
    ax.set_xlabel("column captain (the opponent)")
    ax.set_ylabel("row captain (whose win rate)")
    ax.grid(False)
    headings(figure, f"{_setting(tournament)}: win rate of each row captain against each column captain",
             f"{count_phrase(games, 'games')} per cell ({_seeds(tournament)}); in brackets: {WILSON_NOTE}")
    footnote(figure, f"A draw counts ½; a cell pools every game the two captains played ({source}), so row B "
                     "against column A is 1 − row A against column B. Captains in the ratings' order, best first.")
    return figure


def tick_label(name: str, width: int = TICK_LABEL_WIDTH) -> str:
    """A captain's name as an axis label: a long one (a run folder's path) broken after its slashes into
    lines of about ``width`` characters, so it does not push the axes and their labels out of the picture."""
    if len(name) <= width:
        return name
    lines, line = [], ""
    for part in re.findall(r"[^/]*/?", name):
        while len(part) > width:   # a part too long for a line of its own is cut
            if line:
                lines.append(line)
                line = ""
            lines.append(part[:width])
            part = part[width:]
        if line and len(line) + len(part) > width:
            lines.append(line)
            line = ""
        line += part
    return "\n".join([*lines, line] if line else lines)


def draw_ratings(bars: Sequence[RatingBar], tournament: Tournament) -> Figure:
    figure = new_figure(8.5, max(3.8, 2.2 + 0.5 * len(bars)))
    ax = figure.subplots()
    y = np.arange(len(bars))
    mu = np.array([b.mu for b in bars])
    ax.errorbar(mu, y, xerr=[mu - [b.low for b in bars], [b.high for b in bars] - mu], fmt="o", color="C0",
                ecolor="C0", elinewidth=2.5, capsize=5, ms=7)
    ax.plot([b.low for b in bars], y, "|", color="C3", ms=16, mew=2.5)
    for index, b in enumerate(bars):
        ax.annotate(f"ordinal {b.low:.1f}, mu {b.mu:.1f}, {b.games} games", (b.high, index), xytext=(8, 0),
                    textcoords="offset points", va="center", fontsize=8.5, color="0.25")
    ax.set_yticks(y, [tick_label(b.name) for b in bars])
    ax.set_ylim(len(bars) - 0.4, -0.6)  # best at the top
    right = max(b.high for b in bars)
    ax.set_xlim(min(b.low for b in bars) - 2, right + 0.45 * (right - min(b.low for b in bars)) + 4)  # room for notes
    ax.set_xlabel("OpenSkill rating\n(Plackett-Luce; a new captain starts at mu 25, sigma 8.33)")
    headings(figure, f"{_setting(tournament)}: OpenSkill ratings, best first",
             f"{count_phrase((b.games for b in bars), 'games')} per captain ({_seeds(tournament)}); dot: mu; bar: "
             f"mu ± {SIGMAS} sigma; red tick: the ordinal, mu − {SIGMAS} sigma, which the ranking sorts by")
    footnote(figure, "The ordinal is a cautious estimate: a captain with few games has a wide bar and a low ordinal. "
                     "Ratings are fitted game by game (ratings.csv); games of a captain against itself are not rated.")
    return figure


def write_plots(evaluation: Evaluation, out_dir: str | Path) -> list[Path]:
    """Draw winrate_matrix.png and ratings.png into ``out_dir``; returns their paths."""
    out = Path(out_dir)
    tournament = evaluation.tournament
    matrix = win_rate_matrix(evaluation.results, [r.name for r in evaluation.ratings])
    with styled():
        return [save_png(draw_win_rate_matrix(matrix, tournament), out / WIN_RATE_MATRIX),
                save_png(draw_ratings(rating_bars(evaluation.ratings), tournament), out / RATINGS)]
