"""Random-legal 1v1 steps per second of naval/Pantheon-v0 next to CartPole-v1, in one run.

Both envs are made with ``gymnasium.make`` (same wrappers) and stepped with a
random action: CartPole's ``action_space.sample()``, Pantheon's ``action_space.sample()``,
which draws a legal action from the current mask. Target: a Pantheon step costs
at most 5x a CartPole step.

    python bench/env_speed.py [--steps 20000] [--ruleset pantheon] [--scenario duel]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import naval_env  # noqa: F401  - registers naval/*-v0
from naval_env.core.ruleset import get_ruleset


def steps_per_second(env: gym.Env, steps: int, seed: int = 0) -> float:
    env.reset(seed=seed)
    env.action_space.seed(seed)
    start = time.perf_counter()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20000)
    parser.add_argument("--ruleset", default="pantheon")
    parser.add_argument("--scenario", default="duel")
    parser.add_argument("--opponent", default="random")
    args = parser.parse_args()
    ruleset = get_ruleset(args.ruleset)
    naval = gym.make(ruleset.gym_id, scenario=args.scenario, opponent=args.opponent)
    cartpole = gym.make("CartPole-v1")
    steps_per_second(naval, 500)  # warm caches before timing either
    steps_per_second(cartpole, 500)
    naval_sps = steps_per_second(naval, args.steps)
    cart_sps = steps_per_second(cartpole, args.steps)
    ratio = cart_sps / naval_sps
    print(f"{ruleset.gym_id} ({args.scenario}, vs {args.opponent}): {naval_sps:10.0f} steps/s")
    print(f"CartPole-v1{'':>17}: {cart_sps:10.0f} steps/s")
    verdict = "meets" if ratio <= 5 else "misses"
    print(f"cost ratio: a {ruleset.id} step costs {ratio:.2f}x a CartPole step ({verdict} the 5x target)")


if __name__ == "__main__":
    main()
