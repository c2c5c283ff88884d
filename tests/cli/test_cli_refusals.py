"""train.py and evaluate.py on bad input: refused before any folder is made or game played, with one clear line."""

from __future__ import annotations

import importlib.util
import json
import shlex
import subprocess
import sys
import time
import tracemalloc
from itertools import islice
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
import torch

from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import make_captain
from naval_agents.evaluation import tournament as tournament_module
from naval_agents.evaluation.replay import ReplayMismatchError, replay_game, write_replay
from naval_agents.evaluation.tournament import (
    GameTask,
    _chunks,
    build_tournament,
    run_tournament,
    schedule,
)
from naval_agents.training import run as run_module
from naval_agents.training.config import TrainConfig, load_train_config
from naval_agents.training.run import train
from naval_env.core.errors import ConfigError
from naval_env.envs.match import Match

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = "configs/train/pantheon.yaml"


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"{name}_script", ROOT / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # inspect (docstrings of the settings) looks modules up here
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def evaluate_script() -> ModuleType:
    return _script("evaluate")


@pytest.fixture(scope="module")
def train_script() -> ModuleType:
    return _script("train")


def tiny_config(run_dir: Path, **update: Any) -> TrainConfig:
    config = load_train_config(DEFAULT, {"total_timesteps": 64, "n_envs": 1, "n_steps": 32, "batch_size": 32,
                                         "run_dir": str(run_dir), "name": "tiny", "progress_bar": False})
    return config.model_copy(update={"eval": config.eval.model_copy(update={"games": 1}), **update})


def no_cuda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)


# ------------------------------------------------------------------------------ train.py
@pytest.mark.parametrize(("change", "message"), [
    ({"scenario": "armada"}, r"scenario 'armada': not a pantheon scenario; allowed: duel, mixed_duel, squadron, fleet"),
    ({"learner": "green_0"}, r"learner 'green_0' is not a captain of scenario 'duel'; choose one of \('red_0', 'blue_0'\)"),
    ({"opponents": {"pool": ["kraken"]}}, r"unknown captain 'kraken'"),
    ({"eval": {"opponent": "kraken", "games": 1}}, r"unknown captain 'kraken'"),
    ({"device": "cuda"}, r"device 'cuda' asked for, but torch sees no CUDA GPU"),
])
def test_refused_config_leaves_no_run_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             change: dict[str, Any], message: str) -> None:
    no_cuda(monkeypatch)
    base = tiny_config(tmp_path / "runs").model_dump()
    for key, value in change.items():
        base[key] = {**base[key], **value} if isinstance(value, dict) else value
    config = TrainConfig.model_validate(base)
    with pytest.raises(ValueError, match=message):
        train(config)
    assert not (tmp_path / "runs").exists() or list((tmp_path / "runs").iterdir()) == []


@pytest.mark.parametrize(("args", "message"), [
    (["--ruleset", "chess"], "naval-tactics train: error: unknown ruleset 'chess'; registered: ["),
    (["--scenario", "armada"], "naval-tactics train: error: scenario 'armada': not a pantheon scenario; allowed: duel, mixed_duel, squadron, fleet"),
    (["--device", "cuda"], "naval-tactics train: error: device 'cuda' asked for, but torch sees no CUDA GPU"),
    (["--seed", str(2**64 - 1)], "field 'seed': Input should be less than or equal to 4294967295"),
])
def test_train_cli_refuses_with_a_clear_line_and_no_folder(
        train_script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    no_cuda(monkeypatch)
    runs = tmp_path / "runs"
    argv = ["--config", DEFAULT, "--total-timesteps", "64", "--n-steps", "32", "--batch-size", "32",
            "--run-dir", str(runs), "--no-progress-bar", *args]
    assert train_script.main(argv) == 2
    assert message in capsys.readouterr().err
    assert not runs.exists()


def test_run_dir_that_is_a_file_is_refused(train_script: ModuleType, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "notes.txt"
    afile.write_text("not a folder")
    for run_dir in (afile, afile / "runs"):
        assert train_script.main(["--config", DEFAULT, "--run-dir", str(run_dir), "--no-progress-bar"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{str(afile)!r} is a file, not a folder" in err
    assert afile.read_text() == "not a folder"


def test_device_auto_takes_a_gpu_only_when_torch_sees_one(monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_module.resolve_device("cpu") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert (run_module.resolve_device("auto"), run_module.resolve_device("cuda")) == ("cuda", "cuda")
    no_cuda(monkeypatch)
    assert run_module.resolve_device("auto") == "cpu"
    with pytest.raises(ConfigError, match="use device 'cpu', or 'auto'"):
        run_module.resolve_device("cuda")


def test_a_run_that_fails_is_marked_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("out of patience")

    monkeypatch.setattr(run_module.MaskablePPO, "learn", boom)
    with pytest.raises(RuntimeError, match="out of patience"):
        train(tiny_config(tmp_path))
    [folder] = tmp_path.iterdir()
    manifest = json.loads((folder / "run.json").read_text())
    assert (manifest["status"], manifest["error"], manifest["device"]) == (
        "failed", "RuntimeError: out of patience", "cpu")


def test_evaluate_hint_runs_as_printed(train_script: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A tiny squadron run with device auto (no GPU): run.json says cpu, and the printed command works."""
    no_cuda(monkeypatch)
    config = tmp_path / "tiny.yaml"
    config.write_text("name: tiny\nruleset: pantheon\nscenario: squadron\ntotal_timesteps: 64\nn_envs: 1\n"
                      "device: auto\nppo: {n_steps: 32, batch_size: 32, net_arch: [16]}\neval: {games: 1}\n"
                      "progress_bar: false\n")
    assert train_script.main(["--config", str(config), "--run-dir", str(tmp_path / "runs")]) == 0
    out = capsys.readouterr().out
    [folder] = (tmp_path / "runs").iterdir()
    manifest = json.loads((folder / "run.json").read_text())
    assert (manifest["status"], manifest["device"], manifest["train_config"]["device"]) == ("finished", "cpu", "auto")
    [hint] = [line.removeprefix("evaluate it: ") for line in out.splitlines() if line.startswith("evaluate it: ")]
    argv = shlex.split(hint)
    assert argv[argv.index("--scenario") + 1] == "squadron" and str(folder) in argv
    done = subprocess.run([*argv, "--games", "1", "--workers", "1", "--no-progress", "--out", str(tmp_path / "e")],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "e" / "results.json").read_text())
    assert results["tournament"]["scenario"] == "squadron"
    assert results["tournament"]["captains"][folder.name] == str(folder)
    assert len(results["games"]) == 3 * 2   # the run against gunner and rammer, and gunner vs rammer


# --------------------------------------------------------------------------- evaluate.py
def _quick(*extra: str) -> list[str]:
    return ["--captains", "random", "rammer", "--games", "1", "--workers", "1", "--no-progress", *extra]


def test_out_that_is_a_file_is_refused_before_playing(evaluate_script: ModuleType, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    def no_games(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("games were played")

    monkeypatch.setattr(evaluate_script, "evaluate", no_games)
    afile = tmp_path / "results.txt"
    afile.write_text("keep me")
    for out in (afile, afile / "deeper"):
        assert evaluate_script.main(_quick("--out", str(out))) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{str(afile)!r} is a file, not a folder; give --out a folder" in err
    assert afile.read_text() == "keep me"


def test_existing_results_are_kept_unless_overwrite(evaluate_script: ModuleType, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "rr"
    assert evaluate_script.main(_quick("--out", str(out), "--replays", "--seed", "3")) == 0
    first = (out / "results.json").read_text()
    assert evaluate_script.main(_quick("--out", str(out), "--seed", "4")) == 2
    err = capsys.readouterr().err
    assert (f"output folder {str(out)!r} already holds results (results.json, pairings.csv, ratings.csv, "
            "games.csv, replays/); pass --overwrite to replace them") in err
    assert (out / "results.json").read_text() == first
    assert evaluate_script.main(_quick("--out", str(out), "--seed", "4", "--overwrite", "--replays")) == 0
    assert json.loads((out / "results.json").read_text())["tournament"]["seed"] == 4
    assert sorted(p.name for p in (out / "replays").iterdir()) == [
        "000_random_vs_rammer_seed4_straight.jsonl", "000_random_vs_rammer_seed4_swapped.jsonl"]


@pytest.mark.parametrize(("args", "refused"), [
    (["--ruleset", "pursuit"], "--ruleset"),
    (["--captains", "random", "gunner"], "--captains"),
    (["--games", "3", "--scenario", "fleet"], "--games, --scenario"),
])
def test_demo_refuses_flags_it_does_not_take(evaluate_script: ModuleType, capsys: pytest.CaptureFixture[str],
                                             args: list[str], refused: str) -> None:
    assert evaluate_script.main(["--demo", "--workers", "1", "--no-progress", *args]) == 2
    err = capsys.readouterr().err
    assert err == (f"naval-tactics evaluate: error: --demo plays a fixed pantheon duel and round robin, so it does not take "
                   f"{refused}; drop them, or leave out --demo (the demo takes --address, --backend, --config, "
                   "--no-progress, --out, --overwrite, --seed, --workers)\n")


@pytest.mark.slow
def test_demo_runs_with_the_flags_it_takes(evaluate_script: ModuleType, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert evaluate_script.main(["--demo", "--workers", "1", "--no-progress", "--seed", "2",
                                 "--out", str(tmp_path / "demo")]) == 0
    printed = capsys.readouterr().out
    assert "one match: zoo vs gunner on pantheon duel" in printed
    assert ("round robin: zoo, gunner, easy, normal, hard, expert, 10 seeds × 2 sides = 20 games per pairing"
            in printed)
    results = json.loads((tmp_path / "demo" / "results.json").read_text())
    assert (results["tournament"]["seed"], len(results["games"])) == (2, 15 * 20)


def test_games_are_counted_plainly(evaluate_script: ModuleType, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert "N seeds × 2 sides = 2N games per pairing" in " ".join(evaluate_script.make_parser().format_help().split())
    assert evaluate_script.main(_quick("--games", "3", "--seed", "5", "--out", str(tmp_path))) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "pantheon / default scenario: 3 seeds × 2 sides = 6 games per pairing (seeds 5..7" in printed
    tournament = json.loads((tmp_path / "results.json").read_text())["tournament"]
    assert (tournament["seeds_per_pairing"], tournament["games_per_pairing"]) == (3, 6)


def test_negative_seed_is_one_clear_line(evaluate_script: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    assert evaluate_script.main(_quick("--seed", "-1")) == 2
    assert capsys.readouterr().err == "naval-tactics evaluate: error: the first seed must be 0 or more, got -1\n"


# ------------------------------------------------------------------------------ schedule
def test_schedule_of_a_billion_seeds_is_lazy() -> None:
    t = build_tournament("pantheon", ["random", "rammer", "gunner"], 10**9, check_captains=False)
    tracemalloc.start()
    started = time.perf_counter()
    tasks = schedule(t)
    total, last, first = len(tasks), tasks[-1], list(islice(tasks, 3))
    chunk = next(_chunks(tasks, 64))
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert total == 3 * 10**9 * 2
    assert last == GameTask(2, 10**9 - 1, True)
    assert first == [GameTask(0, 0, False), GameTask(0, 0, True), GameTask(0, 1, False)]
    assert chunk[-1] == GameTask(0, 31, True) and len(chunk) == 64
    assert seconds < 0.5 and peak < 200_000, (seconds, peak)


def test_schedule_order_is_unchanged() -> None:
    t = build_tournament("pantheon", ["random", "rammer", "gunner"], 4, seed=9, check_captains=False)
    before = [GameTask(p, s, swap) for p in range(3) for s in range(9, 13) for swap in (False, True)]
    tasks = schedule(t)
    assert list(tasks) == before and [tasks[i] for i in range(-len(tasks), len(tasks))] == before * 2
    assert tasks[5:9] == before[5:9]
    with pytest.raises(IndexError):
        tasks[len(before)]


def test_a_billion_seed_tournament_starts_playing_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    played: list[GameTask] = []

    class Enough(Exception):
        pass

    def play(self: Any, task: GameTask) -> None:
        played.append(task)
        if len(played) == 4:
            raise Enough

    monkeypatch.setattr(tournament_module._Worker, "play", play)
    t = build_tournament("pantheon", ["random", "rammer"], 10**9)
    started = time.perf_counter()
    with pytest.raises(Enough):
        run_tournament(t, workers=1, progress=False)
    assert time.perf_counter() - started < 5
    assert played == [GameTask(0, 0, False), GameTask(0, 0, True), GameTask(0, 1, False), GameTask(0, 1, True)]


# -------------------------------------------------------------------------- large values
def test_replayed_uint64_max_is_named_as_it_is_on_file(tmp_path: Path) -> None:
    match = Match("pantheon", scenario="duel")
    captains = {"red": make_captain("rammer", "pantheon", match.action_spec),
                "blue": make_captain("gunner", "pantheon", match.action_spec)}
    path = write_replay(tmp_path / "game.jsonl", play_game(match, captains, 3), ruleset="pantheon", scenario="duel")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    lines[1]["action"][0] = 2**64 - 1
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    first = match.action_spec.components[0]
    with pytest.raises(ReplayMismatchError, match=rf"component {first.name!r}: value 18446744073709551615 is out "
                                                  rf"of range 0\.\.{first.size - 1}$"):
        replay_game(path)


def test_a_uint64_action_is_refused_with_the_value_it_holds() -> None:
    from naval_env.core.errors import IllegalActionError
    from naval_env.core.ruleset import get_ruleset

    ruleset = get_ruleset("pantheon")
    game = ruleset.new_game(ruleset.load_config(), seed=0)
    action = np.zeros(len(game.action_spec.components), dtype=np.uint64)
    action[1] = np.iinfo(np.uint64).max
    before = game.state_dict()
    with pytest.raises(IllegalActionError, match=r"component 'maneuver': value 18446744073709551615 is out of range 0\.\.169"):
        game.apply(game.current_agent, action)
    assert game.state_dict() == before
