"""stable-baselines3's own env checker on every registered ruleset's Gymnasium env, its warnings as errors.

Gymnasium's and PettingZoo's checkers run in tests/envs/test_conformance.py; this is the third library the envs
promise to fit. `make test-min` runs it at the declared version floors too.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest

pytest.importorskip("stable_baselines3")  # the [train] extra: without it this module is skipped
from stable_baselines3.common.env_checker import check_env

import naval_env  # noqa: F401 - registers the gym ids
from naval_env.core.ruleset import get_ruleset, ruleset_ids

pytestmark = pytest.mark.train


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
@pytest.mark.parametrize("mask_in_obs", [False, True])
def test_stable_baselines3_checker_passes_without_warnings(ruleset_id: str, mask_in_obs: bool) -> None:
    env = gym.make(get_ruleset(ruleset_id).gym_id, mask_in_obs=mask_in_obs)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)   # SB3 reports most of what it dislikes as warnings
        check_env(env, warn=True)
