"""Conformance vectors: real positions with the observation, mask, legal labels and captain's move our
engine gives for them, so another implementation (Godot, Unity, a web VTT) can check its own encoder,
mask and ONNX runtime end to end; and the check that names the field where two implementations differ.

File ``<name>.conformance.json`` next to ``<name>.onnx`` (its sidecar records the file and its sha256).
Plain JSON, format ``naval-tactics-conformance`` version 1::

    {"format": "naval-tactics-conformance", "format_version": 1,
     "ruleset": {"id": "pantheon", "version": "1.0"}, "ruleset_config": null,
     "observation_size": 347, "flat_mask_size": 266, "components": ["move", ...],
     "encoding": {...the rules below, in words...}, "captain": "onnx:pantheon",
     "generator": {"seed": 0, "count": 300, "scenarios": [...], "sources": ["random", "captain"], ...},
     "check": "python -m naval_agents.export.conformance check pantheon.conformance.json",
     "vectors": [{"id": 0, "source": "random", "scenario": "duel", "game_seed": 209652396, "decision": 0,
                  "seat": "red_0", "position": {...}, "observation": [0.0, 1.0, 0.125, ...],
                  "mask": [1, 0, 1, ...], "legal": {"move": ["none", "ahead 1", ...], ...},
                  "action": {"move": "ahead 2", ...}, "action_index": [3, 0, ...]}, ...]}

- ``position``: the ruleset's position model (``Ruleset.load_position`` reads it, ``position_schema()``
  is its JSON Schema); ``seat``: the agent id whose view this is (the position's decider).
- ``observation``: float32 values, each written as the shortest decimal of the float64 equal to it
  (``repr(float(x))``), so it parses back to exactly that float32. A value matches when it converts to
  the same float32 as the engine's (``-0.0`` equals ``0.0``; there is no NaN or infinity).
- ``mask``: the flat legal mask, 0/1, components one after another (sidecar ``action.components``).
- ``legal``: for every component, the labels the mask allows, in value order.
- ``action`` / ``action_index``: the exported captain's deterministic choice for the seat there (labels and
  integer values), whoever actually moved in the game the position comes from.

``ruleset_config`` names the config the vectors were made with (null: the ruleset's default).
A file an app writes itself needs only ``position``, ``seat``, ``observation`` and ``mask`` per vector;
``legal``, ``action`` and ``action_index`` are checked when present.

``python -m naval_agents.export.conformance check FILE [--onnx CAPTAIN.onnx] [--config PATH] [--json]``
re-derives every vector with this engine (and the captain's move with ``--onnx``); exit 0 when all match,
1 naming every mismatch by field (observation slice name, action component), 2 when the file is unusable.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from naval_agents.captains.base import Decision
from naval_agents.export.derivation import field_at
from naval_env.core.errors import NavalError
from naval_env.core.moves import options
from naval_env.core.position import PositionError
from naval_env.core.ruleset import Ruleset, get_ruleset
from naval_env.core.spaces import ActionSpec, ObservationSpec

FORMAT = "naval-tactics-conformance"
FORMAT_VERSION = 1
SUPPORTED_FORMAT_VERSIONS = (1,)
SUFFIX = ".conformance.json"
DEFAULT_COUNT = 300

ENCODING = {
    "observation": "float32 values, each written as repr(float(x)) (the float64 equal to the float32); a value "
                   "matches when it converts to the same float32 (-0.0 equals 0.0; no NaN or infinity)",
    "mask": "flat legal mask as 0/1 integers, the action components' masks one after another",
    "legal": "per action component, the labels the mask allows, in value order",
    "action": "the exported captain's deterministic choice for the seat: labels per component; action_index "
              "gives the same as integer values",
}
REQUIRED_VECTOR_KEYS = ("position", "seat", "observation", "mask")


class ConformanceError(NavalError):
    """A conformance file that cannot be checked at all (unreadable, another format, ruleset or layout)."""


@dataclass(frozen=True)
class Mismatch:
    """One difference between a vector and what this engine computes for its position."""

    vector: int
    kind: str      # position, seat, observation, mask, legal, action, vector
    field: str     # observation slice name, action component, position path or vector key
    detail: str

    def __str__(self) -> str:
        return f"vector {self.vector}: {self.kind} {self.field!r}: {self.detail}"


@dataclass(frozen=True)
class ConformanceReport:
    source: str
    ruleset_id: str
    vectors: int
    mismatches: tuple[Mismatch, ...]
    actions_checked: bool   # the captain's moves were recomputed (an ONNX captain was given)

    @property
    def ok(self) -> bool:
        return self.vectors > 0 and not self.mismatches

    @property
    def fields(self) -> set[tuple[str, str]]:
        """Every ``(kind, field)`` with a mismatch, e.g. ``("observation", "enemy0.offset")``."""
        return {(m.kind, m.field) for m in self.mismatches}

    def summary(self, limit: int = 20) -> str:
        bad = len({m.vector for m in self.mismatches})
        actions = "captain's moves recomputed" if self.actions_checked else "captain's moves checked for legality"
        head = (f"conformance {'PASS' if self.ok else 'FAIL'}: {self.source} ({self.ruleset_id}), "
                f"{self.vectors} vectors, {bad} with mismatches ({actions})")
        lines = [head, *(f"  {m}" for m in self.mismatches[:limit])]
        if len(self.mismatches) > limit:
            lines.append(f"  ... and {len(self.mismatches) - limit} more")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "ruleset": self.ruleset_id, "vectors": self.vectors, "ok": self.ok,
                "actions_checked": self.actions_checked, "mismatches": [asdict(m) for m in self.mismatches]}


# ---------------------------------------------------------------- writing
def conformance_path(onnx_path: str | Path) -> Path:
    """``captains/x.onnx`` -> ``captains/x.conformance.json``."""
    path = Path(onnx_path)
    return path.with_name(path.stem + SUFFIX)


def float_list(values: np.ndarray) -> list[float]:
    """float32 values as the Python floats equal to them (``json`` then writes ``repr(float(x))``)."""
    return [float(x) for x in np.asarray(values, dtype=np.float32)]


def write_conformance(path: str | Path, document: Mapping[str, Any]) -> str:
    """Write ``document`` (one vector per line, so diffs stay readable); returns the file's sha256."""
    header = {k: v for k, v in document.items() if k != "vectors"}
    lines = [json.dumps(v, separators=(",", ":"), allow_nan=False) for v in document["vectors"]]
    head = json.dumps(header, indent=1, allow_nan=False)
    text = head[:-2] + ',\n "vectors": [\n' + ",\n".join(lines) + "\n]}\n"
    data = text.encode("utf-8")
    Path(path).write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def conformance_entry(path: Path, sha256: str, document: Mapping[str, Any]) -> dict[str, Any]:
    """What the sidecar records of the vectors written at ``path`` (its ``conformance`` object)."""
    return {
        "file": path.name,
        "sha256": sha256,
        "format": document["format"],
        "format_version": document["format_version"],
        "vectors": len(document["vectors"]),
        "seed": document.get("generator", {}).get("seed"),
        "check": document.get("check"),
    }


# ---------------------------------------------------------------- reading
def read_conformance(path: str | Path) -> dict[str, Any]:
    """The document at ``path`` with its header checked; :class:`ConformanceError` says what is wrong."""
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConformanceError(f"{path}: no such conformance file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConformanceError(f"{path}: not a readable JSON file ({exc})") from None
    check_header(document, str(path))
    return document


def check_header(document: Any, where: str) -> None:
    if not isinstance(document, dict):
        raise ConformanceError(f"{where}: a conformance file is a JSON object, found {type(document).__name__}")
    if document.get("format") != FORMAT:
        raise ConformanceError(f"{where}: format is {document.get('format')!r}, expected {FORMAT!r}")
    if document.get("format_version") not in SUPPORTED_FORMAT_VERSIONS:
        raise ConformanceError(f"{where}: unknown format_version {document.get('format_version')!r}; "
                               f"this version of naval-tactics reads {list(SUPPORTED_FORMAT_VERSIONS)}")
    ruleset = document.get("ruleset")
    if not isinstance(ruleset, dict) or not isinstance(ruleset.get("id"), str):
        raise ConformanceError(f"{where}: 'ruleset' must be an object with a string 'id', found {ruleset!r}")
    for key in ("observation_size", "flat_mask_size"):
        if not isinstance(document.get(key), int) or isinstance(document.get(key), bool):
            raise ConformanceError(f"{where}: {key!r} must be an integer, found {document.get(key)!r}")
    if not isinstance(document.get("components"), list):
        raise ConformanceError(f"{where}: 'components' must be the list of action component names")
    if not isinstance(document.get("vectors"), list):
        raise ConformanceError(f"{where}: 'vectors' must be a list, found {type(document.get('vectors')).__name__}")


def _check_layout(document: Mapping[str, Any], ruleset: Ruleset, obs_spec: ObservationSpec,
                  action_spec: ActionSpec, where: str) -> None:
    version = document["ruleset"].get("version")
    if version is not None and version != ruleset.version:
        raise ConformanceError(f"{where}: written for {ruleset.id} version {version!r}, but this engine is "
                               f"version {ruleset.version!r}")
    names = [c.name for c in action_spec.components]
    found = (document["observation_size"], document["flat_mask_size"], document["components"])
    if found != (obs_spec.size, action_spec.flat_size, names):
        raise ConformanceError(
            f"{where}: layout differs from {ruleset.id} {ruleset.version} with this config: file has "
            f"observation_size {found[0]}, flat_mask_size {found[1]}, components {found[2]}; the engine has "
            f"{obs_spec.size}, {action_spec.flat_size}, {names} (pass the config it was made with: --config)")


# ---------------------------------------------------------------- checking
def check_conformance(path: str | Path, *, config: Any = None, captain: Any = None) -> ConformanceReport:
    """Check the file at ``path`` (see :func:`check_document`)."""
    return check_document(read_conformance(path), config=config, captain=captain, source=str(path))


def check_document(document: Mapping[str, Any], *, config: Any = None, captain: Any = None,
                   source: str = "<document>") -> ConformanceReport:
    """Re-derive every vector of ``document`` from its position with this engine and name what differs.

    ``config``: a ruleset config object or path (default: the file's ``ruleset_config``, else the
    ruleset's default). ``captain``: a captain (e.g. :class:`~naval_agents.captains.onnx_captain.OnnxCaptain`)
    whose move is compared with each vector's ``action``; without one, actions are only checked legal.
    """
    check_header(document, source)
    try:
        ruleset = get_ruleset(document["ruleset"]["id"])
    except KeyError as exc:
        raise ConformanceError(f"{source}: {exc.args[0]}") from None
    if config is None or isinstance(config, (str, Path)):
        path = config if config is not None else document.get("ruleset_config")
        try:
            config = ruleset.load_config(path)
        except (NavalError, OSError) as exc:
            raise ConformanceError(f"{source}: cannot load ruleset config {path!r} ({exc}); pass --config") from None
    obs_spec, action_spec = ruleset.observation_spec(config), ruleset.action_spec(config)
    _check_layout(document, ruleset, obs_spec, action_spec, source)
    mismatches: list[Mismatch] = []
    for index, vector in enumerate(document["vectors"]):
        mismatches += _check_vector(index, vector, ruleset, config, obs_spec, action_spec, captain)
    return ConformanceReport(source, ruleset.id, len(document["vectors"]), tuple(mismatches), captain is not None)


def _check_vector(index: int, vector: Any, ruleset: Ruleset, config: Any, obs_spec: ObservationSpec,
                  action_spec: ActionSpec, captain: Any) -> list[Mismatch]:
    if not isinstance(vector, dict):
        return [Mismatch(index, "vector", "<vector>", f"a vector is a JSON object, found {type(vector).__name__}")]
    missing = [k for k in REQUIRED_VECTOR_KEYS if k not in vector]
    if missing:
        return [Mismatch(index, "vector", key, "missing") for key in missing]
    try:
        game = ruleset.load_position(vector["position"], config)
    except PositionError as exc:
        return [Mismatch(index, "position", p.path or "<position>", p.message) for p in exc.problems]
    except NavalError as exc:
        return [Mismatch(index, "position", "<position>", str(exc))]
    seat = vector["seat"]
    if seat not in game.agents:
        return [Mismatch(index, "seat", "seat", f"{seat!r} is not an agent of the position; agents: "
                                                 f"{list(game.agents)}")]
    observation, mask = game.observe(seat), game.legal_mask(seat)
    found = [*_observation(index, vector["observation"], observation, obs_spec),
             *_mask(index, vector["mask"], mask, action_spec)]
    if "legal" in vector:
        found += _legal(index, vector["legal"], options(action_spec, mask))
    if "action" in vector:
        expected = None
        if captain is not None:
            expected = np.asarray(captain.act(Decision(seat, observation, mask, game)), dtype=np.int64)
        found += _action(index, vector, mask, action_spec, expected)
    return found


def _observation(index: int, written: Any, engine: np.ndarray, spec: ObservationSpec) -> list[Mismatch]:
    if not isinstance(written, list) or len(written) != spec.size:
        size = len(written) if isinstance(written, list) else type(written).__name__
        return [Mismatch(index, "observation", "<observation>", f"expected a list of {spec.size} numbers, "
                                                                 f"found {size}")]
    bad_type = [i for i, x in enumerate(written) if not isinstance(x, (int, float)) or isinstance(x, bool)]
    if bad_type:
        name, element = field_at(spec, bad_type[0])
        return [Mismatch(index, "observation", name, f"element {element} is {written[bad_type[0]]!r}, not a number")]
    with np.errstate(over="ignore"):
        values = np.asarray(written, dtype=np.float64).astype(np.float32)
    differ = np.flatnonzero(values != engine)  # NaN never equals: reported too
    by_field: dict[str, list[tuple[int, float, float]]] = {}
    for i in differ.tolist():
        name, element = field_at(spec, i)
        by_field.setdefault(name, []).append((element, float(engine[i]), float(values[i])))
    return [
        Mismatch(index, "observation", name, "; ".join(
            f"[{element}] engine {expected!r}, file {got!r}" for element, expected, got in elements[:4])
            + (f"; ... {len(elements) - 4} more" if len(elements) > 4 else ""))
        for name, elements in by_field.items()
    ]


def _mask(index: int, written: Any, engine: np.ndarray, spec: ActionSpec) -> list[Mismatch]:
    if (not isinstance(written, list) or len(written) != spec.flat_size
            or any(x not in (0, 1) or isinstance(x, float) for x in written)):
        return [Mismatch(index, "mask", "<mask>", f"expected a list of {spec.flat_size} values 0 or 1")]
    values = np.asarray(written, dtype=bool)
    found = []
    for component, offset in zip(spec.components, spec.offsets):
        mine, theirs = engine[offset:offset + component.size], values[offset:offset + component.size]
        if np.array_equal(mine, theirs):
            continue
        only_engine = [component.labels[i] for i in np.flatnonzero(mine & ~theirs)]
        only_file = [component.labels[i] for i in np.flatnonzero(theirs & ~mine)]
        parts = []
        if only_engine:
            parts.append(f"the engine allows {only_engine}, the file forbids them")
        if only_file:
            parts.append(f"the file allows {only_file}, the engine forbids them")
        found.append(Mismatch(index, "mask", component.name, "; ".join(parts)))
    return found


def _legal(index: int, written: Any, engine: dict[str, list[str]]) -> list[Mismatch]:
    if not isinstance(written, dict):
        return [Mismatch(index, "legal", "<legal>", "expected an object of component: [labels]")]
    found = [Mismatch(index, "legal", name, f"engine {labels}, file {written.get(name)!r}")
             for name, labels in engine.items() if written.get(name) != labels]
    found += [Mismatch(index, "legal", name, f"no such action component; components: {list(engine)}")
              for name in written if name not in engine]
    return found


def _action(index: int, vector: dict[str, Any], mask: np.ndarray, spec: ActionSpec,
            expected: np.ndarray | None) -> list[Mismatch]:
    written = vector["action"]
    names = [c.name for c in spec.components]
    if not isinstance(written, dict):
        return [Mismatch(index, "action", "<action>", "expected an object of component: label")]
    found = [Mismatch(index, "action", name, f"no such action component; components: {names}")
             for name in written if name not in names]
    values = vector.get("action_index")
    if values is not None and (not isinstance(values, list) or len(values) != len(names)):
        found.append(Mismatch(index, "action", "<action_index>", f"expected {len(names)} integers"))
        values = None
    for i, (component, offset) in enumerate(zip(spec.components, spec.offsets)):
        label = written.get(component.name, component.labels[0])
        if label not in component.labels:
            found.append(Mismatch(index, "action", component.name, f"unknown label {label!r}"))
            continue
        value = component.labels.index(label)
        if values is not None and values[i] != value:
            found.append(Mismatch(index, "action", component.name,
                                  f"action_index says {values[i]!r}, the label {label!r} is value {value}"))
        if not mask[offset + value]:
            found.append(Mismatch(index, "action", component.name, f"{label!r} is not legal here"))
        if expected is not None and int(expected[i]) != value:
            found.append(Mismatch(index, "action", component.name,
                                  f"the captain chooses {component.labels[int(expected[i])]!r}, file {label!r}"))
    return found


# ---------------------------------------------------------------- command line
def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m naval_agents.export.conformance",
        description="Check conformance vectors (positions with observation, mask, legal labels and captain's "
                    "move) against this engine; mismatches are named by observation field or action component.")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="re-derive every vector of FILE and report what differs")
    check.add_argument("file", help="a .conformance.json file (from an export, or written by another program)")
    check.add_argument("--onnx", help="an exported captain: also recompute its move at every vector")
    check.add_argument("--config", help="ruleset config the vectors were made with (default: the file's)")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--limit", type=int, default=20, help="mismatches listed in the text report (default 20)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        document = read_conformance(args.file)
        captain = None
        if args.onnx:
            from naval_agents.captains.onnx_captain import OnnxCaptain

            captain = OnnxCaptain(args.onnx, expected_ruleset=document["ruleset"]["id"],
                                  config=args.config or document.get("ruleset_config"))
        report = check_document(document, config=args.config, captain=captain, source=args.file)
    except (NavalError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report.to_json(), indent=1) if args.json else report.summary(args.limit))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
