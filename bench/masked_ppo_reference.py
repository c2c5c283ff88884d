"""A minimal masked PPO in one file, in the style of CleanRL's ``ppo.py``: the yardstick for training speed.

    python bench/masked_ppo_reference.py --config pantheon --iterations 10

Same env as ``naval-tactics train`` (the run config's training env, opponents and all), same sizes as the
config (``n_envs`` x ``n_steps`` a rollout, minibatch, epochs, separate actor and critic of ``net_arch``
tanh layers, SB3's defaults for the rest), and masked per-component logits as in CleanRL's gym-microrts
PPO (one ``Categorical`` per MultiDiscrete component). No evaluation, checkpoint or log. It prints
timesteps per second over the iterations after the first (start-up left out); ``bench/train_throughput.py``
reads :func:`steady_rate`.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

from naval_agents.training.config import TrainConfig, load_train_config
from naval_agents.training.run import make_env


@dataclass
class Settings:
    """What the reference reads from a run config (the rest are SB3's PPO defaults)."""

    n_envs: int
    """games stepped side by side"""
    n_steps: int
    """timesteps per game per rollout"""
    batch_size: int
    """minibatch size"""
    n_epochs: int
    """passes over each rollout"""
    net_arch: list[int]
    """hidden widths of the actor and of the critic (separate networks)"""
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    seed: int = 0

    @classmethod
    def of(cls, config: TrainConfig) -> Settings:
        ppo = config.ppo
        return cls(config.n_envs, ppo.n_steps, ppo.batch_size, ppo.n_epochs, list(ppo.net_arch), ppo.learning_rate,
                   ppo.gamma, ppo.gae_lambda, ppo.clip_range, ppo.ent_coef, ppo.vf_coef, ppo.max_grad_norm,
                   config.seed)


def mlp(sizes: list[int], out: int, gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        layers += [layer_init(nn.Linear(a, b)), nn.Tanh()]
    return nn.Sequential(*layers, layer_init(nn.Linear(sizes[-1], out), gain))


def layer_init(layer: nn.Linear, gain: float = float(np.sqrt(2))) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.constant_(layer.bias, 0.0)
    return layer


class Agent(nn.Module):
    def __init__(self, n_obs: int, nvec: list[int], net_arch: list[int]) -> None:
        super().__init__()
        self.nvec = nvec
        self.actor = mlp([n_obs, *net_arch], sum(nvec), 0.01)
        self.critic = mlp([n_obs, *net_arch], 1, 1.0)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(self, obs: torch.Tensor, masks: torch.Tensor, action: torch.Tensor | None = None
            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        logits = torch.where(masks, self.actor(obs), torch.tensor(-1e8))
        parts = [Categorical(logits=split) for split in torch.split(logits, self.nvec, dim=1)]
        if action is None:
            action = torch.stack([p.sample() for p in parts], dim=1)
        log_prob = torch.stack([p.log_prob(a) for p, a in zip(parts, action.T, strict=True)]).sum(0)
        mask_parts = torch.split(masks, self.nvec, dim=1)
        entropy = torch.stack([torch.where(m, p.logits * p.probs, 0.0).sum(-1)
                               for p, m in zip(parts, mask_parts, strict=True)]).sum(0).neg()
        return action, log_prob, entropy, self.value(obs)


def steady_rate(config: TrainConfig, iterations: int, clock: Callable[[], float] = time.perf_counter) -> float:
    """Timesteps per second of iterations 2..``iterations`` (rollout and update each), seconds by ``clock``."""
    s = Settings.of(config)
    torch.manual_seed(s.seed)
    np.random.seed(s.seed)
    envs = [make_env(config, rank)() for rank in range(s.n_envs)]
    nvec = [int(n) for n in envs[0].action_space.nvec]
    n_obs = int(np.prod(envs[0].observation_space.shape))
    agent = Agent(n_obs, nvec, s.net_arch)
    optimizer = torch.optim.Adam(agent.parameters(), lr=s.learning_rate, eps=1e-5)
    obs_buf = torch.zeros(s.n_steps, s.n_envs, n_obs)
    mask_buf = torch.zeros(s.n_steps, s.n_envs, sum(nvec), dtype=torch.bool)
    act_buf = torch.zeros(s.n_steps, s.n_envs, len(nvec), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros(s.n_steps, s.n_envs) for _ in range(4))
    obs = torch.as_tensor(np.stack([env.reset(seed=s.seed * 1000 + i)[0] for i, env in enumerate(envs)]))
    masks = torch.as_tensor(np.stack([env.action_masks() for env in envs]))
    done = torch.zeros(s.n_envs)
    started = 0.0
    for iteration in range(iterations):
        if iteration == 1:
            started = clock()
        for step in range(s.n_steps):
            obs_buf[step], mask_buf[step], done_buf[step] = obs, masks, done
            with torch.no_grad():
                action, logp, _, value = agent.act(obs, masks)
            act_buf[step], logp_buf[step], val_buf[step] = action, logp, value
            next_obs, rewards, dones = [], [], []
            for env, a in zip(envs, action.numpy(), strict=True):
                o, r, terminated, truncated, _ = env.step(a)
                if terminated or truncated:
                    o, _ = env.reset()
                next_obs.append(o)
                rewards.append(r)
                dones.append(terminated or truncated)
            obs = torch.as_tensor(np.stack(next_obs))
            masks = torch.as_tensor(np.stack([env.action_masks() for env in envs]))
            rew_buf[step], done = torch.as_tensor(rewards, dtype=torch.float32), torch.as_tensor(dones, dtype=torch.float32)
        with torch.no_grad():  # generalized advantage estimation
            next_value = agent.value(obs)
            advantages = torch.zeros_like(rew_buf)
            last = torch.zeros(s.n_envs)
            for t in reversed(range(s.n_steps)):
                next_done = done if t == s.n_steps - 1 else done_buf[t + 1]
                following = next_value if t == s.n_steps - 1 else val_buf[t + 1]
                delta = rew_buf[t] + s.gamma * following * (1 - next_done) - val_buf[t]
                last = delta + s.gamma * s.gae_lambda * (1 - next_done) * last
                advantages[t] = last
            returns = advantages + val_buf
        b_obs, b_masks = obs_buf.view(-1, n_obs), mask_buf.view(-1, sum(nvec))
        b_act, b_logp = act_buf.view(-1, len(nvec)), logp_buf.view(-1)
        b_adv, b_ret = advantages.view(-1), returns.view(-1)
        for _ in range(s.n_epochs):
            for batch in torch.randperm(len(b_obs)).split(s.batch_size):
                _, logp, entropy, value = agent.act(b_obs[batch], b_masks[batch], b_act[batch])
                ratio = (logp - b_logp[batch]).exp()
                adv = b_adv[batch]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - s.clip_range, 1 + s.clip_range)).mean()
                loss = pg_loss - s.ent_coef * entropy.mean() + s.vf_coef * ((value - b_ret[batch]) ** 2).mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), s.max_grad_norm)
                optimizer.step()
    elapsed = clock() - started
    for env in envs:
        env.close()
    return (iterations - 1) * s.n_envs * s.n_steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="pantheon", help="run config (a shipped name or a YAML path)")
    parser.add_argument("--iterations", type=int, default=10, help="rollouts and updates (the first is not timed)")
    args = parser.parse_args()
    if args.iterations < 2:
        parser.error(f"--iterations must be at least 2 (the first is not timed), got {args.iterations}")
    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)
    rate = steady_rate(load_train_config(args.config), args.iterations)
    print(f"{args.config}: {rate:.0f} timesteps/s")


if __name__ == "__main__":
    main()
