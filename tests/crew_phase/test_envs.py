"""Gymnasium and PettingZoo conformance for naval/CrewPhase-v0: the libraries' checkers, seeding, determinism."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import naval_env
from naval_env.rulesets import crew_phase

SCENARIOS = ["duel", "nimble_vs_heavy", "two_vs_one"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_gymnasium_checker_passes(scenario):
    check_env(gym.make("naval/CrewPhase-v0", scenario=scenario).unwrapped, skip_render_check=False)


@pytest.mark.parametrize("scenario", ["duel", "two_vs_one"])
def test_pettingzoo_aec_api_and_seed(scenario):
    api_test(crew_phase.env(scenario=scenario), num_cycles=200)
    seed_test(lambda: crew_phase.env(scenario=scenario), num_cycles=200)


@pytest.mark.parametrize("scenario", ["duel", "two_vs_one"])
def test_pettingzoo_parallel_api_and_seed(scenario):
    parallel_api_test(crew_phase.parallel_env(scenario=scenario), num_cycles=200)
    parallel_seed_test(lambda: crew_phase.parallel_env(scenario=scenario), num_cycles=200)


def test_registered_with_spaces_fixed_per_config():
    ruleset = naval_env.get_ruleset("crew_phase")
    assert ruleset.gym_id == "naval/CrewPhase-v0" and ruleset.version == "1.0"
    shapes = {(gym.make("naval/CrewPhase-v0", scenario=s).observation_space.shape,
               tuple(gym.make("naval/CrewPhase-v0", scenario=s).action_space.nvec)) for s in SCENARIOS}
    assert len(shapes) == 1                                  # one trained captain plays every scenario


def test_observation_stays_in_bounds_and_matches_its_spec():
    env = gym.make("naval/CrewPhase-v0", scenario="two_vs_one", learner="red_1")
    obs, _ = env.reset(seed=2)
    spec = env.unwrapped.observation_spec
    assert obs.shape == (spec.size,) and obs.dtype == np.float32
    env.action_space.seed(2)
    for _ in range(300):
        obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
        assert np.all(np.abs(obs) <= 10)
        if terminated or truncated:
            obs, _ = env.reset()


def play_random(env, seed, steps=300):
    obs, _ = env.reset(seed=seed)
    trace = [obs.copy()]
    env.action_space.seed(seed)
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        trace.append(np.append(obs, [reward, terminated, truncated]))
        if terminated or truncated:
            obs, _ = env.reset()
            trace.append(obs.copy())
    return np.concatenate(trace)


def test_same_seed_same_game_bit_for_bit():
    a = play_random(gym.make("naval/CrewPhase-v0", scenario="duel", opponent="gunner"), seed=11)
    b = play_random(gym.make("naval/CrewPhase-v0", scenario="duel", opponent="gunner"), seed=11)
    c = play_random(gym.make("naval/CrewPhase-v0", scenario="duel", opponent="gunner"), seed=12)
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()


def test_engine_state_same_seed_same_actions():
    ruleset = naval_env.get_ruleset("crew_phase")
    config = ruleset.load_config()
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    game_a, game_b = ruleset.new_game(config, "two_vs_one", seed=99), ruleset.new_game(config, "two_vs_one", seed=99)
    while not game_a.is_over:
        agent = game_a.current_agent
        game_a.apply(agent, game_a.action_spec.sample(game_a.legal_mask(agent), rng_a))
        game_b.apply(agent, game_b.action_spec.sample(game_b.legal_mask(agent), rng_b))
        assert game_a.state_dict() == game_b.state_dict()
    assert game_a.dice.history == game_b.dice.history


def test_events_round_trip_through_the_catalog():
    ruleset = naval_env.get_ruleset("crew_phase")
    config = ruleset.load_config()
    game = ruleset.new_game(config, "duel", seed=3)
    rng = np.random.default_rng(3)
    events = list(game.opening_events)
    while not game.is_over:
        agent = game.current_agent
        events += game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
    assert len({type(e) for e in events}) >= 8
    for event in events:
        assert ruleset.events.from_dict(event.to_dict()) == event
        assert event.text()


def test_render_modes():
    env = gym.make("naval/CrewPhase-v0", render_mode="ansi")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    text = env.render()
    assert "round" in text and "red_0" in text and "blue_0" in text
    rgb = gym.make("naval/CrewPhase-v0", render_mode="rgb_array")
    rgb.reset(seed=0)
    frame = rgb.render()
    assert frame.dtype == np.uint8 and frame.shape == (24 * 16, 24 * 16, 3)


def test_state_dict_is_json_ready():
    import json

    game = naval_env.get_ruleset("crew_phase").new_game(naval_env.get_ruleset("crew_phase").load_config(), seed=1)
    assert json.loads(json.dumps(game.state_dict()))["ships"]["red_0"]["max_hp"] == 60


def test_bad_env_arguments_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown crew_phase scenario 'armada'"):
        gym.make("naval/CrewPhase-v0", scenario="armada")
    with pytest.raises(ValueError, match="unknown captain 'pirate'"):
        gym.make("naval/CrewPhase-v0", opponent="pirate")
