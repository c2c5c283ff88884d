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
ZOO_CAPTAIN = "zoo"
LEVELS = ("easy", "normal", "hard", "expert")
MIXED_PREFIX = "mixed:"


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
    """Names of the ruleset's built-in captains that need no file: ``random`` and the scripted ones."""
    return ["random", *sorted(scripted_captains(ruleset_id))]


def search_names() -> list[str]:
    """The forms a search captain's name takes (``search``, ``search:N``, ``search:Nms``); every ruleset has it."""
    return list(NAME_FORMS)


def captain_names(ruleset_id: str) -> list[str]:
    """Every captain name this ruleset takes without a path: scripted, the zoo with its levels where one ships,
    and the search forms."""
    from agents.zoo import has_zoo_captain

    shipped = [ZOO_CAPTAIN, *LEVELS, "expert:Nms"] if has_zoo_captain(ruleset_id) else []
    return [*scripted_names(ruleset_id), *shipped, *search_names()]


def _mixed_captain(spec: str, ruleset_id: str, action_spec: ActionSpec, seed: int | None, config: Any) -> Captain:
    """``mixed:BASE:SHARE``: captain BASE playing SHARE (0..1) of its decisions uniformly at random."""
    from agents.zoo.levels import MixedCaptain

    base, _, share_text = spec[len(MIXED_PREFIX):].rpartition(":")
    try:
        share = float(share_text)
    except ValueError:
        share = -1.0
    if not base or not 0.0 <= share <= 1.0:
        raise ValueError(f"captain {spec!r}: write mixed:BASE:SHARE with SHARE from 0 to 1, e.g. mixed:zoo:0.3")
    return MixedCaptain(make_captain(base, ruleset_id, action_spec, seed=seed, config=config), share,
                        action_spec, name=spec, seed=seed)


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
    if spec == ZOO_CAPTAIN:
        from agents.zoo import load_zoo_captain

        return load_zoo_captain(ruleset_id, config)
    if spec.startswith("expert:"):   # expert:Nms, the top level thinking N ms a decision (agents/zoo/levels.py)
        from agents.zoo.levels import make_timed_expert, parse_timed_expert

        return make_timed_expert(parse_timed_expert(spec), ruleset_id, seed=seed, config=config)
    if spec in LEVELS:
        from agents.zoo import make_level_captain

        return make_level_captain(spec, ruleset_id, action_spec, seed=seed, config=config)
    if spec.startswith(MIXED_PREFIX):
        return _mixed_captain(spec, ruleset_id, action_spec, seed, config)
    path = Path(spec)
    if path.suffix in (".onnx", ".zip", ".pth") or (path.is_dir() and (path / "run.json").is_file()):
        from agents.loading import load_model_captain

        return load_model_captain(path, ruleset_id, config)
    raise ValueError(
        f"unknown captain {spec!r} for ruleset {ruleset_id!r}; use one of {captain_names(ruleset_id)}, "
        "a trained run's model (its folder, or a .zip / RLlib .pth inside it) or an exported .onnx file"
    )
