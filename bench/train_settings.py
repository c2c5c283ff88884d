"""Which vector env, env count and torch thread count train fastest here? Measured side by side in one run.

    python bench/train_settings.py [--timesteps 12288] [--config configs/train/pantheon.yaml]

Prints MaskablePPO timesteps per second (rollouts and updates together) for each
setting; the default training config uses the fastest on a 2-core machine.
"""

from __future__ import annotations

import argparse
import time

import torch
from sb3_contrib import MaskablePPO

from naval_agents.training.config import load_train_config
from naval_agents.training.run import make_vec_env

SETTINGS = [("dummy", 1, 1), ("dummy", 2, 1), ("dummy", 4, 1), ("dummy", 8, 1), ("dummy", 4, 2),
            ("subproc", 2, 1), ("subproc", 4, 1)]


def measure(config_path: str, vec_env: str, n_envs: int, threads: int, timesteps: int) -> float:
    # Same rollout (2048 timesteps) and minibatch for every setting, so only the vector env differs.
    n_steps = 2048 // n_envs
    config = load_train_config(config_path, {"vec_env": vec_env, "n_envs": n_envs, "torch_threads": threads,
                                             "n_steps": n_steps, "batch_size": 512})
    torch.set_num_threads(threads)
    torch.distributions.Distribution.set_default_validate_args(False)  # as train() does
    vec = make_vec_env(config)
    ppo = config.ppo
    model = MaskablePPO("MlpPolicy", vec, n_steps=n_steps, batch_size=ppo.batch_size, n_epochs=ppo.n_epochs,
                        policy_kwargs={"net_arch": list(ppo.net_arch)}, device="cpu", seed=0)
    model.learn(n_steps * n_envs)  # warm-up rollout
    start = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=False)
    rate = timesteps / (time.perf_counter() - start)
    vec.close()
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=12288)
    parser.add_argument("--config", default="configs/train/pantheon.yaml")
    args = parser.parse_args()
    results = []
    for vec_env, n_envs, threads in SETTINGS:
        rate = measure(args.config, vec_env, n_envs, threads, args.timesteps)
        results.append((rate, vec_env, n_envs, threads))
        print(f"{vec_env:8s} n_envs={n_envs} torch_threads={threads}: {rate:7.0f} timesteps/s", flush=True)
    best = max(results)
    print(f"fastest: {best[1]} n_envs={best[2]} torch_threads={best[3]} ({best[0]:.0f} timesteps/s; "
          f"{best[0] / results[0][0]:.2f}x dummy/1 env/1 thread)")


if __name__ == "__main__":
    main()
