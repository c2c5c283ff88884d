"""Random-legal steps per second of every ruleset's Gymnasium env next to a peer board-game env, in one run.

The peer is PettingZoo's ``connect_four_v3`` (``pettingzoo.classic``): a plain-Python board game
with action masks, as shipped (its wrappers included). A peer step is one move: ``env.last()``
(observation and mask), a random legal action from that mask, ``env.step``; the game is reset
when it ends. A naval step is ``gymnasium.make``'s env stepped with ``action_space.sample()``,
which draws a legal action from the current mask; it also plays every other captain's decisions
(``random`` unless ``--opponent`` names another) until the learner's next one. Target: a naval
step costs no more than a peer step (ratio <= 1.0x). CartPole-v1 is timed too, for reference
(the retired target was 5x CartPole).

Each env is timed in CPU seconds of this process, in rounds that alternate the naval env, the
peer and CartPole, keeping each env's best round: on a shared machine other jobs then skew no
side of a ratio.

    python bench/env_speed.py                                  # every ruleset, default scenarios
    python bench/env_speed.py --ruleset pursuit --scenario chase --opponent hunter
    python bench/env_speed.py --steps 2000 --rounds 2          # a quicker, noisier look
"""

from __future__ import annotations

import argparse
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
    args = parser.parse_args()
    if args.scenario and not args.ruleset:
        parser.error("--scenario needs --ruleset")
    peer = aec_timer(peer_env())
    cartpole = gym_timer(gym.make("CartPole-v1"))
    print(f"{'env':<22} {'scenario':<24} {'steps/s':>8} {PEER:>16} {'ratio':>6} {'CartPole':>9} {'ratio':>6}")
    for ruleset_id in [args.ruleset] if args.ruleset else ruleset_ids():
        ruleset = get_ruleset(ruleset_id)
        scenario = args.scenario or ruleset.load_config().default_scenario
        env = gym.make(ruleset.gym_id, scenario=scenario, opponent=args.opponent)
        best = best_of({"naval": gym_timer(env), "peer": peer, "cartpole": cartpole}, args.steps, args.rounds)
        to_peer, to_cartpole = best["peer"] / best["naval"], best["cartpole"] / best["naval"]
        verdict = "meets" if to_peer <= TARGET else "misses"
        print(f"{ruleset.gym_id:<22} {scenario:<24} {best['naval']:8.0f} {best['peer']:16.0f} {to_peer:5.2f}x "
              f"{best['cartpole']:9.0f} {to_cartpole:5.1f}x  ({verdict} {TARGET:.1f}x {PEER})")


if __name__ == "__main__":
    main()
