"""Mid-game positions: drawn from seeded games between captains, and played on from them.

An app does not start every battle from a scenario's set-up; it sends the position it has.
:func:`sample_positions` plays seeded games between captains, picks one decision of each
game at a seeded random point (between ``earliest`` and ``latest`` of its length), replays
the game's recorded actions up to it (same seed + same actions = same game) and dumps the
position with ``Game.position()``. :func:`play_from` loads a position back with its own
seeded dice and plays it to the end, so two captains can be compared from the same
positions and dice (the paired differences of ``agents/zoo/report.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

import numpy as np

from naval_agents.captains.arena import play_game
from naval_agents.captains.base import Captain
from naval_agents.captains.registry import make_captain
from naval_env.envs.match import Match

#: Where in a game a position is taken, as a share of its decisions.
EARLIEST, LATEST = 0.15, 0.85


@dataclass(frozen=True)
class StartPosition:
    """One mid-game position and where it came from (the game's captains, seed and decision)."""

    scenario: str
    captains: tuple[str, str]   # by side, in the scenario's side order
    seed: int
    decision: int
    position: dict[str, Any]

    def describe(self) -> str:
        return f"{self.scenario}: {self.captains[0]} vs {self.captains[1]}, seed {self.seed}, decision {self.decision}"


def source_pairings(captains: Sequence[str]) -> list[tuple[str, str]]:
    """Who plays the source games: every ordered pair of distinct captains (one captain: its mirror)."""
    unique = list(dict.fromkeys(captains))
    if not unique:
        raise ValueError("no captains to play the source games; name at least one")
    return list(permutations(unique, 2)) or [(unique[0], unique[0])]


def sample_positions(ruleset: str, scenario: str, captains: Sequence[str], games: int, seed: int, *,
                     config: Any = None, earliest: float = EARLIEST, latest: float = LATEST) -> list[StartPosition]:
    """One position from each of ``games`` seeded games (seeds ``seed``, ``seed + 1``, ...) between ``captains``
    (their ordered pairs in turn); a game too short to hold a decision in the window gives none."""
    if not 0 <= earliest <= latest < 1:
        raise ValueError(f"need 0 <= earliest <= latest < 1, got {earliest} and {latest}")
    match = Match(ruleset, config, scenario, illegal_action="raise")
    pairings = source_pairings(captains)
    loaded = {name: make_captain(name, match.ruleset.id, match.action_spec, config=match.config)
              for name in dict.fromkeys(n for pair in pairings for n in pair)}
    positions: list[StartPosition] = []
    for index in range(games):
        game_seed = seed + index
        pair = pairings[index % len(pairings)]
        sides = match.game.sides
        # A mirror pairing gets a second instance so its two sides keep separate state.
        by_side = {sides[0]: loaded[pair[0]], sides[1]: loaded[pair[1]] if pair[0] != pair[1]
                   else make_captain(pair[1], match.ruleset.id, match.action_spec, config=match.config)}
        record = play_game(match, by_side, game_seed, keep_events=False, keep_actions=True)
        low, high = int(np.ceil(earliest * record.decisions)), int(latest * record.decisions)
        if record.decisions < 2 or high < max(low, 1):
            continue
        decision = int(np.random.default_rng([seed, index]).integers(max(low, 1), high + 1))
        match.reset(game_seed)
        for agent, action in record.actions[:decision]:
            match.game.apply(agent, np.asarray(action, dtype=np.int64))
        if match.game.is_over:
            continue
        positions.append(StartPosition(scenario, pair, game_seed, decision, match.game.position()))
    return positions


def play_from(match: Match, position: Mapping[str, Any], captains: Mapping[str, Captain], seed: int) -> str | None:
    """Play ``position`` (of ``match``'s scenario) to the end with ``captains`` by side, rolling ``Dice(seed)``;
    the winning side, or None for a draw. Captains are reset with ``seed * 2 + side index`` (as in play_game)."""
    match.start_from(position, seed)
    game = match.game
    for i, side in enumerate(game.sides):
        captains[side].reset(seed * 2 + i)
    while not game.is_over:
        agent = game.current_agent
        assert agent is not None
        captain = captains[game.side_of(agent)]
        game.apply(agent, np.asarray(captain.act(match.decision(agent, captain))))
    return game.winner


def side_score(winner: str | None, side: str) -> float:
    """1 for a win of ``side``, 0.5 for a draw, 0 for a loss (draws as half a win, as in the tournaments)."""
    if winner is None:
        return 0.5
    return 1.0 if winner == side else 0.0
