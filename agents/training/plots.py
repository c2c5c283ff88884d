"""A training run's learning curve, drawn from the files in its run folder.

``eval_history.json`` (one entry per quick evaluation: timesteps, opponent, games, wins, draws,
losses, win_rate) gives the top panel: the learner's win rate against each quick-evaluation
opponent with its 95% Wilson interval. ``train_history.json`` (one entry per rollout: timesteps,
episodes, reward_mean, reward_std) gives the bottom panel: the mean episode reward of the
training games with a 95% interval of that mean. Entries written before a run recorded the
opponent and game count take them from the run's config.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import StrMethodFormatter

from naval_agents.captains.learned import RUN_MANIFEST
from naval_agents.evaluation.stats import Z_95, wilson_interval
from naval_agents.plots import (
    WIN_RATE_AXIS,
    count_phrase,
    footnote,
    new_figure,
    save_png,
    scenario_name,
    styled,
)

EVAL_HISTORY = "eval_history.json"
TRAIN_HISTORY = "train_history.json"
LEARNING_CURVE = "learning_curve.png"
TIMESTEPS_AXIS = "timesteps (env steps of the learner, all training envs together)"
REWARD_AXIS = "episode reward\n(sum of the learner's rewards in one game)"


@dataclass(frozen=True)
class EvalPoint:
    """One quick evaluation against one opponent: win rate (a draw counts half) and its Wilson interval."""

    timesteps: int
    win_rate: float
    low: float
    high: float
    games: int
    final: bool = False


@dataclass(frozen=True)
class RewardPoint:
    """The training games finished in one rollout: mean episode reward and a 95% interval of that mean."""

    timesteps: int
    mean: float
    low: float
    high: float
    episodes: int


@dataclass(frozen=True)
class LearningCurve:
    ruleset: str
    scenario: str
    run: str
    evals: dict[str, list[EvalPoint]]   # by opponent, in the order first evaluated
    rewards: list[RewardPoint]

    @property
    def empty(self) -> bool:
        return not self.evals and not self.rewards


def eval_points(history: Sequence[Mapping[str, Any]], opponent: str, games: int) -> dict[str, list[EvalPoint]]:
    """The quick evaluations by opponent; ``opponent`` and ``games`` stand in where an entry lacks them."""
    curves: dict[str, list[EvalPoint]] = {}
    for entry in history:
        n = int(entry.get("games", games))
        if "wins" in entry:
            points = entry["wins"] + entry["draws"] / 2
        else:  # an entry from before counts were recorded: win_rate is points / games
            points = min(n, entry["win_rate"] * n)
        low, high = wilson_interval(points, n)
        curves.setdefault(entry.get("opponent", opponent), []).append(
            EvalPoint(int(entry["timesteps"]), points / n, low, high, n, bool(entry.get("final", False))))
    return curves


def reward_points(history: Sequence[Mapping[str, Any]]) -> list[RewardPoint]:
    """Per rollout: mean ± 1.96 standard errors (normal approximation; one episode gives no spread)."""
    points = []
    for entry in history:
        n, mean = int(entry["episodes"]), float(entry["reward_mean"])
        half = Z_95 * float(entry["reward_std"]) / math.sqrt(n)
        points.append(RewardPoint(int(entry["timesteps"]), mean, mean - half, mean + half, n))
    return points


def _read_list(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text()) if path.is_file() else []


def load_learning_curve(run_folder: str | Path) -> LearningCurve:
    """The learning curve's data from a run folder (run.json, eval_history.json, train_history.json)."""
    folder = Path(run_folder)
    manifest_path = folder / RUN_MANIFEST
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{str(folder)!r} is not a training run folder: it has no {RUN_MANIFEST}; "
                                "give a folder train.py made (runs/<name>-<time>)")
    manifest = json.loads(manifest_path.read_text())
    config = manifest.get("train_config", {})
    settings = config.get("eval", {})
    scenario = scenario_name(manifest["ruleset"], manifest.get("scenario"), config.get("ruleset_config"))
    return LearningCurve(
        manifest["ruleset"], scenario, folder.name,
        eval_points(_read_list(folder / EVAL_HISTORY), settings.get("opponent", "?"), 2 * settings.get("games", 0)),
        reward_points(_read_list(folder / TRAIN_HISTORY)),
    )


def _draw_evals(ax: Axes, evals: Mapping[str, list[EvalPoint]]) -> None:
    games = [p.games for points in evals.values() for p in points]
    ax.set_title(f"Quick evaluation: win rate per opponent ({count_phrase(games, 'games')} per point, "
                 "95% Wilson interval)" if evals else "Quick evaluation: none was played", loc="left")
    ax.axhline(0.5, color="0.5", lw=1, ls="--")
    for index, (opponent, points) in enumerate(evals.items()):
        colour = f"C{index}"
        for final in (False, True):
            chosen = [p for p in points if p.final == final]
            if not chosen:
                continue
            x = [p.timesteps for p in chosen]
            y = [p.win_rate for p in chosen]
            yerr = [[p.win_rate - p.low for p in chosen], [p.high - p.win_rate for p in chosen]]
            label = (f"final model vs {opponent}" if final else
                     f"vs {opponent} ({count_phrase((p.games for p in chosen), 'games')} per point)")
            ax.errorbar(x, y, yerr=yerr, color=colour, marker="*" if final else "o", ms=11 if final else 5,
                        ls="none" if final else "-", capsize=3, label=label)
            if not final and len(chosen) > 1:
                ax.fill_between(x, [p.low for p in chosen], [p.high for p in chosen], color=colour, alpha=0.12)
    ax.set_ylim(-0.02, 1.02)
    ax.set_ylabel(WIN_RATE_AXIS)
    if evals:
        ax.legend(loc="best")
    else:
        ax.text(0.5, 0.75, "no quick evaluation before the run ended", transform=ax.transAxes, ha="center",
                color="0.4")


def _draw_rewards(ax: Axes, rewards: Sequence[RewardPoint]) -> None:
    episodes = count_phrase((p.episodes for p in rewards), "games")
    # The interval is named in the legend: a longer title ran past the figure's right edge.
    ax.set_title(f"Training games: mean episode reward per rollout ({episodes} per point)" if rewards
                 else "Training games: none finished", loc="left")
    if rewards:
        x = [p.timesteps for p in rewards]
        ax.plot(x, [p.mean for p in rewards], color="C3", marker="." if len(x) < 60 else None,
                label="mean episode reward")
        low, high = [p.low for p in rewards], [p.high for p in rewards]
        interval = "95% interval (mean ± 1.96 standard errors)"
        if len(x) > 1:
            ax.fill_between(x, low, high, color="C3", alpha=0.2, label=interval)
        else:  # a band needs two points
            ax.errorbar(x, [rewards[0].mean], yerr=[[rewards[0].mean - low[0]], [high[0] - rewards[0].mean]],
                        color="C3", capsize=4, ls="none", label=interval)
        ax.legend(loc="best")
    else:
        ax.text(0.5, 0.5, "no training game finished before the run ended", transform=ax.transAxes,
                ha="center", color="0.4")
    ax.set_ylabel(REWARD_AXIS)
    ax.set_xlabel(TIMESTEPS_AXIS)


def draw_learning_curve(curve: LearningCurve) -> Figure:
    width, height = 10, 7.5
    figure = new_figure(width, height, constrained=False)  # redrawn at every quick evaluation: keep it cheap
    top, bottom = figure.subplots(2, 1, sharex=True)
    figure.suptitle(f"{curve.ruleset} / {curve.scenario}: learning curve of {curve.run}", fontweight="bold")
    _draw_evals(top, curve.evals)
    _draw_rewards(bottom, curve.rewards)
    bottom.xaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))
    share = footnote(figure, f"Top: the learner plays each opponent on fixed evaluation seeds, each seed once from either "
                     f"side ({EVAL_HISTORY}); a draw counts ½; ★ the final model, after the last update. Bottom: "
                     f"the games finished during each rollout against the training opponents ({TRAIN_HISTORY}); "
                     "band: mean ± 1.96 × standard deviation / √games.")
    figure.subplots_adjust(left=1.0 / width, right=1 - 0.2 / width, top=1 - 0.75 / height,
                           bottom=share + 0.6 / height, hspace=0.22)  # margins in inches, for titles and labels
    return figure


def plot_learning_curve(run_folder: str | Path, out: str | Path | None = None) -> Path | None:
    """Draw ``learning_curve.png`` (or ``out``) from a run folder's files; None when there is nothing yet to draw."""
    curve = load_learning_curve(run_folder)
    if curve.empty:
        return None
    with styled():
        return save_png(draw_learning_curve(curve), out if out is not None else Path(run_folder) / LEARNING_CURVE)
