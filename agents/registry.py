"""Make captains from names or paths: ``random``, a scripted tactic, a trained model or an ONNX export.

The top of the captain names: it knows the scripted captains, the search, the zoo and its levels,
and none of them imports it back (a level gets its base captain through the ``base_captain`` it is
handed). Registered as the environments' captain resolver (:mod:`naval_env.envs.opponents`):
through the ``naval_env.captains`` entry point in pyproject.toml, and on import here.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path
from typing import Any

from agents.base import Captain
from agents.scripted import (
    ScriptedFactory,
    default_opponent,
    make_scripted_captain,
    scripted_captains,
    scripted_names,
)
from agents.search import NAME_FORMS, is_search_name, make_search_captain
from agents.zoo.catalogue import ZOO_CAPTAIN, has_zoo_captain, load_zoo_captain
from agents.zoo.levels import (
    LEVELS,
    MAX_TEMPERATURE,
    MixedCaptain,
    TemperatureCaptain,
    make_level_captain,
    make_timed_expert,
    parse_timed_expert,
)
from naval_env.core.spaces import ActionSpec
from naval_env.envs.opponents import register_resolver

__all__ = [
    "LEVELS",
    "MIXED_PREFIX",
    "ZOO_CAPTAIN",
    "ScriptedFactory",
    "captain_names",
    "default_opponent",
    "make_captain",
    "scripted_captains",
    "scripted_names",
    "search_names",
]

MIXED_PREFIX = "mixed:"
TEMPERED_PREFIX = "tempered:"


def search_names() -> list[str]:
    """The forms a search captain's name takes (``search``, ``search:N``, ``search:Nms``); every ruleset has it."""
    return list(NAME_FORMS)


def captain_names(ruleset_id: str) -> list[str]:
    """Every captain name this ruleset takes without a path: scripted, the zoo with its levels where one ships,
    and the search forms."""
    shipped = [ZOO_CAPTAIN, *LEVELS, "expert:Nms"] if has_zoo_captain(ruleset_id) else []
    return [*scripted_names(ruleset_id), *shipped, *search_names()]


def _mixed_captain(spec: str, ruleset_id: str, action_spec: ActionSpec, seed: int | None, config: Any) -> Captain:
    """``mixed:BASE:SHARE``: captain BASE playing SHARE (0..1) of its decisions uniformly at random."""
    base, _, share_text = spec[len(MIXED_PREFIX):].rpartition(":")
    try:
        share = float(share_text)
    except ValueError:
        share = -1.0
    if not base or not 0.0 <= share <= 1.0:
        raise ValueError(f"captain {spec!r}: write mixed:BASE:SHARE with SHARE from 0 to 1, e.g. mixed:zoo:0.3")
    return MixedCaptain(make_captain(base, ruleset_id, action_spec, seed=seed, config=config), share,
                        action_spec, name=spec, seed=seed)


def _tempered_captain(spec: str, ruleset_id: str, action_spec: ActionSpec, seed: int | None,
                      config: Any) -> Captain:
    """``tempered:BASE:T``: captain BASE (one that gives move probabilities) sampling its moves at temperature T
    (0: its own most likely moves)."""
    base, _, text = spec[len(TEMPERED_PREFIX):].rpartition(":")
    try:
        temperature = float(text)
    except ValueError:
        temperature = -1.0
    if not base or not 0.0 <= temperature <= MAX_TEMPERATURE:
        raise ValueError(f"captain {spec!r}: write tempered:BASE:T with T from 0 to {MAX_TEMPERATURE:g}, "
                         "e.g. tempered:zoo:1.5")
    captain = make_captain(base, ruleset_id, action_spec, seed=seed, config=config)
    return TemperatureCaptain(captain, temperature, name=spec, seed=seed) if temperature > 0 else captain


def make_captain(spec: str | Captain, ruleset_id: str, action_spec: ActionSpec,
                 seed: int | None = None, config: Any = None) -> Captain:
    """A captain from a name (``random``, ``rammer``, ``search:64``, ...), a model path or an existing Captain object.

    ``config``: the ruleset config of the games, checked against an ONNX export's layouts.
    """
    if isinstance(spec, Captain):
        return spec
    if spec == "random" or spec in scripted_captains(ruleset_id):
        return make_scripted_captain(spec, ruleset_id, action_spec, seed=seed)
    if is_search_name(spec):
        return make_search_captain(spec, seed=0 if seed is None else seed)
    if spec == ZOO_CAPTAIN:
        return load_zoo_captain(ruleset_id, config)
    if spec.startswith("expert:"):   # expert:Nms, the top level thinking N ms a decision (agents/zoo/levels.py)
        return make_timed_expert(parse_timed_expert(spec), ruleset_id, seed=seed, config=config)
    if spec in LEVELS:
        base_captain = partial(make_captain, ruleset_id=ruleset_id, action_spec=action_spec, seed=seed, config=config)
        return make_level_captain(spec, ruleset_id, action_spec, base_captain, seed=seed)
    if spec.startswith(MIXED_PREFIX):
        return _mixed_captain(spec, ruleset_id, action_spec, seed, config)
    if spec.startswith(TEMPERED_PREFIX):
        return _tempered_captain(spec, ruleset_id, action_spec, seed, config)
    path = Path(spec)
    if path.suffix in (".onnx", ".zip", ".pth") or (path.is_dir() and (path / "run.json").is_file()):
        from agents.loading import load_model_captain

        return load_model_captain(path, ruleset_id, config)
    raise ValueError(
        f"unknown captain {spec!r} for ruleset {ruleset_id!r}; use one of {captain_names(ruleset_id)}, "
        "a trained run's model (its folder, or a .zip / RLlib .pth inside it) or an exported .onnx file"
    )


# The environments resolve captain names through this module (the entry point names it too).
register_resolver("agents", sys.modules[__name__])  # type: ignore[arg-type]
