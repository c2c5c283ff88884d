"""Gymnasium and PettingZoo conformance on naval/Flotilla-v0: the libraries' checkers, seeding, masks,
reactions handed to the defending captain, and same-seed determinism."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from naval_env.core.errors import IllegalActionError
from naval_env.rulesets.flotilla.state import Phase

SCENARIOS = ["duel", "squadron", "armada"]
GYM_ID = "naval/Flotilla-v0"


def play_random(env, seed, steps=400):
    obs, _ = env.reset(seed=seed)
    trace = [obs.copy()]
    env.action_space.seed(seed)
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        trace.append(np.append(obs, [reward, terminated, truncated]))
        if terminated or truncated:
            obs, _ = env.reset()
            trace.append(obs.copy())
    return np.concatenate(trace)


def test_the_learner_answers_attacks_on_its_own_ship():
    """A REACTION decision is the defending captain's: the learner gets it as a step of its own."""
    env = gym.make(GYM_ID, scenario="duel", opponent="gunner")
    spec = env.unwrapped.action_spec
    reaction = spec.index("reaction")
    seen = 0
    for seed in range(12):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            game = env.unwrapped.game
            if game.state.phase is Phase.REACTION:
                assert game.current_agent == env.unwrapped.learner
                assert game.state.pending.target == env.unwrapped.learner
                assert spec.split(info["action_mask"])[reaction].all()
                seen += 1
            _, _, terminated, truncated, info = env.step(env.action_space.sample())
            done = terminated or truncated
    assert seen > 0


def test_mask_in_info_matches_action_masks():
    env = gym.make(GYM_ID)
    _, info = env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == bool and mask.shape == (int(env.unwrapped.action_spec.nvec.sum()),)
    assert np.array_equal(mask, info["action_mask"])


def forbidden_action(env):
    spec = env.unwrapped.action_spec
    action = spec.noop()
    target = spec.index("target")
    part = spec.split(env.unwrapped.action_masks())[target]
    action[target] = int(np.flatnonzero(~part)[-1])
    return action


def test_illegal_action_policies():
    env = gym.make(GYM_ID, illegal_action="raise")
    env.reset(seed=3)
    before = env.unwrapped.game.state_dict()
    with pytest.raises(IllegalActionError, match="component 'target'"):
        env.step(forbidden_action(env))
    assert env.unwrapped.game.state_dict() == before
    env = gym.make(GYM_ID)
    env.reset(seed=3)
    _, _, _, _, info = env.step(forbidden_action(env))
    assert "component 'target'" in info["illegal_action"]


def test_learner_random_plays_both_sides():
    env = gym.make(GYM_ID, learner="random")
    assert {env.reset(seed=s)[1]["learner"] for s in range(20)} == {"red_0", "blue_0"}


def test_render_modes():
    env = gym.make(GYM_ID, render_mode="ansi")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    text = env.render()
    assert "round" in text and "red_0" in text and "blue_0" in text
    rgb = gym.make(GYM_ID, render_mode="rgb_array")
    rgb.reset(seed=0)
    frame = rgb.render()
    assert frame.dtype == np.uint8 and frame.shape == (640, 976, 3)  # the picture: 15 x 15 squares, the panel


def test_observation_spec_names_every_slice_and_stays_in_bounds():
    env = gym.make(GYM_ID, scenario="armada", opponent="random")
    spec = env.unwrapped.observation_spec
    assert spec.size == env.observation_space.shape[0]
    names = [f["name"] for f in spec.to_json()]
    assert names[:3] == ["self.phase", "self.position", "self.edge_distance"]
    assert "enemy4.fire_odds" in names and "ally3.present" in names
    trace = play_random(env, seed=2, steps=300)
    assert np.abs(trace).max() <= 10
