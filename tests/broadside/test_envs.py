"""Gymnasium and PettingZoo conformance on every scenario, seeding, determinism, masks and rendering."""

import gymnasium as gym
import numpy as np
import pytest

from naval_env.core.errors import IllegalActionError

SCENARIOS = ["sailing_duel", "galley_vs_sailing_ship", "ironclad_vs_galleys", "fleet_with_iceberg"]
GYM_ID = "naval/Broadside-v0"


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
    assert frame.dtype == np.uint8 and frame.shape == (608, 976, 3)  # the picture: 60 x 42 in at 10 px, the panel


def test_default_opponent_is_the_first_scripted_captain():
    env = gym.make(GYM_ID)
    env.reset(seed=0)
    assert {c.name for c in env.unwrapped.captains.values()} == {"rammer"}
