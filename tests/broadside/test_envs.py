"""Gymnasium and PettingZoo conformance on every scenario, seeding, determinism, masks and rendering."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import naval_env
from naval_env.core.errors import IllegalActionError
from naval_env.rulesets import broadside

SCENARIOS = ["sailing_duel", "galley_vs_sailing_ship", "ironclad_vs_galleys", "fleet_with_iceberg"]
GYM_ID = "naval/Broadside-v0"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_gymnasium_checker_passes(scenario):
    check_env(gym.make(GYM_ID, scenario=scenario).unwrapped, skip_render_check=False)


@pytest.mark.parametrize("scenario", ["galley_vs_sailing_ship", "fleet_with_iceberg"])
def test_pettingzoo_aec_api_and_seed(scenario):
    api_test(broadside.env(scenario=scenario), num_cycles=200)
    seed_test(lambda: broadside.env(scenario=scenario), num_cycles=200)


@pytest.mark.parametrize("scenario", ["ironclad_vs_galleys", "fleet_with_iceberg"])
def test_pettingzoo_parallel_api_and_seed(scenario):
    parallel_api_test(broadside.parallel_env(scenario=scenario), num_cycles=200)
    parallel_seed_test(lambda: broadside.parallel_env(scenario=scenario), num_cycles=200)


def test_spaces_are_fixed_per_config_not_per_scenario():
    shapes = {(gym.make(GYM_ID, scenario=s).observation_space.shape,
               tuple(gym.make(GYM_ID, scenario=s).action_space.nvec)) for s in SCENARIOS}
    assert len(shapes) == 1


def play_random(env, seed, steps=300):
    obs, _ = env.reset(seed=seed)
    trace = [obs.copy()]
    env.action_space.seed(seed)
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        trace.append(np.append(obs, [reward, terminated, truncated]))
        if terminated or truncated:
            obs, _info = env.reset()
            trace.append(obs.copy())
    return np.concatenate(trace)


def test_same_seed_same_game_bit_for_bit():
    make = lambda: gym.make(GYM_ID, scenario="fleet_with_iceberg", opponent="rammer")
    a, b, c = play_random(make(), seed=11), play_random(make(), seed=11), play_random(make(), seed=12)
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()


def test_engine_state_same_seed_same_actions():
    ruleset = naval_env.get_ruleset("broadside")
    config = ruleset.load_config()
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    game_a = ruleset.new_game(config, "fleet_with_iceberg", seed=99)
    game_b = ruleset.new_game(config, "fleet_with_iceberg", seed=99)
    while not game_a.is_over:
        agent = game_a.current_agent
        game_a.apply(agent, game_a.action_spec.sample(game_a.legal_mask(agent), rng_a))
        game_b.apply(agent, game_b.action_spec.sample(game_b.legal_mask(agent), rng_b))
        assert game_a.state_dict() == game_b.state_dict()
    assert game_a.dice.history == game_b.dice.history


def test_observations_stay_inside_the_box():
    env = gym.make(GYM_ID, scenario="fleet_with_iceberg", opponent="random")
    low, high = env.observation_space.low, env.observation_space.high
    for seed in range(5):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            assert np.all(obs >= low) and np.all(obs <= high) and np.all(np.isfinite(obs))
            obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
            done = terminated or truncated


def test_observation_spec_names_every_value():
    env = gym.make(GYM_ID)
    spec = env.unwrapped.observation_spec
    assert spec.size == env.observation_space.shape[0]
    names = [f["name"] for f in spec.to_json()]
    assert "self.hull" in names and "enemy0.in_my_arcs" in names and "iceberg1.gap" in names


def test_illegal_action_raise_policy_names_component_and_keeps_state():
    env = gym.make(GYM_ID, illegal_action="raise")
    env.reset(seed=3)
    spec = env.unwrapped.action_spec
    action = spec.noop()
    action[spec.index("melee")] = 2                    # withdraw: not in a MANEUVER decision
    before = env.unwrapped.game.state_dict()
    with pytest.raises(IllegalActionError, match="component 'melee'"):
        env.step(action)
    assert env.unwrapped.game.state_dict() == before


def test_learner_random_plays_both_sides():
    env = gym.make(GYM_ID, learner="random")
    assert {env.reset(seed=s)[1]["learner"] for s in range(20)} == {"red_0", "blue_0"}


def test_render_modes():
    env = gym.make(GYM_ID, render_mode="ansi")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    text = env.render()
    assert "round" in text and "red_0" in text and "blue_0" in text
    rgb = gym.make(GYM_ID, render_mode="rgb_array", scenario="fleet_with_iceberg")
    rgb.reset(seed=0)
    frame = rgb.render()
    assert frame.dtype == np.uint8 and frame.shape == (42 * 8, 60 * 8, 3)


def test_default_opponent_is_the_first_scripted_captain():
    env = gym.make(GYM_ID)
    env.reset(seed=0)
    assert {c.name for c in env.unwrapped.captains.values()} == {"rammer"}
