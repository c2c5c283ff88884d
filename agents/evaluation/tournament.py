"""Tournaments between captains: a round robin or explicit pairings, paired games, several processes.

Every pairing ``a:b`` plays ``games`` seeds (``seed``, ``seed + 1``, ...), each seed
twice: once with ``a`` on the scenario's first side and once swapped, so board,
dice and side advantage even out. Games run in worker processes (``spawn`` context)
or Ray actors (:mod:`naval_agents.evaluation.ray_backend`) that build their own :class:`Match`
and captains from the specs; results are sorted by (pairing, seed, swap), so they
depend neither on the number of workers nor on the backend.

Captains are given as specs: ``random``, a scripted name (``rammer``), a training run
folder or ``.zip``, or an ``.onnx`` export. ``NAME=SPEC`` gives a spec a short label;
otherwise a path is labelled by its file or folder name.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from naval_agents.distributed.ray_runtime import check_address, import_ray
from naval_agents.evaluation.ratings import Rating, fit_ratings
from naval_agents.evaluation.schedule import (
    LABEL,
    Entrant,
    EvaluationInputError,
    GameTask,
    Schedule,
    Tournament,
    build_tournament,
    load_captain,
    parse_entrant,
    parse_pairings,
    rating_order,
    round_robin,
    schedule,
)
from naval_agents.evaluation.seat_paired import (
    SeatPaired,
    missing_opponents,
    score_index,
    seat_paired,
)
from naval_agents.evaluation.stats import GameResult, PairingSummary, summarize
from naval_agents.evaluation.workers import (
    _chunks,
    _init_worker,
    _play_chunk,
    _Setup,
    _Worker,
    replay_path,
    save_replay,
    worker_pool,
)

# The input, schedule and per-game parts live in .schedule and .workers (below this module and
# .ray_backend, which imports them, not this one); named here too, as before the split.
__all__ = [
    "BACKENDS",
    "LABEL",
    "Entrant",
    "Evaluation",
    "EvaluationInputError",
    "GameTask",
    "Schedule",
    "Tournament",
    "_Setup",
    "_Worker",
    "_chunks",
    "_init_worker",
    "_play_chunk",
    "build_tournament",
    "check_backend",
    "check_workers",
    "chunk_size",
    "evaluate",
    "load_captain",
    "parse_entrant",
    "parse_pairings",
    "rating_order",
    "replay_path",
    "round_robin",
    "run_tournament",
    "save_replay",
    "schedule",
    "worker_pool",
]


def check_workers(workers: int) -> None:
    if workers < 1:
        raise EvaluationInputError(f"workers must be at least 1, got {workers}")


#: Where games run: ``local`` in this process or a process pool, ``ray`` as Ray actors (local or a cluster).
BACKENDS = ("local", "ray")


def check_backend(backend: str, address: str | None = None) -> None:
    """Refuse, before any game, an unknown backend, an address without Ray, a bad address or a missing Ray."""
    if backend not in BACKENDS:
        raise EvaluationInputError(f"unknown backend {backend!r}; allowed: {', '.join(BACKENDS)}")
    if address is not None and backend != "ray":
        raise EvaluationInputError(f"an address ({address!r}) names a Ray cluster to join, so it needs backend "
                                   f"ray, not {backend!r}; add --backend ray or drop --address")
    if backend == "ray":
        if address is not None:
            check_address(address)
        import_ray()


def chunk_size(games: int, workers: int) -> int:
    """Games per task: about eight tasks per worker (games take milliseconds; a task per game is overhead)."""
    return max(1, min(64, games // (workers * 8)))


def run_tournament(tournament: Tournament, *, workers: int = 1, replay_dir: str | Path | None = None,
                   progress: bool = True, start_method: str = "spawn", backend: str = "local",
                   address: str | None = None, tasks: Sequence[GameTask] | None = None,
                   on_games: Callable[[list[GameResult]], Any] | None = None) -> list[GameResult]:
    """Play every scheduled game; results sorted by (pairing, seed, swap) whatever the backend and ``workers``.

    ``local``: ``workers`` 1 plays in this process, more in a process pool. ``ray``: ``workers``
    Ray actors (on a local Ray, or the cluster at ``address``) play chunks of games; replays are
    written here, on this machine, either way. ``tasks``: only these games of the schedule (a
    resumed run skips those it has). ``on_games`` gets each batch of finished games as it comes
    back, in the order they finish (to store them at once). The progress bar shows only when
    asked and stderr is a terminal.
    """
    check_workers(workers)
    check_backend(backend, address)
    tasks = schedule(tournament) if tasks is None else _check_tasks(tournament, tasks)
    setup = _Setup(tournament, None if replay_dir is None else str(replay_dir),
                   single_thread=workers > 1 or backend == "ray")
    bar = tqdm(total=len(tasks), unit="game", desc="games", disable=not (progress and sys.stderr.isatty()))
    results: list[GameResult] = []

    def finished(games: list[GameResult]) -> None:
        results.extend(games)
        bar.update(len(games))
        if on_games is not None:
            on_games(games)

    try:
        if backend == "ray":
            from naval_agents.evaluation.ray_backend import play_on_ray

            play_on_ray(setup, tasks, workers=workers, address=address, chunk=chunk_size(len(tasks), workers),
                        done=finished)
        elif workers == 1:
            worker = _Worker(setup)
            for task in tasks:
                finished([worker.play(task)])
        else:
            context = multiprocessing.get_context(start_method)
            with worker_pool(context, workers, setup) as pool:
                for chunk in pool.imap_unordered(_play_chunk, _chunks(tasks, chunk_size(len(tasks), workers))):
                    finished(chunk)
    finally:
        bar.close()
    return sorted(results, key=lambda r: r.sort_key)


def _check_tasks(tournament: Tournament, tasks: Sequence[GameTask]) -> Sequence[GameTask]:
    first, last = tournament.seed, tournament.seed + tournament.games - 1
    for task in tasks:
        if not (0 <= task.pairing < len(tournament.pairings) and first <= task.seed <= last):
            raise EvaluationInputError(f"game {task} is not in the tournament's schedule (pairings 0.."
                                       f"{len(tournament.pairings) - 1}, seeds {first}..{last})")
    return tasks


# ---------------------------------------------------------------------------------- evaluate
@dataclass(frozen=True)
class Evaluation:
    """A played tournament with its per-pairing summaries and ratings, and (when a reference was given) each
    pairing's seat-paired difference against it (:mod:`naval_agents.evaluation.seat_paired`)."""

    tournament: Tournament
    results: tuple[GameResult, ...]
    summaries: tuple[PairingSummary, ...]
    ratings: tuple[Rating, ...]
    reference: str | None = None                    # the reference captain's label
    paired: tuple[SeatPaired, ...] = ()             # one per summary, in the same order
    reference_results: tuple[GameResult, ...] = ()  # its games played for the pairing only (not rated)


def reference_entrant(tournament: Tournament, spec: str) -> Entrant:
    """The entrant playing the reference: the tournament's own where one has that spec or label, else a new one
    labelled by the spec (``reference-<label>`` if that label is taken by another captain)."""
    for entrant in tournament.entrants:
        if spec in (entrant.spec, entrant.label):
            return entrant
    entrant = parse_entrant(spec)
    if entrant.label in {e.label for e in tournament.entrants}:
        entrant = Entrant(f"reference-{entrant.label}", entrant.spec)
    return entrant


def reference_tournament(tournament: Tournament, reference: Entrant) -> Tournament | None:
    """The games the reference lacks for a seat-paired difference on every pairing: it against each opponent it
    is never paired with (itself included, as a mirror), on the tournament's seeds; None when none lack."""
    opponents = missing_opponents(tournament.pairings, reference.label)
    if not opponents:
        return None
    specs = {e.label: e for e in tournament.entrants}
    entrants = [reference, *(specs[name] for name in opponents if name != reference.label)]
    return Tournament(tournament.ruleset, tournament.scenario, tournament.config, tuple(entrants),
                      tuple((reference.label, name) for name in opponents), tournament.games, tournament.seed)


def evaluate(tournament: Tournament, *, workers: int = 1, replay_dir: str | Path | None = None,
             progress: bool = True, backend: str = "local", address: str | None = None,
             reference: str | None = None, play_reference: bool = False) -> Evaluation:
    """Run the tournament, summarize each pairing and fit ratings (games in :func:`rating_order`).

    ``reference``: a captain spec; each pairing ``a:b`` then also gets ``a``'s seat-paired difference against
    it (a's score minus the reference's against ``b`` on the same seeds and seats). Its games come from the
    tournament where it plays; ``play_reference`` plays, on the same seeds, those the tournament lacks (not
    rated, not in the summaries); without it a pairing lacking them says so (:class:`SeatPaired`)."""
    results = run_tournament(tournament, workers=workers, replay_dir=replay_dir, progress=progress,
                             backend=backend, address=address)
    labels = list(dict.fromkeys(label for pair in tournament.pairings for label in pair))
    outcomes = [(r.a, r.b, r.winner) for r in rating_order(results)]
    summaries = tuple(summarize(results))
    ratings = tuple(fit_ratings(outcomes, captains=labels))
    if reference is None:
        return Evaluation(tournament, tuple(results), summaries, ratings)
    entrant = reference_entrant(tournament, reference)
    extra = reference_tournament(tournament, entrant) if play_reference else None
    reference_results = () if extra is None else tuple(run_tournament(
        extra, workers=workers, progress=progress, backend=backend, address=address))
    index = score_index([*results, *reference_results])
    paired = tuple(seat_paired(s.a, s.b, entrant.label, results, index) for s in summaries)
    return Evaluation(tournament, tuple(results), summaries, ratings, entrant.label, paired, reference_results)
