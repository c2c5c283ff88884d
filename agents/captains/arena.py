"""Play whole games between captains: the demo, evaluation and tests all go through :func:`play_game`.

A :class:`GameRecord` keeps every decision's ``(agent, action)`` pair, so a game can
be replayed from its seed without the captains (see ``agents/evaluation/replay.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from naval_agents.captains.base import Captain
from naval_env.core.events import DamageDealt, Event
from naval_env.core.game import Game
from naval_env.envs.match import Match


@dataclass
class GameRecord:
    """One finished game: who captained each side, the result, every decision and every event in order."""

    seed: int
    captains: dict[str, str]            # side -> captain name
    winner: str | None
    truncated: bool
    rounds: int
    decisions: int
    damage_dealt: dict[str, int]        # side -> damage its ships dealt to enemy ships
    events: list[Event] = field(repr=False, default_factory=list)
    #: Every decision as (agent, action values), in order; empty when played with ``keep_actions=False``.
    actions: list[tuple[str, list[int]]] = field(repr=False, default_factory=list)
    #: ``events[event_starts[i]:event_starts[i + 1]]`` are decision i's events (needs both keep flags).
    event_starts: list[int] = field(repr=False, default_factory=list)
    #: side -> hull damage its ships took from any source (enemies, friends or the sea).
    damage_taken: dict[str, int] = field(default_factory=dict)
    #: ``game.state_dict()`` once the game ended.
    final_state: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def opening_events(self) -> list[Event]:
        """Events the game produced before the first decision (initiative, first turn)."""
        return self.events[: self.event_starts[0]] if self.event_starts else list(self.events)

    def decision_events(self, index: int) -> list[Event]:
        """The events decision ``index`` produced."""
        if not self.event_starts:
            raise ValueError("this record kept no per-decision events; play with keep_events and keep_actions")
        end = self.event_starts[index + 1] if index + 1 < len(self.event_starts) else len(self.events)
        return self.events[self.event_starts[index]: end]


#: Called before each decision is applied with the game, the deciding agent and the action it chose.
Watcher = Callable[[Game, str, np.ndarray], None]


def play_game(match: Match, captains: Mapping[str, Captain], seed: int, *, keep_events: bool = True,
              keep_actions: bool = True, watch: Watcher | None = None) -> GameRecord:
    """Play one game with ``captains`` by side name (every ship of a side gets that side's captain).

    Captains are reset with ``seed * 2 + side index``, so a game is fixed by its seed
    and the captains sitting on each side. ``watch`` sees each decision before it is applied (it must not
    change the game: a statistic such as the ladder's stall count reads the position there).
    """
    match.reset(seed)
    game = match.game
    missing = set(game.sides) - set(captains)
    if missing:
        raise ValueError(f"no captain for side(s) {sorted(missing)}; sides are {list(game.sides)}")
    for i, side in enumerate(game.sides):
        captains[side].reset(seed * 2 + i)
    by_agent = {agent: captains[game.side_of(agent)] for agent in game.agents}
    events: list[Event] = list(match.last_events)
    actions: list[tuple[str, list[int]]] = []
    event_starts: list[int] = []
    decisions = 0
    damage = dict.fromkeys(game.sides, 0)
    taken = dict.fromkeys(game.sides, 0)
    while not game.is_over:
        agent = game.current_agent
        assert agent is not None
        captain = by_agent[agent]
        action = np.asarray(captain.act(match.decision(agent, captain)))
        if watch is not None:
            watch(game, agent, action)
        step_events = game.apply(agent, action)
        decisions += 1
        if keep_actions:
            actions.append((agent, [int(v) for v in action.reshape(-1)]))
            event_starts.append(len(events))
        for event in step_events:
            if isinstance(event, DamageDealt):
                taken[game.side_of(event.target)] += event.amount
                if event.source is not None and game.side_of(event.source) != game.side_of(event.target):
                    damage[game.side_of(event.source)] += event.amount
        if keep_events:
            events += step_events
    return GameRecord(
        seed=seed,
        captains={side: captains[side].name for side in game.sides},
        winner=game.winner,
        truncated=game.truncated,
        rounds=game.round,
        decisions=decisions,
        damage_dealt=damage,
        events=events if keep_events else [],
        actions=actions,
        event_starts=event_starts if keep_events else [],
        damage_taken=taken,
        final_state=game.state_dict(),
    )
