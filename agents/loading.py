"""Load a model captain from a path: an ONNX export (``.onnx``) or a training run's ``.zip``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.base import Captain


def load_model_captain(path: str | Path, ruleset_id: str, config: Any = None) -> Captain:
    """``config``: the ruleset config of the games (an ONNX export must match its layouts)."""
    path = Path(path)
    if path.suffix == ".onnx":
        from agents.export.onnx_captain import OnnxCaptain

        return OnnxCaptain(path, expected_ruleset=ruleset_id, config=config)
    from agents.learned import load_run_captain

    return load_run_captain(path, ruleset_id)
