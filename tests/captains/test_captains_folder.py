"""The captains folder is verified file by file: the sidecar's digests cover every file a model loads
(the ``.onnx`` and its ONNX external-data files), and links out of ``--captains-dir`` are refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
import pytest

from naval_agents.captains.base import Decision
from naval_agents.captains.learned import ModelLoadError
from naval_agents.captains.onnx_captain import OnnxCaptain
from naval_agents.captains.sidecar import external_data_entries, sha256_file, sidecar_path
from naval_env.core.ruleset import get_ruleset
from naval_tactics.catalogue import Catalogue, CatalogueError
from naval_tactics.testing import export_tiny_captain


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return export_tiny_captain(Path(tmp_path_factory.mktemp("build")), name="tiny")


def copied(export: Path, folder: Path, name: str = "tiny") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in (".onnx", ".json"):
        (folder / f"{name}{suffix}").write_bytes(export.with_suffix(suffix).read_bytes())
    return folder / f"{name}.onnx"


def with_external_data(export: Path, folder: Path, listed: bool = True) -> Path:
    """The export re-saved with its weights in ``tiny.onnx.data`` beside it, its sidecar updated as the exporter
    writes it (the .onnx's new sha256 and, when ``listed``, ``onnx.external_data``)."""
    path = copied(export, folder)
    model = onnx.load(str(path))
    onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="tiny.onnx.data", size_threshold=0)
    sidecar = json.loads(sidecar_path(path).read_text())
    sidecar["onnx"]["sha256"] = sha256_file(path)
    if listed:
        sidecar["onnx"]["external_data"] = external_data_entries(path)
    sidecar_path(path).write_text(json.dumps(sidecar))
    return path


def logits(captain: OnnxCaptain) -> list[np.ndarray]:
    game = get_ruleset("pantheon").new_game(get_ruleset("pantheon").load_config(), seed=1)
    agent = game.current_agent
    assert agent is not None
    return captain.probabilities(Decision(agent, game.observe(agent), game.legal_mask(agent), game))


def test_external_weights_listed_with_their_digest_load_and_play_the_same(export: Path, tmp_path: Path) -> None:
    path = with_external_data(export, tmp_path / "captains")
    assert (tmp_path / "captains" / "tiny.onnx.data").stat().st_size > 1000   # the weights really moved there
    entries = json.loads(sidecar_path(path).read_text())["onnx"]["external_data"]
    assert entries == [{"file": "tiny.onnx.data", "sha256": sha256_file(tmp_path / "captains" / "tiny.onnx.data")}]
    for mine, original in zip(logits(OnnxCaptain(path)), logits(OnnxCaptain(export)), strict=True):
        np.testing.assert_array_equal(mine, original)
    assert "tiny" in {c.name for c in Catalogue.load(tmp_path / "captains").captains("pantheon")}


def test_changed_external_weights_are_refused(export: Path, tmp_path: Path) -> None:
    path = with_external_data(export, tmp_path / "captains")
    data = tmp_path / "captains" / "tiny.onnx.data"
    weights = bytearray(data.read_bytes())
    weights[100] ^= 0x01
    data.write_bytes(bytes(weights))
    with pytest.raises(ModelLoadError, match=r"external data 'tiny.onnx.data': sha256 .* does not match its sidecar"):
        OnnxCaptain(path)
    with pytest.raises(CatalogueError, match=r"tiny.onnx: cannot serve this export: .*external data 'tiny.onnx.data'"):
        Catalogue.load(tmp_path / "captains")


def test_external_weights_the_sidecar_does_not_list_are_refused(export: Path, tmp_path: Path) -> None:
    path = with_external_data(export, tmp_path / "captains", listed=False)
    with pytest.raises(ModelLoadError, match=r"loads external data 'tiny.onnx.data', which its sidecar does not list"):
        OnnxCaptain(path)


def test_external_weights_outside_the_models_folder_are_refused_before_they_are_read(export: Path,
                                                                                     tmp_path: Path) -> None:
    path = copied(export, tmp_path / "captains")
    model = onnx.load(str(path))
    onnx.save_model(model, str(tmp_path / "elsewhere.onnx"), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="weights.bin", size_threshold=0)
    model = onnx.load(str(tmp_path / "elsewhere.onnx"), load_external_data=False)
    for tensor in model.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = "../weights.bin"
    onnx.save_model(model, str(path))
    with pytest.raises(ModelLoadError, match=r"loads external data from '../weights.bin', outside its folder"):
        OnnxCaptain(path)


def test_links_out_of_the_captains_folder_are_refused(export: Path, tmp_path: Path) -> None:
    elsewhere = copied(export, tmp_path / "elsewhere")
    folder = tmp_path / "captains"
    folder.mkdir()
    (folder / "tiny.onnx").symlink_to(elsewhere)
    (folder / "tiny.json").symlink_to(sidecar_path(elsewhere))
    with pytest.raises(CatalogueError, match=r"tiny.onnx: a link to .*elsewhere/tiny.onnx, outside the captains "):
        Catalogue.load(folder)
    (folder / "tiny.onnx").unlink()
    (folder / "tiny.onnx").write_bytes(elsewhere.read_bytes())   # the model copied in, its sidecar still a link
    with pytest.raises(CatalogueError, match=r"tiny.json: a link to .*outside the captains folder"):
        Catalogue.load(folder)
    (folder / "tiny.json").unlink()
    (folder / "real.json").write_bytes(sidecar_path(elsewhere).read_bytes())
    (folder / "tiny.json").symlink_to(folder / "real.json")   # a link within the folder is fine
    assert "tiny" in {c.name for c in Catalogue.load(folder).captains("pantheon")}
