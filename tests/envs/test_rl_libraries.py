"""Third-party RL libraries read the envs as they are: the mask in the observation (``mask_in_obs=True``), infos
with the same keys and types at every step, TorchRL's spec check and a masked random collection, and the
CleanRL-style example in examples/."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import naval_env  # registers the ids
from naval_env.core.ruleset import ruleset_ids

ROOT = Path(__file__).resolve().parents[2]
ENV_IDS = {rid: f"naval/{''.join(p.title() for p in rid.split('_'))}-v0" for rid in ruleset_ids()}
INFO_TYPES = {"action_mask": np.ndarray, "learner": str, "illegal_action": str, "winner": str, "outcome": str,
              "learner_won": np.bool_}


@pytest.mark.parametrize("ruleset", sorted(ENV_IDS))
def test_mask_in_obs_puts_the_info_mask_in_the_observation_and_infos_keep_their_keys(ruleset: str) -> None:
    env = gym.make(ENV_IDS[ruleset], mask_in_obs=True, opponent="random")
    space = env.observation_space
    assert isinstance(space, gym.spaces.Dict) and set(space.spaces) == {"observation", "action_mask"}
    obs, info = env.reset(seed=3)
    for _ in range(3):   # three whole games: every step's info has the same keys, each of one type
        ended = False
        while not ended:
            assert space.contains(obs)
            np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
            assert {k: type(v) for k, v in info.items()} == INFO_TYPES, info
            assert info["outcome"] == "playing" and info["winner"] == "" and not info["learner_won"]
            obs, _, terminated, truncated, info = env.step(env.action_space.sample())
            ended = terminated or truncated
        assert {k: type(v) for k, v in info.items()} == INFO_TYPES
        assert info["outcome"] in ("win", "loss", "draw")
        assert info["learner_won"] == (info["outcome"] == "win")
        assert (info["winner"] == "") == (info["outcome"] == "draw")
        obs, info = env.reset()
    assert info["outcome"] == "playing" and info["winner"] == "" and info["illegal_action"] == ""


def test_an_illegal_action_is_named_in_the_info_and_a_legal_step_leaves_it_empty() -> None:
    env = gym.make("naval/Pantheon-v0", opponent="random")
    _, info = env.reset(seed=0)
    mask, spec = info["action_mask"], env.unwrapped.action_spec
    offsets = np.cumsum([0, *spec.nvec[:-1]])
    illegal = None
    for component, (offset, size) in enumerate(zip(offsets, spec.nvec)):
        forbidden = np.flatnonzero(~mask[offset:offset + size])
        if forbidden.size:
            illegal = np.zeros(len(spec.nvec), dtype=np.int64)
            illegal[component] = forbidden[0]
            break
    assert illegal is not None
    _, _, _, _, info = env.step(illegal)
    assert info["illegal_action"] != ""
    _, _, _, _, info = env.step(env.action_space.sample())
    assert info["illegal_action"] == ""


def _legal(action: np.ndarray, mask: np.ndarray, nvec: np.ndarray) -> bool:
    offsets = np.cumsum([0, *nvec[:-1]])
    return all(mask[offset + value] for offset, value in zip(offsets, action))


@pytest.mark.parametrize("ruleset", sorted(ENV_IDS))
def test_torchrl_checks_the_specs_and_a_masked_random_collection_plays_no_illegal_action(ruleset: str) -> None:
    import torch
    import torchrl.envs as torchrl_envs  # the dev extra: make setup installs it with the pinned torch
    from torchrl.data import Unbounded
    from torchrl.envs.libs.gym import GymEnv
    from torchrl.envs.utils import check_env_specs

    # illegal_action="raise": an action outside the mask would stop the rollout with IllegalActionError.
    base = GymEnv(ENV_IDS[ruleset], mask_in_obs=True, illegal_action="raise", opponent="random",
                  categorical_action_encoding=True)
    # The info reader needs the key at every step: on the first step of a game it was once missing.
    base.set_info_dict_reader(torchrl_envs.default_info_dict_reader(
        ["learner_won"], spec=[Unbounded(shape=(), dtype=torch.bool)]))
    env = torchrl_envs.TransformedEnv(base, torchrl_envs.ActionMask())
    check_env_specs(env, seed=0)
    rollout = env.rollout(150, break_when_any_done=False)
    nvec = gym.make(ENV_IDS[ruleset]).unwrapped.action_spec.nvec
    actions, masks = rollout["action"].numpy(), rollout["action_mask"].numpy()
    illegal = sum(not _legal(a, m, nvec) for a, m in zip(actions, masks))
    assert (len(actions), illegal) == (150, 0)
    assert rollout["next", "done"].any()   # whole games were played, not one long one
    assert rollout["next", "learner_won"].shape == (150,)


def test_torchrl_without_the_mask_transform_samples_illegal_actions() -> None:
    """The control for the test above: the same collection without ActionMask breaks the rules at once."""
    from torchrl.envs.libs.gym import GymEnv

    env = GymEnv(ENV_IDS["pantheon"], mask_in_obs=True, illegal_action="raise", opponent="random",
                 categorical_action_encoding=True)
    with pytest.raises(naval_env.IllegalActionError):
        env.rollout(50, break_when_any_done=False)


@pytest.mark.slow
def test_the_cleanrl_style_example_trains_on_the_mask_in_the_observation() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, str(ROOT / "examples" / "cleanrl_masked_ppo.py"), "--ruleset", "pursuit",
                           "--opponent", "random", "--total-timesteps", "128", "--num-envs", "2", "--num-steps", "64"],
                          check=False, capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("steps 128: ") and " games; last " in last, done.stdout
