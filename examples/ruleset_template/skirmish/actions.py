"""The `skirmish` action codec: one decision a turn, two components.

======  =============  ==================================================================
index   component      labels (value 0 is the no-op)
======  =============  ==================================================================
0       ``shot``       ``hold``, ``fire@enemy0``, ``fire@enemy1`` (target slots, side order)
1       ``maneuver``   ``hold``, ``back``, ``ahead`` (one cell; ahead = toward the enemy end)
======  =============  ==================================================================

The shot is resolved first, from where the boat stands, then the maneuver: neither component's mask
depends on the other's value, so each mask is exact on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from naval_env.core.spaces import ActionComponent, ActionSpec

from .config import SkirmishConfig


class Maneuver(IntEnum):
    HOLD = 0
    BACK = 1
    AHEAD = 2

    @property
    def step(self) -> int:
        """Cells moved in the boat's own ``ahead`` direction."""
        return (0, -1, 1)[self]


@dataclass(frozen=True)
class SkirmishActions:
    spec: ActionSpec

    SHOT = 0
    MANEUVER = 1


def build_actions(config: SkirmishConfig) -> SkirmishActions:
    n = config.house_rules.max_ships_per_side
    return SkirmishActions(ActionSpec((
        ActionComponent("shot", ("hold", *(f"fire@enemy{k}" for k in range(n))),
                        "fire at an enemy within range (a d6 hits on house_rules.hit_roll or more), or hold fire"),
        ActionComponent("maneuver", tuple(m.name.lower() for m in Maneuver),
                        "after the shot: stay, or move one cell back or ahead onto a free cell of the track"),
    )))
