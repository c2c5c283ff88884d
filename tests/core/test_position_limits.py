"""Every position field is bounded by the rules, strict and finite, checked before any work that grows
with it: the probes' reproductions (issue 33) each answer a clean refusal naming the field, in the
loader and over HTTP, and no schema default is one the loader refuses."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from naval_env.core.position import MAX_PROBLEMS, PositionError
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app
from tests.helpers import replaced

RULESETS = ruleset_ids()


def start(ruleset_id: str, seed: int = 0) -> dict[str, Any]:
    """The full-form position of a new game in the default scenario."""
    ruleset = get_ruleset(ruleset_id)
    return ruleset.new_game(ruleset.load_config(), seed=seed).position()


def refusal(ruleset_id: str, data: Any) -> dict[str, str]:
    """path -> message of each problem; the refusal itself must be printable as JSON (UTF-8)."""
    with pytest.raises(PositionError) as caught:
        get_ruleset(ruleset_id).load_position(data, seed=0)
    str(caught.value).encode("utf-8")
    json.dumps(caught.value.to_json(), allow_nan=False).encode("utf-8")
    assert len(caught.value.problems) <= MAX_PROBLEMS + 1
    return {p.path: p.message for p in caught.value.problems}


def with_ship(position: dict[str, Any], k: int, **fields: Any) -> dict[str, Any]:
    ships = [dict(s) for s in position["ships"]]
    ships[k].update(fields)
    return {**position, "ships": ships}


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, value) of every number, string and boolean in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from leaves(item, (*path, i))
    else:
        yield path, value



# ------------------------------------------------------------------ the probes' reproductions
def test_a_pursuit_bane_pool_of_ten_million_is_refused() -> None:
    problems = refusal("pursuit", with_ship(start("pursuit"), 0, maneuver_banes=10_000_000))
    assert "ships.0.maneuver_banes" in problems and "10000000" in problems["ships.0.maneuver_banes"]


@pytest.mark.parametrize("people", ["archers", "crew", "marines"])
def test_broadside_crowds_of_millions_are_refused(people: str) -> None:
    problems = refusal("broadside", with_ship(start("broadside"), 0, **{people: 3_000_000}))
    assert f"ships.0.{people}" in problems


def test_a_thousand_copies_of_one_iceberg_are_refused_as_one_problem() -> None:
    berg = {"x": 20.0, "y": 20.0, "heading": 0.0, "length": 4.0, "beam": 3.0}
    problems = refusal("broadside", {**start("broadside"), "icebergs": [berg] * 1000})
    assert list(problems) == ["icebergs"] and "at most 4" in problems["icebergs"]


def test_more_icebergs_than_the_house_rules_allow_are_refused_before_any_pair_is_compared() -> None:
    berg = {"x": 20.0, "y": 20.0, "heading": 0.0, "length": 4.0, "beam": 3.0}
    problems = refusal("broadside", {**start("broadside"), "icebergs": [berg] * 3})
    assert list(problems) == ["icebergs"] and "max_icebergs = 2" in problems["icebergs"]


@pytest.mark.parametrize("section", [2**64, 2**33])
def test_a_navigation_section_past_the_ships_is_refused_without_building_it(section: int) -> None:
    problems = refusal("crew_phase", with_ship(start("crew_phase"), 0, sections_navigated=[section]))
    assert "ships.0.sections_navigated.0" in problems


@pytest.mark.parametrize("turn", [2, 7, 2**64])
def test_a_pursuit_turn_past_the_last_ship_with_to_move_set_is_refused(turn: int) -> None:
    problems = refusal("pursuit", {**start("pursuit"), "to_move": "red_0", "turn": turn})
    assert "turn" in problems


def test_a_finished_flotilla_game_with_turn_at_the_end_and_to_move_set_is_refused() -> None:
    position = start("flotilla")
    ships = [s["id"] for s in position["ships"]]
    finished = {**position, "phase": "move", "round": 3, "order": ships, "turn": len(ships), "to_move": ships[0],
                "result": {"winner": None, "reason": "round_limit"}}
    assert "to_move" in refusal("flotilla", finished)


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_lone_surrogate_or_a_control_character_in_any_name_is_refused(ruleset_id: str) -> None:
    position = start(ruleset_id)
    texts = [path for path, value in leaves(position) if isinstance(value, str) and path != ("ruleset",)]
    assert len(texts) >= 4
    for path in texts:
        for bad in ("\ud800", "red\x00_0", "a" * 65):
            assert refusal(ruleset_id, replaced(position, path, bad)), path


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.slow
def test_huge_or_non_finite_numbers_in_any_field_are_refused(ruleset_id: str) -> None:
    position = start(ruleset_id)
    numbers = [path for path, value in leaves(position)
               if isinstance(value, (int, float)) and not isinstance(value, bool)]
    assert len(numbers) >= 10
    for path in numbers:
        for bad in (2**64, -(2**64), 1e30, 1e100, math.inf, -math.inf, math.nan):
            problems = refusal(ruleset_id, replaced(position, path, bad))
            assert ".".join(map(str, path)) in problems, (path, bad, problems)


def test_pantheon_max_health_of_1e100_never_reaches_the_observation() -> None:
    assert "ships.0.max_health" in refusal("pantheon", with_ship(start("pantheon"), 0, max_health=1e100))
    assert "ships.0.max_health" in refusal("pantheon", with_ship(start("pantheon"), 0, max_health=10**100))


@pytest.mark.parametrize(("field", "bad"), [("y", math.nan), ("x", math.inf), ("x", -math.inf)])
def test_broadside_coordinates_are_finite(field: str, bad: float) -> None:
    problems = refusal("broadside", with_ship(start("broadside"), 0, **{field: bad}))
    assert list(problems) == [f"ships.0.{field}"] and "finite" in problems[f"ships.0.{field}"]


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.slow
def test_numbers_and_booleans_are_never_coerced(ruleset_id: str) -> None:
    position = start(ruleset_id)
    for path, value in leaves(position):
        if isinstance(value, bool):
            wrong: list[Any] = [0, 1, "true"]
        elif isinstance(value, int):
            wrong = [str(value), True, float(value) + 0.5]
        elif isinstance(value, float):
            wrong = [str(value), False]
        else:
            continue
        for bad in wrong:
            problems = refusal(ruleset_id, replaced(position, path, bad))
            assert ".".join(map(str, path)) in problems, (path, bad, problems)


# ------------------------------------------------------------------ defaults a typed client sends
@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_schema_default_sent_explicitly_is_accepted(ruleset_id: str) -> None:
    """A generated client sends each field it has, defaults included: no default may be refused. The
    short form with every field the model knows filled in with its default loads as the short form does."""
    ruleset = get_ruleset(ruleset_id)
    position = start(ruleset_id)
    short: dict[str, Any] = {key: position[key] for key in ("ruleset", "scenario", "round", "phase", "order") if key in position}
    short["ships"] = [{key: ship[key] for key in ship if key in _REQUIRED[ruleset_id]} for ship in position["ships"]]
    filled = ruleset.positions.model.model_validate(short).model_dump(mode="json")
    assert ruleset.load_position(filled, seed=1).position() == ruleset.load_position(short, seed=1).position()


_REQUIRED = {
    "broadside": {"id", "vessel", "x", "y", "heading"},
    "crew_phase": {"id", "vessel", "x", "y"},
    "flotilla": {"id", "ship_class", "x", "y", "facing"},
    "pantheon": {"id", "vessel", "x", "y", "facing"},
    "pursuit": {"id", "ship_class", "x", "y"},
}


def test_the_pantheon_schema_declares_no_refused_default() -> None:
    ship = get_ruleset("pantheon").position_schema()["$defs"]["ShipPosition"]["properties"]
    assert ship["last_turn_began"]["default"] is None


# ------------------------------------------------------------------ over HTTP
@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(ServerSettings(), catalogue=Catalogue.load()), raise_server_exceptions=False) as c:
        yield c


def error_of(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code
    return dict(body["error"])


@pytest.mark.parametrize("seed", [False, True, "1", 1.5])
def test_a_seed_that_is_not_a_whole_number_is_refused(client: TestClient, seed: Any) -> None:
    error = error_of(client.post("/v1/games", json={"ruleset": "pantheon", "seed": seed}), 422, "invalid_request")
    assert [p["path"] for p in error["problems"]] == ["seed"]


def test_a_coordinate_given_as_a_string_is_refused(client: TestClient) -> None:
    position = with_ship(start("pantheon"), 0, x="4")
    error = error_of(client.post("/v1/decide", json={"ruleset": "pantheon", "position": position,
                                                     "captain": "random"}), 422, "invalid_position")
    assert [p["path"] for p in error["problems"]] == ["position.ships.0.x"]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_lone_surrogate_over_http_is_a_clean_422(client: TestClient, ruleset_id: str) -> None:
    position = start(ruleset_id)
    body = json.dumps({"ruleset": ruleset_id, "position": with_ship(position, 0, id="\ud800"),
                       "captain": "random"})  # ensure_ascii: the JSON text says \ud800
    assert "\\ud800" in body
    response = client.post("/v1/decide", content=body, headers={"content-type": "application/json"})
    error = error_of(response, 422, "invalid_position")
    assert "position.ships.0.id" in [p["path"] for p in error["problems"]]
    key = json.dumps({"ruleset": ruleset_id, "position": {**position, "\ud800": 1}, "captain": "random"})
    response = client.post("/v1/decide", content=key, headers={"content-type": "application/json"})
    assert error_of(response, 422, "invalid_position")["problems"][0]["path"].startswith("position")


def test_nan_in_a_request_body_is_refused_naming_the_field(client: TestClient) -> None:
    position = json.dumps(with_ship(start("broadside"), 0, y=math.nan))
    assert "NaN" in position
    body = '{"ruleset": "broadside", "captain": "random", "position": ' + position + "}"
    response = client.post("/v1/decide", content=body, headers={"content-type": "application/json"})
    error = error_of(response, 422, "invalid_position")
    assert [p["path"] for p in error["problems"]] == ["position.ships.0.y"]
    json.loads(response.text)  # strict JSON back


def test_a_huge_position_is_refused_with_a_small_answer(client: TestClient) -> None:
    berg = {"x": 20.0, "y": 20.0, "heading": 0.0, "length": 4.0, "beam": 3.0}
    position = {**start("broadside"), "icebergs": [berg] * 1000}
    response = client.post("/v1/decide", json={"ruleset": "broadside", "position": position, "captain": "random"})
    error_of(response, 422, "invalid_position")
    assert len(response.content) < 2_000


@pytest.mark.parametrize(("route", "body", "path"), [
    ("/v1/decide", {"ruleset": "pantheon", "captain": "\ud800"}, "captain"),
    ("/v1/decide", {"ruleset": "\ud800", "captain": "random"}, "ruleset"),
    ("/v1/decide", {"ruleset": "pantheon", "captain": "random", "seat": "\ud800"}, "seat"),
    ("/v1/games", {"ruleset": "pantheon", "scenario": "\ud800"}, "scenario"),
])
def test_a_lone_surrogate_in_any_request_name_is_a_422_naming_it(client: TestClient, route: str,
                                                                 body: dict[str, Any], path: str) -> None:
    if route == "/v1/decide":
        body = {"position": start("pantheon"), **body}
    response = client.post(route, content=json.dumps(body), headers={"content-type": "application/json"})
    assert [p["path"] for p in error_of(response, 422, "invalid_request")["problems"]] == [path]


def test_a_lone_surrogate_in_a_move_is_a_422(client: TestClient) -> None:
    game = client.post("/v1/games", json={"ruleset": "pantheon", "seed": 1}).json()
    for move in ({"\ud800": "none"}, {"crew_0": "\ud800"}):
        body = json.dumps({"seat": game["to_move"], "move": move})
        response = client.post(f"/v1/games/{game['id']}/moves", content=body,
                               headers={"content-type": "application/json"})
        error_of(response, 422, "invalid_request")
