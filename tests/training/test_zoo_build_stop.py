"""`naval-tactics zoo build` with no --config trains the recipe the shipped card was built with, and SIGTERM
stops it as it stops `train`: a checkpoint, how to resume, exit 130, no traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("stable_baselines3")  # the [train] extra: without it this module is skipped
import yaml

from naval_agents.captains.zoo import zoo_rulesets
from naval_agents.captains.zoo.catalogue import CAPTAINS_DIR, read_facts
from naval_agents.training.checkpoints import complete_checkpoints
from naval_agents.zoo.build import load_build_config
from naval_tactics.commands.zoo import build_config, main

pytestmark = pytest.mark.train

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("ruleset", zoo_rulesets())
def test_a_build_without_config_trains_what_the_card_was_trained_by(ruleset: str) -> None:
    trained_by = read_facts(ruleset)["training"]["command"]   # python train.py --config configs/train/X.yaml ...
    assert f"--config configs/train/{build_config(ruleset, None)}.yaml " in trained_by
    assert build_config(ruleset, "mine.yaml") == "mine.yaml"


def test_a_run_of_the_rulesets_plain_config_is_refused_when_the_card_names_another(tmp_path: Path,
                                                                                    capsys: pytest.CaptureFixture[str]
                                                                                    ) -> None:
    dumped = load_build_config("crew_phase", "crew_phase", seed=0).model_dump()
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "config.yaml").write_text(yaml.safe_dump(dumped, sort_keys=False))
    (folder / "run.json").write_text(json.dumps({"ruleset": "crew_phase", "seed": 0, "scenario": "duel"}))
    shipped = {p.name: p.read_bytes() for p in CAPTAINS_DIR.glob("crew_phase.*")}
    assert main(["build", "--ruleset", "crew_phase", "--run", str(folder)]) == 2
    assert "was not trained by run config 'crew_phase_general'" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in CAPTAINS_DIR.glob("crew_phase.*")} == shipped


def test_sigterm_stops_a_build_like_train_with_a_checkpoint_and_no_traceback(tmp_path: Path) -> None:
    # far more timesteps than the test waits for: the build is stopped in its training, before any export
    config = {
        "name": "stoppable", "ruleset": "pantheon", "scenario": "duel", "total_timesteps": 10_000_000, "n_envs": 2,
        "ppo": {"n_steps": 128, "batch_size": 128, "n_epochs": 1, "net_arch": [16]},
        "opponents": {"mode": "scripted", "pool": ["gunner"]},
        "eval": {"every": 100_000, "games": 1}, "checkpoint_every": 256, "progress_bar": False,
    }
    path = tmp_path / "stoppable.yaml"
    path.write_text(yaml.safe_dump(config))
    shipped = {p.name: p.stat().st_mtime_ns for p in CAPTAINS_DIR.glob("pantheon.*")}
    process = subprocess.Popen([sys.executable, "-m", "naval_tactics", "zoo", "build", "--ruleset", "pantheon",
                                "--config", str(path)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        deadline = time.monotonic() + 300
        while not [c for run in (tmp_path / "runs").glob("*") for c in complete_checkpoints(run)]:
            assert process.poll() is None, process.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "no checkpoint within 300 s"
            time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err[-3000:]
    assert "Traceback" not in err
    assert "naval-tactics train --resume" in err
    assert f"ship the run with: naval-tactics zoo build --ruleset pantheon --config {path} --run RUN_FOLDER" in err
    assert {p.name: p.stat().st_mtime_ns for p in CAPTAINS_DIR.glob("pantheon.*")} == shipped
