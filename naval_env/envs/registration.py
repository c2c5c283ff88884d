"""Gymnasium ids for rulesets: ``naval/<GymName>-v0``, for the built-in ones at import and for any ruleset
registered later (a plugin's, a test's) through :func:`register_ruleset`.

An installed distribution offers a ruleset to every command (``naval-tactics evaluate --ruleset <id>``, the server)
in the entry point group ``naval_env.rulesets``, naming its ``Ruleset`` object (``mygame = "mygame:RULESET"``
under ``[project.entry-points."naval_env.rulesets"]``), the way Gymnasium finds third-party environments;
``import naval_env`` registers them after the built-in ones (:func:`register_plugin_rulesets`)."""

from __future__ import annotations

from importlib.metadata import entry_points

import gymnasium

from naval_env.core.ruleset import Ruleset, get_ruleset, register, ruleset_ids, unregister

ENTRY_POINT = "naval_env.envs.gym_env:NavalEnv"
#: The entry point group an installed distribution offers its rulesets in.
PLUGIN_GROUP = "naval_env.rulesets"


def register_gym_id(ruleset: Ruleset) -> None:
    """``gym.make(ruleset.gym_id)`` makes this ruleset's env (the same id registered again is a no-op)."""
    if ruleset.gym_id not in gymnasium.registry:
        gymnasium.register(id=ruleset.gym_id, entry_point=ENTRY_POINT, kwargs={"ruleset": ruleset.id},
                           disable_env_checker=False)


def register_gym_ids() -> None:
    """A Gymnasium id for every registered ruleset (``import naval_env`` does this for the built-in ones)."""
    for ruleset_id in ruleset_ids():
        register_gym_id(get_ruleset(ruleset_id))


def register_ruleset(ruleset: Ruleset) -> Ruleset:
    """Register a ruleset made outside ``naval_env/rulesets/`` and its Gymnasium id: from here on every
    floor above the rules (envs, captains, evaluation, the server, the viewer) plays it by id.
    docs/contract.md says what a ruleset ships."""
    register(ruleset)
    register_gym_id(ruleset)
    return ruleset


def unregister_ruleset(ruleset_id: str) -> None:
    """Undo :func:`register_ruleset` (KeyError, naming the registered ones, for an unknown id)."""
    gym_id = get_ruleset(ruleset_id).gym_id
    unregister(ruleset_id)
    gymnasium.registry.pop(gym_id, None)


def register_plugin_rulesets() -> list[str]:
    """Register every ruleset installed distributions offer in :data:`PLUGIN_GROUP` and not yet registered; the ids
    registered. An entry point that is not a ``Ruleset`` fails naming it (a plugin that loads wrong is an error,
    not a ruleset silently missing)."""
    registered = []
    for point in entry_points(group=PLUGIN_GROUP):
        ruleset = point.load()
        if not isinstance(ruleset, Ruleset):
            raise TypeError(f"entry point {point.name!r} = {point.value!r} of group {PLUGIN_GROUP!r} is a "
                            f"{type(ruleset).__name__}, not a Ruleset (docs/contract.md)")
        if ruleset.id not in ruleset_ids():
            register_ruleset(ruleset)
            registered.append(ruleset.id)
    return registered
