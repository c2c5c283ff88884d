"""Scripted captains, one module a ruleset: ``agents/captains/scripted/<ruleset_id>.py`` defines ``CAPTAINS``.

This is the bottom of the captain names: the search captain's rollouts and the name registry
(``naval_agents.captains.registry``, on top) both look scripted captains up here, and nothing here imports them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from naval_env.core.captain import Captain, RandomCaptain
from naval_env.core.hooks import hooks_of
from naval_env.core.spaces import ActionSpec

ScriptedFactory = Callable[[], Captain]


def scripted_captains(ruleset_id: str) -> dict[str, ScriptedFactory]:
    """The ruleset's scripted captains: ``agents/captains/scripted/<ruleset_id>.py`` defines ``CAPTAINS``, or, for a
    ruleset whose captains ship beside its rules, its ``scripted_captains`` hook (``<package>/captains.py``)."""
    try:
        module = importlib.import_module(f"naval_agents.captains.scripted.{ruleset_id}")
    except ModuleNotFoundError as error:
        if error.name != f"naval_agents.captains.scripted.{ruleset_id}":
            raise
        return dict(hooks_of(ruleset_id).scripted_captains())
    return dict(module.CAPTAINS)


def scripted_names(ruleset_id: str) -> list[str]:
    """Names of the ruleset's built-in captains that need no file: ``random`` and the scripted ones."""
    return ["random", *sorted(scripted_captains(ruleset_id))]


def default_opponent(ruleset_id: str) -> str:
    """The first scripted captain the ruleset lists (its reference opponent), else ``random``."""
    return next(iter(scripted_captains(ruleset_id)), "random")


def make_scripted_captain(name: str, ruleset_id: str, action_spec: ActionSpec, seed: int | None = None) -> Captain:
    """``random`` or one of the ruleset's scripted captains; a ValueError lists the names allowed."""
    if name == "random":
        return RandomCaptain(action_spec, seed=seed)
    scripted = scripted_captains(ruleset_id)
    if name not in scripted:
        raise ValueError(f"captain {name!r} is not 'random' or a scripted captain of {ruleset_id!r}; "
                         f"use one of {scripted_names(ruleset_id)}")
    return scripted[name]()
