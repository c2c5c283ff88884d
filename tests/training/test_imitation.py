"""Behaviour cloning before PPO: demonstrations from a scripted captain, the clone's fit, the config hook."""

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
from sb3_contrib import MaskablePPO

from naval_agents.captains.base import Captain
from naval_agents.training.config import load_train_config
from naval_agents.training.imitation import agreement, clone, collect, discounted, teachers_by_side
from naval_agents.training.run import make_env, train

pytestmark = pytest.mark.train

CONFIG = "configs/train/pursuit.yaml"


def test_discounted_returns_sum_each_reward_to_the_end_of_the_game():
    assert discounted([1.0, 0.0, -2.0], 0.5) == [1.0 + 0.5 * 0.0 + 0.25 * -2.0, 0.0 + 0.5 * -2.0, -2.0]
    assert discounted([], 0.9) == []


def test_one_teacher_serves_every_side_and_a_mapping_must_name_each_side():
    assert teachers_by_side("gunner", ("red", "blue")) == {"red": "gunner", "blue": "gunner"}
    assert teachers_by_side({"blue": "gunner", "red": "hunter"}, ("red", "blue")) == {"blue": "gunner", "red": "hunter"}
    with pytest.raises(ValueError, match=r"names sides \['green', 'red'\].*sides are \['red', 'blue'\]"):
        teachers_by_side({"red": "hunter", "green": "gunner"}, ("red", "blue"))


class SideSpy(Captain):
    """Plays the no-op-or-first-legal action and notes the side of every seat it is asked to play."""

    def __init__(self, spec):
        self.spec, self.sides = spec, set()

    def act(self, decision):
        self.sides.add(decision.game.side_of(decision.agent))
        return self.spec.sample(decision.action_mask, np.random.default_rng(0))


def test_each_side_is_played_by_its_own_teacher():
    config = load_train_config(CONFIG)
    spec = make_env(config, rank=0)().unwrapped.action_spec
    red, blue = SideSpy(spec), SideSpy(spec)
    demos = collect(make_env(config, rank=0), {"red": red, "blue": blue}, 400, 0.99, seed=7)
    assert demos.games >= 2
    assert red.sides == {"red"} and blue.sides == {"blue"}


@pytest.fixture(scope="module")
def pursuit_demos():
    config = load_train_config(CONFIG)
    return config, collect(make_env(config, rank=0), "hunter", 600, 0.99, seed=7)


def test_demonstrations_are_whole_games_of_legal_teacher_actions(pursuit_demos):
    config, demos = pursuit_demos
    n = len(demos.actions)
    assert n >= 600 and demos.games >= 1
    assert demos.observations.shape[0] == demos.masks.shape[0] == demos.returns.shape[0] == n
    offsets = np.array(make_env(config, rank=0)().unwrapped.action_spec.offsets)
    chosen = demos.masks[np.arange(n)[:, None], offsets[None, :] + demos.actions]
    assert chosen.all()  # every recorded action was allowed by the mask recorded with it


def test_collection_is_repeatable_for_a_seed(pursuit_demos):
    config, demos = pursuit_demos
    again = collect(make_env(config, rank=0), "hunter", 600, 0.99, seed=7)
    assert np.array_equal(again.actions, demos.actions) and np.array_equal(again.observations, demos.observations)


def test_cloning_makes_the_policy_agree_with_its_teacher(pursuit_demos):
    config, demos = pursuit_demos
    vec = make_env(config, rank=0)()
    model = MaskablePPO("MlpPolicy", vec, seed=0, policy_kwargs={"net_arch": [64, 64]})
    rows = np.arange(len(demos.actions))
    before = agreement(model.policy, demos, rows)["held_out_agreement"]
    fit = clone(model.policy, demos, epochs=30, batch_size=64, learning_rate=3e-3, vf_coef=0.5,
                max_grad_norm=0.5, held_out=0.0, seed=0)
    after = agreement(model.policy, demos, rows)["held_out_agreement"]
    assert set(fit) == {"train_loss"}  # nothing held out, so no held-out agreement to report
    assert after > max(before, 0.8), (before, after)


def test_unknown_teacher_is_refused_before_the_run_folder_exists(tmp_path):
    config = load_train_config(CONFIG, {"imitate": "admiral", "run_dir": str(tmp_path), "total_timesteps": 64})
    with pytest.raises(ValueError, match="unknown captain 'admiral'.*hunter"):
        train(config)
    assert not any(tmp_path.iterdir())


def test_run_with_a_teacher_records_the_clone_in_its_manifest(tmp_path):
    config = load_train_config(CONFIG, {
        "imitate": "gunner", "run_dir": str(tmp_path), "total_timesteps": 256, "n_envs": 2, "n_steps": 128,
        "batch_size": 128, "progress_bar": False, "name": "bc"})
    config = config.model_copy(update={
        "imitation": config.imitation.model_copy(update={"decisions": 300, "epochs": 2}),
        "eval": config.eval.model_copy(update={"games": 1, "every": 10_000})})
    manifest = json.loads((train(config) / "run.json").read_text())
    imitation = manifest["imitation"]
    assert imitation["teacher"] == "gunner" and imitation["decisions"] >= 300
    assert imitation["held_out_decisions"] == int(imitation["decisions"] * 0.1)
    # A decision agrees whole only when every component does: never more often than the components do.
    assert imitation["held_out_agreement"] <= imitation["held_out_component_agreement"]
