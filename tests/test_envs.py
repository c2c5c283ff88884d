"""Gymnasium and PettingZoo conformance: the libraries' own checkers, seeding, masks and illegal actions."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import naval_env  # noqa: F401
from naval_env.core.errors import IllegalActionError
from naval_env.rulesets import pantheon

SCENARIOS = ["duel", "mixed_duel", "squadron", "fleet"]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_gymnasium_checker_passes(scenario):
    check_env(gym.make("naval/Pantheon-v0", scenario=scenario).unwrapped, skip_render_check=False)


@pytest.mark.parametrize("scenario", ["duel", "squadron", "fleet"])
def test_pettingzoo_aec_api_and_seed(scenario):
    api_test(pantheon.env(scenario=scenario), num_cycles=300)
    seed_test(lambda: pantheon.env(scenario=scenario), num_cycles=300)


@pytest.mark.parametrize("scenario", ["duel", "squadron"])
def test_pettingzoo_parallel_api_and_seed(scenario):
    parallel_api_test(pantheon.parallel_env(scenario=scenario), num_cycles=300)
    parallel_seed_test(lambda: pantheon.parallel_env(scenario=scenario), num_cycles=300)


def test_mask_in_info_matches_action_masks_and_has_sb3_layout():
    env = gym.make("naval/Pantheon-v0")
    _, info = env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    spec = env.unwrapped.action_spec
    assert mask.dtype == bool and mask.shape == (int(spec.nvec.sum()),)
    assert np.array_equal(mask, info["action_mask"])
    for part in spec.split(mask):
        assert part.any(), "every component must allow at least one value"


def play_random(env, seed, steps=400):
    obs, info = env.reset(seed=seed)
    trace = [obs.copy()]
    env.action_space.seed(seed)
    for _ in range(steps):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        trace.append(np.append(obs, [reward, terminated, truncated]))
        if terminated or truncated:
            obs, info = env.reset()
            trace.append(obs.copy())
    return np.concatenate(trace)


def test_same_seed_same_game_bit_for_bit():
    a = play_random(gym.make("naval/Pantheon-v0", scenario="squadron"), seed=11)
    b = play_random(gym.make("naval/Pantheon-v0", scenario="squadron"), seed=11)
    c = play_random(gym.make("naval/Pantheon-v0", scenario="squadron"), seed=12)
    assert a.tobytes() == b.tobytes()
    assert a.tobytes() != c.tobytes()


def test_engine_state_same_seed_same_actions():
    ruleset = naval_env.get_ruleset("pantheon")
    config = ruleset.load_config()
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    game_a, game_b = ruleset.new_game(config, "fleet", seed=99), ruleset.new_game(config, "fleet", seed=99)
    while not game_a.is_over:
        agent = game_a.current_agent
        game_a.apply(agent, game_a.action_spec.sample(game_a.legal_mask(agent), rng_a))
        game_b.apply(agent, game_b.action_spec.sample(game_b.legal_mask(agent), rng_b))
        assert game_a.state_dict() == game_b.state_dict()
    assert game_a.dice.history == game_b.dice.history


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


def test_bad_env_arguments_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown pantheon scenario 'armada'"):
        gym.make("naval/Pantheon-v0", scenario="armada")
    with pytest.raises(ValueError, match="learner 'green_0' is not a captain"):
        gym.make("naval/Pantheon-v0", learner="green_0")
    with pytest.raises(ValueError, match="unknown captain 'pirate'"):
        gym.make("naval/Pantheon-v0", opponent="pirate")
    with pytest.raises(ValueError, match="illegal_action 'ignore'"):
        gym.make("naval/Pantheon-v0", illegal_action="ignore")
