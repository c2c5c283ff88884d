"""Flee, pursue and ram: the captain's Intellect attack roll, the distance moved, mishaps and crashes.

A maneuver is made relative to one other ship. Flee heads straight away from it
and pursue straight toward it, or bears ``veer_degrees`` to port or starboard of
that line (to sail across a contrary wind or round a shoal); ram heads straight
at it. The ship moves along that heading; a pursuer stops alongside its quarry,
and any ship stops where it runs aground.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

from naval_env.core.events import Event
from naval_env.rulesets.pursuit.events import Crashed, Maneuvered, MishapSuffered, roll_event
from naval_env.rulesets.pursuit.geometry import direction, entry_along, rotate
from naval_env.rulesets.pursuit.hull import (
    add_damage,
    check_hull,
    crew_hit,
    roll_damage,
    run_aground,
    strike,
)
from naval_env.rulesets.pursuit.propulsion import speed_along
from naval_env.rulesets.pursuit.rolls import (
    FAILURE,
    SUCCESS,
    TWENTY_PLUS,
    ZERO_OR_LESS,
    Band,
    attack_roll,
)
from naval_env.rulesets.pursuit.state import AFLOAT, Ship
from naval_env.rulesets.pursuit.table import Table


class ManeuverKind(str, Enum):
    HOLD = "hold"
    FLEE = "flee"
    PURSUE = "pursue"
    RAM = "ram"


# ManeuverKind: members as module constants for the hot paths (see ``state.py``: an Enum member lookup on
# its class is slow in Python 3.11).
HOLD, FLEE, PURSUE, RAM = ManeuverKind.HOLD, ManeuverKind.FLEE, ManeuverKind.PURSUE, ManeuverKind.RAM
VEER_NAMES = {0: "", 1: "_port", -1: "_starboard"}


@dataclass(frozen=True, slots=True)
class ManeuverChoice:
    kind: ManeuverKind
    veer: int = 0                   # +1 port, -1 starboard, 0 straight
    target_slot: int | None = None  # index among the enemy ships, in side order

    @property
    def label(self) -> str:
        if self.kind is HOLD:
            return "hold"
        return f"{self.kind.value}{VEER_NAMES[self.veer]}@enemy{self.target_slot}"


def maneuver_choices(max_enemies: int) -> tuple[ManeuverChoice, ...]:
    choices = [ManeuverChoice(HOLD)]
    for slot in range(max_enemies):
        for kind in (FLEE, PURSUE):
            choices += [ManeuverChoice(kind, veer, slot) for veer in (0, 1, -1)]
        choices.append(ManeuverChoice(RAM, 0, slot))
    return tuple(choices)


def heading(t: Table, ship: Ship, target: Ship, kind: ManeuverKind, veer: int) -> tuple[float, float]:
    """Unit heading of a maneuver: away from (flee) or toward (pursue, ram) the target, veered to port (+1)
    or starboard (-1)."""
    ux, uy, _ = direction(ship.x, ship.y, target.x, target.y)
    if kind is FLEE:
        ux, uy = -ux, -uy
    if veer:
        ux, uy = rotate(ux, uy, veer * t.rules.veer_degrees)
    return ux, uy


def gap(a: Ship, b: Ship) -> float:
    """Open water between two hulls (0 when alongside)."""
    water = math.hypot(a.x - b.x, a.y - b.y) - a.radius - b.radius
    return water if water > 0.0 else 0.0  # noqa: FURB136 - hot path: a comparison is cheaper than a call


def ram_speed(t: Table, ship: Ship, target: Ship) -> int:
    ux, uy = heading(t, ship, target, RAM, 0)
    return speed_along(t, ship, ux, uy, ship.drive)


def can_ram(t: Table, ship: Ship, target: Ship) -> bool:
    """Only when the ship could move into the other ship's space this turn: the gap within its Speed."""
    speed = ram_speed(t, ship, target)
    return speed > 0 and gap(ship, target) <= speed


def distance_moved(band: Band, speed: int) -> int:
    """20 or higher: Speed + 3; success: Speed; failure: half; 0 or lower: a quarter (rounded down)."""
    if band is TWENTY_PLUS:
        return speed + 3
    if band is SUCCESS:
        return speed
    if band is FAILURE:
        return speed // 2
    return speed // 4


def maneuver(t: Table, ship: Ship, choice: ManeuverChoice, target: Ship, events: list[Event]) -> None:
    """Roll the maneuver against the target's captain and move; rams crash, 0 or lower brings a mishap."""
    kind = choice.kind
    ux, uy = heading(t, ship, target, kind, choice.veer)
    speed = speed_along(t, ship, ux, uy, ship.drive)
    boons = ship.maneuverability - (t.rules.scuttled_banes if ship.scuttled else 0) - ship.maneuver_banes
    roll = attack_roll(t.dice, ship.controller.intellect, target.controller.intellect, boons,
                       f"{ship.id} {kind.value}s {target.id}")
    events.append(roll_event(ship.id, kind.value, roll))
    ship.maneuver_banes = 0
    ship.slowed = False
    start = (ship.x, ship.y)
    name = choice.label.split("@")[0]
    if kind is RAM:
        travel(t, ship, ux, uy, float(speed), target, events)
        events.append(Maneuvered(ship.id, name, target.id, roll.band.label, speed,
                                 math.hypot(ship.x - start[0], ship.y - start[1]), start, (ship.x, ship.y)))
        if roll.succeeded and not ship.grounded and gap(ship, target) <= 1e-6:
            extra = roll_damage(t, t.rules.ram_extra_dice, f"{ship.id} ram: extra damage") \
                if roll.band is TWENTY_PLUS else 0
            crash(t, ship, target, extra, events)
    else:
        stop_at = target if kind is PURSUE else None
        travel(t, ship, ux, uy, float(distance_moved(roll.band, speed)), stop_at, events)
        events.append(Maneuvered(ship.id, name, target.id, roll.band.label, speed,
                                 math.hypot(ship.x - start[0], ship.y - start[1]), start, (ship.x, ship.y)))
    if roll.band is ZERO_OR_LESS and ship.status is AFLOAT:
        mishap(t, ship, events)


def hold(ship: Ship, events: list[Event]) -> None:
    """No maneuver: the ship keeps station."""
    ship.motion = (0.0, 0.0)
    ship.slowed = False
    ship.helm_jammed = False


def travel(t: Table, ship: Ship, ux: float, uy: float, distance: float, stop_at: Ship | None,
           events: list[Event]) -> None:
    """Move along the heading: stop alongside ``stop_at``; run aground where the water gets too shallow."""
    x0, y0 = ship.x, ship.y
    if stop_at is not None:
        contact = entry_along(x0, y0, ux, uy, stop_at.x, stop_at.y, ship.radius + stop_at.radius)
        if contact is not None:
            distance = min(distance, contact)
    aground_at: float | None = None
    rocks = False
    for shoal in t.scenario.shoals:
        if shoal.depth >= ship.draft:
            continue
        entry = entry_along(x0, y0, ux, uy, shoal.center[0], shoal.center[1], shoal.radius)
        if entry is not None and entry <= distance and (aground_at is None or entry < aground_at):
            aground_at, rocks = entry, shoal.rocks
    if aground_at is not None:
        distance = aground_at
    ship.x, ship.y = x0 + ux * distance, y0 + uy * distance
    ship.motion = (ship.x - x0, ship.y - y0)
    if aground_at is not None:
        run_aground(t, ship, (ship.x, ship.y), rocks, events)


def mishap(t: Table, ship: Ship, events: list[Event]) -> None:
    """Roll on the Mishaps table (a d<number of rows>)."""
    table = t.config.mishaps
    face = t.dice.d(len(table), f"{ship.id} mishap")
    entry = table[face - 1]
    events.append(MishapSuffered(ship.id, face, entry.name))
    effect = entry.effect
    if effect == "half_speed_next":
        ship.slowed = True
    elif effect == "no_maneuver_next":
        ship.helm_jammed = True
    elif effect == "bane_next":
        ship.maneuver_banes += entry.amount
    elif effect == "lose_crew":
        crew_hit(t, ship, entry.amount, 1_000_000, 1_000_000, entry.name, events)
    elif effect == "hull_damage":
        strike(t, ship, roll_damage(t, entry.amount, f"{ship.id} {entry.name}"), None, entry.name, events)
    elif effect == "unload_machine":
        for machine in ship.machines:
            if machine.loaded and not machine.destroyed:
                machine.loaded = False
                machine.load_progress = 0
                break


COS_TOWARD = math.cos(math.radians(45.0))


def crash_kind(rammer: Ship, struck: Ship) -> str:
    """How the struck ship was moving (its latest maneuver): not at all, toward the rammer, or otherwise."""
    mx, my = struck.motion
    moved = math.hypot(mx, my)
    if moved == 0.0:
        return "immovable"
    dx, dy, d = direction(struck.x, struck.y, rammer.x, rammer.y)
    if d > 0 and (mx * dx + my * dy) / moved >= COS_TOWARD - 1e-9:
        return "toward"
    return "across"


def crash(t: Table, rammer: Ship, struck: Ship, extra: int, events: list[Event]) -> None:
    """Immovable object or moving across the path: both take half the rammer's Health; toward it: half of
    each one's Health added. Across: both go on at half Speed. Everyone aboard takes half what its ship takes
    (an Agility success halves that again)."""
    kind = crash_kind(rammer, struck)
    amount = rammer.health // 2
    if kind == "toward":
        amount += struck.health // 2
    events.append(Crashed(rammer.id, struck.id, kind, extra))
    to_struck, to_rammer = amount + extra, amount
    add_damage(struck, to_struck, rammer.id, "ram", events)
    add_damage(rammer, to_rammer, struck.id, "crash", events)
    if kind == "across":
        rammer.slowed = struck.slowed = True
    else:
        rammer.motion = (0.0, 0.0)
        if kind == "toward":
            struck.motion = (0.0, 0.0)
    crew_hit(t, struck, struck.crew, to_struck // 2, to_struck // 4, "crash", events)
    crew_hit(t, rammer, rammer.crew, to_rammer // 2, to_rammer // 4, "crash", events)
    check_hull(t, struck, events)
    check_hull(t, rammer, events)
