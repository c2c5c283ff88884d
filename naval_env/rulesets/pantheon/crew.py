"""Crew actions: the buffs other PCs aboard give their captain, and the once-a-combat Repair."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class BuffKind(str, Enum):
    DAMAGE = "damage"   # +1 damage rating
    ATTACK = "attack"   # +2 to the attack pool
    DODGE = "dodge"     # +2 to the defense pool


class Scope(str, Enum):
    RAM = "ram"
    FIRE = "fire"
    BOARD = "board"
    EXCEPTIONAL = "exceptional"


BUFF_AMOUNT = {BuffKind.DAMAGE: 1, BuffKind.ATTACK: 2, BuffKind.DODGE: 2}
EXCEPTIONAL_AMOUNT = 2


@dataclass(frozen=True, slots=True)
class CrewAction:
    kind: BuffKind | None   # None: Repair
    scope: Scope | None

    @property
    def label(self) -> str:
        if self.kind is None:
            return "repair"
        return f"{self.kind.value}+{self.scope.value}" if self.scope else self.kind.value


NONE_CODE = 0
CREW_ACTIONS: tuple[CrewAction | None, ...] = (
    None,
    *(CrewAction(kind, scope) for kind in BuffKind for scope in Scope),
    CrewAction(None, None),
)
REPAIR_CODE = len(CREW_ACTIONS) - 1
CREW_LABELS = tuple("none" if a is None else a.label for a in CREW_ACTIONS)


def total(buffs: tuple[int, ...], kind: BuffKind, scope: Scope) -> int:
    """Sum of one buff over the chosen crew actions; the Exceptional scope gives +2 instead."""
    amount = 0
    for code in buffs:
        action = CREW_ACTIONS[code]
        if action is not None and action.kind is kind and action.scope is scope:
            amount += EXCEPTIONAL_AMOUNT if scope is Scope.EXCEPTIONAL else BUFF_AMOUNT[kind]
    return amount
