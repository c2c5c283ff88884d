"""The `flotilla` action codec: named MultiDiscrete components and what each value means.

A captain's decisions come in phases (see :class:`~naval_env.rulesets.flotilla.state.Phase`);
every decision uses the same MultiDiscrete action and components outside the
current phase are masked to value 0, so each component's mask is exact on its own.

=============  ==========  ================================================================
component      phase       values
=============  ==========  ================================================================
facing         DEPLOY      keep, N, NE, E, SE, S, SW, W, NW
maneuver       MOVE        ahead (the base move), each maneuver (port/starboard mirrored),
                           ram@enemyK, board@enemyK, break_free
target         ATTACK      hold, ship@enemyK (the hull), mages@enemyK (its mage squad)
mage_target    ATTACK      as ``target``, for this ship's own mage squad
boarding       ATTACK      hold, fight (a boarding fight with the grappled ship)
reaction       REACTION    dodge, counter (the attack being answered)
=============  ==========  ================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from naval_env.core.grid import Compass
from naval_env.core.spaces import ActionComponent, ActionSpec
from naval_env.rulesets.flotilla.config import FlotillaConfig
from naval_env.rulesets.flotilla.movement import RouteTable
from naval_env.rulesets.flotilla.state import Unit


@dataclass(frozen=True, slots=True)
class Maneuver:
    """Turn ``turn`` compass points (negative: to port), then sail ``distance`` squares straight ahead.

    ``distance`` is 'full', 'half' or a number; ``base`` marks the base move, made without a roll."""

    label: str
    turn: int
    distance: str | int
    base: bool = False

    def squares(self, movement: int) -> int:
        if self.distance == "full":
            return movement
        if self.distance == "half":
            return (movement + 1) // 2
        return min(int(self.distance), movement)


@dataclass(frozen=True, slots=True)
class Target:
    unit: Unit
    slot: int   # enemy slot, in side order


@dataclass(frozen=True)
class FlotillaActions:
    """Components and lookup tables for one config (spaces depend only on house rules and maneuvers)."""

    spec: ActionSpec
    maneuvers: tuple[Maneuver, ...]
    max_enemies: int
    targets: tuple[Target | None, ...]
    routes: RouteTable = field(compare=False, repr=False)  # shared by every game of the config

    FACING = 0
    MANEUVER = 1
    TARGET = 2
    MAGE_TARGET = 3
    BOARDING = 4
    REACTION = 5

    # Cached: the engine reads them at every MOVE decision (a frozen dataclass keeps a __dict__ for them).
    @cached_property
    def ram_base(self) -> int:
        return len(self.maneuvers)

    @cached_property
    def board_base(self) -> int:
        return len(self.maneuvers) + self.max_enemies

    @cached_property
    def break_free(self) -> int:
        return len(self.maneuvers) + 2 * self.max_enemies

    def target_value(self, unit: Unit, slot: int) -> int:
        return 1 + slot + (self.max_enemies if unit is Unit.MAGES else 0)


def build_maneuvers(config: FlotillaConfig) -> tuple[Maneuver, ...]:
    table = [Maneuver("ahead", 0, "full", base=True)]
    for m in config.maneuvers:
        if m.turn == 0:
            table.append(Maneuver(m.name, 0, m.distance))
        else:
            table += [Maneuver(f"{m.name}_port", -m.turn, m.distance),
                      Maneuver(f"{m.name}_starboard", m.turn, m.distance)]
    return tuple(table)


def build_actions(config: FlotillaConfig) -> FlotillaActions:
    n = config.house_rules.max_ships_per_side
    maneuvers = build_maneuvers(config)
    targets: tuple[Target | None, ...] = (
        None, *(Target(Unit.SHIP, k) for k in range(n)), *(Target(Unit.MAGES, k) for k in range(n)))
    target_labels = tuple("hold" if t is None else f"{'ship' if t.unit is Unit.SHIP else 'mages'}@enemy{t.slot}"
                          for t in targets)
    components = (
        ActionComponent("facing", ("keep", *(c.name for c in Compass)),
                        "DEPLOY: the ship's starting facing (keep: the scenario's)"),
        ActionComponent(
            "maneuver",
            (*(m.label for m in maneuvers), *(f"ram@enemy{k}" for k in range(n)),
             *(f"board@enemy{k}" for k in range(n)), "break_free"),
            "MOVE: the base move ahead, a maneuver (opposed 2d6), a ram, a boarding, or breaking free",
        ),
        ActionComponent("target", target_labels, "ATTACK: what the guns fire at"),
        ActionComponent("mage_target", target_labels, "ATTACK: what the mage squad attacks"),
        ActionComponent("boarding", ("hold", "fight"), "ATTACK: start a boarding fight with the grappled ship"),
        ActionComponent("reaction", ("dodge", "counter"), "REACTION: answer the incoming attack"),
    )
    return FlotillaActions(ActionSpec(components), maneuvers, n, targets, RouteTable(maneuvers))
