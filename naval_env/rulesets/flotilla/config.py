"""The `flotilla` config: ship classes, upgrade prices, house rules, maneuvers and scenarios (validated YAML).

Fleets are checked against their scenario's budget when the config loads
(:mod:`naval_env.rulesets.flotilla.fleet` explains every refusal).
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from naval_env.core.config import REPO_CONFIGS, RulesetConfig, StrictModel, read_yaml, validate
from naval_env.core.rewards import Rewards
from naval_env.core.setup import Zone  # here: the rectangle of bow squares a side may start on

DEFAULT_CONFIG = REPO_CONFIGS / "rulesets" / "flotilla.yaml"
Direction = Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
WindName = Literal["N", "S", "E", "W", "calm"]
Upgrade = Literal[
    "veteran_captain", "better_artillery", "elite_crew", "armour", "ram", "bow_guns", "broadside_guns",
    "mage_squad", "sails",
]
#: Upgrades a ship class may carry built in (the on/off traits).
Trait = Literal["armour", "ram", "bow_guns", "broadside_guns", "mage_squad", "sails"]


class ShipClass(StrictModel):
    """One entry of the ship catalogue (the document gives the fields, not the ships: see Assumptions)."""

    description: str = ""
    cost: int = Field(ge=1, le=500)
    steering: int = Field(ge=1, le=6, description="captain's Steering Roll: d6s, keep the highest")
    combat: int = Field(ge=1, le=6, description="Combat Roll: d6s, keep the highest")
    range: int = Field(ge=1, le=8, description="attack range in squares")
    boarding: int = Field(ge=1, le=5, description="Boarding Roll: d6s, keep the highest")
    size: int = Field(ge=1, le=4, description="squares the ship occupies, in a line from bow to stern")
    cohesion: int = Field(ge=1, le=30)
    movement: int = Field(ge=0, le=8, description="squares moved straight ahead by the base move")
    traits: list[Trait] = []  # noqa: RUF012 - pydantic copies field defaults


class UpgradePrice(StrictModel):
    """Price of an upgrade: ``levels[i]`` is the total cost of level i + 1 (on/off traits have one level)."""

    levels: list[int] = Field(min_length=1)
    description: str = ""

    @property
    def max_level(self) -> int:
        return len(self.levels)


class ManeuverDef(StrictModel):
    """A movement maneuver: turn ``turn`` compass points (mirrored to port and starboard), then sail ahead."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    turn: int = Field(ge=0, le=4)
    distance: Literal["full", "half"] | int = Field(description="'full', 'half' (rounded up) or a number of squares")

    @model_validator(mode="after")
    def _distance_bounds(self) -> ManeuverDef:
        if isinstance(self.distance, int) and not 0 <= self.distance <= 8:
            raise ValueError(f"maneuver {self.name!r}: distance {self.distance} must be 0..8, 'full' or 'half'")
        return self


class HitLocationTable(StrictModel):
    """Inclusive ranges of the hit-location die, one per damaged part."""

    die: int = Field(default=10, ge=2, le=100)
    command_room: tuple[int, int] = (1, 1)
    crew: tuple[int, int] = (2, 3)
    hull: tuple[int, int] = (4, 8)
    propulsion: tuple[int, int] = (9, 10)

    @model_validator(mode="after")
    def _covers_the_die(self) -> HitLocationTable:
        faces: list[int] = []
        for low, high in (self.command_room, self.crew, self.hull, self.propulsion):
            if low > high:
                raise ValueError(f"hit-location range ({low}, {high}) is empty")
            faces += range(low, high + 1)
        if sorted(faces) != list(range(1, self.die + 1)):
            raise ValueError(f"hit-location ranges must cover 1..{self.die} exactly once, got {sorted(faces)}")
        return self

    def part(self, roll: int) -> str:
        for name in ("command_room", "crew", "hull", "propulsion"):
            low, high = getattr(self, name)
            if low <= roll <= high:
                return name
        raise ValueError(f"roll {roll} is not on the hit-location table")


class HouseRules(StrictModel):
    """Numbers the document fixes (kept configurable) and choices it leaves open (ASSUMPTION)."""

    map_size: int = Field(default=15, ge=8, le=40)
    max_ships_per_side: int = Field(default=5, ge=1, le=8)
    min_attacker_distance: int = Field(default=4, ge=1)
    centre_radius: int = Field(default=2, ge=0, description="defender's set-up zone: squares around the centre")
    captains_choose_facing: bool = True
    penalty_mode: Literal["remove_die", "add_to_opponent"] = "remove_die"
    maneuver_difficulty: int = Field(default=2, ge=0, le=10, description="d6s of the opposed maneuver roll")
    failed_maneuver: Literal["ahead", "hold"] = "ahead"
    dodge_win_spares_attacker: bool = False  # house rule: a won dodge (or mage defence) only avoids the hit
    counter_needs_range: bool = True
    cohesion_loss: int = Field(default=1, ge=1)
    ram_damage_to_target: int = Field(default=2, ge=0)
    ram_damage_to_rammer: int = Field(default=1, ge=0)
    break_free_first_penalty: int = Field(default=0, ge=0, description="penalty dice of the first attempt")
    hit_location_per: Literal["impact", "point"] = "impact"
    hit_location: HitLocationTable = HitLocationTable()
    arc_penalty: int = Field(default=1, ge=0, description="penalty dice against a target ahead or astern")
    artillery_range: int = Field(default=1, ge=0)
    artillery_dice: int = Field(default=1, ge=0)
    veteran_dice_per_level: int = Field(default=1, ge=0)
    armour_reduction: int = Field(default=1, ge=0)
    max_boarding_dice: int = Field(default=5, ge=1)
    hero_boarding_dice: int = Field(default=1, ge=0)
    mage_cohesion: int = Field(default=3, ge=1)
    mage_dice: int = Field(default=3, ge=1)
    mage_range: int = Field(default=3, ge=1)
    mage_arc_penalty: bool = True
    sails_bonus: int = Field(default=1, ge=0)
    wind_with_within: int = Field(default=1, ge=0, le=1,
                                  description="compass points off the wind that still count as sailing with it")
    setup_wind_table: list[WindName] = Field(default=["N", "S", "E", "W", "calm"], min_length=1)
    round_wind_table: list[WindName] = Field(default=["N", "S", "E", "W"], min_length=1)
    fate_die: int = Field(default=6, ge=2)
    fate_threshold: int = Field(default=3, ge=0, description="a fate roll at or under this: dies or is captured")
    max_rounds: int = Field(default=30, ge=1)

    @model_validator(mode="after")
    def _consistent(self) -> HouseRules:
        if self.fate_threshold > self.fate_die:
            raise ValueError(f"fate_threshold {self.fate_threshold} is above the fate die d{self.fate_die}")
        return self


class Situations(StrictModel):
    """Battlefield conditions the document leaves to the GM, chosen per scenario."""

    wind: Literal["random", "N", "S", "E", "W", "calm"] = "random"
    wind_each_round: bool = True
    current: Literal["N", "S", "E", "W"] | None = Field(
        default=None, description="where a captainless ship drifts; None: it stops")
    drift: int = Field(default=1, ge=0, le=4, description="squares a captainless ship drifts each round")
    character_fate: bool = True


class ShipSetup(StrictModel):
    """One ship of a fleet: its class, paid upgrades and where it starts."""

    ship: str = Field(description="ship class from the catalogue")
    name: str | None = None
    upgrades: dict[Upgrade, int] = {}  # noqa: RUF012 - pydantic copies field defaults
    captain_perception: int | None = Field(
        default=None, ge=1, le=6,
        description="a player-character captain: Steering Roll dice = Perception talent levels (not bought)")
    hero: bool = False
    position: tuple[int, int] | None = Field(default=None, description="bow square")
    facing: Direction | None = None


class SideSetup(StrictModel):
    name: str = Field(pattern=r"^[a-z][a-z0-9]*$")
    role: Literal["attacker", "defender"]
    zone: Zone | None = Field(default=None, description="default: the centre (defender) or the whole map (attacker)")
    facing: Direction
    ships: list[ShipSetup] = Field(min_length=1)


class Scenario(StrictModel):
    description: str = ""
    budget: int = Field(ge=1, description="points each side may spend on its fleet")
    situations: Situations = Situations()
    sides: list[SideSetup] = Field(min_length=2, max_length=2)


class FlotillaConfig(RulesetConfig[Scenario]):
    ruleset: Literal["flotilla"]
    house_rules: HouseRules = HouseRules()
    rewards: Rewards = Rewards()
    ship_classes: dict[str, ShipClass] = Field(min_length=1)
    upgrades: dict[Upgrade, UpgradePrice]
    maneuvers: list[ManeuverDef] = Field(min_length=0)

    @model_validator(mode="after")
    def _cross_checks(self) -> FlotillaConfig:
        from naval_env.rulesets.flotilla.fleet import check_scenario

        missing = sorted(set(Upgrade.__args__) - set(self.upgrades))  # type: ignore[attr-defined]
        if missing:
            raise ValueError(f"upgrades: no price for {missing}")
        names = [m.name for m in self.maneuvers]
        if len(set(names)) != len(names) or "ahead" in names:
            raise ValueError(f"maneuvers: names must be unique and not 'ahead' (the base move), got {names}")
        for name, scenario in self.scenarios.items():
            check_scenario(self, name, scenario)
        return self

    @cached_property
    def max_movement(self) -> int:
        """Longest move any ship can make: fastest class plus a following wind under sail."""
        return max(c.movement for c in self.ship_classes.values()) + self.house_rules.sails_bonus

    @cached_property
    def max_range(self) -> int:
        return max(max(c.range for c in self.ship_classes.values()) + self.house_rules.artillery_range,
                   self.house_rules.mage_range)

    @cached_property
    def max_cohesion(self) -> int:
        return max(c.cohesion for c in self.ship_classes.values())


def load_config(path: str | Path | None = None) -> FlotillaConfig:
    """Load and validate a flotilla config; the default is ``configs/rulesets/flotilla.yaml``."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    return validate(FlotillaConfig, read_yaml(path), str(path))
