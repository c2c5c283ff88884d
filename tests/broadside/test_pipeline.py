"""The common pipeline on this ruleset, unchanged: a tiny training run, its captain in a game, and an ONNX export
with parity against the torch policy."""

import json

import pytest

from agents.arena import play_game
from agents.export.onnx_captain import OnnxCaptain
from agents.export.onnx_export import export_run
from agents.export.parity import check_parity
from agents.learned import load_run_captain
from agents.registry import make_captain
from agents.training.config import load_train_config
from agents.training.run import train
from naval_env.envs.match import Match

DEFAULT = "configs/train/broadside.yaml"


def test_default_training_config_is_valid():
    config = load_train_config(DEFAULT)
    assert config.ruleset == "broadside" and config.scenario == "galley_vs_sailing_ship"
    assert set(config.opponents.pool) == {"gunner", "rammer"}
    # The galley (red_0) is weighted, the sailing ship still played; each side cloned from its own teacher.
    assert set(config.learner) == {"red_0", "blue_0"} and config.learner.count("red_0") > config.learner.count("blue_0")
    assert config.imitation.teacher == {"red": "rammer", "blue": "gunner"}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    config = load_train_config(DEFAULT, {
        "total_timesteps": 256, "n_envs": 2, "n_steps": 128, "batch_size": 128,
        "run_dir": str(tmp_path_factory.mktemp("runs")), "name": "smoke", "progress_bar": False,
    })
    config = config.model_copy(update={"eval": config.eval.model_copy(update={"games": 1, "every": 10_000}),
                                       "imitation": config.imitation.model_copy(update={"decisions": 200, "epochs": 1})})
    return train(config)


def test_train_evaluate_and_export_work_on_broadside(tiny_run, tmp_path):
    manifest = json.loads((tiny_run / "run.json").read_text())
    assert manifest["ruleset"] == "broadside" and manifest["status"] == "finished"
    assert manifest["imitation"]["teacher"] == {"red": "rammer", "blue": "gunner"}
    match = Match("broadside", scenario="fleet_with_iceberg", illegal_action="raise")
    learned = make_captain(str(tiny_run), "broadside", match.action_spec)
    record = play_game(match, {"red": learned, "blue": make_captain("gunner", "broadside", match.action_spec)}, 2)
    assert record.decisions > 0                  # every learned action was legal, or play_game would have raised
    result = export_run(tiny_run, tmp_path / "broadside.onnx")
    onnx = OnnxCaptain(result.onnx_path, expected_ruleset="broadside")
    report = check_parity(load_run_captain(tiny_run, "broadside"), onnx, n=200, opponents=["rammer"])
    assert report.ok, report
