"""d20 rolls with advantage and disadvantage, ability checks and damage dice (5e conventions)."""

from __future__ import annotations

from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.rulesets.crew_phase.events import CheckRolled
from naval_env.rulesets.crew_phase.state import CrewMember, Ship


def d20(dice: Dice, advantage: bool, disadvantage: bool, reason: str) -> tuple[int, tuple[int, ...]]:
    """The kept d20 and every die rolled. Advantage and disadvantage together cancel out (one die)."""
    if advantage == disadvantage:
        face = dice.d(20, reason)
        return face, (face,)
    rolls = dice.roll(20, 2, reason)
    return (max(rolls) if advantage else min(rolls)), rolls


def check(dice: Dice, ship: Ship, member: CrewMember, name: str, modifier: int, dc: int,
          disadvantage: bool, events: list[Event]) -> bool:
    """A crew member's check or save: d20 + modifier >= dc."""
    kept, rolls = d20(dice, False, disadvantage, f"{ship.id} crew {member.index}: {name}")
    total = kept + modifier
    success = total >= dc
    events.append(CheckRolled(ship.id, member.index, name, rolls, modifier, total, dc, success))
    return success


def water_vehicles(member: CrewMember, ability: int) -> int:
    """An ability check with Water Vehicles: the ability modifier plus proficiency when proficient."""
    return ability + (member.proficiency if member.water_vehicles else 0)


def roll_damage(dice: Dice, expr: tuple[int, int, int], critical: bool, reason: str) -> int:
    """Damage dice plus the flat bonus; a critical hit rolls the dice twice. Never below 0."""
    count, sides, bonus = expr
    faces = dice.roll(sides, count * (2 if critical else 1), reason)
    return max(0, sum(faces) + bonus)
