"""The `broadside` config: vessel catalogue, house rules, collateral chart, scenarios, rewards (validated YAML).

Every number the document fixes is a default here; every gap it leaves is marked
ASSUMPTION in ``configs/rulesets/broadside.yaml`` and listed in docs/rules/broadside.md.
"""

from __future__ import annotations

import math
import re
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from naval_env.core.cache import PerObjectCache
from naval_env.core.config import BUNDLED_CONFIGS, RulesetConfig, StrictModel, read_yaml, validate
from naval_env.core.house_rules import DieFaces, RoundCount, ShipsPerSide
from naval_env.core.rewards import Rewards
from naval_env.rulesets.broadside.geometry import Hull, overlap

DEFAULT_CONFIG = BUNDLED_CONFIGS / "rulesets" / "broadside.yaml"

#: People aboard a ship, in the order casualties and observations list them.
PEOPLE = ("crew", "archers", "marines", "lieutenants", "heroes")
Person = Literal["crew", "archers", "marines", "lieutenants", "heroes"]
CollateralEffect = Literal["hull", "cannon", "crew", "archers", "marines", "lieutenants", "heroes", "oars", "none"]
_DICE = re.compile(r"^(\d*)d(\d+)$|^(\d+)$")


class DiceExpr(StrictModel):
    """``count`` dice of ``sides`` faces (``sides`` 0: the fixed number ``count``), parsed from "2d6", "d3", "1"."""

    count: int = Field(ge=0, le=20)
    sides: int = Field(ge=0, le=100)

    @classmethod
    def parse(cls, text: str | int) -> DiceExpr:
        match = _DICE.match(str(text).strip())
        if match is None:
            raise ValueError(f"{text!r} is not a dice expression like '2d6', 'd3' or '1'")
        if match.group(3) is not None:
            return cls(count=int(match.group(3)), sides=0)
        return cls(count=int(match.group(1) or 1), sides=int(match.group(2)))

    def __str__(self) -> str:
        return str(self.count) if self.sides == 0 else f"{self.count}d{self.sides}"


class Speeds(StrictModel):
    """Inches a ship covers in one turn at each speed (split evenly over the legs); None: not available."""

    cruising: float = Field(gt=0, le=40)
    battle: float = Field(gt=0, le=40)
    ramming: float | None = Field(default=None, gt=0, le=40)


class Complement(StrictModel):
    """Everyone above board. Heroes are the Captain, Commander or Admiral aboard."""

    crew: int = Field(default=0, ge=0, le=60)
    archers: int = Field(default=0, ge=0, le=60)
    marines: int = Field(default=0, ge=0, le=60)
    lieutenants: int = Field(default=0, ge=0, le=10)
    heroes: int = Field(default=1, ge=0, le=5)


class Guns(StrictModel):
    port: int = Field(default=0, ge=0, le=4)
    starboard: int = Field(default=0, ge=0, le=4)
    turret: int = Field(default=0, ge=0, le=4)


class Vessel(StrictModel):
    """A ship type. Hull points and who may ram come from the document; the rest is ours (see Assumptions)."""

    description: str = ""
    hull: int = Field(ge=1, le=200)
    length: float = Field(gt=0, le=20)
    beam: float = Field(gt=0, le=8)
    speeds: Speeds
    max_turn: float = Field(ge=0, le=90, description="largest turn between two legs, degrees")
    sails: bool = False
    oars: bool = False
    can_ram: bool = False
    ram_dice: int = Field(default=0, ge=0, le=10)
    glancing: Literal["d6", "half"] = "d6"
    guns: Guns = Guns()
    complement: Complement

    @model_validator(mode="after")
    def _speeds_rise(self) -> Vessel:
        if self.speeds.battle < self.speeds.cruising:
            raise ValueError("speeds.battle must be at least speeds.cruising")
        if self.speeds.ramming is not None and self.speeds.ramming < self.speeds.battle:
            raise ValueError("speeds.ramming must be at least speeds.battle")
        if self.can_ram and self.ram_dice < 1:
            raise ValueError("a vessel that can ram needs ram_dice >= 1")
        return self


class CollateralEntry(StrictModel):
    effect: CollateralEffect
    amount: DiceExpr = DiceExpr(count=1, sides=0)
    label: str = ""

    @field_validator("amount", mode="before")
    @classmethod
    def _parse_amount(cls, value: object) -> object:
        return DiceExpr.parse(value) if isinstance(value, (str, int)) else value


class ShipSetup(StrictModel):
    vessel: str
    name: str | None = None
    position: tuple[float, float]
    heading: float = Field(ge=0, lt=360)
    crew: int | None = Field(default=None, ge=0, le=60)
    archers: int | None = Field(default=None, ge=0, le=60)
    marines: int | None = Field(default=None, ge=0, le=60)
    lieutenants: int | None = Field(default=None, ge=0, le=10)
    heroes: int | None = Field(default=None, ge=0, le=5)


class IcebergSetup(StrictModel):
    position: tuple[float, float]
    heading: float = Field(default=0, ge=0, lt=360)
    length: float = Field(default=4, gt=0, le=20)
    beam: float = Field(default=3, gt=0, le=20)


class SideSetup(StrictModel):
    name: str = Field(pattern=r"^[a-z][a-z0-9]*$")
    ships: list[ShipSetup] = Field(min_length=1)


class Scenario(StrictModel):
    description: str = ""
    board: tuple[float, float] = (48.0, 36.0)
    wind: float = Field(ge=0, lt=360, description="compass direction the wind blows toward")
    placement_jitter: float = Field(default=0, ge=0, le=6, description="inches each way, in steps of jitter_step")
    heading_jitter: float = Field(default=0, ge=0, le=45, description="degrees each way, in steps of 5")
    sides: list[SideSetup] = Field(min_length=2, max_length=2)
    icebergs: list[IcebergSetup] = Field(default_factory=list)


class HouseRules(StrictModel):
    """Choices the document leaves open (ASSUMPTION) and the numbers it fixes (kept configurable)."""

    max_ships_per_side: ShipsPerSide = Field(default=3, le=5)
    max_icebergs: int = Field(default=2, ge=0, le=4)
    max_rounds: RoundCount = 30
    legs_per_turn: int = Field(default=3, ge=2, le=4)
    turn_angles: list[float] = Field(default=[15.0, 30.0, 45.0], min_length=1, max_length=6)
    wind_factors: list[tuple[float, float]] = Field(
        default=[(45.0, 0.75), (90.0, 1.0), (135.0, 0.5), (180.0, 0.25)], min_length=1)
    jitter_step: float = Field(default=0.5, gt=0)
    # Collisions (document: d4 each, d4 inches on, 1 inch of the centre, 2 inch push).
    collision_damage_die: int = Field(default=4, ge=1)
    collision_carry_die: int = Field(default=4, ge=1)
    centre_zone: float = Field(default=1.0, ge=0)
    t_push: float = Field(default=2.0, ge=0)
    end_zone: float = Field(default=1.0, ge=0)
    max_swing: float = Field(default=90.0, gt=0, le=180)
    # Ramming (document: full above 45 degrees, d6 dice, slowed 3 inches).
    full_ram_above: float = Field(default=45.0, ge=0, le=90)
    ram_die: DieFaces = 6
    ram_sink_slowdown: float = Field(default=3.0, ge=0)
    # Oars (document: no Ramming Speed after one sweep, no Battle Speed after two).
    sweeps_end_ramming_speed: int = Field(default=1, ge=1)
    sweeps_end_battle_speed: int = Field(default=2, ge=1)
    # Cannon and archers (document: d20 >= range; d6 per hit, 2d6 raking; d20 >= distance + 6).
    cannon_die: DieFaces = 20
    cannon_damage_die: DieFaces = 6
    rake_dice: int = Field(default=2, ge=1)
    turret_dead_zone: float = Field(default=20.0, ge=0, lt=360)
    archer_die: DieFaces = 20
    archer_bonus: float = Field(default=6.0, ge=0)
    # Boarding and melee (document: within 1 inch; d8 marines, d10 heroes, d6 crew and archers).
    boarding_distance: float = Field(default=1.0, ge=0)
    marine_die: DieFaces = 8
    hero_die: DieFaces = 10
    crew_die: DieFaces = 6
    lieutenant_die: DieFaces = 6
    casualty_order: list[Person] = Field(default=["crew", "archers", "lieutenants", "marines", "heroes"])

    @field_validator("casualty_order")
    @classmethod
    def _every_person_once(cls, value: list[str]) -> list[str]:
        if sorted(value) != sorted(PEOPLE):
            raise ValueError(f"must list each of {list(PEOPLE)} exactly once")
        return value

    @field_validator("turn_angles")
    @classmethod
    def _positive_rising(cls, value: list[float]) -> list[float]:
        if any(a <= 0 or a > 90 for a in value) or value != sorted(set(value)):
            raise ValueError("turn angles must be distinct, rising and within (0, 90]")
        return value

    @field_validator("wind_factors")
    @classmethod
    def _wind_bands(cls, value: list[tuple[float, float]]) -> list[tuple[float, float]]:
        limits = [limit for limit, _ in value]
        if limits != sorted(limits) or limits[-1] != 180 or any(f < 0 or f > 2 for _, f in value):
            raise ValueError("bands must rise to 180 degrees off downwind, with factors in [0, 2]")
        return value


class BroadsideConfig(RulesetConfig[Scenario]):
    ruleset: Literal["broadside"]
    house_rules: HouseRules = HouseRules()
    rewards: Rewards = Rewards()
    vessels: dict[str, Vessel] = Field(min_length=1)
    collateral_chart: dict[int, CollateralEntry]

    @field_validator("collateral_chart")
    @classmethod
    def _two_to_twelve(cls, value: dict[int, CollateralEntry]) -> dict[int, CollateralEntry]:
        if sorted(value) != list(range(2, 13)):
            raise ValueError(f"needs one entry for each 2d6 total 2..12, got {sorted(value)}")
        return value

    @model_validator(mode="after")
    def _cross_checks(self) -> BroadsideConfig:
        for name, scenario in self.scenarios.items():
            _check_scenario(self, name, scenario)
        return self

    @cached_property
    def vessel_names(self) -> tuple[str, ...]:
        return tuple(self.vessels)

    @cached_property
    def turn_choices(self) -> tuple[float, ...]:
        """Turn between two legs: straight, then port and starboard for each angle (port negative)."""
        choices = [0.0]
        for angle in self.house_rules.turn_angles:
            choices += [-angle, angle]
        return tuple(choices)


def _check_scenario(config: BroadsideConfig, name: str, scenario: Scenario) -> None:
    width, height = scenario.board
    if not (12 <= width <= 200 and 12 <= height <= 200):
        raise ValueError(f"scenarios.{name}.board: {scenario.board} must be between 12x12 and 200x200 inches")
    names = [side.name for side in scenario.sides]
    if len(set(names)) != len(names):
        raise ValueError(f"scenarios.{name}.sides: side names must differ, got {names}")
    rules = config.house_rules
    if len(scenario.icebergs) > rules.max_icebergs:
        raise ValueError(f"scenarios.{name}.icebergs: {len(scenario.icebergs)}; at most {rules.max_icebergs}")
    # Without jitter hulls are checked exactly; with it, as circles grown by the jitter they may be moved by.
    slack = scenario.placement_jitter * math.sqrt(2)
    jittered = scenario.placement_jitter > 0 or scenario.heading_jitter > 0
    bodies: list[tuple[str, Hull]] = []
    for side in scenario.sides:
        if len(side.ships) > rules.max_ships_per_side:
            raise ValueError(
                f"scenarios.{name}.sides[{side.name}].ships: {len(side.ships)} ships; "
                f"at most {rules.max_ships_per_side} a side"
            )
        for i, ship in enumerate(side.ships):
            where = f"scenarios.{name}.sides[{side.name}].ships[{i}]"
            if ship.vessel not in config.vessels:
                raise ValueError(f"{where}.vessel: unknown vessel {ship.vessel!r}; choose one of {sorted(config.vessels)}")
            vessel = config.vessels[ship.vessel]
            bodies.append((where, Hull(*ship.position, ship.heading, vessel.length, vessel.beam)))
    ships = len(bodies)
    for i, berg in enumerate(scenario.icebergs):
        bodies.append((f"scenarios.{name}.icebergs[{i}]", Hull(*berg.position, berg.heading, berg.length, berg.beam)))
    for i, (where, body) in enumerate(bodies):
        moved = jittered and i < ships          # a ship the set-up jitter may move or turn
        r = body.radius + (slack if moved else 0.0)
        fits = (r <= body.x <= width - r and r <= body.y <= height - r) if moved else body.inside_board(width, height)
        if not fits:
            raise ValueError(f"{where}.position ({body.x}, {body.y}) is too close to the edge of the {width}x{height} board")
        for j, (other, other_body) in enumerate(bodies[i + 1:], start=i + 1):
            if jittered and (i < ships or j < ships):
                reach = r + other_body.radius + (slack if j < ships else 0.0)
                clash = math.hypot(body.x - other_body.x, body.y - other_body.y) <= reach
            else:
                clash = overlap(body, other_body)
            if clash:
                raise ValueError(f"{where}.position ({body.x}, {body.y}) is too close to {other} "
                                 f"at ({other_body.x}, {other_body.y})")


_DERIVED: PerObjectCache[BroadsideConfig, dict[str, Any]] = PerObjectCache(lambda _config: {})


def derived_tables(config: BroadsideConfig) -> dict[str, Any]:
    """Tables the engine derives from ``config`` alone (masks, observation constants), built once per config
    object and shared by all its games. Kept by the object's identity, not in the model: a copy made with
    changes (``model_copy``) gets tables of its own, and comparing configs never compares numpy masks."""
    return _DERIVED(config)


def load_config(path: str | Path | None = None) -> BroadsideConfig:
    """Load and validate a broadside config; the default is ``configs/rulesets/broadside.yaml``."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    return validate(BroadsideConfig, read_yaml(path), str(path))
