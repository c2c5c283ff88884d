"""The captain server route by route (FastAPI's TestClient): answers equal to the engine's, every refusal
in the one error shape with its code, path and allowed values, and the limits (games kept, idle time,
body size). Whole games over real HTTP are in test_server_http.py."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from naval_agents.captains.base import RandomCaptain
from naval_agents.captains.registry import LEVELS, make_captain, scripted_captains, scripted_names
from naval_agents.captains.zoo import has_zoo_captain
from naval_env.core.moves import decode, encode, legal_options
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_tactics.catalogue import CAPTAIN_SOURCES, Catalogue
from naval_tactics.client import CaptainClient, CaptainServerError
from naval_tactics.decisions import decision_for
from naval_tactics.server import ServerSettings, create_app
from naval_tactics.server.errors import CODES

RULESETS = ruleset_ids()


class Clock:
    """A settable monotonic clock, so idle expiry is tested without sleeping."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def shipped(ruleset_id: str) -> list[str]:
    """The zoo captain and its difficulty levels, served where the ruleset ships one."""
    return ["zoo", *LEVELS] if has_zoo_captain(ruleset_id) else []


@pytest.fixture
def clock() -> Clock:
    return Clock()


CATALOGUE = Catalogue.load()  # loaded once: every app below serves the same rulesets and captains


def make_client(clock: Clock | None = None, **settings: Any) -> TestClient:
    return TestClient(create_app(ServerSettings(**settings), clock=clock, catalogue=CATALOGUE),
                      raise_server_exceptions=True)


@pytest.fixture
def client(clock: Clock) -> Iterator[TestClient]:
    with make_client(clock, max_games=4, idle_seconds=60) as test_client:
        yield test_client


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    """The error body, after checking the status, the code and that the shape is the shared one."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "problems", "details"}
    assert body["error"]["code"] == code and CODES[code] == status
    assert all(set(p) == {"path", "message"} for p in body["error"]["problems"])
    return dict(body["error"])


def new_game(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/v1/games", json={"ruleset": "pantheon", "seed": 3, **body})
    assert response.status_code == 201, response.text
    return dict(response.json())


def engine_game(ruleset_id: str = "pantheon", seed: int = 3, scenario: str | None = None) -> Any:
    ruleset = get_ruleset(ruleset_id)
    return ruleset.new_game(ruleset.load_config(), scenario, seed=seed)


# ------------------------------------------------------------------ catalogue
def test_rulesets_list_versions_scenarios_captains_and_every_label(client: TestClient) -> None:
    listed = {r["id"]: r for r in client.get("/v1/rulesets").json()["rulesets"]}
    assert sorted(listed) == RULESETS
    for ruleset_id, info in listed.items():
        ruleset = get_ruleset(ruleset_id)
        config = ruleset.load_config()
        assert info["version"] == ruleset.version and info["gym_id"] == ruleset.gym_id
        assert info["scenarios"] == ruleset.scenarios(config) and info["default_scenario"] == config.default_scenario
        assert [c["name"] for c in info["captains"]] == ["random", *scripted_captains(ruleset_id), *shipped(ruleset_id)]
        zoo_kinds = ["zoo", *["level"] * len(LEVELS)] if has_zoo_captain(ruleset_id) else []
        assert [c["kind"] for c in info["captains"]] == (
            ["random"] + ["scripted"] * len(scripted_captains(ruleset_id)) + zoo_kinds)
        # random and the zoo's ONNX policy give probabilities; scripted captains and the levels (a mix) do not.
        zoo_probabilities = [True, *[False] * len(LEVELS)] if has_zoo_captain(ruleset_id) else []
        assert [c["probabilities"] for c in info["captains"]] == (
            [True] + [False] * len(scripted_captains(ruleset_id)) + zoo_probabilities)
        spec = ruleset.action_spec(config)
        assert [(c["name"], c["labels"]) for c in info["components"]] == [(c.name, list(c.labels))
                                                                          for c in spec.components]
    assert client.get("/v1/rulesets/pantheon").json() == listed["pantheon"]


def test_an_unknown_ruleset_in_a_path_is_a_404_naming_the_known_ones(client: TestClient) -> None:
    error = error_of(client.get("/v1/rulesets/chess/position-schema"), 404, "not_found")
    assert error["message"] == f"unknown ruleset 'chess'; known: {RULESETS}"
    assert error["details"] == {"name": "chess", "allowed": RULESETS}


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_the_position_schema_is_the_engines_generated_one(client: TestClient, ruleset_id: str) -> None:
    assert client.get(f"/v1/rulesets/{ruleset_id}/position-schema").json() == \
        get_ruleset(ruleset_id).positions.model.model_json_schema()


def test_health_reports_the_limits_and_the_games_kept(client: TestClient) -> None:
    assert client.get("/v1/health").json() == {"status": "ok", "version": "0.1.0", "games": 0, "max_games": 4,
                                               "idle_seconds": 60.0, "max_body_bytes": 262144}
    new_game(client)
    assert client.get("/v1/health").json()["games"] == 1


def test_the_openapi_page_documents_every_route_and_the_error_shape(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    routes = {(method.upper(), path) for path, item in spec["paths"].items() for method in item}
    assert routes == {
        ("GET", "/v1/health"), ("GET", "/v1/rulesets"), ("GET", "/v1/rulesets/{ruleset_id}"),
        ("GET", "/v1/rulesets/{ruleset_id}/position-schema"), ("POST", "/v1/games"),
        ("GET", "/v1/games/{game_id}"), ("DELETE", "/v1/games/{game_id}"), ("POST", "/v1/games/{game_id}/moves"),
        ("POST", "/v1/games/{game_id}/captain-moves"), ("GET", "/v1/games/{game_id}/events"),
        ("POST", "/v1/decide"), ("GET", "/v1/games/{game_id}/options"), ("POST", "/v1/rulesets/{ruleset_id}/preview"),
        ("POST", "/v1/rulesets/{ruleset_id}/picture"), ("POST", "/v1/replays"), ("POST", "/v1/replays/page"),
    }
    move = spec["paths"]["/v1/games/{game_id}/moves"]["post"]
    assert move["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/MoveRequest")
    for status in ("404", "409", "422", "413"):
        assert move["responses"][status]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorResponse")
    schemas = spec["components"]["schemas"]
    assert "component: label" in schemas["MoveRequest"]["properties"]["move"]["description"]
    # Positions are documented field by field: each ruleset's model, generated from the engine's.
    for model, field in (("NewGame", "position"), ("DecideRequest", "position"), ("GameView", "position")):
        refs = [option.get("$ref", "").rsplit("/", 1)[-1] for option in schemas[model]["properties"][field]["anyOf"]]
        assert [r for r in refs if r] == [get_ruleset(rid).positions.model.__name__ for rid in RULESETS]
    assert schemas["PantheonPosition"]["properties"]["ships"]["type"] == "array"
    every_ref = re.findall(r'"\$ref": "#/components/schemas/([^"]+)"', json.dumps(spec))
    assert every_ref and set(every_ref) <= set(schemas)   # every reference resolves
    page = client.get("/docs")
    assert page.status_code == 200 and "swagger" in page.text.lower()
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)   # served from the package, not from a CDN
    assert assets and all(a.startswith("/") for a in assets), assets
    assert all(client.get(a).status_code == 200 for a in assets)


# ------------------------------------------------------------------ games
def test_a_game_from_a_scenario_and_seed_is_the_engines_game(client: TestClient) -> None:
    response = client.post("/v1/games", json={"ruleset": "pantheon", "scenario": "mixed_duel", "seed": 11})
    assert response.status_code == 201
    view = response.json()
    assert response.headers["location"] == f"/v1/games/{view['id']}"
    game = engine_game("pantheon", 11, "mixed_duel")
    assert view["position"] == game.position()
    assert (view["ruleset"], view["version"], view["scenario"], view["seed"]) == ("pantheon", "1.0", "mixed_duel", 11)
    assert (view["to_move"], view["round"], view["decisions"], view["over"], view["winner"]) == \
        (game.current_agent, 1, 0, False, None)
    assert view["legal"] == legal_options(game)
    assert view["seats"] == [{"id": a, "side": game.side_of(a), "active": True} for a in game.agents]
    assert client.get(f"/v1/games/{view['id']}").json() == view


def test_without_a_seed_the_server_draws_one_and_reports_it(client: TestClient) -> None:
    view = client.post("/v1/games", json={"ruleset": "pantheon"}).json()
    assert 0 <= view["seed"] < 2**53
    assert view["scenario"] == "duel"
    assert view["position"] == engine_game("pantheon", view["seed"]).position()


def mid_game(ruleset_id: str, decisions: int) -> Any:
    """A game ``decisions`` random legal decisions in and not over (the first seed from 5 that gives one)."""
    for seed in range(5, 100):
        game = engine_game(ruleset_id, seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(decisions):
            agent = game.current_agent
            if agent is None:
                break
            game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
        if not game.is_over:
            return game
    raise AssertionError(f"no {ruleset_id} game lasts {decisions} decisions")


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_game_from_a_position_continues_from_it(client: TestClient, ruleset_id: str) -> None:
    game = mid_game(ruleset_id, decisions=6)
    position = game.position()
    view = new_game(client, ruleset=ruleset_id, position=position, seed=8)
    assert view["position"] == position and view["scenario"] == position["scenario"]
    loaded = get_ruleset(ruleset_id).load_position(position, seed=8)
    assert view["legal"] == legal_options(loaded) and view["to_move"] == loaded.current_agent
    assert client.get(f"/v1/games/{view['id']}/events").json()["events"] == []  # no opening events


def test_a_bad_position_is_refused_with_the_path_of_every_bad_field(client: TestClient) -> None:
    position = engine_game().position()
    position["tide"] = "high"
    position["version"] = "0.0"
    del position["ships"]
    error = error_of(client.post("/v1/games", json={"ruleset": "pantheon", "position": position}),
                     422, "invalid_position")
    paths = [p["path"] for p in error["problems"]]
    assert sorted(paths) == ["position.ships", "position.tide"]
    assert error["problems"][paths.index("position.ships")]["message"] == "required field is missing"
    assert "allowed here" in error["problems"][paths.index("position.tide")]["message"]
    assert error["message"].startswith("the position cannot be loaded (2 problems): ")
    # The position of another ruleset: the path names the field, the message the ruleset expected.
    error = error_of(client.post("/v1/games", json={"ruleset": "pursuit", "position": engine_game().position()}),
                     422, "invalid_position")
    assert error["problems"][0]["path"] == "position.ruleset" and "pursuit" in error["problems"][0]["message"]
    assert client.get("/v1/health").json()["games"] == 0   # nothing half-built kept


def test_unknown_names_are_refused_with_the_known_ones(client: TestClient) -> None:
    error = error_of(client.post("/v1/games", json={"ruleset": "chess"}), 422, "unknown_ruleset")
    assert error["problems"] == [{"path": "ruleset", "message": f"unknown ruleset 'chess'; known: {RULESETS}"}]
    error = error_of(client.post("/v1/games", json={"ruleset": "pantheon", "scenario": "armada"}),
                     422, "unknown_scenario")
    assert error["message"] == "unknown scenario 'armada' for pantheon; known: ['duel', 'mixed_duel', 'squadron', 'fleet']"
    assert error["details"] == {"name": "armada", "allowed": ["duel", "mixed_duel", "squadron", "fleet"]}


@pytest.mark.parametrize(("body", "path", "message"), [
    ({"ruleset": "pantheon", "sed": 3}, "sed", "unknown field; allowed here: ruleset, scenario, position, seed"),
    ({"ruleset": "pantheon", "seed": -1}, "seed", "Input should be greater than or equal to 0"),
    ({"ruleset": "pantheon", "seed": 2**53}, "seed", "Input should be less than or equal to 9007199254740991"),
    ({"scenario": "duel"}, "ruleset", "required field is missing"),
    ({"ruleset": "pantheon", "scenario": "duel", "position": {}}, "",
     "give a scenario or a position, not both (a position names its own scenario)"),
    ({"ruleset": "pantheon", "position": [1]}, "position", "must be a JSON object"),
])
def test_a_request_that_does_not_fit_its_model_names_the_field(client: TestClient, body: dict[str, Any], path: str,
                                                               message: str) -> None:
    error = error_of(client.post("/v1/games", json=body), 422, "invalid_request")
    assert error["problems"] == [{"path": path, "message": message}]


def test_bad_json_a_missing_content_type_and_unknown_routes(client: TestClient) -> None:
    body = b'{"ruleset": "pantheon",}'
    error = error_of(client.post("/v1/games", content=body, headers={"content-type": "application/json"}),
                     400, "invalid_json")
    with pytest.raises(json.JSONDecodeError) as decoding:  # the wording is Python's own, and 3.13 changed it
        json.loads(body)
    assert decoding.value.pos in (22, 23)
    assert error["message"] == (f"the request body is not valid JSON: {decoding.value.msg} "
                                f"at character {decoding.value.pos}")
    error = error_of(client.post("/v1/games", content=b"[" * 100_000, headers={"content-type": "application/json"}),
                     400, "invalid_json")
    assert error["message"] == "the request body could not be read as JSON (nested too deeply, or not text)"
    error = error_of(client.post("/v1/games", content=b'{"ruleset": "pantheon"}'), 415, "unsupported_media_type")
    assert "Content-Type: application/json" in error["message"]
    error = error_of(client.get("/v1/nowhere"), 404, "not_found")
    assert error["message"] == "no route GET /v1/nowhere; the routes are listed at /docs"
    error = error_of(client.delete("/v1/rulesets"), 405, "method_not_allowed")
    assert error["message"] == "/v1/rulesets does not take DELETE; it takes GET"


def test_a_405_lists_every_method_the_path_takes(client: TestClient) -> None:
    game_id = new_game(client)["id"]
    answer = client.options(f"/v1/games/{game_id}")
    error = error_of(answer, 405, "method_not_allowed")
    assert answer.headers["allow"] == "DELETE, GET"   # two routes share the path; both are named
    assert error["message"] == f"/v1/games/{game_id} does not take OPTIONS; it takes DELETE, GET"
    assert client.put("/v1/games").headers["allow"] == "POST"


# ------------------------------------------------------------------ moves by label
def test_a_move_by_labels_is_the_engines_move(client: TestClient) -> None:
    view = new_game(client)
    game = engine_game()
    seat = game.current_agent
    move = {"maneuver": "ahead 2"}
    response = client.post(f"/v1/games/{view['id']}/moves", json={"seat": seat, "move": move})
    assert response.status_code == 200, response.text
    result = response.json()
    action = encode(game.action_spec, move, game.legal_mask(seat))
    events = game.apply(seat, action)
    assert result["action"] == action.tolist() and result["move"] == decode(game.action_spec, action)
    assert result["events"] == [e.to_dict() for e in events] and result["log"] == [e.text() for e in events]
    assert result["game"]["position"] == game.position() and result["game"]["decisions"] == 1
    assert result["game"]["legal"] == legal_options(game)


def test_illegal_labels_are_refused_naming_component_label_and_allowed(client: TestClient) -> None:
    view = new_game(client)
    seat, url = view["to_move"], f"/v1/games/{view['id']}/moves"
    error = error_of(client.post(url, json={"seat": seat, "move": {"sail": "ahead 1"}}), 422, "illegal_move")
    components = [c["name"] for c in client.get("/v1/rulesets/pantheon").json()["components"]]
    assert error["problems"] == [{"path": "move.sail",
                                  "message": f"unknown action component 'sail'; components: {components}"}]
    assert error["details"] == {"component": "sail", "label": None, "allowed": components}
    error = error_of(client.post(url, json={"seat": seat, "move": {"maneuver": "full sail"}}), 422, "illegal_move")
    assert error["details"] == {"component": "maneuver", "label": "full sail", "allowed": view["legal"]["maneuver"]}
    error = error_of(client.post(url, json={"seat": seat, "move": {"attack": "ram@enemy0"}}), 422, "illegal_move")
    assert error["message"] == "component 'attack': 'ram@enemy0' is not allowed now; allowed now: ['none']"
    assert error["problems"][0]["path"] == "move.attack"
    assert error["details"] == {"component": "attack", "label": "ram@enemy0", "allowed": ["none"]}
    error = error_of(client.post(url, json={"seat": seat, "move": {"maneuver": 5}}), 422, "invalid_request")
    assert error["problems"] == [{"path": "move.maneuver", "message": "Input should be a valid string"}]
    assert client.get(f"/v1/games/{view['id']}").json() == view  # refused moves change nothing


def test_only_the_seat_to_move_may_move(client: TestClient) -> None:
    view = new_game(client)
    other = next(s["id"] for s in view["seats"] if s["id"] != view["to_move"])
    url = f"/v1/games/{view['id']}/moves"
    error = error_of(client.post(url, json={"seat": other, "move": {}}), 409, "not_your_turn")
    assert error["message"] == f"it is {view['to_move']}'s decision, not {other}'s"
    assert error["details"] == {"seat": other, "to_move": view["to_move"]}
    error = error_of(client.post(url, json={"seat": "green_7", "move": {}}), 422, "unknown_seat")
    assert error["problems"] == [{"path": "seat", "message": "no seat 'green_7' in this game; seats: "
                                                             "['red_0', 'blue_0']"}]
    assert client.get(f"/v1/games/{view['id']}").json() == view


def play_out(client: TestClient, game_id: str, captain: str = "random") -> dict[str, Any]:
    view = client.get(f"/v1/games/{game_id}").json()
    while not view["over"]:
        answer = client.post(f"/v1/games/{game_id}/captain-moves", json={"captain": captain})
        assert answer.status_code == 200, answer.text
        view = answer.json()["game"]
    return dict(view)


def test_a_finished_game_takes_no_more_moves_and_keeps_its_events(client: TestClient) -> None:
    view = play_out(client, new_game(client, seed=4)["id"])
    assert view["over"] and view["to_move"] is None and view["legal"] == {}
    reference = engine_game(seed=4)
    captains = {side: RandomCaptain(reference.action_spec) for side in reference.sides}
    for i, side in enumerate(reference.sides):
        captains[side].reset(4 * 2 + i)
    events = list(reference.opening_events)
    while not reference.is_over:
        agent = reference.current_agent
        captain = captains[reference.side_of(agent)]
        events += reference.apply(agent, captain.act(decision_for(reference, agent, captain)))
    assert view["position"] == reference.position() and view["winner"] == reference.winner
    result = f"{reference.winner} won" if reference.winner else "a draw"
    for url, body in ((f"/v1/games/{view['id']}/moves", {"seat": "red_0", "move": {}}),
                      (f"/v1/games/{view['id']}/captain-moves", {"captain": "gunner"})):
        error = error_of(client.post(url, json=body), 409, "game_over")
        assert error["message"] == f"the game is over ({result}); it takes no more moves"
    logged = client.get(f"/v1/games/{view['id']}/events").json()
    assert logged["total"] == len(events) and logged["since"] == 0
    assert logged["events"] == [e.to_dict() for e in events] and logged["log"] == [e.text() for e in events]
    catalog = get_ruleset("pantheon").events
    assert [catalog.from_dict(e) for e in logged["events"]] == events  # typed events, read back
    tail = client.get(f"/v1/games/{view['id']}/events", params={"since": len(events) - 2}).json()
    assert tail["events"] == logged["events"][-2:] and tail["since"] == len(events) - 2
    assert client.get(f"/v1/games/{view['id']}/events", params={"since": 10**6}).json()["events"] == []
    error = error_of(client.get(f"/v1/games/{view['id']}/events", params={"since": -1}), 422, "invalid_request")
    assert error["problems"][0]["path"] == "query.since"


# ------------------------------------------------------------------ captains
def test_a_captain_proposes_without_changing_the_game_or_applies(client: TestClient) -> None:
    view = new_game(client)
    url = f"/v1/games/{view['id']}/captain-moves"
    proposed = client.post(url, params={"apply": "false"}, json={"captain": "gunner"}).json()
    assert proposed["applied"] is False and proposed["events"] == [] and proposed["game"] == view
    game = engine_game()
    gunner = make_captain("gunner", "pantheon", game.action_spec)
    action = gunner.act(decision_for(game, game.current_agent, gunner))
    assert proposed["action"] == action.tolist() and proposed["move"] == decode(game.action_spec, action)
    assert proposed["probabilities"] is None and proposed["seat"] == game.current_agent
    applied = client.post(url, json={"captain": "gunner"}).json()
    events = game.apply(game.current_agent, action)
    assert applied["applied"] is True and applied["action"] == action.tolist()
    assert applied["events"] == [e.to_dict() for e in events] and applied["game"]["position"] == game.position()


def test_a_random_captain_gives_its_uniform_probabilities(client: TestClient) -> None:
    view = new_game(client)
    answer = client.post(f"/v1/games/{view['id']}/captain-moves?apply=false", json={"captain": "random"}).json()
    assert answer["probabilities"] == {component: dict.fromkeys(labels, 1 / len(labels))
                                       for component, labels in view["legal"].items()}
    assert all(answer["move"][c] in labels for c, labels in view["legal"].items())


@pytest.mark.parametrize("name", ["../tiny.onnx", "/tmp/evil.onnx", "agents/captains/scripted/pantheon.py", "runs/x",
                                  "gunner.onnx", "RANDOM", ""])
def test_a_captain_name_is_only_looked_up_never_opened(client: TestClient, name: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import naval_agents.captains.loading
    import naval_agents.captains.registry

    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the server must not load a captain from a client's string")

    monkeypatch.setattr(naval_agents.captains.loading, "load_model_captain", never)
    monkeypatch.setattr(naval_agents.captains.registry, "make_captain", never)
    view = new_game(client)
    error = error_of(client.post(f"/v1/games/{view['id']}/captain-moves", json={"captain": name}),
                     422, "unknown_captain")
    assert error["details"] == {"name": name, "allowed": ["random", "rammer", "gunner", *shipped("pantheon")]}
    assert error["problems"][0]["path"] == "captain"
    decide = client.post("/v1/decide", json={"ruleset": "pantheon", "position": view["position"], "captain": name})
    assert error_of(decide, 422, "unknown_captain")["details"]["allowed"] == ["random", "rammer", "gunner",
                                                                              *shipped("pantheon")]


# ------------------------------------------------------------------ stateless decide
@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_decide_answers_what_the_captain_does_in_process(client: TestClient, ruleset_id: str) -> None:
    game = engine_game(ruleset_id, seed=6)
    rng = random.Random(6)
    for _ in range(5):
        agent = game.current_agent
        options = legal_options(game)
        game.apply(agent, encode(game.action_spec, {c: rng.choice(ls) for c, ls in options.items()},
                                 game.legal_mask(agent)))
    position = game.position()
    for name in scripted_names(ruleset_id):
        body = {"ruleset": ruleset_id, "position": position, "captain": name, "seed": 9}
        answer = client.post("/v1/decide", json=body)
        assert answer.status_code == 200, answer.text
        loaded = get_ruleset(ruleset_id).load_position(position, seed=9)
        captain = make_captain(name, ruleset_id, loaded.action_spec)
        captain.reset(9)
        action = captain.act(decision_for(loaded, loaded.current_agent, captain))
        assert answer.json()["action"] == action.tolist()
        assert answer.json()["move"] == decode(loaded.action_spec, action)
        assert answer.json()["seat"] == game.current_agent
        assert client.post("/v1/decide", json=body).json() == answer.json()   # same request, same answer
    assert client.get("/v1/health").json()["games"] == 0   # nothing kept


def test_decide_refuses_a_seat_not_to_move_and_a_finished_position(client: TestClient) -> None:
    view = new_game(client)
    other = next(s["id"] for s in view["seats"] if s["id"] != view["to_move"])
    body = {"ruleset": "pantheon", "position": view["position"], "captain": "gunner"}
    assert error_of(client.post("/v1/decide", json={**body, "seat": other}), 409, "not_your_turn")["details"] == {
        "seat": other, "to_move": view["to_move"]}
    finished = play_out(client, view["id"])
    error = error_of(client.post("/v1/decide", json={**body, "position": finished["position"]}), 409, "game_over")
    assert error["details"]["winner"] == finished["winner"]
    error = error_of(client.post("/v1/decide", json={**body, "ruleset": "chess"}), 422, "unknown_ruleset")
    assert error["problems"][0]["path"] == "ruleset"


# ------------------------------------------------------------------ limits
def test_when_full_idle_games_make_room_else_429(client: TestClient, clock: Clock) -> None:
    ids = [new_game(client)["id"] for _ in range(4)]
    response = client.post("/v1/games", json={"ruleset": "pantheon"})
    error = error_of(response, 429, "too_many_games")
    assert error["message"] == ("the server keeps at most 4 games and none has been idle for 60 s; "
                                "DELETE finished games, or retry in 60 s")
    assert error["details"] == {"max_games": 4} and response.headers["retry-after"] == "60"
    clock.now += 30
    client.get(f"/v1/games/{ids[0]}")                        # used: stays
    clock.now += 30.5                                        # the other three are idle past 60 s
    fresh = new_game(client)                                 # room is made by dropping them
    assert client.get(f"/v1/games/{ids[0]}").status_code == 200
    for gone in ids[1:]:
        error = error_of(client.get(f"/v1/games/{gone}"), 404, "game_expired")
        assert error["message"] == (f"game '{gone}' was dropped after 60 s without a request (the server's idle "
                                    "limit); create a new game")
    assert client.get("/v1/health").json()["games"] == 2 and fresh["id"] not in ids


def test_a_game_idle_too_long_is_gone_with_the_reason(client: TestClient, clock: Clock) -> None:
    view = new_game(client)
    clock.now += 59
    assert client.get(f"/v1/games/{view['id']}").status_code == 200   # a request restarts its idle time
    clock.now += 59
    assert client.post(f"/v1/games/{view['id']}/captain-moves", json={"captain": "gunner"}).status_code == 200
    clock.now += 60.5
    error = error_of(client.post(f"/v1/games/{view['id']}/moves", json={"seat": "red_0", "move": {}}),
                     404, "game_expired")
    assert error["details"] == {"game_id": view["id"]}
    assert client.get("/v1/health").json()["games"] == 0


def test_deleted_and_unknown_games(client: TestClient) -> None:
    view = new_game(client)
    assert client.delete(f"/v1/games/{view['id']}").status_code == 204
    error = error_of(client.get(f"/v1/games/{view['id']}"), 404, "game_not_found")
    assert error["message"] == f"game '{view['id']}' was deleted"
    error = error_of(client.delete("/v1/games/nope"), 404, "game_not_found")
    assert error["message"].startswith("no game 'nope' on this server")


def test_an_expired_game_says_so_even_when_no_ids_are_remembered(clock: Clock) -> None:
    with make_client(clock, idle_seconds=60, remembered_ids=0) as client:
        view = new_game(client)
        clock.now += 61
        assert error_of(client.get(f"/v1/games/{view['id']}"), 404, "game_expired")
        assert error_of(client.get(f"/v1/games/{view['id']}"), 404, "game_not_found")  # and then it is forgotten


def test_forgotten_ids_are_bounded(clock: Clock) -> None:
    with make_client(clock, max_games=50, idle_seconds=60, remembered_ids=3) as client:
        ids = [new_game(client)["id"] for _ in range(5)]
        for game_id in ids:
            client.delete(f"/v1/games/{game_id}")
        store = client.app.state.services.store  # type: ignore[attr-defined]
        assert list(store._gone) == ids[2:]
        assert error_of(client.get(f"/v1/games/{ids[0]}"), 404, "game_not_found")["message"].startswith("no game")


def test_a_body_over_the_limit_is_refused_declared_or_streamed(clock: Clock) -> None:
    with make_client(clock, max_body_bytes=2048) as client:
        big = {"ruleset": "pantheon", "position": {"ruleset": "pantheon", "pad": "x" * 4000}}
        error = error_of(client.post("/v1/games", json=big), 413, "body_too_large")
        assert error["message"] == f"the request body is {len(json.dumps(big, separators=(',', ':')))} bytes; " \
                                   "this server accepts at most 2048"
        assert error["details"] == {"max_body_bytes": 2048}

        def chunks() -> Iterator[bytes]:
            yield b'{"ruleset": "pantheon", "position": {"pad": "'
            for _ in range(10):
                yield b"x" * 500
            yield b'"}}'

        error = error_of(client.post("/v1/games", content=chunks(), headers={"content-type": "application/json"}),
                         413, "body_too_large")
        assert error["message"] == "the request body is larger than this server accepts (at most 2048 bytes)"
        assert client.get("/v1/health").json()["games"] == 0
        assert new_game(client)["seed"] == 3   # a body under the limit still goes through


def test_browser_origins_are_allowed_only_when_configured(clock: Clock) -> None:
    preflight = {"origin": "https://tabletop.example", "access-control-request-method": "POST",
                 "access-control-request-headers": "content-type"}
    with make_client(clock) as closed:
        assert "access-control-allow-origin" not in closed.options("/v1/decide", headers=preflight).headers
        assert "access-control-allow-origin" not in closed.get("/v1/health", headers=preflight).headers
    with make_client(clock, cors_origins=("https://tabletop.example",), max_body_bytes=2048) as open_to:
        answer = open_to.options("/v1/decide", headers=preflight)
        assert answer.status_code == 200
        assert answer.headers["access-control-allow-origin"] == "https://tabletop.example"
        created = open_to.post("/v1/games", json={"ruleset": "pantheon"}, headers={"origin": "https://tabletop.example"})
        assert created.headers["access-control-allow-origin"] == "https://tabletop.example"
        assert "Location" in created.headers["access-control-expose-headers"]
        too_big = open_to.post("/v1/games", content=b"x" * 4096, headers={"origin": "https://tabletop.example"})
        assert too_big.status_code == 413 and too_big.headers["access-control-allow-origin"] == \
            "https://tabletop.example"
        other = open_to.options("/v1/decide", headers={**preflight, "origin": "https://elsewhere.example"})
        assert other.status_code == 400 and "access-control-allow-origin" not in other.headers


# ------------------------------------------------------------------ the catalogue
def test_captain_sources_are_one_tuple_and_names_are_unique_per_ruleset() -> None:
    assert [source.__name__ for source in CAPTAIN_SOURCES] == ["builtin_captains", "zoo_captains", "exported_captains"]
    catalogue = Catalogue.load()
    for ruleset_id in RULESETS:
        assert [c.name for c in catalogue.captains(ruleset_id)] == ["random", *scripted_captains(ruleset_id),
                                                                    *shipped(ruleset_id)]


# ------------------------------------------------------------------ the Python client, in process
def test_the_python_client_speaks_every_route(client: TestClient) -> None:
    api = CaptainClient(http=client)
    assert [r.id for r in api.rulesets()] == RULESETS and api.ruleset("pantheon").version == "1.0"
    assert api.position_schema("pantheon")["title"] == get_ruleset("pantheon").positions.model.__name__
    game = api.new_game("pantheon", scenario="duel", seed=3)
    assert game.position == engine_game().position()
    moved = api.move(game.id, game.to_move or "", {"maneuver": "ahead 1"})
    assert moved.move["maneuver"] == "ahead 1" and moved.game.decisions == 1
    proposal = api.captain_move(game.id, "random", apply=False)
    assert proposal.applied is False and proposal.probabilities is not None
    assert api.captain_move(game.id, "gunner").game.decisions == 2
    assert api.events(game.id, since=1).since == 1
    assert api.decide("pantheon", api.game(game.id).position, "gunner").seat == api.game(game.id).to_move
    with pytest.raises(CaptainServerError) as refused:
        api.move(game.id, "green_0", {})
    assert (refused.value.status, refused.value.code) == (422, "unknown_seat")
    assert refused.value.problems[0].path == "seat"
    api.delete_game(game.id)
    with pytest.raises(CaptainServerError, match="^404 game_not_found: "):
        api.game(game.id)
    assert api.health().games == 0


# ------------------------------------------------------------------ the protocol page's worked example
DOC = Path(__file__).resolve().parents[2] / "docs" / "apps.md"


def doc_block(name: str) -> Any:
    """The JSON block under ``<!-- example: name -->`` in docs/apps.md."""
    found = re.search(rf"<!-- example: {name} -->\n```json\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert found is not None, f"docs/apps.md has no example {name!r}"
    return json.loads(found.group(1))


def test_the_worked_example_of_the_protocol_page_is_what_the_server_answers(client: TestClient) -> None:
    request = doc_block("decide request")
    assert client.post("/v1/decide", json=request).json() == doc_block("decide answer")
    view = new_game(client, position=request["position"], seed=7)
    answer = client.post(f"/v1/games/{view['id']}/captain-moves", json={"captain": request["captain"]}).json()
    shown = doc_block("captain move answer")
    assert {key: answer[key] for key in shown} == shown
    ship = answer["game"]["position"]["ships"][0]
    assert (ship["id"], ship["x"], ship["y"], ship["facing"], ship["health"], ship["moved_forward"]) == (
        "red_0", 7, 2, "NE", 12, True)
    assert answer["game"]["to_move"] == "red_0" and answer["game"]["position"]["phase"] == "attack"
    assert answer["game"]["legal"]["attack"] == ["none", "fire@enemy0", "get_us_out"]


def test_the_readme_sends_the_protocol_pages_request() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    sent = readme.split("## Using a captain from another app", 1)[1].split("-d '", 1)[1].split("'", 1)[0]
    assert json.loads(sent) == doc_block("decide request")


# ------------------------------------------------------------------ the command line
def test_naval_tactics_list_prints_rulesets_scenarios_and_captains(capsys: pytest.CaptureFixture[str]) -> None:
    from naval_tactics.cli import main

    assert main(["list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["id"] for row in rows] == RULESETS
    for row in rows:
        ruleset = get_ruleset(row["id"])
        config = ruleset.load_config()
        assert (row["version"], row["scenarios"], row["default_scenario"]) == (
            ruleset.version, ruleset.scenarios(config), config.default_scenario)
        zoo = [("zoo", "zoo"), *((level, "level") for level in LEVELS)] if has_zoo_captain(row["id"]) else []
        assert [(c["name"], c["kind"]) for c in row["captains"]] == [("random", "random")] + [
            (name, "scripted") for name in scripted_captains(row["id"])] + zoo
    assert main(["list", "--ruleset", "pantheon"]) == 0
    assert capsys.readouterr().out.splitlines()[:4] == [
        "pantheon 1.0", "  scenarios: duel*, mixed_duel, squadron, fleet   (* default)", "  captains:",
        "    random       random    a uniformly random legal value for every component"]


def test_the_command_line_refuses_unknown_choices_and_lists_them(capsys: pytest.CaptureFixture[str]) -> None:
    from naval_tactics.cli import build_parser, main

    with pytest.raises(SystemExit) as stopped:
        main(["list", "--ruleset", "chess"])
    assert stopped.value.code == 2
    refused = capsys.readouterr().err.splitlines()[-1]
    assert "argument --ruleset: invalid choice: 'chess' (choose from" in refused
    assert all(ruleset_id in refused for ruleset_id in RULESETS)
    with pytest.raises(SystemExit):
        main([])
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err
    help_text = build_parser().format_help()
    assert "list" in help_text and "serve" in help_text and f"rulesets: {', '.join(RULESETS)}" in \
        " ".join(help_text.split())
    assert main(["list", "--captains-dir", "/nonexistent/folder"]) == 2
    assert capsys.readouterr().err == "error: captains folder /nonexistent/folder does not exist or is not a folder\n"
