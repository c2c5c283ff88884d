"""Trained captains load without unpickling anything from the model file, and decide exactly as before.

A crafted model zip carries a pickle payload that would create a marker file when unpickled;
it is loaded through every entry point (the registry, the env's opponents as train.py uses
them, ``python -m naval_agents.export`` and ``evaluate.py --captains``) and the marker never appears.
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
import torch
import yaml

from naval_agents.captains.arena import play_game
from naval_agents.captains.base import Decision
from naval_agents.captains.learned import MaskablePPOCaptain, ModelLoadError, load_run_captain
from naval_agents.captains.registry import make_captain
from naval_agents.export.onnx_export import export_run
from naval_agents.export.parity import DecisionSet, collect_decisions, torch_logits
from naval_agents.training.config import load_train_config
from naval_agents.training.run import train
from naval_env.core.ruleset import get_ruleset
from naval_env.envs.gym_env import NavalEnv
from naval_env.envs.match import Match

pytestmark = pytest.mark.train

REPO = Path(__file__).resolve().parents[2]
NET_ARCH = [32, 32]


class TouchOnUnpickle:
    """Unpickling this creates ``path``: a stand-in for the shell command a crafted file would run."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[Callable[..., None], tuple[Path]]:
        return Path.touch, (self.path,)


def serialized_payload(marker: Path) -> dict[str, str]:
    """A ``data`` entry in stable-baselines3's own format, which ``MaskablePPO.load`` unpickles."""
    return {":type:": "<class 'builtins.object'>",
            ":serialized:": base64.b64encode(pickle.dumps(TouchOnUnpickle(marker))).decode()}


def rewrite_zip(path: Path, replace: dict[str, bytes | None]) -> None:
    """Rewrite the model zip at ``path`` with entries replaced (``None``: removed)."""
    with zipfile.ZipFile(path) as archive:
        entries = {name: archive.read(name) for name in archive.namelist()}
    for name, content in replace.items():
        if content is None:
            entries.pop(name, None)
        else:
            entries[name] = content
    with zipfile.ZipFile(path, "w") as archive:
        for name, content in entries.items():
            archive.writestr(name, content)


def edit_data(path: Path, edit: Callable[[dict], None]) -> None:
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    edit(data)
    rewrite_zip(path, {"data": json.dumps(data).encode()})


def edit_weights(path: Path, edit: Callable[[dict[str, torch.Tensor]], None]) -> None:
    with zipfile.ZipFile(path) as archive:
        state = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    edit(state)
    buffer = io.BytesIO()
    torch.save(state, buffer)
    rewrite_zip(path, {"policy.pth": buffer.getvalue()})


def model_zips(run: Path) -> dict[str, Path]:
    return {"final": run / "final_model.zip", "best": run / "best_model.zip",
            "checkpoint": min((run / "checkpoints").glob("*.zip"))}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real tiny run of train.py's pipeline: final, best and checkpoint zips, config.yaml, run.json."""
    config = load_train_config("configs/train/pantheon.yaml", {
        "total_timesteps": 256, "n_envs": 2, "n_steps": 64, "batch_size": 64, "progress_bar": False,
        "run_dir": str(tmp_path_factory.mktemp("runs")), "name": "tiny"})
    config = config.model_copy(update={
        "checkpoint_every": 128,
        "ppo": config.ppo.model_copy(update={"net_arch": NET_ARCH, "n_epochs": 1}),
        "eval": config.eval.model_copy(update={"games": 1, "every": 128}),
    })
    return train(config)


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "payload_ran"


@pytest.fixture
def crafted(run: Path, tmp_path: Path, marker: Path) -> Path:
    """A copy of the run whose every model zip has a pickle payload in ``data``."""
    copy = shutil.copytree(run, tmp_path / "crafted", ignore=shutil.ignore_patterns("tb"))
    for path in model_zips(copy).values():
        edit_data(path, lambda data: data.update(payload=serialized_payload(marker)))
    return copy


# ------------------------------------------------------------------ same decisions as the SB3 model
@pytest.fixture(scope="module")
def decisions(run: Path) -> DecisionSet:
    from sb3_contrib import MaskablePPO

    reference = MaskablePPOCaptain(MaskablePPO.load(run / "final_model.zip", device="cpu"))
    return collect_decisions(reference, "pantheon", 300, seed=3, scenarios=["duel", "squadron"])


@pytest.mark.parametrize("which", ["final", "best", "checkpoint"])
def test_loaded_policy_decides_exactly_like_the_sb3_model(run: Path, decisions: DecisionSet, which: str) -> None:
    from sb3_contrib import MaskablePPO

    path = model_zips(run)[which]
    model = MaskablePPO.load(path, device="cpu")  # our own file, just trained: the reference
    reference = MaskablePPOCaptain(model, deterministic=True)
    loaded = load_run_captain(path, "pantheon", deterministic=True)
    assert loaded.name == f"ppo:{run.name}"
    ours, theirs = loaded.model.policy.state_dict(), model.policy.state_dict()
    assert list(ours) == list(theirs) and all(torch.equal(ours[k], theirs[k]) for k in ours)
    # Masked logits per component, bit for bit, on decisions from real games.
    for mine, sb3 in zip(torch_logits(loaded, decisions.observations, decisions.masks),
                         torch_logits(reference, decisions.observations, decisions.masks), strict=True):
        assert mine.shape[0] == len(decisions.actions) and np.array_equal(mine, sb3)
    steps = [Decision("red_0", o, m) for o, m in zip(decisions.observations, decisions.masks)]
    assert np.array_equal(np.stack([loaded.act(d) for d in steps]), np.stack([reference.act(d) for d in steps]))
    # Sampling draws the same actions from the same torch seed.
    sampled = []
    for captain in (load_run_captain(path, "pantheon", deterministic=False),
                    MaskablePPOCaptain(model, deterministic=False)):
        torch.manual_seed(11)
        sampled.append(np.stack([captain.act(d) for d in steps]))
    assert np.array_equal(*sampled)
    assert len(np.unique(sampled[0], axis=0)) > 1  # it did sample


# ------------------------------------------------------------------ a crafted data entry runs nothing
def test_the_payload_is_live(crafted: Path, marker: Path) -> None:
    """The crafted file is a real threat: stable-baselines3's own loader runs the payload."""
    from sb3_contrib import MaskablePPO

    MaskablePPO.load(crafted / "final_model.zip", device="cpu")
    assert marker.exists()


@pytest.mark.parametrize("which", ["final", "best", "checkpoint"])
def test_registry_loads_a_crafted_zip_without_running_it(crafted: Path, marker: Path, which: str) -> None:
    match = Match("pantheon", scenario="duel", illegal_action="raise")
    path = crafted if which == "final" else model_zips(crafted)[which]
    captain = make_captain(str(path), "pantheon", match.action_spec)
    record = play_game(match, {"red": captain, "blue": make_captain("gunner", "pantheon", match.action_spec)}, 4)
    assert record.decisions > 0 and match.game.is_over
    assert not marker.exists()


def test_training_opponents_load_a_crafted_run_without_running_it(crafted: Path, marker: Path) -> None:
    env = NavalEnv("pantheon", scenario="duel", learner="red_0", opponent=[str(crafted)])  # train.py --opponents
    assert [type(c) for c in env._opponent_pool] == [MaskablePPOCaptain]
    env.reset(seed=0)
    for _ in range(20):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            break
    assert not marker.exists()


def test_export_cli_exports_a_crafted_run_without_running_it(crafted: Path, marker: Path, tmp_path: Path) -> None:
    out = tmp_path / "crafted.onnx"
    done = subprocess.run([sys.executable, "-m", "naval_agents.export", str(crafted), "--out", str(out), "--parity", "50"],
                          check=False, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert out.is_file() and "parity PASS: 50 decisions" in done.stdout
    assert not marker.exists()


def test_evaluate_plays_a_crafted_run_without_running_it(crafted: Path, marker: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "evaluate.py", "--scenario", "duel", "--captains", f"crafted={crafted}", "random",
         "--games", "1", "--workers", "2", "--no-progress", "--out", str(tmp_path / "results")],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "results" / "results.json").is_file()
    assert not marker.exists()


def test_payload_in_policy_kwargs_is_refused_without_running_it(crafted: Path, marker: Path) -> None:
    path = crafted / "final_model.zip"
    edit_data(path, lambda data: data.update(policy_kwargs=serialized_payload(marker)))
    with pytest.raises(ModelLoadError, match="policy_kwargs .* can not be rebuilt without unpickling"):
        load_run_captain(crafted, "pantheon")
    assert not marker.exists()


def test_payload_in_the_weights_is_refused_without_running_it(crafted: Path, marker: Path) -> None:
    buffer = io.BytesIO()
    torch.save({"action_net.weight": TouchOnUnpickle(marker)}, buffer)
    rewrite_zip(crafted / "final_model.zip", {"policy.pth": buffer.getvalue()})
    with pytest.raises(ModelLoadError, match="policy.pth is not a plain tensor state dict"):
        load_run_captain(crafted, "pantheon")
    assert not marker.exists()


# ------------------------------------------------------------------ refusals, each naming file and reason
def _list_manifest(run: Path) -> None:
    (run / "run.json").write_text(json.dumps([{"ruleset": "pantheon"}]))


def _other_ruleset(run: Path) -> None:
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "ruleset": "pursuit"}))


def _not_a_zip(run: Path) -> None:
    (run / "final_model.zip").write_text("not a zip")


def _no_weights(run: Path) -> None:
    rewrite_zip(run / "final_model.zip", {"policy.pth": None})


def _no_data(run: Path) -> None:
    rewrite_zip(run / "final_model.zip", {"data": None})


def _data_not_an_object(run: Path) -> None:
    rewrite_zip(run / "final_model.zip", {"data": b"[1, 2]"})


def _layer_missing(run: Path) -> None:
    edit_weights(run / "final_model.zip", lambda state: state.pop("value_net.bias"))


def _other_net_arch(run: Path) -> None:
    config = yaml.safe_load((run / "config.yaml").read_text())
    config["ppo"]["net_arch"] = [64]
    (run / "config.yaml").write_text(yaml.safe_dump(config))


def _invalid_config(run: Path) -> None:
    config = yaml.safe_load((run / "config.yaml").read_text())
    config["ppo"]["n_epochs"] = 0
    (run / "config.yaml").write_text(yaml.safe_dump(config))


def _wider_observations(run: Path) -> None:
    def widen(state: dict[str, torch.Tensor]) -> None:
        for key in ("mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight"):
            state[key] = torch.cat([state[key], torch.zeros(state[key].shape[0], 3)], dim=1)

    edit_weights(run / "final_model.zip", widen)


OBSERVATION_SIZE = get_ruleset("pantheon").observation_spec(get_ruleset("pantheon").load_config()).size


@pytest.mark.parametrize("damage,message", [
    (_list_manifest, r"run.json: a run manifest is a JSON object .*, found a JSON list"),
    (_other_ruleset, r"final_model.zip: trained on ruleset 'pursuit', not 'pantheon'"),
    (_not_a_zip, r"final_model.zip: not a stable-baselines3 model zip \(File is not a zip file\)"),
    (_no_weights, r"final_model.zip: no 'policy.pth' inside"),
    (_no_data, r"final_model.zip: no 'data' entry"),
    (_data_not_an_object, r"final_model.zip: 'data' is a JSON list, not an object"),
    (_layer_missing, r"final_model.zip: the weights do not fit the policy .*net_arch \[32, 32\].*value_net.bias"),
    (_other_net_arch, r"final_model.zip: the model's net_arch is \[32, 32\], but .*config.yaml says \[64\]"),
    (_invalid_config, r"(?s)config.yaml: the run's config does not validate.*'ppo.n_epochs'"),
    (_wider_observations, (rf"final_model.zip: the model takes observations of {OBSERVATION_SIZE + 3} values, "
                           rf"but ruleset pantheon \S+ observations have {OBSERVATION_SIZE}")),
])
def test_bad_model_files_are_refused_with_the_reason(run: Path, tmp_path: Path, damage: Callable[[Path], None],
                                                     message: str) -> None:
    copy = shutil.copytree(run, tmp_path / "run", ignore=shutil.ignore_patterns("tb"))
    damage(copy)
    with pytest.raises(ModelLoadError, match=message):
        make_captain(str(copy), "pantheon", Match("pantheon").action_spec)
    with pytest.raises(ModelLoadError):  # export reads the ruleset from run.json, so its wording may differ
        export_run(copy, tmp_path / "out.onnx")
    assert not (tmp_path / "out.onnx").exists()


# ------------------------------------------------------------------ layouts checked at load, not mid-game
def _fewer_ships() -> object:
    default = get_ruleset("pantheon").load_config()
    return default.model_copy(update={"house_rules": default.house_rules.model_copy(update={"max_ships_per_side": 3})})


def test_a_model_that_does_not_fit_the_games_is_refused_at_load(run: Path) -> None:
    ruleset = get_ruleset("pantheon")
    fewer = _fewer_ships()
    size = ruleset.observation_spec(fewer).size
    assert size != OBSERVATION_SIZE
    with pytest.raises(ModelLoadError, match=rf"takes observations of {OBSERVATION_SIZE} values, but ruleset "
                                             rf"pantheon \S+ observations have {size}"):
        make_captain(str(run), "pantheon", ruleset.action_spec(fewer), config=fewer)


def test_evaluate_refuses_a_model_that_does_not_fit_before_playing(run: Path, tmp_path: Path) -> None:
    config = yaml.safe_load((REPO / "configs/rulesets/pantheon.yaml").read_text())
    config["house_rules"]["max_ships_per_side"] = 3
    config["scenarios"] = {"duel": config["scenarios"]["duel"]}  # the others field more ships
    (tmp_path / "fewer.yaml").write_text(yaml.safe_dump(config))
    done = subprocess.run(
        [sys.executable, "evaluate.py", "--scenario", "duel", "--config", str(tmp_path / "fewer.yaml"),
         "--captains", str(run), "random", "--games", "1", "--workers", "1", "--no-progress",
         "--out", str(tmp_path / "results")],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "takes observations of" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "results").exists()
