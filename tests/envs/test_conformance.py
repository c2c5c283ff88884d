"""The contract every registered ruleset keeps, checked the same way for each one.

Gymnasium's and PettingZoo's own checkers, spaces fixed per config, observations
inside their box and spec, bit-for-bit determinism of env and engine, events that
round-trip through the catalog, JSON-ready state and clear refusals of bad
arguments. A new ruleset package is picked up here without a line of test code;
its own tests then cover only its rules.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
from functools import cache

import gymnasium as gym
import numpy as np
import pytest
import yaml
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from naval_env.core.config import BUNDLED_CONFIGS
from naval_env.core.errors import ConfigError, GameOverError, IllegalActionError, NotYourTurnError
from naval_env.core.ruleset import get_ruleset, ruleset_ids


@cache
def scenarios(ruleset_id: str) -> tuple[str, ...]:
    ruleset = get_ruleset(ruleset_id)
    return tuple(ruleset.scenarios(ruleset.load_config()))


@cache  # read at collection and by several tests: load the YAML and set up each scenario once
def largest_scenario(ruleset_id: str) -> str:
    """The scenario with the most ships: the one that exercises the most turn-order paths."""
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    return max(scenarios(ruleset_id), key=lambda s: len(ruleset.new_game(config, s, seed=0).agents))


EVERY_SCENARIO = [(r, s) for r in ruleset_ids() for s in scenarios(r)]
DEFAULT_AND_LARGEST = sorted({(r, s) for r in ruleset_ids()
                              for s in (get_ruleset(r).load_config().default_scenario, largest_scenario(r))})


def ruleset_module(ruleset_id: str):
    return importlib.import_module(f"naval_env.rulesets.{ruleset_id}")


@pytest.mark.parametrize(("ruleset_id", "scenario"), EVERY_SCENARIO)
def test_gymnasium_checker_passes(ruleset_id, scenario):
    check_env(gym.make(get_ruleset(ruleset_id).gym_id, scenario=scenario).unwrapped, skip_render_check=False)


@pytest.mark.slow
@pytest.mark.parametrize(("ruleset_id", "scenario"), DEFAULT_AND_LARGEST)
def test_pettingzoo_aec_api_and_seed(ruleset_id, scenario):
    module = ruleset_module(ruleset_id)
    api_test(module.env(scenario=scenario), num_cycles=200)
    seed_test(lambda: module.env(scenario=scenario), num_cycles=200)


@pytest.mark.parametrize(("ruleset_id", "scenario"), DEFAULT_AND_LARGEST)
def test_pettingzoo_parallel_api_and_seed(ruleset_id, scenario):
    module = ruleset_module(ruleset_id)
    parallel_api_test(module.parallel_env(scenario=scenario), num_cycles=200)
    parallel_seed_test(lambda: module.parallel_env(scenario=scenario), num_cycles=200)


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_spaces_are_fixed_per_config_not_per_scenario(ruleset_id):
    """One trained captain plays every scenario of a config."""
    gym_id = get_ruleset(ruleset_id).gym_id
    envs = [gym.make(gym_id, scenario=s) for s in scenarios(ruleset_id)]
    assert len({e.observation_space.shape for e in envs}) == 1
    assert len({tuple(e.action_space.nvec) for e in envs}) == 1


def play_random(env: gym.Env, seed: int, steps: int = 300) -> np.ndarray:
    """Random-legal play; every observation must lie in the box and match the spec."""
    spec = env.unwrapped.observation_spec
    obs, _ = env.reset(seed=seed)
    trace = [obs.copy()]
    env.action_space.seed(seed)
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        assert obs.shape == (spec.size,) and obs.dtype == np.float32
        assert env.observation_space.contains(obs), "observation outside its box"
        trace.append(np.append(obs, [reward, terminated, truncated]))
        if terminated or truncated:
            obs, _ = env.reset()
            trace.append(obs.copy())
    return np.concatenate(trace)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_same_seed_same_game_bit_for_bit(ruleset_id):
    def make() -> gym.Env:
        return gym.make(get_ruleset(ruleset_id).gym_id, scenario=largest_scenario(ruleset_id), learner="random")

    a, b, c = play_random(make(), seed=11), play_random(make(), seed=11), play_random(make(), seed=12)
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()


def random_game(ruleset_id: str, scenario: str, game_seed: int, action_seed: int):
    """A finished random-legal game and the events of every decision, opening events first."""
    ruleset = get_ruleset(ruleset_id)
    game = ruleset.new_game(ruleset.load_config(), scenario, seed=game_seed)
    rng = np.random.default_rng(action_seed)
    events = list(getattr(game, "opening_events", []))
    while not game.is_over:
        agent = game.current_agent
        events += game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
    return game, events


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_engine_state_and_dice_same_seed_same_actions(ruleset_id):
    ruleset = get_ruleset(ruleset_id)
    config, scenario = ruleset.load_config(), largest_scenario(ruleset_id)
    game_a, game_b = ruleset.new_game(config, scenario, seed=99), ruleset.new_game(config, scenario, seed=99)
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    assert game_a.state_dict() == game_b.state_dict()
    while not game_a.is_over:
        agent = game_a.current_agent
        game_a.apply(agent, game_a.action_spec.sample(game_a.legal_mask(agent), rng_a))
        game_b.apply(agent, game_b.action_spec.sample(game_b.legal_mask(agent), rng_b))
        assert game_a.state_dict() == game_b.state_dict()
    assert game_a.dice.history and game_a.dice.history == game_b.dice.history


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_event_class_builds_the_same_by_position_and_keyword_and_stays_frozen(ruleset_id):
    classes = get_ruleset(ruleset_id).events.classes
    assert classes
    for cls in classes:
        fields = dataclasses.fields(cls)
        values = [f"v{i}" for i in range(len(fields))]
        by_position = cls(*values)
        assert by_position == cls(**{f.name: v for f, v in zip(fields, values)})
        assert [getattr(by_position, f.name) for f in fields] == values
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(by_position, fields[0].name, "changed")
        with pytest.raises(TypeError):
            cls(*values, "one too many")


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_events_round_trip_through_the_catalog_and_state_is_json_ready(ruleset_id):
    catalog = get_ruleset(ruleset_id).events
    game, events = random_game(ruleset_id, largest_scenario(ruleset_id), game_seed=3, action_seed=3)
    assert len({type(e) for e in events}) >= 5
    for event in events:
        assert catalog.from_dict(json.loads(json.dumps(event.to_dict()))) == event
        assert event.text()
    dumped = json.dumps(game.state_dict(), sort_keys=True)  # plain JSON types only: no default= hook needed
    assert json.dumps(json.loads(dumped), sort_keys=True) == dumped


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_a_default_scenario_that_is_not_a_scenario_is_refused(ruleset_id, tmp_path):
    ruleset = get_ruleset(ruleset_id)
    data = yaml.safe_load((BUNDLED_CONFIGS / "rulesets" / f"{ruleset_id}.yaml").read_text())
    data["default_scenario"] = "atlantis"
    path = tmp_path / f"{ruleset_id}.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=r"default_scenario 'atlantis' is not a scenario; choose one of \["):
        ruleset.load_config(path)


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_bad_env_arguments_are_refused_clearly(ruleset_id):
    gym_id = get_ruleset(ruleset_id).gym_id
    with pytest.raises(ValueError, match=f"unknown {ruleset_id} scenario 'atlantis'; choose one of"):
        gym.make(gym_id, scenario="atlantis")
    with pytest.raises(ValueError, match="unknown captain 'pirate'"):
        gym.make(gym_id, opponent="pirate")
    with pytest.raises(ValueError, match="learner 'nobody' is not a captain of this scenario"):
        gym.make(gym_id, learner="nobody")
    with pytest.raises(ValueError, match="illegal_action 'ignore' is not one of"):
        gym.make(gym_id, illegal_action="ignore")


@pytest.mark.slow
@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_masked_out_value_is_refused_and_every_allowed_value_accepted(ruleset_id):
    """The mask is the engine's legality, value by value; refusals leave the game untouched."""
    ruleset = get_ruleset(ruleset_id)
    config, scenario = ruleset.load_config(), largest_scenario(ruleset_id)
    check_invariants = importlib.import_module(f"naval_env.rulesets.{ruleset_id}.engine").check_invariants
    spec = ruleset.action_spec(config)
    rng = np.random.default_rng(1)
    checked = seed = 0
    while checked < 4000:
        game = ruleset.new_game(config, scenario, seed=seed)
        seed += 1
        while not game.is_over and checked < 4000:
            agent = game.current_agent
            mask = game.legal_mask(agent)
            base = spec.sample(mask, rng)
            before = game.state_dict()
            for component, (offset, size) in enumerate(zip(spec.offsets, spec.nvec)):
                for value in range(size):
                    action = base.copy()
                    action[component] = value
                    if mask[offset + value]:
                        trial = game.clone()
                        trial.apply(agent, action)  # must not raise
                        check_invariants(trial)
                    else:
                        with pytest.raises(IllegalActionError):
                            game.apply(agent, action)
                    checked += 1
            assert game.state_dict() == before
            other = next(a for a in game.agents if a != agent)
            with pytest.raises(NotYourTurnError):
                game.apply(other, spec.noop())
            game.apply(agent, base)
    finished, _ = random_game(ruleset_id, scenario, game_seed=0, action_seed=0)
    with pytest.raises(GameOverError):
        finished.apply(finished.agents[0], spec.noop())
