"""Fleet building: price every ship, resolve its statistics, and check a fleet against its budget.

    report = check_fleet(config, ships, budget=50, side="red")
    if not report.ok:
        print(report.explain())   # every reason the fleet is refused, one per line

Scenario validation (:func:`check_scenario`) runs this for both fleets when a
config loads, so a config whose fleet breaks its budget never loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from naval_env.core.errors import ConfigError
from naval_env.core.grid import Compass
from naval_env.rulesets.flotilla.geometry import footprint, gap, on_map

if TYPE_CHECKING:
    from naval_env.rulesets.flotilla.config import FlotillaConfig, Scenario, ShipSetup

#: On/off traits; the other upgrades have levels (veteran captain, elite crew) or add dice (artillery).
TRAITS = ("armour", "ram", "bow_guns", "broadside_guns", "mage_squad", "sails")


class FleetRefused(ConfigError):
    """A fleet that breaks the building rules; the message lists every reason."""


@dataclass(frozen=True, slots=True)
class CostLine:
    item: str
    points: int


@dataclass(frozen=True, slots=True)
class ShipBuild:
    """A ship's statistics once its class and upgrades are applied, and what it cost."""

    ship_class: str
    cost_lines: tuple[CostLine, ...]
    steering: int
    combat: int
    range: int
    boarding: int
    size: int
    cohesion: int
    movement: int
    traits: frozenset[str]
    mages: int
    problems: tuple[str, ...]

    @property
    def cost(self) -> int:
        return sum(line.points for line in self.cost_lines)


@dataclass(frozen=True, slots=True)
class FleetReport:
    side: str
    budget: int
    ships: tuple[ShipBuild, ...]
    problems: tuple[str, ...]

    @property
    def total(self) -> int:
        return sum(ship.cost for ship in self.ships)

    @property
    def ok(self) -> bool:
        return not self.problems

    def explain(self) -> str:
        lines = [f"{self.side}: {self.total} of {self.budget} points"]
        for i, ship in enumerate(self.ships):
            items = ", ".join(f"{line.item} {line.points}" for line in ship.cost_lines)
            lines.append(f"  ship {i} ({ship.ship_class}): {ship.cost} points = {items}")
        lines += [f"  refused: {problem}" for problem in self.problems]
        return "\n".join(lines)


def build_ship(config: FlotillaConfig, setup: ShipSetup) -> ShipBuild:
    """Statistics and price of one ship; ``problems`` says what the building rules forbid."""
    rules = config.house_rules
    problems: list[str] = []
    cls = config.ship_classes.get(setup.ship)
    if cls is None:
        return ShipBuild(setup.ship, (), 0, 0, 0, 0, 1, 1, 0, frozenset(), 0,
                         (f"unknown ship class {setup.ship!r}; choose one of {sorted(config.ship_classes)}",))
    lines = [CostLine(setup.ship, cls.cost)]
    traits: set[str] = set(cls.traits)
    levels: dict[str, int] = {}
    for name, level in setup.upgrades.items():
        price = config.upgrades[name]
        if level == 0:
            continue
        if not 1 <= level <= price.max_level:
            problems.append(f"{setup.ship}: {name} level {level} is not offered (levels 1..{price.max_level})")
            continue
        if name in TRAITS and name in cls.traits:
            problems.append(f"{setup.ship}: already has {name} built in; it cannot be bought again")
            continue
        lines.append(CostLine(name if price.max_level == 1 else f"{name} x{level}", price.levels[level - 1]))
        levels[name] = level
        if name in TRAITS:
            traits.add(name)
    artillery = "better_artillery" in levels
    boarding = cls.boarding + levels.get("elite_crew", 0)
    if boarding > rules.max_boarding_dice:
        problems.append(
            f"{setup.ship}: elite crew would make the Boarding Roll {boarding}d6; "
            f"the most is {rules.max_boarding_dice}d6"
        )
    return ShipBuild(
        ship_class=setup.ship,
        cost_lines=tuple(lines),
        steering=(cls.steering if setup.captain_perception is None else setup.captain_perception)
        + rules.veteran_dice_per_level * levels.get("veteran_captain", 0),
        combat=cls.combat + (rules.artillery_dice if artillery else 0),
        range=cls.range + (rules.artillery_range if artillery else 0),
        boarding=min(boarding, rules.max_boarding_dice),
        size=cls.size,
        cohesion=cls.cohesion,
        movement=cls.movement,
        traits=frozenset(traits),
        mages=rules.mage_cohesion if "mage_squad" in traits else 0,
        problems=tuple(problems),
    )


def check_fleet(config: FlotillaConfig, ships: Sequence[ShipSetup], budget: int, side: str = "fleet") -> FleetReport:
    """Price a fleet and list every reason it is refused (empty when it may sail)."""
    builds = tuple(build_ship(config, s) for s in ships)
    problems = [p for b in builds for p in b.problems]
    limit = config.house_rules.max_ships_per_side
    if not ships:
        problems.append("a fleet needs at least one ship")
    if len(ships) > limit:
        problems.append(f"{len(ships)} ships; at most {limit} a side (house_rules.max_ships_per_side)")
    total = sum(b.cost for b in builds)
    if total > budget:
        problems.append(f"costs {total} points, {total - budget} over the budget of {budget}")
    return FleetReport(side, budget, builds, tuple(problems))


def require_fleet(config: FlotillaConfig, ships: Sequence[ShipSetup], budget: int, side: str = "fleet") -> FleetReport:
    """:func:`check_fleet`, raising :class:`FleetRefused` with the explanation when refused."""
    report = check_fleet(config, ships, budget, side)
    if not report.ok:
        raise FleetRefused(report.explain())
    return report


def check_scenario(config: FlotillaConfig, name: str, scenario: Scenario) -> None:
    """Roles, fleets within budget, set-up zones and explicit positions (raises ValueError naming the field)."""
    rules = config.house_rules
    size = rules.map_size
    where = f"scenarios.{name}"
    names = [side.name for side in scenario.sides]
    if len(set(names)) != len(names):
        raise ValueError(f"{where}.sides: side names must differ, got {names}")
    roles = sorted(side.role for side in scenario.sides)
    if roles != ["attacker", "defender"]:
        raise ValueError(f"{where}.sides: one side must be the attacker and one the defender, got roles {roles}")
    placed: dict[str, list[tuple[tuple[int, int], ...]]] = {"attacker": [], "defender": []}
    taken: set[tuple[int, int]] = set()
    for side in scenario.sides:
        here = f"{where}.sides[{side.name}]"
        report = check_fleet(config, side.ships, scenario.budget, side.name)
        if not report.ok:
            raise ValueError(f"{here}.ships: " + report.explain())
        zone = side.zone
        if zone is not None and not (0 <= zone.x[0] <= zone.x[1] < size and 0 <= zone.y[0] <= zone.y[1] < size):
            raise ValueError(f"{here}.zone: {zone} does not fit the {size}x{size} map")
        for i, (setup, build) in enumerate(zip(side.ships, report.ships)):
            if setup.position is None:
                continue
            x, y = setup.position
            if zone is not None and not zone.contains(x, y):
                raise ValueError(f"{here}.ships[{i}].position {setup.position} is outside the zone {zone}")
            if side.role == "defender" and zone is None and max(abs(x - size // 2), abs(y - size // 2)) > rules.centre_radius:
                raise ValueError(f"{here}.ships[{i}].position {setup.position}: the defender starts in the centre "
                                 f"(within {rules.centre_radius} squares of ({size // 2}, {size // 2}))")
            squares = footprint(x, y, int(Compass.parse(setup.facing or side.facing)), build.size)
            if not on_map(squares, size, size):
                raise ValueError(f"{here}.ships[{i}]: at {setup.position} its {build.size} squares leave the map")
            if taken & set(squares):
                raise ValueError(f"{here}.ships[{i}]: at {setup.position} it overlaps another ship")
            taken |= set(squares)
            placed[side.role].append(squares)
    for a in placed["attacker"]:
        for d in placed["defender"]:
            if gap(a, d) < rules.min_attacker_distance:
                raise ValueError(f"{where}: an attacking ship starts {gap(a, d)} squares from a defender; "
                                 f"the attacker deploys at least {rules.min_attacker_distance} away")
