"""Training throughput per ruleset, side by side in one run: env, SB3 training, RLlib, a minimal reference.

    python bench/train_throughput.py                                  # every ruleset, this tree
    python bench/train_throughput.py --baseline /work/wt/base         # and an older tree beside it
    python bench/train_throughput.py --rulesets pantheon --short-rollouts 1 --long-rollouts 3   # quick

For each ruleset's default run config (``configs/train/<ruleset>.yaml``):

- ``env``: raw training-env steps per second, random legal learner moves against the config's opponents
  (the env ``train`` builds, without the learning);
- ``sb3``: ``naval-tactics train``'s timesteps per second in steady state: a run of ``--long-rollouts``
  rollouts minus one of ``--short-rollouts`` (start-up, final evaluation and saving cancel; the quick
  evaluations in between count, one per ``eval.every`` timesteps as in a real run). Imitation is
  switched off (it runs before PPO and would cancel too, at minutes a run);
- ``rllib``: the same for the RLlib backend with one env runner of ``n_envs`` games;
- ``reference``: ``bench/masked_ppo_reference.py``, a single-file masked PPO (CleanRL style) of the same
  sizes, on the same env, over ``--reference-iterations`` rollouts and updates (the first not timed).

Each measurement runs in a fresh subprocess. With ``--baseline PATH`` the env and SB3 measurements
also run with ``PYTHONPATH=PATH`` (another checkout, e.g. the old main) at the same time as this tree's
(``--one-at-a-time``: right after), so load on a shared machine hits both alike, and the table shows
this tree / baseline. Seconds are the measuring process's CPU seconds (``--clock wall`` for the wall
clock on a quiet machine): on 2 cores shared with other jobs, wall seconds swing with their load while
CPU seconds of a single-threaded run (torch_threads 1) hold; RLlib (a runner process) is timed by the wall.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TREE = HERE.parent
RULESETS = ("pantheon", "pursuit", "crew_phase", "flotilla", "broadside")
KINDS = ("env", "sb3", "rllib", "reference")
RESULT_PREFIX = "RESULT "


# ------------------------------------------------------------------ measurements (run in a subprocess)
def bench_config(ruleset: str, n_steps: int | None) -> Any:
    """The ruleset's default run config without imitation (and with ``n_steps`` when given, the minibatch
    cut to one rollout where it was larger)."""
    from naval_agents.training.config import load_train_config

    config = load_train_config(ruleset, {"progress_bar": False})
    if n_steps is not None:
        batch_size = min(config.ppo.batch_size, config.n_envs * n_steps)
        config = load_train_config(ruleset, {"n_steps": n_steps, "batch_size": batch_size, "progress_bar": False})
    return config.model_copy(update={"imitation": type(config.imitation)()})


def rollout_size(config: Any) -> int:
    return int(config.n_envs * config.ppo.n_steps)


#: The clock measurements read: ``process`` (this process's CPU seconds, all its threads) holds on a shared,
#: busy machine where wall-clock seconds swing with the load; ``wall`` on a quiet one. RLlib's env runner
#: is another process, so RLlib is always timed by the wall clock.
CLOCKS = {"process": time.process_time, "wall": time.perf_counter}
clock = time.process_time


def measure_env(config: Any, steps: int) -> float:
    """Env steps per second, random legal learner moves (one game after another)."""
    import numpy as np

    from naval_agents.training.run import make_env

    env = make_env(config, rank=0)()
    spec = env.unwrapped.action_spec
    rng = np.random.default_rng(0)
    started = clock()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(spec.sample(env.action_masks(), rng))
        if terminated or truncated:
            env.reset()
    return steps / (clock() - started)


def _timed_run(config: Any, timesteps: int) -> float:
    from naval_agents.training.backends import train_on_backend

    with tempfile.TemporaryDirectory(prefix="train_throughput-") as run_dir:
        started = clock()
        train_on_backend(config.model_copy(update={"total_timesteps": timesteps, "run_dir": run_dir}))
        return clock() - started


def measure_training(config: Any, short_rollouts: int, long_rollouts: int) -> float:
    """Steady timesteps per second: (long - short timesteps) / (long - short seconds)."""
    size = rollout_size(config)
    short, long = short_rollouts * size, long_rollouts * size
    short_s = _timed_run(config, short)
    long_s = _timed_run(config, long)
    # nan (reported as failed) when noise hid the difference: runs too short for the machine's load.
    return (long - short) / (long_s - short_s) if long_s > short_s else math.nan


def rllib_config(config: Any) -> Any:
    """``config`` on the RLlib backend with one env runner stepping ``n_envs`` games, the same rollout."""
    rllib = config.rllib.model_copy(update={"num_env_runners": 1, "num_envs_per_env_runner": config.n_envs,
                                            "train_batch_size": rollout_size(config)})
    return config.model_copy(update={"backend": "rllib", "rllib": rllib})


def measure(kind: str, ruleset: str, args: argparse.Namespace) -> float:
    import torch

    global clock
    clock = time.perf_counter if kind == "rllib" else CLOCKS[args.clock]
    torch.set_num_threads(1)
    config = bench_config(ruleset, args.n_steps)
    if kind == "env":
        return measure_env(config, args.env_steps)
    if kind == "sb3":
        return measure_training(config, args.short_rollouts, args.long_rollouts)
    if kind == "rllib":
        return measure_training(rllib_config(config), args.short_rollouts, args.long_rollouts)
    sys.path.insert(0, str(HERE))
    from masked_ppo_reference import steady_rate

    torch.distributions.Distribution.set_default_validate_args(False)
    return steady_rate(config, args.reference_iterations, clock)


# ------------------------------------------------------------------ the side-by-side run
def start_measurement(kind: str, ruleset: str, args: argparse.Namespace, tree: Path) -> subprocess.Popen[str]:
    """One measurement in a fresh interpreter importing ``tree``, started."""
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", kind, "--rulesets", ruleset,
               "--short-rollouts", str(args.short_rollouts), "--long-rollouts", str(args.long_rollouts),
               "--env-steps", str(args.env_steps), "--reference-iterations", str(args.reference_iterations),
               "--clock", args.clock]
    if args.n_steps is not None:
        command += ["--n-steps", str(args.n_steps)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.Popen(command, env=env, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_measurement(process: subprocess.Popen[str], what: str) -> float | None:
    """The rate a started measurement printed, or None (said on stderr) when it failed."""
    stdout, stderr = process.communicate()
    for line in stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            rate = json.loads(line[len(RESULT_PREFIX):])["rate"]
            if rate is None:
                print(f"  {what}: the long run was not slower than the short one; use more --long-rollouts",
                      file=sys.stderr)
            return None if rate is None else float(rate)
    tail = (stderr or stdout).strip().splitlines()[-3:]
    print(f"  {what} failed (exit {process.returncode}): {' | '.join(tail)}", file=sys.stderr)
    return None


def _cell(value: float | None) -> str:
    return "failed" if value is None else f"{value:,.0f}"


def _ratio(top: float | None, bottom: float | None) -> str:
    return "-" if top is None or bottom is None or bottom <= 0 else f"{top / bottom:.2f}x"


def side_by_side(args: argparse.Namespace) -> list[dict[str, Any]]:
    baseline = Path(args.baseline).resolve() if args.baseline else None
    rows = []
    for ruleset in args.rulesets:
        row: dict[str, Any] = {"ruleset": ruleset}
        for kind in args.kinds:
            started = {kind: start_measurement(kind, ruleset, args, TREE)}
            if baseline is not None and kind in ("env", "sb3"):
                # Both trees at once: on a shared machine whatever else runs slows both alike.
                if args.one_at_a_time:
                    row[kind] = finish_measurement(started.pop(kind), f"{kind} {ruleset}")
                started[f"{kind}_baseline"] = start_measurement(kind, ruleset, args, baseline)
            for key, process in started.items():
                row[key] = finish_measurement(process, f"{key} {ruleset}")
            print(f"  {ruleset} {kind}: {_cell(row[kind])}"
                  + (f" (baseline {_cell(row[f'{kind}_baseline'])})" if f"{kind}_baseline" in row else ""),
                  file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]], kinds: list[str], baseline: bool, same_clock: bool = True) -> str:
    """The rows as a markdown table; ``same_clock`` False (CPU seconds for all but RLlib's wall seconds)
    leaves out the RLlib / SB3 ratio, which would mix the two clocks."""
    heads, cells = ["ruleset"], []
    if "env" in kinds:
        heads += ["env steps/s"] + (["env baseline", "env ratio"] if baseline else [])
    if "sb3" in kinds:
        heads += ["SB3 timesteps/s"] + (["SB3 baseline", "SB3 / baseline"] if baseline else [])
    if "reference" in kinds:
        heads += ["reference"] + (["SB3 / reference"] if "sb3" in kinds else [])
        heads += ["baseline SB3 / reference"] if baseline and "sb3" in kinds else []
    if "rllib" in kinds:
        heads += ["RLlib (1 runner, wall clock)"] + (["RLlib / SB3"] if "sb3" in kinds and same_clock else [])
    for row in rows:
        cell = [row["ruleset"]]
        if "env" in kinds:
            cell += [_cell(row["env"])] + ([_cell(row["env_baseline"]), _ratio(row["env"], row["env_baseline"])]
                                           if baseline else [])
        if "sb3" in kinds:
            cell += [_cell(row["sb3"])] + ([_cell(row["sb3_baseline"]), _ratio(row["sb3"], row["sb3_baseline"])]
                                           if baseline else [])
        if "reference" in kinds:
            cell += [_cell(row["reference"])] + ([_ratio(row["sb3"], row["reference"])] if "sb3" in kinds else [])
            cell += [_ratio(row["sb3_baseline"], row["reference"])] if baseline and "sb3" in kinds else []
        if "rllib" in kinds:
            cell += [_cell(row["rllib"])] + ([_ratio(row["rllib"], row["sb3"])] if "sb3" in kinds and same_clock
                                             else [])
        cells.append(cell)
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    return "\n".join([*lines, *("| " + " | ".join(c) + " |" for c in cells)])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rulesets", nargs="+", default=list(RULESETS), choices=RULESETS)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS, help="what to measure")
    parser.add_argument("--baseline", help="another checkout (PYTHONPATH) to time env and SB3 beside this one")
    parser.add_argument("--short-rollouts", type=int, default=4, help="rollouts of the short training run")
    parser.add_argument("--long-rollouts", type=int, default=29,
                        help="rollouts of the long run (default: 25 more, 51,200 timesteps at 2,048 a "
                             "rollout, so one quick evaluation at every: 50000 falls in between)")
    parser.add_argument("--env-steps", type=int, default=5000, help="env steps timed")
    parser.add_argument("--reference-iterations", type=int, default=6, help="reference rollouts (first untimed)")
    parser.add_argument("--n-steps", type=int, help="override ppo.n_steps (smaller rollouts for a smoke run)")
    parser.add_argument("--measure", choices=KINDS, help=argparse.SUPPRESS)   # one measurement, in a subprocess
    parser.add_argument("--clock", choices=CLOCKS, default="process",
                        help="seconds of CPU time of the measuring process (default; steady on a busy machine) "
                             "or of the wall clock (a quiet machine); RLlib is always timed by the wall clock")
    parser.add_argument("--one-at-a-time", action="store_true",
                        help="time the baseline after this tree, not at the same time (a quiet machine)")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 1 <= args.short_rollouts < args.long_rollouts:
        parser.error(f"need 1 <= --short-rollouts < --long-rollouts, got {args.short_rollouts} and "
                     f"{args.long_rollouts}")
    if args.reference_iterations < 2 or args.env_steps < 1:
        parser.error("--reference-iterations must be at least 2 (the first is not timed), --env-steps at least 1")
    if args.baseline and not (Path(args.baseline) / "agents").is_dir():
        parser.error(f"--baseline {args.baseline}: no agents/ package there; give the root of a checkout")
    if args.measure:
        rate = measure(args.measure, args.rulesets[0], args)
        print(RESULT_PREFIX + json.dumps({"rate": rate if math.isfinite(rate) else None}))
        return
    started = time.perf_counter()
    rows = side_by_side(args)
    print(table(rows, args.kinds, args.baseline is not None, same_clock=args.clock == "wall"))
    print(f"\n{args.clock} clock; {args.short_rollouts} vs {args.long_rollouts} rollouts, {args.env_steps} env steps, "
          f"{args.reference_iterations} reference iterations; {time.perf_counter() - started:.0f} s in all"
          + (f"; baseline {args.baseline}" if args.baseline else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
