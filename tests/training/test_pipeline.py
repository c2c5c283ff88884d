"""The common pipeline on every ruleset, unchanged: its default training config, a tiny run of it, the learned
captain in an `evaluate` tournament against the config's evaluation opponent, and the ONNX export with its
sidecar and parity check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped

from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import make_captain, scripted_names
from naval_agents.evaluation.tournament import build_tournament, evaluate
from naval_agents.export.__main__ import main as export_main
from naval_agents.training.config import TrainConfig, load_train_config
from naval_agents.training.run import train
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match

pytestmark = pytest.mark.train


def default_config(ruleset_id: str, overrides: dict | None = None) -> TrainConfig:
    return load_train_config(f"configs/train/{ruleset_id}.yaml", overrides)


def teachers(config: TrainConfig) -> set[str]:
    teacher = config.imitation.teacher
    return set() if teacher is None else {teacher} if isinstance(teacher, str) else set(teacher.values())


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_default_training_config_names_this_rulesets_captains(ruleset_id):
    config = default_config(ruleset_id)
    assert config.ruleset == ruleset_id and config.name == ruleset_id
    names = set(scripted_names(ruleset_id))
    assert set(config.opponents.pool) <= names and config.eval.opponent in names and teachers(config) <= names
    ruleset = get_ruleset(ruleset_id)
    assert config.scenario in ruleset.scenarios(ruleset.load_config())


@pytest.fixture(scope="module", params=ruleset_ids())
def tiny_run(request, tmp_path_factory) -> tuple[str, Path]:
    """The ruleset's default config, shrunk to one rollout (and a few hundred cloned decisions)."""
    ruleset_id = request.param
    config = default_config(ruleset_id, {
        "total_timesteps": 256, "n_envs": 2, "n_steps": 128, "batch_size": 128,
        "run_dir": str(tmp_path_factory.mktemp("runs")), "name": "smoke", "progress_bar": False,
    })
    config = config.model_copy(update={
        "checkpoint_every": 256,
        "eval": config.eval.model_copy(update={"games": 1, "every": 256}),
        "imitation": config.imitation.model_copy(update={"decisions": 200, "epochs": 1}),
    })
    return ruleset_id, train(config)


def test_tiny_run_finishes_and_records_its_cloning(tiny_run):
    ruleset_id, folder = tiny_run
    manifest = json.loads((folder / "run.json").read_text())
    assert manifest["ruleset"] == ruleset_id and manifest["status"] == "finished"
    for name in ("final_model.zip", "best_model.zip", "config.yaml", "eval_history.json"):
        assert (folder / name).is_file(), name
    cloned = teachers(load_train_config(folder / "config.yaml"))
    assert ("imitation" in manifest) == bool(cloned)


def test_learned_captain_plays_an_evaluation(tiny_run):
    ruleset_id, folder = tiny_run
    opponent = default_config(ruleset_id).eval.opponent
    tournament = build_tournament(ruleset_id, [f"learned={folder}", opponent], 2, seed=7)
    result = evaluate(tournament, workers=1, progress=False)
    # Every learned action was legal (the tournament raises on an illegal one); each seed both ways round.
    assert len(result.results) == 4 and {r.a_side for r in result.results} == {"red", "blue"}


def test_export_passes_parity_and_plays(tiny_run, tmp_path):
    ruleset_id, folder = tiny_run
    out = tmp_path / f"{ruleset_id}.onnx"
    assert export_main([str(folder), "--out", str(out), "--parity", "100"]) == 0
    match = Match(ruleset_id, illegal_action="raise")
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert sidecar["ruleset"]["id"] == ruleset_id
    assert [c["name"] for c in sidecar["action"]["components"]] == [c.name for c in match.action_spec.components]
    onnx_captain = make_captain(str(out), ruleset_id, match.action_spec)
    opponent = make_captain(default_config(ruleset_id).eval.opponent, ruleset_id, match.action_spec)
    match.reset(0)
    sides = list(match.game.sides)
    assert play_game(match, {sides[0]: onnx_captain, sides[1]: opponent}, 5).decisions > 0
