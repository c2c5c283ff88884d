"""What plays a tournament's games in one process: its Match and captains, one game a task, a replay when asked.

Shared by the local process pool (:mod:`naval_agents.evaluation.tournament`), the Ray actors
(:mod:`naval_agents.evaluation.ray_backend`) and the league (:mod:`naval_agents.league.play`), so a game is
played the same way whichever runs it.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from naval_agents.captains.arena import GameRecord, play_game
from naval_agents.captains.base import Captain
from naval_agents.evaluation.replay import write_replay
from naval_agents.evaluation.schedule import Entrant, GameTask, Tournament, load_captain
from naval_agents.evaluation.stats import GameResult
from naval_env.core.ruleset import Ruleset, get_ruleset, ruleset_ids
from naval_env.envs.match import Match
from naval_env.envs.registration import register_ruleset


@dataclass(frozen=True)
class _Setup:
    tournament: Tournament
    replay_dir: str | None
    single_thread: bool
    #: The tournament's ruleset itself, so a worker in a fresh process (spawned, a Ray actor) plays a ruleset the
    #: parent registered at run time (``naval_env.register_ruleset``), which importing ``naval_env`` does not.
    ruleset: Ruleset = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "ruleset", get_ruleset(self.tournament.ruleset))


def _ensure_registered(ruleset: Ruleset) -> None:
    """Register ``ruleset`` in this process unless its id is already known here (a built-in one always is)."""
    if ruleset.id not in ruleset_ids():
        register_ruleset(ruleset)


class _Worker:
    """One process's Match and captains; two instances per captain so a mirror pairing works."""

    def __init__(self, setup: _Setup) -> None:
        _ensure_registered(setup.ruleset)
        self.setup = setup
        t = setup.tournament
        self.match = Match(t.ruleset, t.config, t.scenario, illegal_action="raise")
        self.sides = self.match.game.sides
        self._captains: dict[tuple[str, int], Captain] = {}

    def captain(self, label: str, slot: int) -> Captain:
        key = (label, slot)
        if key not in self._captains:
            t = self.setup.tournament
            self._captains[key] = load_captain(Entrant(label, t.specs[label]), t.ruleset, self.match.action_spec,
                                               config=self.match.config)
        return self._captains[key]

    def game(self, task: GameTask, keep: bool) -> tuple[GameResult, GameRecord]:
        """Play one game; ``keep``: with the actions and events a replay needs."""
        t = self.setup.tournament
        a, b = t.pairings[task.pairing]
        a_side, b_side = (self.sides[1], self.sides[0]) if task.swap else self.sides
        captains = {a_side: self.captain(a, 0), b_side: self.captain(b, 1)}
        try:
            record = play_game(self.match, captains, task.seed, keep_events=keep, keep_actions=keep)
        except Exception as exc:
            raise RuntimeError(f"game {a} vs {b}, seed {task.seed}, swap {task.swap} failed: {exc}") from exc
        labels = {a_side: a, b_side: b}
        record.captains = {side: labels[side] for side in self.sides}   # labels, not captain names
        result = GameResult(
            pairing=task.pairing, a=a, b=b, seed=task.seed, swap=task.swap, a_side=a_side, b_side=b_side,
            winner_side=record.winner, truncated=record.truncated, rounds=record.rounds,
            decisions=record.decisions,
            a_damage_dealt=record.damage_dealt[a_side], a_damage_taken=record.damage_taken[a_side],
            b_damage_dealt=record.damage_dealt[b_side], b_damage_taken=record.damage_taken[b_side],
        )
        return result, record

    def play(self, task: GameTask) -> GameResult:
        """Play one game and write its replay when the setup asks for replays."""
        result, record = self.game(task, keep=self.setup.replay_dir is not None)
        if self.setup.replay_dir is not None:
            save_replay(self.setup.replay_dir, self.setup.tournament, task, record)
        return result


def save_replay(folder: str | Path, tournament: Tournament, task: GameTask, record: GameRecord) -> Path:
    return write_replay(replay_path(folder, tournament, task), record, ruleset=tournament.ruleset,
                        scenario=tournament.scenario, config=tournament.config)


def replay_path(folder: str | Path, tournament: Tournament, task: GameTask) -> Path:
    a, b = tournament.pairings[task.pairing]
    name = f"{task.pairing:03d}_{a}_vs_{b}_seed{task.seed}_{'swapped' if task.swap else 'straight'}.jsonl"
    return Path(folder) / re.sub(r"[^A-Za-z0-9_.\-]", "_", name)


_WORKER: _Worker | None = None


def _init_worker(setup: _Setup) -> None:
    global _WORKER
    if setup.single_thread:  # one BLAS/torch thread per process; the processes are the parallelism
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)
    _WORKER = _Worker(setup)


def _ignore_sigint_then_init(setup: _Setup) -> None:
    # Ctrl-C reaches the whole process group; only the main process handles it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init_worker(setup)


def worker_pool(context: Any, workers: int, setup: _Setup) -> Any:
    """A pool of game workers that ignore SIGINT from their first instruction, so a Ctrl-C stops the main
    process alone (one clean message, not a traceback a worker): a spawned child inherits an ignored SIGINT
    across exec (and Python then installs no KeyboardInterrupt handler), which covers a worker still
    starting; the initializer ignores it again for the workers the pool starts later."""
    if threading.current_thread() is not threading.main_thread():
        return context.Pool(workers, initializer=_ignore_sigint_then_init, initargs=(setup,))
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return context.Pool(workers, initializer=_ignore_sigint_then_init, initargs=(setup,))
    finally:
        signal.signal(signal.SIGINT, previous)


def _play_chunk(tasks: list[GameTask]) -> list[GameResult]:
    assert _WORKER is not None, "worker used before _init_worker"
    return [_WORKER.play(task) for task in tasks]


def _chunks(tasks: Iterable[GameTask], size: int) -> Iterator[list[GameTask]]:
    iterator = iter(tasks)
    while chunk := list(islice(iterator, size)):
        yield chunk
