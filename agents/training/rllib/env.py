"""The training env as RLlib sees it: a multi-agent env whose one acting agent per game is the learner's seat.

Under it is the env the SB3 path trains on (``naval_agents.training.run.make_env``: ``NavalEnv`` in
``SelfPlayEnv``), so the seat drawn per game (``learner``), the opponents (``opponents.mode``/``pool``,
frozen snapshots mixed with scripted anchors), the allies and the rewards are the same code, not a
copy. The other seats are played inside by their captains; RLlib only ever sees the learner's seat,
mapped to the one trained module. Observations are PettingZoo's ``{"observation", "action_mask"}``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.typing import AgentID, MultiAgentDict

from naval_agents.training.config import TrainConfig
from naval_agents.training.rllib.module import ACTION_MASK, OBSERVATION
from naval_env.envs.gym_env import NavalEnv, learner_points
from naval_env.envs.spaces import mask_box, observation_box

#: The module every learner seat maps to.
LEARNER_MODULE = "learner"


def to_learner(agent_id: AgentID, episode: Any, **kwargs: Any) -> str:
    """RLlib's policy mapping: every seat the env exposes is the learner's."""
    return LEARNER_MODULE


class NavalMultiAgentEnv(MultiAgentEnv):
    """``env_config``: ``{"train_config": TrainConfig.model_dump()}`` (and RLlib's ``worker_index``)."""

    def __init__(self, env_config: dict[str, Any] | None = None) -> None:
        super().__init__()
        from naval_agents.training.run import make_env

        env_config = env_config or {}
        self.config = TrainConfig.model_validate(env_config["train_config"])
        self.worker_index = int(getattr(env_config, "worker_index", 0))
        self.inner = make_env(self.config, rank=self.worker_index)()
        naval = self.naval
        observation = spaces.Dict({OBSERVATION: observation_box(naval.observation_spec),
                                   ACTION_MASK: mask_box(naval.action_spec)})
        action = spaces.MultiDiscrete(naval.action_spec.nvec.copy())
        self.possible_agents = list(naval.match.agents)
        self.agents = []
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = dict.fromkeys(self.possible_agents, action)
        self.seat = naval.learner

    @property
    def naval(self) -> NavalEnv:
        base = self.inner.unwrapped
        assert isinstance(base, NavalEnv)
        return base

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None  # type: ignore[override]
              ) -> tuple[MultiAgentDict, MultiAgentDict]:  # (gymnasium's single-agent signature)
        if seed is not None:
            # RLlib seeds runner w's i-th env with seed + w + i, so two runners would share streams;
            # mixing in the runner's index keeps every env's games distinct and still seeded.
            seed = int(np.random.SeedSequence([seed, self.worker_index]).generate_state(1)[0])
        observation, _ = self.inner.reset(seed=seed, options=options)
        self.seat = self.naval.learner
        self.agents = [self.seat]
        return {self.seat: self._observation(observation)}, {self.seat: {}}

    def step(self, action_dict: MultiAgentDict  # type: ignore[override]  # gymnasium's single-agent signature
             ) -> tuple[MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict, MultiAgentDict]:
        observation, reward, terminated, truncated, info = self.inner.step(action_dict[self.seat])
        seat = self.seat
        infos: dict[str, Any] = {}
        if terminated or truncated:
            self.agents = []
            infos = {"points": learner_points(info)}
        return ({seat: self._observation(observation)}, {seat: float(reward)},
                {seat: terminated, "__all__": terminated}, {seat: truncated, "__all__": truncated},
                {seat: infos})

    def _observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        return {OBSERVATION: observation, ACTION_MASK: self.naval.action_masks().astype(np.int8)}

    def add_snapshot(self, state_dict: dict[str, Any], name: str) -> None:
        """A frozen copy of the learner (sb3-contrib policy names) joins the opponents (and allies)."""
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

        self.inner.add_snapshot(state_dict, MaskableActorCriticPolicy,
                                {"net_arch": list(self.config.ppo.net_arch), "ortho_init": False}, name)
