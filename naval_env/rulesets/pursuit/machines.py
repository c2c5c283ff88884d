"""War machines: the load, aim and fire actions of their crews, and what a shot does.

Each round a machine gets one order and its gunners spend their actions on it
(one action each): ``load`` (progress toward the load number), ``repair`` (a
misfired machine: twice the load number), ``aim@enemyK`` (progress toward the aim
number; when done, the target's space is the aim point), ``fire`` (one action, at
the aim point, or at the last shot's space without one) and ``fire@enemyK`` (aim
and fire in the same round: needs aim + 1 gunners). Actions left after firing go
to loading again.

Direct fire flies from the ship through the aim point out to the machine's
range and strikes the first hull on its line that fails to dodge (an Agility
challenge of the ship with the machine's banes); leftover damage of a hull it
destroys flies on. Indirect fire needs a gunner's Intellect challenge (a bane if
the machine is damaged); a failure scatters 1d6 yards in a random direction, and
the roll's die may misfire. The swivel gun's cone strikes every hull in it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from naval_env.core.events import Event
from naval_env.rulesets.pursuit.config import MachineClass
from naval_env.rulesets.pursuit.events import Fired, MachineOrdered, Misfired, roll_event
from naval_env.rulesets.pursuit.geometry import direction, entry_along, in_cone, unit
from naval_env.rulesets.pursuit.hull import (
    add_damage,
    check_hull,
    crew_hit,
    damage_machine,
    exposed_crew,
    roll_damage,
    strike,
)
from naval_env.rulesets.pursuit.rolls import challenge_roll
from naval_env.rulesets.pursuit.state import AFLOAT, Machine, Ship
from naval_env.rulesets.pursuit.table import Table

CONE_HALF_ANGLE_COS = math.cos(math.atan(0.5))  # a cone as wide at its end as it is long


class OrderKind(str, Enum):
    IDLE = "idle"
    LOAD = "load"
    REPAIR = "repair"
    FIRE = "fire"
    AIM = "aim"
    SHOOT = "fire@"   # aim and fire at a ship in one round


# OrderKind: members as module constants for the hot paths (see ``state.py``: an Enum member lookup on its
# class is slow in Python 3.11).
IDLE, LOAD, REPAIR = OrderKind.IDLE, OrderKind.LOAD, OrderKind.REPAIR
FIRE, AIM, SHOOT = OrderKind.FIRE, OrderKind.AIM, OrderKind.SHOOT


@dataclass(frozen=True, slots=True)
class MachineOrder:
    kind: OrderKind
    target_slot: int | None = None

    @property
    def label(self) -> str:
        if self.target_slot is None:
            return self.kind.value
        name = "fire" if self.kind is SHOOT else self.kind.value
        return f"{name}@enemy{self.target_slot}"


def machine_orders(max_enemies: int) -> tuple[MachineOrder, ...]:
    return (
        MachineOrder(IDLE), MachineOrder(LOAD), MachineOrder(REPAIR),
        MachineOrder(FIRE),
        *(MachineOrder(AIM, k) for k in range(max_enemies)),
        *(MachineOrder(SHOOT, k) for k in range(max_enemies)),
    )


def max_range(cls: MachineClass, machine: Machine) -> int:
    """A round stone halves the range."""
    return cls.range // 2 if machine.stone else cls.range


def usable(machine: Machine, ship: Ship) -> bool:
    return not machine.destroyed and machine.gunners > 0 and ship.status is AFLOAT


#: Which distance a machine's range is measured on (:attr:`Reach.gauge`, an index into :func:`gauges`).
CENTRES, TO_HULL, BETWEEN_HULLS = range(3)
_GAUGES = {"indirect": CENTRES, "direct": TO_HULL, "cone": BETWEEN_HULLS}


@dataclass(frozen=True, slots=True)
class Reach:
    """Where a war machine can shoot; fixed for a game (its class and ammunition). Direct fire: some of the
    hull within range. Indirect: the centre between minimum and maximum range. Cone: the hull within the
    cone's length of the ship's side."""

    near: float  # minimum centre distance (indirect fire; else -inf)
    far: int     # maximum range
    gauge: int   # the distance ``far`` is measured on: CENTRES, TO_HULL or BETWEEN_HULLS


def reach_of(cls: MachineClass, machine: Machine) -> Reach:
    return Reach(cls.min_range if cls.fire == "indirect" else -math.inf, max_range(cls, machine), _GAUGES[cls.fire])


def gauges(d: float, ship: Ship, target: Ship) -> tuple[float, float, float]:
    """The distances a machine's reach is measured on, ``d`` the distance between the centres."""
    to_hull = d - target.radius
    return d, to_hull, to_hull - ship.radius


def within(reach: Reach, distances: tuple[float, float, float]) -> bool:
    """Whether a target at ``distances`` (its :func:`gauges`) is within ``reach``."""
    return reach.near <= distances[CENTRES] and distances[reach.gauge] <= reach.far


def point_in_range(cls: MachineClass, machine: Machine, ship: Ship, point: tuple[float, float]) -> bool:
    d = math.hypot(point[0] - ship.x, point[1] - ship.y)
    if d == 0.0:
        return False
    if cls.fire == "indirect":
        return cls.min_range <= d <= max_range(cls, machine)
    return True


def aims_and_fires(cls: MachineClass, machine: Machine) -> bool:
    """Whether its gunners are enough to aim and fire in one round (``fire@``, when loaded and not misfired)."""
    return machine.gunners >= cls.aim + 1


def give_order(t: Table, ship: Ship, index: int, order: MachineOrder, target: Ship | None,
               events: list[Event]) -> None:
    """Spend the gunners' actions of one machine on ``order`` (already checked legal by the mask)."""
    machine = ship.machines[index]
    cls = t.machine_classes[machine.kind]
    actions = machine.gunners
    kind = order.kind
    if kind is IDLE or not usable(machine, ship):
        return
    if kind is LOAD:
        _load(cls, machine, actions)
        events.append(MachineOrdered(ship.id, index, "load", None, _progress(cls, machine)))
    elif kind is REPAIR:
        machine.repair_progress += actions
        if machine.repair_progress >= 2 * cls.load:
            machine.misfired = False
            machine.repair_progress = 0
        events.append(MachineOrdered(ship.id, index, "repair",
                                     None, "repaired" if not machine.misfired else
                                     f"repair {machine.repair_progress}/{2 * cls.load}"))
    elif kind is FIRE:
        point = machine.point
        assert point is not None
        events.append(MachineOrdered(ship.id, index, "fire", None, "fires"))
        fire(t, ship, index, point, actions - 1, events)
    else:
        assert target is not None
        if target.status is not AFLOAT:
            events.append(MachineOrdered(ship.id, index, order.label, target.id, "target gone: holds"))
            return
        if kind is AIM:
            if machine.aim_target != target.id or machine.aim_point is not None:
                machine.aim_target, machine.aim_progress, machine.aim_point = target.id, 0, None
            machine.aim_progress += actions
            if machine.aim_progress >= cls.aim:
                machine.aim_point = (target.x, target.y)
            events.append(MachineOrdered(ship.id, index, "aim", target.id, _progress(cls, machine)))
        else:
            machine.aim_point = (target.x, target.y)
            events.append(MachineOrdered(ship.id, index, "aim and fire", target.id, "fires"))
            fire(t, ship, index, machine.aim_point, actions - cls.aim - 1, events)


def _load(cls: MachineClass, machine: Machine, actions: int) -> None:
    progress = machine.load_progress + actions
    machine.load_progress = progress if progress < cls.load else cls.load  # noqa: FURB136 - hot path: a comparison is cheaper than a call
    if machine.load_progress >= cls.load:
        machine.loaded = True
        machine.load_progress = 0


def _progress(cls: MachineClass, machine: Machine) -> str:
    load = "loaded" if machine.loaded else f"load {machine.load_progress}/{cls.load}"
    aim = "aimed" if machine.aim_point is not None else (
        f"aim {machine.aim_progress}/{cls.aim}" if machine.aim_target is not None else "not aimed")
    return f"{load}, {aim}"


def fire(t: Table, ship: Ship, index: int, point: tuple[float, float], spare_actions: int,
         events: list[Event]) -> None:
    """Loose the machine at ``point``; spare gunner actions start loading again."""
    machine = ship.machines[index]
    cls = t.machine_classes[machine.kind]
    t.state.shots += 1
    landing = point
    if cls.fire == "indirect":
        roll = challenge_roll(t.dice, machine.gunner_intellect, -1 if machine.damaged else 0,
                              f"{ship.id} machine {index}: indirect fire")
        events.append(roll_event(ship.id, "indirect fire", roll))
        if roll.die in cls.misfire_faces:
            _misfire(t, ship, index, events)
            return
        if not roll.succeeded:
            off = t.dice.d(6, f"{ship.id} machine {index}: scatter yards")
            way = t.dice.d(t.rules.scatter_directions, f"{ship.id} machine {index}: scatter direction")
            ux, uy = unit((way - 1) * 360.0 / t.rules.scatter_directions)
            landing = (point[0] + off * ux, point[1] + off * uy)
    machine.loaded = False
    machine.load_progress = 0
    machine.last_point = point
    machine.aim_point = None
    machine.aim_target = None
    machine.aim_progress = 0
    if cls.fire == "direct":
        _direct(t, ship, index, cls, point, events)
    elif cls.fire == "cone":
        _cone(t, ship, index, cls, point, events)
    else:
        _indirect(t, ship, index, cls, point, landing, events)
    if spare_actions > 0:
        _load(cls, machine, spare_actions)


def _misfire(t: Table, ship: Ship, index: int, events: list[Event]) -> None:
    """Roll a d6: even, it needs repair (twice the load time) and keeps its load; odd, it explodes."""
    machine = ship.machines[index]
    d6 = t.dice.d(6, f"{ship.id} machine {index}: misfire")
    exploded = d6 % 2 == 1
    events.append(Misfired(ship.id, index, d6, exploded))
    if exploded:
        explode(t, ship, index, events)
    else:
        machine.misfired = True
        machine.repair_progress = 0


def _indirect(t: Table, ship: Ship, index: int, cls: MachineClass, point: tuple[float, float],
              landing: tuple[float, float], events: list[Event]) -> None:
    """Everything in the cube takes the damage, within ``splash`` yards of it half; an Agility success halves
    it (with a boon when the firing machine is damaged)."""
    machine = ship.machines[index]
    x, y = landing
    full_reach = cls.area / 2
    hit: list[tuple[Ship, bool]] = []
    for other in t.state.ships.values():
        if other.status is not AFLOAT:
            continue
        d = math.hypot(other.x - x, other.y - y)
        if d <= other.radius + full_reach:
            hit.append((other, False))
        elif d <= other.radius + full_reach + cls.splash:
            hit.append((other, True))
    events.append(Fired(ship.id, index, machine.kind, point, landing, tuple(o.id for o, _ in hit)))
    if not hit:
        return
    amount = _damage_roll(t, ship, index, cls, machine)
    for other, splash in hit:
        dealt = amount // 2 if splash else amount
        roll = challenge_roll(t.dice, other.agility, 1 if machine.damaged else 0, f"{other.id} dodges")
        events.append(roll_event(other.id, "dodge", roll))
        if roll.succeeded:
            dealt //= 2
        strike(t, other, dealt, ship.id, machine.kind, events)


def _damage_roll(t: Table, ship: Ship, index: int, cls: MachineClass, machine: Machine) -> int:
    amount = roll_damage(t, cls.damage_dice, f"{ship.id} machine {index}: damage")
    return amount // 2 if machine.stone else amount


def _direct(t: Table, ship: Ship, index: int, cls: MachineClass, point: tuple[float, float],
            events: list[Event]) -> None:
    """The projectile flies from the ship through the point to its range; each hull on the line may dodge."""
    machine = ship.machines[index]
    ux, uy, _ = direction(ship.x, ship.y, point[0], point[1])
    reach = max_range(cls, machine)
    half = cls.area / 2
    on_line: list[tuple[float, str]] = []
    for other in t.state.ships.values():
        if other is ship or other.status is not AFLOAT:
            continue
        entry = entry_along(ship.x, ship.y, ux, uy, other.x, other.y, other.radius + half)
        if entry is not None and entry <= reach:
            on_line.append((entry, other.id))
    on_line.sort()
    events.append(Fired(ship.id, index, machine.kind, point, point, tuple(o for _, o in on_line)))
    amount: int | None = None
    for _, other_id in on_line:
        other = t.state.ships[other_id]
        roll = challenge_roll(t.dice, other.agility, -cls.dodge_banes, f"{other.id} dodges")
        events.append(roll_event(other.id, "dodge", roll))
        if roll.succeeded:
            continue
        if amount is None:
            amount = _damage_roll(t, ship, index, cls, machine)
        left_before = other.remaining
        strike(t, other, amount, ship.id, machine.kind, events)
        if other.status is AFLOAT or amount <= left_before:
            break
        amount -= left_before  # it destroyed the hull: the leftover flies on


def _cone(t: Table, ship: Ship, index: int, cls: MachineClass, point: tuple[float, float],
          events: list[Event]) -> None:
    """Everything in the cone: an Agility challenge halves the damage, a total of 20 or more avoids it."""
    machine = ship.machines[index]
    ux, uy, _ = direction(ship.x, ship.y, point[0], point[1])
    length = max_range(cls, machine) + ship.radius
    caught = [other for other in t.state.ships.values()
              if other is not ship and other.status is AFLOAT
              and in_cone(ship.x, ship.y, ux, uy, other.x, other.y, other.radius, length, CONE_HALF_ANGLE_COS)]
    events.append(Fired(ship.id, index, machine.kind, point, point, tuple(o.id for o in caught)))
    if not caught:
        return
    amount = _damage_roll(t, ship, index, cls, machine)
    for other in caught:
        roll = challenge_roll(t.dice, other.agility, 0, f"{other.id} dodges")
        events.append(roll_event(other.id, "dodge", roll))
        if roll.total >= 20:
            continue
        strike(t, other, amount // 2 if roll.succeeded else amount, ship.id, machine.kind, events)


def explode(t: Table, ship: Ship, index: int, events: list[Event]) -> None:
    """The machine takes damage equal to its Health and deals that to everything within 5 yards of it:
    its own ship, the machines on the neighbouring spots, the crew near it (an Agility success halves it)
    and any hull within 5 yards of this one."""
    machine = ship.machines[index]
    amount = machine.health
    damage_machine(ship, index, amount, events)
    add_damage(ship, amount, None, "explosion", events)
    for j, neighbour in enumerate(ship.machines):
        if j != index and abs(neighbour.spot - machine.spot) == 1:
            damage_machine(ship, j, amount, events)
    crew_hit(t, ship, exposed_crew(t, ship), amount, amount // 2, "explosion", events)
    near = [other for other in t.state.ships.values()
            if other is not ship and other.status is AFLOAT
            and math.hypot(other.x - ship.x, other.y - ship.y) - other.radius - ship.radius
            <= t.rules.explosion_radius]
    for other in near:
        add_damage(other, amount, ship.id, "explosion", events)
        crew_hit(t, other, exposed_crew(t, other), amount, amount // 2, "explosion", events)
    check_hull(t, ship, events)
    for other in near:
        check_hull(t, other, events)
