"""The JSON sidecar next to an exported ``.onnx`` (same stem, ``.json``): everything a program
needs to drive the graph without this repository.

It records the ruleset id and version the graph was trained for, the observation
layout (every field's name, offset, size, scale, description) and in words how it is
derived (``observation.derivation``: perspective, slot order, scale, what zeros mean, the
ruleset's paragraph, its rules page), the action components (size, offset in the flat
mask, meaning of every value), the mask convention, the graph's input and output names,
the training run, the sha256 of the ``.onnx`` file (and, for a graph that keeps its weights
in ONNX external-data files, ``onnx.external_data``: each such file and its sha256, so every
file the model loads is checked), and the conformance vectors shipped with it
(``conformance``: file, sha256, count, the command that checks them; null when none were
written).

Format history (``FORMAT_VERSION``):
- 1: first release.
- 2: adds ``observation.derivation`` and ``conformance``. Version 1 sidecars are still read.

This module never imports torch: the ONNX captain reads sidecars with it. Building one from a run is
:func:`naval_agents.export.sidecar.build_sidecar` (the export pipeline).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from naval_agents.captains.learned import ModelLoadError
from naval_env.core.spaces import ActionSpec

FORMAT = "naval-tactics-captain"
FORMAT_VERSION = 2
SUPPORTED_FORMAT_VERSIONS = (1, 2)

OPSET = 17
INPUT_OBSERVATION = "observation"
INPUT_MASK = "action_mask"
OUTPUT_ACTION = "action"
LOGITS_PREFIX = "logits_"
#: sb3-contrib's value for forbidden logits (``MaskableCategorical.apply_masking``).
HUGE_NEG = -1e8

MASK_CONVENTION = (
    "action_mask is float32 [batch, flat_mask_size]: the masks of the action components "
    "concatenated in component order (each at its 'offset', 'size' entries long). "
    "1.0 = allowed, 0.0 = forbidden (values > 0.5 count as allowed). Every component must "
    "allow at least one value; a component not being decided now allows only value 0 (no-op)."
)
LOGITS_MEANING = (
    "sb3-contrib's masked logits of the component: log-probabilities of the allowed values "
    f"(softmax gives the policy's probabilities); forbidden values are about {HUGE_NEG:g}."
)
ACTION_MEANING = (
    "int64 [batch, n_components]: for each component the allowed value with the highest "
    "probability (the first on ties), i.e. the trained captain's deterministic choice."
)


def sidecar_path(onnx_path: str | Path) -> Path:
    return Path(onnx_path).with_suffix(".json")


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def external_data_files(onnx_path: str | Path) -> list[str] | None:
    """The external-data files the graph loads (their ``location``, relative to its folder), read without
    loading them; None when the file does not parse as an ONNX model."""
    import onnx
    from google.protobuf.message import DecodeError

    try:
        model = onnx.load(str(onnx_path), load_external_data=False)
    except (DecodeError, OSError, ValueError, RuntimeError):
        return None
    locations: set[str] = set()
    for tensor in _tensors(model.graph):
        if tensor.data_location == onnx.TensorProto.EXTERNAL:
            entries = {entry.key: entry.value for entry in tensor.external_data}
            locations.add(entries.get("location", ""))
    return sorted(locations)


def _tensors(graph: Any) -> Iterator[Any]:
    """Every tensor of a graph and of its subgraphs (initializers, sparse initializers, node attributes)."""
    yield from graph.initializer
    for sparse in graph.sparse_initializer:
        yield sparse.values
        yield sparse.indices
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("t"):
                yield attribute.t
            yield from attribute.tensors
            if attribute.HasField("g"):
                yield from _tensors(attribute.g)
            for subgraph in attribute.graphs:
                yield from _tensors(subgraph)


def external_data_entries(onnx_path: str | Path) -> list[dict[str, str]]:
    """The sidecar's ``onnx.external_data``: each file the graph loads besides itself, with its sha256."""
    folder = Path(onnx_path).parent
    return [{"file": name, "sha256": sha256_file(folder / name)} for name in external_data_files(onnx_path) or []]


def logits_output_names(action_spec: ActionSpec) -> list[str]:
    return [f"{LOGITS_PREFIX}{c.name}" for c in action_spec.components]


def write_sidecar(onnx_path: str | Path, data: Mapping[str, Any]) -> Path:
    path = sidecar_path(onnx_path)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return path


_REQUIRED: tuple[tuple[str, type | tuple[type, ...]], ...] = (
    ("ruleset.id", str),
    ("ruleset.version", str),
    ("observation.size", int),
    ("observation.fields", list),
    ("action.n_components", int),
    ("action.flat_mask_size", int),
    ("action.components", list),
    ("onnx.sha256", str),
    ("onnx.inputs", list),
    ("onnx.outputs", list),
)


def _lookup(data: Mapping[str, Any], dotted: str) -> Any:
    value: Any = data
    for key in dotted.split("."):
        if not isinstance(value, Mapping) or key not in value:
            raise KeyError(dotted)
        value = value[key]
    return value


def read_sidecar(onnx_path: str | Path) -> dict[str, Any]:
    """The checked sidecar of ``onnx_path``; :class:`ModelLoadError` names what is missing or wrong."""
    path = sidecar_path(onnx_path)
    if not path.is_file():
        raise ModelLoadError(
            f"{onnx_path}: no sidecar {path.name} next to it; an export is the .onnx plus its .json, "
            "copy both (re-export with `python -m naval_agents.export` if it is lost)"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{path}: invalid sidecar, not readable JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ModelLoadError(f"{path}: invalid sidecar, format is {found!r}, expected {FORMAT!r}")
    version = data.get("format_version")
    if version not in SUPPORTED_FORMAT_VERSIONS:
        raise ModelLoadError(
            f"{path}: unknown sidecar format_version {version!r}; this version of naval-tactics reads "
            f"{list(SUPPORTED_FORMAT_VERSIONS)} (a newer exporter may have written it)"
        )
    for dotted, kind in _REQUIRED:
        try:
            value = _lookup(data, dotted)
        except KeyError:
            raise ModelLoadError(f"{path}: invalid sidecar, missing {dotted!r}") from None
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ModelLoadError(f"{path}: invalid sidecar, {dotted!r} is {value!r}")
    for i, component in enumerate(data["action"]["components"]):
        if not isinstance(component, dict) or not {"name", "size", "offset"} <= component.keys():
            raise ModelLoadError(f"{path}: invalid sidecar, action component {i} lacks name/size/offset")
    external = data["onnx"].get("external_data", [])
    if not (isinstance(external, list) and all(isinstance(e, dict) and isinstance(e.get("file"), str)
                                               and isinstance(e.get("sha256"), str) for e in external)):
        raise ModelLoadError(f"{path}: invalid sidecar, 'onnx.external_data' must be a list of objects with string "
                             f"'file' and 'sha256', found {external!r}"[:400])
    if version >= 2:
        _check_version_2(data, path)
    return data


def _check_version_2(data: Mapping[str, Any], path: Path) -> None:
    if not isinstance(data["observation"].get("derivation"), dict):
        raise ModelLoadError(f"{path}: invalid sidecar, 'observation.derivation' must be an object "
                             f"(format_version 2)")
    if "conformance" not in data:
        raise ModelLoadError(f"{path}: invalid sidecar, missing 'conformance' (an object, or null when no "
                             "vectors were written)")
    entry = data["conformance"]
    if entry is not None and not (isinstance(entry, dict) and isinstance(entry.get("file"), str)
                                  and isinstance(entry.get("sha256"), str)):
        raise ModelLoadError(f"{path}: invalid sidecar, 'conformance' must be null or an object with string "
                             f"'file' and 'sha256', found {entry!r}")
