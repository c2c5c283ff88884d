"""Self-play: frozen snapshots of the learner as opponents, mixed with scripted anchors, and as allies.

Anchors keep the learner from forgetting how to beat the simple tactics while it
chases its own past selves. With ``allies_are_snapshots`` the newest snapshot also
captains the learner's other ships, as the trained captain will when it commands a
fleet. Snapshots travel to env workers as plain tensors (state dicts), so this works
with DummyVecEnv and SubprocVecEnv alike.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import torch

from naval_agents.captains.base import Captain, Decision
from naval_env.envs.gym_env import NavalEnv


class SnapshotCaptain(Captain):
    """A frozen copy of the learner's policy that samples its actions (so it is not trivially exploitable)."""

    def __init__(self, policy: Any, name: str) -> None:
        self.policy = policy
        self.name = name

    def act(self, decision: Decision) -> np.ndarray:
        with torch.no_grad():
            action, _ = self.policy.predict(decision.observation, action_masks=decision.action_mask,
                                            deterministic=False)
        return np.asarray(action, dtype=np.int64)


class SelfPlayEnv(gym.Wrapper):
    """Chooses the opponent at each reset: a snapshot with probability ``snapshot_share``, else an anchor."""

    def __init__(self, env: gym.Env, anchors: list[str], snapshot_share: float, max_snapshots: int,
                 allies_are_snapshots: bool = False) -> None:
        super().__init__(env)
        self.allies_are_snapshots = allies_are_snapshots
        self.anchors = list(anchors)
        self.snapshot_share = snapshot_share
        self.max_snapshots = max_snapshots
        self.snapshots: list[SnapshotCaptain] = []
        self._rng = np.random.default_rng()

    def add_snapshot(self, state_dict: dict[str, torch.Tensor], policy_class: type, policy_kwargs: dict,
                     name: str) -> None:
        policy = policy_class(self.observation_space, self.action_space, lambda _: 0.0, **policy_kwargs)
        policy.load_state_dict(state_dict)
        policy.set_training_mode(False)
        self.snapshots = [*self.snapshots, SnapshotCaptain(policy, name)][-self.max_snapshots:]
        if self.allies_are_snapshots:
            self._naval_env().set_ally(self.snapshots[-1])

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        base = self._naval_env()
        if self.snapshots and self._rng.random() < self.snapshot_share:
            base.set_opponents([self.snapshots[int(self._rng.integers(len(self.snapshots)))]])
        else:
            base.set_opponents(self.anchors)
        return self.env.reset(seed=seed, options=options)

    def action_masks(self) -> np.ndarray:
        return self._naval_env().action_masks()

    def _naval_env(self) -> NavalEnv:
        base = self.env.unwrapped
        if not isinstance(base, NavalEnv):
            raise TypeError(f"SelfPlayEnv wraps a NavalEnv, got {type(base).__name__}")
        return base
