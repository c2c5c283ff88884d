"""Safe on a shared machine (issue 43, item 6): the Host a request names and the page (Origin) a browser sends
it from are checked against allow-lists (DNS rebinding, cross-site POSTs), one client address keeps at most
``max_games_per_client`` games and sends at most ``max_requests_per_second``, each refusal a clear 4xx; a
captains folder holding an oversized file is refused by its size before anything is read."""

from __future__ import annotations

import os
import resource
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from naval_tactics.catalogue import Catalogue, CatalogueError
from naval_tactics.server import ServerSettings, create_app
from naval_tactics.server.workers import http_options

CATALOGUE = Catalogue.load(None, ["pantheon"])


def client(base_url: str = "http://localhost:8765", address: str = "127.0.0.1", **settings: Any) -> TestClient:
    app = create_app(ServerSettings(**settings), catalogue=CATALOGUE)
    return TestClient(app, base_url=base_url, client=(address, 50000))


@pytest.mark.parametrize("base_url", ["http://localhost:8765", "http://127.0.0.1:8765", "http://[::1]:8765",
                                      "http://LOCALHOST"])
def test_localhost_names_are_answered(base_url: str) -> None:
    assert client(base_url).get("/v1/health").status_code == 200


@pytest.mark.parametrize("base_url", ["http://evil.example:8765", "http://127.0.0.1.evil.example",
                                      "http://localhost.evil.example"])
def test_a_rebound_name_is_refused_403_before_anything_runs(base_url: str) -> None:
    http = client(base_url)
    answer = http.post("/v1/games", json={"ruleset": "pantheon"})
    assert answer.status_code == 403, answer.text
    error = answer.json()["error"]
    assert error["code"] == "host_not_allowed" and "--allowed-host" in error["message"]
    assert error["details"]["host"] == base_url.removeprefix("http://").split(":")[0]
    assert client().get("/v1/health").json()["games"] == 0


def test_allowed_hosts_take_names_subdomains_and_any() -> None:
    hosts = ("localhost", "captains.example.org", "*.lan.example")
    assert client("http://captains.example.org", allowed_hosts=hosts).get("/v1/health").status_code == 200
    assert client("http://box.lan.example:8765", allowed_hosts=hosts).get("/v1/health").status_code == 200
    assert client("http://lan.example.evil", allowed_hosts=hosts).get("/v1/health").status_code == 403
    assert client("http://anything.example", allowed_hosts=("*",)).get("/v1/health").status_code == 200


def test_a_page_of_another_site_cannot_post_but_the_servers_own_page_can() -> None:
    http = client()
    foreign = http.post("/v1/games", json={"ruleset": "pantheon"}, headers={"Origin": "http://evil.example"})
    assert foreign.status_code == 403 and foreign.json()["error"]["code"] == "origin_not_allowed"
    assert http.get("/v1/health").json()["games"] == 0   # nothing was created
    own = http.post("/v1/games", json={"ruleset": "pantheon"}, headers={"Origin": "http://localhost:8765"})
    assert own.status_code == 201
    assert http.post("/v1/games", json={"ruleset": "pantheon"}, headers={"Origin": "null"}).status_code == 403


def test_a_cors_origin_may_call_and_is_told_so() -> None:
    http = client(cors_origins=("https://tabletop.example",))
    answer = http.post("/v1/games", json={"ruleset": "pantheon"}, headers={"Origin": "https://tabletop.example"})
    assert answer.status_code == 201
    assert answer.headers["access-control-allow-origin"] == "https://tabletop.example"
    refused = http.post("/v1/games", json={"ruleset": "pantheon"}, headers={"Origin": "https://other.example"})
    assert refused.status_code == 403


@pytest.mark.parametrize("store", ["memory", "file"])
def test_one_client_keeps_at_most_its_share_of_games(tmp_path: Path, store: str) -> None:
    settings: dict[str, Any] = {"max_games_per_client": 2, "max_games": 10,
                                "store": tmp_path / "games.sqlite3" if store == "file" else "memory"}
    app = create_app(ServerSettings(**settings), catalogue=CATALOGUE)
    greedy = TestClient(app, base_url="http://localhost", client=("10.0.0.1", 1))
    other = TestClient(app, base_url="http://localhost", client=("10.0.0.2", 1))
    first = [greedy.post("/v1/games", json={"ruleset": "pantheon"}).json()["id"] for _ in range(2)]
    refused = greedy.post("/v1/games", json={"ruleset": "pantheon"})
    assert refused.status_code == 429, refused.text
    error = refused.json()["error"]
    assert error["code"] == "too_many_client_games" and error["details"] == {"max_games_per_client": 2}
    assert int(refused.headers["retry-after"]) >= 1 and "10.0.0.1" in error["message"]
    assert other.post("/v1/games", json={"ruleset": "pantheon"}).status_code == 201   # others are still served
    assert greedy.delete(f"/v1/games/{first[0]}").status_code == 204   # a finished game makes room
    assert greedy.post("/v1/games", json={"ruleset": "pantheon"}).status_code == 201


def test_a_client_past_its_request_rate_gets_429_and_others_do_not() -> None:
    app = create_app(ServerSettings(max_requests_per_second=2), catalogue=CATALOGUE)
    fast = TestClient(app, base_url="http://localhost", client=("10.0.0.1", 1))
    calm = TestClient(app, base_url="http://localhost", client=("10.0.0.2", 1))
    codes = [fast.get("/v1/health").status_code for _ in range(8)]
    assert codes[:4] == [200] * 4 and 429 in codes[4:], codes   # a burst of 4 (twice the rate), then refused
    refused = fast.get("/v1/health")
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "too_many_requests"
    assert refused.headers["retry-after"] == "1"
    assert calm.get("/v1/health").status_code == 200


def test_forwarded_addresses_are_believed_only_from_trusted_proxies() -> None:
    assert http_options(ServerSettings())["proxy_headers"] is False
    behind = http_options(ServerSettings(trusted_proxies=("10.1.1.1",)))
    assert behind["proxy_headers"] is True and behind["forwarded_allow_ips"] == "10.1.1.1"


def test_a_captains_folder_with_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "captains"
    folder.mkdir()
    huge = folder / "huge.onnx"
    with huge.open("wb") as file:
        file.truncate(3 * 2**30)   # sparse: 3 GB long, nothing on disk
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(CatalogueError, match=r"huge.onnx: 3,221,225,472 bytes, over the 536,870,912"):
        create_app(ServerSettings(captains_dir=folder))
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 200 * 1024, grown_kb   # not read into memory
    os.truncate(huge, 0)


def test_every_error_code_is_in_the_protocol_page_with_its_status() -> None:
    """An app branches on ``code``: each one the server can answer is listed in docs/apps.md's table."""
    from naval_tactics.server.errors import CODES

    table = (Path(__file__).resolve().parents[2] / "docs" / "apps.md").read_text(encoding="utf-8")
    rows = [line for line in table.splitlines() if line.startswith(("| 4", "| 5"))]
    for code, status in CODES.items():
        assert any(line.startswith(f"| {status} |") and f"`{code}`" in line for line in rows), code


def test_serve_answers_localhost_names_its_address_and_added_names_only() -> None:
    from naval_tactics.cli import _allowed_hosts

    assert _allowed_hosts("127.0.0.1", []) == ("localhost", "127.0.0.1", "::1")   # not the test client's name
    assert _allowed_hosts("192.168.1.20", ["captains.lan"]) == ("localhost", "127.0.0.1", "::1", "192.168.1.20",
                                                                 "captains.lan")
    assert "0.0.0.0" not in _allowed_hosts("0.0.0.0", [])   # every address: the names clients use must be added
