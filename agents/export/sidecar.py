"""Building the JSON sidecar of an exported ``.onnx`` from its training run (the export pipeline); the format,
its constants and reading it are :mod:`naval_agents.captains.sidecar`."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from naval_agents.captains.sidecar import (
    ACTION_MEANING,
    FORMAT,
    FORMAT_VERSION,
    HUGE_NEG,
    INPUT_MASK,
    INPUT_OBSERVATION,
    LOGITS_MEANING,
    MASK_CONVENTION,
    OUTPUT_ACTION,
    external_data_entries,
    logits_output_names,
    sha256_file,
)
from naval_agents.export.derivation import describe_observation
from naval_env.core.spaces import ActionSpec, ObservationSpec


def build_sidecar(
    *,
    onnx_file: Path,
    ruleset_id: str,
    ruleset_version: str,
    scenario: str | None,
    observation_spec: ObservationSpec,
    action_spec: ActionSpec,
    opset: int,
    run_manifest: Mapping[str, Any],
    run_folder: str,
    producer: Mapping[str, str],
    conformance: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The sidecar of a finished ``.onnx`` file (hashes it, so write the graph first).

    ``conformance``: the entry of the vectors written next to it (:func:`conformance_entry`), or None.
    """
    n_components = len(action_spec.components)
    outputs: list[dict[str, Any]] = [
        {
            "name": name,
            "dtype": "float32",
            "shape": ["batch", component.size],
            "description": LOGITS_MEANING,
        }
        for name, component in zip(logits_output_names(action_spec), action_spec.components)
    ]
    outputs.append(
        {"name": OUTPUT_ACTION, "dtype": "int64", "shape": ["batch", n_components], "description": ACTION_MEANING}
    )
    external = external_data_entries(onnx_file)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "ruleset": {"id": ruleset_id, "version": ruleset_version},
        "scenario": scenario,
        "observation": {
            "size": observation_spec.size,
            "dtype": "float32",
            "note": "fields are slices of one float32 vector; stored value = raw value * scale",
            "fields": observation_spec.to_json(),
            "derivation": describe_observation(ruleset_id, observation_spec),
        },
        "action": {
            "n_components": n_components,
            "flat_mask_size": action_spec.flat_size,
            "note": "one value per component; 'values' gives the meaning of each value, 0 is the no-op",
            "components": action_spec.to_json(),
            "mask_convention": MASK_CONVENTION,
        },
        "onnx": {
            "file": onnx_file.name,
            "sha256": sha256_file(onnx_file),
            "opset": opset,
            "masked_logit_value": HUGE_NEG,
            "inputs": [
                {
                    "name": INPUT_OBSERVATION,
                    "dtype": "float32",
                    "shape": ["batch", observation_spec.size],
                    "description": "observation vector laid out as in 'observation.fields'",
                },
                {
                    "name": INPUT_MASK,
                    "dtype": "float32",
                    "shape": ["batch", action_spec.flat_size],
                    "description": MASK_CONVENTION,
                },
            ],
            "outputs": outputs,
            **({"external_data": external} if external else {}),
        },
        "training_run": {
            "folder": run_folder,
            "name": run_manifest.get("name"),
            "created": run_manifest.get("created"),
            "seed": run_manifest.get("seed"),
            "scenario": run_manifest.get("scenario"),
            "versions": dict(run_manifest.get("versions") or {}),
        },
        "conformance": None if conformance is None else dict(conformance),
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "producer": dict(producer),
    }
