"""The `pantheon` action codec: named MultiDiscrete components and their meaning.

A captain's turn is a short sequence of decisions (phases START, MOVE, ATTACK,
ESCAPE). Every decision uses the same MultiDiscrete action; components that do
not belong to the current phase are masked to value 0, so each component's mask
is exact on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from naval_env.core.spaces import ActionComponent, ActionSpec
from naval_env.rulesets.pantheon.config import PantheonConfig
from naval_env.rulesets.pantheon.crew import CREW_LABELS
from naval_env.rulesets.pantheon.movement import ManeuverTable, build_maneuvers

MAX_CREW_SLOTS = 4


class TurnOrder(int, Enum):
    PROCEED = 0
    RELEASE = 1
    FAIR_ESCAPE = 2


class AttackKind(str, Enum):
    NONE = "none"
    RAM = "ram"
    FIRE = "fire"
    BOARD = "board"
    GET_OUT = "get_us_out"
    REPAIR = "repair"


@dataclass(frozen=True, slots=True)
class AttackChoice:
    kind: AttackKind
    target_slot: int | None = None   # index among the enemy ships, in side order


def attack_choices(max_enemies: int) -> tuple[AttackChoice, ...]:
    targeted = [
        AttackChoice(kind, slot)
        for kind in (AttackKind.RAM, AttackKind.FIRE, AttackKind.BOARD)
        for slot in range(max_enemies)
    ]
    return (AttackChoice(AttackKind.NONE), *targeted, AttackChoice(AttackKind.GET_OUT),
            AttackChoice(AttackKind.REPAIR))


def _attack_label(choice: AttackChoice) -> str:
    return choice.kind.value if choice.target_slot is None else f"{choice.kind.value}@enemy{choice.target_slot}"


@dataclass(frozen=True)
class PantheonActions:
    """Components and lookup tables for one config (spaces depend only on catalogue and house rules)."""

    spec: ActionSpec
    maneuvers: ManeuverTable
    escape_maneuvers: ManeuverTable
    attacks: tuple[AttackChoice, ...]

    TURN_ORDER = 0
    MANEUVER = 1
    ATTACK = 2
    CREW = 3  # first of MAX_CREW_SLOTS components
    RETEST_ON_FAILURE = 3 + MAX_CREW_SLOTS
    RETEST_WHEN_HIT = 4 + MAX_CREW_SLOTS
    ESCAPE = 5 + MAX_CREW_SLOTS


def build_actions(config: PantheonConfig) -> PantheonActions:
    rules = config.house_rules
    maneuvers = ManeuverTable(build_maneuvers(config.max_move, in_place_turns=2))
    escape = ManeuverTable(build_maneuvers(rules.get_out_distance, in_place_turns=1))
    attacks = attack_choices(rules.max_ships_per_side)
    components = (
        ActionComponent("turn_order", tuple(t.name.lower() for t in TurnOrder),
                        "START phase: release the ship you boarded, or declare Fair Escape"),
        ActionComponent("maneuver", maneuvers.labels,
                        "MOVE phase: spaces ahead and the one turn (two points when not moving)"),
        ActionComponent("attack", tuple(_attack_label(a) for a in attacks),
                        "ATTACK phase: one attack option; targets are enemy slots in side order"),
        *(
            ActionComponent(f"crew_{i}", CREW_LABELS, f"ATTACK phase: crew action of PC #{i + 1} aboard")
            for i in range(MAX_CREW_SLOTS)
        ),
        ActionComponent("retest_on_failure", ("no", "yes"),
                        "ATTACK phase: spend a retest when this captain's own test fails"),
        ActionComponent("retest_when_hit", ("no", "yes"),
                        "ATTACK phase: until the next attack step, spend a retest when an enemy's test succeeds"),
        ActionComponent("escape_maneuver", escape.labels,
                        "ESCAPE phase: the extra move of Get Us Out Of Here!"),
    )
    return PantheonActions(ActionSpec(components), maneuvers, escape, attacks)
