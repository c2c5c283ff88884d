"""``expert:Nms``: the top difficulty as a search with a thinking time an app sets, by name and on the server."""

from __future__ import annotations

import time

import numpy as np
import pytest
from fastapi.testclient import TestClient

from agents.base import Decision
from agents.registry import make_captain
from agents.search import SearchCaptain
from agents.zoo.levels import levels_of, parse_timed_expert
from naval_env.core.ruleset import get_ruleset
from naval_tactics.catalogue import Catalogue
from naval_tactics.server import ServerSettings, create_app

CATALOGUE = Catalogue.load(ruleset_filter=["pantheon"], max_expert_ms=300)


def test_the_time_is_read_from_the_name_and_a_bad_one_names_the_form_and_range() -> None:
    assert parse_timed_expert("expert:500ms") == 500.0
    for bad in ("expert:0ms", "expert:fast", "expert:500", "expert:-5ms"):
        with pytest.raises(ValueError, match=r"write expert:Nms .* 1 to 600000"):
            parse_timed_expert(bad)
    with pytest.raises(ValueError, match="1 to 300 "):
        parse_timed_expert("expert:301ms", max_ms=300)


def test_the_calibrated_expert_is_unchanged() -> None:
    expert = levels_of("pantheon").expert
    assert (expert.base, expert.random_share, expert.temperature) == ("zoo", 0.0, 0.0)


def test_expert_with_a_time_is_a_search_that_tries_the_zoo_captains_move_and_thinks_that_long() -> None:
    ruleset = get_ruleset("pantheon")
    game = ruleset.new_game(ruleset.load_config(), None, seed=1)
    captain = make_captain("expert:60ms", "pantheon", game.action_spec, seed=0)
    assert isinstance(captain, SearchCaptain) and captain.name == "expert:60ms"
    assert captain.time_budget_ms == 60.0 and captain.simulations is None
    assert captain.proposer is not None and captain.proposer.needs_observation   # the zoo's ONNX policy
    searched = 0
    while not game.is_over and searched < 3:
        agent = game.current_agent
        mask = game.legal_mask(agent)
        action = captain.act(Decision(agent, np.zeros(0, np.float32), mask, game))
        result = captain.last_result
        assert result is not None
        if result.simulations:
            searched += 1
            assert 0.06 <= result.seconds < 1.0 and result.simulations >= 1
        game.apply(agent, action)
    assert searched == 3


@pytest.fixture
def client() -> TestClient:
    with TestClient(create_app(ServerSettings(max_expert_ms=300), catalogue=CATALOGUE)) as test_client:
        yield test_client


def test_the_server_plays_expert_with_the_time_an_app_asks_for(client: TestClient) -> None:
    game = client.post("/v1/games", json={"ruleset": "pantheon", "seed": 2}).json()
    started = time.perf_counter()
    answer = client.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": "expert:40ms"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["captain"] == "expert:40ms" and answer.json()["applied"]
    assert time.perf_counter() - started >= 0.04
    expert = next(c for c in client.get("/v1/rulesets/pantheon").json()["captains"] if c["name"] == "expert")
    assert "expert:Nms (N from 1 to 300)" in expert["description"]
    decided = client.post("/v1/decide", json={"ruleset": "pantheon", "captain": "expert:20ms", "seed": 1,
                                              "position": answer.json()["game"]["position"]})
    assert decided.status_code == 200, decided.text


def test_the_server_refuses_a_time_over_its_limit_naming_the_range(client: TestClient) -> None:
    game = client.post("/v1/games", json={"ruleset": "pantheon", "seed": 2}).json()
    answer = client.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": "expert:301ms"})
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "unknown_captain"
    assert "expert:Nms (N from 1 to 300)" in error["details"]["allowed"]
    assert client.get(f"/v1/games/{game['id']}").json()["position"] == game["position"]
