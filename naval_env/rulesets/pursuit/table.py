"""What every rules module works with: the dice, the house rules, the catalogue and the state."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from naval_env.core.dice import Dice
from naval_env.rulesets.pursuit.config import (
    HouseRules,
    MachineClass,
    PursuitConfig,
    Scenario,
    WindRow,
)
from naval_env.rulesets.pursuit.geometry import COMPASS_DEGREES, unit
from naval_env.rulesets.pursuit.state import GameState


@dataclass
class Table:
    """One game's fixed facts (config, scenario, precomputed wind and current) plus its dice and state."""

    dice: Dice
    config: PursuitConfig
    scenario: Scenario
    state: GameState
    rules: HouseRules = field(init=False)
    machine_classes: dict[str, MachineClass] = field(init=False)
    wind: WindRow = field(init=False)
    wind_x: float = field(init=False)
    wind_y: float = field(init=False)
    current_x: float = field(init=False)
    current_y: float = field(init=False)
    cos_arc: float = field(init=False)
    has_current: bool = field(init=False)  # a fast current (a slow one changes nothing)

    def __post_init__(self) -> None:
        self.rules = self.config.house_rules
        self.machine_classes = dict(self.config.war_machines)
        self.wind = self.config.wind_table[self.scenario.wind.strength]
        self.wind_x, self.wind_y = unit(COMPASS_DEGREES[self.scenario.wind.toward])
        current = self.scenario.current
        self.current_x, self.current_y = unit(COMPASS_DEGREES[current.toward]) if current else (0.0, 0.0)
        self.cos_arc = math.cos(math.radians(self.rules.wind_arc_degrees))
        self.has_current = current is not None and current.fast
