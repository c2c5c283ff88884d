"""Load a model captain from a path: an ONNX export (``.onnx``) or a training run's ``.zip``.

Neither kind runs code from the file: ONNX loads with onnxruntime and a JSON sidecar, a
run's zip with its weights only (see :mod:`naval_agents.captains.learned`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from naval_agents.captains.base import Captain


def load_model_captain(path: str | Path, ruleset_id: str, config: Any = None) -> Captain:
    """``config``: the ruleset config (object or path) of the games, which the model's observation and
    action layouts must fit; default: the ruleset's default for an export, the run's own for a zip."""
    path = Path(path)
    if path.suffix == ".onnx":
        from naval_agents.captains.onnx_captain import OnnxCaptain

        return OnnxCaptain(path, expected_ruleset=ruleset_id, config=config)
    from naval_agents.captains.learned import load_run_captain

    return load_run_captain(path, ruleset_id, config=config)
