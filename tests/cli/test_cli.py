"""The ``naval-tactics`` command: every job is a subcommand, and each reaches the same function as its script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import make_captain
from naval_agents.evaluation.replay import write_replay
from naval_env.envs.match import Match
from naval_tactics.cli import main


def test_help_lists_every_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("list", "train", "evaluate", "export", "zoo", "play", "watch", "replay", "serve"):
        assert f"    {command} " in out


def test_list_names_the_zoo_captain_and_its_levels(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "--ruleset", "pantheon", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    kinds = {c["name"]: c["kind"] for c in rows[0]["captains"]}
    assert kinds["zoo"] == "zoo"
    assert [name for name, kind in kinds.items() if kind == "level"] == ["easy", "normal", "hard", "expert"]


def test_list_names_the_shipped_captains_without_loading_a_model() -> None:
    """``list`` only names captains: no onnxruntime session (0.19 s of its start), yet every name is there, and
    a captain made from the same lazily loaded catalogue plays (the model loads at its first make)."""
    script = ("import sys\n"
              "from naval_tactics.catalogue import Catalogue\n"
              "from naval_tactics.cli import catalogue_rows\n"
              "rows = catalogue_rows()\n"
              "loaded = sorted({'onnx', 'onnxruntime'} & set(sys.modules))\n"
              "names = [c['name'] for row in rows for c in row['captains'] if c['name'] in ('zoo', 'expert')]\n"
              "zoo = Catalogue.load(None, ['pantheon'], load_models=False).captain('pantheon', 'zoo').make(0)\n"
              "print(loaded, len(rows), names.count('zoo'), names.count('expert'), zoo.name)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["[]", "5", "5", "5", "zoo:pantheon"]


def test_evaluate_runs_as_a_subcommand_with_the_scripts_flags(tmp_path: Path) -> None:
    out = tmp_path / "rr"
    assert main(["evaluate", "--ruleset", "pantheon", "--captains", "zoo", "hard", "--games", "2",
                 "--workers", "1", "--no-progress", "--out", str(out)]) == 0
    results = json.loads((out / "results.json").read_text())
    assert results["tournament"]["seeds_per_pairing"] == 2 and results["tournament"]["games_per_pairing"] == 4
    assert [p["games"] for p in results["pairings"]] == [4]


def test_train_help_is_the_training_commands_help() -> None:
    done = subprocess.run([sys.executable, "-m", "naval_tactics", "train", "--help"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0 and "--total-timesteps" in done.stdout


def test_replay_writes_an_html_viewer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    match = Match("pantheon", None, "duel")
    captains = {side: make_captain(name, "pantheon", match.action_spec)
                for side, name in zip(match.game.sides, ("rammer", "gunner"))}
    record = play_game(match, captains, seed=4)
    game_file = tmp_path / "game.jsonl"
    write_replay(game_file, record, ruleset="pantheon", scenario="duel", config=None)
    assert main(["replay", str(game_file), "--html", str(tmp_path / "game.html")]) == 0
    page = (tmp_path / "game.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "#board svg" in page and "Result: " in page
    assert main(["replay", str(tmp_path / "missing.jsonl"), "--html", str(tmp_path / "x.html")]) == 2
    assert "error:" in capsys.readouterr().err and not (tmp_path / "x.html").exists()


def test_watch_plays_a_game_and_saves_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", "--ruleset", "flotilla", "--captains", "zoo", "tactician", "--seed", "2",
                 "--replay", str(tmp_path / "w.jsonl")]) == 0
    assert (tmp_path / "w.jsonl").is_file()
    assert main(["watch", "--ruleset", "flotilla", "--captains", "zoo", "nosuch"]) == 2
    assert "nosuch" in capsys.readouterr().err


def test_a_captain_name_with_a_colon_is_labelled_with_a_dash() -> None:
    from naval_agents.evaluation.tournament import parse_entrant

    assert parse_entrant("search:64").label == "search-64"
    assert parse_entrant("mixed:zoo:0.3").spec == "mixed:zoo:0.3"
    assert parse_entrant("mixed:zoo:0.3").label == "mixed-zoo-0.3"


def test_list_into_a_closed_pipe_ends_quietly() -> None:
    done = subprocess.run(f"{sys.executable} -m naval_tactics list | head -n 1", shell=True, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.stdout.startswith("broadside ")
    assert "Traceback" not in done.stderr and "BrokenPipeError" not in done.stderr
