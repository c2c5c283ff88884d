"""A CleanRL-style masked PPO in one file: the mask comes in the observation (``mask_in_obs=True``).

    python examples/cleanrl_masked_ppo.py --ruleset pantheon --total-timesteps 20000

What it shows: a plain Gymnasium vector env of the toolkit's single-agent env with the action mask inside the
observation (``obs["action_mask"]``, one flat boolean row per env, the components' masks one after another),
a policy with one categorical head per action component whose illegal logits are set to -inf, and PPO's
update (CleanRL's ``ppo.py``, shortened). The envs run with ``illegal_action="raise"``, so an action the mask
forbids would stop the script: none is ever sampled. Needs the training extra (torch):
``pip install "naval-tactics[train]"``. For real training use ``naval-tactics train`` (MaskablePPO).
"""

from __future__ import annotations

import argparse

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import naval_env  # noqa: F401 - registers naval/<Ruleset>-v0


def make_envs(ruleset: str, num_envs: int, opponent: str) -> gym.vector.SyncVectorEnv:
    env_id = f"naval/{''.join(part.title() for part in ruleset.split('_'))}-v0"
    return gym.vector.SyncVectorEnv([
        lambda: gym.make(env_id, opponent=opponent, mask_in_obs=True, illegal_action="raise")
        for _ in range(num_envs)],
        # SAME_STEP: the observation after a game's last step is already the next game's (CleanRL's convention).
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP)


class Agent(nn.Module):
    """Actor-critic MLP; the actor's logits are split per action component and masked."""

    def __init__(self, obs_size: int, nvec: np.ndarray) -> None:
        super().__init__()
        self.nvec = [int(n) for n in nvec]
        self.critic = nn.Sequential(nn.Linear(obs_size, 128), nn.Tanh(), nn.Linear(128, 1))
        self.actor = nn.Sequential(nn.Linear(obs_size, 128), nn.Tanh(), nn.Linear(128, sum(self.nvec)))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None
            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        logits = self.actor(obs).masked_fill(~mask, -1e9)   # the flat mask lines up with the flat logits
        heads = [torch.distributions.Categorical(logits=part) for part in torch.split(logits, self.nvec, dim=-1)]
        if action is None:
            action = torch.stack([head.sample() for head in heads], dim=-1)
        log_prob = torch.stack([h.log_prob(a) for h, a in zip(heads, action.unbind(-1))], dim=-1).sum(-1)
        entropy = torch.stack([head.entropy() for head in heads], dim=-1).sum(-1)
        return action, log_prob, entropy, self.value(obs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="CleanRL-style masked PPO on a naval-tactics env.")
    parser.add_argument("--ruleset", default="pantheon", help="ruleset id (default pantheon)")
    parser.add_argument("--opponent", default="gunner", help="scripted captain to train against (default gunner)")
    parser.add_argument("--total-timesteps", type=int, default=20_000, help="env steps in all (default 20000)")
    parser.add_argument("--num-envs", type=int, default=4, help="envs stepped together (default 4)")
    parser.add_argument("--num-steps", type=int, default=128, help="steps per env per rollout (default 128)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the envs and of torch (default 0)")
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    envs = make_envs(args.ruleset, args.num_envs, args.opponent)
    obs_size = envs.single_observation_space["observation"].shape[0]
    nvec = envs.single_action_space.nvec
    agent = Agent(obs_size, nvec)
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4, eps=1e-5)
    gamma, gae_lambda, clip, epochs, minibatches = 0.99, 0.95, 0.2, 4, 4
    n, e = args.num_steps, args.num_envs
    obs_buf = torch.zeros((n, e, obs_size))
    mask_buf = torch.zeros((n, e, int(sum(nvec))), dtype=torch.bool)
    act_buf = torch.zeros((n, e, len(nvec)), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((n, e)) for _ in range(4))
    obs, _ = envs.reset(seed=args.seed)
    done = torch.zeros(e)
    steps, outcomes = 0, []
    while steps < args.total_timesteps:
        for t in range(n):
            obs_buf[t], mask_buf[t], done_buf[t] = (torch.as_tensor(obs["observation"]),
                                                    torch.as_tensor(obs["action_mask"]), done)
            with torch.no_grad():
                action, log_prob, _, value = agent.act(obs_buf[t], mask_buf[t])
            act_buf[t], logp_buf[t], val_buf[t] = action, log_prob, value
            obs, reward, terminated, truncated, info = envs.step(action.numpy())
            rew_buf[t] = torch.as_tensor(reward, dtype=torch.float32)
            done = torch.as_tensor(np.logical_or(terminated, truncated), dtype=torch.float32)
            # SAME_STEP keeps a finished game's info under "final_info"; its keys are the same at every step.
            final = info.get("final_info", {})
            outcomes += [str(o) for o, ended in zip(final.get("outcome", []), final.get("_outcome", [])) if ended]
        steps += n * e
        with torch.no_grad():   # generalised advantage estimation, as CleanRL writes it
            next_value = agent.value(torch.as_tensor(obs["observation"]))
            advantages, last = torch.zeros_like(rew_buf), torch.zeros(e)
            for t in reversed(range(n)):
                following = next_value if t == n - 1 else val_buf[t + 1]
                not_done = 1.0 - (done if t == n - 1 else done_buf[t + 1])
                delta = rew_buf[t] + gamma * following * not_done - val_buf[t]
                advantages[t] = last = delta + gamma * gae_lambda * not_done * last
            targets = advantages + val_buf
        flat = [b.reshape(n * e, *b.shape[2:]) for b in (obs_buf, mask_buf, act_buf, logp_buf, advantages, targets)]
        for _ in range(epochs):
            for batch in torch.randperm(n * e).chunk(minibatches):
                b_obs, b_mask, b_act, b_logp, b_adv, b_target = (x[batch] for x in flat)
                _, log_prob, entropy, value = agent.act(b_obs, b_mask, b_act)
                ratio = (log_prob - b_logp).exp()
                b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
                policy_loss = torch.max(-b_adv * ratio, -b_adv * ratio.clamp(1 - clip, 1 + clip)).mean()
                loss = policy_loss + 0.5 * ((value - b_target) ** 2).mean() - 0.01 * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        recent = outcomes[-50:]
        print(f"steps {steps}: {len(outcomes)} games; last {len(recent)}: {recent.count('win')} won, "
              f"{recent.count('draw')} drawn, {recent.count('loss')} lost", flush=True)
    envs.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
