"""Size and hit rate of every memoised engine function after random legal play, with an older tree beside it.

Engine caches (``functools.lru_cache`` on rules and observation helpers) must have a size limit and keep
their hit rate: a limit that evicts in the shipped scenarios would cost speed. This plays ``--steps``
random-legal Gymnasium steps in each scenario named (default: every ruleset's default scenario and
flotilla's armada, the largest) and prints, per cache with entries, its limit, entries, calls, misses
and hit rate; with ``--baseline DIR`` the same play in that tree (an older checkout, in a child
process) is printed beside it. The same seed plays the same games in both trees, so equal misses mean
no lost hits (a tree that calls a cache less often, having kept its values elsewhere, shows fewer
calls and a lower rate for the same misses).

    python bench/engine_caches.py --baseline /path/to/old/checkout
    python bench/engine_caches.py --scenario flotilla/armada --steps 20000
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import subprocess
import sys
from typing import Any

DEFAULT_EXTRA = ("flotilla/armada",)


def measure(scenarios: list[str], steps: int) -> dict[str, dict[str, Any]]:
    """Every memoised function of the rulesets' modules: limit, entries, hits and misses after the play."""
    import gymnasium as gym

    import naval_env
    from naval_env.core.ruleset import get_ruleset

    for module in pkgutil.walk_packages(naval_env.__path__, "naval_env."):
        if ".rulesets." in module.name and not module.name.endswith(("render", "picture")):
            importlib.import_module(module.name)
    caches = _caches()
    for cache in caches.values():
        cache.cache_clear()
    for name in scenarios:
        ruleset_id, scenario = name.split("/")
        env = gym.make(get_ruleset(ruleset_id).gym_id, scenario=scenario, opponent="random")
        env.reset(seed=0)
        env.action_space.seed(0)
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                env.reset()
    found = {}
    for name, cache in caches.items():
        info = cache.cache_info()
        if info.hits + info.misses:
            found[name] = {"limit": info.maxsize, "entries": info.currsize, "hits": info.hits, "misses": info.misses}
    return found


def _caches() -> dict[str, Any]:
    found: dict[str, Any] = {}
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("naval_env.rulesets."):
            continue
        for attribute, value in vars(module).items():
            if hasattr(value, "cache_info") and getattr(value, "__module__", None) == module_name:
                found[f"{module_name.removeprefix('naval_env.rulesets.')}.{attribute}"] = value
    return found


def _in_tree(tree: str, scenarios: list[str], steps: int) -> dict[str, dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
    command = [sys.executable, os.path.abspath(__file__), "--json", "--steps", str(steps),
               "--scenario", *scenarios]
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"error: the baseline run failed:\n{done.stderr[-2000:]}")
    result: dict[str, dict[str, Any]] = json.loads(done.stdout)
    return result


def _rate(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "-"
    return f"{entry['hits'] / (entry['hits'] + entry['misses']):.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000, help="random-legal steps per scenario")
    parser.add_argument("--scenario", nargs="+", metavar="RULESET/SCENARIO",
                        help="scenarios to play (default: every ruleset's default scenario and flotilla/armada)")
    parser.add_argument("--baseline", metavar="DIR", help="an older source tree measured beside this one")
    parser.add_argument("--json", action="store_true", help="print the measures as JSON (what --baseline reads)")
    args = parser.parse_args()
    if args.scenario is None:
        from naval_env.core.ruleset import get_ruleset, ruleset_ids

        args.scenario = [f"{r}/{get_ruleset(r).load_config().default_scenario}" for r in ruleset_ids()]
        args.scenario += list(DEFAULT_EXTRA)
    now = measure(args.scenario, args.steps)
    if args.json:
        print(json.dumps(now))
        return
    before = _in_tree(args.baseline, args.scenario, args.steps) if args.baseline else {}
    print(f"{len(args.scenario)} scenarios x {args.steps} random-legal steps: {', '.join(args.scenario)}")
    print(f"{'cache':<36} {'limit':>6} {'entries':>7} {'calls':>9} {'misses':>7} {'hit rate':>8}" + (
        f" | {'before: limit':>13} {'entries':>7} {'calls':>9} {'misses':>7} {'hit rate':>8}" if args.baseline else ""))
    for name in sorted(now.keys() | before.keys()):
        line = f"{name:<36} {_columns(now.get(name), 6)}"
        if args.baseline:
            line += f" | {_columns(before.get(name), 13)}"
        print(line)


def _columns(entry: dict[str, Any] | None, width: int) -> str:
    if entry is None:
        return f"{'-':>{width}} {'-':>7} {'-':>9} {'-':>7} {'-':>8}"
    calls = entry["hits"] + entry["misses"]
    return (f"{entry['limit']!s:>{width}} {entry['entries']:>7} {calls:>9} {entry['misses']:>7} "
            f"{_rate(entry):>8}")

if __name__ == "__main__":
    main()
