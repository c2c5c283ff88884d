"""ONNX exports of trained captains: a ``.onnx`` graph plus a JSON sidecar that describes it.

- :mod:`agents.export.onnx_export` writes an export from a training run (needs torch).
- :mod:`agents.export.onnx_captain` plays from an export with onnxruntime and numpy only.
- :mod:`agents.export.parity` checks an export against the torch model on real games.
- :mod:`agents.export.sidecar` is the sidecar format (``FORMAT``, ``FORMAT_VERSION``).
- :mod:`agents.export.conformance` is the conformance vectors' format and their check
  (``python -m agents.export.conformance check FILE``); :mod:`agents.export.vectors` makes them.
- :mod:`agents.export.derivation` says in words how each ruleset's observation is derived.
- ``python -m agents.export RUN --out captains/NAME.onnx`` does export + vectors + parity check.
- :mod:`agents.export.sb3_zip` writes a zip stock sb3-contrib loads (``python -m agents.export RUN --sb3``),
  checked by reloading it with ``MaskablePPO.load``.

Nothing is imported here eagerly, so ``import agents.export.onnx_captain`` never pulls in torch.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ConformanceReport", "OnnxCaptain", "ParityReport", "check_conformance", "check_parity", "export_run",
           "export_sb3"]

_LAZY = {
    "OnnxCaptain": "agents.export.onnx_captain",
    "export_run": "agents.export.onnx_export",
    "export_sb3": "agents.export.sb3_zip",
    "check_parity": "agents.export.parity",
    "ParityReport": "agents.export.parity",
    "ConformanceReport": "agents.export.conformance",
    "check_conformance": "agents.export.conformance",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agents.export' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
