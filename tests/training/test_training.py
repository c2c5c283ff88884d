"""Training: config validation, a tiny smoke run, and the learned captain behind the captain interface."""

import json

import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
import torch

from naval_agents.captains.arena import play_game
from naval_agents.captains.learned import MaskablePPOCaptain, ModelLoadError, load_run_captain
from naval_agents.captains.registry import make_captain
from naval_agents.training.config import PPOSettings, load_train_config, shipped_train_configs
from naval_agents.training.run import learning_rate, train, write_manifest
from naval_agents.training.starts import scenario_weights
from naval_env.core.errors import ConfigError
from naval_env.envs.match import Match

pytestmark = pytest.mark.train

DEFAULT = "configs/train/pantheon.yaml"


def test_default_config_is_valid():
    config = load_train_config(DEFAULT)
    assert config.ruleset == "pantheon" and config.opponents.pool


@pytest.mark.parametrize("override,expected", [
    ({"n_envs": 0}, "n_envs"),
    ({"opponent_mode": "league"}, "opponents.mode"),
    ({"batch_size": 100000}, "larger than one rollout"),
])
def test_bad_values_are_named(override, expected):
    with pytest.raises(ConfigError, match=expected):
        load_train_config(DEFAULT, override)


def test_unknown_key_is_named(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("name: x\nruleset: pantheon\ntotal_timesteps: 10\nlearning_rate: 0.1\n")
    with pytest.raises(ConfigError, match="learning_rate.*allowed keys here:.*ppo"):
        load_train_config(path)


def test_unknown_override_is_refused():
    with pytest.raises(ConfigError, match="unknown override 'gamma'"):
        load_train_config(DEFAULT, {"gamma": 0.5})


def test_linear_schedule_falls_from_the_learning_rate_to_zero():
    schedule = learning_rate(PPOSettings(learning_rate=4e-4, learning_rate_schedule="linear"))
    # SB3 calls a schedule with the share of the run still to go: 1 at the start, 0 at the end.
    assert [schedule(p) for p in (1.0, 0.25, 0.0)] == pytest.approx([4e-4, 1e-4, 0.0])
    assert learning_rate(PPOSettings(learning_rate=4e-4)) == 4e-4


def test_unknown_schedule_is_named(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("name: x\nruleset: pantheon\ntotal_timesteps: 10\nppo: {learning_rate_schedule: cosine}\n")
    with pytest.raises(ConfigError, match="learning_rate_schedule.*'constant' or 'linear'"):
        load_train_config(path)


def test_manifest_records_the_cpu_kernels(tmp_path, monkeypatch):
    # Same seed, other kernels, other weights: a rerun can only be compared knowing which ran.
    for name in ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_ENABLE_INSTRUCTIONS", "AVX2")
    write_manifest(tmp_path, load_train_config(DEFAULT), {})
    kernels = json.loads((tmp_path / "run.json").read_text())["cpu_kernels"]
    assert kernels["torch_cpu_capability"] == torch.backends.cpu.get_cpu_capability()
    assert kernels["env"] == {"MKL_ENABLE_INSTRUCTIONS": "AVX2"}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    config = load_train_config(DEFAULT, {
        "total_timesteps": 512, "n_envs": 2, "n_steps": 128, "batch_size": 128, "run_dir": str(folder),
        "name": "smoke", "progress_bar": False, "opponent_mode": "self_play",
    })
    config = config.model_copy(update={
        "checkpoint_every": 256,
        "ppo": config.ppo.model_copy(update={"learning_rate_schedule": "linear"}),  # must save and load back
        "eval": config.eval.model_copy(update={"games": 2, "every": 256}),
        "opponents": config.opponents.model_copy(update={
            "self_play": config.opponents.self_play.model_copy(update={"snapshot_every": 256})}),
    })
    return train(config)


def test_smoke_run_writes_a_repeatable_run_folder(tiny_run):
    for name in ("final_model.zip", "best_model.zip", "config.yaml", "run.json", "eval_history.json"):
        assert (tiny_run / name).is_file(), name
    manifest = json.loads((tiny_run / "run.json").read_text())
    assert manifest["ruleset"] == "pantheon" and manifest["status"] == "finished"
    assert manifest["seed"] == 0 and "torch" in manifest["versions"]
    assert load_train_config(tiny_run / "config.yaml").total_timesteps == 512
    assert any((tiny_run / "tb").rglob("events.out.tfevents*"))
    assert len(list((tiny_run / "checkpoints").glob("*.zip"))) == 2  # at 256 and 512 timesteps


def test_learned_captain_plays_behind_the_captain_interface(tiny_run):
    match = Match("pantheon", scenario="duel", illegal_action="raise")
    captain = make_captain(str(tiny_run), "pantheon", match.action_spec)
    record = play_game(match, {"red": captain, "blue": make_captain("gunner", "pantheon", match.action_spec)}, 3)
    assert record.decisions > 0  # every learned action was legal, or play_game would have raised


def test_loaded_captain_plays_torchs_most_likely_actions_through_its_numpy_copy(tiny_run):
    captain = load_run_captain(tiny_run, "pantheon")
    assert captain.network is not None
    through_torch = MaskablePPOCaptain(captain.model, name="torch", deterministic=True)
    match = Match("pantheon", scenario="squadron", illegal_action="raise")
    gunner = make_captain("gunner", "pantheon", match.action_spec)
    records = [play_game(match, {"red": learner, "blue": gunner}, 5, keep_events=False, keep_actions=True)
               for learner in (captain, through_torch)]
    assert records[0].decisions > 20 and records[0].actions == records[1].actions
    assert load_run_captain(tiny_run, "pantheon", deterministic=False).network is None   # samples: torch
    assert load_run_captain(tiny_run, "pantheon", numpy_copy=False).network is None   # torch asked for


@pytest.mark.parametrize("name", shipped_train_configs())
def test_every_shipped_run_config_is_valid_and_named_after_its_file(name):
    config = load_train_config(name)
    assert config.name == name
    weights = scenario_weights(config.ruleset, config.ruleset_config, config.scenario)   # real scenarios only
    assert abs(sum(weights.values()) - 1.0) < 1e-9


def test_zip_outside_a_run_folder_is_refused(tiny_run, tmp_path):
    stray = tmp_path / "model.zip"
    stray.write_bytes((tiny_run / "final_model.zip").read_bytes())
    with pytest.raises(ModelLoadError, match="not inside a training run folder"):
        load_run_captain(stray, "pantheon")


def test_run_for_another_ruleset_is_refused(tiny_run):
    with pytest.raises(ModelLoadError, match="trained on ruleset 'pantheon', not 'pursuit'"):
        load_run_captain(tiny_run, "pursuit")


@pytest.mark.parametrize(("net_arch", "where"), [("[0]", "ppo.net_arch.0"), ("[128, -3]", "ppo.net_arch.1")])
def test_layer_widths_must_be_positive(tmp_path, net_arch, where):
    path = tmp_path / "run.yaml"
    path.write_text(f"name: x\nruleset: pantheon\ntotal_timesteps: 10\nppo: {{net_arch: {net_arch}}}\n")
    with pytest.raises(ConfigError, match=rf"field '{where}': Input should be greater than or equal to 1"):
        load_train_config(path)


@pytest.mark.parametrize("seed", [-1, 2**32, 2**64 - 1])
def test_seed_outside_numpys_range_is_named(seed):
    with pytest.raises(ConfigError, match=rf"field 'seed': Input should be .* (0|4294967295) \(got {seed}\)"):
        load_train_config(DEFAULT, {"seed": seed})
