"""The `crew_phase` config: weapons, crew profiles, vessels, house rules, scenarios and rewards (validated YAML).

The document gives no stat blocks, grid or scale: every such number here is an
ASSUMPTION listed in docs/rules/crew_phase.md and marked in the YAML.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator, model_validator

from naval_env.core.config import BUNDLED_CONFIGS, RulesetConfig, StrictModel, read_yaml, validate
from naval_env.core.house_rules import RoundCount, ShipsPerSide
from naval_env.core.rewards import Rewards
from naval_env.core.setup import GridSideSetup, check_grid_scenario

DEFAULT_CONFIG = BUNDLED_CONFIGS / "rulesets" / "crew_phase.yaml"

#: Size classes in order; "two sizes smaller" is two steps down this list.
SIZES = ("tiny", "small", "medium", "large", "huge", "gargantuan")
Size = Literal["tiny", "small", "medium", "large", "huge", "gargantuan"]
#: Weapon arcs; their codes are the positions in this tuple.
ARCS = ("bow", "starboard", "stern", "port", "all")
Arc = Literal["bow", "starboard", "stern", "port", "all"]
Direction = Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW"]

_DICE = re.compile(r"^(\d+)d(\d+)([+-]\d+)?$")


def parse_dice(text: str) -> tuple[int, int, int]:
    """``"3d10+2"`` -> (3, 10, 2)."""
    match = _DICE.match(text.replace(" ", ""))
    if match is None:
        raise ValueError(f"{text!r} is not a dice expression like '3d10' or '2d4+2'")
    count, sides, bonus = int(match[1]), int(match[2]), int(match[3] or 0)
    if not (1 <= count <= 20 and 1 <= sides <= 20 and -20 <= bonus <= 20):
        raise ValueError(f"{text!r}: need 1 to 20 dice of 1 to 20 sides and a bonus within +-20")
    return count, sides, bonus


def _check_dice(text: str) -> str:
    parse_dice(text)
    return text


class Weapon(StrictModel):
    """A ship weapon (a part with its own hit points). Ranges are in feet: normal / long (disadvantage)."""

    description: str = ""
    ability: Literal["strength", "dexterity"] = "dexterity"
    attack_bonus: int = Field(default=0, ge=-5, le=10)
    damage: str
    range: int = Field(ge=5, le=1000)
    long_range: int = Field(ge=5, le=1000)
    hp: int = Field(ge=1, le=500)
    ac: int = Field(ge=1, le=30)
    ammo: int = Field(ge=0, le=99)
    grapples: bool = False

    @field_validator("damage")
    @classmethod
    def _damage_dice(cls, value: str) -> str:
        return _check_dice(value)

    @model_validator(mode="after")
    def _ranges(self) -> Weapon:
        if self.long_range < self.range:
            raise ValueError(f"long_range {self.long_range} is shorter than range {self.range}")
        return self


class Mount(StrictModel):
    weapon: str
    arc: Arc


class CrewProfile(StrictModel):
    """A crew member: ability modifiers, proficiencies, AC, hit points and healing uses."""

    description: str = ""
    strength: int = Field(default=0, ge=-5, le=10)
    dexterity: int = Field(default=0, ge=-5, le=10)
    intelligence: int = Field(default=0, ge=-5, le=10)
    charisma: int = Field(default=0, ge=-5, le=10)
    proficiency: int = Field(default=2, ge=0, le=6)
    water_vehicles: bool = False
    siege_weapons: bool = False
    dex_save: int | None = Field(default=None, ge=-5, le=15, description="default: the dexterity modifier")
    ac: int = Field(default=12, ge=1, le=30)
    hp: int = Field(default=11, ge=1, le=200)
    heals: int = Field(default=0, ge=0, le=10, description="uses of a healing ability or potion per battle")


class HullDice(StrictModel):
    count: int = Field(ge=0, le=30)
    sides: int = Field(ge=2, le=20)


class Vessel(StrictModel):
    """A ship type (the document names them; the stat blocks are ours: see Assumptions)."""

    description: str = ""
    size: Size
    speed_unit: int = Field(ge=5, le=100, description="feet gained per successful Navigate")
    sections: int = Field(ge=0, le=8, description="navigation sections")
    self_steering: bool = Field(default=False, description="propulsion sets the direction (rowboat): no Steer needed")
    agile: bool = Field(default=False, description="may turn in place and without spending movement")
    hull_points: int = Field(ge=2, le=1000)
    hull_dice: HullDice
    ac: int = Field(ge=1, le=30)
    rails: bool = Field(default=True, description="rails and walls: half cover for the creatures aboard")
    initiative: int = Field(ge=-10, le=40, description="fixed ship initiative")
    weapons: list[Mount] = Field(default_factory=list)
    crew: list[str] = Field(min_length=1)


class ShipSetup(StrictModel):
    vessel: str
    crew: list[str] | None = Field(default=None, description="crew profile names; default: the vessel's crew")
    position: tuple[int, int] | None = None
    facing: Direction | None = None


class SideSetup(GridSideSetup[ShipSetup]):
    """A side of a `crew_phase` scenario."""


class Scenario(StrictModel):
    description: str = ""
    board: tuple[int, int] = (16, 16)
    weather: Literal["calm", "rough"] = "calm"
    sides: list[SideSetup] = Field(min_length=2, max_length=2)


class HouseRules(StrictModel):
    """Numbers the document fixes (kept configurable) and choices it leaves open."""

    square_feet: int = Field(default=10, ge=5, le=100)
    max_ships_per_side: ShipsPerSide = Field(default=2, le=4)
    max_crew: int = Field(default=6, ge=1, le=10)
    max_weapons: int = Field(default=4, ge=1, le=8)
    max_sections: int = Field(default=4, ge=1, le=8)
    max_turn_points: int = Field(default=4, ge=1, le=4, description="45-degree turns in one move (4 = 180)")
    max_rounds: RoundCount = Field(default=30, le=300)
    navigate_dc: int = Field(default=10, ge=0)
    command_dc: int = Field(default=10, ge=0)
    command_bonus: int = Field(default=2, ge=0, le=5)
    repair_dc: int = Field(default=10, ge=0)
    steer_dc: int = Field(default=10, ge=0)
    steer_ability: Literal["strength", "dexterity"] = "dexterity"
    ram_attack_bonus: int = Field(default=5, ge=-10, le=20)
    ram_save_dc: int = Field(default=15, ge=0)
    rails_cover_bonus: int = Field(default=2, ge=0)
    sinking_damage_divisor: int = Field(default=10, ge=1)
    critical_hits: bool = True
    heal_dice: str = "2d4+2"
    skilled_worker_gold_per_day: int = Field(default=13, ge=0)
    free_labour_gold_per_day: int = Field(default=10, ge=0)

    @field_validator("heal_dice")
    @classmethod
    def _heal_dice(cls, value: str) -> str:
        return _check_dice(value)


class CrewPhaseConfig(RulesetConfig[Scenario]):
    ruleset: Literal["crew_phase"]
    house_rules: HouseRules = HouseRules()
    rewards: Rewards = Rewards()
    weapons: dict[str, Weapon] = Field(min_length=1)
    crew_profiles: dict[str, CrewProfile] = Field(min_length=1)
    vessels: dict[str, Vessel] = Field(min_length=1)

    @model_validator(mode="after")
    def _cross_checks(self) -> CrewPhaseConfig:
        rules = self.house_rules
        for name, vessel in self.vessels.items():
            where = f"vessels.{name}"
            for i, mount in enumerate(vessel.weapons):
                if mount.weapon not in self.weapons:
                    raise ValueError(f"{where}.weapons[{i}]: unknown weapon {mount.weapon!r}; "
                                     f"choose one of {sorted(self.weapons)}")
            if len(vessel.weapons) > rules.max_weapons:
                raise ValueError(f"{where}.weapons: {len(vessel.weapons)} mounts; at most "
                                 f"house_rules.max_weapons = {rules.max_weapons}")
            if vessel.sections > rules.max_sections:
                raise ValueError(f"{where}.sections: {vessel.sections}; at most "
                                 f"house_rules.max_sections = {rules.max_sections}")
            self._check_crew(f"{where}.crew", vessel.crew)
        for scenario_name, scenario in self.scenarios.items():
            _check_scenario(self, scenario_name, scenario)
        return self

    def _check_crew(self, where: str, crew: list[str]) -> None:
        for i, role in enumerate(crew):
            if role not in self.crew_profiles:
                raise ValueError(f"{where}[{i}]: unknown crew profile {role!r}; "
                                 f"choose one of {sorted(self.crew_profiles)}")
        if len(crew) > self.house_rules.max_crew:
            raise ValueError(f"{where}: {len(crew)} crew; at most house_rules.max_crew = {self.house_rules.max_crew}")

    @cached_property
    def max_forward(self) -> int:
        """Most squares any ship can move in one Ship Phase (every section navigated, nothing in tow)."""
        square = self.house_rules.square_feet
        return max(1, max(v.speed_unit * v.sections // square for v in self.vessels.values()))


def _check_scenario(config: CrewPhaseConfig, name: str, scenario: Scenario) -> None:
    def check_ship(where: str, ship: ShipSetup) -> None:
        if ship.crew is not None:
            config._check_crew(f"{where}.crew", ship.crew)

    check_grid_scenario(name, scenario.board, scenario.sides, config.vessels,
                        config.house_rules.max_ships_per_side, check_ship)


def load_config(path: str | Path | None = None) -> CrewPhaseConfig:
    """Load and validate a crew_phase config; the default is ``configs/rulesets/crew_phase.yaml``."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    return validate(CrewPhaseConfig, read_yaml(path), str(path))
