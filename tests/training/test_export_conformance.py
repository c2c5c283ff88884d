"""Conformance vectors shipped with an export, the check that names the differing field, the words the
sidecar gives for every observation field, and old sidecars still loading.

Every ruleset with a position model gets a tiny export (an untrained MaskablePPO policy: what it
decides does not matter, only that the vectors record it); the rest are covered once theirs lands.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("torch")  # the [train] extra: without it this module is skipped

import naval_env  # noqa: F401 - registers the Gymnasium ids
from naval_agents.captains.base import Decision
from naval_agents.captains.learned import ModelLoadError
from naval_agents.captains.onnx_captain import OnnxCaptain
from naval_agents.captains.sidecar import FORMAT_VERSION, sha256_file, sidecar_path
from naval_agents.export.conformance import (
    FORMAT,
    ConformanceError,
    check_conformance,
    check_document,
    conformance_path,
    read_conformance,
    write_conformance,
)
from naval_agents.export.derivation import describe_observation, group_of
from naval_agents.export.onnx_export import ExportError, ExportResult, export_run
from naval_agents.export.vectors import has_positions, make_vectors
from naval_env.core.moves import options
from naval_env.core.ruleset import get_ruleset, ruleset_ids

pytestmark = pytest.mark.train

REPO = Path(__file__).resolve().parents[2]
WITH_POSITIONS = [r for r in ruleset_ids() if has_positions(get_ruleset(r))]
VECTORS = 24


def test_the_rulesets_with_positions_include_pantheon_and_pursuit() -> None:
    assert {"pantheon", "pursuit"} <= set(WITH_POSITIONS)


def _write_run(folder: Path, ruleset_id: str, **overrides: Any) -> Path:
    """A run folder holding an untrained policy of ``ruleset_id`` (weights need not be good, only real)."""
    from sb3_contrib import MaskablePPO

    folder.mkdir(parents=True)
    ruleset = get_ruleset(ruleset_id)
    model = MaskablePPO("MlpPolicy", gym.make(ruleset.gym_id), n_steps=64, batch_size=64, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.save(folder / "final_model.zip")
    manifest = {"ruleset": ruleset_id, "ruleset_version": ruleset.version, "name": folder.name, "seed": 0,
                "train_config": {"total_timesteps": 0}}
    manifest.update(overrides)
    (folder / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    return folder


@pytest.fixture(scope="module", params=WITH_POSITIONS)
def exported(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> ExportResult:
    base = tmp_path_factory.mktemp(f"conformance-{request.param}")
    run = _write_run(base / "runs" / "tiny", request.param)
    return export_run(run, base / "captains" / f"{request.param}.onnx", conformance=VECTORS, seed=3)


@pytest.fixture
def document(exported: ExportResult) -> dict[str, Any]:
    assert exported.conformance_path is not None
    return read_conformance(exported.conformance_path)


# ------------------------------------------------------------------ the file
def test_export_writes_vectors_the_sidecar_points_to(exported: ExportResult) -> None:
    path = exported.conformance_path
    assert path == conformance_path(exported.onnx_path) == exported.onnx_path.with_name(
        f"{exported.ruleset_id}.conformance.json")
    assert exported.conformance_vectors == VECTORS
    entry = json.loads(exported.sidecar_path.read_text())["conformance"]
    assert entry["file"] == path.name and entry["sha256"] == sha256_file(path)
    assert (entry["format"], entry["format_version"], entry["vectors"], entry["seed"]) == (FORMAT, 1, VECTORS, 3)
    assert entry["check"] == f"python -m naval_agents.export.conformance check {path.name}"


def test_vectors_hold_real_positions_with_what_the_engine_computes(exported: ExportResult,
                                                                   document: dict[str, Any]) -> None:
    ruleset = get_ruleset(exported.ruleset_id)
    config = ruleset.load_config()
    spec, obs_spec = ruleset.action_spec(config), ruleset.observation_spec(config)
    assert document["ruleset"] == {"id": ruleset.id, "version": ruleset.version}
    assert document["observation_size"] == obs_spec.size and document["flat_mask_size"] == spec.flat_size
    assert document["components"] == [c.name for c in spec.components]
    vectors = document["vectors"]
    assert len(vectors) == VECTORS
    assert {v["scenario"] for v in vectors} == set(ruleset.scenarios(config))
    assert {v["source"] for v in vectors} == {"random", "captain"}
    assert len({json.dumps(v["position"], sort_keys=True) for v in vectors}) == VECTORS  # all distinct
    captain = OnnxCaptain(exported.onnx_path, expected_ruleset=ruleset.id)
    for vector in vectors:
        game = ruleset.load_position(vector["position"], config)
        seat = vector["seat"]
        assert seat == game.current_agent
        observation, mask = game.observe(seat), game.legal_mask(seat)
        # Written as repr(float(x)): parsed as float64 the values are exactly the engine's float32s.
        assert np.array_equal(np.asarray(vector["observation"], dtype=np.float64), observation.astype(np.float64))
        assert vector["mask"] == [int(b) for b in mask]
        assert vector["legal"] == options(spec, mask)
        action = captain.act(Decision(seat, observation, mask))
        assert vector["action_index"] == action.tolist()
        assert vector["action"] == {c.name: c.labels[v] for c, v in zip(spec.components, action.tolist())}


def test_regenerating_gives_the_same_file(exported: ExportResult, tmp_path: Path) -> None:
    ruleset = get_ruleset(exported.ruleset_id)
    captain = OnnxCaptain(exported.onnx_path, expected_ruleset=ruleset.id)
    again = make_vectors(ruleset.id, ruleset.load_config(), captain, count=VECTORS, seed=3,
                         file_name=exported.conformance_path.name)
    sha = write_conformance(tmp_path / "again.conformance.json", again)
    assert sha == sha256_file(exported.conformance_path)
    other = make_vectors(ruleset.id, ruleset.load_config(), captain, count=VECTORS, seed=4)
    assert other["vectors"] != again["vectors"]


# ------------------------------------------------------------------ the check
def test_check_passes_on_an_export_and_recomputes_the_captains_moves(exported: ExportResult) -> None:
    captain = OnnxCaptain(exported.onnx_path, expected_ruleset=exported.ruleset_id)
    report = check_conformance(exported.conformance_path, captain=captain)
    assert report.ok and report.vectors == VECTORS and report.actions_checked, report.summary()
    assert "conformance PASS" in report.summary()


def _first_nonzero(vector: dict[str, Any], prefix: str, spec: Any) -> tuple[str, int]:
    for f in spec.fields:
        start = spec.offsets[f.name]
        if f.name.startswith(prefix):
            for k in range(f.size):
                if vector["observation"][start + k] != 0.0:
                    return f.name, start + k
    raise AssertionError(f"no non-zero value under {prefix!r}")


def test_a_corrupted_observation_value_is_named_by_its_field(exported: ExportResult,
                                                             document: dict[str, Any]) -> None:
    ruleset = get_ruleset(exported.ruleset_id)
    obs_spec = ruleset.observation_spec(ruleset.load_config())
    bad = copy.deepcopy(document)
    vector = bad["vectors"][5]
    name, index = _first_nonzero(vector, "enemy0.", obs_spec)
    vector["observation"][index] += 0.5
    report = check_document(bad)
    assert not report.ok
    assert report.fields == {("observation", name)}
    (mismatch,) = report.mismatches
    assert mismatch.vector == 5 and f"engine {document['vectors'][5]['observation'][index]!r}" in mismatch.detail
    assert f"vector 5: observation {name!r}" in report.summary()
    # One float32 step is a mismatch too: the check is exact, not within a tolerance.
    exact = copy.deepcopy(document)
    value = np.float32(exact["vectors"][0]["observation"][0])
    exact["vectors"][0]["observation"][0] = float(np.nextafter(value, np.float32(np.inf)))
    assert check_document(exact).fields == {("observation", obs_spec.fields[0].name)}


def test_a_corrupted_mask_is_named_by_its_component(exported: ExportResult, document: dict[str, Any]) -> None:
    spec = get_ruleset(exported.ruleset_id).action_spec(get_ruleset(exported.ruleset_id).load_config())
    bad = copy.deepcopy(document)
    vector = bad["vectors"][2]
    component, offset = spec.components[0], spec.offsets[0]
    flip = 1  # allow it where the engine forbids it, or the other way round
    vector["mask"][offset + flip] = 1 - vector["mask"][offset + flip]
    report = check_document(bad)
    assert ("mask", component.name) in report.fields
    assert repr(component.labels[flip]) in str(report.mismatches[0])


def test_a_bad_position_action_or_seat_is_named(exported: ExportResult, document: dict[str, Any]) -> None:
    spec = get_ruleset(exported.ruleset_id).action_spec(get_ruleset(exported.ruleset_id).load_config())
    bad = copy.deepcopy(document)
    bad["vectors"][0]["position"]["ships"][0]["facing"] = "upward"
    bad["vectors"][1]["seat"] = "nobody"
    name = spec.components[0].name
    forbidden_vector = next(v for v in bad["vectors"][2:] if v["legal"][name] != list(spec.components[0].labels))
    forbidden = next(label for label in spec.components[0].labels if label not in forbidden_vector["legal"][name])
    forbidden_vector["action"][name] = forbidden
    report = check_document(bad)
    assert ("position", "ships.0.facing") in report.fields
    assert ("seat", "seat") in report.fields
    assert ("action", name) in report.fields and ("legal", name) not in report.fields
    assert any(f"{forbidden!r} is not legal here" in m.detail for m in report.mismatches)


def test_a_captain_that_decides_otherwise_is_named(exported: ExportResult, document: dict[str, Any]) -> None:
    from naval_agents.captains.registry import make_captain

    ruleset = get_ruleset(exported.ruleset_id)
    spec = ruleset.action_spec(ruleset.load_config())
    random_captain = make_captain("random", ruleset.id, spec, seed=0)
    report = check_document(document, captain=random_captain)
    assert not report.ok and {kind for kind, _ in report.fields} == {"action"}


def test_a_file_of_another_layout_is_refused_as_a_whole(exported: ExportResult, document: dict[str, Any],
                                                        tmp_path: Path) -> None:
    with pytest.raises(ConformanceError, match="format is 'other', expected 'naval-tactics-conformance'"):
        check_document({**document, "format": "other"})
    with pytest.raises(ConformanceError, match="layout differs .* observation_size 3"):
        check_document({**document, "observation_size": 3})
    with pytest.raises(ConformanceError, match="written for .* version '0.1'"):
        check_document({**document, "ruleset": {"id": exported.ruleset_id, "version": "0.1"}})
    with pytest.raises(ConformanceError, match="no such conformance file"):
        check_conformance(tmp_path / "missing.conformance.json")


def test_check_command_reports_fields_and_exit_codes(exported: ExportResult, document: dict[str, Any],
                                                     tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "naval_agents.export.conformance", "check", *args],
                              check=False, cwd=REPO, capture_output=True, text=True, timeout=120)

    done = run(str(exported.conformance_path), "--onnx", str(exported.onnx_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"conformance PASS: {exported.conformance_path} ({exported.ruleset_id}), {VECTORS} vectors" in done.stdout
    bad = copy.deepcopy(document)
    obs_spec = get_ruleset(exported.ruleset_id).observation_spec(get_ruleset(exported.ruleset_id).load_config())
    name, index = _first_nonzero(bad["vectors"][3], "self.", obs_spec)
    bad["vectors"][3]["observation"][index] = -7.25
    path = tmp_path / "app.conformance.json"
    write_conformance(path, bad)
    done = run(str(path), "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert [(m["vector"], m["kind"], m["field"]) for m in report["mismatches"]] == [(3, "observation", name)]
    path.write_text("[]")
    done = run(str(path))
    assert done.returncode == 2 and done.stderr.startswith("error:") and "Traceback" not in done.stderr


def test_vectors_that_do_not_reproduce_stop_the_export(exported: ExportResult, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from naval_agents.export import vectors

    original = vectors.make_vectors

    def off_by_one_step(*args: Any, **kwargs: Any) -> dict[str, Any]:
        document = original(*args, **kwargs)
        first = document["vectors"][1]["observation"]
        first[0] = float(np.nextafter(np.float32(first[0]), np.float32(np.inf)))
        return document

    monkeypatch.setattr(vectors, "make_vectors", off_by_one_step)
    ruleset = get_ruleset(exported.ruleset_id)
    first_field = ruleset.observation_spec(ruleset.load_config()).fields[0].name
    with pytest.raises(ExportError, match=rf"do not reproduce(?s:.*)vector 1: observation '{first_field}'"):
        export_run(exported.run_folder, tmp_path / "x.onnx", conformance=4)
    assert sorted(tmp_path.iterdir()) == []


def test_a_ruleset_without_positions_exports_without_vectors(exported: ExportResult, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from naval_agents.export import onnx_export

    monkeypatch.setattr(onnx_export, "has_positions", lambda ruleset: False)
    result = export_run(exported.run_folder, tmp_path / "x.onnx")
    assert result.conformance_path is None and result.conformance_vectors == 0
    assert result.conformance_note == f"ruleset {exported.ruleset_id} has no position model yet"
    assert json.loads(result.sidecar_path.read_text())["conformance"] is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.json", "x.onnx"]
    OnnxCaptain(result.onnx_path, expected_ruleset=exported.ruleset_id)


def test_a_failed_parity_check_removes_the_vectors_too(exported: ExportResult, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from naval_agents.export import parity
    from naval_agents.export.__main__ import main

    failing = parity.ParityReport(n=5, max_abs_diff=1.0, mismatches=1, masked_leaks=0, tolerance=1e-5,
                                  worst_component="x", games=1, scenarios=(), opponents=())
    monkeypatch.setattr(parity, "check_parity", lambda *args, **kwargs: failing)
    out = tmp_path / "failing.onnx"
    assert main([str(exported.run_folder), "--out", str(out), "--parity", "5", "--conformance", "4"]) == 1
    assert sorted(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ the sidecar's words
@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_every_observation_field_is_described_in_words(ruleset_id: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    spec = ruleset.observation_spec(ruleset.load_config())
    words = describe_observation(ruleset_id, spec)
    assert words["rules_page"] == f"docs/rules/{ruleset_id}.md" and (REPO / words["rules_page"]).is_file()
    for key in ("perspective", "slot_order", "scale", "zero_blocks", "ruleset"):
        assert len(words[key]) > 80, key
    groups = {g["group"]: g for g in words["groups"]}
    assert list(groups)[:1] == ["self"] and {"ally", "enemy"} <= set(groups)
    assert sum(g["size"] for g in words["groups"]) == spec.size
    n = ruleset.load_config().house_rules.max_ships_per_side
    assert (groups["ally"]["slots"], groups["enemy"]["slots"]) == (n - 1, n)
    for f in spec.fields:
        assert group_of(f.name)[0] in groups
        assert len(f.description) >= 8, f"{ruleset_id} {f.name}: description {f.description!r} is too thin"


def test_an_undescribed_observation_group_is_refused() -> None:
    from naval_agents.export.derivation import DescriptionError
    from naval_env.core.spaces import ObservationField, ObservationSpec

    spec = ObservationSpec((ObservationField("self.phase", 3, 1.0, "phase"),
                            ObservationField("kraken0.present", 1, 1.0, "1 if a kraken is there")))
    with pytest.raises(DescriptionError, match="group 'kraken' .* is not described"):
        describe_observation("pantheon", spec)


def test_sidecar_version_2_carries_the_words(exported: ExportResult) -> None:
    data = json.loads(exported.sidecar_path.read_text())
    assert data["format_version"] == FORMAT_VERSION == 2
    ruleset = get_ruleset(exported.ruleset_id)
    words = data["observation"]["derivation"]
    assert words == describe_observation(ruleset.id, ruleset.observation_spec(ruleset.load_config()))
    assert "own ship" in words["perspective"] and "target slot" in words["slot_order"]


def test_old_and_new_sidecars_both_load(exported: ExportResult, tmp_path: Path) -> None:
    old = tmp_path / "old.onnx"
    shutil.copy(exported.onnx_path, old)
    data = json.loads(exported.sidecar_path.read_text())
    del data["conformance"]
    del data["observation"]["derivation"]
    sidecar_path(old).write_text(json.dumps({**data, "format_version": 1}))
    assert OnnxCaptain(old, expected_ruleset=exported.ruleset_id).sidecar["format_version"] == 1
    assert OnnxCaptain(exported.onnx_path, expected_ruleset=exported.ruleset_id).sidecar["format_version"] == 2
    sidecar_path(old).write_text(json.dumps({**data, "format_version": 2}))  # version 2 without its fields
    with pytest.raises(ModelLoadError, match="'observation.derivation' must be an object"):
        OnnxCaptain(old)


# ------------------------------------------------------------------ export refusals
@pytest.mark.parametrize("train_config", [["ruleset_config", "x.yaml"], "configs/rulesets/pantheon.yaml", 3])
def test_export_refuses_a_train_config_that_is_not_an_object(tmp_path: Path, train_config: Any) -> None:
    run = _write_run(tmp_path / "run", "pantheon", train_config=train_config)
    with pytest.raises(ModelLoadError, match=r"run.json: 'train_config' is a JSON (list|string|number); "
                                             r"expected an object"):
        export_run(run, tmp_path / "x.onnx")
    assert not list(tmp_path.glob("x.*"))


def test_export_refuses_a_bad_vector_count(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="conformance must be 0 .* got -1"):
        export_run(tmp_path / "run", tmp_path / "x.onnx", conformance=-1)
