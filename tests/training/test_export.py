"""ONNX export: parity with the torch model, a full game, no torch at play time, and every refusal."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest

pytest.importorskip("torch")  # the [train] extra: without it this module is skipped

import naval_env  # noqa: F401 - registers naval/Pantheon-v0
from naval_agents.captains.arena import play_game
from naval_agents.captains.learned import ModelLoadError
from naval_agents.captains.onnx_captain import OnnxCaptain
from naval_agents.captains.registry import make_captain
from naval_agents.captains.sidecar import FORMAT, FORMAT_VERSION, sha256_file, sidecar_path
from naval_agents.export.onnx_export import ExportError, ExportResult, export_run
from naval_agents.export.parity import check_parity
from naval_env.core.ruleset import get_ruleset
from naval_env.core.spaces import ActionSpec, ObservationSpec
from naval_env.envs.match import Match

pytestmark = pytest.mark.train

REPO = Path(__file__).resolve().parents[2]


def _write_run(folder: Path, **overrides: Any) -> Path:
    from sb3_contrib import MaskablePPO

    folder.mkdir(parents=True)
    env = gym.make("naval/Pantheon-v0")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32, 32]})
    model.learn(128)
    model.save(folder / "final_model.zip")
    manifest = {
        "ruleset": "pantheon", "ruleset_version": get_ruleset("pantheon").version, "scenario": "duel",
        "name": folder.name, "created": "2025-01-01T00:00:00+00:00", "seed": 0,
        "versions": {"sb3_contrib": "test"}, "train_config": {"total_timesteps": 128},
    }
    manifest.update(overrides)
    (folder / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> ExportResult:
    base = tmp_path_factory.mktemp("export")
    run = _write_run(base / "runs" / "tiny")
    return export_run(run, base / "captains" / "tiny.onnx")


@pytest.fixture(scope="module")
def onnx_captain(exported: ExportResult) -> OnnxCaptain:
    return OnnxCaptain(exported.onnx_path, expected_ruleset="pantheon")


@pytest.fixture
def copy(exported: ExportResult, tmp_path: Path) -> Path:
    """A private copy of the export (graph + sidecar) to damage."""
    target = tmp_path / "copy.onnx"
    shutil.copy(exported.onnx_path, target)
    shutil.copy(exported.sidecar_path, sidecar_path(target))
    return target


def _edit_sidecar(onnx_path: Path, edit: Any) -> None:
    path = sidecar_path(onnx_path)
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


# ------------------------------------------------------------------ export and parity
def test_sidecar_describes_the_export(exported: ExportResult) -> None:
    data = json.loads(exported.sidecar_path.read_text())
    ruleset = get_ruleset("pantheon")
    config = ruleset.load_config()
    obs_spec, action_spec = ruleset.observation_spec(config), ruleset.action_spec(config)
    assert exported.sidecar_path == exported.onnx_path.with_suffix(".json")
    assert (data["format"], data["format_version"]) == (FORMAT, FORMAT_VERSION)
    assert data["ruleset"] == {"id": "pantheon", "version": ruleset.version}
    assert data["scenario"] == "duel"
    assert data["observation"]["size"] == obs_spec.size
    assert data["observation"]["fields"] == obs_spec.to_json()
    assert all({"name", "offset", "size", "scale", "description"} <= f.keys() for f in data["observation"]["fields"])
    assert data["action"]["components"] == action_spec.to_json()
    assert data["action"]["flat_mask_size"] == action_spec.flat_size
    assert "1.0 = allowed" in data["action"]["mask_convention"]
    onnx = data["onnx"]
    assert [i["name"] for i in onnx["inputs"]] == ["observation", "action_mask"]
    assert [o["name"] for o in onnx["outputs"]] == [f"logits_{c.name}" for c in action_spec.components] + ["action"]
    assert onnx["opset"] == 17
    assert onnx["sha256"] == sha256_file(exported.onnx_path)
    assert data["training_run"]["name"] == "tiny" and data["training_run"]["seed"] == 0
    assert data["training_run"]["versions"] == {"sb3_contrib": "test"}
    assert data["exported_at"]


def test_parity_with_torch_on_real_games(exported: ExportResult, onnx_captain: OnnxCaptain) -> None:
    report = check_parity(exported.torch_captain, onnx_captain, n=1000, seed=1)
    assert report.n >= 1000
    assert report.mismatches == 0, report.summary()
    assert report.max_abs_diff <= 1e-5, report.summary()
    assert report.masked_leaks == 0
    assert len(report.scenarios) >= 2 and {"random", "rammer"} <= set(report.opponents)
    assert report.ok


def test_onnx_captain_plays_a_full_game(onnx_captain: OnnxCaptain) -> None:
    match = Match("pantheon", scenario="squadron")
    record = play_game(match, {"red": onnx_captain, "blue": make_captain("rammer", "pantheon", match.action_spec)},
                       seed=5)
    assert match.game.is_over and record.decisions > 0
    assert record.captains["red"] == "onnx:tiny"


def test_registry_loads_onnx_paths(exported: ExportResult) -> None:
    spec = Match("pantheon").action_spec
    captain = make_captain(str(exported.onnx_path), "pantheon", spec)
    assert isinstance(captain, OnnxCaptain) and captain.needs_observation


def test_onnx_captain_needs_no_torch(exported: ExportResult) -> None:
    code = f"""
import sys
from naval_agents.captains.onnx_captain import OnnxCaptain
from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import make_captain
from naval_env.envs.match import Match
captain = OnnxCaptain({str(exported.onnx_path)!r}, expected_ruleset="pantheon")
match = Match("pantheon")
play_game(match, {{"red": captain, "blue": make_captain("random", "pantheon", match.action_spec)}}, seed=1)
assert match.game.is_over
assert "torch" not in sys.modules, "torch was imported"
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], check=False, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "ok" in done.stdout, done.stderr


# ------------------------------------------------------------------ refusals when loading
def test_refuses_a_file_that_is_not_onnx(copy: Path) -> None:
    copy.write_bytes(b"definitely not a protobuf")
    with pytest.raises(ModelLoadError, match="not a valid ONNX model"):
        OnnxCaptain(copy)


def test_refuses_a_missing_sidecar(copy: Path) -> None:
    sidecar_path(copy).unlink()
    with pytest.raises(ModelLoadError, match="no sidecar copy.json"):
        OnnxCaptain(copy)


def test_refuses_a_sidecar_that_is_not_json(copy: Path) -> None:
    sidecar_path(copy).write_text("{ not json")
    with pytest.raises(ModelLoadError, match="invalid sidecar, not readable JSON"):
        OnnxCaptain(copy)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d.update(format="something-else"), "format is 'something-else'"),
    (lambda d: d.pop("observation"), "missing 'observation.size'"),
    (lambda d: d["action"].update(flat_mask_size="266"), "'action.flat_mask_size' is '266'"),
])
def test_refuses_an_invalid_sidecar(copy: Path, edit: Any, message: str) -> None:
    _edit_sidecar(copy, edit)
    with pytest.raises(ModelLoadError, match=message):
        OnnxCaptain(copy)


def test_refuses_an_unknown_format_version(copy: Path) -> None:
    _edit_sidecar(copy, lambda d: d.update(format_version=99))
    with pytest.raises(ModelLoadError, match="unknown sidecar format_version 99"):
        OnnxCaptain(copy)


def test_refuses_a_sha256_mismatch(copy: Path) -> None:
    _edit_sidecar(copy, lambda d: d["onnx"].update(sha256="0" * 64))
    with pytest.raises(ModelLoadError, match="sha256 .* does not match its sidecar"):
        OnnxCaptain(copy)


def test_refuses_another_ruleset(copy: Path) -> None:
    with pytest.raises(ModelLoadError, match="exported for ruleset 'pantheon', not 'trireme_wars'"):
        OnnxCaptain(copy, expected_ruleset="trireme_wars")
    _edit_sidecar(copy, lambda d: d["ruleset"].update(id="atlantis"))
    with pytest.raises(ModelLoadError, match="unknown ruleset 'atlantis'"):
        OnnxCaptain(copy)


def test_refuses_another_ruleset_version(copy: Path) -> None:
    with pytest.raises(ModelLoadError, match="version '1.0', but version '2.0' is expected"):
        OnnxCaptain(copy, expected_ruleset="pantheon", expected_version="2.0")
    _edit_sidecar(copy, lambda d: d["ruleset"].update(version="0.9"))
    with pytest.raises(ModelLoadError, match="ruleset version '0.9'"):
        OnnxCaptain(copy, expected_ruleset="pantheon")


def test_refuses_sizes_that_differ_from_the_sidecar(copy: Path) -> None:
    _edit_sidecar(copy, lambda d: d["observation"].update(size=346))
    with pytest.raises(ModelLoadError, match="observation size 346 in the sidecar, but ruleset pantheon"):
        OnnxCaptain(copy)


def test_refuses_when_the_ruleset_observations_changed(copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = get_ruleset("pantheon")
    original = ruleset.observation_spec
    monkeypatch.setattr(type(ruleset), "observation_spec",
                        lambda self, config: ObservationSpec(original(config).fields[:-1]))
    with pytest.raises(ModelLoadError, match=r"observation size 347 in the sidecar, but .* have \d+ values"):
        OnnxCaptain(copy)


def test_refuses_when_the_ruleset_actions_changed(copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ruleset = get_ruleset("pantheon")
    original = ruleset.action_spec
    monkeypatch.setattr(type(ruleset), "action_spec",
                        lambda self, config: ActionSpec(original(config).components[:-1]))
    with pytest.raises(ModelLoadError, match="action components .* in the sidecar, but ruleset pantheon"):
        OnnxCaptain(copy)


# ------------------------------------------------------------------ refusals when exporting
def test_export_refuses_a_zip_outside_a_run_folder(exported: ExportResult, tmp_path: Path) -> None:
    loose = tmp_path / "loose.zip"
    shutil.copy(exported.run_folder / "final_model.zip", loose)
    with pytest.raises(ModelLoadError, match="not inside a training run folder"):
        export_run(loose, tmp_path / "x.onnx")


def test_export_refuses_a_run_of_another_ruleset_version(exported: ExportResult, tmp_path: Path) -> None:
    run = shutil.copytree(exported.run_folder, tmp_path / "old")
    manifest = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**manifest, "ruleset_version": "0.1"}))
    with pytest.raises(ModelLoadError, match="trained on pantheon 0.1"):
        export_run(run, tmp_path / "x.onnx")
    with pytest.raises(ExportError, match="must be a .onnx file"):
        export_run(exported.run_folder, tmp_path / "x.zip")
    assert not list(tmp_path.glob("x.*"))


# ------------------------------------------------------------------ CLI
def test_cli_exports_and_checks_parity(exported: ExportResult, tmp_path: Path) -> None:
    out = tmp_path / "captains" / "cli.onnx"
    done = subprocess.run(
        [sys.executable, "-m", "naval_agents.export", str(exported.run_folder / "final_model.zip"),
         "--out", str(out), "--parity", "300", "--seed", "2", "--conformance", "40"],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout and "parity PASS: 300 decisions" in done.stdout
    assert f"wrote {out.with_name('cli.conformance.json')} (40 conformance vectors" in done.stdout
    OnnxCaptain(out, expected_ruleset="pantheon")
    assert (json.loads(sidecar_path(out).read_text())["action"]
            == json.loads(exported.sidecar_path.read_text())["action"])


def test_cli_reports_bad_input_without_a_traceback(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "naval_agents.export", str(tmp_path / "missing"), "--out", str(tmp_path / "x.onnx")],
        check=False, cwd=REPO, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error:") and "no such model file" in done.stderr
    assert "Traceback" not in done.stderr


def test_layouts_are_checked_against_the_config_of_the_games(exported: Any) -> None:
    from naval_env.core.ruleset import get_ruleset

    ruleset = get_ruleset("pantheon")
    default = ruleset.load_config()
    OnnxCaptain(exported.onnx_path, expected_ruleset="pantheon", config=default)  # the config it was trained on
    fewer_ships = default.model_copy(update={
        "house_rules": default.house_rules.model_copy(update={"max_ships_per_side": 3})})
    assert ruleset.observation_spec(fewer_ships).size != ruleset.observation_spec(default).size
    with pytest.raises(ModelLoadError, match="observation size .* in the sidecar, but ruleset pantheon"):
        OnnxCaptain(exported.onnx_path, expected_ruleset="pantheon", config=fewer_ships)
