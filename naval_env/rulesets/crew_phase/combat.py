"""Attacks in the Ship Phase: weapons (at a ship, a creature aboard or a part) and the ram."""

from __future__ import annotations

from enum import Enum

from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.rulesets.crew_phase.arcs import distance
from naval_env.rulesets.crew_phase.checks import check, d20, roll_damage
from naval_env.rulesets.crew_phase.config import HouseRules
from naval_env.rulesets.crew_phase.events import (
    AttackRolled,
    CrewWounded,
    KnockedProne,
    PartDamaged,
    RamRolled,
)
from naval_env.rulesets.crew_phase.grapple import end_grapple_of_weapon, start_grapple
from naval_env.rulesets.crew_phase.hull import damage_hull
from naval_env.rulesets.crew_phase.state import CrewMember, GameState, Ship, Status, WeaponState


class TargetKind(str, Enum):
    NONE = "none"
    SHIP = "ship"     # the hull
    CREW = "crew"     # a creature aboard
    PART = "part"     # a weapon with its own hit points


def _hits(kept: int, total: int, ac: int, natural: bool) -> tuple[bool, bool]:
    """(hit, critical) of an attack roll; with 5e natural rolls a 1 misses and a 20 hits critically."""
    if natural and kept == 1:
        return False, False
    if natural and kept == 20:
        return True, True
    return total >= ac, False


def weapon_attack(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, weapon: WeaponState,
                  operator: CrewMember, target_ship: Ship, kind: TargetKind, index: int | None, readied: bool,
                  events: list[Event]) -> None:
    """One attack of an operated (or readied) weapon, rolled with its operator's modifiers.

    Advantage against a sinking ship; disadvantage at long range, for a prone operator,
    for the crew of a sinking ship, and against a prone creature (ship weapons fire from
    more than 5 ft). Creatures aboard a ship with rails have half cover.
    """
    weapon.ammo -= 1
    feet = distance(ship.x, ship.y, target_ship.x, target_ship.y) * rules.square_feet
    ability = operator.dexterity if weapon.ability == "dexterity" else operator.strength
    modifier = ability + (operator.proficiency if operator.siege_weapons else 0) + weapon.attack_bonus
    advantage = kind is TargetKind.SHIP and target_ship.status is Status.SINKING
    disadvantage = feet > weapon.range_ft or operator.prone or ship.status is Status.SINKING
    if kind is TargetKind.SHIP:
        ac, label = target_ship.ac, "hull"
    elif kind is TargetKind.CREW:
        member = target_ship.crew[index or 0]
        ac, label = member.ac + (rules.rails_cover_bonus if target_ship.rails else 0), f"crew {member.index}"
        disadvantage = disadvantage or (member.prone and feet > 5)
    else:
        part = target_ship.weapons[index or 0]
        ac, label = part.ac, f"weapon {part.index}"
    kept, rolls = d20(dice, advantage, disadvantage, f"{ship.id} weapon {weapon.index}: attack")
    total = kept + modifier
    hit, critical = _hits(kept, total, ac, rules.critical_hits)
    events.append(AttackRolled(ship.id, weapon.index, operator.index, target_ship.id, label, rolls, modifier,
                               total, ac, hit, critical, readied))
    if not hit:
        return
    amount = roll_damage(dice, weapon.dice, critical, f"{ship.id} weapon {weapon.index}: damage")
    if kind is TargetKind.SHIP:
        damage_hull(state, target_ship, amount, ship.id, weapon.name, events)
        if weapon.grapples and target_ship.status is not Status.SUNK and weapon.holding is None:
            start_grapple(state, ship, target_ship, weapon.index, events)
    elif kind is TargetKind.CREW:
        wound_crew(target_ship, target_ship.crew[index or 0], amount, events)
    else:
        damage_part(state, target_ship, target_ship.weapons[index or 0], amount, events)


def wound_crew(ship: Ship, member: CrewMember, amount: int, events: list[Event]) -> None:
    """Hit points down to 0; at 0 the crew member is incapacitated (no more crew actions)."""
    member.hp = max(0, member.hp - amount)
    events.append(CrewWounded(ship.id, member.index, amount, member.hp))


def damage_part(state: GameState, ship: Ship, weapon: WeaponState, amount: int, events: list[Event]) -> None:
    """A part's own hit points, down to 0 (destroyed: no more use until repaired; its grapple ends)."""
    weapon.hp = max(0, weapon.hp - amount)
    events.append(PartDamaged(ship.id, weapon.index, amount, weapon.hp))
    if weapon.hp == 0 and weapon.holding is not None:
        end_grapple_of_weapon(state, ship, weapon.index, "grappling weapon destroyed", events)


def ram(dice: Dice, rules: HouseRules, state: GameState, rammer: Ship, target: Ship, events: list[Event]) -> bool:
    """The ram, as written: attack +5 (+ the helmsman's Water Vehicles proficiency) against the target's AC.

    Hit: the target takes the rammer's maximum hull points and the rammer half the
    target's maximum. Miss: the reverse (the rammer takes the target's maximum, the
    target half the rammer's). A ship that took more than half its own maximum in
    the ram has every creature aboard save (Dexterity DC 15) or fall prone. Then both
    ships are grappled together until one of them is destroyed.
    """
    helm = rammer.crew[rammer.helmsman] if rammer.helmsman is not None else None
    modifier = rules.ram_attack_bonus + (helm.proficiency if helm is not None and helm.water_vehicles else 0)
    kept, rolls = d20(dice, target.status is Status.SINKING, False, f"{rammer.id}: ram")
    total = kept + modifier
    hit, _ = _hits(kept, total, target.ac, rules.critical_hits)
    events.append(RamRolled(rammer.id, target.id, rolls, modifier, total, target.ac, hit))
    rammer.rammed = True
    if hit:
        to_target, to_rammer = rammer.max_hp, target.max_hp // 2
    else:
        to_target, to_rammer = rammer.max_hp // 2, target.max_hp
    damage_hull(state, target, to_target, rammer.id, "ram", events)
    damage_hull(state, rammer, to_rammer, target.id, "ram recoil", events)
    for ship, amount in ((target, to_target), (rammer, to_rammer)):
        if 2 * amount > ship.max_hp and ship.status is not Status.SUNK:
            for member in ship.crew:
                if member.hp > 0 and not member.prone and not check(dice, ship, member, "Dexterity save (ram)", member.dex_save,
                                               rules.ram_save_dc, False, events):
                    member.prone = True
                    events.append(KnockedProne(ship.id, member.index))
    if rammer.status is not Status.SUNK and target.status is not Status.SUNK:
        start_grapple(state, rammer, target, None, events)
    return hit
