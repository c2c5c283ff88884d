"""naval-tactics: rules engines and environments for tabletop naval combat.

Importing this package registers a Gymnasium id per ruleset, e.g. ``naval/Pantheon-v0``; a ruleset made
elsewhere joins with :func:`register_ruleset`, or by the entry point group ``naval_env.rulesets`` when installed
(docs/contract.md says what it ships).
:func:`sample_legal` draws legal actions from flat masks, one per sub-env of a vector env.
"""

from __future__ import annotations

import naval_env.rulesets  # noqa: F401 - importing registers the built-in rulesets
from naval_env.core.errors import ConfigError, IllegalActionError, NavalError
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.registration import (
    register_gym_ids,
    register_plugin_rulesets,
    register_ruleset,
    unregister_ruleset,
)
from naval_env.envs.spaces import sample_legal

__all__ = ["ConfigError", "IllegalActionError", "NavalError", "get_ruleset", "register_ruleset", "ruleset_ids",
           "sample_legal", "unregister_ruleset"]

register_gym_ids()
register_plugin_rulesets()
