"""A run stopped before its end has no final_model.zip but keeps best_model.zip: loading or exporting the run
folder says so and names the file to use, and that file exports."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from naval_agents.captains.model_files import ModelLoadError, resolve_model_path
from naval_agents.export.__main__ import main as export_main
from naval_tactics.cli import main as cli_main
from naval_tactics.testing import export_tiny_captain


@pytest.fixture(scope="module")
def stopped_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run folder whose final model is missing and whose best model is there, as after a Ctrl-C."""
    folder = tmp_path_factory.mktemp("stopped")
    export_tiny_captain(folder)
    run = folder / "runs" / "tiny"
    shutil.move(run / "final_model.zip", run / "best_model.zip")
    return run


def test_a_stopped_run_points_to_its_best_model(stopped_run: Path) -> None:
    with pytest.raises(ModelLoadError, match=r"final_model.zip: no such model file: the run stopped before it "
                                             r"finished, .* use .*best_model.zip"):
        resolve_model_path(stopped_run)
    assert resolve_model_path(stopped_run / "best_model.zip") == stopped_run / "best_model.zip"
    empty = stopped_run.parent / "empty"
    empty.mkdir()
    with pytest.raises(ModelLoadError) as plain:   # no best model either: the plain message
        resolve_model_path(empty)
    assert str(plain.value) == f"{empty / 'final_model.zip'}: no such model file"


def test_naval_tactics_export_names_the_best_model_and_exports_it(stopped_run: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "stopped.onnx"
    assert cli_main(["export", str(stopped_run), "--out", str(out), "--parity", "0", "--conformance", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and f"use {stopped_run / 'best_model.zip'}" in err and "Traceback" not in err
    assert export_main([str(stopped_run / "best_model.zip"), "--out", str(out), "--parity", "0",
                        "--conformance", "0"]) == 0
    assert out.is_file()
