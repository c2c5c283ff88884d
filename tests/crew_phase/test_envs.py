"""Gymnasium and PettingZoo conformance for naval/CrewPhase-v0: the libraries' checkers, seeding, determinism."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import naval_env

SCENARIOS = ["duel", "nimble_vs_heavy", "two_vs_one"]


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


def test_render_modes():
    env = gym.make("naval/CrewPhase-v0", render_mode="ansi")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    text = env.render()
    assert "round" in text and "red_0" in text and "blue_0" in text
    rgb = gym.make("naval/CrewPhase-v0", render_mode="rgb_array")
    rgb.reset(seed=0)
    frame = rgb.render()
    assert frame.dtype == np.uint8 and frame.shape == (640, 976, 3)  # the picture: 24 x 24 squares, the panel


def test_state_dict_is_json_ready():
    import json

    game = naval_env.get_ruleset("crew_phase").new_game(naval_env.get_ruleset("crew_phase").load_config(), seed=1)
    assert json.loads(json.dumps(game.state_dict()))["ships"]["red_0"]["max_hp"] == 60
