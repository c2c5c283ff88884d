"""Failures that stay contained (issue 43, item 5): a search process that dies answers 503 with Retry-After
(the pool starts afresh); a 500 keeps its connection for the client's next request; DELETE waits for a
move in progress on its game; a request that does not arrive whole in time gets 408 and its connection is
closed, and an idle keep-alive connection is closed after its timeout."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app
from naval_tactics.server.http11 import protocol

CATALOGUE = Catalogue.load(None, ["pantheon"], max_expert_ms=5000)
READ_TIMEOUT_S, KEEP_ALIVE_S = 0.5, 1.0


def serve(app: FastAPI, **options: Any) -> Iterator[tuple[str, int]]:
    """``app`` under uvicorn in a thread with the HTTP options ``serve`` gives it; yields (host, port)."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", access_log=False,
                                           **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield "127.0.0.1", server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(20)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    app = create_app(ServerSettings(rulesets=("pantheon",)), catalogue=CATALOGUE)

    async def crash() -> None:
        raise RuntimeError("a bug")

    app.add_api_route("/v1/crash", crash)   # a route that fails, as a bug would
    yield from serve(app, http=protocol(READ_TIMEOUT_S), timeout_keep_alive=KEEP_ALIVE_S)


def read_answer(sock: socket.socket) -> tuple[int, bytes]:
    """One HTTP answer from ``sock`` (status and body, by its content-length); (0, b"") if the server closed."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return 0, b""
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    while len(body) < length:
        body += sock.recv(65536)
    return int(head.split(b" ")[1]), body


def closed_within(sock: socket.socket, seconds: float) -> tuple[bytes, float]:
    """What the server sends before closing ``sock``, and when it closed (seconds from now)."""
    start, data = time.monotonic(), b""
    sock.settimeout(seconds)
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        pytest.fail(f"still open after {seconds} s; received {data[:200]!r}")
    return data, time.monotonic() - start


def test_a_500_keeps_the_connection_for_the_next_request(server: tuple[str, int]) -> None:
    with socket.create_connection(server) as sock:
        sock.sendall(b"GET /v1/crash HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        status, body = read_answer(sock)
        assert status == 500 and b'"internal_error"' in body
        sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")   # the same connection
        status, body = read_answer(sock)
        assert status == 200 and b'"games"' in body


@pytest.mark.parametrize("sent", [
    b"GET /v1/hea",                                              # half a request line
    b"POST /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-",   # half the headers
    (b"POST /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
     b'{"ruleset": '),                                           # headers and part of the body
], ids=["request line", "headers", "body"])
def test_a_request_that_stalls_gets_408_and_its_connection_closed(server: tuple[str, int], sent: bytes) -> None:
    with socket.create_connection(server) as sock:
        sock.sendall(sent)
        data, after = closed_within(sock, READ_TIMEOUT_S + 5)
    assert data.startswith(b"HTTP/1.1 408 ") and b'"slow_request"' in data, data
    assert READ_TIMEOUT_S * 0.8 < after < READ_TIMEOUT_S + 2


def test_many_stalled_bodies_are_all_closed_and_the_server_still_serves(server: tuple[str, int]) -> None:
    stalled = [socket.create_connection(server) for _ in range(100)]
    try:
        for sock in stalled:
            sock.sendall(b"POST /v1/decide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 5000\r\n\r\n{")
        assert httpx.get(f"http://{server[0]}:{server[1]}/v1/health").status_code == 200
        for sock in stalled:
            data, _ = closed_within(sock, READ_TIMEOUT_S + 10)
            assert data.startswith(b"HTTP/1.1 408 ")
    finally:
        for sock in stalled:
            sock.close()


def test_a_connection_that_asks_nothing_is_closed_quietly(server: tuple[str, int]) -> None:
    with socket.create_connection(server) as sock:   # never sends a byte
        data, after = closed_within(sock, READ_TIMEOUT_S + 5)
    assert data == b"" and after < READ_TIMEOUT_S + 2
    with socket.create_connection(server) as sock:   # one answer, then idle: closed after the keep-alive time
        sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert read_answer(sock)[0] == 200
        data, after = closed_within(sock, KEEP_ALIVE_S + 5)
    assert data == b"" and after < KEEP_ALIVE_S + 2


# ------------------------------------------------------------------ searches
@pytest.fixture(scope="module")
def search_app() -> Iterator[FastAPI]:
    app = create_app(ServerSettings(rulesets=("pantheon",), max_expert_ms=5000, search_workers=1),
                     catalogue=CATALOGUE)
    for started in app.state.services.searches.warm():
        assert started.result(timeout=120)
    yield app
    app.state.services.searches.close()
    app.state.services.heavy.close()


def search_processes(app: FastAPI) -> list[int]:
    executor = app.state.services.searches.executor()
    return [pid for pid in getattr(executor, "_processes", {})]


@pytest.mark.slow
def test_a_search_process_that_dies_answers_503_with_retry_after(search_app: FastAPI) -> None:
    async def probe() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=search_app), base_url="http://localhost",
                                     timeout=60) as http:
            game = (await http.post("/v1/games", json={"ruleset": "pantheon", "seed": 3})).json()
            asked = asyncio.create_task(http.post("/v1/decide", json={
                "ruleset": "pantheon", "position": game["position"], "captain": "expert:4000ms"}))
            await asyncio.sleep(1.0)   # thinking
            for pid in search_processes(search_app):
                os.kill(pid, signal.SIGKILL)   # killed, as by the kernel's out-of-memory killer
            return await asked

    answer = asyncio.run(probe())
    assert answer.status_code == 503, answer.text
    assert answer.json()["error"]["code"] == "search_unavailable" and int(answer.headers["retry-after"]) >= 1

    async def again() -> httpx.Response:   # the pool starts afresh
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=search_app), base_url="http://localhost",
                                     timeout=120) as http:
            game = (await http.post("/v1/games", json={"ruleset": "pantheon", "seed": 3})).json()
            return await http.post("/v1/decide", json={"ruleset": "pantheon", "position": game["position"],
                                                       "captain": "expert:50ms"})

    assert asyncio.run(again()).status_code == 200


@pytest.mark.slow
def test_delete_waits_for_the_move_in_progress_on_its_game(search_app: FastAPI) -> None:
    async def probe() -> list[tuple[str, int]]:
        done: list[tuple[str, int]] = []
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=search_app), base_url="http://localhost",
                                     timeout=60) as http:
            game = (await http.post("/v1/games", json={"ruleset": "pantheon", "seed": 4})).json()

            async def ask(name: str, method: str, url: str, body: Any = None) -> None:
                answer = await http.request(method, url, json=body)
                done.append((name, answer.status_code))

            searching = asyncio.create_task(ask("search", "POST", f"/v1/games/{game['id']}/captain-moves",
                                                {"captain": "expert:1500ms"}))
            await asyncio.sleep(0.3)   # the search holds the game
            await ask("delete", "DELETE", f"/v1/games/{game['id']}")
            await searching
            await ask("read", "GET", f"/v1/games/{game['id']}")
        return done

    assert asyncio.run(probe()) == [("search", 200), ("delete", 204), ("read", 404)]
