"""Gymnasium and PettingZoo conformance of naval/Pursuit-v0, seeding and bit-for-bit determinism."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import naval_env
from naval_env.core.errors import IllegalActionError
from naval_env.core.events import EventCatalog

SCENARIOS = ["duel", "chase", "uneven"]


def test_observations_stay_within_bounds_and_match_the_spec():
    env = gym.make("naval/Pursuit-v0", scenario="uneven", learner="random", opponent="random")
    spec = env.unwrapped.observation_spec
    obs, _ = env.reset(seed=1)
    env.action_space.seed(1)
    for _ in range(400):
        assert obs.shape == (spec.size,) and obs.dtype == np.float32
        assert np.all(np.abs(obs) <= 10.0)
        obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            obs, _ = env.reset()


def test_mask_in_info_has_the_sb3_layout_and_every_component_allows_its_noop():
    env = gym.make("naval/Pursuit-v0")
    _, info = env.reset(seed=0)
    spec = env.unwrapped.action_spec
    mask = env.unwrapped.action_masks()
    assert mask.dtype == bool and mask.shape == (int(spec.nvec.sum()),)
    assert np.array_equal(mask, info["action_mask"])
    assert all(part[0] for part in spec.split(mask))


def test_illegal_action_raise_policy_names_the_component():
    env = gym.make("naval/Pursuit-v0", illegal_action="raise")
    env.reset(seed=3)
    spec = env.unwrapped.action_spec
    action = spec.noop()
    action[spec.index("maneuver")] = 7                 # ram@enemy0: far out of reach in the COMMAND phase
    before = env.unwrapped.game.state_dict()
    with pytest.raises(IllegalActionError, match="component 'maneuver'"):
        env.step(action)
    assert env.unwrapped.game.state_dict() == before


def test_events_round_trip_through_json():
    catalog: EventCatalog = naval_env.get_ruleset("pursuit").events
    env = gym.make("naval/Pursuit-v0", scenario="uneven", opponent="random", learner="random")
    env.reset(seed=2)
    env.action_space.seed(2)
    seen = 0
    for _ in range(300):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        for event in env.unwrapped.events:
            assert catalog.from_dict(event.to_dict()) == event
            seen += 1
        if terminated or truncated:
            env.reset()
    assert seen > 300


def test_render_modes():
    env = gym.make("naval/Pursuit-v0", render_mode="ansi")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    text = env.render()
    assert "round" in text and "red_0" in text and "blue_0" in text
    rgb = gym.make("naval/Pursuit-v0", scenario="chase", render_mode="rgb_array")
    rgb.reset(seed=0)
    frame = rgb.render()
    assert frame.dtype == np.uint8 and frame.shape == (512, 976, 3)  # sea plot, range ladder, panel


def test_learner_random_plays_both_sides_and_the_default_opponent_is_the_hunter():
    env = gym.make("naval/Pursuit-v0", learner="random")
    assert {env.reset(seed=s)[1]["learner"] for s in range(20)} == {"red_0", "blue_0"}
    assert {type(c).__name__ for c in env.unwrapped.captains.values()} == {"HunterCaptain"}
