"""Behaviour cloning before PPO: the policy first imitates a scripted captain, the value head fits its returns.

PPO from a random policy spends most of a short budget rediscovering what a scripted
captain already knows (sail, man the guns, keep the arc). Starting from a copy of the
strongest scripted captain lets the whole PPO budget go to improving on it. The value
head is fitted to the teacher's discounted returns as well, so PPO's first updates get a
sensible baseline instead of tearing the cloned policy apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch.nn import functional

from naval_agents.captains.base import Captain, Decision
from naval_agents.captains.registry import make_captain
from naval_env.envs.gym_env import CaptainSpec, NavalEnv, learner_points


@dataclass(frozen=True)
class Demonstrations:
    """The learner's seat played by a teacher: what it saw, what it was allowed, what it did, what followed."""

    observations: np.ndarray   # (n, obs_size) float32
    masks: np.ndarray          # (n, flat mask size) bool
    actions: np.ndarray        # (n, components) int64
    returns: np.ndarray        # (n,) float32, discounted to the end of each game
    games: int
    teacher_win_rate: float


def teachers_by_side(teacher: CaptainSpec | Mapping[str, CaptainSpec], sides: Sequence[str]
                     ) -> dict[str, CaptainSpec]:
    """``teacher`` as one captain name per side; a mapping must name every side and nothing else."""
    if not isinstance(teacher, Mapping):
        return dict.fromkeys(sides, teacher)
    if set(teacher) != set(sides):
        raise ValueError(f"imitation.teacher names sides {sorted(teacher)}; this scenario's sides are "
                         f"{list(sides)}: give a captain for each of them, or one captain name for all")
    return dict(teacher)


def collect(build_env: Callable[[], gym.Env], teacher: CaptainSpec | Mapping[str, CaptainSpec], decisions: int,
            gamma: float, seed: int) -> Demonstrations:
    """Play whole games with the teacher (of the learner's side) on the learner's seat until at least
    ``decisions`` were recorded."""
    captains: dict[str, Captain] = {}

    def teacher_of(naval: NavalEnv) -> Captain:
        if not captains:
            names = teachers_by_side(teacher, naval.game.sides)
            captains.update({side: make_captain(name, naval.ruleset_id, naval.action_spec)
                             for side, name in names.items()})
        return captains[naval.game.side_of(naval.learner)]

    return record_games(build_env, teacher_of, decisions, gamma, seed, purpose="imitation")


def record_games(build_env: Callable[[], gym.Env], captain_of: Callable[[NavalEnv], Captain], decisions: int,
                 gamma: float, seed: int, *, purpose: str,
                 on_decision: Callable[[NavalEnv, Captain], None] | None = None) -> Demonstrations:
    """Whole games (seeds ``seed``, ``seed + 1``, ...) with ``captain_of``'s captain on the learner's seat
    until at least ``decisions`` were recorded; ``on_decision`` hears of every move as it is made."""
    env = build_env()
    naval = env.unwrapped
    if not isinstance(naval, NavalEnv):
        raise TypeError(f"{purpose} needs a NavalEnv, got {type(naval).__name__}")
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[np.ndarray] = []
    returns: list[float] = []
    games = 0
    points = 0.0
    while len(actions) < decisions:
        observation, info = env.reset(seed=seed + games)
        captain = captain_of(naval)
        captain.reset(seed + games)
        rewards: list[float] = []
        done = False
        while not done:
            mask = info["action_mask"]
            action = captain.act(Decision(naval.learner, observation, mask, naval.game))
            if on_decision is not None:
                on_decision(naval, captain)
            observations.append(observation)
            masks.append(mask)
            actions.append(np.asarray(action, dtype=np.int64))
            observation, reward, terminated, truncated, info = env.step(action)
            rewards.append(float(reward))
            done = terminated or truncated
        returns += discounted(rewards, gamma)
        games += 1
        points += learner_points(info)
    env.close()
    return Demonstrations(np.asarray(observations, dtype=np.float32), np.asarray(masks, dtype=bool),
                          np.asarray(actions, dtype=np.int64), np.asarray(returns, dtype=np.float32),
                          games, points / games)


def discounted(rewards: list[float], gamma: float) -> list[float]:
    out = [0.0] * len(rewards)
    running = 0.0
    for i in range(len(rewards) - 1, -1, -1):
        running = rewards[i] + gamma * running
        out[i] = running
    return out


def clone(policy: Any, demos: Demonstrations, epochs: int, batch_size: int, learning_rate: float,
          vf_coef: float, max_grad_norm: float, held_out: float, seed: int) -> dict[str, float]:
    """Fit ``policy`` (a MaskableActorCriticPolicy) to the demonstrations; returns held-out agreement and losses.

    The loss is the masked policy's negative log-likelihood of the teacher's action plus
    ``vf_coef`` times the value head's squared error on the teacher's returns, its gradients clipped
    to ``max_grad_norm`` as PPO's are.
    """
    n = len(demos.actions)
    order = np.random.default_rng(seed).permutation(n)
    n_test = int(n * held_out)
    test, train = order[:n_test], order[n_test:]
    device = policy.device
    tensors = [torch.as_tensor(a, device=device) for a in
               (demos.observations, demos.actions, demos.masks, demos.returns)]

    def batch_loss(batch: torch.Tensor) -> torch.Tensor:
        obs, act, mask, ret = (t[batch] for t in tensors)
        values, log_prob, _ = policy.evaluate_actions(obs, act, action_masks=mask)
        return -log_prob.mean() + vf_coef * functional.mse_loss(values.flatten(), ret)

    loss_value = fit_in_batches(policy, train, batch_loss, epochs, batch_size, learning_rate, max_grad_norm, seed)
    return {"train_loss": round(loss_value, 4), **agreement(policy, demos, test)}


def fit_in_batches(policy: Any, rows: np.ndarray, batch_loss: Callable[[torch.Tensor], torch.Tensor], epochs: int,
                   batch_size: int, learning_rate: float, max_grad_norm: float, seed: int) -> float:
    """Supervised fitting of ``policy`` with Adam: ``epochs`` passes over ``rows`` in a seeded order, one step
    per ``batch_size`` rows on ``batch_loss(batch)``, gradients clipped to ``max_grad_norm`` as PPO's are;
    returns the last batch's loss. Cloning and expert iteration's distillation share it."""
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)
    policy.set_training_mode(True)
    loss_value = 0.0
    for _ in range(epochs):
        shuffled = torch.as_tensor(rows)[torch.randperm(len(rows), generator=generator)]
        for start in range(0, len(shuffled), batch_size):
            loss = batch_loss(shuffled[start:start + batch_size])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
            optimizer.step()
            loss_value = float(loss.item())
    policy.set_training_mode(False)
    return loss_value


def agreement(policy: Any, demos: Demonstrations, rows: np.ndarray) -> dict[str, float]:
    """Share of ``rows`` where the policy's most likely action equals the teacher's, whole and per component."""
    if len(rows) == 0:
        return {}
    with torch.no_grad():
        predicted, _ = policy.predict(demos.observations[rows], action_masks=demos.masks[rows], deterministic=True)
    same = np.asarray(predicted) == demos.actions[rows]
    return {"held_out_decisions": len(rows), "held_out_agreement": round(float(same.all(axis=1).mean()), 4),
            "held_out_component_agreement": round(float(same.mean()), 4)}
