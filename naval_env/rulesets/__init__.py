"""Built-in rulesets: every subpackage here registers itself when imported.

A ruleset ``<id>`` is the package ``rulesets/<id>/`` (its rules page: docs/rules/<id>.md). Its
``RULESET`` (a :class:`~naval_env.core.ruleset.PackagedRuleset`) gives the Gymnasium id
``naval/<GymName>-v0``, and its PettingZoo factories ``env`` (AEC) and ``parallel_env`` come from
:func:`~naval_env.rulesets.pettingzoo.pettingzoo_factories`.
"""

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    if _module.ispkg:
        importlib.import_module(f"{__name__}.{_module.name}")
