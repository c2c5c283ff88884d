"""Every label of the learning curve and the ratings chart lies inside the picture (none clipped at an edge),
with the long game-count phrases real runs produce."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from naval_agents.evaluation.plots import RatingBar, draw_ratings
from naval_agents.evaluation.tournament import build_tournament
from naval_agents.plots import styled
from naval_agents.training.plots import draw_learning_curve, load_learning_curve


def clipped_labels(figure: Figure) -> list[str]:
    """Empty when everything drawn lies inside the figure (matplotlib's tight box of what is drawn); else the
    texts whose box reaches past an edge (in pixels, one pixel of slack)."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()   # type: ignore[attr-defined]
    drawn, (inches_wide, inches_high) = figure.get_tightbbox(renderer), figure.get_size_inches()
    slack = 1 / figure.dpi
    if (drawn.x0 >= -slack and drawn.y0 >= -slack and drawn.x1 <= inches_wide + slack
            and drawn.y1 <= inches_high + slack):
        return []
    width, height = figure.canvas.get_width_height()
    outside = []
    for text in figure.findobj(Text):
        if not (text.get_visible() and text.get_text().strip()):
            continue
        box = text.get_window_extent(renderer)
        if box.x0 < -1 or box.y0 < -1 or box.x1 > width + 1 or box.y1 > height + 1:
            outside.append(text.get_text())
    return outside


def test_the_learning_curve_keeps_every_title_and_label_inside(tmp_path: Path) -> None:
    rng = random.Random(1)
    folder = tmp_path / "pantheon_general-20261202-061500"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({"ruleset": "crew_phase", "scenario": "duel", "train_config": {
        "eval": {"opponent": "breaker", "games": 40}}}))
    (folder / "eval_history.json").write_text(json.dumps([
        {"timesteps": t, "opponent": opponent, "games": rng.choice([80, 800]), "wins": 20, "draws": 2, "losses": 58,
         "win_rate": 0.3} for t in range(50_000, 1_600_001, 50_000) for opponent in ("breaker", "gunner")]))
    (folder / "train_history.json").write_text(json.dumps([
        {"timesteps": t, "episodes": rng.randint(7, 1234), "reward_mean": -0.5 + t / 4e6, "reward_std": 0.8}
        for t in range(2048, 1_600_001, 8192)]))
    with styled():
        figure = draw_learning_curve(load_learning_curve(folder))
    assert clipped_labels(figure) == []


@pytest.mark.parametrize("games", [4, 800])
def test_the_ratings_chart_keeps_every_label_inside(games: int) -> None:
    names = ["runs/crew_phase_strong-20261202-061500/best_model.zip", "expert:250ms", "zoo", "breaker", "random"]
    tournament = build_tournament("pantheon", ["zoo", "gunner"], games, scenario="duel")
    spread = 20 / games ** 0.5
    bars = [RatingBar(name, mu, mu - spread, mu + spread, 2 * games * 4)
            for name, mu in zip(names, (41.0, 33.5, 30.2, 22.0, 9.5))]
    with styled():
        figure = draw_ratings(bars, tournament)
    assert clipped_labels(figure) == []
