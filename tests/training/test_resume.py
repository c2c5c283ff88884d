"""Resumable training: a run killed after a checkpoint goes on to its total with its step count and histories."""

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

from naval_agents.training.checkpoints import ResumeError, complete_checkpoints, latest_checkpoint

pytestmark = pytest.mark.train

TOTAL = 2048
EVERY = 512


def write_config(tmp_path: Path) -> Path:
    config = {
        "name": "resumable", "ruleset": "pantheon", "scenario": "duel", "total_timesteps": TOTAL, "n_envs": 2,
        "ppo": {"n_steps": 128, "batch_size": 128, "n_epochs": 1, "net_arch": [16],
                "learning_rate_schedule": "linear"},
        "opponents": {"mode": "self_play", "pool": ["gunner"], "self_play": {"snapshot_every": 256}},
        "eval": {"every": 512, "games": 1}, "checkpoint_every": EVERY, "progress_bar": False,
        "run_dir": str(tmp_path / "runs"),
    }
    path = tmp_path / "resumable.yaml"
    path.write_text(yaml.safe_dump(config))
    return path


def train_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "naval_tactics", "train", *args]


def start_and_wait_for_checkpoint(tmp_path: Path, at_least: int) -> tuple[subprocess.Popen, Path]:
    process = subprocess.Popen(train_command("--config", str(write_config(tmp_path))), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=os.environ.copy())
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        folders = list((tmp_path / "runs").glob("resumable-*"))
        if folders and any(int(p.name.split("-")[1]) >= at_least for p in complete_checkpoints(folders[0])):
            return process, folders[0]
        assert process.poll() is None, process.communicate()[1].decode()[-2000:]
        time.sleep(0.2)
    process.kill()
    pytest.fail("no checkpoint within 300 s")


def test_a_killed_run_resumes_to_its_total_with_continuous_histories(tmp_path):
    process, folder = start_and_wait_for_checkpoint(tmp_path, EVERY)
    process.send_signal(signal.SIGKILL)
    process.wait()
    killed_at = latest_checkpoint(folder).step
    assert EVERY <= killed_at < TOTAL
    assert json.loads((folder / "run.json").read_text())["status"] == "running"   # it never knew

    done = subprocess.run(train_command("--resume", str(folder)), check=False, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"resumed {folder} at {killed_at} of {TOTAL}" in done.stderr
    manifest = json.loads((folder / "run.json").read_text())
    assert manifest["status"] == "finished" and manifest["resumed_from"] == killed_at
    assert (folder / "final_model.zip").is_file()
    assert latest_checkpoint(folder).step == TOTAL
    steps = [entry["timesteps"] for entry in json.loads((folder / "train_history.json").read_text())]
    rollout = 128 * 2
    assert steps == list(range(rollout, TOTAL + 1, rollout))   # one entry a rollout, none lost or doubled
    evaluations = json.loads((folder / "eval_history.json").read_text())
    assert [e["timesteps"] for e in evaluations if not e["final"]] == sorted(
        {e["timesteps"] for e in evaluations if not e["final"]})
    assert evaluations[-1]["final"] and evaluations[-1]["timesteps"] == TOTAL

    newest = complete_checkpoints(folder)[-1]   # a checkpoint file changed after it was written is refused
    (newest / "policy.pth").write_bytes(b"swapped")
    with pytest.raises(ResumeError, match="missing or changed since the checkpoint was written"):
        latest_checkpoint(folder)


def test_sigterm_writes_a_checkpoint_and_says_how_to_resume(tmp_path):
    process, folder = start_and_wait_for_checkpoint(tmp_path, EVERY)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr.decode()[-2000:]
    assert f"naval-tactics train --resume {folder}" in stderr.decode()
    manifest = json.loads((folder / "run.json").read_text())
    assert manifest["status"] == "interrupted"
    assert not list((folder / "resume").glob(".*partial"))


def test_a_folder_not_made_by_train_is_refused(tmp_path):
    (tmp_path / "model.zip").write_bytes(b"not ours")
    with pytest.raises(ResumeError, match="not a training run folder of naval-tactics"):
        latest_checkpoint(tmp_path)
    done = subprocess.run(train_command("--resume", str(tmp_path)), check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "not a training run folder of naval-tactics" in done.stderr
    assert "Traceback" not in done.stderr


def test_resume_takes_no_other_run_settings(tmp_path):
    done = subprocess.run(train_command("--resume", str(tmp_path), "--seed", "3"), check=False, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "drop --seed" in done.stderr
