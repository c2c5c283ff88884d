"""Play whole games between captains: the demo, evaluation and tests all go through :func:`play_game`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from agents.base import Captain
from naval_env.core.events import DamageDealt, Event
from naval_env.envs.match import Match


@dataclass
class GameRecord:
    """One finished game: who captained each side, the result and every event in order."""

    seed: int
    captains: dict[str, str]            # side -> captain name
    winner: str | None
    truncated: bool
    rounds: int
    decisions: int
    damage_dealt: dict[str, int]        # side -> damage its ships dealt to enemies
    events: list[Event] = field(repr=False, default_factory=list)


def play_game(match: Match, captains: Mapping[str, Captain], seed: int, *, keep_events: bool = True
              ) -> GameRecord:
    """Play one game with ``captains`` by side name (every ship of a side gets that side's captain)."""
    match.reset(seed)
    game = match.game
    missing = set(game.sides) - set(captains)
    if missing:
        raise ValueError(f"no captain for side(s) {sorted(missing)}; sides are {list(game.sides)}")
    for i, side in enumerate(game.sides):
        captains[side].reset(seed * 2 + i)
    by_agent = {agent: captains[game.side_of(agent)] for agent in game.agents}
    events: list[Event] = list(match.last_events)
    decisions = 0
    damage = dict.fromkeys(game.sides, 0)
    while not game.is_over:
        agent = game.current_agent
        assert agent is not None
        captain = by_agent[agent]
        step_events = game.apply(agent, captain.act(match.decision(agent, captain)))
        decisions += 1
        for event in step_events:
            if isinstance(event, DamageDealt) and event.source is not None:
                if game.side_of(event.source) != game.side_of(event.target):
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
    )
