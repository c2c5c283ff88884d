"""MaskablePPO training throughput against plain PPO on the same env, measured side by side in one run.

    python bench/train_speed.py [--timesteps 8192] [--n-envs 4] [--scenario duel]

Three learners, identical hyper-parameters, network and vector env:
- PPO (stable-baselines3), which ignores masks (the env's ``illegal_action="noop"`` policy absorbs them);
- MaskablePPO fed an all-true mask (the cost of the masking machinery alone);
- MaskablePPO fed the real masks (what train.py runs).
Target: MaskablePPO at least 0.8x PPO's timesteps per second.
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3 import PPO
from stable_baselines3.common.vec_env import DummyVecEnv

import naval_env  # noqa: F401


class AllTrueMask(gym.Wrapper):
    def action_masks(self) -> np.ndarray:
        return np.ones(self.env.get_wrapper_attr("action_spec").flat_size, dtype=bool)


def make_vec(scenario: str, n_envs: int, all_true: bool) -> DummyVecEnv:
    def build() -> gym.Env:
        env = gym.make("naval/Pantheon-v0", scenario=scenario, opponent="gunner", learner="random")
        return AllTrueMask(env) if all_true else env

    vec = DummyVecEnv([build] * n_envs)
    vec.seed(0)
    return vec


def rate(algo: type, vec: DummyVecEnv, timesteps: int) -> float:
    model = algo("MlpPolicy", vec, n_steps=256, batch_size=256, n_epochs=5, seed=0, device="cpu",
                 policy_kwargs={"net_arch": [128, 128]})
    model.learn(256 * vec.num_envs)  # warm-up
    start = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=False)
    return timesteps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=8192)
    parser.add_argument("--n-envs", type=int, default=4)
    parser.add_argument("--scenario", default="duel")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)  # as train.py does
    ppo = rate(PPO, make_vec(args.scenario, args.n_envs, False), args.timesteps)
    all_true = rate(MaskablePPO, make_vec(args.scenario, args.n_envs, True), args.timesteps)
    masked = rate(MaskablePPO, make_vec(args.scenario, args.n_envs, False), args.timesteps)
    print(f"PPO (no masks)              : {ppo:7.0f} timesteps/s")
    print(f"MaskablePPO, all-true mask  : {all_true:7.0f} timesteps/s  ({all_true / ppo:.2f}x PPO)")
    print(f"MaskablePPO, real masks     : {masked:7.0f} timesteps/s  ({masked / ppo:.2f}x PPO)")
    verdict = "meets" if masked / ppo >= 0.8 else "misses"
    print(f"MaskablePPO / PPO = {masked / ppo:.2f} ({verdict} the 0.8x target)")


if __name__ == "__main__":
    main()
