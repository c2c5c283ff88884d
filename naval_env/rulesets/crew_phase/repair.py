"""Repair: the immediate Repair action in combat, and long-term repair in a dock.

A ship is an object: healing magic does nothing for it. Hull points come back
only by spending hull dice in combat or by days of work in a dock.
"""

from __future__ import annotations

from dataclasses import dataclass

from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.rulesets.crew_phase.checks import check
from naval_env.rulesets.crew_phase.config import HouseRules
from naval_env.rulesets.crew_phase.events import CrewActionWasted, Repaired
from naval_env.rulesets.crew_phase.hull import restore_hull
from naval_env.rulesets.crew_phase.state import CrewMember, GameState, Ship


def _repair_check(dice: Dice, rules: HouseRules, ship: Ship, member: CrewMember, events: list[Event]) -> bool:
    """Strength or Intelligence DC 10, the player's choice: the better of the two. Not a crew action,
    so a sinking ship's crew rolls it normally."""
    modifier = max(member.strength, member.intelligence)
    return check(dice, ship, member, "repair (Strength or Intelligence)", modifier, rules.repair_dc, False, events)


def repair_hull(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, member: CrewMember,
                events: list[Event]) -> None:
    """On a success spend one hull die and add its roll to the hull points (immediately)."""
    if ship.hull_dice_left <= 0:
        events.append(CrewActionWasted(ship.id, member.index, "repair_hull", "no hull dice left"))
        return
    if ship.hp >= ship.max_hp:
        events.append(CrewActionWasted(ship.id, member.index, "repair_hull", "the hull is whole"))
        return
    if not _repair_check(dice, rules, ship, member, events):
        return
    ship.hull_dice_left -= 1
    roll = dice.d(ship.hull_die, f"{ship.id} hull die")
    amount = restore_hull(state, ship, roll, events)
    events.append(Repaired(ship.id, member.index, "hull", roll, amount))


def repair_part(dice: Dice, rules: HouseRules, ship: Ship, member: CrewMember, weapon_index: int,
                events: list[Event]) -> None:
    """On a success spend one hull die and add its roll to a weapon's own hit points."""
    weapon = ship.weapons[weapon_index]
    label = f"repair@w{weapon_index}"
    if ship.hull_dice_left <= 0:
        events.append(CrewActionWasted(ship.id, member.index, label, "no hull dice left"))
        return
    if weapon.hp >= weapon.max_hp:
        events.append(CrewActionWasted(ship.id, member.index, label, "the weapon is whole"))
        return
    if not _repair_check(dice, rules, ship, member, events):
        return
    ship.hull_dice_left -= 1
    roll = dice.d(ship.hull_die, f"{ship.id} hull die")
    amount = min(roll, weapon.max_hp - weapon.hp)
    weapon.hp += amount
    events.append(Repaired(ship.id, member.index, f"weapon {weapon_index}", roll, amount))


@dataclass(frozen=True, slots=True)
class DockRepair:
    """The outcome of long-term repair: the ship afterwards, the work done and its price."""

    hull_points: int
    hull_dice_left: int
    worker_days: int
    days: int
    gold: int


def dock_repair(rules: HouseRules, *, max_hp: int, hp: int, hull_die: int, hull_dice_max: int,
                hull_dice_left: int, skilled_workers: int = 0, free_workers: int = 0,
                days: int | None = None) -> DockRepair:
    """Long-term repair of a docked ship.

    Each day each worker (8 hours) restores hull points equal to the maximum of one hull
    die, or, once the hull is whole, recovers one spent hull die. A hired skilled worker
    costs ``skilled_worker_gold_per_day``; free labour (crew already on the payroll) costs
    ``free_labour_gold_per_day`` of materials. Work stops when the ship is whole or after
    ``days`` days (None: until whole); an idle worker is not paid.
    """
    if skilled_workers < 0 or free_workers < 0 or (skilled_workers + free_workers) == 0:
        raise ValueError("dock repair needs at least one worker (and no negative counts)")
    if days is not None and days < 0:
        raise ValueError(f"days must be >= 0, got {days}")
    worker_days = gold = day = 0
    workers = [rules.skilled_worker_gold_per_day] * skilled_workers + [rules.free_labour_gold_per_day] * free_workers
    while (days is None or day < days) and (hp < max_hp or hull_dice_left < hull_dice_max):
        day += 1
        for wage in workers:
            if hp < max_hp:
                hp = min(max_hp, hp + hull_die)
            elif hull_dice_left < hull_dice_max:
                hull_dice_left += 1
            else:
                break
            worker_days += 1
            gold += wage
    return DockRepair(hp, hull_dice_left, worker_days, day, gold)
