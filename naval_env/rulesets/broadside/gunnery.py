"""Cannon and archers.

- Cannon: each battery fires once a turn at one target in its arc (broadsides: between the
  perpendiculars from bow and stern; a turret: everywhere but over the bow). One d20 per
  cannon must reach the range in inches from the battery to the target's centre. Each hit
  deals d6 open-ended, 2d6 open-ended when the shot rakes the target from bow or stern; every
  6 rolled for damage rolls 2d6 on the collateral damage chart.
- Archers: once a turn, during the ship's move or in the melee phase. One d20 per archer
  must reach the centre-to-centre distance + 6; each success is a casualty the defender
  picks. Never into a melee.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from naval_env.core.events import Event
from naval_env.rulesets.broadside.events import CollateralDamage, Volley
from naval_env.rulesets.broadside.geometry import (
    EPS,
    Battery,
    battery_position,
    distance,
    in_arc,
    rakes,
    round6,
)
from naval_env.rulesets.broadside.hull import casualties, damage, kill, open_ended, sweep_oars
from naval_env.rulesets.broadside.state import Ship, Status

if TYPE_CHECKING:
    from naval_env.rulesets.broadside.engine import BroadsideGame

BATTERIES = (Battery.PORT, Battery.STARBOARD, Battery.TURRET)
_AFLOAT = Status.AFLOAT     # a module global: Status.AFLOAT costs a class-attribute lookup per use


def battery_range(shooter: Ship, battery: Battery, target: Ship) -> float:
    """Inches from the battery to the target's centre."""
    fx, fy = battery_position(shooter.shape, battery)
    return distance(fx, fy, target.shape.x, target.shape.y)


def can_fire(game: BroadsideGame, shooter: Ship, battery: Battery, target: Ship) -> bool:
    """Guns on that battery, an enemy afloat in its arc, and a range a d20 can still reach."""
    if not shooter.guns[battery.value] or target.status is not _AFLOAT or target.side == shooter.side:
        return False
    rules = game.rules
    if not in_arc(shooter.shape, target.shape.x, target.shape.y, battery, rules.turret_dead_zone):
        return False
    return battery_range(shooter, battery, target) <= rules.cannon_die + EPS


def fire_battery(game: BroadsideGame, shooter: Ship, battery: Battery, target: Ship, events: list[Event]) -> None:
    state, rules, dice = game.state, game.rules, game.dice
    guns = shooter.guns[battery.value]
    fx, fy = battery_position(shooter.shape, battery)
    needed = distance(fx, fy, target.shape.x, target.shape.y)
    rolls = dice.roll(rules.cannon_die, guns, f"{shooter.id} {battery.value} battery to hit")
    hits = sum(1 for roll in rolls if roll >= needed - EPS)
    rake = rakes(target.shape, fx, fy)
    events.append(Volley(shooter.id, battery.value, target.id, round6(needed), round6(needed), rolls, hits, rake))
    for _ in range(hits):
        if not target.status.fighting:
            return
        amount, sixes = open_ended(dice, rules.rake_dice if rake else 1, rules.cannon_damage_die, "cannon damage")
        damage(state, target, amount, shooter.id, "raking cannon" if rake else "cannon", events)
        for _ in range(sixes):
            if not target.status.fighting:
                return
            collateral(game, shooter, target, events)


def collateral(game: BroadsideGame, shooter: Ship, target: Ship, events: list[Event]) -> None:
    """Roll 2d6 on the collateral damage chart and apply the entry to the target."""
    dice = game.dice
    roll = sum(dice.roll(6, 2, "collateral damage chart"))
    entry = game.config.collateral_chart[roll]
    amount = entry.amount.count if entry.amount.sides == 0 else sum(
        dice.roll(entry.amount.sides, entry.amount.count, f"collateral {entry.effect}"))
    events.append(CollateralDamage(target.id, roll, entry.effect, amount))
    if entry.effect == "hull":
        damage(game.state, target, amount, shooter.id, "collateral damage", events)
    elif entry.effect == "cannon":
        battery = gun_nearest(target, shooter)
        if battery is not None:
            target.guns[battery.value] -= min(amount, target.guns[battery.value])
    elif entry.effect == "oars":
        for _ in range(amount):
            sweep_oars(target, game.vessel(target).oars, events)
    elif entry.effect != "none":
        kill(target, entry.effect, amount, "collateral damage", events)


def gun_nearest(target: Ship, shooter: Ship) -> Battery | None:
    """The battery a shot knocks guns off: the turret if any, else the broadside facing the shooter."""
    if target.guns[Battery.TURRET.value]:
        return Battery.TURRET
    _, across = target.shape.to_local(shooter.shape.x, shooter.shape.y)
    side = Battery.STARBOARD if across > 0 else Battery.PORT
    return side if target.guns[side.value] else None


def can_shoot_arrows(game: BroadsideGame, shooter: Ship, target: Ship) -> bool:
    """Archers left, not fired this turn, an enemy afloat with no melee on its deck, within reach of a d20."""
    if shooter.archers_fired or shooter.people.archers == 0:
        return False
    if target.status is not _AFLOAT or target.side == shooter.side or target.in_melee:
        return False
    rules = game.rules
    reach = distance(shooter.shape.x, shooter.shape.y, target.shape.x, target.shape.y) + rules.archer_bonus
    return reach <= rules.archer_die + EPS


def shoot_arrows(game: BroadsideGame, shooter: Ship, target: Ship, events: list[Event]) -> None:
    rules, dice = game.rules, game.dice
    shooter.archers_fired = True
    between = distance(shooter.shape.x, shooter.shape.y, target.shape.x, target.shape.y)
    needed = between + rules.archer_bonus
    rolls = dice.roll(rules.archer_die, shooter.people.archers, f"{shooter.id} archers")
    hits = sum(1 for roll in rolls if roll >= needed - EPS)
    events.append(Volley(shooter.id, "archers", target.id, round6(between), round6(needed), rolls, hits, False))
    casualties(target, hits, game.rules.casualty_order, "archers", events)
