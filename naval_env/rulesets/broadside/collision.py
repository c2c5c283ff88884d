"""Collisions and rams: what happens when a moving hull meets another.

- Ram (``_ram``): a ram-capable ship's bow strikes an enemy after its first leg with
  no turn between its first and second legs. Full above 45 degrees of incidence (and
  on any stern), 5d6 open-ended (3d6 sharkboats); glancing otherwise (d6, or half on
  a sailing ship). Both stop; a full ram grapples, and one that sinks its target lets
  the rammer go on, slowed by 3 inches.
- Collision (``_collide``): d4 to each ship, both lose the rest of their movement,
  then by where the struck ship was hit: within 1 inch of the centre of a broadside
  both push 2 inches in a T; on the bow or stern the mover deflects along the closest
  side and rakes it; elsewhere on a broadside the struck ship swings about its far end
  while the mover carries on d4 inches.
- Icebergs cannot be sunk and do not give way: the ship takes d4 and glances off along
  the face it struck, carrying on d4 inches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from naval_env.core.events import Event
from naval_env.rulesets.broadside.board import free_run, has_room, room_test
from naval_env.rulesets.broadside.events import Carried, Collided, MovementForfeited, Rammed
from naval_env.rulesets.broadside.geometry import (
    Contact,
    Hull,
    Point,
    Region,
    SettledHull,
    compass,
    heading_vector,
    incidence_angle,
    normalize_angle,
)
from naval_env.rulesets.broadside.hull import damage, grapple, open_ended, sweep_oars
from naval_env.rulesets.broadside.state import Ship

if TYPE_CHECKING:
    from naval_env.rulesets.broadside.engine import BroadsideGame

__all__ = ["Contact", "Outcome", "resolve"]

BISECTION_STEPS = 60


@dataclass(frozen=True, slots=True)
class Outcome:
    """``continues``: the mover goes on moving (a full ram sank its target). ``boarding``: the pair
    that may board each other at once, activated ship first."""

    continues: bool
    boarding: tuple[str, str] | None


def resolve(game: BroadsideGame, mover: Ship, struck_id: str, contact: Contact, leg: int, ram_ready: bool,
            events: list[Event]) -> Outcome:
    state, rules = game.state, game.rules
    point = contact.point
    if struck_id not in state.ships:
        berg = next(b for b in state.icebergs if b.id == struck_id)
        events.append(Collided(mover.id, berg.id, berg.shape.region(*point, rules.end_zone).value, point, leg))
        damage(state, mover, game.dice.d(rules.collision_damage_die, "collision damage"), None,
               "struck an iceberg", events)
        if mover.status.fighting:
            carry = game.dice.d(rules.collision_carry_die, "collision carry")
            _slide(game, mover, glanced_hull(mover.shape, berg.shape, point), carry, events)
        return Outcome(False, None)
    struck = state.ships[struck_id]
    struck_region = struck.shape.region(*point, rules.end_zone)
    mover_region = mover.shape.region(*point, rules.end_zone)
    events.append(Collided(mover.id, struck.id, struck_region.value, point, leg))
    vessel = game.vessel(mover)
    if ram_ready and vessel.can_ram and struck.side != mover.side and mover_region is Region.BOW:
        return _ram(game, mover, struck, struck_region, events)
    return _collide(game, mover, struck, point, struck_region, mover_region, events)


def _boarding_pair(mover: Ship, struck: Ship) -> tuple[str, str] | None:
    if mover.status.fighting and struck.status.fighting and mover.side != struck.side:
        return mover.id, struck.id
    return None


def forfeit(ship: Ship, events: list[Event]) -> None:
    """A struck ship that has not moved yet this turn loses its move (it still acts otherwise)."""
    if not ship.activated and not ship.forfeit and ship.status.fighting:
        ship.forfeit = True
        events.append(MovementForfeited(ship.id))


def ram_damage(game: BroadsideGame, rammer: Ship, target: Ship, full: bool) -> int:
    """Full: the rammer's ram dice, open-ended. Glancing: by the target's type, d6 open-ended or half a full ram."""
    rules, dice = game.rules, game.dice
    dice_count = game.vessel(rammer).ram_dice
    if full:
        return open_ended(dice, dice_count, rules.ram_die, "full ram damage")[0]
    if game.vessel(target).glancing == "d6":
        return open_ended(dice, 1, rules.ram_die, "glancing ram damage")[0]
    return open_ended(dice, dice_count, rules.ram_die, "glancing ram damage (halved)")[0] // 2


def _ram(game: BroadsideGame, rammer: Ship, target: Ship, region: Region, events: list[Event]) -> Outcome:
    state, rules = game.state, game.rules
    rammer.rammed = True
    incidence = incidence_angle(rammer.shape.heading, target.shape.heading)
    full = region is Region.STERN or incidence > rules.full_ram_above
    events.append(Rammed(rammer.id, target.id, full, round(incidence, 6), region.value))
    amount = ram_damage(game, rammer, target, full)
    if region.broadside:
        sweep_oars(target, game.vessel(target).oars, events)
    damage(state, target, amount, rammer.id, "full ram" if full else "glancing ram", events)
    if full and not target.status.fighting:
        return Outcome(True, None)
    forfeit(target, events)
    if full and target.status.fighting and rammer.status.fighting:
        grapple(state, rammer, target, "full ram", events)
    return Outcome(False, _boarding_pair(rammer, target))


def _collide(game: BroadsideGame, mover: Ship, struck: Ship, point: Point, region: Region, mover_region: Region,
             events: list[Event]) -> Outcome:
    state, rules, dice = game.state, game.rules, game.dice
    forfeit(struck, events)
    damage(state, mover, dice.d(rules.collision_damage_die, "collision damage"), struck.id, "collision", events)
    damage(state, struck, dice.d(rules.collision_damage_die, "collision damage"), mover.id, "collision", events)
    if not (mover.status.fighting and struck.status.fighting):
        return Outcome(False, _boarding_pair(mover, struck))
    along, _ = struck.shape.to_local(*point)
    if region.broadside and abs(along) <= rules.centre_zone:
        _t_push(game, mover, struck, events)
        sweep_oars(struck, game.vessel(struck).oars, events)
    elif region.broadside:
        carry = dice.d(rules.collision_carry_die, "collision carry")
        _swing(game, mover, struck, point, carry, events)
        sweep_oars(struck, game.vessel(struck).oars, events)
    else:
        carry = dice.d(rules.collision_carry_die, "collision carry")
        _deflect(game, mover, struck, point, carry, events)
        sweep_oars(struck, game.vessel(struck).oars, events)
        sweep_oars(mover, game.vessel(mover).oars, events)
        return Outcome(False, _boarding_pair(mover, struck))
    if mover_region.broadside:
        sweep_oars(mover, game.vessel(mover).oars, events)
    return Outcome(False, _boarding_pair(mover, struck))


def _t_push(game: BroadsideGame, mover: Ship, struck: Ship, events: list[Event]) -> None:
    """Both ships move on together along the mover's heading, keeping their T (stopped by anything in the way)."""
    state, rules = game.state, game.rules
    heading = mover.shape.heading
    run = min(free_run(state, mover.shape, heading, rules.t_push, mover.id, struck.id),
              free_run(state, struck.shape, heading, rules.t_push, mover.id, struck.id))
    for ship in (mover, struck):
        ship.shape = ship.shape.advanced(run, heading)
        events.append(Carried(ship.id, "push", round(run, 6), *_pose(ship.shape)))


def swing_pivot(struck: Hull, point: Point) -> Point:
    """The end farther from the impact stays in place."""
    along, _ = struck.to_local(*point)
    return struck.stern if along >= 0 else struck.bow


def swing_direction(pivot: Point, point: Point, course: float) -> int:
    """+1 (clockwise) or -1: the way that moves the impact point along the mover's course."""
    ux, uy = heading_vector(course)
    rx, ry = point[0] - pivot[0], point[1] - pivot[1]
    return 1 if ry * ux - rx * uy >= 0 else -1


def _swing(game: BroadsideGame, mover: Ship, struck: Ship, point: Point, carry: int, events: list[Event]) -> None:
    """The struck ship swings about its far end just enough to let the mover carry on ``carry`` inches."""
    state, rules = game.state, game.rules
    pivot = swing_pivot(struck.shape, point)
    sign = swing_direction(pivot, point, mover.shape.heading)
    # Nothing but the struck hull moves while the bisections below try angle after angle.
    passed = SettledHull.of(mover.shape.advanced(carry))
    has_room_for = room_test(state, mover.id, struck.id)

    def clear(angle: float) -> bool:
        return not passed.overlapped_by(struck.shape.turned(sign * angle, pivot))

    def fits(angle: float) -> bool:
        return has_room_for(struck.shape.turned(sign * angle, pivot))

    angle = rules.max_swing if not clear(rules.max_swing) else _bisect(clear, rules.max_swing, holds_high=True)
    if not fits(angle):
        angle = _bisect(fits, angle, holds_high=False)
    struck.shape = struck.shape.turned(sign * angle, pivot)
    events.append(Carried(struck.id, "swing", round(angle, 6), *_pose(struck.shape)))
    run = free_run(state, mover.shape, mover.shape.heading, carry, mover.id)
    mover.shape = mover.shape.advanced(run)
    events.append(Carried(mover.id, "carry", round(run, 6), *_pose(mover.shape)))


def deflected_hull(mover: Hull, struck: Hull, point: Point) -> Hull:
    """The mover turned along the struck ship's keel (the way closer to its course), its side against
    the struck ship's nearer side, bow level with the impact point."""
    keel = struck.heading
    same_way = abs(normalize_angle(mover.heading - keel)) <= 90.0
    heading = keel if same_way else compass(keel + 180.0)
    direction = 1.0 if same_way else -1.0
    along, _ = struck.to_local(*point)
    _, mover_across = struck.to_local(mover.x, mover.y)
    side = 1.0 if mover_across >= 0 else -1.0
    x, y = struck.to_world(along - direction * mover.length / 2, side * (struck.beam + mover.beam) / 2)
    return Hull(x, y, heading, mover.length, mover.beam)


def glanced_hull(mover: Hull, obstacle: Hull, point: Point) -> Hull:
    """The mover turned along the face of an iceberg it struck (the way closer to its course),
    its side against that face, bow level with the impact point."""
    along, across = obstacle.to_local(*point)
    ux, uy = heading_vector(obstacle.heading)
    if abs(along) * obstacle.beam >= abs(across) * obstacle.length:      # an end face
        nx, ny = (ux, uy) if along >= 0 else (-ux, -uy)
        face = compass(obstacle.heading + 90.0)
    else:                                                                # a long face
        nx, ny = (uy, -ux) if across >= 0 else (-uy, ux)
        face = obstacle.heading
    heading = face if abs(normalize_angle(mover.heading - face)) <= 90.0 else compass(face + 180.0)
    hx, hy = heading_vector(heading)
    x = point[0] + nx * mover.beam / 2 - hx * mover.length / 2
    y = point[1] + ny * mover.beam / 2 - hy * mover.length / 2
    return Hull(x, y, heading, mover.length, mover.beam)


def _deflect(game: BroadsideGame, mover: Ship, struck: Ship, point: Point, carry: int, events: list[Event]) -> None:
    """Deflect along the struck ship's closest side and rake it, carrying on ``carry`` inches."""
    _slide(game, mover, deflected_hull(mover.shape, struck.shape, point), carry, events)


def _slide(game: BroadsideGame, mover: Ship, placed: Hull, carry: int, events: list[Event]) -> None:
    """Put the mover at ``placed`` (if there is room) and carry it on ``carry`` inches along its new heading."""
    state = game.state
    if not has_room(state, placed, mover.id):
        events.append(Carried(mover.id, "deflect", 0.0, *_pose(mover.shape)))
        return
    run = free_run(state, placed, placed.heading, carry, mover.id)
    mover.shape = placed.advanced(run)
    events.append(Carried(mover.id, "deflect", round(run, 6), *_pose(mover.shape)))


def _bisect(ok: Callable[[float], bool], high: float, *, holds_high: bool) -> float:
    """The angle in [0, high] where ``ok`` turns, by bisection. ``holds_high``: ``ok`` holds at ``high`` and the
    smallest angle where it holds is wanted; otherwise it holds at 0 and the largest is wanted."""
    low = 0.0
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        if bool(ok(middle)) is holds_high:
            high = middle
        else:
            low = middle
    return high if holds_high else low


def _pose(hull: Hull) -> tuple[float, float, float]:
    return round(hull.x, 6), round(hull.y, 6), round(hull.heading, 6)
