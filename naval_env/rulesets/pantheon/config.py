"""The `pantheon` config: vessel catalogue, house rules, scenarios and reward shaping (validated YAML)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from naval_env.core.config import BUNDLED_CONFIGS, RulesetConfig, StrictModel, read_yaml, validate
from naval_env.core.grid import Compass
from naval_env.core.house_rules import DieFaces, RoundCount, ShipsPerSide
from naval_env.core.rewards import Rewards
from naval_env.core.setup import GridSideSetup, check_grid_scenario

DEFAULT_CONFIG = BUNDLED_CONFIGS / "rulesets" / "pantheon.yaml"
DIRECTIONS = tuple(c.name for c in Compass)
Direction = Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
Enhancement = Literal["initiative", "speed", "armor", "range"]
Attribute = Annotated[int, Field(ge=0, le=10)]
"""A captain's attribute (Wits, Charisma, Resolve, Composure), 0 to 10."""
Skill = Annotated[int, Field(ge=0, le=5)]
"""A skill rating (Seamanship, a shipwright's Crafts), 0 to 5."""


class Vessel(StrictModel):
    """One of the six vessel types (the document's stat table is missing: see Assumptions)."""

    description: str = ""
    speed: int = Field(ge=1, le=8)
    health: int = Field(ge=1, le=40)
    damage: int = Field(ge=1, le=10)
    maneuverability: int = Field(ge=0, le=10)
    pc_capacity: int = Field(ge=0, le=4)


class CaptainStats(StrictModel):
    wits: Attribute = 3
    charisma: Attribute = 3
    resolve: Attribute = 3
    composure: Attribute = 3
    seamanship: Skill = 2


class ShipSetup(StrictModel):
    vessel: str
    name: str | None = None
    captain: CaptainStats = CaptainStats()
    crew: int | None = Field(default=None, ge=0, le=4, description="PCs aboard; default: PC capacity")
    shipwright: Skill = Field(default=0, description="Crafts rating of the best shipwright aboard")
    enhancements: list[Enhancement] = Field(default_factory=list)
    position: tuple[int, int] | None = None
    facing: Direction | None = None

    @field_validator("enhancements")
    @classmethod
    def _enhancement_limits(cls, value: list[str]) -> list[str]:
        if value.count("range") > 1:
            raise ValueError("'range' can be added to a ship only once")
        return value


class SideSetup(GridSideSetup[ShipSetup]):
    """A side of a `pantheon` scenario."""


class Scenario(StrictModel):
    description: str = ""
    board: tuple[int, int] = (16, 16)
    wind: Direction
    sides: list[SideSetup] = Field(min_length=2, max_length=2)


class HouseRules(StrictModel):
    """Choices the document leaves open or that a table may change."""

    test_resolution: Literal["opposed_d10", "rock_paper_scissors"] = "opposed_d10"
    test_die: DieFaces = Field(default=10, le=100)
    exceptional_margin: int = Field(default=5, ge=1)
    ties_go_to: Literal["defender", "attacker"] = "defender"
    max_ships_per_side: ShipsPerSide = Field(default=5, le=5)
    fire_range: int = Field(default=3, ge=1)
    range_enhancement: int = Field(default=4, ge=1)
    max_enhancements: int = Field(default=4, ge=0)
    repair_difficulty: int = Field(default=8, ge=0)
    wrecked_damage_per_turn: int = Field(default=5, ge=0)
    sinking_turns: int = Field(default=3, ge=1)
    get_out_distance: int = Field(default=2, ge=0)
    get_out_scrape_damage: int = Field(default=1, ge=0)
    crew_repair_multiplier: int = Field(default=2, ge=0)
    wrecked_repair_bonus: int = Field(default=2, ge=0)
    initiative_enhancement: int = Field(default=3)
    armor_enhancement: int = Field(default=5)
    max_rounds: RoundCount = 40


class PantheonConfig(RulesetConfig[Scenario]):
    ruleset: Literal["pantheon"]
    house_rules: HouseRules = HouseRules()
    rewards: Rewards = Rewards()
    vessels: dict[str, Vessel] = Field(min_length=1)

    @model_validator(mode="after")
    def _cross_checks(self) -> PantheonConfig:
        for scenario_name, scenario in self.scenarios.items():
            _check_scenario(self, scenario_name, scenario)
        return self

    @cached_property
    def max_move(self) -> int:
        """Longest forward move any ship can make: fastest vessel + full wind + all speed upgrades."""
        return max(v.speed for v in self.vessels.values()) + 2 + self.house_rules.max_enhancements


def _check_scenario(config: PantheonConfig, name: str, scenario: Scenario) -> None:
    def check_ship(where: str, ship: ShipSetup) -> None:
        if len(ship.enhancements) > config.house_rules.max_enhancements:
            raise ValueError(f"{where}.enhancements: {len(ship.enhancements)} upgrades; "
                             f"at most {config.house_rules.max_enhancements}")

    check_grid_scenario(name, scenario.board, scenario.sides, config.vessels,
                        config.house_rules.max_ships_per_side, check_ship)


def load_config(path: str | Path | None = None) -> PantheonConfig:
    """Load and validate a pantheon config; the default is ``configs/rulesets/pantheon.yaml``."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    return validate(PantheonConfig, read_yaml(path), str(path))
