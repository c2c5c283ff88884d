"""Expert iteration: the search's visit distributions as targets, its games, the distillation, the config hook."""

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
import torch
from sb3_contrib import MaskablePPO

from naval_agents.captains.search import SearchResult
from naval_agents.captains.search.tree import ChildStats
from naval_agents.training.config import ExpertIterationSettings, load_train_config
from naval_agents.training.expert_iteration import (
    distil,
    expert_iteration,
    make_teacher,
    play,
    visit_targets,
)
from naval_agents.training.imitation import agreement
from naval_agents.training.run import make_env, train
from naval_env.core.spaces import ActionComponent, ActionSpec

pytestmark = pytest.mark.train

CONFIG = "configs/train/pantheon.yaml"   # pantheon: the cheapest search per decision


def test_visit_targets_are_each_components_share_of_the_root_visits():
    spec = ActionSpec((ActionComponent("move", ("hold", "left", "right")), ActionComponent("fire", ("no", "yes"))))
    result = SearchResult(np.array([2, 1]), 4, 0.0, (ChildStats((2, 1), 3, 0.5), ChildStats((0, 1), 1, 0.1)))
    target = visit_targets(spec, result)
    assert target.tolist() == pytest.approx([0.25, 0.0, 0.75, 0.0, 1.0])
    # No simulation (one legal action): the chosen action, one-hot.
    assert visit_targets(spec, SearchResult(np.array([1, 0]), 0, 0.0)).tolist() == [0, 1, 0, 1, 0]


def test_a_bad_teacher_name_is_refused_with_the_allowed_forms():
    with pytest.raises(ValueError, match=r"bad search captain 'search:0'.*search:N"):
        ExpertIterationSettings(search="search:0")
    with pytest.raises(ValueError, match="leaf"):
        ExpertIterationSettings(leaf="oracle")


def _policy(config, seed=0):
    return MaskablePPO("MlpPolicy", make_env(config, rank=0)(), seed=seed,
                       policy_kwargs={"net_arch": [32, 32]}).policy


@pytest.fixture(scope="module")
def search_games():
    torch.set_num_threads(1)
    config = load_train_config(CONFIG)
    settings = ExpertIterationSettings(rounds=1, search="search:12", decisions_per_round=60, proposer="scripted")
    teacher = make_teacher(settings, _policy(config), seed=3)
    return config, play(make_env(config, rank=0), teacher, 60, 0.99, seed=3)


def test_the_search_plays_whole_games_of_legal_actions_with_a_distribution_per_component(search_games):
    config, games = search_games
    demos, targets = games.demos, games.targets
    n = len(demos.actions)
    assert n >= 60 and demos.games >= 1 and targets.shape == demos.masks.shape
    spec = make_env(config, rank=0)().unwrapped.action_spec
    offsets = np.array(spec.offsets)
    assert demos.masks[np.arange(n)[:, None], offsets[None, :] + demos.actions].all()
    assert not (targets[~demos.masks] > 0).any()          # no visit mass on an illegal value
    for part in spec.split(targets.T):                     # each component's distribution sums to 1
        assert np.allclose(part.sum(axis=0), 1.0)
    # The root search's target is the move it played, one-hot.
    assert (targets[np.arange(n)[:, None], offsets[None, :] + demos.actions] == 1.0).all()
    assert 0 < games.simulations <= 12


def test_the_search_games_are_the_same_for_the_same_seed(search_games):
    config, games = search_games
    settings = ExpertIterationSettings(rounds=1, search="search:12", decisions_per_round=60, proposer="scripted")
    again = play(make_env(config, rank=0), make_teacher(settings, _policy(config), seed=3), 60, 0.99, seed=3)
    assert np.array_equal(again.demos.actions, games.demos.actions)
    assert np.array_equal(again.targets, games.targets)


def test_distilling_makes_the_network_agree_with_the_search(search_games):
    config, games = search_games
    policy = _policy(config)
    rows = np.arange(len(games.demos.actions))
    before = agreement(policy, games.demos, rows)["held_out_agreement"]
    settings = ExpertIterationSettings(epochs=60, batch_size=32, learning_rate=3e-3)
    distil(policy, games, rows, settings, vf_coef=0.5, max_grad_norm=0.5, seed=0)
    after = agreement(policy, games.demos, rows)["held_out_agreement"]
    assert after > max(before, 0.8), (before, after)


@pytest.mark.parametrize(("rollout", "leaf"), [("scripted", "scripted"), ("policy", "scripted"), ("scripted", "policy")])
def test_rounds_are_deterministic_for_a_seed_and_report_what_they_measured(rollout, leaf):
    torch.set_num_threads(1)
    config = load_train_config(CONFIG)
    settings = ExpertIterationSettings(rounds=2, search="search:4", decisions_per_round=30, epochs=2, leaf=leaf,
                                       rollout=rollout)
    policies = [_policy(config), _policy(config)]
    reports = [expert_iteration(p, make_env(config, rank=0), settings, 0.99, 0.5, 0.5, seed=11) for p in policies]
    for a, b in zip(policies[0].state_dict().values(), policies[1].state_dict().values()):
        assert torch.equal(a, b)
    first = reports[0]
    assert [r["round"] for r in first["rounds"]] == [1, 2] and (first["rollout"], first["leaf"]) == (rollout, leaf)
    for r in first["rounds"]:
        assert r["decisions"] >= 30 and r["simulations_per_decision"] <= 4
        assert 0 <= r["agreement_before_fit"] <= 1 and 0 <= r["held_out_agreement"] <= 1
    assert expert_iteration(policies[0], make_env(config, rank=0), ExpertIterationSettings(), 0.99, 0.5, 0.5, 0) == {}


def test_a_run_with_expert_iteration_records_it_reports_each_round_and_exports_without_search(tmp_path, capsys):
    from naval_agents.export.__main__ import main as export_main

    config = load_train_config(CONFIG, {"run_dir": str(tmp_path), "total_timesteps": 64, "n_envs": 1,
                                        "n_steps": 64, "batch_size": 64, "progress_bar": False, "name": "exit"})
    config = config.model_copy(update={
        "expert_iteration": ExpertIterationSettings(rounds=1, search="search:4", decisions_per_round=30, epochs=2),
        "eval": config.eval.model_copy(update={"games": 1, "every": 10_000})})
    folder = train(config)
    manifest = json.loads((folder / "run.json").read_text())
    rounds = manifest["expert_iteration"]["rounds"]
    assert manifest["status"] == "finished" and len(rounds) == 1 and rounds[0]["decisions"] >= 30
    assert manifest["train_config"]["expert_iteration"]["search"] == "search:4"
    # A round can take minutes: each is reported as it ends, with what the manifest keeps of it.
    assert (f"expert iteration round 1/1: {rounds[0]['decisions']} decisions in {rounds[0]['games']} games, "
            f"search scored {rounds[0]['search_score']:.3f}") in capsys.readouterr().err
    assert export_main([str(folder), "--out", str(tmp_path / "exit.onnx"), "--parity", "20"]) == 0
