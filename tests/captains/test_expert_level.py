"""``expert:Nms``: the top difficulty as a search with a thinking time an app sets, by name and on the server."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from naval_agents.captains.base import Decision
from naval_agents.captains.registry import make_captain
from naval_agents.captains.search import SearchCaptain
from naval_agents.captains.zoo.levels import levels_of, parse_timed_expert
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


def test_expert_is_the_zoo_captain_searched_in_every_ruleset() -> None:
    for ruleset_id in ("broadside", "crew_phase", "flotilla", "pantheon", "pursuit"):
        expert = levels_of(ruleset_id).expert
        assert (expert.base, expert.random_share, expert.temperature, expert.search) == ("zoo", 0.0, 0.0, 256)


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
            # it spends the time on a plan it can finish, never far past the time (a plan too small plays the prior)
            assert 0.0 < result.seconds <= 0.06 * 1.5 + 0.05 and result.simulations >= 1
        game.apply(agent, action)
    assert searched == 3


@pytest.fixture
def client() -> TestClient:
    with TestClient(create_app(ServerSettings(max_expert_ms=300), catalogue=CATALOGUE)) as test_client:
        yield test_client


def test_the_server_plays_expert_with_the_time_an_app_asks_for(client: TestClient) -> None:
    game = client.post("/v1/games", json={"ruleset": "pantheon", "seed": 2}).json()
    answer = client.post(f"/v1/games/{game['id']}/captain-moves", json={"captain": "expert:40ms"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["captain"] == "expert:40ms" and answer.json()["applied"]
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


# ------------------------------------------------------------------- a level that searches
def test_a_level_that_searches_plays_the_base_captains_own_moves_only() -> None:
    from naval_agents.captains.zoo.levels import Level

    assert Level(base="zoo", search=64).search == 64
    with pytest.raises(ValueError, match="a level that searches .* temperature 0 and random_share 0"):
        Level(base="zoo", search=64, temperature=1.0)
    with pytest.raises(ValueError, match="less than or equal to 4096"):
        Level(base="zoo", search=5000)


def test_a_searching_level_is_the_root_search_over_the_zoo_network_and_the_server_runs_it_in_its_pool() -> None:
    from naval_agents.captains.search.fast_policy import NumpyActorCaptain
    from naval_agents.captains.zoo.catalogue import load_zoo_captain
    from naval_agents.captains.zoo.levels import Level, level_captain, searching_captain
    from naval_tactics.catalogue import _level_play

    ruleset = get_ruleset("pantheon")
    config = ruleset.load_config()
    zoo = load_zoo_captain("pantheon", config)
    level = Level(base="zoo", search=24)
    captain = level_captain(zoo, level, ruleset.action_spec(config), name="expert", seed=3)
    assert isinstance(captain, SearchCaptain) and captain.simulations == 24 and captain.name == "expert"
    assert isinstance(captain.proposer, NumpyActorCaptain) and captain.rollout is captain.proposer
    game = ruleset.new_game(config, None, seed=1)
    agent = game.current_agent
    decision = Decision(agent, game.observe(agent), game.legal_mask(agent), game)
    first = captain.act(decision)
    again = searching_captain(zoo, 24, None, 3, "expert").act(decision)
    assert np.array_equal(first, again)      # a budget in simulations: the same seed, the same move
    assert "searched with 24 simulations" in _level_play(level)


def test_the_shipped_expert_judges_short_rollouts_with_the_rulesets_value_network() -> None:
    from naval_agents.captains.search.captain import DEFAULT_ROLLOUT_DEPTH, VALUE_ROLLOUT_DEPTH
    from naval_agents.captains.search.evaluators import hull_values
    from naval_agents.captains.search.value_net import ValueLeaf

    for ruleset_id in ("pantheon", "crew_phase"):
        game = get_ruleset(ruleset_id).new_game(get_ruleset(ruleset_id).load_config(), None, seed=1)
        for name in ("expert", "expert:50ms"):
            captain = make_captain(name, ruleset_id, game.action_spec, seed=0)
            assert isinstance(captain, SearchCaptain)
            assert isinstance(captain.leaf, ValueLeaf) and captain.rollout_depth == VALUE_ROLLOUT_DEPTH
            assert captain.leaf.net.observation_size == game.observation_spec.size
    plain = make_captain("search:8", "pantheon", game.action_spec, seed=0)   # search:N keeps its own leaf
    assert isinstance(plain, SearchCaptain) and plain.leaf is hull_values
    assert plain.rollout_depth == DEFAULT_ROLLOUT_DEPTH
