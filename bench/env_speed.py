"""Random-legal steps per second of every ruleset's Gymnasium env next to CartPole-v1, in one run.

Every env is made with ``gymnasium.make`` (same wrappers) and stepped with a random
action: CartPole's ``action_space.sample()``, a naval env's ``action_space.sample()``,
which draws a legal action from the current mask; the other ships' captain is
``random`` unless ``--opponent`` names another. Target: a naval step costs at most 5x
a CartPole step.

Each env is timed in CPU seconds of this process, in rounds that alternate with
CartPole, keeping each env's best round: on a shared machine other jobs then skew
neither side of a ratio.

    python bench/env_speed.py                                  # every ruleset, default scenarios
    python bench/env_speed.py --ruleset pursuit --scenario chase --opponent hunter
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym

import naval_env  # noqa: F401  - registers naval/*-v0
from naval_env.core.ruleset import get_ruleset, ruleset_ids

TARGET = 5.0


def steps_per_second(env: gym.Env, steps: int, seed: int = 0) -> float:
    env.reset(seed=seed)
    env.action_space.seed(seed)
    start = time.process_time()
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    return steps / max(time.process_time() - start, 1e-9)


def best_of(env: gym.Env, cartpole: gym.Env, steps: int, rounds: int) -> tuple[float, float]:
    """Best steps/s of the env and of CartPole over ``rounds`` alternating rounds."""
    steps_per_second(env, 300)  # warm caches before timing
    steps_per_second(cartpole, 300)
    naval = cart = 0.0
    for round_ in range(rounds):
        naval = max(naval, steps_per_second(env, steps, seed=round_))
        cart = max(cart, steps_per_second(cartpole, steps, seed=round_))
    return naval, cart


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
    cartpole = gym.make("CartPole-v1")
    print(f"{'env':<34} {'scenario':<24} {'steps/s':>9} {'CartPole':>9} {'ratio':>7}")
    for ruleset_id in [args.ruleset] if args.ruleset else ruleset_ids():
        ruleset = get_ruleset(ruleset_id)
        scenario = args.scenario or ruleset.load_config().default_scenario
        env = gym.make(ruleset.gym_id, scenario=scenario, opponent=args.opponent)
        naval, cart = best_of(env, cartpole, args.steps, args.rounds)
        ratio = cart / naval
        verdict = "meets" if ratio <= TARGET else "misses"
        print(f"{ruleset.gym_id:<34} {scenario:<24} {naval:9.0f} {cart:9.0f} {ratio:6.1f}x  "
              f"({verdict} {TARGET:g}x)")


if __name__ == "__main__":
    main()
