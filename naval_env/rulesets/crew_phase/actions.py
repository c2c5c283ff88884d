"""The `crew_phase` action codec: named MultiDiscrete components and what each value means.

A round holds up to three decisions per ship: CREW (one component per crew member,
in the Character Phase), MOVE (the maneuver) and ATTACK (the ram, then one target
component per weapon). Components outside the current phase are masked to 0, and
value 0 is always the no-op, so each component's mask is exact on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from naval_env.core.spaces import ActionComponent, ActionSpec
from naval_env.rulesets.crew_phase.combat import TargetKind
from naval_env.rulesets.crew_phase.config import CrewPhaseConfig
from naval_env.rulesets.crew_phase.crew import CrewCodec
from naval_env.rulesets.crew_phase.movement import Maneuver, ManeuverTable, build_maneuvers


@dataclass(frozen=True, slots=True)
class Target:
    kind: TargetKind
    enemy: int | None = None   # enemy slot, in side order
    index: int | None = None   # crew member or weapon of that enemy

    @property
    def label(self) -> str:
        if self.kind is TargetKind.NONE:
            return "none"
        if self.kind is TargetKind.SHIP:
            return f"ship@e{self.enemy}"
        prefix = "c" if self.kind is TargetKind.CREW else "w"
        return f"{self.kind.value}@e{self.enemy}.{prefix}{self.index}"


def build_targets(max_enemies: int, max_crew: int, max_weapons: int) -> tuple[Target, ...]:
    return (
        Target(TargetKind.NONE),
        *(Target(TargetKind.SHIP, e) for e in range(max_enemies)),
        *(Target(TargetKind.CREW, e, m) for e in range(max_enemies) for m in range(max_crew)),
        *(Target(TargetKind.PART, e, j) for e in range(max_enemies) for j in range(max_weapons)),
    )


@dataclass
class CrewPhaseActions:
    """Components and lookup tables for one config (spaces depend only on the config, not the scenario)."""

    spec: ActionSpec
    crew: CrewCodec
    maneuvers: tuple[Maneuver, ...]
    targets: tuple[Target, ...]
    max_crew: int
    max_weapons: int
    max_enemies: int
    _tables: dict[Fraction | None, ManeuverTable] = field(default_factory=dict, repr=False)
    _tables_by_ship: dict[tuple[bool, int, int], ManeuverTable] = field(default_factory=dict, repr=False)
    # Indices of the components after the crew's (plain attributes: read on every decision).
    MANEUVER: int = field(init=False)
    RAM: int = field(init=False)
    WEAPON: int = field(init=False)   # the first weapon's

    def __post_init__(self) -> None:
        self.MANEUVER = self.max_crew
        self.RAM = self.max_crew + 1
        self.WEAPON = self.max_crew + 2

    def table(self, agile: bool, speed_unit: int, cost: int) -> ManeuverTable:
        """Paths for a ship turning one point per ``speed_unit`` feet spent, paying ``cost`` feet a square."""
        table = self._tables_by_ship.get((agile, speed_unit, cost))
        if table is None:  # building the Fraction key on every call costs more than the lookup itself
            key = None if agile else Fraction(speed_unit, cost)
            table = self._tables.get(key)
            if table is None:
                table = self._tables[key] = ManeuverTable(self.maneuvers, key)
            self._tables_by_ship[(agile, speed_unit, cost)] = table
        return table


def build_actions(config: CrewPhaseConfig) -> CrewPhaseActions:
    rules = config.house_rules
    codec = CrewCodec(rules.max_sections, rules.max_weapons)
    maneuvers = build_maneuvers(config.max_forward, rules.max_turn_points)
    targets = build_targets(rules.max_ships_per_side, rules.max_crew, rules.max_weapons)
    components = (
        *(
            ActionComponent(f"crew_{i}", codec.labels, f"CREW phase: the action of crew member {i}")
            for i in range(rules.max_crew)
        ),
        ActionComponent("maneuver", tuple(m.label for m in maneuvers),
                        "MOVE phase: squares ahead and 45-degree turn points (early or late)"),
        ActionComponent("ram", ("none", *(f"ram@e{e}" for e in range(rules.max_ships_per_side))),
                        "ATTACK phase: ram the enemy ship directly ahead"),
        *(
            ActionComponent(f"weapon_{j}", tuple(t.label for t in targets),
                            f"ATTACK phase: target of weapon {j} (operated this round)")
            for j in range(rules.max_weapons)
        ),
    )
    return CrewPhaseActions(ActionSpec(components), codec, maneuvers, targets, rules.max_crew, rules.max_weapons,
                            rules.max_ships_per_side)
