"""Random-legal µs per step of every ruleset's Gymnasium env next to a peer board-game env, in one run.

The peer is PettingZoo's ``connect_four_v3`` (``pettingzoo.classic``): a plain-Python board game
with action masks, as shipped (its wrappers included). A peer step is one move: ``env.last()``
(observation and mask), a random legal action from that mask, ``env.step``; the game is reset
when it ends. A naval step is ``gymnasium.make``'s env stepped with ``action_space.sample()``,
which draws a legal action from the current mask; it also plays every other captain's decisions
(``random`` unless ``--opponent`` names another) until the learner's next one. Target: a naval
step costs no more than a peer step (ratio <= 1.0x). CartPole-v1 is timed too, for reference
(the retired target was 5x CartPole).

Each env is timed in CPU seconds of the process that steps it, in rounds that alternate the naval
env, the peer and CartPole, keeping each env's best round: on a shared machine other jobs then skew
no side of a ratio. ``--baseline DIR`` times the same naval env of another source tree (an older
checkout) in a worker process in the same rounds, and prints before, after and their ratio.

    python bench/env_speed.py                                  # every ruleset, default scenarios
    python bench/env_speed.py --ruleset pursuit --scenario chase --opponent hunter
    python bench/env_speed.py --steps 2000 --rounds 2          # a quicker, noisier look
    python bench/env_speed.py --baseline /path/to/old/checkout # before/after, side by side
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym

import naval_env  # noqa: F401  - registers naval/*-v0
from naval_env.core.ruleset import get_ruleset, ruleset_ids

TARGET = 1.0  # a naval step's cost in peer steps
PEER = "connect_four_v3"

Timer = Callable[[int, int], float]  # (steps, seed) -> steps per CPU second


def gym_timer(env: gym.Env) -> Timer:
    """Times ``env`` stepped with ``action_space.sample()``, reset when an episode ends."""

    def steps_per_second(steps: int, seed: int) -> float:
        env.reset(seed=seed)
        env.action_space.seed(seed)
        start = time.process_time()
        for _ in range(steps):
            _, _, terminated, truncated, _ = env.step(env.action_space.sample())
            if terminated or truncated:
                env.reset()
        return steps / max(time.process_time() - start, 1e-9)

    return steps_per_second


def peer_env() -> Any:
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as exc:  # pettingzoo's classic envs import pygame
        raise SystemExit(f"error: the peer env {PEER} needs pygame ({exc}); "
                         "install the dev extras: pip install -c constraints.txt -e '.[dev]'") from None
    return connect_four_v3.env()


def aec_timer(env: Any) -> Timer:
    """Times a PettingZoo AEC env: one move per step, a random action from the mover's mask."""

    def steps_per_second(steps: int, seed: int) -> float:
        env.reset(seed=seed)
        for agent in env.possible_agents:
            env.action_space(agent).seed(seed)
        start = time.process_time()
        for _ in range(steps):
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
                observation = env.last()[0]
            env.step(env.action_space(env.agent_selection).sample(observation["action_mask"]))
        return steps / max(time.process_time() - start, 1e-9)

    return steps_per_second


def naval_timer(ruleset_id: str, scenario: str, opponent: str) -> Timer:
    return gym_timer(gym.make(get_ruleset(ruleset_id).gym_id, scenario=scenario, opponent=opponent))


class BaselineWorker:
    """The naval envs of another source tree, timed in a child process that imports that tree's ``naval_env``.

    The child runs this file with ``--worker`` and answers one JSON request per line with steps/s.
    """

    def __init__(self, tree: str) -> None:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(tree)}
        self._process = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker"], env=env,
                                         cwd=tree, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def timer(self, ruleset_id: str, scenario: str, opponent: str) -> Timer:
        def steps_per_second(steps: int, seed: int) -> float:
            return float(self._ask({"ruleset": ruleset_id, "scenario": scenario, "opponent": opponent,
                                    "steps": steps, "seed": seed}))

        return steps_per_second

    def _ask(self, request: dict[str, Any]) -> str:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        answer = self._process.stdout.readline()
        if not answer:
            raise SystemExit(f"error: the baseline worker stopped (exit code {self._process.wait()})")
        return answer

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait()


def serve_worker() -> None:
    """``--worker``: time the naval env each stdin line names; the env of a (ruleset, scenario, opponent) is kept."""
    timers: dict[tuple[str, str, str], Timer] = {}
    for line in sys.stdin:
        request = json.loads(line)
        key = (request["ruleset"], request["scenario"], request["opponent"])
        if key not in timers:
            timers[key] = naval_timer(*key)
        print(timers[key](request["steps"], request["seed"]), flush=True)


def best_of(timers: dict[str, Timer], steps: int, rounds: int) -> dict[str, float]:
    """Best steps/s of each timer over ``rounds`` rounds that run every timer in turn."""
    for timer in timers.values():
        timer(300, 0)  # warm caches before timing
    best = dict.fromkeys(timers, 0.0)
    for round_ in range(rounds):
        for name, timer in timers.items():
            best[name] = max(best[name], timer(steps, round_))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000, help="steps per timed round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ruleset", choices=ruleset_ids(), help="one ruleset (default: all)")
    parser.add_argument("--scenario", help="scenario of --ruleset (default: the config's default)")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--baseline", metavar="DIR",
                        help="another source tree (an older checkout) whose naval envs are timed beside these")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        serve_worker()
        return
    if args.scenario and not args.ruleset:
        parser.error("--scenario needs --ruleset")
    if args.baseline and not os.path.isdir(os.path.join(args.baseline, "naval_env")):
        parser.error(f"--baseline {args.baseline!r} holds no naval_env package; give the root of a checkout")
    baseline = BaselineWorker(args.baseline) if args.baseline else None
    peer = aec_timer(peer_env())
    cartpole = gym_timer(gym.make("CartPole-v1"))
    header = f"{'env':<22} {'scenario':<24} {'us/step':>7} {PEER + ' us':>18} {'ratio':>6} {'CartPole us':>11}"
    if baseline:
        header += f" {'before us':>9} {'before ratio':>12} {'speed-up':>8}"
    print(header)
    try:
        for ruleset_id in [args.ruleset] if args.ruleset else ruleset_ids():
            ruleset = get_ruleset(ruleset_id)
            scenario = args.scenario or ruleset.load_config().default_scenario
            timers = {"naval": naval_timer(ruleset_id, scenario, args.opponent), "peer": peer, "cartpole": cartpole}
            if baseline:
                timers["before"] = baseline.timer(ruleset_id, scenario, args.opponent)
            best = best_of(timers, args.steps, args.rounds)
            micros = {name: 1e6 / rate for name, rate in best.items()}
            to_peer = micros["naval"] / micros["peer"]
            verdict = "meets" if to_peer <= TARGET else "misses"
            line = (f"{ruleset.gym_id:<22} {scenario:<24} {micros['naval']:7.1f} {micros['peer']:18.1f} "
                    f"{to_peer:5.2f}x {micros['cartpole']:11.1f}")
            if baseline:
                line += (f" {micros['before']:9.1f} {micros['before'] / micros['peer']:11.2f}x "
                         f"{micros['before'] / micros['naval']:7.2f}x")
            print(f"{line}  ({verdict} {TARGET:.1f}x {PEER})", flush=True)
    finally:
        if baseline:
            baseline.close()


if __name__ == "__main__":
    main()
