"""Environment edges: PettingZoo call order and per-step infos, legal sampling in vector envs,
memory that stays flat as envs come and go, and the round limit every ruleset stops at."""

from __future__ import annotations

import gc
import importlib
import weakref

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

import naval_env
from naval_env.core.cache import PerObjectCache
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.pettingzoo_env import NavalAECEnv
from naval_env.envs.spaces import MaskedBatchBox


def ruleset_module(ruleset_id: str):
    return importlib.import_module(f"naval_env.rulesets.{ruleset_id}")


def forbidden_action(spec, mask: np.ndarray) -> np.ndarray | None:
    """An in-space action that ``mask`` forbids in one component only (None: the mask allows everything)."""
    for component, part in enumerate(spec.split(mask)):
        if not part.all():
            action = spec.sample(mask, np.random.default_rng(0))
            action[component] = int(np.flatnonzero(~part)[0])
            return action
    return None


# ------------------------------------------------------------------ PettingZoo AEC
@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_aec_env_is_wrapped_like_pettingzoos_classic_envs(ruleset_id):
    env = ruleset_module(ruleset_id).env()
    assert isinstance(env, OrderEnforcingWrapper)
    assert isinstance(env.unwrapped, NavalAECEnv)


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_aec_illegal_action_info_lasts_until_the_agent_acts_legally(ruleset_id):
    env = ruleset_module(ruleset_id).env()
    env.reset(seed=0)
    spec = env.unwrapped.match.action_spec
    rng = np.random.default_rng(0)
    offender = None
    for _ in range(200):  # the first decision with a forbidden value: take it
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"].astype(bool)
        action = forbidden_action(spec, mask)
        if action is not None:
            offender = agent
            env.step(action)
            break
        env.step(spec.sample(mask, rng))
    assert offender is not None
    assert "is not allowed" in env.infos[offender]["illegal_action"]
    while env.agent_selection != offender:  # the others play legally; the offender's info stays
        env.step(spec.sample(env.observe(env.agent_selection)["action_mask"].astype(bool), rng))
        assert "illegal_action" in env.infos[offender]
    assert "illegal_action" in env.last()[4]
    env.step(spec.sample(env.observe(offender)["action_mask"].astype(bool), rng))
    assert env.infos[offender] == {}


def play_out(env, seed: int = 0) -> None:
    env.reset(seed=seed)
    spec = env.unwrapped.match.action_spec
    rng = np.random.default_rng(seed)
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else spec.sample(observation["action_mask"].astype(bool), rng))


def test_aec_calls_out_of_order_fail_clearly():
    module = ruleset_module("pantheon")
    env = module.env(scenario="duel")
    noop = env.unwrapped.match.action_spec.noop()
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        env.step(noop)
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        env.last()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        module.env(scenario="duel").unwrapped.step(noop)
    play_out(env)
    assert env.agents == []
    for call, name in ((lambda: env.step(noop), r"step\(\)"), (lambda: env.step(None), r"step\(\)"),
                       (env.last, r"last\(\)"), (env.unwrapped.last, r"last\(\)"),
                       (lambda: env.unwrapped.step(noop), r"step\(\)")):
        with pytest.raises(RuntimeError, match=name + r" called after the game ended .* call reset\(\) to play again"):
            call()
    env.reset(seed=1)  # and the env plays again
    assert env.agents == list(env.possible_agents)


def test_parallel_calls_out_of_order_fail_clearly():
    env = ruleset_module("pantheon").parallel_env(scenario="duel")
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env.step({a: env.match.action_spec.noop() for a in env.possible_agents})
    observations, _ = env.reset(seed=0)
    spec, rng = env.match.action_spec, np.random.default_rng(0)
    while env.agents:
        observations, *_ = env.step({a: spec.sample(observations[a]["action_mask"].astype(bool), rng)
                                     for a in env.agents})
    with pytest.raises(RuntimeError, match=r"step\(\) called after the game ended"):
        env.step({})


# ------------------------------------------------------------------ vector envs
def illegal_rows(spec, actions: np.ndarray, masks: np.ndarray) -> int:
    return sum(not all(mask[o + v] for o, v in zip(spec.offsets, row)) for row, mask in zip(actions, masks))


@pytest.mark.parametrize("draw", ["sample_legal", "space_sample_with_mask"])
def test_vector_env_draws_800_legal_actions(draw):
    envs = gym.make_vec("naval/Pantheon-v0", num_envs=4)
    assert isinstance(envs.action_space, MaskedBatchBox)
    envs.action_space.seed(3)
    _, info = envs.reset(seed=3)
    spec, rng = envs.single_action_space.spec, np.random.default_rng(3)
    assert illegal_rows(spec, envs.action_space.sample(), info["action_mask"]) > 0  # unmasked: not the rules
    illegal = replaced = 0
    for _ in range(200):
        masks = info["action_mask"]
        if draw == "sample_legal":
            actions = naval_env.sample_legal(envs.single_action_space, masks, rng)
        else:
            actions = envs.action_space.sample(mask=masks)
        assert actions.shape == (4, len(spec.nvec)) and actions.dtype == np.int64
        illegal += illegal_rows(spec, actions, masks)
        _, _, _, _, info = envs.step(actions)
        replaced += sum(bool(reason) for reason in info["illegal_action"])   # "" every step nothing was replaced
    assert (illegal, replaced) == (0, 0)
    envs.close()


def test_sample_legal_is_seeded_and_refuses_a_mask_of_the_wrong_size():
    spec = gym.make("naval/Pantheon-v0").unwrapped.action_spec
    masks = np.stack([spec.noop_mask(), np.ones(spec.flat_size, dtype=bool)])
    first, again = naval_env.sample_legal(spec, masks, 7), naval_env.sample_legal(spec, masks, 7)
    assert np.array_equal(first, again) and not first[0].any()  # the no-op mask allows only zeros
    assert naval_env.sample_legal(spec, masks[1], 7).shape == (len(spec.nvec),)
    with pytest.raises(ValueError, match=rf"masks have shape \(2, 5\); expected \({spec.flat_size},\)"):
        naval_env.sample_legal(spec, np.ones((2, 5), dtype=bool), 0)
    with pytest.raises(TypeError, match="expected a naval env's action space or an ActionSpec, got Discrete"):
        naval_env.sample_legal(gym.spaces.Discrete(3), masks, 0)
    with pytest.raises(ValueError, match=r"one flat mask per sub-env"):
        MaskedBatchBox(spec, 3).sample(mask=masks)


# ------------------------------------------------------------------ memory
def test_per_object_cache_builds_once_per_object_and_forgets_dead_ones():
    class Config:
        pass

    built: list[int] = []
    cache = PerObjectCache(lambda config: built.append(1) or len(built))
    a, b = Config(), Config()
    assert (cache(a), cache(a), cache(b), len(cache)) == (1, 1, 2, 2)
    del a
    gc.collect()
    assert len(cache) == 1 and cache(b) == 2 and len(built) == 2


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
@pytest.mark.slow
def test_envs_made_and_dropped_leave_nothing_behind(ruleset_id):
    """Each env loads its own config; once the env is gone, so are the config and its cached tables."""
    gym_id, specs = get_ruleset(ruleset_id).gym_id, get_ruleset(ruleset_id).specs

    def make_and_drop(count: int) -> list[weakref.ref]:
        configs = []
        for seed in range(count):
            env = gym.make(gym_id)
            env.reset(seed=seed)
            configs.append(weakref.ref(env.unwrapped.match.config))
            env.close()
            del env
        gc.collect()
        return configs

    make_and_drop(3)  # warm the value-keyed caches of the rules (footprints, odds) first
    size, objects = len(specs), len(gc.get_objects())
    configs = make_and_drop(10)
    assert [ref() for ref in configs] == [None] * 10
    assert len(specs) == size
    grown = len(gc.get_objects()) - objects
    assert grown < 100, f"{grown} more live objects after 10 envs made and dropped"  # was 3,600 to 21,000


# ------------------------------------------------------------------ round limit
def test_pantheon_truncates_at_round_40_not_41():
    ruleset = get_ruleset("pantheon")
    game = ruleset.new_game(ruleset.load_config(), "duel", seed=1)
    decisions = 0
    while not game.is_over:
        game.apply(game.current_agent, game.action_spec.noop())
        decisions += 1
    assert (game.round, game.truncated, game.winner, decisions) == (40, True, None, 160)


@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_ruleset_stops_at_its_round_limit(ruleset_id):
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    limit = 3
    config = config.model_copy(update={"house_rules": config.house_rules.model_copy(update={"max_rounds": limit})})
    game = ruleset.new_game(config, config.default_scenario, seed=1)
    rounds = set()
    while not game.is_over:
        rounds.add(game.round)
        game.apply(game.current_agent, game.action_spec.noop())
    assert game.truncated and game.round == limit and max(rounds) == limit
