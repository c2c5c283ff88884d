"""Batch-1 decision latency of the ONNX captain next to the torch MaskablePPO captain, in one run.

Both captains answer the same recorded decisions from real games through the
``Captain.act`` call a game uses (torch: ``model.predict`` with the mask; ONNX:
onnxruntime with the graph from ``python -m naval_agents.export``). torch runs with one
thread and onnxruntime with one intra-op thread, a fair single-decision comparison, and torch's
distribution argument checks are off (as in training; they cost several forward passes).
Target: ONNX p50 at most 0.5x torch p50.

    python bench/onnx_latency.py [RUN_FOLDER] [--n 2000] [--seed 0]

Without a run folder it trains a throwaway model (default MlpPolicy net, 256 steps) first.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from naval_agents.captains.base import Captain, Decision
from naval_agents.captains.learned import (
    load_run_captain,
    read_manifest,
    resolve_model_path,
    run_folder_of,
)
from naval_agents.captains.onnx_captain import OnnxCaptain
from naval_agents.export.onnx_export import export_run
from naval_agents.export.parity import collect_decisions
from naval_env.core.ruleset import get_ruleset

TARGET_RATIO = 0.5


def train_throwaway(folder: Path, steps: int = 256) -> Path:
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    import naval_env  # noqa: F401 - registers naval/Pantheon-v0

    env = gym.make("naval/Pantheon-v0")
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(steps)
    folder.mkdir(parents=True, exist_ok=True)
    model.save(folder / "final_model.zip")
    manifest: dict[str, Any] = {"ruleset": "pantheon", "ruleset_version": get_ruleset("pantheon").version, "scenario": None,
                "name": folder.name, "created": None, "seed": 0, "versions": {}, "train_config": {}}
    (folder / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


def latencies_us(captain: Captain, decisions: list[Decision], warmup: int = 100) -> np.ndarray:
    for decision in decisions[:warmup]:
        captain.act(decision)
    samples = np.empty(len(decisions))
    for i, decision in enumerate(decisions):
        start = time.perf_counter_ns()
        captain.act(decision)
        samples[i] = (time.perf_counter_ns() - start) / 1000
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", nargs="?", help="training run folder (default: train a throwaway model)")
    parser.add_argument("--n", type=int, default=2000, help="decisions to time per captain")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)
    with tempfile.TemporaryDirectory() as tmp:
        if args.run:
            run = run_folder_of(resolve_model_path(Path(args.run)))
            print(f"run: {run}")
        else:
            run = train_throwaway(Path(tmp) / "throwaway")
            print("run: throwaway model trained for 256 steps (default MlpPolicy net, 64x64)")
        ruleset_id = read_manifest(run)["ruleset"]
        export = export_run(run, Path(tmp) / "captain.onnx")
        onnx_captain = OnnxCaptain(export.onnx_path, expected_ruleset=ruleset_id, threads=1)
        torch_captain = load_run_captain(run, ruleset_id, deterministic=True, numpy_copy=False)

        recorded = collect_decisions(torch_captain, ruleset_id, args.n, seed=args.seed)
        decisions = [Decision("bench", o, m) for o, m in zip(recorded.observations, recorded.masks)]
        same = sum(np.array_equal(onnx_captain.act(d), a) for d, a in zip(decisions, recorded.actions))

        # Two alternating rounds so drift in machine load hits both captains alike.
        rounds: dict[str, list[np.ndarray]] = {"torch": [], "onnx": []}
        for _ in range(2):
            rounds["torch"].append(latencies_us(torch_captain, decisions))
            rounds["onnx"].append(latencies_us(onnx_captain, decisions))
        torch_us, onnx_us = np.concatenate(rounds["torch"]), np.concatenate(rounds["onnx"])

    print("threads: torch.set_num_threads(1), onnxruntime intra_op_num_threads=1 (fair batch-1 comparison); "
          "torch distribution validate_args off, as in training")
    print(f"decisions: {len(decisions)} from {recorded.games} games, each timed twice per captain; "
          f"same action on {same}/{len(decisions)}")
    print(f"{'captain':<8}{'p50 us':>10}{'p99 us':>10}")
    for name, samples in (("torch", torch_us), ("onnx", onnx_us)):
        print(f"{name:<8}{np.percentile(samples, 50):>10.1f}{np.percentile(samples, 99):>10.1f}")
    p50 = np.percentile(onnx_us, 50) / np.percentile(torch_us, 50)
    p99 = np.percentile(onnx_us, 99) / np.percentile(torch_us, 99)
    verdict = "meets" if p50 <= TARGET_RATIO else "MISSES"
    print(f"ratio onnx/torch: p50 {p50:.2f}, p99 {p99:.2f} ({verdict} the target p50 <= {TARGET_RATIO})")


if __name__ == "__main__":
    main()
