"""Plots: the numbers behind each chart (exact), and the PNGs a training run and an evaluation leave behind."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
from stable_baselines3.common.callbacks import BaseCallback

import naval_agents.training.run as run_module
from naval_agents.evaluation.plots import Cell, RatingBar, rating_bars, win_rate_matrix
from naval_agents.evaluation.ratings import Rating
from naval_agents.evaluation.report import write_results
from naval_agents.evaluation.stats import GameResult
from naval_agents.evaluation.tournament import build_tournament, evaluate
from naval_agents.plots import count_phrase, scenario_name
from naval_agents.training.config import load_train_config
from naval_agents.training.plots import (
    EvalPoint,
    RewardPoint,
    eval_points,
    load_learning_curve,
    plot_learning_curve,
    reward_points,
)
from naval_agents.training.run import train
from tests.helpers import assert_png

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[2]
# Wilson 95% bounds checked against statsmodels in tests/evaluation/test_evaluation.py (WILSON_REFERENCE).
SEVEN_AND_A_HALF_OF_20 = (0.1997708556646315, 0.5905104338485733)
FIVE_OF_10 = (0.236593090512564, 0.763406909487436)
ZERO_OF_10 = (0.0, 0.2775327998628892)



# ------------------------------------------------------------------------------ learning curve data
def test_eval_points_give_each_opponent_its_rates_and_wilson_intervals() -> None:
    history: list[dict[str, Any]] = [
        # written before opponents and counts were recorded: the run's settings fill them in
        {"timesteps": 256, "win_rate": 0.5},
        {"timesteps": 512, "win_rate": 0.375, "opponent": "gunner", "games": 20, "wins": 7, "draws": 1,
         "losses": 12, "final": False},
        {"timesteps": 512, "win_rate": 0.0, "opponent": "rammer", "games": 10, "wins": 0, "draws": 0, "losses": 10,
         "final": False},
        {"timesteps": 600, "win_rate": 0.375, "opponent": "gunner", "games": 20, "wins": 7, "draws": 1,
         "losses": 12, "final": True},
    ]
    curves = eval_points(history, opponent="gunner", games=10)
    assert list(curves) == ["gunner", "rammer"]
    gunner, rammer = curves["gunner"], curves["rammer"]
    assert [(p.timesteps, p.games, p.final) for p in gunner] == [(256, 10, False), (512, 20, False), (600, 20, True)]
    assert [p.win_rate for p in gunner] == [0.5, 0.375, 0.375]
    assert (gunner[0].low, gunner[0].high) == pytest.approx(FIVE_OF_10, abs=1e-12)
    assert (gunner[1].low, gunner[1].high) == pytest.approx(SEVEN_AND_A_HALF_OF_20, abs=1e-12)
    assert rammer == [EvalPoint(512, 0.0, 0.0, pytest.approx(ZERO_OF_10[1], abs=1e-12), 10)]  # type: ignore[arg-type]


def test_reward_points_are_means_with_a_95_percent_interval() -> None:
    history = [{"timesteps": 128, "episodes": 4, "win_rate": 0.5, "reward_mean": 1.0, "reward_std": 2.0},
               {"timesteps": 256, "episodes": 1, "win_rate": 1.0, "reward_mean": -0.5, "reward_std": 0.0}]
    first, second = reward_points(history)
    half = 1.959963984540054 * 2.0 / math.sqrt(4)
    assert first == RewardPoint(128, 1.0, pytest.approx(1.0 - half), pytest.approx(1.0 + half), 4)  # type: ignore[arg-type]
    assert second == RewardPoint(256, -0.5, -0.5, -0.5, 1)


def test_count_phrase_and_scenario_name() -> None:
    assert count_phrase([40, 40], "games") == "40 games"
    assert count_phrase([12, 20, 15], "games") == "12–20 games"
    assert scenario_name("pantheon", "fleet") == "fleet"
    assert scenario_name("pantheon", None) == "duel (default)"


def _fake_run(folder: Path, evals: list[dict], rollouts: list[dict]) -> Path:  # type: ignore[type-arg]
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({"ruleset": "pantheon", "scenario": None,
                                                 "train_config": {"eval": {"opponent": "gunner", "games": 5}}}))
    if evals:
        (folder / "eval_history.json").write_text(json.dumps(evals))
    if rollouts:
        (folder / "train_history.json").write_text(json.dumps(rollouts))
    return folder


def test_plot_learning_curve_redraws_from_a_run_folders_files(tmp_path: Path) -> None:
    folder = _fake_run(tmp_path / "run", [{"timesteps": 100 * i, "win_rate": i / 10} for i in range(1, 6)],
                       [{"timesteps": 50 * i, "episodes": 3, "win_rate": 0.5, "reward_mean": i * 0.1,
                         "reward_std": 0.3} for i in range(1, 11)])
    curve = load_learning_curve(folder)
    assert (curve.ruleset, curve.scenario, curve.run) == ("pantheon", "duel (default)", "run")
    assert [p.games for p in curve.evals["gunner"]] == [10] * 5 and len(curve.rewards) == 10
    assert plot_learning_curve(folder) == folder / "learning_curve.png"
    assert_png(folder / "learning_curve.png")
    elsewhere = tmp_path / "pictures" / "curve.png"
    assert plot_learning_curve(folder, out=elsewhere) == elsewhere
    assert_png(elsewhere)


def test_plot_learning_curve_with_nothing_to_draw_writes_nothing(tmp_path: Path) -> None:
    folder = _fake_run(tmp_path / "run", [], [])
    assert plot_learning_curve(folder) is None
    assert not (folder / "learning_curve.png").exists()
    with pytest.raises(FileNotFoundError, match="not a training run folder: it has no run.json"):
        plot_learning_curve(tmp_path)


# ------------------------------------------------------------------------------- evaluation data
def _game(pairing: int, seed: int, swap: bool, winner: str | None, a: str, b: str) -> GameResult:
    a_side, b_side = ("blue", "red") if swap else ("red", "blue")
    winner_side = None if winner is None else (a_side if winner == a else b_side)
    return GameResult(pairing, a, b, seed, swap, a_side, b_side, winner_side, False, 5, 10, 1, 1, 1, 1)


def test_win_rate_matrix_holds_both_views_of_each_pairing() -> None:
    # x vs y: 7 wins, 1 draw, 12 losses of 20; z vs x: 10 of 10 for x; y and z never met.
    outcomes = ["x"] * 7 + [None] + ["y"] * 12
    results = [_game(0, i // 2, bool(i % 2), w, "x", "y") for i, w in enumerate(outcomes)]
    results += [_game(1, i // 2, bool(i % 2), "x", "z", "x") for i in range(10)]
    matrix = win_rate_matrix(results, ["x", "y", "z"])
    low, high = SEVEN_AND_A_HALF_OF_20
    assert matrix.cells[("x", "y")] == Cell(20, 7.5, 0.375, pytest.approx(low, abs=1e-12),  # type: ignore[arg-type]
                                            pytest.approx(high, abs=1e-12))  # type: ignore[arg-type]
    assert matrix.cells[("y", "x")] == Cell(20, 12.5, 0.625, pytest.approx(1 - high, abs=1e-12),  # type: ignore[arg-type]
                                            pytest.approx(1 - low, abs=1e-12))  # type: ignore[arg-type]
    assert matrix.cells[("x", "z")].rate == 1.0 and matrix.cells[("z", "x")].rate == 0.0
    assert matrix.cells[("z", "x")].high == pytest.approx(ZERO_OF_10[1], abs=1e-12)
    assert set(matrix.cells) == {("x", "y"), ("y", "x"), ("x", "z"), ("z", "x")}
    np.testing.assert_array_equal(matrix.grid("rate"), [[np.nan, 0.375, 1.0], [0.625, np.nan, np.nan],
                                                        [0.0, np.nan, np.nan]])
    np.testing.assert_array_equal(matrix.grid("games"), [[np.nan, 20, 10], [20, np.nan, np.nan],
                                                         [10, np.nan, np.nan]])
    with pytest.raises(ValueError, match=r"captains \['z'\] that are not among the matrix's captains \['x', 'y'\]"):
        win_rate_matrix(results, ["x", "y"])


def test_rating_bars_span_mu_plus_minus_three_sigma_in_the_given_order() -> None:
    ratings = [Rating("best", 30.0, 2.0, 24.0, 10), Rating("worst", 20.0, 1.5, 15.5, 12)]
    assert rating_bars(ratings) == [RatingBar("best", 30.0, 24.0, 36.0, 10), RatingBar("worst", 20.0, 15.5, 24.5, 12)]


# ------------------------------------------------------------------------ files a run leaves behind
def test_evaluation_writes_both_pictures_of_its_tables(tmp_path: Path) -> None:
    tournament = build_tournament("pantheon", ["rammer", "gunner", "random"], 2, scenario="mixed_duel")
    evaluation = evaluate(tournament, workers=1, progress=False)
    paths = write_results(evaluation, tmp_path)
    assert [p.name for p in paths[-2:]] == ["winrate_matrix.png", "ratings.png"]
    for path in paths[-2:]:
        assert_png(path)
    matrix = win_rate_matrix(evaluation.results, [r.name for r in evaluation.ratings])
    assert matrix.captains == tuple(r.name for r in evaluation.ratings)
    for summary in evaluation.summaries:  # every cell is the printed table's number, from either side
        cell = matrix.cells[(summary.a, summary.b)]
        assert (cell.games, cell.rate, cell.low, cell.high) == (summary.games, summary.win_rate, summary.ci_low,
                                                                 summary.ci_high)
        mirror = matrix.cells[(summary.b, summary.a)]
        assert mirror.rate == pytest.approx(1 - summary.win_rate)
        assert (mirror.low, mirror.high) == pytest.approx((1 - summary.ci_high, 1 - summary.ci_low))


def test_evaluate_script_leaves_both_pngs(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("evaluate_script_for_plots", ROOT / "evaluate.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = script
    spec.loader.exec_module(script)
    out = tmp_path / "out"
    assert script.main(["--captains", "random", "rammer", "--games", "1", "--workers", "1", "--no-progress",
                        "--out", str(out)]) == 0
    assert_png(out / "winrate_matrix.png")
    assert_png(out / "ratings.png", min_size=(500, 250))


def _tiny_config(run_dir: Path, **eval_settings: int):  # type: ignore[no-untyped-def]
    config = load_train_config("configs/train/pantheon.yaml", {
        "total_timesteps": 512, "n_envs": 2, "n_steps": 128, "batch_size": 128, "run_dir": str(run_dir),
        "name": "plots", "progress_bar": False,
    })
    return config.model_copy(update={"checkpoint_every": 10_000,
                                     "eval": config.eval.model_copy(update=eval_settings)})


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train(_tiny_config(tmp_path_factory.mktemp("runs"), games=2, every=256))


def test_training_run_records_per_opponent_counts_and_rollouts(tiny_run: Path) -> None:
    evals = json.loads((tiny_run / "eval_history.json").read_text())
    assert [(e["timesteps"], e["final"]) for e in evals] == [(256, False), (512, False), (512, True)]
    for entry in evals:
        assert entry["opponent"] == "gunner" and entry["games"] == 4
        assert entry["wins"] + entry["draws"] + entry["losses"] == 4
        assert entry["win_rate"] == (entry["wins"] + entry["draws"] / 2) / 4  # the old key, unchanged in meaning
    rollouts = json.loads((tiny_run / "train_history.json").read_text())
    assert [r["timesteps"] for r in rollouts] == [256, 512]
    assert all(r["episodes"] >= 1 and math.isfinite(r["reward_mean"]) for r in rollouts)
    curve = load_learning_curve(tiny_run)
    assert curve.scenario == "duel"
    assert [p.win_rate for p in curve.evals["gunner"]] == [e["win_rate"] for e in evals]
    assert [p.mean for p in curve.rewards] == [r["reward_mean"] for r in rollouts]


def test_training_run_leaves_its_learning_curve(tiny_run: Path) -> None:
    assert_png(tiny_run / "learning_curve.png")
    assert (tiny_run / "tb").is_dir()  # beside the TensorBoard logs


class _Interrupt(BaseCallback):
    """Stands in for the checkpoint callback and presses Ctrl-C once a first rollout has finished."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__()

    def _on_step(self) -> bool:
        if self.num_timesteps > 300:
            raise KeyboardInterrupt
        return True


def test_interrupted_run_still_draws_what_it_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_module, "CheckpointCallback", _Interrupt)
    with pytest.raises(KeyboardInterrupt):
        train(_tiny_config(tmp_path, games=1, every=100_000))  # no quick evaluation before the interrupt
    [folder] = tmp_path.iterdir()
    assert json.loads((folder / "run.json").read_text())["status"] == "interrupted"
    assert not (folder / "eval_history.json").exists()
    assert len(json.loads((folder / "train_history.json").read_text())) == 1
    assert_png(folder / "learning_curve.png")
