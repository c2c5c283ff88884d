"""Gymnasium and PettingZoo conformance: the libraries' own checkers, seeding, masks and illegal actions."""

import gymnasium as gym
import numpy as np
import pytest

import naval_env  # noqa: F401
from naval_env.core.errors import IllegalActionError
from naval_env.envs.gym_env import learner_points

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


def test_learner_list_weights_the_seats_it_repeats():
    env = gym.make("naval/Pantheon-v0", learner=["red_0", "red_0", "red_0", "blue_0"])
    seats = [env.reset(seed=s)[1]["learner"] for s in range(400)]
    assert set(seats) == {"red_0", "blue_0"}
    assert 0.68 < seats.count("red_0") / len(seats) < 0.82  # 3 in 4; 400 draws put it within +-0.07 at 3 sigma


def test_opponent_pool_weights_the_captains_it_repeats():
    env = gym.make("naval/Pantheon-v0", opponent=["gunner", "gunner", "gunner", "rammer"])
    met = []
    for s in range(400):
        info = env.reset(seed=s)[1]
        met += [c.name for agent, c in env.unwrapped.captains.items() if agent != info["learner"]]
    assert set(met) == {"gunner", "rammer"}
    assert 0.68 < met.count("gunner") / len(met) < 0.82  # 3 in 4, as above


def test_learner_list_with_an_unknown_seat_names_the_captains():
    with pytest.raises(ValueError, match=r"learner 'green_0' is not a captain of this scenario; choose one of"):
        gym.make("naval/Pantheon-v0", learner=["red_0", "green_0"])
    with pytest.raises(ValueError, match=r"learner list is empty; list agent ids from \('red_0', 'blue_0'\)"):
        gym.make("naval/Pantheon-v0", learner=[])


def test_learner_points_score_a_win_a_draw_and_a_loss():
    assert learner_points({"learner_won": True, "winner": "red"}) == 1.0
    assert learner_points({"learner_won": False, "winner": None}) == 0.5
    assert learner_points({"learner_won": False, "winner": "blue"}) == 0.0


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


def test_reset_draws_another_game_when_the_learner_never_gets_a_decision(monkeypatch):
    """A battle the other captains end before the learner's first decision is not an episode."""
    from naval_agents.captains.base import RandomCaptain
    from naval_env.envs.match import Match

    env = gym.make("naval/Pantheon-v0", scenario="duel").unwrapped
    real_play_until = Match.play_until
    calls = []

    def ends_the_first_game(match, captains, stop_at):
        calls.append(stop_at)
        if len(calls) == 1:  # everyone, the learner too, plays the first game out before its decision
            everyone = {a: RandomCaptain(match.action_spec, seed=0) for a in match.agents}
            return real_play_until(match, everyone, stop_at=None)
        return real_play_until(match, captains, stop_at)

    monkeypatch.setattr(Match, "play_until", ends_the_first_game)
    _, info = env.reset(seed=4)
    assert len(calls) == 2 and not env.game.is_over
    assert env.game.current_agent == env.learner and info["action_mask"].any()
    env.step(env.action_space.sample())  # a real decision, not "step() called after the episode ended"
