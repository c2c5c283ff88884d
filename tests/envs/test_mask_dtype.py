"""One mask dtype story: each env gives its mask in its library's dtype, and the shipped ONNX captains take
it as it comes (docs/environments.md, "Action masks: one layout, three dtypes")."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import naval_agents
import naval_env
from naval_agents.captains.onnx_captain import OnnxCaptain, mask_input, onnx_inputs
from naval_agents.captains.sidecar import INPUT_MASK, INPUT_OBSERVATION, OUTPUT_ACTION
from naval_env.envs.pettingzoo_env import aec_env

ZOO = Path(naval_agents.__file__).parent / "captains" / "zoo"
RULESETS = naval_env.ruleset_ids()
DECISIONS = 25


def shipped(ruleset: str) -> OnnxCaptain:
    return OnnxCaptain(ZOO / f"{ruleset}.onnx", expected_ruleset=ruleset)


def test_each_env_gives_its_mask_in_the_dtype_the_docs_name():
    env = gym.make("naval/Pantheon-v0", mask_in_obs=True)
    observation, info = env.reset(seed=0)
    assert observation["action_mask"].dtype == np.bool_
    assert info["action_mask"].dtype == np.bool_ and env.unwrapped.action_masks().dtype == np.bool_
    assert env.observation_space["action_mask"].dtype == np.bool_
    pz = aec_env("pantheon")
    pz.reset(seed=0)
    assert pz.observe(pz.agent_selection)["action_mask"].dtype == np.int8
    assert pz.observation_space(pz.agent_selection)["action_mask"].dtype == np.int8
    assert np.array_equal(pz.observe(pz.agent_selection)["action_mask"].astype(bool),
                          pz.unwrapped.match.game.legal_mask(pz.agent_selection))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_shipped_model_takes_the_gymnasium_envs_bool_mask_from_the_observation(ruleset: str):
    captain = shipped(ruleset)
    env = gym.make(naval_env.get_ruleset(ruleset).gym_id, mask_in_obs=True)
    observation, _ = env.reset(seed=1)
    spec = env.unwrapped.action_spec
    for _ in range(DECISIONS):
        raw_mask = observation["action_mask"]
        assert raw_mask.dtype == np.bool_
        action = captain.predict(observation["observation"], raw_mask)
        # The same choice as the graph's own float32 input gives, and a legal one.
        (reference,) = captain._session.run([OUTPUT_ACTION], {INPUT_OBSERVATION: observation["observation"][None],
                                                              INPUT_MASK: raw_mask[None].astype(np.float32)})
        assert np.array_equal(action, reference[0])
        spec.check(action, raw_mask)
        # Fed to onnxruntime directly through the shipped helper.
        (direct,) = captain._session.run([OUTPUT_ACTION], onnx_inputs(observation["observation"], raw_mask))
        assert np.array_equal(direct[0], action)
        observation, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            observation, _ = env.reset()


@pytest.mark.parametrize("ruleset", RULESETS)
def test_shipped_model_takes_the_pettingzoo_int8_mask(ruleset: str):
    captain = shipped(ruleset)
    env = aec_env(ruleset)
    env.reset(seed=2)
    spec = env.unwrapped.match.action_spec
    for _ in range(DECISIONS):
        if not env.agents:   # the last agent's done step ended the game
            env.reset()
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert observation["action_mask"].dtype == np.int8
        action = captain.predict(observation["observation"], observation["action_mask"])
        spec.check(action, observation["action_mask"].astype(bool))
        assert np.array_equal(action, captain.predict(observation["observation"],
                                                      observation["action_mask"].astype(np.float32)))
        env.step(action)


def test_predict_takes_a_batch_of_masks_of_any_env_dtype():
    captain = shipped("flotilla")
    env = gym.make_vec("naval/Flotilla-v0", num_envs=3, mask_in_obs=True)
    observations, _ = env.reset(seed=3)
    actions = captain.predict(observations["observation"], observations["action_mask"])
    assert actions.shape == (3, len(captain.component_names))
    for row in range(3):
        assert np.array_equal(actions[row], captain.predict(observations["observation"][row],
                                                            observations["action_mask"][row].astype(np.int8)))
    env.close()


def test_mask_input_casts_to_the_graphs_float32_and_refuses_what_is_no_mask():
    assert mask_input(np.array([True, False, True])).tolist() == [[1.0, 0.0, 1.0]]
    assert mask_input(np.array([[1, 0], [0, 1]], dtype=np.int8)).dtype == np.float32
    with pytest.raises(TypeError, match="dtype <U"):
        mask_input(np.array(["yes", "no"]))
    with pytest.raises(ValueError, match="scalar"):
        mask_input(np.bool_(True))
