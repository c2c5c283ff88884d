"""How long the CLI takes to start: ``naval-tactics --help`` and ``list``, each in a fresh process.

Prints the median and the spread of wall seconds over ``--runs`` processes per command, beside a bare
``python -c pass`` and the imports ``list`` cannot skip (numpy, gymnasium, pydantic, yaml) measured the same
way in the same run, so the share that is this package's own shows. Runs alternate between commands, so a
busy moment of the machine falls on all of them alike.

    python bench/cli_start.py [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import numpy, gymnasium, pydantic, yaml": [sys.executable, "-c", "import numpy, gymnasium, pydantic, yaml"],
    "import naval_env (every ruleset)": [sys.executable, "-c", "import naval_env"],
    "naval-tactics --help": [sys.executable, "-m", "naval_tactics.cli", "--help"],
    "naval-tactics list": [sys.executable, "-m", "naval_tactics.cli", "list"],
}


def wall_seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per command (default: 15)")
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for name, command in COMMANDS.items():   # one unmeasured run each: the file cache warm for all
        wall_seconds(command)
    for _ in range(args.runs):
        for name, command in COMMANDS.items():
            times[name].append(wall_seconds(command))
    print(f"{'command':<42} {'median s':>9} {'min s':>7} {'max s':>7}   ({args.runs} processes each)")
    for name, values in times.items():
        print(f"{name:<42} {statistics.median(values):>9.3f} {min(values):>7.3f} {max(values):>7.3f}")


if __name__ == "__main__":
    main()
