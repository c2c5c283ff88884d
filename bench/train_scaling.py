"""Training throughput of the RLlib backend with 1 and 2 env runners against the SB3 backend, in one run.

    python bench/train_scaling.py [--config pantheon-rllib] [--timesteps 8192] [--envs 8] [--address ADDR]

The same run config (ruleset, scenario, opponents, ``ppo:`` settings, 2048-timestep updates, minibatch,
epochs, network) trains three ways; each first does one warm-up update (process start, first games), then
the timer runs over ``--timesteps`` more env steps, sampling and updating both counted:
- SB3: MaskablePPO, ``--envs`` envs in this process (DummyVecEnv), as ``train.py --backend local``;
- RLlib, 1 env runner with ``--envs`` envs, the learner in this process;
- RLlib, 2 env runners with ``--envs``/2 envs each.
Prints timesteps/s, the ratios, the CPUs Ray saw and the load average (other processes share the cores).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import torch

from naval_agents.distributed.ray_runtime import add_ray_arguments, ray_session
from naval_agents.training.config import TrainConfig, load_train_config


def timed(update: Callable[[], int], timesteps: int) -> tuple[float, int]:
    """(timesteps/s, timesteps) over the updates after a warm-up one; ``update`` returns the lifetime count."""
    start_count = update()
    started = time.perf_counter()
    count = start_count
    while count - start_count < timesteps:
        count = update()
    return (count - start_count) / (time.perf_counter() - started), count - start_count


def sb3_rate(config: TrainConfig, envs: int, timesteps: int) -> tuple[float, int]:
    from sb3_contrib import MaskablePPO

    from naval_agents.training.run import make_vec_env

    rollout = config.rllib.train_batch_size // envs
    config = config.model_copy(update={"backend": "local", "n_envs": envs,
                                       "ppo": config.ppo.model_copy(update={"n_steps": rollout})})
    ppo = config.ppo
    model = MaskablePPO("MlpPolicy", make_vec_env(config), n_steps=ppo.n_steps, batch_size=ppo.batch_size,
                        n_epochs=ppo.n_epochs, learning_rate=ppo.learning_rate, gamma=ppo.gamma,
                        gae_lambda=ppo.gae_lambda, clip_range=ppo.clip_range, ent_coef=ppo.ent_coef,
                        policy_kwargs={"net_arch": list(ppo.net_arch)}, seed=config.seed, device="cpu")

    def update() -> int:
        model.learn(rollout * envs, reset_num_timesteps=False)
        return int(model.num_timesteps)

    return timed(update, timesteps)


def rllib_rate(config: TrainConfig, runners: int, envs_per_runner: int, timesteps: int) -> tuple[float, int]:
    from naval_agents.training.rllib.train import build_algorithm

    config = config.model_copy(update={"rllib": config.rllib.model_copy(update={
        "num_env_runners": runners, "num_envs_per_env_runner": envs_per_runner})})
    algo = build_algorithm(config)
    try:
        return timed(lambda: int(algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]), timesteps)
    finally:
        algo.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="pantheon-rllib", help="run config (default pantheon-rllib)")
    parser.add_argument("--timesteps", type=int, default=8192, help="timed env steps per backend (default 8192)")
    parser.add_argument("--envs", type=int, default=8, help="envs in all, per backend (default 8)")
    add_ray_arguments(parser, backends=("rllib",), default="rllib")
    args = parser.parse_args(argv)
    if args.timesteps < 1 or args.envs < 2 or args.envs % 2:
        parser.error("--timesteps must be positive and --envs an even number of 2 or more")
    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)
    config = load_train_config(args.config, {"backend": "rllib", "progress_bar": False})
    load_before = os.getloadavg()
    rows = [("SB3 (MaskablePPO, 1 process)", *sb3_rate(config, args.envs, args.timesteps))]
    with ray_session(args.address) as ray:
        cpus = ray.cluster_resources().get("CPU")
        rows.append((f"RLlib, 1 env runner x {args.envs} envs", *rllib_rate(config, 1, args.envs, args.timesteps)))
        rows.append((f"RLlib, 2 env runners x {args.envs // 2} envs",
                     *rllib_rate(config, 2, args.envs // 2, args.timesteps)))
    load_after = os.getloadavg()
    print(f"{config.ruleset} {config.scenario or 'default'}: updates of {config.rllib.train_batch_size} timesteps, "
          f"minibatch {config.ppo.batch_size}, {config.ppo.n_epochs} epochs, net {config.ppo.net_arch}; "
          f"Ray CPUs {cpus}, os.cpu_count() {os.cpu_count()}")
    print(f"{'backend':<36} {'timesteps':>9} {'timesteps/s':>12} {'vs SB3':>7}")
    for name, rate, steps in rows:
        print(f"{name:<36} {steps:>9} {rate:>12.0f} {rate / rows[0][1]:>6.2f}x")
    print(f"RLlib 2 runners / 1 runner: {rows[2][1] / rows[1][1]:.2f}x")
    print(f"load average (1 min) before {load_before[0]:.1f}, after {load_after[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
