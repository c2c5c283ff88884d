"""Positions under mutation, in every ruleset: a seeded generator takes real positions (full forms from
random games, and their short forms) and changes one to three fields at random (a number nudged, pushed
to an extreme or made non-finite, a string or a boolean swapped, a key dropped or added, a list item
copied or dropped). Every case either is refused with a :class:`PositionError` (small, printable, JSON)
or loads to a game whose position dumps to strict JSON, loads again to the same game, and observes to
finite numbers, and is then played to its end by a seeded random captain with ``position()`` at every decision
(every state the game reaches from a position it accepts is one its position model holds: issue 43). Nothing else
may happen: no other exception, no hang, no non-finite observation."""

from __future__ import annotations

import copy
import json
import math
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from naval_env.core.position import MAX_PROBLEMS, PositionError
from naval_env.core.ruleset import get_ruleset, ruleset_ids

RULESETS = ruleset_ids()
CASES = 1500  # mutated positions per ruleset (a few seconds each on one core)

#: Values a mutation may put in place of a number, a string or anything.
EXTREMES: list[Any] = [0, -1, 1, 2, 7, 64, 1000, 2**31, 2**64, -(2**64), 1e30, -1e30, 0.5, math.inf, -math.inf,
                       math.nan, True, False, None, "", "4", "red_0", "blue_1", "\ud800", "x" * 100, [], {}]


def base_positions(ruleset_id: str) -> list[dict[str, Any]]:
    """Full forms along random games in every scenario, and short forms of some (the required ship fields;
    not every one of those is a position the rules allow)."""
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    found = []
    for scenario in ruleset.scenarios(config):
        game = ruleset.new_game(config, scenario, seed=5)
        rng = np.random.default_rng(5)
        for step in range(400):
            if step % 40 == 0 or game.is_over:
                found.append(game.position())
            if game.is_over:
                break
            agent = game.current_agent
            assert agent is not None
            game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
    required = set(ruleset.positions.model.model_json_schema()["$defs"]["ShipPosition"]["required"])
    shorts = [{**{k: v for k, v in p.items() if k in ("ruleset", "scenario", "round", "phase", "order")},
               "ships": [{k: v for k, v in s.items() if k in required} for s in p["ships"]]} for p in found[::3]]
    return found + shorts


def paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value (the root included)."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from paths(item, (*path, i))


def at(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def mutate(position: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``position`` with one field changed (a copy)."""
    data = copy.deepcopy(position)
    path = rng.choice(list(paths(data))[1:])
    parent, key = at(data, path[:-1]), path[-1]
    old = parent[key]
    kind = rng.random()
    if kind < 0.15 and isinstance(parent, dict):
        del parent[key]
    elif kind < 0.25 and isinstance(parent, list):
        parent.insert(rng.randrange(len(parent) + 1), copy.deepcopy(old) if rng.random() < 0.7 else parent.pop())
    elif kind < 0.3 and isinstance(parent, dict):
        parent[rng.choice(["tide", "x", "id", "to_move", "\ud800", "order"])] = rng.choice(EXTREMES)
    elif isinstance(old, bool):
        parent[key] = rng.choice([not old, 0, 1, "true", None])
    elif isinstance(old, (int, float)):
        nudged = old + rng.choice([-2, -1, 1, 2, 10])
        parent[key] = nudged if rng.random() < 0.5 else rng.choice(EXTREMES)
    elif isinstance(old, str):
        strings = [v for _, v in _strings(position)]
        parent[key] = rng.choice(strings) if rng.random() < 0.6 else rng.choice(EXTREMES)
    else:
        parent[key] = rng.choice(EXTREMES)
    return data


def _strings(value: Any) -> Iterator[tuple[tuple[Any, ...], str]]:
    for path in paths(value):
        found = at(value, path)
        if isinstance(found, str):
            yield path, found


def check_refusal(error: PositionError) -> None:
    assert 1 <= len(error.problems) <= MAX_PROBLEMS + 1
    json.dumps(error.to_json(), allow_nan=False).encode("utf-8")
    str(error).encode("utf-8")


def check_loaded(ruleset_id: str, game: Any, config: Any) -> None:
    ruleset = get_ruleset(ruleset_id)
    position = game.position()
    text = json.dumps(position, allow_nan=False)  # strict JSON: no NaN or infinity
    again = ruleset.load_position(json.loads(text), config, dice=copy.deepcopy(game.dice))
    assert again.position() == position
    assert again.state_dict() == game.state_dict()
    assert again.current_agent == game.current_agent and again.is_over == game.is_over
    for agent in game.agents:
        observation = game.observe(agent)
        assert np.isfinite(observation).all(), agent
        np.testing.assert_array_equal(again.observe(agent), observation)
        np.testing.assert_array_equal(again.legal_mask(agent), game.legal_mask(agent))


def play_to_the_end(ruleset_id: str, game: Any, config: Any, seed: int) -> int:
    """Random legal moves to the end of the game, ``position()`` (validated by the model) at every decision and
    a reload of the last one; returns the decisions played."""
    rng = np.random.default_rng(seed)
    decisions = 0
    while not game.is_over:
        game.position()
        agent = game.current_agent
        assert agent is not None
        game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
        decisions += 1
    final = game.position()
    assert get_ruleset(ruleset_id).load_position(final, config, seed=seed).position() == final
    return decisions


@pytest.mark.parametrize("ruleset_id", RULESETS)
@pytest.mark.slow
def test_mutated_positions_are_refused_cleanly_or_round_trip_exactly(ruleset_id: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    bases = base_positions(ruleset_id)
    rng = random.Random(f"positions:{ruleset_id}")
    outcomes = {"refused": 0, "loaded": 0, "decisions": 0}
    for case in range(CASES):
        data = rng.choice(bases)
        for _ in range(rng.choice([1, 1, 2, 3])):
            data = mutate(data, rng)
        try:
            game = ruleset.load_position(data, config, seed=case)
        except PositionError as error:
            check_refusal(error)
            outcomes["refused"] += 1
            continue
        check_loaded(ruleset_id, game, config)
        outcomes["loaded"] += 1
        outcomes["decisions"] += play_to_the_end(ruleset_id, game, config, case)
    # Both sides of the contract are exercised: many mutants load, many are refused.
    assert outcomes["loaded"] >= CASES // 20 and outcomes["refused"] >= CASES // 4, outcomes
    assert outcomes["decisions"] >= 10 * outcomes["loaded"], outcomes  # the loaded games were played on


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_every_base_position_round_trips_through_strict_json(ruleset_id: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    full_forms = [data for data in base_positions(ruleset_id) if "version" in data]
    assert len(full_forms) >= 5
    for seed, data in enumerate(full_forms):
        check_loaded(ruleset_id, ruleset.load_position(data, config, seed=seed), config)
