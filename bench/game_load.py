"""A lean load of whole games for the captain server: what section 5 of ``server_latency.py`` runs.

Each client is one keep-alive HTTP/1.1 connection that plays whole pantheon games as fast as answers
come: create, the app's own moves by label (first side) and ``gunner``'s captain-moves (second side),
delete. Clients are asyncio tasks speaking HTTP/1.1 by hand (a request is one preformatted write, an
answer one read of its head and ``Content-Length`` body), spread over a few processes. The load shares
the machine's cores with the server it measures: with 16 threads of ``httpx`` clients the clients
took about as much CPU per decision as the server, which capped any server at half the machine.
Each process reports its own CPU time, so the bench prints what the load itself cost.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import random
import time
from dataclasses import dataclass, field
from typing import Any

RULESET = "pantheon"


@dataclass
class LoadResult:
    """What some clients did in a fixed time: decisions answered, failed requests, every request's
    milliseconds, and the CPU seconds the clients themselves used."""

    decisions: int = 0
    errors: int = 0
    samples_ms: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0

    def add(self, other: LoadResult) -> None:
        self.decisions += other.decisions
        self.errors += other.errors
        self.samples_ms.extend(other.samples_ms)
        self.cpu_seconds += other.cpu_seconds


class RequestFailed(Exception):
    """An answer other than 2xx; the game is abandoned."""


class Connection:
    """One keep-alive HTTP/1.1 connection; :meth:`call` sends a request and reads the whole answer."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        payload = json.dumps(body).encode() if body is not None else b""
        head = (f"{method} {path} HTTP/1.1\r\nhost: {self.host}\r\ncontent-type: application/json\r\n"
                f"content-length: {len(payload)}\r\n\r\n")
        try:
            self.writer.write(head.encode() + payload)
            lines = (await self.reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
            length = 0
            for line in lines[1:]:
                name, _, value = line.partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            content = await self.reader.readexactly(length) if length else b""
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            self.close()
            raise
        status = int(lines[0].split(" ", 2)[1])
        if not 200 <= status < 300:
            raise RequestFailed(f"{method} {path}: {status}")
        return dict(json.loads(content)) if content else {}

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def _player(host: str, port: int, seed: int, until: float, result: LoadResult) -> None:
    """Whole games on one connection until ``until`` (time.monotonic)."""
    rng = random.Random(seed)
    connection = Connection(host, port)

    async def call(method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any] | None:
        start = time.perf_counter()
        try:
            answer = await connection.call(method, path, body)
        except (RequestFailed, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            result.errors += 1
            return None
        result.samples_ms.append((time.perf_counter() - start) * 1000)
        return answer

    while time.monotonic() < until:
        game = await call("POST", "/v1/games", {"ruleset": RULESET, "seed": rng.randrange(2**31)})
        if game is None:
            await asyncio.sleep(0.01)
            continue
        game_id = game["id"]
        while game is not None and not game["over"] and time.monotonic() < until:
            seat = game["to_move"]
            if seat.startswith(game["sides"][0]):
                move = {c: rng.choice(labels) for c, labels in game["legal"].items()}
                answer = await call("POST", f"/v1/games/{game_id}/moves", {"seat": seat, "move": move})
            else:
                answer = await call("POST", f"/v1/games/{game_id}/captain-moves", {"captain": "gunner"})
            result.decisions += answer is not None
            game = answer["game"] if answer is not None else None
        await call("DELETE", f"/v1/games/{game_id}")
    connection.close()


def _client_process(host: str, port: int, clients: int, seed: int, until: float) -> LoadResult:
    result = LoadResult()
    cpu = time.process_time()

    async def run() -> None:
        await asyncio.gather(*(_player(host, port, seed * 1000 + i, until, result) for i in range(clients)))

    asyncio.run(run())
    result.cpu_seconds = time.process_time() - cpu
    return result


def whole_games(host: str, port: int, clients: int, seconds: float, processes: int = 2) -> LoadResult:
    """``clients`` connections (over ``processes`` processes) playing whole games for ``seconds``."""
    until = time.monotonic() + seconds
    shares = [clients // processes + (i < clients % processes) for i in range(processes)]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        parts = pool.starmap(_client_process, [(host, port, n, i, until) for i, n in enumerate(shares)])
    total = LoadResult()
    for part in parts:
        total.add(part)
    return total
