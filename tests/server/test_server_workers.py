"""``serve --workers N``: each worker listens on its own ``SO_REUSEPORT`` socket, so connections are
shared among the workers; answers are not held back by Nagle's algorithm; the parent replaces a worker
that dies, and the workers end when the parent is killed."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from naval_tactics.server.workers import reuse_port_socket

pytestmark = pytest.mark.slow   # `serve --workers N` started as processes

REPO = Path(__file__).resolve().parents[2]


def test_connections_are_shared_among_the_workers_sockets() -> None:
    """Two sockets on one port, as two workers hold them: 32 connections made at once reach both
    (one shared socket gave every waiting connection to whichever worker woke first)."""
    first = reuse_port_socket("127.0.0.1", 0)
    port = first.getsockname()[1]
    second = reuse_port_socket("127.0.0.1", port)
    clients = []
    try:
        for listening in (first, second):
            listening.listen(64)
            listening.setblocking(False)
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(32)]
        time.sleep(0.2)
        accepted = [0, 0]
        for index, listening in enumerate((first, second)):
            while True:
                try:
                    listening.accept()[0].close()
                except BlockingIOError:
                    break
                accepted[index] += 1
        assert sum(accepted) == 32 and min(accepted) > 0, accepted
    finally:
        for sock in (first, second, *clients):
            sock.close()


def test_a_workers_connections_send_without_delay() -> None:
    """asyncio turns Nagle's algorithm off (TCP_NODELAY) only on connections of a socket that names its
    protocol; with it on, each answer's body waited for the client's delayed ACK (40 ms a request)."""
    listening = reuse_port_socket("127.0.0.1", 0)
    port = listening.getsockname()[1]
    seen: list[int] = []

    async def run() -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            seen.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(handle, sock=listening)
        async with server:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            for _ in range(100):
                if seen:
                    break
                await asyncio.sleep(0.01)
            writer.close()

    asyncio.run(run())
    assert seen and seen[0] != 0


def _workers(parent: int) -> list[int]:
    """The parent's worker processes (its other child is multiprocessing's resource tracker)."""
    found = []
    for task in Path(f"/proc/{parent}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                    found.append(int(child))
            except FileNotFoundError:
                continue
    return found


def _healthy(url: str) -> bool:
    try:
        return httpx.get(url, timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_for(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def test_a_dead_worker_is_replaced_and_the_workers_end_with_a_killed_parent(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    server = subprocess.Popen([sys.executable, "-m", "naval_tactics", "serve", "--port", str(port), "--store",
                               str(tmp_path / "games.sqlite3"), "--workers", "2", "--search-workers", "1",
                               "--log-level", "warning"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/v1/health"
    try:
        assert _wait_for(lambda: len(_workers(server.pid)) == 2, 60)
        first = _workers(server.pid)
        os.kill(first[0], signal.SIGKILL)
        assert _wait_for(lambda: len(_workers(server.pid)) == 2 and first[0] not in _workers(server.pid), 30)
        assert _wait_for(lambda: _healthy(url), 60)
        workers = _workers(server.pid)
        server.send_signal(signal.SIGKILL)
        server.wait(30)
        assert _wait_for(lambda: not any(_alive(pid) for pid in workers), 30), "a worker outlived its killed parent"
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGKILL)
            server.wait(30)
