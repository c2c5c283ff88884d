"""Tournaments between captains: a round robin or explicit pairings, paired games, several processes.

Every pairing ``a:b`` plays ``games`` seeds (``seed``, ``seed + 1``, ...), each seed
twice: once with ``a`` on the scenario's first side and once swapped, so board,
dice and side advantage even out. Games run in worker processes (``spawn`` context)
or Ray actors (:mod:`agents.evaluation.ray_backend`) that build their own :class:`Match`
and captains from the specs; results are sorted by (pairing, seed, swap), so they
depend neither on the number of workers nor on the backend.

Captains are given as specs: ``random``, a scripted name (``rammer``), a training run
folder or ``.zip``, or an ``.onnx`` export. ``NAME=SPEC`` gives a spec a short label;
otherwise a path is labelled by its file or folder name.
"""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, islice
from pathlib import Path
from typing import Any, overload

from tqdm import tqdm

from agents.arena import GameRecord, play_game
from agents.base import Captain
from agents.distributed.ray_runtime import check_address, import_ray
from agents.evaluation.ratings import Rating, fit_ratings
from agents.evaluation.replay import write_replay
from agents.evaluation.stats import GameResult, PairingSummary, summarize
from agents.registry import make_captain, scripted_names
from naval_env.core.errors import NavalError
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match

LABEL = re.compile(r"^[A-Za-z0-9_.\-]+$")


class EvaluationInputError(NavalError):
    """Bad tournament input; the one-line message names what was wrong and what is allowed."""


@dataclass(frozen=True)
class Entrant:
    label: str   # name in tables, pairings and ratings
    spec: str    # what make_captain gets


@dataclass(frozen=True)
class Tournament:
    ruleset: str
    scenario: str | None
    config: str | None
    entrants: tuple[Entrant, ...]
    pairings: tuple[tuple[str, str], ...]   # (a, b) by label
    games: int                              # seeds per pairing; each is played twice, sides swapped
    seed: int = 0

    @property
    def specs(self) -> dict[str, str]:
        return {entrant.label: entrant.spec for entrant in self.entrants}


@dataclass(frozen=True, order=True)
class GameTask:
    pairing: int
    seed: int
    swap: bool


# ------------------------------------------------------------------------------------- input
def _label_of(spec: str) -> str:
    path = Path(spec)
    if path.suffix in (".onnx", ".zip"):
        return path.parent.name if path.stem == "final_model" and path.parent.name else path.stem
    # A captain name such as search:64 or mixed:zoo:0.3 is labelled search-64: ':' separates pairings.
    return (path.name or spec).replace(":", "-")


def parse_entrant(text: str) -> Entrant:
    """``NAME=SPEC`` or a bare spec (labelled by its name, or its file/folder name for paths)."""
    label, sep, spec = text.partition("=")
    if not sep:
        label, spec = _label_of(text), text
    if not spec or not LABEL.match(label):
        raise EvaluationInputError(
            f"bad captain {text!r}: give a spec (random, a scripted name, a run folder, a .zip or an .onnx) "
            "or NAME=SPEC with NAME made of letters, digits, '_', '-' and '.'")
    return Entrant(label, spec)


def parse_pairings(texts: Sequence[str], entrants: Sequence[Entrant]) -> tuple[list[tuple[str, str]], list[Entrant]]:
    """Pairings ``A:B`` by label (or by spec, which adds that captain); returns (pairings, all entrants)."""
    known = list(entrants)
    pairings: list[tuple[str, str]] = []
    for text in texts:
        parts = text.split(":")
        if len(parts) != 2 or not all(parts):
            raise EvaluationInputError(
                f"bad pairing {text!r}: expected A:B where A and B are captains "
                f"{[e.label for e in known] or '(labels or specs)'}")
        pair = []
        for token in parts:
            match = next((e for e in known if token in (e.label, e.spec)), None)
            if match is None:
                match = parse_entrant(token)
                known.append(match)
            pair.append(match.label)
        pairings.append((pair[0], pair[1]))
    return pairings, known


def round_robin(labels: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair once, in the order the captains were given."""
    return list(combinations(labels, 2))


def build_tournament(ruleset: str, captains: Sequence[str], games: int, *, scenario: str | None = None,
                     pairings: Sequence[str] = (), seed: int = 0, config: str | None = None,
                     check_captains: bool = True) -> Tournament:
    """Validate everything up front; raises :class:`EvaluationInputError` with a one-line message."""
    if ruleset not in ruleset_ids():
        raise EvaluationInputError(f"unknown ruleset {ruleset!r}; choose one of {ruleset_ids()}")
    if games < 1:
        raise EvaluationInputError(f"games per pairing must be at least 1, got {games}")
    if seed < 0:
        raise EvaluationInputError(f"the first seed must be 0 or more, got {seed}")
    rules = get_ruleset(ruleset)
    try:
        loaded = rules.load_config(config)
    except (OSError, NavalError) as exc:
        raise EvaluationInputError(_one_line(f"bad config {config!r}: {exc}")) from None
    scenarios = rules.scenarios(loaded)
    if scenario is not None and scenario not in scenarios:
        raise EvaluationInputError(f"unknown {ruleset} scenario {scenario!r}; choose one of {scenarios}")
    entrants = [parse_entrant(text) for text in captains]
    if pairings:
        pairs, entrants = parse_pairings(pairings, entrants)
    else:
        if len(entrants) < 2:
            raise EvaluationInputError(
                f"a round robin needs at least two captains, got {[e.label for e in entrants]}; "
                f"add captains (e.g. {scripted_names(ruleset)}) or give pairings A:B")
        pairs = round_robin([e.label for e in entrants])
    _check_unique(entrants)
    sides = rules.new_game(loaded, scenario, seed=0).sides
    if len(sides) != 2:
        raise EvaluationInputError(f"{ruleset} scenario {scenario!r} has {len(sides)} sides; tournaments need 2")
    if check_captains:
        action_spec = rules.action_spec(loaded)
        for entrant in entrants:
            load_captain(entrant, ruleset, action_spec, config=loaded)
    return Tournament(ruleset, scenario, config, tuple(entrants), tuple(pairs), games, seed)


def _check_unique(entrants: Sequence[Entrant]) -> None:
    seen: dict[str, str] = {}
    for entrant in entrants:
        if seen.get(entrant.label) == entrant.spec:
            raise EvaluationInputError(f"captain {entrant.spec!r} is listed twice; list each captain once")
        if entrant.label in seen:
            raise EvaluationInputError(
                f"two captains are labelled {entrant.label!r} ({seen[entrant.label]!r} and {entrant.spec!r}); "
                "list each once, or label them NAME=SPEC")
        seen[entrant.label] = entrant.spec


def load_captain(entrant: Entrant, ruleset: str, action_spec: Any, seed: int = 0, config: Any = None) -> Captain:
    """make_captain with input errors turned into one-line :class:`EvaluationInputError`."""
    spec = entrant.spec
    looks_like_path = Path(spec).suffix in (".onnx", ".zip") or os.sep in spec or "/" in spec
    if looks_like_path and not Path(spec).exists():
        raise EvaluationInputError(
            f"captain {spec!r}: no such file or folder; use one of {scripted_names(ruleset)}, "
            "a training run folder, a model .zip inside one, or an .onnx export")
    try:
        return make_captain(spec, ruleset, action_spec, seed=seed, config=config)
    except (ValueError, OSError, ImportError) as exc:
        raise EvaluationInputError(_one_line(str(exc) if not looks_like_path
                                             else f"cannot load captain {spec!r}: {exc}")) from None


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------------------------- schedule
@dataclass(frozen=True)
class Schedule(Sequence[GameTask]):
    """Every game of a tournament, made on demand: per pairing, per seed, unswapped then swapped.

    Length and indexing are arithmetic, so a schedule of a billion seeds costs no memory
    and no time until its games are played.
    """

    pairings: int
    first_seed: int
    seeds: int

    def __len__(self) -> int:
        return self.pairings * self.seeds * 2

    def _task(self, index: int) -> GameTask:
        pairing, rest = divmod(index, self.seeds * 2)
        return GameTask(pairing, self.first_seed + rest // 2, bool(rest % 2))

    @overload
    def __getitem__(self, index: int) -> GameTask: ...
    @overload
    def __getitem__(self, index: slice) -> list[GameTask]: ...
    def __getitem__(self, index: int | slice) -> GameTask | list[GameTask]:
        if isinstance(index, slice):
            return [self._task(i) for i in range(len(self))[index]]
        return self._task(range(len(self))[index])   # range does the bounds and negative indices

    def __iter__(self) -> Iterator[GameTask]:
        for pairing in range(self.pairings):
            for seed in range(self.first_seed, self.first_seed + self.seeds):
                yield GameTask(pairing, seed, False)
                yield GameTask(pairing, seed, True)


def schedule(tournament: Tournament) -> Schedule:
    """Every game of the tournament: per pairing, per seed, unswapped then swapped."""
    return Schedule(len(tournament.pairings), tournament.seed, tournament.games)


def rating_order(results: Sequence[GameResult]) -> list[GameResult]:
    """Games round by round (seed, swap, pairing): the order ratings are fitted in."""
    return sorted(results, key=lambda r: (r.seed, r.swap, r.pairing))


# ----------------------------------------------------------------------------------- workers
@dataclass(frozen=True)
class _Setup:
    tournament: Tournament
    replay_dir: str | None
    single_thread: bool


class _Worker:
    """One process's Match and captains; two instances per captain so a mirror pairing works."""

    def __init__(self, setup: _Setup) -> None:
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
            from agents.evaluation.ray_backend import play_on_ray

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
    """A played tournament with its per-pairing summaries and ratings."""

    tournament: Tournament
    results: tuple[GameResult, ...]
    summaries: tuple[PairingSummary, ...]
    ratings: tuple[Rating, ...]


def evaluate(tournament: Tournament, *, workers: int = 1, replay_dir: str | Path | None = None,
             progress: bool = True, backend: str = "local", address: str | None = None) -> Evaluation:
    """Run the tournament, summarize each pairing and fit ratings (games in :func:`rating_order`)."""
    results = run_tournament(tournament, workers=workers, replay_dir=replay_dir, progress=progress,
                             backend=backend, address=address)
    labels = list(dict.fromkeys(label for pair in tournament.pairings for label in pair))
    outcomes = [(r.a, r.b, r.winner) for r in rating_order(results)]
    return Evaluation(tournament, tuple(results), tuple(summarize(results)),
                      tuple(fit_ratings(outcomes, captains=labels)))
