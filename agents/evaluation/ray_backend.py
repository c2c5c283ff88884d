"""Tournament games on Ray: a few actors, each with its own Match and captains, playing chunks of games.

A game takes milliseconds, so one Ray task per game would be mostly overhead: the schedule is cut
into chunks (as the process pool does) and each of ``workers`` actors builds its captains once and
keeps two chunks in flight, so it never waits on the driver between chunks. Each game is still
played from its own seed by a fresh game, so the results are the local backend's, game for game.

Replays are written by the driver, on this machine, from the records the actors send back: on a
cluster the actors' file systems are not the user's. Captain files (``.onnx``, run folders) must
be readable at the same path on every node that plays (a shared file system); shipped captains
(scripted names, ``zoo``) are found through the installed package.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from naval_agents.captains.arena import GameRecord
from naval_agents.distributed.ray_runtime import ray_session
from naval_agents.evaluation.schedule import EvaluationInputError, GameTask
from naval_agents.evaluation.stats import GameResult
from naval_agents.evaluation.workers import _chunks, _init_worker, _Setup, _Worker, save_replay

#: Chunks each actor holds at once: one playing, one queued behind it.
IN_FLIGHT = 2


class GameActor:
    """One Ray worker's Match and captains (built once, reused for every chunk it plays)."""

    def __init__(self, setup: _Setup) -> None:
        _init_worker(setup)   # one torch/BLAS thread: the actors are the parallelism
        self.worker = _Worker(setup)
        self.keep = setup.replay_dir is not None

    def play(self, tasks: list[GameTask]) -> list[tuple[GameResult, GameRecord | None]]:
        played = [self.worker.game(task, self.keep) for task in tasks]
        return [(result, record if self.keep else None) for result, record in played]


def play_on_ray(setup: _Setup, tasks: Sequence[GameTask], *, workers: int, address: str | None, chunk: int,
                done: Callable[[list[GameResult]], Any]) -> None:
    """Play ``tasks`` on ``workers`` Ray actors of one CPU each; ``done`` gets each chunk's results as it
    comes back (after its replays are written)."""
    # A local Ray gets a CPU per worker even past the core count, as the process pool would run them.
    with ray_session(address, num_cpus=max(workers, os.cpu_count() or 1)) as ray:
        _check_cpus(ray, workers)
        actor_class = ray.remote(num_cpus=1)(GameActor)
        actors = [actor_class.remote(setup) for _ in range(workers)]
        try:
            _drive(ray, actors, setup, _chunks(tasks, chunk), done)
        finally:
            for actor in actors:
                ray.kill(actor)


def _drive(ray: ModuleType, actors: list[Any], setup: _Setup, chunks: Any,
           done: Callable[[list[GameResult]], Any]) -> None:
    pending: dict[Any, tuple[Any, list[GameTask]]] = {}

    def submit(actor: Any) -> None:
        tasks = next(chunks, None)
        if tasks is not None:
            pending[actor.play.remote(tasks)] = (actor, tasks)

    for actor in actors:
        for _ in range(IN_FLIGHT):
            submit(actor)
    while pending:
        [ready], _ = ray.wait(list(pending), num_returns=1)
        actor, tasks = pending.pop(ready)
        submit(actor)
        played = _get(ray, ready)
        for task, (_, record) in zip(tasks, played, strict=True):
            if record is not None:
                assert setup.replay_dir is not None
                save_replay(setup.replay_dir, setup.tournament, task, record)
        done([result for result, _ in played])


def _get(ray: ModuleType, ref: Any) -> Any:
    """``ray.get``, raising the game's own error (as the local backend does) rather than Ray's wrapper."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as error:
        cause = error.cause
        if isinstance(cause, Exception):
            raise cause from None
        raise


def _check_cpus(ray: ModuleType, workers: int) -> None:
    """Refuse more actors than the cluster has CPUs: the extra ones would wait for ever."""
    cpus = int(ray.cluster_resources().get("CPU", 0))
    if workers > cpus:
        raise EvaluationInputError(f"workers {workers} asks for {workers} Ray actors of one CPU each, but the "
                                   f"Ray cluster has {cpus} CPUs; give workers {max(cpus, 1)} or fewer")
