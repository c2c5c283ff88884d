"""ONNX exports of trained captains: a ``.onnx`` graph plus a JSON sidecar that describes it.

- :mod:`naval_agents.export.onnx_export` writes an export from a training run (needs torch).
- :mod:`naval_agents.captains.onnx_captain` plays from an export with onnxruntime and numpy only.
- :mod:`naval_agents.export.parity` checks an export against the torch model on real games.
- :mod:`naval_agents.export.sidecar` is the sidecar format (``FORMAT``, ``FORMAT_VERSION``).
- :mod:`naval_agents.export.conformance` is the conformance vectors' format and their check
  (``python -m naval_agents.export.conformance check FILE``); :mod:`naval_agents.export.vectors` makes them.
- :mod:`naval_agents.export.derivation` says in words how each ruleset's observation is derived.
- ``python -m naval_agents.export RUN --out captains/NAME.onnx`` does export + vectors + parity check.
- :mod:`naval_agents.export.sb3_zip` writes a zip stock sb3-contrib loads (``python -m naval_agents.export RUN --sb3``),
  checked by reloading it with ``MaskablePPO.load``.

Nothing is imported here eagerly, so ``import naval_agents.captains.onnx_captain`` never pulls in torch.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ConformanceReport", "OnnxCaptain", "ParityReport", "check_conformance", "check_parity", "export_run",
           "export_sb3"]

_LAZY = {
    "OnnxCaptain": "naval_agents.captains.onnx_captain",
    "export_run": "naval_agents.export.onnx_export",
    "export_sb3": "naval_agents.export.sb3_zip",
    "check_parity": "naval_agents.export.parity",
    "ParityReport": "naval_agents.export.parity",
    "ConformanceReport": "naval_agents.export.conformance",
    "check_conformance": "naval_agents.export.conformance",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'naval_agents.export' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
