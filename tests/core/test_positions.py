"""The position contract on every registered ruleset: dump, load, round-trip, play on identically.

Each ruleset's own ``tests/<id>/test_position.py`` checks its fields, short forms and refusals;
this file checks what every ruleset promises, with no per-ruleset code.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from naval_env.core.position import PositionError
from naval_env.core.ruleset import get_ruleset, ruleset_ids

RULESETS = ruleset_ids()


def scenarios_of(ruleset_id: str) -> list[tuple[str, str]]:
    ruleset = get_ruleset(ruleset_id)
    return [(ruleset_id, s) for s in ruleset.scenarios(ruleset.load_config())]


ALL_SCENARIOS = [pair for rid in RULESETS for pair in scenarios_of(rid)]


def random_positions(ruleset_id: str, scenario: str, seed: int, every: int = 7):
    """Yield (game, position) at every ``every``-th decision of a random legal game, to its end."""
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    game = ruleset.new_game(config, scenario, seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while True:
        if step % every == 0 or game.is_over:
            yield game, game.position()
        if game.is_over:
            return
        agent = game.current_agent
        game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
        step += 1


def assert_same_game(a, b) -> None:
    assert b.position() == a.position()
    assert b.state_dict() == a.state_dict()
    assert b.current_agent == a.current_agent and b.is_over == a.is_over and b.winner == a.winner
    assert b.round == a.round and b.truncated == a.truncated
    for agent in a.agents:
        np.testing.assert_array_equal(b.legal_mask(agent), a.legal_mask(agent))
        np.testing.assert_array_equal(b.observe(agent), a.observe(agent))


@pytest.mark.parametrize(("ruleset_id", "scenario"), ALL_SCENARIOS)
def test_positions_round_trip_and_play_on_identically(ruleset_id: str, scenario: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    checked = 0
    for game, position in random_positions(ruleset_id, scenario, seed=11):
        json.dumps(position)  # JSON-ready
        loaded = ruleset.load_position(position, config, dice=copy.deepcopy(game.dice))
        assert loaded.position() == position
        assert_same_game(game, loaded)
        # Both play on identically with the same dice: ten more random legal decisions each.
        original = game.clone()
        rng_a, rng_b = np.random.default_rng(checked), np.random.default_rng(checked)
        for _ in range(10):
            if original.is_over:
                break
            agent = original.current_agent
            events_a = original.apply(agent, original.action_spec.sample(original.legal_mask(agent), rng_a))
            events_b = loaded.apply(agent, loaded.action_spec.sample(loaded.legal_mask(agent), rng_b))
            assert events_b == events_a
            assert_same_game(original, loaded)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_position_schema_is_generated_and_accepts_real_positions(ruleset_id: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    schema = ruleset.position_schema()
    assert schema == ruleset.positions.model.model_json_schema()
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    for _, position in random_positions(ruleset_id, ruleset.load_config().default_scenario, seed=3, every=25):
        assert list(validator.iter_errors(position)) == []
        assert position["ruleset"] == ruleset_id
        assert position["version"] == ruleset.version


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_position_is_refused_whole_with_the_path_of_each_bad_field(ruleset_id: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    position = ruleset.new_game(ruleset.load_config(), seed=0).position()
    with pytest.raises(PositionError, match="a position is a JSON object"):
        ruleset.load_position([position])
    with pytest.raises(PositionError) as refused:
        ruleset.load_position({**position, "tide": "high"})
    assert [p.path for p in refused.value.problems] == ["tide"]
    assert "allowed here" in refused.value.problems[0].message
    with pytest.raises(PositionError) as refused:
        ruleset.load_position({**position, "version": "0.0-not-this"})
    assert refused.value.problems[0].path == "version"
    assert ruleset.version in refused.value.problems[0].message
    with pytest.raises(PositionError) as refused:
        ruleset.load_position({**position, "ruleset": "chess"})
    assert refused.value.problems[0].path == "ruleset"
    no_ships = {k: v for k, v in position.items() if k != "ships"}
    with pytest.raises(PositionError) as refused:
        ruleset.load_position(no_ships)
    assert [p.path for p in refused.value.problems] == ["ships"]
    assert refused.value.problems[0].message == "required field is missing"


@pytest.mark.parametrize(("ruleset_id", "where", "field", "unit", "lowest"), [
    ("broadside", None, "hull", "hull points", "0 (sunk)"),
    ("crew_phase", "crew", "hp", "hit points", "0"),
    ("crew_phase", "weapons", "hp", "hit points", "0"),
])
def test_points_above_their_maximum_are_refused_with_the_maximum(ruleset_id: str, where: str | None, field: str,
                                                                 unit: str, lowest: str) -> None:
    """The shared check (``position_checks.points_up_to``): points left out default to the maximum given."""
    ruleset = get_ruleset(ruleset_id)
    position = copy.deepcopy(ruleset.new_game(ruleset.load_config(), seed=0).position())
    part = position["ships"][0] if where is None else position["ships"][0][where][0]
    part[field], part[f"max_{field}"] = 7, 5
    path = "ships.0" if where is None else f"ships.0.{where}.0"
    with pytest.raises(PositionError) as refused:
        ruleset.load_position(position)
    assert (f"{path}.{field}", f"7 {unit}; from {lowest} to the maximum 5") in [
        (p.path, p.message) for p in refused.value.problems]
    del part[field]
    loaded = ruleset.load_position(position).position()["ships"][0]
    assert (loaded if where is None else loaded[where][0])[field] == 5
