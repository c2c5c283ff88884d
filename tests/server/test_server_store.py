"""Games kept in SQLite (``--store FILE``): they survive a restart, even a SIGKILL in the middle of
games, and go on exactly as uninterrupted games, dice and captains' generators included, whether
picked up from their snapshot or replayed from their turns; any app (worker) over the same file serves
them; two writers on one game cannot both move it; a file that is not a store is refused."""

from __future__ import annotations

import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app
from naval_tactics.server.snapshots import generators
from naval_tactics.server.sqlite_store import SCHEMA_VERSION, SqliteGameStore, StoreFileError

pytestmark = pytest.mark.slow   # servers started as processes, SIGKILLed and restarted on SQLite stores

REPO = Path(__file__).resolve().parents[2]
CATALOGUE = Catalogue.load()
#: (ruleset, captain of the second side): a random captain's generator and a level's coin must be
#: where they were after a restart, not only the engine's dice.
GAMES = [("pantheon", "random", 1), ("pantheon", "normal", 2), ("broadside", "random", 3), ("pursuit", "easy", 4),
         ("crew_phase", "random", 5), ("flotilla", "random", 6)]

Post = Callable[..., httpx.Response]


def step(http: Any, game: dict[str, Any], captain: str, seed: int) -> dict[str, Any]:
    """One decision: the first side moves by labels drawn from (seed, decision number), so the same state always
    gets the same move; the second side asks ``captain``."""
    if game["to_move"] in [s["id"] for s in game["seats"] if s["side"] == game["sides"][0]]:
        rng = random.Random(seed * 10_000 + game["decisions"])
        move = {component: rng.choice(labels) for component, labels in sorted(game["legal"].items())}
        answer = http.post(f"/v1/games/{game['id']}/moves", json={"seat": game["to_move"], "move": move})
    else:
        answer = http.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": captain})
    assert answer.status_code == 200, answer.text
    return dict(answer.json()["game"])


def play(http: Any, game_id: str, captain: str, seed: int, stop_after: int | None = None,
         pause: float = 0.0) -> dict[str, Any]:
    game = http.get(f"/v1/games/{game_id}").json()
    while not game["over"] and (stop_after is None or game["decisions"] < stop_after):
        game = step(http, game, captain, seed)
        time.sleep(pause)
    return dict(game)


def generators_of(http: TestClient, game_id: str) -> tuple[Any, ...]:
    """What the game's next draws depend on besides its position: the dice generator's state and the
    state of every generator of every captain asked so far, from the app's own session."""
    session = http.app.state.services.store.get(game_id)   # type: ignore[attr-defined]
    captains = {key: [g.bit_generator.state for g in generators(captain)] for key, captain in session.captains.items()}
    return session.game.dice.generator_state(), captains


Reference = dict[int, tuple[dict[str, Any], list[dict[str, Any]], tuple[Any, ...]]]


def uninterrupted() -> Reference:
    """Every game of :data:`GAMES` played through in one memory-store app: final view, events, generators."""
    http = TestClient(create_app(ServerSettings(), catalogue=CATALOGUE))
    results = {}
    for ruleset, captain, seed in GAMES:
        game = http.post("/v1/games", json={"ruleset": ruleset, "seed": seed}).json()
        final = play(http, game["id"], captain, seed)
        results[seed] = (final, http.get(f"/v1/games/{game['id']}/events").json()["events"],
                         generators_of(http, game["id"]))
    return results


@pytest.fixture(scope="module")
def reference() -> Reference:
    return uninterrupted()


def same_result(final: dict[str, Any], events: list[dict[str, Any]], expected: tuple[Any, ...]) -> None:
    view, logged = expected[:2]
    for key in ("position", "winner", "truncated", "decisions", "round", "over"):
        assert final[key] == view[key], key
    assert events == logged


def test_a_new_app_on_the_same_file_finishes_every_game_as_if_nothing_happened(tmp_path: Path, reference: Any) -> None:
    store = tmp_path / "games.sqlite3"
    first = TestClient(create_app(ServerSettings(store=store), catalogue=CATALOGUE))
    ids = {}
    for ruleset, captain, seed in GAMES:
        ids[seed] = first.post("/v1/games", json={"ruleset": ruleset, "seed": seed}).json()["id"]
        play(first, ids[seed], captain, seed, stop_after=5)
    second = TestClient(create_app(ServerSettings(store=store), catalogue=CATALOGUE))   # a restart
    assert second.get("/v1/health").json()["games"] == len(GAMES)
    for ruleset, captain, seed in GAMES:
        final = play(second, ids[seed], captain, seed)
        same_result(final, second.get(f"/v1/games/{ids[seed]}/events").json()["events"], reference[seed])


def test_two_apps_on_one_file_serve_one_game_turn_about(tmp_path: Path, reference: Any) -> None:
    """As two workers do: each request may land on either; each answers from the stored game."""
    store = tmp_path / "games.sqlite3"
    workers = [TestClient(create_app(ServerSettings(store=store), catalogue=CATALOGUE)) for _ in range(2)]
    ruleset, captain, seed = GAMES[1]
    game = workers[0].post("/v1/games", json={"ruleset": ruleset, "seed": seed}).json()
    turn = 0
    while not game["over"]:
        game = step(workers[turn % 2], game, captain, seed)
        turn += 1
        assert workers[turn % 2].get(f"/v1/games/{game['id']}").json() == game
    same_result(game, workers[1].get(f"/v1/games/{game['id']}/events").json()["events"], reference[seed])
    workers[1].delete(f"/v1/games/{game['id']}")
    gone = workers[0].get(f"/v1/games/{game['id']}")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "game_not_found"
    assert gone.json()["error"]["message"] == f"game {game['id']!r} was deleted"


def test_a_game_alternating_between_two_workers_is_the_uninterrupted_game_bit_for_bit(tmp_path: Path,
                                                                                       reference: Reference) -> None:
    """Every request on the other app than the last: each picks the game up from the snapshot the other
    wrote (never from the turns), and every game ends with the same events and the same generators
    (dice, random captain, a level's coin) as the game played in one process."""
    store = tmp_path / "games.sqlite3"
    workers = [TestClient(create_app(ServerSettings(store=store), catalogue=CATALOGUE)) for _ in range(2)]
    for ruleset, captain, seed in GAMES:
        game = workers[0].post("/v1/games", json={"ruleset": ruleset, "seed": seed}).json()
        turn = 0
        while not game["over"]:
            turn += 1
            game = step(workers[turn % 2], game, captain, seed)
            other = workers[(turn + 1) % 2].app.state.services.store.get(game["id"])  # type: ignore[attr-defined]
            assert other.base == game["decisions"] and other.turns == []   # from the snapshot, nothing replayed
        assert generators_of(workers[turn % 2], game["id"]) == reference[seed][2]
        events = workers[0].get(f"/v1/games/{game['id']}/events").json()["events"]   # the history, replayed once
        same_result(game, events, reference[seed])
        assert generators_of(workers[0], game["id"]) == reference[seed][2]


def test_a_restarted_app_resumes_every_game_from_its_snapshot_mid_game(tmp_path: Path, reference: Reference) -> None:
    """Stopped after a few decisions: the new app's game is the old app's game, dice and captains'
    generators included, before it moves again; played on, it ends as the uninterrupted game."""
    store = tmp_path / "games.sqlite3"
    first = TestClient(create_app(ServerSettings(store=store), catalogue=CATALOGUE))
    ids, before = {}, {}
    for ruleset, captain, seed in GAMES:
        ids[seed] = first.post("/v1/games", json={"ruleset": ruleset, "seed": seed}).json()["id"]
        play(first, ids[seed], captain, seed, stop_after=7)
        before[seed] = (first.get(f"/v1/games/{ids[seed]}").json(), generators_of(first, ids[seed]))
    second = TestClient(create_app(ServerSettings(store=store), catalogue=CATALOGUE))   # a restart
    for ruleset, captain, seed in GAMES:
        resumed = second.app.state.services.store.get(ids[seed])  # type: ignore[attr-defined]
        assert resumed.base >= 7 and resumed.turns == []
        assert second.get(f"/v1/games/{ids[seed]}").json() == before[seed][0]
        assert generators_of(second, ids[seed]) == before[seed][1]
        final = play(second, ids[seed], captain, seed)
        assert generators_of(second, ids[seed]) == reference[seed][2]
        same_result(final, second.get(f"/v1/games/{ids[seed]}/events").json()["events"], reference[seed])


@pytest.mark.parametrize("damage", [
    "DELETE FROM snapshots",   # as a version-1 file kept its games
    "UPDATE snapshots SET dice = x'00'",
    """UPDATE snapshots SET state = '{"captains": [{"side": "blue", "name": "random", "generators": [{}]}]}'""",
    "UPDATE snapshots SET position = '{\"ships\": 5}'",
])
def test_a_game_without_a_usable_snapshot_is_replayed_from_its_turns(tmp_path: Path, reference: Reference,
                                                                        damage: str) -> None:
    """A game whose snapshot is missing (a version-1 file) or does not load goes on exactly as well, replayed."""
    store = tmp_path / "games.sqlite3"
    first = TestClient(create_app(ServerSettings(store=store), catalogue=CATALOGUE))
    ruleset, captain, seed = GAMES[0]
    game_id = first.post("/v1/games", json={"ruleset": ruleset, "seed": seed}).json()["id"]
    play(first, game_id, captain, seed, stop_after=5)
    with sqlite3.connect(store) as conn:
        conn.execute(damage)
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    second = TestClient(create_app(ServerSettings(store=store), catalogue=CATALOGUE))
    assert second.app.state.services.store.get(game_id).whole   # type: ignore[attr-defined]
    final = play(second, game_id, captain, seed)
    same_result(final, second.get(f"/v1/games/{game_id}/events").json()["events"], reference[seed])
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (str(SCHEMA_VERSION),)


def test_a_move_made_elsewhere_in_the_meantime_is_refused_not_applied_twice(tmp_path: Path) -> None:
    store = SqliteGameStore(tmp_path / "games.sqlite3", CATALOGUE, max_games=10, idle_seconds=60)
    other = SqliteGameStore(tmp_path / "games.sqlite3", CATALOGUE, max_games=10, idle_seconds=60)
    from naval_tactics.server import play as plays
    from naval_tactics.server.errors import ApiError

    created = plays.new_game(CATALOGUE, store, "pantheon", None, None, 7)
    mine, theirs = store.get(created.id), other.get(created.id)
    gunner = CATALOGUE.captain("pantheon", "gunner")
    plays.ask_captain(other, theirs, gunner, None, apply=True)
    with pytest.raises(ApiError) as refused:
        plays.ask_captain(store, mine, gunner, None, apply=True)
    assert refused.value.code == "game_changed" and refused.value.status == 409
    again = store.get(created.id)   # read afresh: the other worker's move, once
    assert again.decisions == 1 and again.game.position() == other.get(created.id).game.position()


def test_a_file_that_is_not_a_game_store_is_refused_untouched(tmp_path: Path) -> None:
    league = tmp_path / "league.sqlite3"
    with sqlite3.connect(league) as conn:
        conn.execute("CREATE TABLE games (x)")
    before = league.read_bytes()
    with pytest.raises(StoreFileError, match="not a naval-tactics game store"):
        SqliteGameStore(league, CATALOGUE, 10, 60)
    assert league.read_bytes() == before
    text = tmp_path / "notes.txt"
    text.write_text("hello " * 100)
    with pytest.raises(StoreFileError, match="not a naval-tactics game store"):
        SqliteGameStore(text, CATALOGUE, 10, 60)
    assert text.read_text() == "hello " * 100


def test_expiry_and_the_game_limit_hold_across_apps(tmp_path: Path) -> None:
    now = [1000.0]
    store = tmp_path / "games.sqlite3"
    apps = [TestClient(create_app(ServerSettings(store=store, max_games=2, idle_seconds=10),
                                  clock=lambda: now[0], catalogue=CATALOGUE)) for _ in range(2)]
    first = apps[0].post("/v1/games", json={"ruleset": "pantheon", "seed": 1}).json()["id"]
    apps[1].post("/v1/games", json={"ruleset": "pantheon", "seed": 2}).raise_for_status()
    full = apps[1].post("/v1/games", json={"ruleset": "pantheon", "seed": 3})
    assert full.status_code == 429 and full.headers["retry-after"] == "10"
    now[0] += 11
    apps[0].post("/v1/games", json={"ruleset": "pantheon", "seed": 3}).raise_for_status()   # room made
    expired = apps[1].get(f"/v1/games/{first}")
    assert expired.status_code == 404 and expired.json()["error"]["code"] == "game_expired"


# ------------------------------------------------------------------ a real server, killed
def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(store: Path, port: int, workers: int = 1) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen([sys.executable, "-m", "naval_tactics", "serve", "--port", str(port), "--store",
                                str(store), "--log-level", "warning", "--search-workers", "1",
                                "--workers", str(workers)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/v1/health", timeout=2).raise_for_status()
            return process
        except httpx.TransportError:
            assert process.poll() is None and time.monotonic() < deadline, "the server did not start"
            time.sleep(0.2)


def children(pid: int) -> list[int]:
    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()]


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_sigkill_in_the_middle_of_games_loses_nothing(tmp_path: Path, reference: Any) -> None:
    """Clients keep playing while the server is killed with SIGKILL and restarted on the same store; each
    client re-reads its game after a failed request and goes on. Every game ends as the uninterrupted one."""
    store, port = tmp_path / "games.sqlite3", free_port()
    server = start(store, port)
    url = f"http://127.0.0.1:{port}"
    ids: dict[int, str] = {}
    finals: dict[int, dict[str, Any]] = {}
    failures: list[BaseException] = []
    retried = [0]
    with httpx.Client(base_url=url, timeout=30) as http:
        for ruleset, _, seed in GAMES:
            ids[seed] = http.post("/v1/games", json={"ruleset": ruleset, "seed": seed}).json()["id"]

    def client(captain: str, seed: int) -> None:
        try:
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                try:
                    with httpx.Client(base_url=url, timeout=30) as http:
                        finals[seed] = play(http, ids[seed], captain, seed, pause=0.1)
                        return
                except (httpx.TransportError, AssertionError):
                    retried[0] += 1
                    time.sleep(0.3)   # the server is down: wait, then read the game again
            raise TimeoutError(f"game {seed} did not finish")
        except BaseException as exc:  # noqa: BLE001 - reported by the test's thread
            failures.append(exc)

    threads = [threading.Thread(target=client, args=(captain, seed)) for _, captain, seed in GAMES]
    try:
        for thread in threads:
            thread.start()
        time.sleep(1.5)
        helpers = children(server.pid)   # its search process (and multiprocessing's resource tracker)
        assert helpers
        server.send_signal(signal.SIGKILL)   # while games are under way
        server.wait(30)
        server = start(store, port)
        deadline = time.monotonic() + 30
        while any(alive(pid) for pid in helpers) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(alive(pid) for pid in helpers), "a search process outlived the killed server"
        for thread in threads:
            thread.join(300)
        assert failures == []
        assert retried[0] >= 1   # some request did meet the killed server
        with httpx.Client(base_url=url, timeout=30) as http:
            for _, _, seed in GAMES:
                events = http.get(f"/v1/games/{ids[seed]}/events").json()["events"]
                same_result(finals[seed], events, reference[seed])
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(30)


def test_two_worker_processes_serve_every_game_from_the_one_store(tmp_path: Path, reference: Any) -> None:
    """``serve --workers 2``: each request on a new connection, so the kernel spreads them over both workers."""
    store, port = tmp_path / "games.sqlite3", free_port()
    server = start(store, port, workers=2)
    try:
        time.sleep(2)   # the second worker up too (health answers once the first is)
        url = f"http://127.0.0.1:{port}"
        for ruleset, captain, seed in GAMES[:3]:
            game = httpx.post(f"{url}/v1/games", json={"ruleset": ruleset, "seed": seed}, timeout=30).json()
            while not game["over"]:
                with httpx.Client(base_url=url, timeout=30) as fresh:
                    game = step(fresh, game, captain, seed)
            events = httpx.get(f"{url}/v1/games/{game['id']}/events", timeout=30).json()["events"]
            same_result(game, events, reference[seed])
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)


def test_serve_refuses_workers_without_a_store_file_and_a_file_that_is_not_a_store(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for flags, message in ((["--workers", "2", "--store", "memory"], "workers > 1 needs a store file"),
                           (["--store", str(tmp_path)], "not a file")):
        done = subprocess.run([sys.executable, "-m", "naval_tactics", "serve", "--port", str(free_port()), *flags],
                              check=False, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
