"""Envs of both APIs pickle, cloudpickle and deep-copy mid-game, and the copy plays on bit for bit.

Subprocess vector envs started with ``spawn``, SuperSuit's ``concat_vec_envs_v1`` and Ray all send
envs (or the functions that hold them) between processes; an ONNX opponent drops its onnxruntime
session when copied and opens its file again on first use.
"""

from __future__ import annotations

import copy
import functools
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cloudpickle
import gymnasium as gym
import numpy as np
import pytest
import supersuit as ss

import naval_env
from naval_agents.captains.learned import ModelLoadError
from naval_agents.captains.onnx_captain import OnnxCaptain
from naval_env.core.captain import Decision
from naval_env.core.ruleset import get_ruleset
from naval_env.envs.pettingzoo_env import NavalParallelEnv, aec_env

RULESETS = naval_env.ruleset_ids()
COPIERS: dict[str, Callable[[Any], Any]] = {
    "pickle": lambda obj: pickle.loads(pickle.dumps(obj)),
    "cloudpickle": lambda obj: cloudpickle.loads(cloudpickle.dumps(obj)),
    "deepcopy": copy.deepcopy,
}
#: Steps played before the copy is taken, and the most played after it (a game usually ends sooner).
BEFORE, AFTER = 5, 400


def assert_same(left: Any, right: Any, where: str) -> None:
    """Equal values, arrays compared exactly (dtype included), through dicts, lists and tuples."""
    if isinstance(left, dict):
        assert isinstance(right, dict) and left.keys() == right.keys(), where
        for key in left:
            assert_same(left[key], right[key], f"{where}[{key!r}]")
    elif isinstance(left, (list, tuple)):
        assert type(left) is type(right) and len(left) == len(right), where
        for i, (a, b) in enumerate(zip(left, right)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(left, np.ndarray):
        assert isinstance(right, np.ndarray) and left.dtype == right.dtype, where
        assert np.array_equal(left, right), where
    else:
        assert left == right, f"{where}: {left!r} != {right!r}"


def play_gym(env: gym.Env, steps: int) -> list[Any]:
    """What ``steps`` steps of the env's own legal sampling give, through one reset with no seed after the
    episode ends (so the env's generator and the action space's are both followed)."""
    trace: list[Any] = []
    for _ in range(steps):
        step = env.step(env.action_space.sample())
        trace.append(step)
        if step[2] or step[3]:
            trace.append(env.reset())
    return trace


@pytest.mark.parametrize("copier", COPIERS)
@pytest.mark.parametrize("ruleset", RULESETS)
def test_gym_env_copy_continues_the_same_game(ruleset: str, copier: str):
    env = gym.make(get_ruleset(ruleset).gym_id)
    env.reset(seed=11)
    env.action_space.seed(12)
    play_gym(env, BEFORE)
    twin = COPIERS[copier](env)
    assert twin.unwrapped is not env.unwrapped and twin.unwrapped.game is not env.unwrapped.game
    assert_same(play_gym(twin, AFTER), play_gym(env, AFTER), f"{ruleset} {copier}")


@pytest.mark.parametrize("copier", COPIERS)
def test_a_copied_env_samples_legal_actions_from_its_own_mask(copier: str):
    env = gym.make("naval/Pantheon-v0")
    env.reset(seed=3)
    twin = COPIERS[copier](env)
    space = twin.unwrapped.action_space
    # Bound to the copy, not to the original (nor dropped, which would make sample() ignore the rules).
    assert space.mask_source.__self__ is twin.unwrapped
    twin.step(twin.action_space.sample())
    assert not np.array_equal(twin.unwrapped.action_masks(), env.unwrapped.action_masks())
    for _ in range(60):
        _, _, terminated, truncated, info = twin.step(twin.action_space.sample())
        assert info["illegal_action"] == ""
        if terminated or truncated:
            twin.reset()


def play_parallel(env: NavalParallelEnv, rng: np.random.Generator, steps: int, observations: dict[str, Any]
                  ) -> list[Any]:
    """Legal actions drawn from each agent's mask with ``rng``; a reset (seed drawn from ``rng``) when the game ends."""
    trace: list[Any] = []
    for _ in range(steps):
        actions = {agent: naval_env.sample_legal(env.action_space(agent), observations[agent]["action_mask"], rng)
                   for agent in env.agents}
        step = env.step(actions)
        observations = step[0]
        trace.append(step)
        if not env.agents:
            observations, infos = env.reset(seed=int(rng.integers(1000)))
            trace.append((observations, infos))
    return trace


@pytest.mark.parametrize("copier", COPIERS)
@pytest.mark.parametrize("ruleset", RULESETS)
def test_parallel_env_copy_continues_the_same_game(ruleset: str, copier: str):
    env = NavalParallelEnv(ruleset)
    observations, _ = env.reset(seed=21)
    rng = np.random.default_rng(22)
    observations = play_parallel(env, rng, BEFORE, observations)[-1][0]
    twin, twin_rng = COPIERS[copier](env), copy.deepcopy(rng)
    assert twin.match.game is not env.match.game
    assert_same(play_parallel(twin, twin_rng, AFTER, observations),
                play_parallel(env, rng, AFTER, observations), f"{ruleset} {copier}")


def play_aec(env: Any, rng: np.random.Generator, steps: int) -> list[Any]:
    trace: list[Any] = []
    for _ in range(steps):
        if not env.agents:
            env.reset()
        observation, reward, terminated, truncated, info = env.last()
        trace.append((env.agent_selection, observation, reward, terminated, truncated, info))
        action = None if terminated or truncated else naval_env.sample_legal(
            env.action_space(env.agent_selection), observation["action_mask"], rng)
        env.step(action)
    return trace


@pytest.mark.parametrize("copier", COPIERS)
def test_aec_env_copy_continues_the_same_game(copier: str):
    env = aec_env("flotilla")
    env.reset(seed=31)
    rng = np.random.default_rng(32)
    play_aec(env, rng, BEFORE)
    twin, twin_rng = COPIERS[copier](env), copy.deepcopy(rng)
    assert twin.unwrapped is not env.unwrapped
    assert_same(play_aec(twin, twin_rng, AFTER), play_aec(env, rng, AFTER), f"aec {copier}")


def onnx_opponent(env: gym.Env) -> OnnxCaptain:
    """The ONNX captain the env's opponent plays through (a difficulty level wraps it in ``base``)."""
    (captain,) = env.unwrapped._opponent_pool
    while not isinstance(captain, OnnxCaptain):
        captain = captain.base
    return captain


@pytest.mark.parametrize("opponent", ["zoo", "hard"])
@pytest.mark.parametrize("copier", COPIERS)
@pytest.mark.slow
def test_env_with_an_onnx_opponent_copies_and_reopens_the_model_lazily(copier: str, opponent: str):
    env = gym.make("naval/Pantheon-v0", opponent=opponent)
    env.reset(seed=41)
    env.action_space.seed(42)
    play_gym(env, BEFORE)
    twin = COPIERS[copier](env)
    copied = onnx_opponent(twin)
    # The copy holds no session until its captain first acts, then opens the same file.
    assert copied._open_session is None and copied.path == onnx_opponent(env).path
    assert_same(play_gym(twin, AFTER), play_gym(env, AFTER), f"{opponent} {copier}")
    assert copied._open_session is not None


def test_a_copied_onnx_captain_refuses_a_model_file_changed_since_it_was_loaded(tmp_path: Path):
    original = onnx_opponent(gym.make("naval/Pantheon-v0", opponent="zoo")).path
    for source in original.parent.glob(f"{original.stem}.*"):
        shutil.copy(source, tmp_path / source.name)
    captain = OnnxCaptain(tmp_path / original.name)
    data = pickle.dumps(captain)
    model = tmp_path / original.name
    model.write_bytes(model.read_bytes() + b"\0")
    twin = pickle.loads(data)
    env = gym.make("naval/Pantheon-v0", opponent="random")
    _, info = env.reset(seed=0)
    decision = Decision(env.unwrapped.learner, env.unwrapped.game.observe(env.unwrapped.learner), info["action_mask"])
    with pytest.raises(ModelLoadError, match="no longer the"):
        twin.act(decision)


def _same_env(env: gym.Env) -> gym.Env:
    """An env fn returning the env it was given (pickled into the worker with it)."""
    return env


@pytest.mark.slow
def test_async_vector_env_with_spawn_runs_prebuilt_envs_as_a_sync_one_does():
    envs = [gym.make("naval/Pantheon-v0", opponent=opponent) for opponent in ("zoo", "gunner")]
    sync = gym.vector.SyncVectorEnv([functools.partial(_same_env, copy.deepcopy(e)) for e in envs])
    spawned = gym.vector.AsyncVectorEnv([functools.partial(_same_env, e) for e in envs], context="spawn")
    try:
        traces = []
        for vector in (sync, spawned):
            rng = np.random.default_rng(52)
            observations, infos = vector.reset(seed=51)
            trace = [(observations, infos["action_mask"])]
            for _ in range(40):
                actions = naval_env.sample_legal(vector.single_action_space, infos["action_mask"], rng)
                observations, rewards, terminated, truncated, infos = vector.step(actions)
                trace.append((observations, rewards, terminated, truncated, infos["action_mask"]))
            traces.append(trace)
        assert_same(traces[1], traces[0], "spawn vs sync")
    finally:
        spawned.close()
        sync.close()


def test_supersuit_concat_vec_envs_copies_the_parallel_env():
    env = NavalParallelEnv("pantheon", scenario="duel")
    vector = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 2, num_cpus=0, base_class="gymnasium")
    observations, _ = vector.reset(seed=61)
    # Each copy was reset with seed 61 + i, as a fresh env would be: one row per agent, two agents a copy.
    for copy_index in range(2):
        fresh, _ = NavalParallelEnv("pantheon", scenario="duel").reset(seed=61 + copy_index)
        for row, agent in enumerate(env.possible_agents):
            for key in ("observation", "action_mask"):
                assert np.array_equal(observations[key][2 * copy_index + row], fresh[agent][key])
    rng = np.random.default_rng(62)
    ends = 0
    for _ in range(300):
        actions = naval_env.sample_legal(env.action_space("red_0"), observations["action_mask"], rng)
        observations, _, terminated, truncated, _ = vector.step(actions)
        ends += int(np.any(terminated | truncated))
    assert ends > 0, "300 steps of random duels should finish a game and reset its copy"
    assert not env.agents, "the env handed in was copied, never stepped"
