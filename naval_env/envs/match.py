"""A game plus what every environment needs around it: rewards read from events, captains' turns.

The Gymnasium, AEC and parallel environments all drive a :class:`Match`, so the
translation between engine and arrays exists once.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from naval_env.core.captain import Captain, Decision
from naval_env.core.errors import IllegalActionError
from naval_env.core.events import DamageDealt, Event, GameEnded
from naval_env.core.game import Game
from naval_env.core.ruleset import Ruleset, get_ruleset
from naval_env.envs.joint import JointActions

EMPTY_OBSERVATION = np.zeros(0, dtype=np.float32)
ILLEGAL_ACTION_POLICIES = ("noop", "raise")


class Match:
    """Owns the current game of one ruleset, config and scenario."""

    def __init__(self, ruleset: str | Ruleset, config: Any = None, scenario: str | None = None,
                 illegal_action: str = "noop") -> None:
        if illegal_action not in ILLEGAL_ACTION_POLICIES:
            raise ValueError(f"illegal_action {illegal_action!r} is not one of {ILLEGAL_ACTION_POLICIES}")
        self.illegal_action = illegal_action
        self.last_illegal: str | None = None
        self.ruleset = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        self.config = config if config is not None and not isinstance(config, (str, Path)) \
            else self.ruleset.load_config(config)
        scenarios = self.ruleset.scenarios(self.config)
        if scenario is not None and scenario not in scenarios:
            raise ValueError(f"unknown {self.ruleset.id} scenario {scenario!r}; choose one of {scenarios}")
        self.scenario = scenario
        self.action_spec = self.ruleset.action_spec(self.config)
        self.observation_spec = self.ruleset.observation_spec(self.config)
        self.reward_weights = self.ruleset.rewards(self.config)
        self.game: Game = self.ruleset.new_game(self.config, scenario, seed=0)
        self.last_events: list[Event] = []
        self._last_actor: str | None = None

    @property
    def agents(self) -> tuple[str, ...]:
        return self.game.agents

    def reset(self, seed: int | None) -> list[Event]:
        self.game = self.ruleset.new_game(self.config, self.scenario, seed=seed)
        self.last_events = list(getattr(self.game, "opening_events", []))
        return self.last_events

    def start_from(self, position: Mapping[str, Any], seed: int | None) -> list[Event]:
        """Play on from ``position`` (``Game.position()`` data of this match's scenario), rolling ``Dice(seed)``."""
        expected = self.scenario or self.config.default_scenario
        if position.get("scenario", expected) != expected:
            raise ValueError(f"position of scenario {position.get('scenario')!r} given to a match of scenario "
                             f"{expected!r}")
        self.game = self.ruleset.load_position(position, self.config, seed=seed)
        self.last_events = []
        return self.last_events

    def apply(self, agent: str, action: Any) -> list[Event]:
        """Apply an env action under the illegal-action policy, the one place that decides its cost.

        ``"raise"``: the engine's IllegalActionError propagates. ``"noop"``: an action
        inside the action space whose values the mask forbids has each forbidden
        component replaced by its no-op value 0 (always legal); the engine's message
        is kept in ``last_illegal`` and the reward's ``illegal_action`` term applies.
        Actions of the wrong shape or out of range always raise.
        """
        self.last_illegal = None
        self._last_actor = agent
        try:
            events = self.game.apply(agent, action)
        except IllegalActionError as error:
            if self.illegal_action == "raise" or not self._in_space(action):
                raise
            self.last_illegal = str(error)
            mask = self.game.legal_mask(agent)
            values = np.asarray(action, dtype=np.int64).reshape(-1).copy()
            for i, offset in enumerate(self.action_spec.offsets):
                if not mask[offset + values[i]]:
                    values[i] = 0
            events = self.game.apply(agent, values)
        self.last_events = events
        return events

    def apply_index(self, agent: str, index: Any, joint: JointActions) -> list[Event]:
        """:meth:`apply` for the flat ``Discrete`` action space, under the same policy: an index past the
        decision's legal joint actions is illegal, and ``"noop"`` plays index 0 instead (the first legal joint
        action: every component's no-op value 0 where the rules allow it), with the same reward cost and a
        message in ``last_illegal``; ``"raise"`` raises. An index outside the space always raises."""
        number = joint.check_index(index)
        flat_mask = self.game.legal_mask(agent)
        try:
            action = joint.decode(number, flat_mask)
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            self.last_illegal = str(error)
            self._last_actor = agent
            self.last_events = self.game.apply(agent, joint.decode(0, flat_mask))
            return self.last_events
        return self.apply(agent, action)

    def _in_space(self, action: Any) -> bool:
        try:
            values = np.asarray(action).reshape(-1)
        except Exception:  # noqa: BLE001
            return False
        return (
            values.shape == self.action_spec.nvec.shape
            and values.dtype.kind in "iu"
            and bool(np.all((values >= 0) & (values < self.action_spec.nvec)))
        )

    def decision(self, agent: str, captain: Captain | None = None) -> Decision:
        wants_observation = captain is None or captain.needs_observation
        observation = self.game.observe(agent) if wants_observation else EMPTY_OBSERVATION
        return Decision(agent, observation, self.game.legal_mask(agent), self.game)

    def play_until(self, captains: Mapping[str, Captain], stop_at: str | Collection[str] | None) -> list[Event]:
        """Let ``captains`` act until ``stop_at`` (an agent, or any of several) holds the decision or the game ends."""
        events: list[Event] = []
        game = self.game
        stops = frozenset() if stop_at is None else frozenset([stop_at]) if isinstance(stop_at, str) \
            else frozenset(stop_at)
        while not game.is_over:
            agent = game.current_agent
            if agent is None or agent in stops:
                break
            captain = captains[agent]
            events += game.apply(agent, captain.act(self.decision(agent, captain)))
        if events:
            self.last_events = events
        return events

    def reward(self, agent: str, events: list[Event]) -> float:
        """The agent's reward for ``events``: damage traded plus the result when the game ends."""
        weights = self.reward_weights
        total = weights.illegal_action if self.last_illegal is not None and agent == self._last_actor else 0.0
        for event in events:
            if isinstance(event, DamageDealt):
                if event.target == agent:
                    total -= weights.damage_taken * event.amount
                if event.source == agent:
                    total += weights.damage_dealt * event.amount
            elif isinstance(event, GameEnded):
                if event.winner is None:
                    total += weights.draw
                elif self.game.side_of(agent) == event.winner:
                    total += weights.win
                else:
                    total += weights.loss
        return total

    def side_reward(self, side_agents: Collection[str], events: list[Event]) -> float:
        """The reward of a captain commanding ``side_agents`` (one side's ships): damage its ships deal to
        others and take, the result once, and the illegal-action cost when one of them just acted."""
        weights = self.reward_weights
        total = weights.illegal_action if self.last_illegal is not None and self._last_actor in side_agents else 0.0
        side = self.game.side_of(next(iter(side_agents)))
        for event in events:
            if isinstance(event, DamageDealt):
                if event.target in side_agents:
                    total -= weights.damage_taken * event.amount
                elif event.source in side_agents:
                    total += weights.damage_dealt * event.amount
            elif isinstance(event, GameEnded):
                if event.winner is None:
                    total += weights.draw
                else:
                    total += weights.win if event.winner == side else weights.loss
        return total

    def rewards(self, events: list[Event]) -> dict[str, float]:
        return {agent: self.reward(agent, events) for agent in self.game.agents}
