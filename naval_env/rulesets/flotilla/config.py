"""The `flotilla` config: ship classes, upgrade prices, house rules, maneuvers and scenarios (validated YAML).

Fleets are checked against their scenario's budget when the config loads
(:mod:`naval_env.rulesets.flotilla.fleet` explains every refusal).
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from naval_env.core.config import BUNDLED_CONFIGS, RulesetConfig, StrictModel, read_yaml, validate
from naval_env.core.grid import STEP, Compass
from naval_env.core.house_rules import DiceCount, DieFaces, RoundCount, ShipsPerSide
from naval_env.core.rewards import Rewards
from naval_env.core.setup import Zone  # here: the rectangle of bow squares a side may start on
from naval_env.rulesets.flotilla.geometry import Square, footprint, on_map

DEFAULT_CONFIG = BUNDLED_CONFIGS / "rulesets" / "flotilla.yaml"
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

    die: DieFaces = Field(default=10, le=100)
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
    max_ships_per_side: ShipsPerSide = Field(default=5, le=8)
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
    break_free_first_penalty: DiceCount = Field(default=0, description="penalty dice of the first attempt")
    hit_location_per: Literal["impact", "point"] = "impact"
    hit_location: HitLocationTable = HitLocationTable()
    arc_penalty: DiceCount = Field(default=1, description="penalty dice against a target ahead or astern")
    artillery_range: int = Field(default=1, ge=0)
    artillery_dice: DiceCount = 1
    veteran_dice_per_level: DiceCount = 1
    armour_reduction: int = Field(default=1, ge=0)
    max_boarding_dice: int = Field(default=5, ge=1)
    hero_boarding_dice: DiceCount = 1
    mage_cohesion: int = Field(default=3, ge=1)
    mage_dice: int = Field(default=3, ge=1)
    mage_range: int = Field(default=3, ge=1)
    mage_arc_penalty: bool = True
    sails_bonus: int = Field(default=1, ge=0)
    wind_with_within: int = Field(default=1, ge=0, le=1,
                                  description="compass points off the wind that still count as sailing with it")
    setup_wind_table: list[WindName] = Field(default=["N", "S", "E", "W", "calm"], min_length=1)
    round_wind_table: list[WindName] = Field(default=["N", "S", "E", "W"], min_length=1)
    fate_die: DieFaces = 6
    fate_threshold: int = Field(default=3, ge=0, description="a fate roll at or under this: dies or is captured")
    max_rounds: RoundCount = 30

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
            _check_zone_room(self, name, scenario)
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


def _check_zone_room(config: FlotillaConfig, name: str, scenario: Scenario) -> None:
    """Refuse a scenario where some set-up draw could leave a ship no bow square in its side's zone.

    As the engine sets up: ships with a position first, then the defender's ships drawn one by one,
    then the attacker's, each on a bow square of its zone where it lies on the map, on no ship, and
    (for the other role's ships) not within ``min_attacker_distance`` of one. An earlier drawn ship
    blocks, at worst, either all of its reach around wherever it lands, or, for a whole group,
    every square its members could reach from any square open to them: the smaller bound counts.
    """
    rules = config.house_rules
    size, near = rules.map_size, rules.min_attacker_distance - 1
    ball = tuple((i, j) for i in range(-near, near + 1) for j in range(-near, near + 1))

    def zone_of(side: SideSetup) -> Zone:  # the engine's defaults: the defender's centre, the attacker's map
        if side.zone is not None:
            return side.zone
        if side.role == "defender":
            c, r = size // 2, rules.centre_radius
            return Zone(x=(c - r, c + r), y=(c - r, c + r))
        return Zone(x=(0, size - 1), y=(0, size - 1))

    def facing(side: SideSetup, setup: ShipSetup) -> int:
        return int(Compass.parse(setup.facing or side.facing))

    fixed: dict[str, set[Square]] = {"attacker": set(), "defender": set()}  # squares of ships given a position
    for side in scenario.sides:
        for setup in side.ships:
            if setup.position is not None:
                cls = config.ship_classes[setup.ship]
                fixed[side.role].update(footprint(*setup.position, facing(side, setup), cls.size))
    drawn: list[tuple[str, int, int, frozenset[Square]]] = []  # role, facing, size and open bows of each
    unions: dict[tuple[str, bool, int, int, int], set[Square]] = {}  # what a group can reach, per later ship's shape
    for side in sorted(scenario.sides, key=lambda s: s.role != "defender"):
        zone, other = zone_of(side), "attacker" if side.role == "defender" else "defender"
        blocked = fixed["attacker"] | fixed["defender"] | {(x + i, y + j) for x, y in fixed[other] for i, j in ball}
        open_to: dict[tuple[int, int], frozenset[Square]] = {}  # open bows of the side's zone, per ship shape
        for index, setup in enumerate(side.ships):
            if setup.position is not None:
                continue
            heading, length = facing(side, setup), config.ship_classes[setup.ship].size
            if (heading, length) not in open_to:
                open_to[heading, length] = frozenset(
                    (x, y) for x in range(zone.x[0], zone.x[1] + 1) for y in range(zone.y[0], zone.y[1] + 1)
                    if on_map(squares := footprint(x, y, heading, length), size, size)
                    and blocked.isdisjoint(squares))
            bows = open_to[heading, length]
            lost = 0
            for same in (True, False):
                group = [d for d in drawn if (d[0] == side.role) == same]
                reaches = [_reach(d[1], d[2], heading, length, () if same else ball) for d in group]
                worst = sum(len(reach) for reach in reaches)
                if worst > len(bows) - lost - 1:  # the cheap bound is not enough: count what the group can reach
                    key = (side.role, same, heading, length, len(group))
                    if key not in unions:
                        members = {(d[1], d[2], d[3]): reach for d, reach in zip(group, reaches)}  # alike once
                        unions[key] = {(x + i, y + j) for (_, _, open_bows), reach in members.items()
                                       for x, y in open_bows for i, j in reach}
                    worst = min(worst, len(bows & unions[key]))
                lost += worst
            if len(bows) - lost < 1:
                raise ValueError(
                    f"scenarios.{name}.sides[{side.name}].ships[{index}]: its zone {zone} has {len(bows)} bow "
                    f"square(s) where a {setup.ship} can start, and the ships drawn before it may block {lost}; "
                    "widen the zone, give ships a position or field fewer ships")
            drawn.append((side.role, heading, length, bows))


@lru_cache(maxsize=1 << 10)  # a few ship shapes: the same offsets for every scenario and every load
def _reach(facing: int, size: int, heading: int, length: int, ball: tuple[Square, ...]) -> frozenset[Square]:
    """Offsets from a drawn ship's bow (``facing``, ``size``) of the bows a later ship (``heading``, ``length``)
    can no longer take: its footprint would cover the drawn ship, or come within ``ball`` of it."""
    (dx, dy), (hx, hy) = STEP[facing], STEP[heading]
    return frozenset((-a * dx + i + b * hx, -a * dy + j + b * hy)
                     for a in range(size) for i, j in (ball or ((0, 0),)) for b in range(length))


def load_config(path: str | Path | None = None) -> FlotillaConfig:
    """Load and validate a flotilla config; the default is ``configs/rulesets/flotilla.yaml``."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    return validate(FlotillaConfig, read_yaml(path), str(path))
