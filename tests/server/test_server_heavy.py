"""Nothing heavy on the event loop (issue 43, item 3): while three replay pages of a long game are drawn,
``/v1/health`` keeps answering at once; a heavy request past its budget answers 503 ``request_timeout`` and
its work stops by itself; more heavy requests than the server holds answer 503 ``server_busy``.

The app runs in this test's own event loop (httpx's ASGI transport), so a handler that held the loop
would hold every health check behind it: before the fix, each check waited for the pages (seconds)."""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app

CATALOGUE = Catalogue.load(None, ["pantheon"])
#: The health check's bound while the heavy requests run (the issue's 100 ms).
HEALTH_BOUND_S = 0.100


@pytest.fixture(scope="module")
def long_game() -> dict[str, Any]:
    """A pantheon fleet game between random captains, played to its end: 309 decisions, a replay page of
    1 to 1.5 s on a quiet 2-core machine."""
    http = TestClient(create_app(ServerSettings(), catalogue=CATALOGUE))
    game = http.post("/v1/games", json={"ruleset": "pantheon", "scenario": "fleet", "seed": 8}).json()
    decisions = []
    while True:
        answer = http.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": "random"})
        if answer.status_code != 200:
            break
        decisions.append({"seat": answer.json()["seat"], "action": answer.json()["action"]})
    assert len(decisions) > 200
    return {"ruleset": "pantheon", "scenario": "fleet", "seed": 8, "decisions": decisions}


@pytest.fixture
def apps() -> Iterator[list[FastAPI]]:
    made: list[FastAPI] = []
    yield made
    for app in made:
        app.state.services.heavy.close()


def make(apps: list[FastAPI], **settings: Any) -> FastAPI:
    app = create_app(ServerSettings(**settings), catalogue=CATALOGUE)
    apps.append(app)
    return app


async def timed(http: httpx.AsyncClient, method: str, url: str, body: Any = None) -> tuple[float, httpx.Response]:
    start = time.perf_counter()
    answer = await http.request(method, url, json=body)
    return time.perf_counter() - start, answer


@pytest.mark.slow
def test_health_answers_at_once_while_three_replay_pages_are_drawn(apps: list[FastAPI],
                                                                     long_game: dict[str, Any]) -> None:
    app = make(apps)

    async def probe() -> tuple[list[float], list[float], list[int]]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as http:
            pages = [asyncio.create_task(timed(http, "POST", "/v1/replays/page", long_game)) for _ in range(3)]
            await asyncio.sleep(0.3)   # the pages are being drawn
            health = []
            while not all(page.done() for page in pages):
                took, answer = await timed(http, "GET", "/v1/health")
                assert answer.status_code == 200
                health.append(took)
                await asyncio.sleep(0.05)
            done = [await page for page in pages]
            return health, [t for t, _ in done], [a.status_code for _, a in done]

    health, pages, statuses = asyncio.run(probe())
    print(f"\nreplay pages {[round(p, 2) for p in pages]} s; health during them: {len(health)} checks, median "
          f"{statistics.median(health) * 1000:.1f} ms, worst {max(health) * 1000:.1f} ms")
    assert statuses == [200, 200, 200]
    assert min(pages) > 5 * HEALTH_BOUND_S   # heavy indeed: on the loop, each check would wait five bounds or more
    assert len(health) >= 5
    assert statistics.median(health) < HEALTH_BOUND_S
    # the worst check: within the bound, with room for one scheduling hiccup of a loaded 2-core machine
    assert sorted(health)[-2] < HEALTH_BOUND_S and max(health) < min(pages) / 4, health


def test_a_heavy_request_past_its_budget_answers_503_and_its_work_stops(apps: list[FastAPI],
                                                                         long_game: dict[str, Any]) -> None:
    app = make(apps, request_budget_s=0.25)
    heavy = app.state.services.heavy

    async def probe() -> tuple[float, httpx.Response, float]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost") as http:
            took, answer = await timed(http, "POST", "/v1/replays/page", long_game)
            start = time.perf_counter()
            while heavy.pending and time.perf_counter() - start < 10:
                await asyncio.sleep(0.01)
            return took, answer, time.perf_counter() - start

    took, answer, stopping = asyncio.run(probe())
    assert answer.status_code == 503, answer.text
    error = answer.json()["error"]
    assert error["code"] == "request_timeout" and error["details"] == {"request_budget_s": 0.25}
    assert answer.headers["retry-after"] == "1"
    # answered when the budget ran out, not when the work would have ended (2 s): the slack is for a loaded
    # 2-core machine under pytest-xdist, where 0.5 s of it was once not enough (0.98 s)
    assert took < 0.25 + 1.0
    assert heavy.pending == 0 and stopping < 0.5   # the drawing was stopped, not left to run its 2 s
    # the same request with a budget that fits it succeeds
    http = TestClient(make(apps))
    assert http.post("/v1/replays/page", json=long_game).status_code == 200


def test_more_heavy_requests_than_the_server_holds_answer_503_server_busy(apps: list[FastAPI],
                                                                          long_game: dict[str, Any]) -> None:
    app = make(apps, max_heavy_requests=1)   # one thread, four waiting: the sixth is refused

    async def probe() -> list[httpx.Response]:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://localhost",
                                     timeout=120) as http:
            return list(await asyncio.gather(*(http.post("/v1/replays", json=long_game) for _ in range(6))))

    answers = asyncio.run(probe())
    refused = [a for a in answers if a.status_code == 503]
    assert sorted(a.status_code for a in answers) == [200] * 5 + [503], [a.text[:200] for a in answers]
    assert refused[0].json()["error"]["code"] == "server_busy" and refused[0].headers["retry-after"]
