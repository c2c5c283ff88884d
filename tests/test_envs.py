"""Gymnasium and PettingZoo conformance: the libraries' own checkers, seeding, masks and illegal actions."""

import gymnasium as gym
import numpy as np
import pytest

import naval_env  # noqa: F401
from naval_env.core.errors import IllegalActionError

SCENARIOS = ["duel", "mixed_duel", "squadron", "fleet"]


def test_mask_in_info_matches_action_masks_and_has_sb3_layout():
    env = gym.make("naval/Pantheon-v0")
    _, info = env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    spec = env.unwrapped.action_spec
    assert mask.dtype == bool and mask.shape == (int(spec.nvec.sum()),)
    assert np.array_equal(mask, info["action_mask"])
    for part in spec.split(mask):
        assert part.any(), "every component must allow at least one value"


def forbidden_action(env):
    """An in-space action whose 'attack' value the current mask forbids."""
    spec = env.unwrapped.action_spec
    action = spec.noop()
    attack = spec.index("attack")
    part = spec.split(env.unwrapped.action_masks())[attack]
    action[attack] = int(np.flatnonzero(~part)[0])
    return action


def test_illegal_action_raise_policy_names_component_and_keeps_state():
    env = gym.make("naval/Pantheon-v0", illegal_action="raise")
    env.reset(seed=3)
    before = env.unwrapped.game.state_dict()
    with pytest.raises(IllegalActionError, match="component 'attack'"):
        env.step(forbidden_action(env))
    assert env.unwrapped.game.state_dict() == before


def test_illegal_action_noop_policy_replaces_component_and_reports_it():
    env = gym.make("naval/Pantheon-v0")  # default: noop
    env.reset(seed=3)
    learner = env.unwrapped.learner
    _, reward, _, _, info = env.step(forbidden_action(env))
    assert "component 'attack'" in info["illegal_action"]
    # The penalty is charged once, to the captain whose action was replaced.
    weights = env.unwrapped.match.reward_weights
    assert env.unwrapped.match.reward(learner, []) == pytest.approx(weights.illegal_action)
    assert reward == pytest.approx(weights.illegal_action + env.unwrapped.match.reward(learner, env.unwrapped.events)
                                   - weights.illegal_action)
    assert env.unwrapped.learner == learner


def test_out_of_space_action_always_raises():
    env = gym.make("naval/Pantheon-v0")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(np.full(len(env.unwrapped.action_spec.components), 999))


def test_learner_random_plays_both_sides():
    env = gym.make("naval/Pantheon-v0", learner="random")
    seen = {env.reset(seed=s)[1]["learner"] for s in range(20)}
    assert seen == {"red_0", "blue_0"}


def test_render_modes():
    env = gym.make("naval/Pantheon-v0", render_mode="ansi")
    env.reset(seed=0)
    env.step(env.action_space.sample())
    text = env.render()
    assert "round" in text and "red_0" in text and "blue_0" in text
    rgb = gym.make("naval/Pantheon-v0", render_mode="rgb_array")
    rgb.reset(seed=0)
    frame = rgb.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
