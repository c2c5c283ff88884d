"""A client generated from the live OpenAPI schema (openapi-python-client, as an app developer would make one)
plays a whole game of every ruleset, and the schema has what generators need: unique titles, short
operation ids and no default the server refuses."""

from __future__ import annotations

import collections
import importlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from naval_env.core.ruleset import ruleset_ids
from naval_tactics.server import create_app
from naval_tactics.server.openapi import schema_prefix
from naval_tactics.server.settings import ServerSettings

pytestmark = pytest.mark.slow   # a client generated from the schema plays whole games

#: The most decisions a whole game may take here (random captains; the round limits end every game sooner).
MAX_DECISIONS = 5000


@pytest.fixture(scope="module")
def server() -> Iterator[TestClient]:
    with TestClient(create_app(ServerSettings())) as client:
        yield client


@pytest.fixture(scope="module")
def generated(server: TestClient, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The package openapi-python-client generates from /openapi.json, imported."""
    folder = tmp_path_factory.mktemp("client")
    spec = folder / "openapi.json"
    spec.write_text(server.get("/openapi.json").text, encoding="utf-8")
    bin_dir = Path(sys.executable).parent   # the generator's script, and the ruff it formats with
    env = {**os.environ, "PATH": os.pathsep.join([str(bin_dir), os.environ.get("PATH", "")])}
    done = subprocess.run([str(bin_dir / "openapi-python-client"), "generate", "--path", str(spec), "--meta", "none",
                           "--output-path", str(folder / "naval_client")],
                          check=False, capture_output=True, text=True, timeout=300, env=env, cwd=folder)
    assert done.returncode == 0, done.stdout + done.stderr
    # Nothing dropped: the only warnings allowed are for responses that are not JSON (a picture, a replay
    # file, a page), whose bytes the generated client hands over unparsed.
    said = done.stdout + done.stderr
    warned = re.findall(r"^WARNING parsing .*$", said, flags=re.MULTILINE)
    reasons = re.findall(r"\(Unsupported content_type ([^)]+)\)", said)
    assert len(reasons) == len(warned), said
    assert set(reasons) <= {"image/svg+xml", "application/x-ndjson", "text/html"}, said
    sys.path.insert(0, str(folder))
    try:
        yield importlib.import_module("naval_client")
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m == "naval_client" or m.startswith("naval_client.")]:
            del sys.modules[name]


def client_of(generated: Any, server: TestClient) -> Any:
    client = generated.Client(base_url=str(server.base_url))
    client.set_httpx_client(server)   # the generated client's calls go to the app in this process
    return client


def test_schema_titles_are_unique_and_operation_ids_short(server: TestClient) -> None:
    spec = server.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    titles = collections.Counter(schema.get("title", name) for name, schema in schemas.items())
    assert [t for t, n in titles.items() if n > 1] == []
    assert all(schema.get("title", name) == name for name, schema in schemas.items() if "title" in schema
               and name[0].isupper() and any(name.startswith(schema_prefix(r)) for r in ruleset_ids()))
    for ruleset_id in ruleset_ids():   # the shared model names now carry their ruleset's name
        assert f"{schema_prefix(ruleset_id)}ShipPosition" in schemas
    assert {"PantheonResult", "PursuitResult", "FlotillaResult", "PantheonStatus", "PursuitStatus"} <= set(schemas)
    ids = [op["operationId"] for item in spec["paths"].values() for op in item.values()]
    assert len(ids) == len(set(ids)) and all(re.fullmatch(r"[a-z]+(_[a-z]+)*", i) for i in ids), ids
    assert {"health", "list_rulesets", "get_ruleset_info", "position_schema", "create_game", "get_game",
            "delete_game", "make_move", "captain_move", "game_events", "decide"} <= set(ids)
    assert "default" not in schemas["PantheonShipPosition"]["properties"]["last_turn_began"]


def test_a_typed_short_position_without_last_turn_began_is_decided(generated: Any, server: TestClient) -> None:
    """The README's position, built with the generated models: fields left out are not sent, so the server
    fills in ``last_turn_began`` itself (the schema once declared -1, which the typed client sent and the
    server refused)."""
    from naval_client.api.decide import decide
    from naval_client.models import (
        DecideRequest,
        PantheonPosition,
        PantheonShipPosition,
        PantheonShipPositionFacing,
    )

    position = PantheonPosition(ruleset="pantheon", scenario="duel", order=["red_0", "blue_0"], ships=[
        PantheonShipPosition(id="red_0", vessel="trireme", x=4, y=5, facing=PantheonShipPositionFacing.E),
        PantheonShipPosition(id="blue_0", vessel="trireme", x=6, y=5, facing=PantheonShipPositionFacing.W, health=5)])
    response = decide.sync_detailed(client=client_of(generated, server),
                                    body=DecideRequest(ruleset="pantheon", position=position, captain="gunner"))
    assert response.status_code == 200, response.content
    assert response.parsed.seat == "red_0" and response.parsed.move.to_dict()["attack"]


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_the_generated_client_plays_a_whole_game(generated: Any, server: TestClient, ruleset_id: str) -> None:
    from naval_client.api.decide import decide
    from naval_client.api.games import captain_move, create_game, get_game, make_move
    from naval_client.api.rulesets import get_ruleset_info
    from naval_client.models import (
        CaptainMoveRequest,
        DecideRequest,
        GameView,
        MoveRequest,
        MoveRequestMove,
        NewGame,
    )

    client = client_of(generated, server)
    info = get_ruleset_info.sync(ruleset_id, client=client)
    scripted = next(c.name for c in info.captains if c.kind == "scripted")
    view = create_game.sync(client=client, body=NewGame(ruleset=ruleset_id, seed=11))
    assert isinstance(view, GameView), view
    # The game's own position, read into the ruleset's generated model and sent back: a decision there.
    model = getattr(importlib.import_module("naval_client.models"), f"{schema_prefix(ruleset_id)}Position")
    position = model.from_dict(view.to_dict()["position"])
    decided = decide.sync_detailed(client=client, body=DecideRequest(ruleset=ruleset_id, position=position,
                                                                     captain=scripted))
    assert decided.status_code == 200, decided.content
    first_side, moves, asked = view.sides[0], 0, 0
    while not view.over:
        assert moves + asked < MAX_DECISIONS
        seat = view.to_move
        if seat.startswith(first_side):   # this side moves by label, from a random captain's proposal
            proposal = captain_move.sync(view.id, client=client, body=CaptainMoveRequest(captain="random"),
                                         apply=False)
            assert not proposal.applied
            legal = view.legal.to_dict()
            assert all(label in legal[component] for component, label in proposal.move.to_dict().items())
            result = make_move.sync(view.id, client=client, body=MoveRequest(
                seat=seat, move=MoveRequestMove.from_dict(proposal.move.to_dict())))
            moves += 1
        else:
            result = captain_move.sync(view.id, client=client, body=CaptainMoveRequest(captain=scripted))
            assert result.applied
            asked += 1
        assert result is not None and not hasattr(result, "error"), result
        view = result.game
    assert moves > 0 and asked > 0
    final = get_game.sync(view.id, client=client)
    assert final.over and final.to_dict()["winner"] == view.to_dict()["winner"]
