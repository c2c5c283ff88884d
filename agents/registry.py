"""Make captains from names or paths: ``random``, a scripted tactic, a trained model or an ONNX export."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from agents.base import Captain, RandomCaptain
from naval_env.core.spaces import ActionSpec

ScriptedFactory = Callable[[], Captain]


def _pantheon() -> dict[str, ScriptedFactory]:
    from agents.scripted.pantheon import GunnerCaptain, RammerCaptain

    return {"rammer": RammerCaptain, "gunner": GunnerCaptain}


SCRIPTED: dict[str, Callable[[], dict[str, ScriptedFactory]]] = {"pantheon": _pantheon}


def scripted_names(ruleset_id: str) -> list[str]:
    """Names usable as captains on this ruleset, ``random`` included."""
    factory = SCRIPTED.get(ruleset_id)
    return ["random", *(sorted(factory()) if factory else [])]


def make_captain(spec: str | Captain, ruleset_id: str, action_spec: ActionSpec,
                 seed: int | None = None) -> Captain:
    """A captain from a name (``random``, ``rammer``, ...) or an existing Captain object."""
    if isinstance(spec, Captain):
        return spec
    if spec == "random":
        return RandomCaptain(action_spec, seed=seed)
    scripted = SCRIPTED.get(ruleset_id, lambda: {})()
    if spec in scripted:
        return scripted[spec]()
    path = Path(spec)
    if path.suffix in (".onnx", ".zip") or (path.is_dir() and (path / "run.json").is_file()):
        from agents.loading import load_model_captain

        return load_model_captain(path, ruleset_id)
    raise ValueError(
        f"unknown captain {spec!r} for ruleset {ruleset_id!r}; use one of {scripted_names(ruleset_id)}, "
        "a trained run's model (.zip inside a runs/ folder) or an exported .onnx file"
    )
