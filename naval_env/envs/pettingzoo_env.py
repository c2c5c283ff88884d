"""PettingZoo environments: one agent per ship captain.

The AEC form follows the ruleset's own order (initiative, then each captain's
phases). The parallel form takes a dict of actions each step but only the
captain holding the decision acts; every other live captain sees the no-op mask
(only value 0 of each component) and its action is ignored. Illegal actions are
handled by ``illegal_action`` exactly as in the Gymnasium env; an agent's
``infos[agent]`` describes its own last step (``"illegal_action"`` only when that
step was replaced), kept until it acts again.

With ``action_space="discrete"`` every agent's action space is ``Discrete(max_joint_actions)``, one index per
legal joint action of its decision (:mod:`naval_env.envs.joint`), and ``observation["action_mask"]`` is over
those indices (int8, 1 for ``0 .. count - 1``; an agent without the decision gets ``[1, 0, ...]``, index 0
standing for the no-op); an index past them is an illegal action, handled as above (``"noop"`` plays index 0).

Each ruleset's ``env()`` is :func:`aec_env`: the raw AEC env wrapped the way
PettingZoo's classic envs are, so calls out of order fail with a clear message.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from naval_env.envs.joint import DEFAULT_MAX_JOINT_ACTIONS, JointActions, check_action_space
from naval_env.envs.match import Match
from naval_env.envs.spaces import MaskedDiscrete, action_space, mask_box, observation_box


class _MatchSpaces:
    """Spaces shared by both forms, built once from the match's specs."""

    def _init_match(self, ruleset: str, config: str | Path | Any, scenario: str | None,
                    render_mode: str | None, illegal_action: str, action_space_kind: str = "multidiscrete",
                    max_joint_actions: int = DEFAULT_MAX_JOINT_ACTIONS) -> None:
        check_action_space(action_space_kind, max_joint_actions)
        if render_mode is not None and render_mode not in ("ansi", "rgb_array"):
            raise ValueError(f"render_mode {render_mode!r} is not one of ['ansi', 'rgb_array']")
        self.match = Match(ruleset, config, scenario, illegal_action)
        self.render_mode = render_mode
        self.possible_agents = list(self.match.agents)
        #: The Discrete space's translation (``action_space="discrete"``), else None.
        self.joint = (JointActions(self.match.action_spec, max_joint_actions, self.match.ruleset.id)
                      if action_space_kind == "discrete" else None)
        observation = spaces.Dict({
            "observation": observation_box(self.match.observation_spec),
            "action_mask": mask_box(self.match.action_spec, self.joint),
        })
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space] = {
            a: action_space(self.match.action_spec) if self.joint is None else MaskedDiscrete(self.joint)
            for a in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _observation(self, agent: str) -> dict[str, np.ndarray]:
        game = self.match.game
        mask = game.legal_mask(agent) if self.joint is None else self.joint.mask(game.legal_mask(agent))
        return {"observation": game.observe(agent), "action_mask": mask.astype(np.int8)}

    def _apply(self, agent: str, action: Any) -> list[Any]:
        if self.joint is None:
            return self.match.apply(agent, action)
        return self.match.apply_index(agent, action, self.joint)

    def _render(self) -> str | np.ndarray | None:
        if self.render_mode == "ansi":
            return self.match.game.render_ansi(self.match.last_events)
        if self.render_mode == "rgb_array":
            return self.match.game.render_rgb()
        return None

    def _seed_from(self, seed: int | None) -> int:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        elif not hasattr(self, "_rng"):
            self._rng = np.random.default_rng()
        return int(self._rng.integers(2**31 - 1))


def _game_over(call: str) -> RuntimeError:
    return RuntimeError(f"{call} called after the game ended (every agent is done); call reset() to play again")


class NavalAECEnv(_MatchSpaces, AECEnv):
    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "naval_v0", "is_parallelizable": True}  # noqa: RUF012 - the base class declares it this way

    def __init__(self, ruleset: str = "pantheon", config: str | Path | Any = None,
                 scenario: str | None = None, render_mode: str | None = None,
                 illegal_action: str = "noop", action_space: str = "multidiscrete",
                 max_joint_actions: int = DEFAULT_MAX_JOINT_ACTIONS) -> None:
        super().__init__()
        self._init_match(ruleset, config, scenario, render_mode, illegal_action, action_space, max_joint_actions)
        self.metadata = {**self.metadata, "name": f"naval_{self.match.ruleset.id}_v0"}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.match.reset(self._seed_from(seed))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self._current()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._observation(agent)

    def _current(self) -> str:
        agent = self.match.game.current_agent
        assert agent is not None, "the game is over: no agent holds a decision"
        return agent

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._require_live("last()")
        return super().last(observe)

    def _require_live(self, call: str) -> None:
        if not hasattr(self, "agent_selection"):
            raise RuntimeError(f"call reset() before {call}")
        if not self.agents:
            raise _game_over(call)

    def step(self, action: Any) -> None:
        self._require_live("step()")
        agent: str = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.match.game
        events = self._apply(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: self.match.reward(a, events) for a in self.agents}
        for a in self.agents:
            if game.truncated:
                self.truncations[a] = True
            elif game.is_over or not game.is_active(a):
                self.terminations[a] = True
        # Replaced, not merged: a legal step must not keep the message of an earlier illegal one.
        self.infos[agent] = {} if self.match.last_illegal is None else {"illegal_action": self.match.last_illegal}
        if not game.is_over:
            self.agent_selection = self._current()
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self) -> str | np.ndarray | None:
        return self._render()

    def close(self) -> None:
        pass


class _OrderEnforcing(OrderEnforcingWrapper):
    """PettingZoo's order checks; once every agent is done, ``step()`` and ``last()`` raise the raw env's clear
    error (the library's wrapper only warns on ``step()`` and lets ``last()`` fail with a bare KeyError)."""

    def step(self, action: Any) -> None:
        if self._has_reset and not self.agents:
            raise _game_over("step()")
        super().step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._has_reset and not self.agents:
            raise _game_over("last()")
        return super().last(observe)


def aec_env(ruleset: str, **kwargs: Any) -> AECEnv:
    """A ruleset's PettingZoo AEC env, wrapped as PettingZoo's classic envs are (``env.unwrapped`` is the raw one).

    Only order enforcing: the raw env already refuses an action outside the action space with
    the component and its range, which ``AssertOutOfBoundsWrapper`` would replace by a bare
    assertion, and illegal actions are the ``illegal_action`` policy's to handle, not
    ``TerminateIllegalWrapper``'s.
    """
    return _OrderEnforcing(NavalAECEnv(ruleset=ruleset, **kwargs))


class NavalParallelEnv(_MatchSpaces, ParallelEnv):
    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "naval_v0"}  # noqa: RUF012 - the base class declares it this way

    def __init__(self, ruleset: str = "pantheon", config: str | Path | Any = None,
                 scenario: str | None = None, render_mode: str | None = None,
                 illegal_action: str = "noop", action_space: str = "multidiscrete",
                 max_joint_actions: int = DEFAULT_MAX_JOINT_ACTIONS) -> None:
        self._init_match(ruleset, config, scenario, render_mode, illegal_action, action_space, max_joint_actions)
        self.metadata = {**self.metadata, "name": f"naval_{self.match.ruleset.id}_v0"}
        self.agents: list[str] = []
        self._has_reset = False

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        self.match.reset(self._seed_from(seed))
        self.agents = list(self.possible_agents)
        self._has_reset = True
        return {a: self._observation(a) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise RuntimeError("call reset() before step()") if not self._has_reset else _game_over("step()")
        game = self.match.game
        acting = game.current_agent
        if acting is None or acting not in actions:
            raise ValueError(f"{acting} holds the decision but no action was given for it")
        events = self._apply(acting, actions[acting])
        rewards = {a: self.match.reward(a, events) for a in self.agents}
        truncations = {a: game.truncated for a in self.agents}
        terminations = {a: (game.is_over and not game.truncated) or not game.is_active(a) for a in self.agents}
        observations = {a: self._observation(a) for a in self.agents}
        infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        if self.match.last_illegal is not None:
            infos[acting]["illegal_action"] = self.match.last_illegal
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | np.ndarray | None:
        return self._render()

    def close(self) -> None:
        pass
