"""Train one configuration over several seeds at once and report the spread of their final win rates.

A trained captain's win rate moves by a few points from one training seed to the next, so a
configuration is judged over seeds, not one lucky run. ``train_seeds`` makes one parent folder,
``<run_dir>/<name>-seeds-<time>/``, with a run folder per seed (``seed-0/``, ``seed-1/``, ...,
each the usual run folder) and ``seeds.json``: every seed's final quick-evaluation win rate
against ``eval.opponent`` (its ``2 * eval.games`` paired games) and their mean, sample standard
deviation and range. Seeds train in parallel as local processes or as Ray tasks; each seed is
its own deterministic run, so the backend changes where it runs, not what it learns. A seed
that fails is reported with its error, and the others still finish.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import statistics
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from naval_agents.training.config import TrainConfig
from naval_env.core.errors import ConfigError

SUMMARY = "seeds.json"
#: Backends that train SB3 seeds side by side (RLlib runs its own workers; one seed per run there).
SEED_BACKENDS = ("local", "ray")


@dataclass(frozen=True)
class SeedOutcome:
    """One seed's run: its folder and final quick-evaluation win rate, or the error that stopped it."""

    seed: int
    folder: str
    win_rate: float | None = None   # wins + draws / 2 over the final quick evaluation's games
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass(frozen=True)
class Spread:
    """Mean, sample standard deviation (n - 1) and range of the finished seeds' win rates."""

    n: int
    mean: float | None
    std: float | None      # None below two finished seeds
    low: float | None
    high: float | None

    @classmethod
    def of(cls, rates: Sequence[float]) -> Spread:
        if not rates:
            return cls(0, None, None, None, None)
        return cls(len(rates), statistics.fmean(rates), statistics.stdev(rates) if len(rates) > 1 else None,
                   min(rates), max(rates))

    @property
    def range(self) -> float | None:
        return None if self.low is None or self.high is None else self.high - self.low


@dataclass(frozen=True)
class SeedsSummary:
    folder: str
    config: TrainConfig
    backend: str
    outcomes: tuple[SeedOutcome, ...]

    @property
    def spread(self) -> Spread:
        return Spread.of([o.win_rate for o in self.outcomes if o.win_rate is not None])

    def to_dict(self) -> dict[str, Any]:
        spread = self.spread
        return {
            "name": self.config.name, "ruleset": self.config.ruleset, "scenario": self.config.scenario,
            "backend": self.backend, "total_timesteps": self.config.total_timesteps,
            "opponent": self.config.eval.opponent, "games_per_seed": 2 * self.config.eval.games,
            "win_rate": "final quick evaluation: wins + draws / 2 over paired games from both sides",
            "seeds": [asdict(o) for o in self.outcomes],
            "summary": {"finished": spread.n, "failed": sum(not o.ok for o in self.outcomes),
                        "mean": spread.mean, "std": spread.std, "std_is": "sample (n - 1)",
                        "min": spread.low, "max": spread.high, "range": spread.range},
        }


def check_seeds(seeds: Sequence[int], backend: str, workers: int | None) -> None:
    """Refuse, before any folder is made, repeated or out-of-range seeds, a bad backend or worker count."""
    from naval_agents.training.config import MAX_SEED

    if not seeds:
        raise ConfigError("--seeds needs at least one seed, e.g. --seeds 0 1 2")
    repeated = sorted({s for s in seeds if list(seeds).count(s) > 1})
    if repeated:
        raise ConfigError(f"--seeds lists {repeated} more than once; list each seed once")
    bad = [s for s in seeds if not 0 <= s <= MAX_SEED]
    if bad:
        raise ConfigError(f"--seeds {bad}: each seed must be 0..{MAX_SEED} (numpy's seed range)")
    if backend not in SEED_BACKENDS:
        raise ConfigError(f"backend {backend!r} trains one seed per run; --seeds trains with backend "
                          f"{' or '.join(SEED_BACKENDS)}, or give one --seed")
    if workers is not None and workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")


def seed_config(config: TrainConfig, seed: int) -> TrainConfig:
    """``config`` for one seed, validated again; no progress bar (the seeds' bars would interleave)."""
    return TrainConfig.model_validate({**config.model_dump(), "seed": seed, "progress_bar": False})


def make_parent_folder(config: TrainConfig) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    base = Path(config.run_dir) / f"{config.name}-seeds-{stamp}"
    folder, suffix = base, 1
    while folder.exists():
        suffix += 1
        folder = base.with_name(f"{base.name}-{suffix}")
    folder.mkdir(parents=True)
    return folder


def train_one_seed(config: TrainConfig, folder: str) -> SeedOutcome:
    """Train one seed into ``folder``; any failure becomes the outcome's error instead of a raise."""
    from naval_agents.training.run import train

    try:
        train(config, Path(folder))
        manifest = json.loads((Path(folder) / "run.json").read_text())
        return SeedOutcome(config.seed, folder, win_rate=manifest["final_quick_eval"]["win_rate"])
    except Exception as error:  # noqa: BLE001  # reported in the summary; the other seeds go on
        return SeedOutcome(config.seed, folder, error=f"{type(error).__name__}: {error}")


def train_seeds(config: TrainConfig, seeds: Sequence[int], *, backend: str | None = None, workers: int | None = None,
                address: str | None = None, on_done: Callable[[SeedOutcome], Any] = lambda o: None) -> SeedsSummary:
    """Train every seed of ``config`` in parallel; writes and returns the summary (see the module doc).

    ``workers``: seeds training at once (default: one per seed, at most one per core here; every seed
    at once on a cluster). ``backend``
    (default ``config.backend``): ``local`` processes, or ``ray`` tasks on a local Ray or the
    cluster at ``address`` (its nodes must share the file system the run folders are on).
    """
    from naval_agents.training.run import check_run

    backend = backend or config.backend
    check_seeds(seeds, backend, workers)
    if address is not None and backend != "ray":
        raise ConfigError(f"--address ({address!r}) names a Ray cluster to join, so it needs backend ray, not "
                          f"{backend!r}; add --backend ray or drop --address")
    if backend == "ray":   # Ray missing or a malformed address: refused before any folder is made
        from naval_agents.distributed.ray_runtime import check_address, import_ray

        import_ray()
        if address is not None:
            check_address(address)
    configs = [seed_config(config, seed) for seed in seeds]
    check_run(configs[0])   # a refused config makes no folder
    if workers is None:   # a cluster schedules every seed as its CPUs allow; here, a seed per core
        workers = len(seeds) if address is not None else min(len(seeds), os.cpu_count() or 1)
    parent = make_parent_folder(config)
    folders = [str(parent / f"seed-{seed}") for seed in seeds]
    if backend == "ray":
        outcomes = _on_ray(configs, folders, workers, address, on_done)
    else:
        outcomes = _local(configs, folders, workers, on_done)
    summary = SeedsSummary(str(parent), config, backend, tuple(outcomes))
    (parent / SUMMARY).write_text(json.dumps(summary.to_dict(), indent=2))
    return summary


def _local(configs: list[TrainConfig], folders: list[str], workers: int,
           on_done: Callable[[SeedOutcome], Any]) -> list[SeedOutcome]:
    if workers == 1:   # in this process, one after the other
        in_turn = []
        for config, folder in zip(configs, folders, strict=True):
            in_turn.append(train_one_seed(config, folder))
            on_done(in_turn[-1])
        return in_turn
    # spawn: a fresh interpreter per seed, as SubprocVecEnv's forkserver, so no torch state is forked.
    with ProcessPoolExecutor(min(workers, len(configs)), mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {pool.submit(train_one_seed, config, folder): index
                   for index, (config, folder) in enumerate(zip(configs, folders, strict=True))}
        outcomes: dict[int, SeedOutcome] = {}
        for future in as_completed(futures):
            index = futures[future]
            try:
                outcomes[index] = future.result()
            except Exception as error:  # noqa: BLE001  # a worker that died (killed, out of memory)
                outcomes[index] = SeedOutcome(configs[index].seed, folders[index],
                                              error=f"{type(error).__name__}: {error}")
            on_done(outcomes[index])
        return [outcomes[index] for index in range(len(configs))]


def _on_ray(configs: list[TrainConfig], folders: list[str], workers: int, address: str | None,
            on_done: Callable[[SeedOutcome], Any]) -> list[SeedOutcome]:
    """At most ``workers`` seeds in flight, each asking Ray for the CPUs its env processes use."""
    from naval_agents.distributed.ray_runtime import ray_session

    cpus = _cpus(configs[0])
    with ray_session(address, num_cpus=max(workers * cpus, os.cpu_count() or 1)) as ray:
        task = ray.remote(train_one_seed).options(num_cpus=cpus)
        pending: dict[Any, int] = {}
        outcomes: dict[int, SeedOutcome] = {}
        queue = iter(range(len(configs)))
        for index in queue:
            pending[task.remote(configs[index], folders[index])] = index
            if len(pending) == workers:
                break
        while pending:
            [ready], _ = ray.wait(list(pending), num_returns=1)
            index = pending.pop(ready)
            try:
                outcomes[index] = ray.get(ready)
            except Exception as error:  # noqa: BLE001  # the task's worker died; the seed is reported
                outcomes[index] = SeedOutcome(configs[index].seed, folders[index],
                                              error=f"{type(error).__name__}: {error}")
            on_done(outcomes[index])
            following = next(queue, None)
            if following is not None:
                pending[task.remote(configs[following], folders[following])] = following
        return [outcomes[index] for index in range(len(configs))]


def _cpus(config: TrainConfig) -> int:
    return config.n_envs if config.vec_env == "subproc" else 1


def format_summary(summary: SeedsSummary) -> str:
    """The per-seed table and the spread line, as the command prints them."""
    config = summary.config
    lines = [(f"{config.name}: {len(summary.outcomes)} seeds, final win rate vs {config.eval.opponent} "
             f"({2 * config.eval.games} games each, draws count half)"),
             f"{'seed':>6}  {'win rate':>8}  run folder"]
    for outcome in summary.outcomes:
        rate = f"{outcome.win_rate:8.3f}" if outcome.win_rate is not None else f"{'failed':>8}"
        lines.append(f"{outcome.seed:>6}  {rate}  {outcome.folder}" + (f"  ({outcome.error})" if outcome.error else ""))
    spread = summary.spread
    if spread.n:
        std = "n/a (one seed)" if spread.std is None else f"{spread.std:.3f}"
        lines.append(f"mean {spread.mean:.3f}, std {std}, range {spread.low:.3f}-{spread.high:.3f} "
                     f"over {spread.n} finished seed(s)")
    failed = sum(not o.ok for o in summary.outcomes)
    if failed:
        lines.append(f"{failed} seed(s) failed; see the errors above and their run folders' run.json")
    lines.append(f"summary: {Path(summary.folder) / SUMMARY}")
    return "\n".join(lines)
