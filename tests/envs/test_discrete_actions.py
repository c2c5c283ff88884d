"""The opt-in flat Discrete action space (``action_space="discrete"``): indices round-trip to joint actions,
cover every legal one, the mask is the engine's legality, illegal indices follow the env's policy, both APIs
pass their libraries' checkers, and stock SB3 DQN trains on it."""

from __future__ import annotations

import copy
import importlib.util
import itertools
import math
import pickle
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3")  # the [train] extra: without it this module is skipped
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import naval_env
from naval_env.core.captain import RandomCaptain
from naval_env.core.errors import IllegalActionError
from naval_env.envs.joint import JointActions, JointActionsOverflow
from naval_env.envs.match import Match
from naval_env.envs.pettingzoo_env import NavalParallelEnv, aec_env

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[2]
#: Rulesets whose decisions stay under the default Discrete size (largest counts seen: 196, 72 and 25).
SMALL = ["broadside", "pursuit", "flotilla"]


def gym_id(ruleset: str) -> str:
    return naval_env.get_ruleset(ruleset).gym_id


def decisions(ruleset: str, games: int, seed: int):
    """(game, agent, flat mask) at every decision of ``games`` random legal games of every scenario."""
    match = Match(ruleset)
    for scenario in match.ruleset.scenarios(match.config):
        scenario_match = Match(match.ruleset, match.config, scenario)
        captain = RandomCaptain(scenario_match.action_spec, seed=seed)
        for game_seed in range(seed, seed + games):
            scenario_match.reset(game_seed)
            game = scenario_match.game
            while not game.is_over:
                agent = game.current_agent
                yield game, agent, game.legal_mask(agent)
                game.apply(agent, captain.act(scenario_match.decision(agent, captain)))


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", naval_env.ruleset_ids())
def test_indices_enumerate_every_legal_joint_action_in_order_and_round_trip(ruleset: str):
    spec = Match(ruleset).action_spec
    joint = JointActions(spec, size=2**62)
    checked = 0
    for _, _, flat in itertools.islice(decisions(ruleset, games=2, seed=0), 0, None, 3):
        allowed = [np.flatnonzero(part).tolist() for part in spec.split(flat)]
        count = joint.count(flat)
        assert count == math.prod(len(values) for values in allowed)
        if count <= 512:
            # The whole enumeration: exactly the legal joint actions, each once, in lexicographic order.
            decoded = [tuple(joint.decode(i, flat).tolist()) for i in range(count)]
            assert decoded == list(itertools.product(*allowed))
        for index in {0, count // 3, count // 2, count - 1}:
            action = joint.decode(index, flat)
            spec.check(action, flat)
            assert joint.encode(action, flat) == index
        with pytest.raises(IllegalActionError, match=f"has {count} legal joint actions"):
            joint.decode(count, flat)
        checked += 1
    assert checked > 20


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", SMALL)
def test_the_discrete_mask_is_the_engines_legality(ruleset: str):
    env = gym.make(gym_id(ruleset), action_space="discrete", illegal_action="raise")
    _, info = env.reset(seed=5)
    base = env.unwrapped
    rng = np.random.default_rng(6)
    for _ in range(60):
        mask = base.action_masks()
        assert mask.dtype == np.bool_ and mask.shape == (256,) and np.array_equal(mask, info["action_mask"])
        game, learner = base.game, base.learner
        for index in range(int(mask.sum()) + 2):
            if mask[index]:
                game.clone().apply(learner, base.joint_action(index))   # the engine accepts it
            else:
                with pytest.raises(IllegalActionError):
                    base.joint_action(index)
        # The mask is a prefix: the legal indices are 0 .. count - 1.
        assert mask[: mask.sum()].all() and not mask[mask.sum():].any()
        _, _, terminated, truncated, info = env.step(naval_env.sample_legal(base.action_space, mask, rng))
        if terminated or truncated:
            _, info = env.reset()


def test_joint_index_names_the_forbidden_component_of_an_illegal_multidiscrete_action():
    env = gym.make("naval/Flotilla-v0", action_space="discrete")
    env.reset(seed=0)
    base = env.unwrapped
    flat = base.game.legal_mask(base.learner)
    spec = base.action_spec
    forbidden = next(i for i, part in enumerate(spec.split(flat)) if not part.all())
    action = base.joint_action(0)
    action[forbidden] = int(np.flatnonzero(~spec.split(flat)[forbidden])[0])
    with pytest.raises(IllegalActionError, match=f"component '{spec.components[forbidden].name}'"):
        base.joint_index(action)
    with pytest.raises(ValueError, match="action_space='discrete'"):
        gym.make("naval/Flotilla-v0").unwrapped.joint_action(0)


def test_an_illegal_index_plays_index_0_with_the_penalty_under_noop():
    env = gym.make("naval/Flotilla-v0", action_space="discrete")
    env.reset(seed=7)
    twin = copy.deepcopy(env)
    count = int(env.unwrapped.action_masks().sum())
    observation, reward, _, _, info = env.step(count)           # the first index past the legal ones
    expected_observation, expected_reward, _, _, expected_info = twin.step(0)
    assert f"action index {count} is not allowed" in info["illegal_action"] and expected_info["illegal_action"] == ""
    assert np.array_equal(observation, expected_observation)
    penalty = env.unwrapped.match.reward_weights.illegal_action
    assert penalty < 0 and reward == pytest.approx(expected_reward + penalty)
    assert env.unwrapped.game.state_dict() == twin.unwrapped.game.state_dict()


def test_an_illegal_index_raises_and_leaves_the_game_under_raise():
    env = gym.make("naval/Flotilla-v0", action_space="discrete", illegal_action="raise")
    env.reset(seed=7)
    before = env.unwrapped.game.state_dict()
    count = int(env.unwrapped.action_masks().sum())
    with pytest.raises(IllegalActionError, match=f"action index {count} is not allowed"):
        env.step(count)
    assert env.unwrapped.game.state_dict() == before


@pytest.mark.parametrize("action", [256, -1, 1.5, np.array([0, 1])])
def test_an_index_outside_the_space_always_raises(action):
    env = gym.make("naval/Flotilla-v0", action_space="discrete").unwrapped   # noop policy
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="Discrete|out of range"):
        env.step(action)


def test_a_decision_past_max_joint_actions_raises_naming_its_count():
    env = gym.make("naval/Pantheon-v0", action_space="discrete", opponent="random")
    with pytest.raises(JointActionsOverflow, match=r"legal joint actions, more than .*max_joint_actions=256"):
        env.reset(seed=0)
        for _ in range(50):
            env.step(env.action_space.sample())
    with pytest.raises(ValueError, match="max_joint_actions must be a positive integer"):
        gym.make("naval/Flotilla-v0", action_space="discrete", max_joint_actions=0)
    with pytest.raises(ValueError, match="action_space 'box' is not one of"):
        gym.make("naval/Flotilla-v0", action_space="box")


@pytest.mark.parametrize("ruleset", SMALL)
def test_the_discrete_gym_env_passes_gymnasiums_and_sb3s_checkers(ruleset: str):
    check_env(gym.make(gym_id(ruleset), action_space="discrete").unwrapped, skip_render_check=True)
    sb3_check_env(gym.make(gym_id(ruleset), action_space="discrete"))
    masked = gym.make(gym_id(ruleset), action_space="discrete", mask_in_obs=True, max_joint_actions=200)
    check_env(masked.unwrapped, skip_render_check=True)
    observation, _ = masked.reset(seed=0)
    assert observation["action_mask"].shape == (200,) and observation["action_mask"].dtype == np.bool_


@pytest.mark.parametrize("ruleset", SMALL)
def test_the_discrete_pettingzoo_envs_pass_pettingzoos_api_tests(ruleset: str):
    api_test(aec_env(ruleset, action_space="discrete"), num_cycles=300)
    parallel_api_test(NavalParallelEnv(ruleset, action_space="discrete"), num_cycles=300)


def test_pettingzoo_discrete_masks_are_int8_prefixes_and_idle_agents_get_index_0():
    env = NavalParallelEnv("flotilla", action_space="discrete", max_joint_actions=64)
    observations, _ = env.reset(seed=9)
    rng = np.random.default_rng(9)
    for _ in range(40):
        acting = env.match.game.current_agent
        for agent, observation in observations.items():
            mask = observation["action_mask"]
            assert mask.dtype == np.int8 and mask.shape == (64,)
            count = int(mask.sum())
            assert mask[:count].all()
            if agent != acting:
                assert count == 1   # the no-op, index 0
        actions = {a: naval_env.sample_legal(env.action_space(a), observations[a]["action_mask"], rng)
                   for a in env.agents}
        assert all(observations[a]["action_mask"][actions[a]] for a in env.agents)
        observations, _, _, _, infos = env.step(actions)
        assert "illegal_action" not in infos[acting]
        if not env.agents:
            observations, _ = env.reset()


def test_a_discrete_env_pickles_and_its_copy_samples_from_its_own_mask():
    env = gym.make("naval/Pursuit-v0", action_space="discrete", illegal_action="raise")
    env.reset(seed=4)
    env.action_space.seed(4)
    twin = pickle.loads(pickle.dumps(env))
    assert twin.unwrapped.action_space.mask_source.__self__ is twin.unwrapped
    for _ in range(30):
        left, right = env.step(env.action_space.sample()), twin.step(twin.action_space.sample())
        assert np.array_equal(left[0], right[0]) and left[1:4] == right[1:4]
        if left[2] or left[3]:
            env.reset()
            twin.reset()


def _load_example():
    spec = importlib.util.spec_from_file_location("sb3_dqn_discrete", ROOT / "examples" / "sb3_dqn_discrete.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module   # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def test_stock_sb3_dqn_trains_on_the_discrete_space_and_its_illegal_picks_are_replaced():
    example = _load_example()
    settings = example.Settings(total_timesteps=300, learning_starts=100, eval_games=2)
    model, counter = example.train(settings)
    assert model.num_timesteps == 300 and counter.steps == 300
    assert model.action_space.n == settings.max_joint_actions
    # Unmasked, DQN's exploration picks indices past the legal ones, and the games go on past them.
    assert 0 < counter.illegal < counter.steps
    result = example.evaluate(model, settings)
    assert result["games"] == 2 and 0.0 <= result["score"] <= 1.0 and 0.0 <= result["illegal_share"] <= 1.0
