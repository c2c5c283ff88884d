"""naval-tactics: rules engines and environments for tabletop naval combat.

Importing this package registers a Gymnasium id per ruleset, e.g. ``naval/Pantheon-v0``.
:func:`sample_legal` draws legal actions from flat masks, one per sub-env of a vector env.
"""

from __future__ import annotations

import gymnasium

import naval_env.rulesets  # noqa: F401 - importing registers the built-in rulesets
from naval_env.core.errors import ConfigError, IllegalActionError, NavalError
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.spaces import sample_legal

__all__ = ["ConfigError", "IllegalActionError", "NavalError", "get_ruleset", "ruleset_ids", "sample_legal"]

for _id in ruleset_ids():
    _ruleset = get_ruleset(_id)
    if _ruleset.gym_id not in gymnasium.registry:
        gymnasium.register(
            id=_ruleset.gym_id,
            entry_point="naval_env.envs.gym_env:NavalEnv",
            kwargs={"ruleset": _id},
            disable_env_checker=False,
        )
