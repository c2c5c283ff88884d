"""Stalls: how often a captain plays as if it had given up, measured beside the zoo captain it is built on.

A difficulty level made by softening the zoo captain can win its anchor's share of games and still be a poor
opponent: one that holds still, keeps its ship pressed against the board's edge, or drags games to the round
limit. Per captain and scenario, over its own ships' rounds against one fixed opponent (the ruleset's strongest
scripted captain, so every level meets the same play), read at each ship's first decision of a round:

- **idle share**: rounds after which its ship stands where it stood (the ruleset's ``place`` hook: position and
  heading) and no enemy has lost hull: it neither moved nor hurt anyone (an ally's hits count as its own in a
  fleet, which makes the share a floor there);
- **edge share**: rounds it begins at the board's edge (the ``at_board_edge`` hook; none for an open plane such
  as pursuit's);
- **round-limit share**: games that ended at the round limit (a draw by truncation).

A level *stalls* when a share exceeds twice the zoo captain's on the same seeds (:data:`STALL_FACTOR`), or, where
the zoo captain's share is below half of :data:`STALL_FLOOR`, exceeds that floor: twice nothing would fail a level
for one game in hundreds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from naval_agents.captains.arena import play_game
from naval_agents.captains.base import Captain
from naval_agents.captains.registry import make_captain
from naval_agents.captains.search.captain import default_rollout
from naval_env.core.game import Game
from naval_env.core.hooks import hooks_of
from naval_env.envs.match import Match

#: A level stalls when a share is above this many times the zoo captain's ...
STALL_FACTOR = 2.0
#: ... or above this share where twice the zoo captain's is smaller.
STALL_FLOOR = 0.02
#: The shares, in the order tables print them.
SHARES = ("idle", "edge", "round_limit")


@dataclass
class StallCount:
    """One captain's counts in one scenario; shares are None where nothing was counted (no edge to stand at)."""

    captain: str
    scenario: str
    opponent: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    rounds: int = 0                # its ships' rounds, each closed by the ship's next round or the game's end
    idle: int = 0
    edge_rounds: int = 0           # rounds on a board that has an edge
    at_edge: int = 0
    round_limit: int = 0

    @property
    def score(self) -> float | None:
        """Its score against the opponent (a draw counts a half)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else None

    def share(self, name: str) -> float | None:
        counted, of = {"idle": (self.idle, self.rounds), "edge": (self.at_edge, self.edge_rounds),
                       "round_limit": (self.round_limit, self.games)}[name]
        return counted / of if of else None

    def shares(self) -> dict[str, float | None]:
        return {name: self.share(name) for name in SHARES}

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "score": None if self.score is None else round(self.score, 4),
                "shares": {k: None if v is None else round(v, 4) for k, v in self.shares().items()}}


def stall_limit(zoo_share: float) -> float:
    """The most a level's share may be, given the zoo captain's."""
    return max(STALL_FACTOR * zoo_share, STALL_FLOOR)


def stalled(level: StallCount, zoo: StallCount) -> list[str]:
    """The shares in which ``level`` stalls beside ``zoo`` (empty: none)."""
    found = []
    for name in SHARES:
        mine, theirs = level.share(name), zoo.share(name)
        if mine is not None and theirs is not None and mine > stall_limit(theirs):
            found.append(name)
    return found


@dataclass
class _OpenRound:
    round: int
    place: tuple[float, ...] | None
    enemy_hull: int


class _Counter:
    """Counts one side's rounds from the decisions :func:`play_game` shows it (it reads the game, never changes
    it): a ship's round opens at its first decision of a game round and closes at its next one, or at the end."""

    def __init__(self, count: StallCount, side: str) -> None:
        self.count, self.side = count, side
        self.open: dict[str, _OpenRound] = {}

    def _enemy_hull(self, game: Game) -> int:
        return sum(game.health(agent)[0] for agent in game.agents if game.side_of(agent) != self.side)

    def __call__(self, game: Game, agent: str, action: np.ndarray) -> None:
        if game.side_of(agent) != self.side:
            return
        previous = self.open.get(agent)
        if previous is not None and previous.round == game.round:
            return
        hooks = hooks_of(game.ruleset_id)
        hull = self._enemy_hull(game)
        place = hooks.place(game, agent)
        if previous is not None:
            self._close(previous, place, hull)
        self.open[agent] = _OpenRound(game.round, place, hull)
        edge = hooks.at_board_edge(game, agent)
        if edge is not None:
            self.count.edge_rounds += 1
            self.count.at_edge += int(edge)

    def finish(self, game: Game) -> None:
        """Close every ship's last round at the game's end."""
        hooks, hull = hooks_of(game.ruleset_id), self._enemy_hull(game)
        for agent, opened in self.open.items():
            self._close(opened, hooks.place(game, agent), hull)
        self.open.clear()

    def _close(self, opened: _OpenRound, place: tuple[float, ...] | None, hull: int) -> None:
        self.count.rounds += 1
        self.count.idle += int(place == opened.place and hull >= opened.enemy_hull)


def count_stalls(ruleset_id: str, scenario: str | None, captain: str | Captain, seeds: int, seed: int,
                 opponent: str | None = None) -> StallCount:
    """``captain`` against ``opponent`` (default: the strongest scripted captain) on seeds ``seed``..``seed +
    seeds - 1``, each from both sides, counted on ``captain``'s own decisions."""
    opponent = opponent or default_rollout(ruleset_id)
    match = Match(ruleset_id, None, scenario, illegal_action="raise")
    sides = match.game.sides
    spec, config = match.action_spec, match.config
    mine, theirs = make_captain(captain, ruleset_id, spec, config=config), make_captain(opponent, ruleset_id, spec,
                                                                                          config=config)
    count = StallCount(mine.name, match.game.scenario_name, opponent)
    for game_seed in range(seed, seed + seeds):
        for mine_first in (True, False):
            my_side = sides[0] if mine_first else sides[1]
            other = sides[1] if mine_first else sides[0]
            counter = _Counter(count, my_side)
            record = play_game(match, {my_side: mine, other: theirs}, game_seed, keep_events=False,
                               keep_actions=False, watch=counter)
            counter.finish(match.game)
            count.games += 1
            count.wins += int(record.winner == my_side)
            count.draws += int(record.winner is None)
            count.round_limit += int(record.truncated and record.winner is None)
    return count


def count_ladder_stalls(ruleset_id: str, scenario: str | None, captains: Sequence[str], seeds: int,
                        seed: int) -> list[StallCount]:
    """:func:`count_stalls` for each of ``captains`` (the zoo captain among them) on the same seeds."""
    return [count_stalls(ruleset_id, scenario, name, seeds, seed) for name in captains]
