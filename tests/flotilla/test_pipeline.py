"""The common pipeline on flotilla, unchanged: the default run config, a tiny training run, the learned
captain behind the captain interface, evaluation and the ONNX export with its parity check."""

from __future__ import annotations

import json

import pytest

from agents.arena import play_game
from agents.registry import make_captain, scripted_names
from agents.training.config import load_train_config
from agents.training.run import train
from naval_env.envs.match import Match

DEFAULT = "configs/train/flotilla.yaml"


def test_default_run_config_is_valid_and_names_flotilla_captains():
    config = load_train_config(DEFAULT)
    assert config.ruleset == "flotilla" and config.scenario == "duel" and config.learner == "random"
    assert config.opponents.mode == "pool"
    names = scripted_names("flotilla")
    assert set(config.opponents.pool) <= set(names) and config.eval.opponent in names


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    config = load_train_config(DEFAULT, {
        "total_timesteps": 256, "n_envs": 2, "n_steps": 128, "batch_size": 128, "run_dir": str(folder),
        "name": "smoke", "progress_bar": False,
    })
    config = config.model_copy(update={"checkpoint_every": 256,
                                       "eval": config.eval.model_copy(update={"games": 1, "every": 256})})
    return train(config)


def test_tiny_training_run_writes_its_folder(tiny_run):
    manifest = json.loads((tiny_run / "run.json").read_text())
    assert manifest["ruleset"] == "flotilla" and manifest["status"] == "finished"
    assert (tiny_run / "final_model.zip").is_file()


def test_learned_captain_plays_and_answers_attacks(tiny_run):
    match = Match("flotilla", scenario="duel", illegal_action="raise")
    captain = make_captain(str(tiny_run), "flotilla", match.action_spec)
    record = play_game(match, {"red": captain, "blue": make_captain("boarder", "flotilla", match.action_spec)}, 3)
    assert record.decisions > 0   # every learned action was legal, or play_game would have raised


def test_export_and_parity(tiny_run, tmp_path):
    from agents.export.__main__ import main

    out = tmp_path / "flotilla.onnx"
    assert main([str(tiny_run), "--out", str(out), "--parity", "200"]) == 0
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert sidecar["ruleset"] == {"id": "flotilla", "version": "1.0"}
    assert [c["name"] for c in sidecar["action"]["components"]] == [
        "facing", "maneuver", "target", "mage_target", "boarding", "reaction"]
    match = Match("flotilla", scenario="duel", illegal_action="raise")
    onnx_captain = make_captain(str(out), "flotilla", match.action_spec)
    assert play_game(match, {"red": onnx_captain, "blue": make_captain("gunner", "flotilla", match.action_spec)},
                     5).decisions > 0
