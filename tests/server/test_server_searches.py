"""Search captains (``expert:Nms``) run in the server's pool of search processes, within a budget:
past ``max_searches`` at once a search is refused with 503 ``server_busy`` and Retry-After, past
``decision_timeout_s`` with 503 ``decision_timeout``; plain decisions are answered meanwhile.
(Their latency under searches is measured by bench/server_latency.py, not timed here.)"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app
from naval_tactics.testing import serve_in_thread

CATALOGUE = Catalogue.load(ruleset_filter=["pantheon"], max_expert_ms=3000)


def start_position(http: httpx.Client) -> dict[str, Any]:
    return dict(http.post("/v1/games", json={"ruleset": "pantheon", "seed": 3}).json())


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    settings = ServerSettings(rulesets=("pantheon",), max_expert_ms=3000, search_workers=1, max_searches=1,
                              decision_timeout_s=2.5)
    app = create_app(settings, catalogue=CATALOGUE)
    for started in app.state.services.searches.warm():   # the search process loads its captains first
        assert started.result(timeout=180)
    with serve_in_thread(app) as base:
        yield base
        app.state.services.searches.close()


@pytest.mark.slow
def test_a_search_past_the_limit_is_refused_while_plain_decisions_are_served(url: str) -> None:
    with httpx.Client(base_url=url, timeout=60) as http:
        game = start_position(http)
        answers: list[httpx.Response] = []
        started = threading.Event()

        def search() -> None:   # until admitted: the probes below may hold the one place for a moment
            with httpx.Client(base_url=url, timeout=60) as other:
                started.set()
                give_up = time.monotonic() + 30   # a probe's first on-demand expert loads its files: seconds
                while True:
                    answer = other.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": "expert:1500ms"})
                    if answer.status_code != 503 or time.monotonic() > give_up:
                        break
                    time.sleep(0.005)
                answers.append(answer)

        thread = threading.Thread(target=search)
        thread.start()
        started.wait()
        busy = httpx.Response(0)
        for _ in range(400):   # until the long search holds the one place
            busy = http.post("/v1/decide", json={"ruleset": "pantheon", "captain": "expert:10ms",
                                                 "position": game["position"]})
            if busy.status_code == 503:
                break
            time.sleep(0.02)   # a gap for the long search to take the place the probe just left
        assert busy.status_code == 503, busy.text
        error = busy.json()["error"]
        assert error["code"] == "server_busy" and error["details"] == {"max_searches": 1}
        assert busy.headers["retry-after"] == "3" and "max_searches" in error["message"]
        plain = http.post("/v1/decide", json={"ruleset": "pantheon", "captain": "gunner",
                                              "position": game["position"]})
        assert plain.status_code == 200, plain.text
        thread.join(60)
        assert answers[0].status_code == 200 and answers[0].json()["captain"] == "expert:1500ms"
        assert answers[0].json()["game"]["decisions"] == 1


@pytest.mark.slow
def test_a_search_that_cannot_answer_in_time_gets_a_503_and_the_game_is_unchanged(url: str) -> None:
    with httpx.Client(base_url=url, timeout=60) as http:
        game = start_position(http)
        late = http.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": "expert:3000ms"})
        assert late.status_code == 503
        error = late.json()["error"]
        assert error["code"] == "decision_timeout" and error["details"] == {"decision_timeout_s": 2.5}
        assert http.get(f"/v1/games/{game['id']}").json()["decisions"] == 0
