"""The RLlib backend end to end, once per test session: pantheon trained a few thousand timesteps with two local
env runners (self-play snapshots pushed to them, checkpoints, quick evaluations), through ``train.py
--backend rllib`` and a YAML ``rllib:`` section; then the ONNX export with parity, and the run folder and the
export in an ``evaluate.py`` tournament (which raises on any illegal action)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
pytest.importorskip("ray")  # and the [ray] extra
import yaml

from naval_agents.captains.learned import load_run_captain
from naval_agents.export.__main__ import main as export_main
from naval_tactics.commands.evaluate import main as evaluate_main
from naval_tactics.commands.train import main as train_main

pytestmark = [pytest.mark.train, pytest.mark.ray]

TIMESTEPS, BATCH = 2000, 1000


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("rllib")
    config = yaml.safe_load(Path("configs/train/pantheon-rllib.yaml").read_text())
    config.update(name="smoke", total_timesteps=TIMESTEPS, checkpoint_every=BATCH, run_dir=str(root / "runs"),
                  progress_bar=False, eval={"every": BATCH, "games": 1, "opponent": "gunner"})
    config["opponents"].update(mode="self_play", self_play={"snapshot_every": BATCH, "max_snapshots": 2})
    config["ppo"].update(batch_size=250, n_epochs=2, net_arch=[64, 64])
    config["rllib"].update(num_env_runners=2, num_envs_per_env_runner=2, train_batch_size=BATCH)
    path = root / "smoke.yaml"
    path.write_text(yaml.safe_dump(config))
    assert train_main(["--config", str(path), "--backend", "rllib"]) == 0
    (folder,) = (root / "runs").iterdir()
    return folder


def test_rllib_run_trains_exports_with_parity_and_plays(run, tmp_path):
    """One test, not several on one fixture: pytest-xdist would train once per worker that runs a part."""
    check_run_folder(run)
    check_saved_policies_load(run)
    check_export_and_tournament(run, tmp_path)


def check_run_folder(run: Path) -> None:
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["status"] == "finished" and manifest["backend"] == "rllib" and manifest["ruleset"] == "pantheon"
    assert {"versions", "cpu_kernels", "command", "train_config"} <= set(manifest)
    assert manifest["versions"]["ray"] != "not installed" and manifest["ray_cluster"]["address"] == "local"
    assert TIMESTEPS <= manifest["timesteps"] < TIMESTEPS + BATCH
    assert manifest["self_play_snapshots"] == 2  # one per BATCH timesteps, pushed to every runner's envs
    assert manifest["envs_given_the_last_snapshot"] == 2 * 2
    history = json.loads((run / "train_history.json").read_text())
    assert [h["timesteps"] >= BATCH * (i + 1) for i, h in enumerate(history)] == [True, True]
    assert all(h["episodes"] > 0 and 0 <= h["win_rate"] <= 1 for h in history)
    evaluations = json.loads((run / "eval_history.json").read_text())
    assert [e["final"] for e in evaluations] == [False, False, True] and all(e["games"] == 2 for e in evaluations)
    rows = list(csv.DictReader((run / "rllib_metrics.csv").open()))
    assert len(rows) == 2 and all(float(r["entropy"]) > 0 and float(r["learning_rate"]) == 3e-4 for r in rows)
    checkpoints = sorted((run / "checkpoints").glob("*.pth"))
    assert len(checkpoints) == 2 and (run / "final_policy.pth").is_file() and (run / "best_policy.pth").is_file()
    assert yaml.safe_load((run / "config.yaml").read_text())["backend"] == "rllib"


def check_saved_policies_load(run: Path) -> None:
    for path in (run, run / "best_policy.pth", *(run / "checkpoints").glob("*.pth")):
        captain = load_run_captain(path, "pantheon")
        assert captain.name == f"ppo:{run.name}"


def check_export_and_tournament(run: Path, tmp_path: Path) -> None:
    out = tmp_path / "smoke.onnx"
    assert export_main([str(run), "--out", str(out), "--parity", "100", "--conformance", "10"]) == 0
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert sidecar["ruleset"]["id"] == "pantheon"
    results = tmp_path / "tournament"
    assert evaluate_main(["--ruleset", "pantheon", "--scenario", "duel", "--captains", f"run={run}",
                          f"onnx={out}", "gunner", "--games", "1", "--workers", "1", "--no-progress", "--out", str(results)]) == 0
    games = list(csv.DictReader((results / "games.csv").open()))
    assert len(games) == 6 and {g["a"] for g in games} == {"run", "onnx"}
    # The run folder and its export decide alike: their two games against each other mirror one another.
    mirror = [g for g in games if {g["a"], g["b"]} == {"run", "onnx"}]
    assert len(mirror) == 2 and mirror[0]["rounds"] == mirror[1]["rounds"]
