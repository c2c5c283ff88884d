"""One captain's view of the battle as a fixed-size float32 vector of named slices.

Own ship first, then the allies and the enemies in side order (a sunk ship's
slot is all zeros; enemy slot k is the target slot k of the action codec).
Positions are also given in the observer's own frame (ahead, to starboard), and
the dice each side would throw in every exchange (with the odds, highest die
only) so a policy need not learn the dice arithmetic.
"""

from __future__ import annotations

import math
import struct
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.grid import STEP
from naval_env.core.spaces import ObservationField as F
from naval_env.core.spaces import ObservationSpec, group_fields
from naval_env.rulesets.flotilla.actions import build_maneuvers
from naval_env.rulesets.flotilla.combat import (
    boarding_dice,
    edges,
    gun_line,
    gun_lines,
    steering,
)
from naval_env.rulesets.flotilla.config import FlotillaConfig
from naval_env.rulesets.flotilla.geometry import Arc, footprint, sighting
from naval_env.rulesets.flotilla.movement import in_ram_line, movement_now, ram_line, ram_reach
from naval_env.rulesets.flotilla.rolls import contest_odds, highest_odds, pool_sizes
from naval_env.rulesets.flotilla.state import CALM, Attack, Phase, Ship, Unit

if TYPE_CHECKING:
    from naval_env.rulesets.flotilla.engine import FlotillaGame

DICE = 1 / 6
MOVE = 1 / 8

MAP = -1.0    # placeholder scale: 1 / map size, filled in per config
ROUNDS = -2.0  # placeholder scale: 1 / round limit


SELF_FIELDS = [
    F("phase", 4, 1.0, "one-hot decision: DEPLOY, MOVE, ATTACK, REACTION (zeros when not deciding)"),
    F("position", 2, MAP, "bow x, y in squares (y grows southward)"),
    F("edge_distance", 4, MAP, "squares from the bow to the north, east, south and west edges"),
    F("facing", 8, 1.0, "one-hot compass facing N..NW"),
    F("wind", 9, 1.0, "one-hot wind direction minus facing in compass points, then 1 if calm"),
    F("movement", 1, MOVE, "squares of the base move this round (propulsion hits and wind included)"),
    F("cohesion", 2, 0.1, "cohesion and maximum cohesion"),
    F("cohesion_fraction", 1, 1.0, "cohesion over its maximum"),
    F("size", 1, 0.25, "squares the ship occupies"),
    F("steering", 4, DICE, "steering dice thrown (after the crew penalty), captain dice, crew hits, dodge dice"),
    F("captain_alive", 1, 1.0, "1 while the captain lives"),
    F("combat", 3, DICE, "combat dice, range in squares, boarding dice (hero included)"),
    F("traits", 6, 1.0, "armour, ram, bow guns, broadside guns, sails, hero"),
    F("mages", 1, 1 / 3, "mage squad cohesion"),
    F("flags", 4, 1.0, "grappled, stuck after a collision, moved this round, attacked this round"),
    F("break_failures", 1, 0.2, "failed attempts to break free of the current grapple"),
    F("initiative", 1, 0.1, "place in this round's initiative order (0: first)"),
    F("round", 1, ROUNDS, "round number"),
    F("maneuver_odds", 1, 1.0, "chance to win the opposed maneuver roll"),
    F("incoming_from", -1, 1.0, "REACTION: one-hot enemy slot of the attacker (one per enemy slot)"),
    F("incoming_mages", 1, 1.0, "REACTION: 1 if the attack comes from a mage squad"),
    F("incoming_dice", 3, DICE, "REACTION: attack dice, dodge dice, counter-attack dice thrown"),
    F("incoming_odds", 3, 1.0, "REACTION: P(hit | dodge), P(hit | counter), P(attacker hit | counter)"),
    F("boarding_odds", 2, 1.0, "P(win), P(lose) of a boarding fight with the grappled ship"),
    F("maneuver_outlook", -2, 1.0, "MOVE: per maneuver value (ahead first): allowed, chance it succeeds, squares "
                                   "of sea ahead afterwards x0.1, then against the nearest enemy: gap x0.1, "
                                   "adjacent, in the observer's gun range, enemy abeam of the observer, observer "
                                   "abeam of the enemy, expected cohesion gained firing at it and lost to its fire "
                                   "(each against the best answer; it stays where it is), in its ram line"),
]

OTHER_FIELDS = [
    F("present", 1, 1.0, "1 if this slot holds a ship afloat"),
    F("offset", 4, MAP, "its bow from the observer's bow: dx, dy, then ahead and to starboard"),
    F("gap", 1, 0.1, "squares between the nearest squares of the two ships (1: adjacent)"),
    F("facing_relative", 8, 1.0, "one-hot its facing minus the observer's, in compass points"),
    F("cohesion", 1, 0.1, "cohesion"),
    F("cohesion_fraction", 1, 1.0, "cohesion over its maximum"),
    F("size", 1, 0.25, "squares it occupies"),
    F("dice", 5, DICE, "steering dice thrown, combat dice, range, boarding dice, movement this round"),
    F("captain_alive", 1, 1.0, "1 while its captain lives"),
    F("traits", 6, 1.0, "armour, ram, bow guns, broadside guns, sails, hero"),
    F("mages", 1, 1 / 3, "mage squad cohesion"),
    F("my_arc", 3, 1.0, "one-hot where it lies from the observer: ahead, abeam, astern"),
    F("its_arc", 3, 1.0, "one-hot where the observer lies from it: ahead, abeam, astern"),
    F("ranges", 3, 1.0, "in the observer's gun range, observer in its gun range, adjacent"),
    F("fire_dice", 6, DICE, "dice thrown: observer firing, it dodging, it countering; it firing, "
                            "observer dodging, observer countering"),
    F("fire_odds", 4, 1.0, "P(observer hits | it dodges), P(observer hits | it counters), "
                           "P(it hits | observer dodges), P(it hits | observer counters)"),
    F("difference", 2, 1.0, "a win costs the loser the difference: observer's guns, its guns"),
    F("status", 5, 1.0, "grappled with the observer, grappled elsewhere, stuck, moved this round, acts first"),
    F("contact", 3, 1.0, "it lies straight ahead within this round's move (a ram), it can be boarded now, "
                         "the observer lies in its ram line"),
]

OUTLOOK = 11
_ZERO_OUTLOOK = (0.0,) * OUTLOOK
_FAR = 1 << 30  # farther than any gap
_NO_REACH: frozenset[tuple[int, int]] = frozenset()


def _concrete(f: F, config: FlotillaConfig) -> F:
    size = f.size
    if size == -1:
        size = config.house_rules.max_ships_per_side
    elif size == -2:
        size = len(build_maneuvers(config)) * OUTLOOK
    scale = f.scale
    if scale == MAP:
        scale = 1.0 / config.house_rules.map_size
    elif scale == ROUNDS:
        scale = 1.0 / config.house_rules.max_rounds
    return F(f.name, size, scale, f.description)


def observation_spec(config: FlotillaConfig) -> ObservationSpec:
    n = config.house_rules.max_ships_per_side
    own = [_concrete(f, config) for f in SELF_FIELDS]
    other = [_concrete(f, config) for f in OTHER_FIELDS]
    return ObservationSpec(
        tuple([F(f"self.{f.name}", f.size, f.scale, f.description) for f in own]
              + group_fields("ally", n - 1, other) + group_fields("enemy", n, other))
    )


_ONE_HOT8 = [tuple(1.0 if i == k else 0.0 for i in range(8)) for k in range(8)]
_ONE_HOT3 = [tuple(1.0 if i == k else 0.0 for i in range(3)) for k in range(3)]
_ONE_HOT4 = [tuple(1.0 if i == k else 0.0 for i in range(4)) for k in range(4)]
_WIND = [one_hot + (0.0,) for one_hot in _ONE_HOT8]
_CALM_WIND = (0.0,) * 8 + (1.0,)
_UNIT = [(dx / math.hypot(dx, dy), dy / math.hypot(dx, dy)) for dx, dy in STEP]
_OTHER_SIZE = sum(f.size for f in OTHER_FIELDS)
_ZERO_OTHER = [0.0] * _OTHER_SIZE


def _traits(ship: Ship) -> tuple[float, ...]:
    return (float(ship.armour), float(ship.ram), float(ship.bow_guns), float(ship.broadside_guns),
            float(ship.sails), float(ship.hero))


def dodge_dice(ship: Ship) -> int:
    return max(0, steering(ship) - ship.crew_hits - ship.size)


def observe(game: FlotillaGame, agent: str) -> np.ndarray:
    state, rules = game.state, game.rules
    me = state.ships[agent]
    size = state.width
    inv = 1.0 / size
    n = rules.max_ships_per_side
    mode = rules.penalty_mode
    wind = state.wind
    out: list[float] = []
    add = out.extend
    deciding = not state.ended and state.actor == agent
    add(_ONE_HOT4[state.phase] if deciding else (0.0, 0.0, 0.0, 0.0))
    add((me.x * inv, me.y * inv, me.y * inv, (size - 1 - me.x) * inv, (size - 1 - me.y) * inv, me.x * inv))
    add(_ONE_HOT8[me.facing])
    add(_CALM_WIND if wind == CALM else _WIND[(wind - me.facing) % 8])
    my_steering = steering(me)
    thrown = max(0, my_steering - me.crew_hits)
    a, b = pool_sizes(my_steering, me.crew_hits, rules.maneuver_difficulty, 0, mode)
    maneuver_odds = contest_odds(a, b)
    order = state.order
    in_order = agent in order
    rank = order.index(agent) if in_order else len(order)
    my_movement = movement_now(me, wind, rules)
    add((
        my_movement * MOVE,
        me.cohesion * 0.1, me.max_cohesion * 0.1, me.cohesion / me.max_cohesion,
        me.size * 0.25,
        thrown * DICE, me.captain_dice * DICE, me.crew_hits * DICE, dodge_dice(me) * DICE,
        float(me.captain_alive),
        me.combat * DICE, me.range * DICE, boarding_dice(rules, me) * DICE,
    ))
    add(_traits(me))
    add((
        me.mages / 3,
        float(me.grappled_with is not None), float(me.stuck), float(me.moved), float(me.attacked),
        me.break_failures * 0.2, rank * 0.1, state.round / rules.max_rounds, maneuver_odds,
    ))
    enemies = game.enemies_of(me)
    pending = state.pending
    if deciding and state.phase is Phase.REACTION and pending is not None:
        _incoming(out, game, me, enemies, pending)
    else:
        add((0.0,) * (n + 7))  # incoming_from (one per enemy slot) and the seven slices after it
    partner = state.ships[me.grappled_with] if me.grappled_with else None
    if partner is not None:
        win, tie = highest_odds(boarding_dice(rules, me), boarding_dice(rules, partner))
        add((win, 1.0 - win - tie))
    else:
        add((0.0, 0.0))
    ends = game.maneuver_ends(agent) if deciding and partner is None else []
    if ends:
        _outlook(out, game, me, enemies, ends, maneuver_odds)
    else:
        add(_ZERO_OUTLOOK * len(game.actions.maneuvers))

    my_rank = rank if in_order else None
    allies = game.allies_of(me)
    for group, slots in ((allies, n - 1), (enemies, n)):
        for other in group:
            if other.afloat:
                _other_block(out, game, me, other, inv, my_movement, my_rank)
            else:
                add(_ZERO_OTHER)
        add(_ZERO_OTHER * (slots - len(group)))
    return _to_float32(out)


def _to_float32(values: list[float]) -> np.ndarray:
    """One C-level pack of the whole list, then one cast: several times cheaper than ``np.array(values)``."""
    packed = _packer(len(values)).pack(*values)
    return np.frombuffer(packed, dtype=np.float64).astype(np.float32)


@cache
def _packer(size: int) -> struct.Struct:
    return struct.Struct(f"{size}d")


def _incoming(out: list[float], game: FlotillaGame, me: Ship, enemies: list[Ship], pending: Attack) -> None:
    """REACTION: who attacks, from what, and the dice and odds of dodging or countering it."""
    rules, state = game.rules, game.state
    mode = rules.penalty_mode
    incoming_from = [0.0] * rules.max_ships_per_side
    attacker = state.ships[pending.attacker]
    incoming_from[enemies.index(attacker)] = 1.0
    from_mages = pending.unit is Unit.MAGES
    line = gun_line(rules, attacker, me.squares) if not from_mages else None
    dice, penalty = (line.dice, line.penalty) if line is not None else (rules.mage_dice, 0)
    counter = gun_line(rules, me, attacker.squares)
    a_d, d_d = pool_sizes(dice, penalty, steering(me), me.crew_hits + me.size, mode)
    a_c, c_c = pool_sizes(dice, penalty, counter.dice, counter.penalty, mode)
    hit_dodge = highest_odds(a_d, d_d)[0]
    hit_counter, tie = highest_odds(a_c, c_c)
    out.extend(incoming_from)
    out.extend((float(from_mages), a_c * DICE, d_d * DICE, c_c * DICE, hit_dodge, hit_counter,
                1.0 - hit_counter - tie))


def _other_block(out: list[float], game: FlotillaGame, me: Ship, other: Ship, inv: float, my_movement: int,
                 my_rank: int | None) -> None:
    rules, state = game.rules, game.state
    mode = rules.penalty_mode
    add = out.extend
    dx, dy = other.x - me.x, other.y - me.y
    ux, uy = _UNIT[me.facing]
    mine, theirs = gun_lines(rules, me, other)
    distance = mine.distance
    its_movement = movement_now(other, state.wind, rules)
    add((1.0, dx * inv, dy * inv, (dx * ux + dy * uy) * inv, (dx * -uy + dy * ux) * inv, distance * 0.1))
    add(_ONE_HOT8[(other.facing - me.facing) % 8])
    its_steering, my_steering = steering(other), steering(me)
    add((other.cohesion * 0.1, other.cohesion / other.max_cohesion, other.size * 0.25,
         max(0, its_steering - other.crew_hits) * DICE, other.combat * DICE, other.range * DICE,
         boarding_dice(rules, other) * DICE, its_movement * DICE, float(other.captain_alive)))
    add(_traits(other))
    out.append(other.mages / 3)
    add(_ONE_HOT3[mine.arc])
    add(_ONE_HOT3[theirs.arc])
    add((float(distance <= me.range), float(distance <= other.range), float(distance == 1)))
    # Exchanges both ways: the attacker's dice against a dodge, and against a counter-attack.
    my_fire_d, its_dodge = pool_sizes(mine.dice, mine.penalty, its_steering, other.crew_hits + other.size, mode)
    my_fire_c, its_counter = pool_sizes(mine.dice, mine.penalty, theirs.dice, theirs.penalty, mode)
    its_fire_d, my_dodge = pool_sizes(theirs.dice, theirs.penalty, my_steering, me.crew_hits + me.size, mode)
    its_fire_c, my_counter = pool_sizes(theirs.dice, theirs.penalty, mine.dice, mine.penalty, mode)
    add((my_fire_c * DICE, its_dodge * DICE, its_counter * DICE, its_fire_c * DICE, my_dodge * DICE,
         my_counter * DICE,
         highest_odds(my_fire_d, its_dodge)[0], highest_odds(my_fire_c, its_counter)[0],
         highest_odds(its_fire_d, my_dodge)[0], highest_odds(its_fire_c, my_counter)[0],
         float(mine.difference), float(theirs.difference)))
    order = state.order
    acts_first = my_rank is not None and other.id in order and order.index(other.id) < my_rank
    grappled = other.grappled_with
    ram = me.captain_alive and me.grappled_with is None and ram_line(state, me, other, my_movement) is not None
    board = distance == 1 and me.grappled_with is None and grappled is None
    threat = other.captain_alive and grappled is None and in_ram_line(state, other, me.squares, me.id, its_movement)
    add((float(grappled == me.id), float(grappled not in (None, me.id)), float(other.stuck), float(other.moved),
         float(acts_first), float(ram), float(board), float(threat)))


def _outlook(out: list[float], game: FlotillaGame, me: Ship, enemies: list[Ship],
             ends: list[tuple[int, int, int] | None], odds: float) -> None:
    """Per maneuver: allowed, odds, sea ahead, and the nearest enemy's gap, arcs, exchange values and
    ram line from where it would leave us."""
    state, rules = game.state, game.rules
    # Where each enemy could ram us does not depend on where we end: walk its ram line once.
    alive = [(e, e.x, e.y, e.facing, e.size,
              ram_reach(state, e, me.id, movement_now(e, state.wind, rules))
              if e.captain_alive and e.grappled_with is None else _NO_REACH)
             for e in enemies if e.afloat]
    if not alive:
        out.extend(_ZERO_OUTLOOK * len(ends))
        return
    map_size, size, my_range = state.width, me.size, me.range
    for index, end in enumerate(ends):
        if end is None:
            out.extend(_ZERO_OUTLOOK)
            continue
        x, y, facing = end
        distance = _FAR
        for candidate, ex, ey, its_facing, its_size, reach in alive:
            seen = sighting(x - ex, y - ey, facing, size, its_facing, its_size)
            if seen[0] < distance:  # the nearest enemy; the first of equals
                (distance, mine, theirs), enemy, its_reach = seen, candidate, reach
        gain, loss = edges(rules, me, mine, enemy, theirs, distance)
        threat = not its_reach.isdisjoint(footprint(x, y, facing, size))
        out.extend((1.0, 1.0 if index == 0 else odds, _sea_ahead(x, y, facing, map_size) * 0.1, distance * 0.1,
                    1.0 if distance == 1 else 0.0, 1.0 if distance <= my_range else 0.0,
                    1.0 if mine is Arc.SIDE else 0.0, 1.0 if theirs is Arc.SIDE else 0.0, gain, loss,
                    1.0 if threat else 0.0))


def _sea_ahead(x: int, y: int, facing: int, map_size: int) -> int:
    """Squares from the bow to the map edge straight ahead."""
    dx, dy = STEP[facing]
    room = map_size  # more than any real room: replaced below, as one of dx, dy is not 0
    if dx:
        room = map_size - 1 - x if dx > 0 else x
    if dy:
        room_y = map_size - 1 - y if dy > 0 else y
        room = room_y if room_y < room else room  # noqa: FURB136 - hot path: a comparison is cheaper than a call
    return room
