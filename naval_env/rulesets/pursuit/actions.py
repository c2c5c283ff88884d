"""The `pursuit` action codec: named MultiDiscrete components and what each value means.

A ship's turn is three decisions (phases COMMAND, MANEUVER, GUNS); every decision
uses the same MultiDiscrete action and the components of other phases are masked
to value 0, so each component's mask is exact on its own. Target slots are the
enemy ships in side order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from naval_env.core.spaces import ActionComponent, ActionSpec
from naval_env.rulesets.pursuit.config import PursuitConfig
from naval_env.rulesets.pursuit.machines import MachineOrder, machine_orders
from naval_env.rulesets.pursuit.maneuvers import ManeuverChoice, maneuver_choices
from naval_env.rulesets.pursuit.propulsion import COMMAND_LABELS, PROPULSION_LABELS


@dataclass(frozen=True)
class PursuitActions:
    """Components and lookup tables for one config (they depend only on the house rules)."""

    spec: ActionSpec
    maneuvers: tuple[ManeuverChoice, ...]
    orders: tuple[MachineOrder, ...]
    max_machines: int
    #: read-only masks by the flat indices they allow besides the no-ops, filled by the engine
    masks: dict[tuple[int, ...], np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    PROPULSION = 0
    COMMAND = 1
    MANEUVER = 2
    MACHINE = 3  # first of ``max_machines`` components


def build_actions(config: PursuitConfig) -> PursuitActions:
    rules = config.house_rules
    maneuvers = maneuver_choices(rules.max_ships_per_side)
    orders = machine_orders(rules.max_ships_per_side)
    components = (
        ActionComponent("propulsion", PROPULSION_LABELS,
                        "COMMAND phase: the crew rows, tends the sails, or changes propulsion (none: no way made)"),
        ActionComponent("command", COMMAND_LABELS,
                        "COMMAND phase: the captain forces the rowing or inspires the crew"),
        ActionComponent("maneuver", tuple(m.label for m in maneuvers),
                        "MANEUVER phase: flee, pursue (straight or veering 45 degrees) or ram an enemy slot"),
        *(
            ActionComponent(f"machine_{i}", tuple(o.label for o in orders),
                            f"GUNS phase: the order for war machine #{i + 1} aboard")
            for i in range(rules.max_machines)
        ),
    )
    return PursuitActions(ActionSpec(components), maneuvers, orders, rules.max_machines)
