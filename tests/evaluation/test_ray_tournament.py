"""Tournaments on Ray: the same games, results, replays and files as the local backend; clear input errors.

Every Ray test shares one local Ray (two CPUs) started once for this module.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from naval_agents.distributed.ray_runtime import INSTALL_HINT, ray_session
from naval_agents.evaluation.report import RESULT_FILES
from naval_agents.evaluation.stats import GameResult
from naval_agents.evaluation.tournament import (
    EvaluationInputError,
    GameTask,
    Tournament,
    build_tournament,
    check_backend,
    run_tournament,
    schedule,
)
from naval_env.core.errors import ConfigError
from naval_tactics.commands import evaluate as command

pytestmark = pytest.mark.ray

#: The shipped ONNX captain against two scripted ones: 3 pairings x 3 seeds x 2 sides = 18 games.
CAPTAINS = ("zoo", "gunner", "rammer")


@pytest.fixture(scope="module")
def ray() -> Iterator[ModuleType]:
    pytest.importorskip("ray")  # the [ray] extra: without it the tests on Ray are skipped
    with ray_session(num_cpus=2) as ray:
        yield ray


@pytest.fixture(scope="module")
def tournament() -> Tournament:
    return build_tournament("pantheon", CAPTAINS, 3, scenario="duel", seed=7)


def test_ray_backend_gives_the_local_results_game_for_game_with_replays(
        ray: ModuleType, tournament: Tournament, tmp_path: Path) -> None:
    local = run_tournament(tournament, workers=1, replay_dir=tmp_path / "local", progress=False)
    on_ray = run_tournament(tournament, workers=2, replay_dir=tmp_path / "ray", progress=False, backend="ray")
    assert len(local) == 18
    assert [(r.pairing, r.seed, r.swap) for r in on_ray] == [(r.pairing, r.seed, r.swap) for r in local]
    assert on_ray == local
    assert {r.winner_side for r in local} == {"red", "blue"}, "both sides should win games to compare"
    local_files = sorted(p.name for p in (tmp_path / "local").iterdir())
    assert len(local_files) == 18
    assert sorted(p.name for p in (tmp_path / "ray").iterdir()) == local_files
    for name in local_files:
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name


def test_ray_backend_without_replays_and_one_actor(ray: ModuleType, tournament: Tournament) -> None:
    local = run_tournament(tournament, workers=1, progress=False)
    assert run_tournament(tournament, workers=1, progress=False, backend="ray") == local


@pytest.mark.parametrize(("backend", "workers"), [("local", 1), ("local", 2), ("ray", 2)])
def test_a_subset_of_games_with_each_batch_reported_as_it_finishes(
        ray: ModuleType, tournament: Tournament, backend: str, workers: int) -> None:
    """What a league needs: play only the games it lacks, and store each as soon as it is back."""
    everything = run_tournament(tournament, workers=1, progress=False)
    wanted = [task for task in schedule(tournament) if task.seed != 8]   # 12 of the 18 games
    batches: list[list[GameResult]] = []
    played = run_tournament(tournament, workers=workers, progress=False, backend=backend, tasks=wanted,
                            on_games=batches.append)
    assert played == [r for r in everything if r.seed != 8]
    assert sorted((r for batch in batches for r in batch), key=lambda r: r.sort_key) == played
    assert all(batches)


def test_a_game_outside_the_schedule_is_refused(tournament: Tournament) -> None:
    with pytest.raises(EvaluationInputError, match=r"not in the tournament's schedule \(pairings 0..2, seeds 7..9\)"):
        run_tournament(tournament, tasks=[GameTask(0, 10, False)], progress=False)


def test_evaluate_command_writes_the_same_files_on_both_backends(
        ray: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["--ruleset", "pantheon", "--scenario", "duel", "--captains", "zoo", "gunner", "--games", "2",
              "--seed", "3", "--no-progress"]
    assert command.main([*common, "--workers", "1", "--out", str(tmp_path / "local")]) == 0
    assert command.main([*common, "--workers", "2", "--out", str(tmp_path / "ray"), "--backend", "ray"]) == 0
    for name in RESULT_FILES:
        assert (tmp_path / "ray" / name).read_text() == (tmp_path / "local" / name).read_text(), name
    assert "4 games in" in capsys.readouterr().out


def test_an_error_in_an_actor_is_raised_as_the_local_backend_raises_it(ray: ModuleType) -> None:
    # Captains unchecked up front, so the unknown one fails where the games are played.
    tournament = build_tournament("pantheon", ["gunner", "kraken"], 1, check_captains=False)
    with pytest.raises(EvaluationInputError) as local:
        run_tournament(tournament, workers=1, progress=False)
    with pytest.raises(EvaluationInputError) as on_ray:
        run_tournament(tournament, workers=1, progress=False, backend="ray")
    assert "kraken" in str(local.value)
    assert str(on_ray.value) == str(local.value)


def test_more_workers_than_ray_cpus_is_refused(ray: ModuleType, tournament: Tournament) -> None:
    with pytest.raises(EvaluationInputError, match=r"workers 3 .* the Ray cluster has 2 CPUs; give workers 2"):
        run_tournament(tournament, workers=3, progress=False, backend="ray")


@pytest.mark.parametrize(("backend", "address", "message"), [
    ("dask", None, r"unknown backend 'dask'; allowed: local, ray"),
    ("local", "head:6379", r"needs backend ray, not 'local'; add --backend ray or drop --address"),
    ("ray", "head", r"bad Ray address 'head'; allowed: auto, HOST:PORT .* ray://HOST:PORT"),
    ("ray", "http://head:8265", r"bad Ray address 'http://head:8265'"),
])
def test_bad_backend_or_address_is_refused(backend: str, address: str | None, message: str) -> None:
    with pytest.raises((EvaluationInputError, ConfigError), match=message):
        check_backend(backend, address)


@pytest.mark.parametrize(("argv", "message"), [
    (["--backend", "dask"], "argument --backend: invalid choice: 'dask' (choose from 'local', 'ray')"),
    (["--address", "head:6379"], "needs backend ray, not 'local'"),
    (["--backend", "ray", "--address", "head"], "bad Ray address 'head'; allowed: auto, HOST:PORT"),
])
def test_evaluate_command_refuses_bad_backend_flags(argv: list[str], message: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    argv = ["--captains", "gunner", "rammer", "--games", "1", "--out", str(out), *argv]
    assert _exit_code(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists(), "a refused command writes nothing"


def test_missing_ray_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)   # `import ray` now raises ImportError
    with pytest.raises(ConfigError, match="Ray is not installed"):
        check_backend("ray")
    out = tmp_path / "out"
    assert command.main(["--captains", "gunner", "rammer", "--games", "1", "--backend", "ray",
                         "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == f"naval-tactics evaluate: error: {INSTALL_HINT}"
    assert not out.exists()


def _exit_code(argv: list[str]) -> int | str | None:
    """main's return code, or argparse's exit code for a flag it refuses."""
    try:
        return command.main(argv)
    except SystemExit as exit_:
        return exit_.code
