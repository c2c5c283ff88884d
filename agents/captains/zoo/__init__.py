"""The captain zoo: one trained captain per ruleset shipped with the package, and difficulty levels.

``captains/<ruleset>.onnx`` with its sidecar (``.json``), conformance vectors
(``.conformance.json``) and model card (``.md``) load by the captain name ``zoo``;
``easy``, ``normal``, ``hard`` and ``expert`` are built from it (``levels.py``, ``levels.yaml``).
Nothing here unpickles: the captains are ONNX files checked against their sidecars.
"""

from __future__ import annotations

from naval_agents.captains.zoo.catalogue import (
    ZOO_CAPTAIN,
    ZooError,
    card_path,
    has_zoo_captain,
    load_zoo_captain,
    zoo_onnx_path,
    zoo_rulesets,
)
from naval_agents.captains.zoo.levels import LEVELS, is_level, make_level_captain

__all__ = [
    "LEVELS",
    "ZOO_CAPTAIN",
    "ZooError",
    "card_path",
    "has_zoo_captain",
    "is_level",
    "load_zoo_captain",
    "make_level_captain",
    "zoo_onnx_path",
    "zoo_rulesets",
]
