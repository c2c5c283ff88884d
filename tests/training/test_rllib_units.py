"""The RLlib backend's parts without a Ray session: mask semantics against sb3-contrib's, the weights' round
trip into the captain every reader uses (and a crafted pickle refused), and config errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
pytest.importorskip("ray")  # and the [ray] extra
import torch
import yaml
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from sb3_contrib.common.maskable.distributions import MaskableMultiCategoricalDistribution

from naval_agents.captains.learned import ModelLoadError, load_run_captain
from naval_agents.captains.learned_rllib import FINAL_WEIGHTS, save_policy_weights
from naval_agents.captains.registry import make_captain
from naval_agents.export.parity import torch_logits
from naval_agents.training.config import TrainConfig
from naval_agents.training.rllib.module import ILLEGAL_LOGIT, MaskedPPOModule, masked_logits
from naval_agents.training.rllib.train import check_rllib
from naval_env.core.errors import ConfigError
from naval_env.envs.match import Match
from naval_env.envs.spaces import mask_box, observation_box
from naval_tactics.commands.train import main as train_main

pytestmark = [pytest.mark.train, pytest.mark.ray]

RULESET = "pantheon"


def module(net_arch: list[int] = [32, 16], seed: int = 0) -> tuple[MaskedPPOModule, Match]:  # noqa: B006
    match = Match(RULESET)
    torch.manual_seed(seed)
    observation = spaces.Dict({"observation": observation_box(match.observation_spec),
                               "action_mask": mask_box(match.action_spec)})
    return MaskedPPOModule(observation_space=observation, action_space=spaces.MultiDiscrete(match.action_spec.nvec),
                           model_config={"net_arch": net_arch}), match


def real_decisions(match: Match, n: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of the deciding captain in random legal games."""
    captain = make_captain("random", RULESET, match.action_spec)
    observations, masks = [], []
    game_seed = seed
    match.reset(game_seed)
    while len(observations) < n:
        if match.game.is_over:
            game_seed += 1
            match.reset(game_seed)
        agent = match.game.current_agent
        decision = match.decision(agent)
        observations.append(decision.observation)
        masks.append(decision.action_mask.astype(np.int8))
        match.apply(agent, captain.act(decision))
    return np.stack(observations), np.stack(masks)


# ------------------------------------------------------------------ mask semantics
def test_masked_distribution_equals_sb3_contribs_on_the_same_logits_and_mask():
    rng = np.random.default_rng(0)
    net, match = module()
    nvec = [int(n) for n in match.action_spec.nvec]
    logits = torch.as_tensor(rng.normal(0, 3, (64, sum(nvec))), dtype=torch.float32)
    masks = rng.random((64, sum(nvec))) < 0.3
    for offset in match.action_spec.offsets:  # value 0 of every component is always legal
        masks[:, offset] = True
    ours = net.get_train_action_dist_cls().from_logits(masked_logits(logits, torch.as_tensor(masks)))
    theirs = MaskableMultiCategoricalDistribution(nvec).proba_distribution(logits)
    theirs.apply_masking(masks)
    actions = ours.sample()
    for i, offset in enumerate(match.action_spec.offsets):  # every sampled value is allowed
        assert masks[np.arange(64), offset + actions[:, i].numpy()].all()
    torch.testing.assert_close(ours.logp(actions), theirs.log_prob(actions), rtol=0, atol=1e-5)
    torch.testing.assert_close(ours.entropy(), theirs.entropy(), rtol=0, atol=1e-5)
    # A forbidden value is impossible: its log-probability is about -1e8, in both.
    forbidden = actions.clone()
    row, component = np.argwhere(~masks[:, match.action_spec.offsets[1]:match.action_spec.offsets[2]])[0]
    forbidden[row, 1] = int(component)
    assert ours.logp(forbidden)[row] < ILLEGAL_LOGIT / 2 and theirs.log_prob(forbidden)[row] < ILLEGAL_LOGIT / 2


def test_module_forward_masks_the_logits_of_real_decisions():
    net, match = module()
    observations, masks = real_decisions(match, 32)
    batch = {Columns.OBS: {"observation": torch.as_tensor(observations), "action_mask": torch.as_tensor(masks)}}
    logits = net.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    assert (logits[torch.as_tensor(masks) == 0] == ILLEGAL_LOGIT).all()
    assert (logits[torch.as_tensor(masks) == 1].abs() < 1e3).all()
    assert net.compute_values(batch).shape == (32,)


# ------------------------------------------------------------------ weights round trip
def rllib_run(folder: Path, net: MaskedPPOModule, match: Match, net_arch: list[int]) -> Path:
    """A run folder as train_rllib writes it, holding ``net``'s weights."""
    folder.mkdir(parents=True)
    config = TrainConfig(name="unit", ruleset=RULESET, total_timesteps=1, backend="rllib",
                         ppo={"net_arch": net_arch})
    (folder / "config.yaml").write_text(yaml.safe_dump(config.model_dump(), sort_keys=False))
    (folder / "run.json").write_text(json.dumps({"ruleset": RULESET, "backend": "rllib", "status": "finished"}))
    save_policy_weights(folder / FINAL_WEIGHTS, net.policy_state_dict(), net_arch, match.observation_spec.size,
                        match.action_spec.flat_size, 1)
    return folder


def test_saved_weights_load_as_a_captain_that_decides_like_the_module(tmp_path):
    net, match = module([32, 16])
    folder = rllib_run(tmp_path / "run", net, match, [32, 16])
    observations, masks = real_decisions(match, 40)
    batch = {Columns.OBS: {"observation": torch.as_tensor(observations), "action_mask": torch.as_tensor(masks)}}
    expected = net.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    for path in (folder, folder / FINAL_WEIGHTS):  # the folder and the weights file both resolve
        captain = make_captain(str(path), RULESET, match.action_spec)
        loaded = torch.as_tensor(np.concatenate(torch_logits(captain, observations, masks), axis=1))
        # sb3-contrib normalises each component (logits minus their log-sum-exp): so do the same here.
        ours = torch.cat([c - c.logsumexp(-1, keepdim=True) for c in
                          torch.split(expected, list(match.action_spec.nvec), dim=1)], dim=1)
        allowed = torch.as_tensor(masks).bool()
        torch.testing.assert_close(loaded[allowed], ours[allowed], rtol=0, atol=1e-5)
        assert (loaded[~allowed] < ILLEGAL_LOGIT / 2).all()
        assert captain.name == "ppo:run"


class TouchOnUnpickle:
    """Unpickling this creates ``path``: a stand-in for the command a crafted file would run."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Callable[..., None], tuple[Path]]:
        return Path.touch, (self.path,)


def test_a_crafted_pickle_in_the_weights_is_refused_without_running_it(tmp_path):
    net, match = module([8])
    folder = rllib_run(tmp_path / "run", net, match, [8])
    marker = tmp_path / "pwned"
    torch.save({"action_net.weight": TouchOnUnpickle(marker)}, folder / FINAL_WEIGHTS)
    torch.load(folder / FINAL_WEIGHTS, weights_only=False)  # the payload is live ...
    assert marker.exists()
    marker.unlink()
    with pytest.raises(ModelLoadError, match="not a plain tensor state dict"):  # ... and never runs here
        load_run_captain(folder, RULESET)
    assert not marker.exists()


@pytest.mark.parametrize(("damage", "message"), [
    (lambda f: (f / "final_policy.json").unlink(), "no final_policy.json beside it"),
    (lambda f: (f / "final_policy.json").write_text('{"format": "other"}'), "not naval-tactics/rllib-policy v1"),
    (lambda f: (f / "final_policy.json").write_text(json.dumps({
        "format": "naval-tactics/rllib-policy", "format_version": 1, "net_arch": [64]})), "config.yaml says \\[8\\]"),
    (lambda f: (f / "run.json").write_text('{"ruleset": "broadside", "backend": "rllib"}'),
     "trained on ruleset 'broadside', not 'pantheon'"),
])
def test_bad_weights_folders_are_refused_with_the_reason(tmp_path, damage, message):
    net, match = module([8])
    folder = rllib_run(tmp_path / "run", net, match, [8])
    damage(folder)
    with pytest.raises(ModelLoadError, match=message):
        load_run_captain(folder, RULESET)


# ------------------------------------------------------------------ config errors
@pytest.mark.parametrize(("overrides", "message"), [
    ({"backend": "spark"}, "backend"),
    ({"rllib": {"num_env_runners": -1}}, "rllib.num_env_runners"),
    ({"rllib": {"train_batch_size": 256}, "ppo": {"batch_size": 512}},
     "ppo.batch_size 512 .*larger than rllib.train_batch_size 256"),
    ({"rllib": {"env_runners": 2}}, "rllib.env_runners"),
])
def test_bad_rllib_settings_are_refused_by_field(overrides, message):
    data = {"name": "x", "ruleset": RULESET, "total_timesteps": 10, "backend": "rllib", **overrides}
    with pytest.raises(ConfigError, match=message):
        _validate(data)


def _validate(data: dict) -> TrainConfig:
    from naval_env.core.config import validate

    return validate(TrainConfig, data, "<test>")


@pytest.mark.parametrize(("update", "message"), [
    ({"backend": "local"}, "allowed: 'rllib'"),
    ({"imitation": {"teacher": "gunner"}}, "imitation.teacher is not supported"),
    ({"device": "cuda"}, "device 'cuda' is not supported"),
])
def test_what_only_the_rllib_backend_refuses_is_named(update, message):
    config = _validate({"name": "x", "ruleset": RULESET, "total_timesteps": 10, "backend": "rllib", **update})
    with pytest.raises(ConfigError, match=message):
        check_rllib(config)


def test_the_cli_refuses_an_unknown_backend_and_a_refused_config_leaves_no_run(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        train_main(["--backend", "spark"])
    assert exit_.value.code == 2 and "invalid choice: 'spark'" in capsys.readouterr().err
    assert train_main(["--config", "pantheon-rllib", "--imitate", "gunner", "--run-dir", str(tmp_path)]) == 2
    assert "imitation.teacher is not supported" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())


def test_an_iteration_without_runner_metrics_counts_no_steps() -> None:
    from naval_agents.training.rllib.train import sampled_lifetime

    assert sampled_lifetime({"env_runners": {"num_env_steps_sampled_lifetime": 4000}}) == 4000
    assert sampled_lifetime({"num_env_steps_sampled_lifetime": 2000, "env_runners": {}}) == 2000
    assert sampled_lifetime({"learners": {}}) is None
    # RLlib's NaN for a window that holds nothing yet (a loaded machine): no steps counted, not a crash
    assert sampled_lifetime({"env_runners": {"num_env_steps_sampled_lifetime": float("nan")}}) is None


def test_an_iteration_whose_episode_count_is_nan_ended_no_game() -> None:
    from naval_agents.training.rllib.callbacks import EPISODES, episode_summary

    assert episode_summary({"env_runners": {EPISODES: float("nan")}}) is None
    assert episode_summary({"env_runners": {}}) is None
    assert episode_summary({"env_runners": {EPISODES: 2.0}})["episodes"] == 2
