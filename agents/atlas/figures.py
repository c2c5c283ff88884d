"""The atlas's pictures: a win-rate matrix per scenario (drawn as evaluate.py draws its own), the side
advantage of every scenario with its interval, and the game lengths of every scenario as box plots."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from naval_agents.atlas.measure import ScenarioNumbers
from naval_agents.evaluation.plots import draw_win_rate_matrix
from naval_agents.plots import (
    WILSON_NOTE,
    WIN_RATE_AXIS,
    count_phrase,
    footnote,
    headings,
    new_figure,
    save_png,
    styled,
)

SIDE_ADVANTAGE = "side_advantage.png"
GAME_LENGTHS = "game_lengths.png"


def matrix_file(numbers: ScenarioNumbers) -> str:
    return f"{numbers.ruleset}_{numbers.scenario}_winrate.png"


def _label(numbers: ScenarioNumbers) -> str:
    return f"{numbers.ruleset} / {numbers.scenario}"


def draw_side_advantage(scenarios: Sequence[ScenarioNumbers]) -> Figure:
    figure = new_figure(9.5, 2.4 + 0.42 * len(scenarios))
    ax = figure.subplots()
    y = np.arange(len(scenarios))
    for offset, colour, label, pick in ((-0.15, "C0", "all round-robin games", lambda n: n.first_side),
                                        (0.15, "C1", "mirror matches (a captain against itself)",
                                         lambda n: n.mirror_first_side)):
        points = [(i, pick(n)) for i, n in enumerate(scenarios) if pick(n) is not None]
        if not points:
            continue
        rows = np.array([i for i, _ in points]) + offset
        rate = np.array([r.rate for _, r in points])
        low, high = np.array([r.low for _, r in points]), np.array([r.high for _, r in points])
        ax.errorbar(rate, rows, xerr=[rate - low, high - rate], fmt="o", color=colour, capsize=4, label=label)
        for row, (_, r) in zip(rows, points):
            ax.annotate(f"{r.rate:.2f} ({r.games} games)", (r.high, row), xytext=(6, 0),
                        textcoords="offset points", va="center", fontsize=8, color="0.3")
    ax.axvline(0.5, color="0.4", linestyle="--", linewidth=1)
    ax.set_yticks(y, [f"{_label(n)} ({n.sides[0]} first)" for n in scenarios])
    ax.set_ylim(len(scenarios) - 0.5, -0.5)
    ax.set_xlim(0, 1.15)
    ax.set_xlabel(f"{WIN_RATE_AXIS} of the scenario's first side")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.5 / (0.42 * len(scenarios) + 0.8)), ncols=2)  # under the axis label
    headings(figure, "Side advantage: the first side's win rate in each scenario",
             f"{count_phrase((n.first_side.games for n in scenarios), 'games')} per scenario; bars: {WILSON_NOTE}; "
             "dashed: no advantage")
    footnote(figure, "Every pairing plays each seed once from either side, so the captains' strengths cancel and what "
                     "remains is the side's own advantage. Mirror matches are played only where both sides field the "
                     "same ship classes; one game per captain and seed.")
    return figure


def draw_game_lengths(scenarios: Sequence[ScenarioNumbers]) -> Figure:
    figure = new_figure(9.5, 2.4 + 0.42 * len(scenarios))
    ax = figure.subplots()
    stats = [{"label": _label(n), "med": n.lengths.median, "q1": n.lengths.q1, "q3": n.lengths.q3,
              "whislo": n.lengths.shortest, "whishi": n.lengths.longest, "mean": n.lengths.mean, "fliers": []}
             for n in scenarios]
    ax.bxp(stats, orientation="horizontal", showmeans=True, widths=0.55,
           meanprops={"marker": "D", "markerfacecolor": "C1", "markeredgecolor": "C1", "markersize": 5})
    ax.set_ylim(len(scenarios) + 0.5, 0.5)
    ax.set_xlabel("game length (rounds)")
    headings(figure, "Game lengths: rounds per game in each scenario",
             f"{count_phrase((n.lengths.games for n in scenarios), 'games')} per scenario (every round-robin game); "
             "box: quartiles; line: median; diamond: mean; whiskers: shortest and longest game")
    footnote(figure, "Games that reach the ruleset's round limit end as draws (counted in the atlas's length table).")
    return figure


def write_figures(scenarios: Sequence[ScenarioNumbers], folder: str | Path) -> list[Path]:
    """One matrix per scenario, the side-advantage chart and the game-length chart; returns their paths."""
    out = Path(folder)
    paths = []
    with styled():
        for numbers in scenarios:
            figure = draw_win_rate_matrix(numbers.matrix, numbers.games.tournament, source="docs/atlas.md")
            paths.append(save_png(figure, out / matrix_file(numbers)))
        paths.append(save_png(draw_side_advantage(scenarios), out / SIDE_ADVANTAGE))
        paths.append(save_png(draw_game_lengths(scenarios), out / GAME_LENGTHS))
    return paths
