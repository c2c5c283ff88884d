"""The rough edges a new user met, each fixed: help on every flag, usage and errors naming the command typed,
printed commands that run as printed, evaluate's default output folder, watch's pace, train's last lines,
zoo build's progress and its card's ladder, facings as letters, and what .gitignore covers."""

from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from naval_agents.captains import extras
from naval_agents.captains.zoo.catalogue import CAPTAINS_DIR
from naval_agents.zoo import build as zoo_build
from naval_agents.zoo.card import read_facts
from naval_tactics import cli
from naval_tactics.commands import evaluate, train, zoo
from tests.helpers import every_parser

ROOT = Path(__file__).resolve().parents[2]



def test_every_flag_of_every_command_has_help() -> None:
    missing = [f"{name}: {'/'.join(action.option_strings) or action.dest}"
               for name, parser in every_parser() for action in parser._actions
               if not isinstance(action, argparse._HelpAction | argparse._VersionAction | argparse._SubParsersAction)
               and action.dest != "args" and not action.help]
    assert missing == []


def test_zoo_help_reads_without_restructuredtext_quotes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        zoo.main(["--help"])
    shown = capsys.readouterr().out
    assert "naval-tactics zoo: rebuild" in shown and "``" not in shown


@pytest.mark.parametrize(("argv0", "expected"), [
    ("/home/me/.venv/bin/naval-tactics", "naval-tactics train"),
    ("train.py", "train.py"),
    ("/repo/naval_tactics/__main__.py", "python -m naval_tactics train"),
])
def test_the_command_is_named_as_it_was_typed(monkeypatch: pytest.MonkeyPatch, argv0: str, expected: str) -> None:
    monkeypatch.setattr(sys, "argv", [argv0])
    assert extras.invoked_as("train") == expected
    assert train.make_parser().prog == expected


def test_export_run_as_its_module_is_named_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["/repo/agents/export/__main__.py"])
    assert extras.invoked_as("export", module="naval_agents.export") == "python -m naval_agents.export"


def test_usage_and_errors_through_the_cli_name_the_subcommand() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "naval_tactics", *args], cwd=ROOT, check=False,
                              capture_output=True, text=True, timeout=120)

    evaluated = run("evaluate", "--bogus")
    assert evaluated.returncode == 2
    assert evaluated.stderr.startswith("python -m naval_tactics evaluate: error: unrecognized arguments: --bogus")
    trained = run("train", "--bogus")
    assert trained.returncode == 2
    assert trained.stderr.startswith("usage: python -m naval_tactics train [-h]")
    assert "python -m naval_tactics train: error: unrecognized arguments: --bogus" in trained.stderr
    assert not [r for r in (evaluated, trained) if ".py:" in r.stderr]


def test_a_printed_command_runs_as_printed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    command = extras.cli_command()
    done = subprocess.run([*command, "list", "--ruleset", "pursuit"], cwd=tmp_path, check=False,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("pursuit "), (command, done.stderr)
    # With this install's script on PATH the command is its plain name; with python elsewhere, this python.
    script = Path(sys.executable).parent / "naval-tactics"
    monkeypatch.setattr(shutil, "which", lambda name: str(script) if name == "naval-tactics" else "/usr/bin/python")
    assert extras.cli_command() == ["naval-tactics"]
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert extras.cli_command() == [sys.executable, "-m", "naval_tactics"]


def test_evaluate_without_out_writes_a_new_folder_each_run_and_nothing_here(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    argv = ["--ruleset", "pursuit", "--captains", "random", "hunter", "--games", "1", "--workers", "1",
            "--no-progress"]
    assert evaluate.main(argv) == 0
    assert evaluate.main(argv) == 0   # the second run used to fail: "already holds results"
    runs = sorted((tmp_path / "data" / "naval-tactics" / "evaluations").iterdir())
    assert len(runs) == 2 and all((run / "results.json").is_file() for run in runs)
    assert all(run.name.startswith("pursuit_default_seed0-") for run in runs)
    assert list(here.iterdir()) == []


def test_serve_keeps_its_default_game_store_in_the_data_folder_not_here(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = cli._store_of(None)
    assert store == tmp_path / "data" / "naval-tactics" / "games.sqlite3"
    assert store.parent.is_dir() and list(here.iterdir()) == []
    assert cli._store_of("memory") == "memory"
    assert cli._store_of("games.sqlite3") == Path("games.sqlite3")


def test_watch_paces_itself_on_a_terminal_only() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    assert cli.watch_delay(None, Terminal()) == cli.WATCH_DELAY > 0
    assert cli.watch_delay(None, io.StringIO()) == 0.0
    assert cli.watch_delay(0.0, Terminal()) == 0.0
    assert cli.build_parser().parse_args(["watch", "--ruleset", "pantheon", "--captains", "a", "b"]).delay is None


def _fake_run(folder: Path) -> Path:
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps({"ruleset": "pantheon", "scenario": "duel", "train_config": {
        "eval": {"opponent": "gunner", "games": 20}}}))
    (folder / "eval_history.json").write_text(json.dumps([
        {"timesteps": 1000, "opponent": "gunner", "games": 40, "wins": 10, "draws": 0, "losses": 30, "final": False},
        {"timesteps": 2000, "opponent": "gunner", "games": 40, "wins": 30, "draws": 2, "losses": 8, "final": True}]))
    return folder


def test_train_ends_with_the_final_quick_evaluation_and_the_plot(tmp_path: Path) -> None:
    folder = _fake_run(tmp_path / "run")
    (folder / "learning_curve.png").write_bytes(b"png")
    lines = train.run_summary(folder)
    assert lines[0].startswith("final model vs gunner: 0.78 [0.62, 0.88] over 40 games")
    assert lines[-1] == f"learning curve: {folder / 'learning_curve.png'}"


def test_zoo_build_reports_each_step_and_marks_the_ladder_stale(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    for name in ("pantheon.card.json", "pantheon.md"):
        shutil.copy(CAPTAINS_DIR / name, tmp_path / name)
    before = read_facts("pantheon", tmp_path)["ladder"]
    before.pop("stale", None)   # a shipped card may already say its steps are stale: the build's note replaces it
    monkeypatch.setattr(zoo_build, "load_build_config", lambda *a, **k: SimpleNamespace(total_timesteps=1234))
    monkeypatch.setattr(zoo_build, "train_captain", lambda *a, **k: tmp_path / "run")
    monkeypatch.setattr(zoo_build, "export_captain", lambda *a, **k: None)
    # A many-scenario run: its manifest's ``scenario`` is the first listed, not the ruleset's default.
    monkeypatch.setattr(zoo_build, "training_facts", lambda *a, **k: {
        "scenario": "squadron", "scenarios": {"squadron": 0.5, "fleet": 0.25, "duel": 0.25}, "command": "train"})
    lines: list[str] = []
    card = zoo_build.build_entry("pantheon", seeds=1, workers=1, directory=tmp_path, report=lines.append,
                                 report_games=1, report_positions=1)
    assert [line[:5] for line in lines if line.startswith("[")] == ["[1/5]", "[2/5]", "[3/5]", "[4/5]", "[5/5]"]
    assert "1,234 timesteps" in lines[0]
    assert any(line.startswith("      zoo vs gunner: ") for line in lines)
    assert [line.strip() for line in lines if line.endswith(" ...")] == ["duel ...", "mixed_duel ...",
                                                                         "squadron ...", "fleet ..."]
    facts = read_facts("pantheon", tmp_path)
    assert facts["evaluation"]["scenario"] == "duel"   # the strength table stays in the default scenario
    assert (facts["report"]["games"], facts["report"]["positions"]) == (1, 1)
    assert lines[-1].startswith("warning: the card's difficulty ladder is now marked stale")
    after = read_facts("pantheon", tmp_path)["ladder"]
    assert "naval-tactics zoo ladder --ruleset pantheon --calibrate" in after.pop("stale")
    assert after == before   # kept whole, not dropped
    text = card.read_text()
    assert "## Difficulty ladder" in text and "> **Stale:** measured for the captain this build replaced" in text
    assert "**Scenarios trained on** (drawn per game, weight): `squadron` (0.50), `duel` (0.25), `fleet` (0.25)" \
        in text
    report = text.split("## How it holds up in every scenario", 1)[1]
    rows = [report.index(f"| {name} | ") for name in ("duel", "mixed_duel", "squadron", "fleet")]
    assert rows == sorted(rows)   # the ruleset's order, though the card's JSON sorts its keys
    assert "naval-tactics zoo report --ruleset pantheon --games 1 --positions 1 --seed 20000000 --card" in text


def test_flotilla_writes_facings_as_compass_letters() -> None:
    from naval_env.rulesets.flotilla.events import Moved

    assert Moved("red_0", "turn", ((3, 4), (3, 3)), 2, 0).text().endswith("turning E->N")
    from naval_env.envs.match import Match

    match = Match("flotilla", None, None, "raise")
    texts: list[str] = []
    for seed in range(3):
        texts += [event.text() for event in match.reset(seed)]
        from naval_agents.captains.registry import make_captain

        captains = {agent: make_captain("random", "flotilla", match.action_spec) for agent in match.agents}
        for captain in captains.values():
            captain.reset(seed)
        texts += [event.text() for event in match.play_until(captains, stop_at=None)]
    assert any("turning " in text for text in texts)
    assert not [text for text in texts if re.search(r"turning \d", text)]


def test_gitignore_covers_what_the_readme_commands_make() -> None:
    def ignored(path: str) -> bool:
        return subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT, check=False).returncode == 0

    for made in ("captains/pantheon.onnx", "duel.sqlite", "game.jsonl", "game.html", "runs/x/run.json",
                 "results/x/results.json"):
        assert ignored(made), made
    assert not ignored("agents/captains/zoo/pantheon.onnx")   # the shipped captains stay tracked
