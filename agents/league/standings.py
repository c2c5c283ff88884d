"""Everything ``league status`` shows, computed from the ``games`` table alone.

Pairings are every two captains in the order they were added (A: the earlier), numbered as
``evaluate.py`` numbers a round robin of the captains in that order. Ratings are refitted from all
games in :func:`naval_agents.evaluation.tournament.rating_order` (seed, swap, pairing), the order
``evaluate.py`` fits in, so they never depend on the order games finished and equal evaluate.py's
for the same captains and games. An SPRT is replayed over each pairing's complete pairs in seed order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

from naval_agents.evaluation.ratings import Rating, fit_ratings
from naval_agents.evaluation.stats import GameResult, PairingSummary, summarize_pairing
from naval_agents.evaluation.tournament import rating_order
from naval_agents.league.db import Captain, League, LeagueInfo
from naval_agents.league.sprt import SprtParams, SprtState

Pair = tuple[Captain, Captain]


def round_robin(captains: Sequence[Captain]) -> list[Pair]:
    """Every two captains once, A added before B, in the order ``evaluate.py`` pairs them."""
    return list(combinations(sorted(captains, key=lambda c: c.id), 2))


def pairing_index(captains: Sequence[Captain]) -> dict[tuple[int, int], int]:
    return {(a.id, b.id): i for i, (a, b) in enumerate(round_robin(captains))}


def fit_league_ratings(results: Sequence[GameResult], captains: Sequence[Captain]) -> list[Rating]:
    outcomes = [(r.a, r.b, r.winner) for r in rating_order(results)]
    return fit_ratings(outcomes, captains=[c.name for c in sorted(captains, key=lambda c: c.id)])


def replay_sprt(params: SprtParams, games: Mapping[tuple[int, bool], GameResult], first_seed: int) -> SprtState:
    """The SPRT fed the pairing's complete pairs from ``first_seed`` on, until a gap or a decision."""
    state = SprtState(params)
    seed = first_seed
    while state.decision is None and (seed, False) in games and (seed, True) in games:
        state.add_pair(games[(seed, False)].a_score + games[(seed, True)].a_score)
        seed += 1
    return state


@dataclass(frozen=True)
class PairingStanding:
    a: Captain
    b: Captain
    summary: PairingSummary | None   # None before the first game
    sprt: SprtState | None           # None when the pairing was never played under an SPRT


@dataclass(frozen=True)
class Standings:
    info: LeagueInfo
    captains: tuple[Captain, ...]
    ratings: tuple[Rating, ...]
    pairings: tuple[PairingStanding, ...]
    games: int


def standings(league: League) -> Standings:
    captains = league.captains()
    index = pairing_index(captains)
    results = league.games(index)
    by_pair: dict[tuple[int, int], dict[tuple[int, bool], GameResult]] = {key: {} for key in index}
    ids = {c.name: c.id for c in captains}
    for r in results:
        by_pair[(ids[r.a], ids[r.b])][(r.seed, r.swap)] = r
    params = league.sprt_params()
    rows = []
    for a, b in round_robin(captains):
        games = by_pair[(a.id, b.id)]
        summary = summarize_pairing(sorted(games.values(), key=lambda r: r.sort_key)) if games else None
        test = params.get((a.id, b.id))
        rows.append(PairingStanding(a, b, summary, replay_sprt(test, games, league.info.first_seed) if test else None))
    return Standings(league.info, tuple(captains), tuple(fit_league_ratings(results, captains)), tuple(rows),
                     len(results))
