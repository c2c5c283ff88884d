"""Training resolves its scenarios once: one ``TrainingScenarios`` from the config, handed to the SB3 envs, the
quick evaluation, the manifest and the RLlib path alike (issue 42, item 6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped

import naval_agents.training.config as training_config
from naval_agents.training.config import TrainingScenarios, load_train_config
from naval_agents.training.run import train
from naval_env.core.errors import ConfigError
from naval_tactics.commands.train import evaluate_command

pytestmark = pytest.mark.train

DEFAULT = "configs/train/pantheon.yaml"


def _config(scenario: Any, **overrides: Any) -> Any:
    return load_train_config(DEFAULT).model_copy(update={"scenario": scenario, **overrides})


@pytest.mark.parametrize(("choice", "weights"), [
    (None, {None: 1.0}),
    ("squadron", {"squadron": 1.0}),
    (["fleet", "duel"], {"fleet": 0.5, "duel": 0.5}),
    ({"duel": 3, "fleet": 1}, {"duel": 0.75, "fleet": 0.25}),
    ("all", {"duel": 0.25, "mixed_duel": 0.25, "squadron": 0.25, "fleet": 0.25}),
])
def test_the_config_gives_the_weights_the_home_and_the_manifest(choice: Any, weights: dict[Any, float]) -> None:
    scenarios = TrainingScenarios.of(_config(choice))
    assert dict(scenarios.weights) == weights
    assert list(scenarios.weights) == list(weights)          # the config's order: its first is the home
    assert scenarios.home == next(iter(weights)) and scenarios.names == list(weights)
    assert scenarios.manifest() == {name or "default": weight for name, weight in weights.items()}


def test_an_unknown_scenario_is_refused_naming_the_allowed_ones() -> None:
    with pytest.raises(ConfigError, match="'armada': not a pantheon scenario; allowed: duel, mixed_duel"):
        TrainingScenarios.of(_config(["duel", "armada"]))


def test_the_command_line_evaluates_in_the_home_scenario() -> None:
    command = evaluate_command(_config({"fleet": 1, "duel": 5}), Path("runs/x"))
    assert command[command.index("--scenario") + 1] == "fleet"
    assert "--scenario" not in evaluate_command(_config(None), Path("runs/x"))


def test_a_run_works_its_scenarios_out_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    resolve = training_config.scenario_weights

    def counted(*arguments: Any) -> dict[str | None, float]:
        calls.append(arguments[2])
        return resolve(*arguments)

    monkeypatch.setattr(training_config, "scenario_weights", counted)
    config = load_train_config(DEFAULT, {
        "total_timesteps": 64, "n_envs": 2, "n_steps": 32, "batch_size": 64, "run_dir": str(tmp_path),
        "name": "once", "progress_bar": False, "scenario": "fleet"})
    config = config.model_copy(update={"eval": config.eval.model_copy(update={"games": 1, "every": 64})})
    folder = train(config)
    assert calls == ["fleet"], "the run worked its scenarios out more than once (or not through TrainingScenarios)"
    manifest = json.loads((folder / "run.json").read_text())
    assert (manifest["scenario"], manifest["scenarios"]) == ("fleet", {"fleet": 1.0})
