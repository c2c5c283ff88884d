"""The Character Phase: the crew-action codec and what each crew member's action does.

Crew actions (Navigate, Steer, Operate, Command, Ready) are rolled now and take
effect in the Ship Phase; Repair and healing are ordinary actions with an
immediate effect. Each crew member acts in slot order. A station one crew member
already took this round (a navigation section, the helm, a weapon) leaves a later
crew member who picks it with nothing to do: the action is wasted, not illegal,
so each crew member's mask stays exact on its own. (A navigator finds any free section, a gunner the
next free weapon.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.rulesets.crew_phase.checks import check, roll_damage, water_vehicles
from naval_env.rulesets.crew_phase.config import HouseRules, parse_dice
from naval_env.rulesets.crew_phase.events import (
    CrewActionWasted,
    CrewHealed,
    SpeedGained,
    StationManned,
)
from naval_env.rulesets.crew_phase.repair import repair_hull, repair_part
from naval_env.rulesets.crew_phase.state import CrewMember, GameState, Ship


class CrewKind(str, Enum):
    NONE = "none"
    NAVIGATE = "navigate"
    STEER = "steer"
    OPERATE = "operate"
    READY = "ready"
    COMMAND = "command"
    REPAIR_HULL = "repair_hull"
    REPAIR_PART = "repair"
    HEAL = "heal"
    CUT = "cut_lines"


@dataclass(frozen=True, slots=True)
class CrewAction:
    kind: CrewKind
    index: int | None = None   # section or weapon slot
    # Worked out once: a wasted action names itself in its event, and Enum ``.value`` is slow to read.
    label: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.index is None:
            label = self.kind.value
        else:
            prefix = "s" if self.kind is CrewKind.NAVIGATE else "w"
            label = f"{self.kind.value}@{prefix}{self.index}"
        object.__setattr__(self, "label", label)


class CrewCodec:
    """Crew-action values of one crew component: their order, labels and where each kind starts."""

    def __init__(self, max_sections: int, max_weapons: int) -> None:
        actions: list[CrewAction] = [CrewAction(CrewKind.NONE)]
        starts: list[int] = []
        # Each kind's values in order: one per section or weapon slot, or a single value (None).
        for kind, count in ((CrewKind.NAVIGATE, max_sections), (CrewKind.STEER, None),
                            (CrewKind.OPERATE, max_weapons), (CrewKind.READY, max_weapons), (CrewKind.COMMAND, None),
                            (CrewKind.REPAIR_HULL, None), (CrewKind.REPAIR_PART, max_weapons),
                            (CrewKind.HEAL, None), (CrewKind.CUT, None)):
            starts.append(len(actions))
            actions += [CrewAction(kind)] if count is None else [CrewAction(kind, i) for i in range(count)]
        (self.navigate, self.steer, self.operate, self.ready, self.command, self.repair_hull, self.repair_part,
         self.heal, self.cut) = starts
        self.actions = tuple(actions)
        self.labels = tuple(a.label for a in actions)
        self.size = len(actions)
        #: Per value, what carries the action out: ``handlers[code](dice, rules, state, ship, member,
        #: actions[code], sinking, events)``, ``sinking`` being whether the ship is sinking (its crew's
        #: rolls are then at disadvantage). Looked up by value, not by kind: hashing an Enum member
        #: runs Python code.
        self.handlers: tuple[CrewHandler, ...] = tuple(_HANDLERS[a.kind] for a in actions)


CrewHandler = Callable[[Dice, HouseRules, GameState, Ship, CrewMember, CrewAction, bool, list[Event]], None]


def _steer(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, member: CrewMember,
           action: CrewAction, sinking: bool, events: list[Event]) -> None:
    steer(dice, rules, state.rough, ship, member, sinking, events)


def _command(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, member: CrewMember,
             action: CrewAction, sinking: bool, events: list[Event]) -> None:
    if check(dice, ship, member, "command (Charisma)", member.charisma, rules.command_dc, sinking, events):
        ship.command_successes += 1


def _repair_hull(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, member: CrewMember,
                 action: CrewAction, sinking: bool, events: list[Event]) -> None:
    repair_hull(dice, rules, state, ship, member, events)


def _repair_part(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, member: CrewMember,
                 action: CrewAction, sinking: bool, events: list[Event]) -> None:
    repair_part(dice, rules, ship, member, action.index or 0, events)


def _heal(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, member: CrewMember,
          action: CrewAction, sinking: bool, events: list[Event]) -> None:
    heal(dice, rules, ship, member, events)


def _cut_lines(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, member: CrewMember,
               action: CrewAction, sinking: bool, events: list[Event]) -> None:
    ship.cut_lines = True
    events.append(StationManned(ship.id, member.index, "axes to cut the grappling lines"))


def _nothing(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, member: CrewMember,
             action: CrewAction, sinking: bool, events: list[Event]) -> None:
    return None


# Read once: Enum class attributes and ``.value`` are slow to read in Python 3.11.
_READY = CrewKind.READY
_KIND_VALUE = {kind: kind.value for kind in CrewKind}


# ``navigate`` and ``man_weapon``, the most frequent actions, are handlers themselves (one call less).
def navigate(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, member: CrewMember,
             action: CrewAction, sinking: bool, events: list[Event]) -> None:
    """Water Vehicles (Strength) DC 10: the ship gains its speed unit, or half of it on a failure.

    Each section takes one crew member: one sent to a section already worked (``action.index``)
    takes the first free one instead; with every section manned the action is wasted.
    """
    section = action.index or 0
    manned = ship.sections_manned
    worked = section
    if manned >> section & 1:
        free = [s for s in range(ship.sections) if not manned >> s & 1]
        if not free:
            events.append(CrewActionWasted(ship.id, member.index, f"navigate@s{section}", "every section is manned"))
            return
        worked = free[0]
    ship.sections_manned = manned | 1 << worked
    success = check(dice, ship, member, "navigate (Water Vehicles, Strength)",
                    water_vehicles(member, member.strength), rules.navigate_dc, sinking, events)
    feet = ship.speed_unit if success else ship.speed_unit // 2
    ship.speed_ft += feet
    events.append(SpeedGained(ship.id, member.index, worked, feet))


def steer(dice: Dice, rules: HouseRules, rough: bool, ship: Ship, member: CrewMember, sinking: bool,
          events: list[Event]) -> None:
    """Take the helm. In rough weather it needs a Water Vehicles check; failing it, the ship sails straight."""
    if ship.helmsman is not None:
        events.append(CrewActionWasted(ship.id, member.index, "steer", "the helm is already manned"))
        return
    ship.helmsman = member.index
    events.append(StationManned(ship.id, member.index, "helm"))
    if not rough:
        ship.steer_ok = True
        return
    ability = member.dexterity if rules.steer_ability == "dexterity" else member.strength
    ship.steer_ok = check(dice, ship, member, f"steer in rough weather (Water Vehicles, {rules.steer_ability})",
                          water_vehicles(member, ability), rules.steer_dc, sinking, events)


def man_weapon(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, member: CrewMember,
               action: CrewAction, sinking: bool, events: list[Event]) -> None:
    """Operate: the weapon gives the ship one attack on its turn. Ready: the attack waits for its trigger.

    One crew member per weapon: one sent to a weapon already manned takes the next free weapon
    that can fire (working, with ammunition, not holding a grappled ship); with none left the
    action is wasted.
    """
    chosen = action.index or 0
    weapons = ship.weapons
    count = len(weapons)
    for k in range(count):
        weapon = weapons[(chosen + k) % count]
        if (weapon.operator is None and weapon.readied_by is None and weapon.hp > 0 and weapon.ammo > 0
                and weapon.holding is None):
            break
    else:
        events.append(CrewActionWasted(ship.id, member.index, action.label, "every weapon is manned"))
        return
    kind = action.kind
    if kind is _READY:
        weapon.readied_by = member.index
    else:
        weapon.operator = member.index
    events.append(StationManned(ship.id, member.index, f"{_KIND_VALUE[kind]} weapon {weapon.index}"))


def heal(dice: Dice, rules: HouseRules, ship: Ship, member: CrewMember, events: list[Event]) -> None:
    """Spend a healing use on the first incapacitated crewmate: back on their feet with the healing roll."""
    patient = next((c for c in ship.crew if c.hp <= 0), None)
    if patient is None or member.heals_left <= 0:
        events.append(CrewActionWasted(ship.id, member.index, "heal", "nobody to heal"))
        return
    member.heals_left -= 1
    amount = max(1, roll_damage(dice, parse_dice(rules.heal_dice), False, f"{ship.id} crew {member.index}: heal"))
    patient.hp = min(patient.max_hp, amount)
    events.append(CrewHealed(ship.id, member.index, patient.index, patient.hp))


# Read by the codec once per value (see ``CrewCodec.handlers``).
_HANDLERS: dict[CrewKind, CrewHandler] = {
    CrewKind.NONE: _nothing, CrewKind.NAVIGATE: navigate, CrewKind.STEER: _steer,
    CrewKind.OPERATE: man_weapon, CrewKind.READY: man_weapon, CrewKind.COMMAND: _command,
    CrewKind.REPAIR_HULL: _repair_hull, CrewKind.REPAIR_PART: _repair_part, CrewKind.HEAL: _heal,
    CrewKind.CUT: _cut_lines,
}
