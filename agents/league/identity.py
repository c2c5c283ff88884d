"""What a league captain is made from: the files behind a spec and their content hash.

A captain given by path (a run folder, a model .zip, an .onnx export) and the shipped zoo captain
(``zoo`` and its levels) are files that can change under the same name; the league stores their
SHA-256 and refuses to play a captain whose files no longer match. Built-in scripted captains have no
files (hash None): they change only with the code, whose ruleset version each game records.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from naval_agents.captains.registry import LEVELS, MIXED_PREFIX, ZOO_CAPTAIN


def captain_files(spec: str, ruleset: str) -> list[Path]:
    """The files ``make_captain(spec)`` reads, in a fixed order; [] for a built-in captain."""
    if spec.startswith(MIXED_PREFIX):
        base = spec[len(MIXED_PREFIX):].rpartition(":")[0]
        return captain_files(base, ruleset) if base else []
    if spec in (ZOO_CAPTAIN, *LEVELS):
        from naval_agents.captains.zoo import zoo_onnx_path

        onnx = zoo_onnx_path(ruleset)
        return [p for p in (onnx, onnx.with_suffix(".json")) if p.is_file()]
    path = Path(spec)
    if path.is_dir():
        return [p for p in (path / "final_model.zip", path / "run.json") if p.is_file()]
    if path.is_file():
        extra = path.with_suffix(".json") if path.suffix == ".onnx" else path.parent / "run.json"
        return [path, *([extra] if extra.is_file() else [])]
    return []


def is_path_spec(spec: str) -> bool:
    """A spec that names a file or folder (rather than a built-in captain)."""
    return not spec.startswith(MIXED_PREFIX) and Path(spec).exists() and (
        Path(spec).suffix in (".onnx", ".zip") or Path(spec).is_dir())


def content_hash(spec: str, ruleset: str) -> str | None:
    """SHA-256 over the captain's files (each file's name and bytes); None when it has none."""
    files = captain_files(spec, ruleset)
    if not files:
        return None
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()


def file_hash(path: str | Path) -> str | None:
    """SHA-256 of one file's bytes; None when it is not a file."""
    path = Path(path)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
