"""Machine instructions per random-legal env step, counted by valgrind's callgrind: a measure of a change of a
few per cent that a loaded machine's timings cannot resolve.

Each count runs the ruleset's Gymnasium env (default scenario, ``random`` opponent, ``action_space.sample()``
for the learner, the same seeds every time) in a child process under ``valgrind --tool=callgrind`` with
instrumentation off: the child warms up, switches counting on with ``callgrind_control``, steps, and switches
it off again, so imports and warm-up are not counted. ``PYTHONHASHSEED=0`` fixes set and dict orders, so two
counts of the same tree agree to about 0.1%. Instructions are not time (the naval envs run Python, the peer
mostly numpy's compiled loops), so a count compares trees, never envs; ``bench/env_speed.py`` gives the times.

    python bench/env_instructions.py --ruleset flotilla
    python bench/env_instructions.py --baseline /path/to/old/checkout --steps 1000

Needs valgrind (``apt-get install valgrind``); a count of 1,000 steps takes under a minute.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

from naval_env.core.ruleset import ruleset_ids

WARM_UP = 300


def count(tree: str, ruleset_id: str, steps: int) -> int:
    """Instructions of ``steps`` env steps of ``tree``'s env for ``ruleset_id``."""
    with tempfile.TemporaryDirectory() as scratch:
        command = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                   f"--callgrind-out-file={os.path.join(scratch, 'callgrind.out')}",
                   sys.executable, os.path.abspath(__file__), "--worker", ruleset_id, str(steps)]
        env = {**os.environ, "PYTHONPATH": os.path.abspath(tree), "PYTHONHASHSEED": "0"}
        done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, check=False)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"error: the count of {ruleset_id} in {tree} failed:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def worker(ruleset_id: str, steps: int) -> None:
    """``--worker``: warm up, then step with callgrind counting."""
    import gymnasium as gym

    import naval_env  # noqa: F401  - registers naval/*-v0
    from naval_env.core.ruleset import get_ruleset

    env = gym.make(get_ruleset(ruleset_id).gym_id, opponent="random")
    env.reset(seed=0)
    env.action_space.seed(0)

    def run(n: int) -> None:
        for _ in range(n):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                env.reset()

    run(WARM_UP)
    subprocess.run(["callgrind_control", "--instr=on", str(os.getpid())], capture_output=True, check=True)
    run(steps)
    subprocess.run(["callgrind_control", "--instr=off", str(os.getpid())], capture_output=True, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000, help="counted steps per ruleset")
    parser.add_argument("--ruleset", choices=ruleset_ids(), help="one ruleset (default: all)")
    parser.add_argument("--baseline", metavar="DIR", help="another source tree (an older checkout) counted beside")
    parser.add_argument("--worker", nargs=2, metavar=("RULESET", "STEPS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]))
        return
    if args.steps < 1:
        parser.error(f"--steps must be at least 1, not {args.steps}")
    if args.baseline and not os.path.isdir(os.path.join(args.baseline, "naval_env")):
        parser.error(f"--baseline {args.baseline!r} holds no naval_env package; give the root of a checkout")
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("error: valgrind is not installed; install it (apt-get install valgrind) to count")
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    header = f"{'ruleset':<12} {'instructions/step':>17}"
    if args.baseline:
        header += f" {'before':>10} {'change':>7}"
    print(header)
    for ruleset_id in [args.ruleset] if args.ruleset else ruleset_ids():
        now = count(here, ruleset_id, args.steps) / args.steps
        line = f"{ruleset_id:<12} {now:17,.0f}"
        if args.baseline:
            before = count(args.baseline, ruleset_id, args.steps) / args.steps
            line += f" {before:10,.0f} {now / before - 1:+7.1%}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
