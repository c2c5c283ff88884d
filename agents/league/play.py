"""``league play``: play the league's missing games, committing each one as it finishes.

The games are those ``evaluate.py`` would play for the same captains (a round robin in the order they
were added) and ``--games N``: per pairing seeds ``first_seed .. first_seed + N - 1``, each once with A
on the scenario's first side and once swapped, played by the tournament's own worker
(:class:`naval_agents.evaluation.workers._Worker`), so a league game equals evaluate.py's game for game.
Games already in the file are skipped (its key is (pairing, seed, swap)), so a rerun after a crash or
Ctrl-C plays exactly what is missing. Games are handed out round by round (seed, swap, pairing) with a
few in flight per worker; a pairing whose SPRT is decided gets no new games.
"""

from __future__ import annotations

import multiprocessing
import queue
import sys
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tqdm import tqdm

from naval_agents.evaluation.stats import GameResult
from naval_agents.evaluation.tournament import (
    Entrant,
    GameTask,
    Tournament,
    _play_chunk,
    _Setup,
    _Worker,
    check_workers,
    load_captain,
    worker_pool,
)
from naval_agents.league.db import League, LeagueError
from naval_agents.league.identity import content_hash, file_hash
from naval_agents.league.sprt import SprtParams, SprtState
from naval_agents.league.standings import (
    Pair,
    fit_league_ratings,
    pairing_index,
    replay_sprt,
    round_robin,
)
from naval_env.core.ruleset import get_ruleset

IN_FLIGHT_PER_WORKER = 2


def league_tournament(league: League, games: int) -> Tournament:
    """The tournament of every league pairing, numbered as evaluate.py numbers the round robin."""
    captains = league.captains()
    info = league.info
    return Tournament(info.ruleset, info.scenario, info.config,
                      tuple(Entrant(c.name, c.source) for c in captains),
                      tuple((a.name, b.name) for a, b in round_robin(captains)), games, info.first_seed)


def select_pairs(league: League, texts: Sequence[str]) -> list[Pair]:
    """Pairings ``A:B`` by captain name (either order); all pairings when none are given."""
    captains = league.captains()
    pairs = round_robin(captains)
    if not texts:
        return pairs
    by_name = {c.name: c for c in captains}
    chosen: list[Pair] = []
    for text in texts:
        names = text.split(":")
        unknown = [n for n in names if n not in by_name]
        if len(names) != 2 or unknown or names[0] == names[1]:
            raise LeagueError(f"bad pairing {text!r}: give A:B with two different captains of the league; "
                              f"allowed names: {list(by_name)}")
        a, b = sorted((by_name[n] for n in names), key=lambda c: c.id)
        if (a, b) not in chosen:
            chosen.append((a, b))
    return [pair for pair in pairs if pair in chosen]


def check_playable(league: League, pairs: Sequence[Pair]) -> None:
    """Refuse before any game: rules changed since the league began, or a captain's files changed."""
    info = league.info
    version = get_ruleset(info.ruleset).version
    if version != info.ruleset_version:
        raise LeagueError(f"this league was played under {info.ruleset} rules version {info.ruleset_version}, the "
                          f"engine is now version {version}; start a new league file for the new rules")
    if info.config is not None and file_hash(info.config) != info.config_sha256:
        raise LeagueError(f"the league's ruleset config {info.config} changed (or is gone) since the league "
                          "began; start a new league file for the new config")
    rules = get_ruleset(info.ruleset)
    scenarios = list(rules.scenarios(rules.load_config(info.config)))
    if info.scenario not in scenarios:
        raise LeagueError(f"the league's scenario {info.scenario!r} (its 'meta' table) is not a scenario of its "
                          f"{info.ruleset} config, which has {scenarios}; the file was changed by hand or is damaged")
    for captain in dict.fromkeys(c for pair in pairs for c in pair):
        if captain.sha256 is not None and content_hash(captain.source, info.ruleset) != captain.sha256:
            raise LeagueError(f"captain {captain.name!r}: its files ({captain.source}) changed or are gone since it "
                              "was added; add the new version under a new name (NAME=PATH)")


@dataclass
class PlayReport:
    played: int = 0                                   # games committed by this run
    interrupted: bool = False
    sprt: dict[tuple[str, str], SprtState] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # pairings decided before this run


def play(league: League, games: int, *, pairings: Sequence[str] = (), workers: int = 1,
         sprt: SprtParams | None = None, progress: bool = True,
         on_game: Callable[[GameResult], None] | None = None) -> PlayReport:
    """Play every missing game of the chosen pairings up to ``games`` seeds each; see the module docstring.

    Ctrl-C stops after committing the games already finished (the report says ``interrupted``).
    """
    if games < 1:
        raise LeagueError(f"--games must be at least 1, got {games}")
    check_workers(workers)
    captains = league.captains()
    pairs = select_pairs(league, pairings)
    if not pairs:
        raise LeagueError(f"the league has {len(captains)} captain(s); add at least two to play "
                          f"(naval-tactics league --db {league.path} add CAPTAIN ...)")
    check_playable(league, pairs)
    tournament = league_tournament(league, games)
    index = pairing_index(captains)
    version = league.info.ruleset_version
    _check_captains_load(tournament, pairs)

    stored = league.games(index)
    done = {(r.pairing, r.seed, r.swap) for r in stored}
    report = PlayReport()
    tests: dict[int, SprtState] = {}
    pair_games: dict[int, dict[tuple[int, bool], GameResult]] = {index[(a.id, b.id)]: {} for a, b in pairs}
    if sprt is not None:
        for r in stored:
            if r.pairing in pair_games:
                pair_games[r.pairing][(r.seed, r.swap)] = r
        for a, b in pairs:
            i = index[(a.id, b.id)]
            tests[i] = replay_sprt(sprt, pair_games[i], league.info.first_seed)
            league.write_sprt(a.id, b.id, tests[i])
            if tests[i].decision is not None:
                report.skipped.append((a.name, b.name))
    by_index = {index[(a.id, b.id)]: (a, b) for a, b in pairs}
    first = league.info.first_seed
    tasks = deque(GameTask(i, seed, swap) for seed in range(first, first + games) for swap in (False, True)
                  for i in sorted(by_index) if (i, seed, swap) not in done)

    def cancelled(task: GameTask) -> bool:
        test = tests.get(task.pairing)
        return test is not None and test.decision is not None

    def record(result: GameResult) -> None:
        a, b = by_index[result.pairing]
        if league.add_game(a, b, result, version):
            report.played += 1
        if on_game is not None:
            on_game(result)
        test = tests.get(result.pairing)
        if test is not None and test.decision is None:
            pair_games[result.pairing][(result.seed, result.swap)] = result
            _advance(test, pair_games[result.pairing], first)
            if test.decision is not None:
                league.write_sprt(a.id, b.id, test)

    bar = tqdm(total=sum(not cancelled(t) for t in tasks), unit="game", desc="league",
               disable=not (progress and sys.stderr.isatty()))
    try:
        _run(tournament, tasks, workers, cancelled, record, bar.update)
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        bar.close()
        for i, test in tests.items():
            a, b = by_index[i]
            league.write_sprt(a.id, b.id, test)
            report.sprt[(a.name, b.name)] = test
        results = league.games(index)
        league.write_ratings(fit_league_ratings(results, captains), len(results))
    return report


def _advance(test: SprtState, games: dict[tuple[int, bool], GameResult], first_seed: int) -> None:
    """Feed the test the pairs completed since its last one (complete pairs in seed order only, so the
    decision is the same whatever order games finish in)."""
    seed = first_seed + test.pairs
    while test.decision is None and (seed, False) in games and (seed, True) in games:
        test.add_pair(games[(seed, False)].a_score + games[(seed, True)].a_score)
        seed += 1


def _check_captains_load(tournament: Tournament, pairs: Sequence[Pair]) -> None:
    """Load each captain once here, so a captain that no longer loads is one clear error, not a worker trace."""
    from naval_env.envs.match import Match

    match = Match(tournament.ruleset, tournament.config, tournament.scenario)
    for captain in dict.fromkeys(c for pair in pairs for c in pair):
        load_captain(Entrant(captain.name, captain.source), tournament.ruleset, match.action_spec,
                     config=match.config)


def _run(tournament: Tournament, tasks: deque[GameTask], workers: int, cancelled: Callable[[GameTask], bool],
         record: Callable[[GameResult], None], tick: Callable[[int], object]) -> None:
    def next_task() -> GameTask | None:
        while tasks:
            task = tasks.popleft()
            if not cancelled(task):
                return task
        return None

    setup = _Setup(tournament, None, single_thread=workers > 1)
    if workers == 1:
        worker = _Worker(setup)
        while (task := next_task()) is not None:
            record(worker.play(task))
            tick(1)
        return
    finished: queue.Queue[list[GameResult] | BaseException] = queue.Queue()
    context = multiprocessing.get_context("spawn")
    with worker_pool(context, workers, setup) as pool:
        in_flight = 0
        while True:
            while in_flight < workers * IN_FLIGHT_PER_WORKER and (task := next_task()) is not None:
                pool.apply_async(_play_chunk, ([task],), callback=finished.put, error_callback=finished.put)
                in_flight += 1
            if in_flight == 0:
                return
            item = finished.get()
            in_flight -= 1
            if isinstance(item, BaseException):
                raise item
            for result in item:
                record(result)
                tick(1)
