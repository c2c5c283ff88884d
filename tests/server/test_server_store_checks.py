"""A game store that checks itself: a damaged file (truncated, overwritten mid-file) is refused at start
with one line naming it and how to recover, or quarantined when asked; a row edited by hand answers
410 ``game_damaged`` naming the field, never a 500; bad store paths, a lock file that is a folder and
a league whose stored scenario was edited stop their command with one line and exit status 2."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app
from naval_tactics.server.sqlite_store import SqliteGameStore, StoreDamagedError, StoreFileError

REPO = Path(__file__).resolve().parents[2]
CATALOGUE = Catalogue.load(None, ["pantheon"])
GAMES, MOVES = 24, 8


def filled_store(path: Path) -> list[str]:
    """A store of :data:`GAMES` pantheon games of :data:`MOVES` captains' moves each (a few hundred KB,
    checkpointed into the main file when the app closes); returns the game ids."""
    ids = []
    with TestClient(create_app(ServerSettings(store=path), catalogue=CATALOGUE)) as http:
        for seed in range(GAMES):
            game_id = http.post("/v1/games", json={"ruleset": "pantheon", "seed": seed}).json()["id"]
            for _ in range(MOVES):
                assert http.post(f"/v1/games/{game_id}/captain-moves", json={"captain": "gunner"}).status_code == 200
            ids.append(game_id)
    assert not path.with_name(path.name + "-wal").exists() or path.with_name(path.name + "-wal").stat().st_size == 0
    return ids


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, list[str]]:
    path = tmp_path_factory.mktemp("pristine") / "games.sqlite3"
    ids = filled_store(path)
    return path.read_bytes(), ids


def damage(data: bytes, how: str) -> bytes:
    if how == "truncated to 50%":
        return data[: len(data) // 2]
    if how == "truncated to 10%":
        return data[: len(data) // 10]
    middle = len(data) // 2
    return data[:middle] + b"\xab" * 4096 + data[middle + 4096:]


@pytest.mark.parametrize("how", ["truncated to 50%", "truncated to 10%", "4 KB of garbage mid-file"])
def test_a_damaged_store_is_refused_at_start_with_how_to_recover(tmp_path: Path, pristine: tuple[bytes, list[str]],
                                                                  how: str) -> None:
    path = tmp_path / "games.sqlite3"
    path.write_bytes(damage(pristine[0], how))
    before = path.read_bytes()
    with pytest.raises(StoreDamagedError) as refused:
        create_app(ServerSettings(store=path), catalogue=CATALOGUE)
    message = str(refused.value)
    assert "\n" not in message and str(path) in message and "damaged" in message
    assert "backup" in message and "--quarantine-damaged" in message
    assert path.read_bytes() == before   # refused untouched


def test_quarantine_moves_the_damaged_file_aside_and_keeps_the_games_that_read(
        tmp_path: Path, pristine: tuple[bytes, list[str]]) -> None:
    path = tmp_path / "games.sqlite3"
    damaged = damage(pristine[0], "4 KB of garbage mid-file")
    path.write_bytes(damaged)
    with TestClient(create_app(ServerSettings(store=path, quarantine_damaged=True), catalogue=CATALOGUE)) as http:
        moved = [p for p in tmp_path.iterdir() if p.name.startswith("games.sqlite3.damaged-")]
        assert [p.read_bytes() for p in moved if not p.name.endswith(("-wal", "-shm"))] == [damaged]
        answers = {game_id: http.get(f"/v1/games/{game_id}") for game_id in pristine[1]}
        statuses = {r.status_code for r in answers.values()}
        assert statuses <= {200, 404, 410}, statuses   # kept, left behind, or kept but refused: never a 500
        kept = [game_id for game_id, r in answers.items() if r.status_code == 200]
        assert 0 < len(kept) < GAMES   # the garbage cost some games, not all
        for game_id in kept:   # a kept game plays on
            assert answers[game_id].json()["decisions"] == MOVES
            assert http.post(f"/v1/games/{game_id}/captain-moves", json={"captain": "gunner"}).status_code == 200
        assert http.post("/v1/games", json={"ruleset": "pantheon"}).status_code == 201
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]


EDITS = [
    ("UPDATE games SET turns = 'many' WHERE id = ?", "turns"),
    ("UPDATE games SET turns = 999 WHERE id = ?", "turns"),
    ("UPDATE games SET turns = -1 WHERE id = ?", "turns"),
    ("UPDATE games SET seed = 'x' WHERE id = ?", "seed"),
    ("UPDATE games SET seed = -5 WHERE id = ?", "seed"),
    ("UPDATE games SET start_position = '[1, 2]' WHERE id = ?", "start_position"),
    ("UPDATE games SET start_position = '{not json' WHERE id = ?", "start_position"),
    ("UPDATE games SET scenario = 'nowhere' WHERE id = ?", "its turns"),
    ("UPDATE turns SET action = '\"fire\"' WHERE game_id = ? AND idx = 2", "turn 2"),
    ("UPDATE turns SET action = '[999, 999]' WHERE game_id = ? AND idx = 2", "its turns"),
    ("UPDATE turns SET seat = 'nobody' WHERE game_id = ? AND idx = 1", "its turns"),
    ("DELETE FROM turns WHERE game_id = ? AND idx = 3", "turns"),
    ("UPDATE games SET last_used = 'yesterday' WHERE id = ?", "state and last_used"),
]


@pytest.fixture
def edited_store(tmp_path: Path, pristine: tuple[bytes, list[str]]) -> Iterator[tuple[Path, str]]:
    path = tmp_path / "games.sqlite3"
    path.write_bytes(pristine[0])
    yield path, pristine[1][0]


@pytest.mark.parametrize(("edit", "field"), EDITS, ids=[e[0] for e in EDITS])
def test_a_row_edited_by_hand_answers_410_naming_the_field_never_500(edited_store: tuple[Path, str], edit: str,
                                                                    field: str) -> None:
    path, game_id = edited_store
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM snapshots WHERE game_id = ?", (game_id,))   # replayed from its rows
        conn.execute(edit, (game_id,))
    with TestClient(create_app(ServerSettings(store=path), catalogue=CATALOGUE)) as http:
        for method, url, body in (("GET", f"/v1/games/{game_id}", None), ("GET", f"/v1/games/{game_id}/events", None),
                                  ("POST", f"/v1/games/{game_id}/captain-moves", {"captain": "gunner"})):
            answer = http.request(method, url, json=body)
            assert answer.status_code == 410, (method, url, answer.text)
            error = answer.json()["error"]
            assert error["code"] == "game_damaged" and error["details"]["field"] == field, error
            assert game_id in error["message"] and "DELETE it" in error["message"]
        assert http.delete(f"/v1/games/{game_id}").status_code == 204   # and a damaged game can be cleared away
        assert http.get(f"/v1/games/{game_id}").status_code == 404


def test_a_snapshot_out_of_step_with_its_game_is_not_trusted(edited_store: tuple[Path, str]) -> None:
    """A snapshot whose version is not the game's turn count is stale: the game is rebuilt from its turns."""
    path, game_id = edited_store
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE snapshots SET version = 3 WHERE game_id = ?", (game_id,))
    with TestClient(create_app(ServerSettings(store=path), catalogue=CATALOGUE)) as http:
        assert http.get(f"/v1/games/{game_id}").json()["decisions"] == MOVES


def test_a_store_failing_under_a_request_answers_503_not_500(edited_store: tuple[Path, str]) -> None:
    path, game_id = edited_store
    with TestClient(create_app(ServerSettings(store=path), catalogue=CATALOGUE)) as http:
        assert http.get(f"/v1/games/{game_id}").json()["decisions"] == MOVES   # in this worker's cache
        with sqlite3.connect(path) as conn:   # a write failing under a running server (a full disk, an I/O error)
            conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON turns BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
        answer = http.post(f"/v1/games/{game_id}/captain-moves", json={"captain": "gunner"})
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "store_failed", answer.text
        assert "disk says no" in answer.json()["error"]["message"] and answer.headers["retry-after"]
        with sqlite3.connect(path) as conn:
            conn.execute("DROP TRIGGER refuse")
        assert http.get(f"/v1/games/{game_id}").json()["decisions"] == MOVES   # the failed move left nothing
        assert http.post(f"/v1/games/{game_id}/captain-moves", json={"captain": "gunner"}).json()["game"][
            "decisions"] == MOVES + 1


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "naval_tactics", *args], check=False, env=env, capture_output=True,
                          text=True, timeout=120, cwd=cwd)


def one_line_refusal(done: subprocess.CompletedProcess[str], *said: str) -> None:
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:") or "error:" in line]
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for words in said:
        assert words in lines[0], done.stderr


@pytest.mark.parametrize("where", ["/sys/kernel/x.sqlite3", "/proc/x.sqlite3"])
def test_a_store_in_a_folder_that_cannot_hold_it_is_refused_in_one_line(where: str) -> None:
    with pytest.raises(StoreFileError, match="cannot open it"):
        SqliteGameStore(Path(where), CATALOGUE, 10, 60)


def test_a_lock_file_that_is_a_folder_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "games.sqlite3-lock").mkdir()
    with pytest.raises(StoreFileError, match="cannot open its lock file .*games.sqlite3-lock.* remove it"):
        SqliteGameStore(tmp_path / "games.sqlite3", CATALOGUE, 10, 60)


@pytest.mark.slow
def test_serve_refuses_bad_and_damaged_stores_in_one_line_exit_2(tmp_path: Path,
                                                                 pristine: tuple[bytes, list[str]]) -> None:
    one_line_refusal(run_cli("serve", "--store", "/sys/kernel/x.sqlite3"), "/sys/kernel/x.sqlite3", "cannot open")
    locked = tmp_path / "locked.sqlite3"
    (tmp_path / "locked.sqlite3-lock").mkdir()
    one_line_refusal(run_cli("serve", "--store", str(locked)), "locked.sqlite3-lock", "remove it")
    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(damage(pristine[0], "truncated to 10%"))
    one_line_refusal(run_cli("serve", "--store", str(broken)), str(broken), "damaged", "--quarantine-damaged")


@pytest.mark.slow
def test_league_add_on_a_league_whose_stored_scenario_is_unknown_says_so_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "league.sqlite3"
    assert run_cli("league", "--db", str(db), "add", "--ruleset", "pantheon", "gunner").returncode == 0
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = 'nowhere' WHERE key = 'scenario'")
    done = run_cli("league", "--db", str(db), "add", "rammer")
    one_line_refusal(done, str(db), "unknown pantheon scenario 'nowhere'")

