"""Captains backed by a trained sb3-contrib MaskablePPO model from one of the user's own run folders.

SB3 ``.zip`` files unpickle Python objects, so they are only loaded from a run
folder that ``train.py`` wrote (it holds ``run.json``). Share captains as ONNX
exports instead (``agents/export``): those load with onnxruntime and JSON only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Captain, Decision
from naval_env.core.errors import NavalError

RUN_MANIFEST = "run.json"


class ModelLoadError(NavalError):
    """A model file that is missing, not ours, or for another ruleset."""


def run_folder_of(path: Path) -> Path:
    """The run folder holding ``path`` (a model zip inside it, or the folder itself)."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    for candidate in (folder, folder.parent):
        if (candidate / RUN_MANIFEST).is_file():
            return candidate
    raise ModelLoadError(
        f"{path}: not inside a training run folder (no {RUN_MANIFEST} next to it or one level up). "
        "SB3 .zip files are only loaded from run folders written by train.py; "
        "load shared captains from their ONNX export instead."
    )


def read_manifest(run_folder: Path) -> dict[str, Any]:
    try:
        return json.loads((run_folder / RUN_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{run_folder / RUN_MANIFEST}: unreadable run manifest: {exc}") from None


def resolve_model_path(path: Path) -> Path:
    """A run folder resolves to its final model, a zip to itself."""
    path = Path(path)
    if path.is_dir():
        path = path / "final_model.zip"
    if not path.is_file():
        raise ModelLoadError(f"{path}: no such model file")
    return path


class MaskablePPOCaptain(Captain):
    """Acts with a MaskablePPO policy: the most likely legal action (or a sample)."""

    def __init__(self, model: Any, name: str = "ppo", deterministic: bool = True) -> None:
        self.model = model
        self.name = name
        self.deterministic = deterministic

    def act(self, decision: Decision) -> np.ndarray:
        action, _ = self.model.predict(
            decision.observation, action_masks=decision.action_mask, deterministic=self.deterministic
        )
        return np.asarray(action, dtype=np.int64)


def load_run_captain(path: str | Path, ruleset_id: str, deterministic: bool = True) -> MaskablePPOCaptain:
    """Load a trained captain from a run folder (or a model zip inside one) of ``ruleset_id``."""
    import torch
    from sb3_contrib import MaskablePPO

    # torch.distributions argument checks cost more than the policy itself here; masks are valid by
    # construction (as in train.py).
    torch.distributions.Distribution.set_default_validate_args(False)
    model_path = resolve_model_path(Path(path))
    run = run_folder_of(model_path)
    manifest = read_manifest(run)
    trained_on = manifest.get("ruleset")
    if trained_on != ruleset_id:
        raise ModelLoadError(f"{model_path}: trained on ruleset {trained_on!r}, not {ruleset_id!r}")
    try:
        model = MaskablePPO.load(model_path, device="cpu")
    except Exception as exc:  # noqa: BLE001 - any failure to unpack means "not a valid model"
        raise ModelLoadError(f"{model_path}: not a valid MaskablePPO model ({exc})") from None
    return MaskablePPOCaptain(model, name=f"ppo:{run.name}", deterministic=deterministic)
