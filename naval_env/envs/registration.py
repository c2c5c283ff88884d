"""Gymnasium ids for rulesets: ``naval/<GymName>-v0``, for the built-in ones at import and for any ruleset
registered later (a plugin's, a test's) through :func:`register_ruleset`."""

from __future__ import annotations

import gymnasium

from naval_env.core.ruleset import Ruleset, get_ruleset, register, ruleset_ids, unregister

ENTRY_POINT = "naval_env.envs.gym_env:NavalEnv"


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
