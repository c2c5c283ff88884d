"""The `pursuit` config: ship classes, war machines, the wind and mishap tables, house rules and scenarios.

Everything the document leaves open lives here (marked ASSUMPTION in
``configs/rulesets/pursuit.yaml`` and listed in ``docs/rules/pursuit.md``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, model_validator

from naval_env.core.config import BUNDLED_CONFIGS, RulesetConfig, StrictModel, read_yaml, validate
from naval_env.core.house_rules import DiceCount, RoundCount, ShipsPerSide
from naval_env.core.rewards import Rewards

DEFAULT_CONFIG = BUNDLED_CONFIGS / "rulesets" / "pursuit.yaml"
Direction = Literal["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
WindStrength = Literal["calm", "light", "moderate", "strong", "gale"]
FireMode = Literal["direct", "indirect", "cone"]
Dodge = Literal["no_damage", "half_damage", "half_or_none_at_20"]
MishapEffect = Literal["half_speed_next", "no_maneuver_next", "lose_crew", "hull_damage", "bane_next",
                       "unload_machine", "nothing"]
EscapeResult = Literal["win", "draw", "loss"]
Score = Annotated[int, Field(ge=1, le=25)]
"""An ability score of a pilot, captain, crew or gunner (Agility, Intellect, Strength, Will), 1 to 25."""


class ShipClass(StrictModel):
    """One ship type (the document gives none: every number here is an assumption)."""

    description: str = ""
    size: int = Field(ge=1, le=30, description="Size: minutes a destroyed ship takes to sink")
    health: int = Field(ge=2, le=1000)
    oars: int = Field(ge=0, le=30, description="Speed when rowed (0: no oars)")
    sails: int = Field(ge=0, le=30, description="Speed under sail before the wind (0: no sails)")
    maneuverability: int = Field(ge=-3, le=3, description="boons (+) or banes (-) on maneuver rolls")
    seaworthiness: int = Field(ge=-3, le=3, description="boons (+) or banes (-) when sinking")
    needs_captain: bool = Field(description="True for larger vessels; False: a pilot suffices")
    crew: int = Field(ge=1, le=60, description="crew aboard (the pilot of a small boat counts)")
    rowers: int = Field(default=0, ge=0, le=60, description="crew needed to row at full Speed")
    sail_crew: int = Field(default=0, ge=0, le=60, description="crew needed to tend the sails")
    draft: float = Field(gt=0, le=10, description="yards of water the hull needs")
    radius: float = Field(gt=0, le=30, description="yards from the centre to the hull, for hits and contact")
    deck_spots: int = Field(ge=1, le=40, description="places a shot can strike; machine i stands on spot i")
    armament: list[str] = Field(default_factory=list,
                                description="war machines carried unless a scenario says otherwise")

    @model_validator(mode="after")
    def _propulsion(self) -> ShipClass:
        if self.oars == 0 and self.sails == 0:
            raise ValueError("a ship needs oars or sails (or both)")
        if self.oars and not 1 <= self.rowers <= self.crew:
            raise ValueError(f"rowers must be between 1 and the crew ({self.crew}) when the ship has oars")
        if self.sails and not 1 <= self.sail_crew <= self.crew:
            raise ValueError(f"sail_crew must be between 1 and the crew ({self.crew}) when the ship has sails")
        return self


class MachineClass(StrictModel):
    """One war machine stat block of the document."""

    size: int = Field(ge=1, le=10)
    defense: int = Field(default=5, ge=0)
    health: int = Field(ge=1, le=200)
    space: int = Field(ge=1, le=5, description="yards on a side of the machine's space")
    crew: int = Field(ge=1, le=6)
    fire: FireMode
    load: int = Field(ge=1, le=6)
    aim: int = Field(ge=1, le=6)
    range: int = Field(ge=1, le=1000, description="yards")
    min_range: int = Field(default=0, ge=0)
    damage_dice: int = Field(ge=1, le=20, description="d6s of damage")
    area: int = Field(default=1, ge=1, le=10, description="yards on a side of the target cube")
    splash: int = Field(default=0, ge=0, le=5, description="yards around the cube that take half damage")
    dodge: Dodge
    dodge_banes: int = Field(default=0, ge=0, le=5)
    misfire_faces: list[int] = Field(default_factory=list, description="d20 faces of the firing roll that misfire")
    stone: bool = Field(default=False, description="may fire a round stone: free, half range and damage")
    ammunition: str = ""

    @model_validator(mode="after")
    def _consistent(self) -> MachineClass:
        if self.min_range >= self.range:
            raise ValueError(f"min_range {self.min_range} must be below range {self.range}")
        if self.misfire_faces and self.fire != "indirect":
            raise ValueError("only indirect-fire machines roll to fire, so only they can misfire")
        if any(not 1 <= f <= 20 for f in self.misfire_faces):
            raise ValueError("misfire faces are d20 faces (1..20)")
        return self


class WindRow(StrictModel):
    """Speed modifiers of one wind strength; becalmed: sails give no Speed at all."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    against: int
    across: int
    with_: int = Field(alias="with")
    becalmed: bool = False


class Mishap(StrictModel):
    name: str
    effect: MishapEffect
    amount: int = Field(default=1, ge=0, le=10, description="crew lost, d6s of damage or banes")


class HouseRules(StrictModel):
    """Choices the document leaves open (see the Assumptions of docs/rules/pursuit.md)."""

    rounds_per_minute: int = Field(default=1, ge=1, le=60)
    rounds_per_hour: int = Field(default=10, ge=1, le=3600)
    max_rounds: RoundCount = 60
    max_ships_per_side: ShipsPerSide = Field(default=2, le=4)
    max_machines: int = Field(default=4, ge=1, le=8)
    veer_degrees: float = Field(default=45.0, gt=0, lt=90)
    wind_arc_degrees: float = Field(default=45.0, gt=0, lt=90,
                                    description="within this of downwind: with; of upwind: against")
    captain_professions: list[str] = Field(
        default_factory=lambda: ["sailor", "boatman", "ferryman", "pirate", "fisher", "whaler"])
    crew_exposure_die: int = Field(default=6, ge=1, description="percent of crew hit: 1dN + base")
    crew_exposure_base: int = Field(default=4, ge=0, le=100)
    current_with_factor: float = Field(default=1.5, ge=1, le=3)
    current_against_factor: float = Field(default=0.5, gt=0, le=1)
    scatter_directions: int = Field(default=8, ge=2, le=360)
    explosion_radius: int = Field(default=5, ge=0)
    ram_extra_dice: DiceCount = 3
    aground_dice: DiceCount = 3
    rocks_dice: DiceCount = 1
    debris_dice: DiceCount = 1
    dragged_under_banes: int = Field(default=2, ge=0)
    scuttled_banes: int = Field(default=2, ge=0)
    scuttled_days_base: int = Field(default=3, ge=0)
    forced_rowing_banes: int = Field(default=1, ge=0)


class Controller(StrictModel):
    """The pilot or captain. A captain needs a seafaring profession."""

    role: Literal["pilot", "captain"] = "captain"
    profession: str = "sailor"
    agility: Score = 10
    intellect: Score = 11
    will: Score = 11


class CrewStats(StrictModel):
    """The crew acts as one group for its rolls; each member has this Health."""

    agility: Score = 10
    strength: Score = 11
    will: Score = 10
    health: int = Field(default=12, ge=1, le=100)
    count: int | None = Field(default=None, ge=1, le=60, description="default: the ship class's crew")


class MountSetup(StrictModel):
    machine: str
    gunners: int | None = Field(default=None, ge=1, le=6, description="default: the machine's crew")
    gunner_intellect: Score = 10
    ammunition: Literal["standard", "stone"] = "standard"


class ShipSetup(StrictModel):
    ship: str
    controller: Controller = Controller()
    crew: CrewStats = CrewStats()
    machines: list[MountSetup] | None = None
    propulsion: Literal["oars", "sails"] | None = None
    position: tuple[float, float] | None = None


class Zone(StrictModel):
    """Inclusive rectangle in yards where a side's ships without a position are placed (whole yards)."""

    x: tuple[int, int]
    y: tuple[int, int]


class SideSetup(StrictModel):
    name: str = Field(pattern=r"^[a-z][a-z0-9]*$")
    zone: Zone
    ships: list[ShipSetup] = Field(min_length=1)


class Wind(StrictModel):
    strength: WindStrength
    toward: Direction = Field(description="where the wind blows to")


class Current(StrictModel):
    toward: Direction
    fast: bool = True


class Shoal(StrictModel):
    """A circle of shallow water; rocks keep hurting a grounded ship."""

    center: tuple[float, float]
    radius: float = Field(gt=0)
    depth: float = Field(ge=0)
    rocks: bool = False


class Escape(StrictModel):
    """Ships of ``sides`` that end a round farther than ``distance`` yards from every enemy leave the battle."""

    distance: float = Field(gt=0)
    sides: list[str] = Field(min_length=1)
    result: EscapeResult = Field(default="draw", description="for a side whose last fighting ships escaped")


class Scenario(StrictModel):
    description: str = ""
    wind: Wind
    current: Current | None = None
    shoals: list[Shoal] = Field(default_factory=list)
    escape: Escape | None = None
    sides: list[SideSetup] = Field(min_length=2, max_length=2)


class PursuitConfig(RulesetConfig[Scenario]):
    ruleset: Literal["pursuit"]
    house_rules: HouseRules = HouseRules()
    rewards: Rewards = Rewards()
    wind_table: dict[WindStrength, WindRow]
    mishaps: list[Mishap] = Field(min_length=1, max_length=20)
    war_machines: dict[str, MachineClass] = Field(min_length=1)
    ship_classes: dict[str, ShipClass] = Field(min_length=1)

    @model_validator(mode="after")
    def _cross_checks(self) -> PursuitConfig:
        missing = {"calm", "light", "moderate", "strong", "gale"} - set(self.wind_table)
        if missing:
            raise ValueError(f"wind_table lacks the strength(s) {sorted(missing)}")
        for name, ship_class in self.ship_classes.items():
            for machine in ship_class.armament:
                if machine not in self.war_machines:
                    raise ValueError(f"ship_classes.{name}.armament: unknown war machine {machine!r}; "
                                     f"choose one of {sorted(self.war_machines)}")
        for name, scenario in self.scenarios.items():
            _check_scenario(self, name, scenario)
        return self


def mounts_of(config: PursuitConfig, setup: ShipSetup) -> list[MountSetup]:
    """The war machines a ship carries: the scenario's list, else its class's armament."""
    if setup.machines is not None:
        return list(setup.machines)
    return [MountSetup(machine=m) for m in config.ship_classes[setup.ship].armament]


def _check_scenario(config: PursuitConfig, name: str, scenario: Scenario) -> None:
    names = [side.name for side in scenario.sides]
    if len(set(names)) != len(names):
        raise ValueError(f"scenarios.{name}.sides: side names must differ, got {names}")
    if scenario.escape is not None:
        unknown = set(scenario.escape.sides) - set(names)
        if unknown:
            raise ValueError(f"scenarios.{name}.escape.sides: unknown side(s) {sorted(unknown)}; sides are {names}")
    rules = config.house_rules
    for side in scenario.sides:
        where = f"scenarios.{name}.sides[{side.name}]"
        if side.zone.x[0] > side.zone.x[1] or side.zone.y[0] > side.zone.y[1]:
            raise ValueError(f"{where}.zone: {side.zone} is empty (low bound above high bound)")
        if len(side.ships) > rules.max_ships_per_side:
            raise ValueError(f"{where}.ships: {len(side.ships)} ships; at most {rules.max_ships_per_side} a side "
                             "(house_rules.max_ships_per_side)")
        for i, setup in enumerate(side.ships):
            here = f"{where}.ships[{i}]"
            if setup.ship not in config.ship_classes:
                raise ValueError(f"{here}.ship: unknown ship {setup.ship!r}; choose one of "
                                 f"{sorted(config.ship_classes)}")
            ship_class = config.ship_classes[setup.ship]
            controller = setup.controller
            if ship_class.needs_captain and controller.role != "captain":
                raise ValueError(f"{here}.controller: a {setup.ship} needs a captain, not a {controller.role}")
            if controller.role == "captain" and controller.profession not in rules.captain_professions:
                raise ValueError(f"{here}.controller.profession: {controller.profession!r} cannot captain a ship; "
                                 f"allowed: {rules.captain_professions}")
            if setup.propulsion == "oars" and not ship_class.oars:
                raise ValueError(f"{here}.propulsion: a {setup.ship} has no oars")
            if setup.propulsion == "sails" and not ship_class.sails:
                raise ValueError(f"{here}.propulsion: a {setup.ship} has no sails")
            if setup.crew.count is not None and setup.crew.count > ship_class.crew:
                raise ValueError(f"{here}.crew.count: {setup.crew.count} is more than a {setup.ship} holds "
                                 f"({ship_class.crew})")
            mounts = mounts_of(config, setup)
            if len(mounts) > min(rules.max_machines, ship_class.deck_spots):
                raise ValueError(f"{here}.machines: {len(mounts)} war machines; a {setup.ship} carries at most "
                                 f"{min(rules.max_machines, ship_class.deck_spots)}")
            for j, mount in enumerate(mounts):
                if mount.machine not in config.war_machines:
                    raise ValueError(f"{here}.machines[{j}].machine: unknown war machine {mount.machine!r}; "
                                     f"choose one of {sorted(config.war_machines)}")
                if mount.ammunition == "stone" and not config.war_machines[mount.machine].stone:
                    raise ValueError(f"{here}.machines[{j}].ammunition: a {mount.machine} cannot fire a round stone")


def load_config(path: str | Path | None = None) -> PursuitConfig:
    """Load and validate a pursuit config; the default is ``configs/rulesets/pursuit.yaml``."""
    path = Path(path) if path is not None else DEFAULT_CONFIG
    return validate(PursuitConfig, read_yaml(path), str(path))
