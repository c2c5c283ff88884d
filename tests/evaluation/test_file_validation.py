"""Local files read by the toolkit are checked field by field: a tampered league file or replay is refused
with a message naming the field, never a traceback; reading a replay is bounded (``/dev/zero`` included)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import make_captain
from naval_agents.evaluation.replay import MAX_LINE_BYTES, ReplayError, load_replay, write_replay
from naval_env.envs.match import Match
from naval_tactics.cli import main as cli
from naval_tactics.commands.league import main as league


@pytest.fixture(scope="module")
def league_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = Path(tmp_path_factory.mktemp("league")) / "league.sqlite"
    assert league(["--db", str(path), "add", "--ruleset", "pantheon", "gunner", "rammer"]) == 0
    return path


TAMPERED = [
    ("UPDATE meta SET value = 'abc' WHERE key = 'schema_version'", "bad league schema version 'abc'"),
    ("UPDATE meta SET value = 'chess' WHERE key = 'ruleset'",
     "ruleset 'chess' is not one of ['broadside', 'crew_phase', 'flotilla', 'pantheon', 'pursuit']"),
    ("UPDATE meta SET value = '1e9' WHERE key = 'first_seed'", "first_seed '1e9' is not a whole number"),
    ("DELETE FROM meta WHERE key = 'created_at'", "created_at is missing"),
    ("UPDATE meta SET value = 'nowhere' WHERE key = 'scenario'", "scenario 'nowhere' (its 'meta' table) is not"),
]


@pytest.mark.parametrize(("tamper", "message"), TAMPERED)
def test_a_tampered_league_file_is_refused_naming_the_field(league_file: Path, tmp_path: Path, tamper: str,
                                                            message: str, capsys: pytest.CaptureFixture[str]) -> None:
    copy = tmp_path / "league.sqlite"
    copy.write_bytes(league_file.read_bytes())
    with sqlite3.connect(copy) as conn:
        conn.execute(tamper)
    conn.close()
    before = copy.read_bytes()
    capsys.readouterr()
    assert league(["--db", str(copy), "play", "--games", "2"]) == 2
    error = capsys.readouterr().err
    assert error.startswith("naval-tactics league: error: ") and message in error and "Traceback" not in error
    assert copy.read_bytes() == before   # nothing was written to it


@pytest.fixture(scope="module")
def replay_lines(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    match = Match("pantheon")
    record = play_game(match, {side: make_captain("gunner", "pantheon", match.action_spec) for side in match.game.sides},
                       3, keep_events=True, keep_actions=True)
    path = write_replay(Path(tmp_path_factory.mktemp("replay")) / "game.jsonl", record, ruleset="pantheon",
                        scenario=None)
    return [json.loads(line) for line in path.read_text().splitlines()]


def tampered_replay(lines: list[dict[str, Any]], where: int, field: str, value: Any, folder: Path) -> Path:
    changed = [dict(line) for line in lines]
    changed[where][field] = value
    path = folder / "tampered.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in changed))
    return path


@pytest.mark.parametrize(("where", "field", "value", "message"), [
    (0, "config", 5, ":1: bad header (config: input should be a valid string, got 5)"),
    (0, "ruleset", "chess", ":1: bad header (unknown ruleset 'chess'; known: ['broadside', "),
    (0, "seed", True, ":1: bad header (seed: input should be a valid integer, got true)"),
    (0, "captains", [], ":1: bad header (captains: input should be a valid dictionary, got [])"),
    (1, "action", ["4"], ":2: bad decision (action.0: input should be a valid integer, got '4')"),
    (-1, "truncated", "no", "bad result line (truncated: input should be a valid boolean, got 'no')"),
])
def test_a_tampered_replay_is_refused_naming_the_line_and_field(replay_lines: list[dict[str, Any]], tmp_path: Path,
                                                                where: int, field: str, value: Any,
                                                                message: str) -> None:
    path = tampered_replay(replay_lines, where, field, value, tmp_path)
    with pytest.raises(ReplayError) as refused:
        load_replay(path)
    assert message in str(refused.value)


def test_the_replay_command_stops_at_once_on_an_endless_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.perf_counter()
    assert cli(["replay", "/dev/zero", "--html", str(tmp_path / "out.html")]) == 2
    assert time.perf_counter() - started < 30   # one line's limit read, not the device's endless bytes
    error = capsys.readouterr().err
    assert f"/dev/zero:1: a line longer than {MAX_LINE_BYTES // 2**20} MiB; not a replay" in error
    assert not (tmp_path / "out.html").exists()


def test_a_replay_of_binary_bytes_is_refused_as_not_text(tmp_path: Path) -> None:
    path = tmp_path / "binary.jsonl"
    path.write_bytes(b"\xff\xfe\x00garbage\n")
    with pytest.raises(ReplayError, match=r"binary.jsonl:1: not UTF-8 text"):
        load_replay(path)
