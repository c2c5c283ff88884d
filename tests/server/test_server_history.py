"""Bounded games (issue 43, item 2): a game keeps at most ``max_turns`` turns and ``max_proposals`` unapplied
captains' moves (409 past either, the game left as it was), and no request replays a game's history: each
turn's events are stored with it, so ``/events`` after a restart reads them. The worst request after many
calls on one game is measured (``NAVAL_SOAK_CALLS=10000`` for the number in docs/server.md)."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app, history

CATALOGUE = Catalogue.load(None, ["pantheon", "crew_phase"])


def app(**settings: Any) -> TestClient:
    return TestClient(create_app(ServerSettings(**settings), catalogue=CATALOGUE))


def new_game(http: TestClient, ruleset: str = "pantheon", seed: int = 3) -> dict[str, Any]:
    answer = http.post("/v1/games", json={"ruleset": ruleset, "seed": seed})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def propose(http: TestClient, game_id: str) -> Any:
    return http.post(f"/v1/games/{game_id}/captain-moves?apply=false", json={"captain": "random"})


@pytest.mark.parametrize("store", ["memory", "file"])
def test_proposals_past_the_cap_answer_409_and_keep_nothing(tmp_path: Path, store: str) -> None:
    where = tmp_path / "games.sqlite3" if store == "file" else "memory"
    http = app(max_proposals=5, store=where)
    game = new_game(http)
    for _ in range(5):
        assert propose(http, game["id"]).status_code == 200
    refused = propose(http, game["id"])
    assert refused.status_code == 409, refused.text
    error = refused.json()["error"]
    assert error["code"] == "too_many_proposals" and error["details"] == {
        "game_id": game["id"], "proposals": 5, "max_proposals": 5}
    assert "POST /v1/decide" in error["message"]
    # an applied captain's move is still taken, and counts no proposal
    moved = http.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": "random"})
    assert moved.status_code == 200 and moved.json()["game"]["decisions"] == 1
    assert propose(http, game["id"]).status_code == 409
    if store == "file":   # the count is the stored game's: a restarted server holds the same cap
        again = app(max_proposals=6, store=where)
        assert propose(again, game["id"]).status_code == 200
        assert propose(again, game["id"]).json()["error"]["details"]["proposals"] == 6


@pytest.mark.parametrize("store", ["memory", "file"])
def test_turns_past_the_cap_answer_409_and_the_game_still_reads(tmp_path: Path, store: str) -> None:
    where = tmp_path / "games.sqlite3" if store == "file" else "memory"
    http = app(max_turns=4, store=where)
    game = new_game(http)
    for _ in range(4):
        assert http.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": "gunner"}).status_code == 200
    before = http.get(f"/v1/games/{game['id']}").json()
    for method, body in (("captain-moves", {"captain": "gunner"}),
                         ("moves", {"seat": before["to_move"], "move": {}})):
        refused = http.post(f"/v1/games/{game['id']}/{method}", json=body)
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"]["code"] == "game_too_long"
        assert refused.json()["error"]["details"] == {"game_id": game["id"], "turns": 4, "max_turns": 4}
    assert http.get(f"/v1/games/{game['id']}").json() == before
    assert http.get(f"/v1/games/{game['id']}/events").status_code == 200


def play_turns(http: TestClient, game_id: str, turns: int) -> None:
    for k in range(turns):
        url = f"/v1/games/{game_id}/captain-moves" + ("?apply=false" if k % 3 == 0 else "")
        answer = http.post(url, json={"captain": "random"})
        if answer.status_code == 409 and answer.json()["error"]["code"] == "game_over":
            return
        assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("ruleset", ["pantheon", "crew_phase"])
def test_events_after_a_restart_are_read_not_replayed(tmp_path: Path, ruleset: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The same events as the game that never restarted, with replaying made impossible."""
    store = tmp_path / "games.sqlite3"
    first = app(store=store)
    game = new_game(first, ruleset, seed=11)
    play_turns(first, game["id"], 60)
    expected = first.get(f"/v1/games/{game['id']}/events?since=2").json()
    assert expected["total"] > 2

    def no_replay(*_: Any, **__: Any) -> None:
        raise AssertionError("a turn was replayed")

    monkeypatch.setattr(history, "replay", no_replay)
    second = app(store=store)
    assert second.get(f"/v1/games/{game['id']}/events?since=2").json() == expected


def test_a_version_2_file_without_stored_events_is_replayed_once(tmp_path: Path) -> None:
    store = tmp_path / "games.sqlite3"
    first = app(store=store)
    game = new_game(first, seed=5)
    play_turns(first, game["id"], 30)
    expected = first.get(f"/v1/games/{game['id']}/events").json()
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE turns SET events = NULL")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    assert app(store=store).get(f"/v1/games/{game['id']}/events").json() == expected


@pytest.mark.slow
def test_the_worst_request_after_many_calls_on_one_game_stays_bounded(tmp_path: Path) -> None:
    """Calls on one game, the issue's probe made worse: proposals until their cap (and past it), then moves to
    the game's end, then reads and event listings; the server restarts every quarter, so later calls read the
    stored game. Requests stay far under a second: at most one of each kind may pass it (a scheduler pause on a
    loaded 2-core machine, seen once in 487 event listings), and none takes five."""
    calls = int(os.environ.get("NAVAL_SOAK_CALLS", "2000"))
    store = tmp_path / "games.sqlite3"
    http = app(store=store)
    game_id = new_game(http, seed=1)["id"]
    times: dict[str, list[float]] = {}
    statuses: dict[str, set[int]] = {}

    def timed(kind: str, method: str, url: str, body: Any = None) -> int:
        start = time.perf_counter()
        answer = http.request(method, url, json=body)
        times.setdefault(kind, []).append(time.perf_counter() - start)
        statuses.setdefault(kind, set()).add(answer.status_code)
        return answer.status_code

    phase = "proposal"
    for k in range(calls):
        if k and k % (calls // 4) == 0:
            http = app(store=store)   # a restart: nothing cached, the game is picked up from the store
            timed("events, first after a restart", "GET", f"/v1/games/{game_id}/events")
        if phase == "proposal":
            if timed(phase, "POST", f"/v1/games/{game_id}/captain-moves?apply=false", {"captain": "random"}) == 409:
                phase = "move"
        elif phase == "move":
            if timed(phase, "POST", f"/v1/games/{game_id}/captain-moves", {"captain": "random"}) == 409:
                phase = "read"
        elif k % 2:
            timed("read", "GET", f"/v1/games/{game_id}")
        else:
            timed("events", "GET", f"/v1/games/{game_id}/events")
    worst = {kind: max(values) for kind, values in times.items()}
    print(f"\n{calls} calls on one game: worst request by kind (s, count): "
          + ", ".join(f"{kind} {value:.3f} ({len(times[kind])})" for kind, value in sorted(worst.items())))
    assert phase == "read" or calls < 3000, phase   # the probe reached every phase
    assert all(codes <= {200, 409} for codes in statuses.values()), statuses
    slow = {kind: sum(value >= 1.0 for value in values) for kind, values in times.items()}
    assert all(count <= 1 for count in slow.values()), (slow, worst)
    assert max(worst.values()) < 5.0, worst
