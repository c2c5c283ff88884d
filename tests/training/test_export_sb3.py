"""``naval-tactics export --sb3``: a run's captain as a zip that stock sb3-contrib loads and plays.

The zip is loaded in a subprocess where nothing of this package can be imported: under ``make test`` with
``agents``, ``naval_env`` and ``naval_tactics`` blocked in ``sys.modules``; under ``make test-sb3-stock`` in a
venv that holds only sb3-contrib, CPU torch and their dependencies (NAVAL_SB3_STOCK_PYTHON names its python).
There ``MaskablePPO.load`` must rebuild the stock policy and ``predict`` with the masks must take the run
policy's most likely actions on decisions from real games.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
from sb3_contrib import MaskablePPO

import naval_env  # noqa: F401 - registers the gym ids
from naval_agents.captains.learned import LoadedModel, MaskablePPOCaptain, load_policy
from naval_agents.captains.networks.masked_policy import SegmentedMaskablePolicy
from naval_agents.captains.networks.slot_network import slot_layout
from naval_agents.export.__main__ import main as export_main
from naval_agents.export.onnx_export import ExportError
from naval_agents.export.parity import collect_decisions
from naval_agents.export.sb3_zip import STOCK_POLICY, default_zip_path, export_sb3
from naval_env.core.ruleset import get_ruleset

pytestmark = pytest.mark.train

#: The python that loads the zip: a venv with only sb3-contrib (make test-sb3-stock), else this one, blocked.
# abspath, not resolve(): a venv's python is a symlink to the base interpreter, which would leave the venv.
STOCK_PYTHON = os.path.abspath(os.environ.get("NAVAL_SB3_STOCK_PYTHON", sys.executable))
OURS = ("naval_agents", "naval_env", "naval_tactics")

LOAD_AND_PREDICT = f"""
import importlib.util, json, sys
installed = [name for name in {OURS!r} if importlib.util.find_spec(name) is not None]
for name in {OURS!r}:
    sys.modules[name] = None   # 'import agents...' now raises ModuleNotFoundError, as without this package
import numpy as np
from sb3_contrib import MaskablePPO
model = MaskablePPO.load(sys.argv[1], device="cpu")
data = np.load(sys.argv[2])
actions, _ = model.predict(data["observations"], action_masks=data["masks"], deterministic=True)
policy = type(model.policy)
print(json.dumps({{"policy": policy.__module__ + "." + policy.__qualname__, "actions": actions.tolist(),
                  "installed": installed,
                  "ours_loaded": sorted(m for m in sys.modules if m.split(".")[0] in {OURS!r} and sys.modules[m])}}))
"""


def _write_run(folder: Path, ruleset_id: str, policy_kwargs: dict, config_yaml: str | None = None,
               learn: int = 0) -> Path:
    """A run folder as train.py leaves one: the project's SegmentedMaskablePolicy saved in final_model.zip."""
    folder.mkdir(parents=True)
    ruleset = get_ruleset(ruleset_id)
    model = MaskablePPO(SegmentedMaskablePolicy, gym.make(ruleset.gym_id), n_steps=64, batch_size=64, n_epochs=1,
                        seed=0, device="cpu", policy_kwargs=policy_kwargs)
    if learn:   # weights moved off their initial values, so a layer loaded in the wrong place shows
        model.learn(learn)
    model.save(folder / "final_model.zip")
    manifest = {"ruleset": ruleset_id, "ruleset_version": ruleset.version, "name": folder.name, "seed": 0,
                "train_config": {"ruleset_config": None}}
    (folder / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    if config_yaml is not None:
        (folder / "config.yaml").write_text(config_yaml, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def mlp_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = ("name: tiny\nruleset: pantheon\ntotal_timesteps: 128\nn_envs: 1\nppo:\n  net_arch: [32, 32]\n"
              "  n_steps: 64\n  batch_size: 32\n  gamma: 0.97\n  learning_rate_schedule: linear\n")
    return _write_run(tmp_path_factory.mktemp("runs") / "tiny", "pantheon", {"net_arch": [32, 32]}, config,
                      learn=128)


@pytest.fixture(scope="module")
def exported(mlp_run: Path) -> Path:
    result = export_sb3(mlp_run, check=100)
    assert result.checked == 100
    return result.zip_path


def _data(zip_path: Path) -> dict:
    with zipfile.ZipFile(zip_path) as archive:
        return json.loads(archive.read("data"))


def test_the_zip_names_the_stock_policy_and_pickles_nothing_of_this_package(exported: Path, mlp_run: Path) -> None:
    assert exported == mlp_run / "final_model.sb3.zip" == default_zip_path(mlp_run / "final_model.zip")
    data = _data(exported)
    policy_class = data["policy_class"]
    assert f'{policy_class["__module__"]}.MaskableActorCriticPolicy' == STOCK_POLICY
    for key, value in data.items():   # every pickled entry: the policy class, spaces, schedules
        if isinstance(value, dict) and ":serialized:" in value:
            pickled = base64.b64decode(value[":serialized:"])
            assert not any(name.encode() in pickled for name in OURS), key
    # The run's own zip does pickle this package: the reason for the export.
    assert b"naval_agents.captains.networks" in base64.b64decode(_data(mlp_run / "final_model.zip")["policy_class"][":serialized:"])


def test_the_zip_carries_the_runs_ppo_settings(exported: Path) -> None:
    model = MaskablePPO.load(exported, device="cpu")
    assert (model.n_steps, model.batch_size, model.gamma) == (64, 32, 0.97)
    assert model.policy.net_arch == [32, 32]
    assert model.lr_schedule(1.0) > model.lr_schedule(0.5) > 0   # the linear schedule came along


def test_stock_sb3_contrib_alone_loads_the_zip_and_acts_as_the_run_policy(exported: Path, mlp_run: Path,
                                                                           tmp_path: Path) -> None:
    policy, _ = load_policy(mlp_run, "pantheon")
    captain = MaskablePPOCaptain(LoadedModel(policy), deterministic=True)
    decisions = collect_decisions(captain, "pantheon", 300, seed=3)
    assert len({tuple(a) for a in decisions.actions}) > 1, "a policy that always plays one action proves little"
    arrays = tmp_path / "decisions.npz"
    np.savez(arrays, observations=decisions.observations, masks=decisions.masks)
    done = subprocess.run([STOCK_PYTHON, "-c", LOAD_AND_PREDICT, str(exported), str(arrays)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "PYTHONPATH": ""})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["policy"] == STOCK_POLICY
    assert report["ours_loaded"] == []
    if STOCK_PYTHON != sys.executable:   # make test-sb3-stock: the venv really lacks this package
        assert report["installed"] == []
    assert np.array_equal(np.asarray(report["actions"]), decisions.actions)


def test_the_runs_own_zip_does_not_load_there(mlp_run: Path, tmp_path: Path) -> None:
    """What the export is for: the same subprocess fails on the run's own zip."""
    arrays = tmp_path / "none.npz"
    np.savez(arrays, observations=np.zeros((1, 1)), masks=np.zeros((1, 1)))
    done = subprocess.run([STOCK_PYTHON, "-c", LOAD_AND_PREDICT, str(mlp_run / "final_model.zip"), str(arrays)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "PYTHONPATH": ""})
    assert done.returncode != 0
    assert "naval_agents" in done.stderr


def test_a_slot_network_run_is_refused_with_the_onnx_way_out(tmp_path: Path) -> None:
    ruleset = get_ruleset("flotilla")
    layout = slot_layout(ruleset.observation_spec(ruleset.load_config(None)))
    run = _write_run(tmp_path / "slots", "flotilla",
                     {"net_arch": [16], "slots": {"layout": layout, "width": 16, "heads": 4, "layers": 1}})
    with pytest.raises(ExportError, match=r"slot-network run .*stock sb3-contrib cannot rebuild.*\.onnx"):
        export_sb3(run, tmp_path / "out.zip", check=0)
    assert not (tmp_path / "out.zip").exists()


@pytest.mark.parametrize(("out", "match"), [("model.onnx", "an SB3 model is a .zip"),
                                            ("final_model.zip", "is the run's own model")])
def test_bad_output_paths_are_refused(mlp_run: Path, out: str, match: str) -> None:
    with pytest.raises(ExportError, match=match):
        export_sb3(mlp_run, mlp_run / out, check=0)


def test_the_cli_writes_the_zip_and_reports_the_check(mlp_run: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "hub" / "captain.zip"
    assert export_main([str(mlp_run), "--sb3", "--out", str(out), "--parity", "20"]) == 0
    printed = capsys.readouterr().out
    assert out.is_file() and str(out) in printed
    assert STOCK_POLICY in printed and "20 decisions" in printed
    assert _data(out)["policy_class"]["__module__"] == "sb3_contrib.common.maskable.policies"


def test_the_cli_refuses_conformance_vectors_with_sb3(mlp_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert export_main([str(mlp_run), "--sb3", "--conformance", "5"]) == 2
    assert "--conformance is for ONNX exports" in capsys.readouterr().err


def test_the_cli_still_needs_out_for_an_onnx_export(mlp_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert export_main([str(mlp_run)]) == 2
    assert "--out NAME.onnx is required" in capsys.readouterr().err
