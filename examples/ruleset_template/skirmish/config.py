"""The `skirmish` config: house rules, rewards and scenarios, validated from ``skirmish.yaml`` beside this file."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from naval_env.core.config import RulesetConfig, StrictModel, read_yaml, validate
from naval_env.core.house_rules import RoundCount, ShipsPerSide
from naval_env.core.rewards import Rewards

#: The config shipped in the ruleset's own folder (a copied ruleset carries its config with it).
DEFAULT_CONFIG = Path(__file__).with_name("skirmish.yaml")
#: Longest track any config may set (positions and the observation are bounded by it).
MAX_TRACK = 40


class HouseRules(StrictModel):
    """The numbers a table may change."""

    track_length: int = Field(default=10, ge=3, le=MAX_TRACK)
    hull: int = Field(default=3, ge=1, le=9)
    fire_range: int = Field(default=3, ge=1, le=MAX_TRACK)
    hit_roll: int = Field(default=4, ge=1, le=6, description="a shot hits on a d6 of this or more")
    max_ships_per_side: ShipsPerSide = Field(default=2, le=2)
    max_rounds: RoundCount = Field(default=30, le=1000)


class SideSetup(StrictModel):
    """A side of a scenario: its name and the cell each of its boats starts on."""

    name: str = Field(pattern=r"^[a-z][a-z0-9]*$")
    cells: list[int] = Field(min_length=1)


class Scenario(StrictModel):
    description: str = ""
    #: Two sides; the first sails toward higher cells ("ahead" = +1), the second toward lower ones.
    sides: list[SideSetup] = Field(min_length=2, max_length=2)


class SkirmishConfig(RulesetConfig[Scenario]):
    ruleset: Literal["skirmish"]
    house_rules: HouseRules = HouseRules()
    rewards: Rewards = Rewards()

    @model_validator(mode="after")
    def _scenarios_fit(self) -> SkirmishConfig:
        rules = self.house_rules
        for name, scenario in self.scenarios.items():
            names = [side.name for side in scenario.sides]
            if len(set(names)) != len(names):
                raise ValueError(f"scenarios.{name}.sides: side names must differ, got {names}")
            taken: set[int] = set()
            for side in scenario.sides:
                where = f"scenarios.{name}.sides[{side.name}].cells"
                if len(side.cells) > rules.max_ships_per_side:
                    raise ValueError(f"{where}: {len(side.cells)} boats; at most "
                                     f"house_rules.max_ships_per_side = {rules.max_ships_per_side}")
                for cell in side.cells:
                    if not 0 <= cell < rules.track_length:
                        raise ValueError(f"{where}: cell {cell} is off the track (0 to {rules.track_length - 1})")
                    if cell in taken:
                        raise ValueError(f"{where}: cell {cell} is taken by another boat")
                    taken.add(cell)
        return self


def load_config(path: str | Path | None = None) -> SkirmishConfig:
    """Load and validate a skirmish config; the default is ``skirmish.yaml`` in this folder."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    return validate(SkirmishConfig, read_yaml(path), str(path))
