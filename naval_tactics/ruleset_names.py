"""The registered rulesets' ids without importing a ruleset, for command lines that only list them.

Importing the rules takes over a second; ``--help`` and the flags' choices need only the names.
"""

from __future__ import annotations

import importlib.util
import pkgutil
import sys
from pathlib import Path


def ruleset_ids() -> list[str]:
    """Once the rules are imported, the registry's own list; before, the packages under ``naval_env/rulesets/``,
    each of which registers itself under its folder's name when imported (found without running
    ``naval_env/__init__``, which imports them all)."""
    registry = sys.modules.get("naval_env.core.ruleset")
    if registry is not None:
        return list(registry.ruleset_ids())
    spec = importlib.util.find_spec("naval_env")
    folders = [str(Path(p) / "rulesets") for p in (spec.submodule_search_locations or [])] if spec else []
    return sorted(m.name for m in pkgutil.iter_modules(folders) if m.ispkg)
