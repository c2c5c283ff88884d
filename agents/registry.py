"""Make captains from names or paths: ``random``, a scripted tactic, a trained model or an ONNX export."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.base import Captain, RandomCaptain
from agents.search import NAME_FORMS, is_search_name, make_search_captain
from naval_env.core.spaces import ActionSpec

ScriptedFactory = Callable[[], Captain]


def scripted_captains(ruleset_id: str) -> dict[str, ScriptedFactory]:
    """The ruleset's scripted captains: ``agents/scripted/<ruleset_id>.py`` defines ``CAPTAINS``."""
    try:
        module = importlib.import_module(f"agents.scripted.{ruleset_id}")
    except ModuleNotFoundError as error:
        if error.name != f"agents.scripted.{ruleset_id}":
            raise
        return {}
    return dict(module.CAPTAINS)


def scripted_names(ruleset_id: str) -> list[str]:
    """Names usable as captains on this ruleset, ``random`` included."""
    return ["random", *sorted(scripted_captains(ruleset_id))]


def search_names() -> list[str]:
    """The forms a search captain's name takes (``search``, ``search:N``, ``search:Nms``); every ruleset has it."""
    return list(NAME_FORMS)


def captain_names(ruleset_id: str) -> list[str]:
    """Every captain name usable on this ruleset: ``random``, its scripted captains and the search forms."""
    return [*scripted_names(ruleset_id), *search_names()]


def default_opponent(ruleset_id: str) -> str:
    """The first scripted captain the ruleset lists (its reference opponent), else ``random``."""
    return next(iter(scripted_captains(ruleset_id)), "random")


def make_captain(spec: str | Captain, ruleset_id: str, action_spec: ActionSpec,
                 seed: int | None = None, config: Any = None) -> Captain:
    """A captain from a name (``random``, ``rammer``, ``search:64``, ...), a model path or an existing Captain object.

    ``config``: the ruleset config of the games, checked against an ONNX export's layouts.
    """
    if isinstance(spec, Captain):
        return spec
    if spec == "random":
        return RandomCaptain(action_spec, seed=seed)
    if is_search_name(spec):
        return make_search_captain(spec, seed=0 if seed is None else seed)
    scripted = scripted_captains(ruleset_id)
    if spec in scripted:
        return scripted[spec]()
    path = Path(spec)
    if path.suffix in (".onnx", ".zip") or (path.is_dir() and (path / "run.json").is_file()):
        from agents.loading import load_model_captain

        return load_model_captain(path, ruleset_id, config)
    raise ValueError(
        f"unknown captain {spec!r} for ruleset {ruleset_id!r}; use one of {captain_names(ruleset_id)}, "
        "a trained run's model (.zip inside a runs/ folder) or an exported .onnx file"
    )
