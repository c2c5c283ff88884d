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
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from naval_env.core.grid import STEP
from naval_env.core.spaces import ObservationField as F
from naval_env.core.spaces import ObservationSpec, group_fields
from naval_env.rulesets.flotilla.actions import build_maneuvers
from naval_env.rulesets.flotilla.combat import (
    FireRules,
    Gunnery,
    boarding_dice,
    edges,
    fire_rules,
    gun_line,
    gunnery,
    guns,
    steering,
)
from naval_env.rulesets.flotilla.config import FlotillaConfig, HouseRules
from naval_env.rulesets.flotilla.geometry import SIDE, Arc, Square, footprint, sighting
from naval_env.rulesets.flotilla.movement import first_struck, movement_now, ram_reach
from naval_env.rulesets.flotilla.rolls import contest_odds, highest_odds, pool_sizes
from naval_env.rulesets.flotilla.state import CALM, MAGES, REACTION, Attack, GameState, Ship

if TYPE_CHECKING:
    from naval_env.rulesets.flotilla.engine import FlotillaGame

#: numpy's float32 dtype as an object: ``np.frombuffer(buffer, _FLOAT32)`` parses no keyword (a third of its cost).
_FLOAT32 = np.dtype(np.float32)

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
_SELF_HEAD = sum(f.size for f in SELF_FIELDS if f.size > 0)  # the own-ship slices but the two sized per config


class FixedSlices(NamedTuple):
    """A ship's values that no rule changes during a game, already scaled for the observation."""

    max_cohesion: float
    size: float
    combat: float      # combat dice, range and boarding dice (hero included)
    range: float
    boarding: float
    traits: tuple[float, ...]


class ObserverTables:
    """Per-game constants of the observation (built once per game, not once per call)."""

    def __init__(self, game: FlotillaGame) -> None:
        rules = game.rules
        n = rules.max_ships_per_side
        self.fire = fire_rules(rules)
        # Gaps from here on are out of every range, so the memoised exchanges below are asked for this one.
        self.out_of_range = game.config.max_range + 1
        self.outlook_size = len(game.actions.maneuvers) * OUTLOOK
        self.size = _SELF_HEAD + n + self.outlook_size + (2 * n - 1) * _OTHER_SIZE
        self.ships = {ship.id: _fixed_slices(rules, ship) for ship in game.state.ships.values()}


def _fixed_slices(rules: HouseRules, ship: Ship) -> FixedSlices:
    traits = (float(ship.armour), float(ship.ram), float(ship.bow_guns), float(ship.broadside_guns),
              float(ship.sails), float(ship.hero))
    return FixedSlices(ship.max_cohesion * 0.1, ship.size * 0.25, ship.combat * DICE, ship.range * DICE,
                       boarding_dice(rules, ship) * DICE, traits)


def observe(game: FlotillaGame, agent: str) -> np.ndarray:
    """The observation, zeros first: only the slices that hold something are packed into it (sunk ships,
    empty slots and, outside a MOVE decision, the outlook stay zero)."""
    _bound_matchups()
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
    tables = game.observer_tables
    fixed = tables.ships[agent]
    add((
        my_movement * MOVE,
        me.cohesion * 0.1, fixed.max_cohesion, me.cohesion / me.max_cohesion,
        fixed.size,
        thrown * DICE, me.captain_dice * DICE, me.crew_hits * DICE, max(0, thrown - me.size) * DICE,
        float(me.captain_alive),
        fixed.combat, fixed.range, fixed.boarding,
    ))
    add(fixed.traits)
    add((
        me.mages / 3,
        float(me.grappled_with is not None), float(me.stuck), float(me.moved), float(me.attacked),
        me.break_failures * 0.2, rank * 0.1, state.round / rules.max_rounds, maneuver_odds,
    ))
    enemies = game.enemies_of(me)
    pending = state.pending
    if deciding and state.phase is REACTION and pending is not None:
        _incoming(out, game, me, enemies, pending)
    else:
        add((0.0,) * (n + 7))  # incoming_from (one per enemy slot) and the seven slices after it
    partner = state.ships[me.grappled_with] if me.grappled_with else None
    if partner is not None:
        win, tie = highest_odds(boarding_dice(rules, me), boarding_dice(rules, partner))
        add((win, 1.0 - win - tie))
    else:
        add((0.0, 0.0))
    # Each other ship's move this round and where it could ram us: its block and the outlook both need them.
    moves = {other.id: _move_of(state, other, me, rules)
             for other in state.ships.values() if other.afloat and other is not me}
    mine = gunnery(me)
    observation = bytearray(4 * tables.size)  # float32 zeros
    ends = game.maneuver_ends(agent) if deciding and partner is None else []
    if ends:
        _outlook(out, game, me, mine, enemies, moves, ends, maneuver_odds)
    _pack(observation, 0, out)

    fixed_of = tables.ships
    my_rank = rank if in_order else None
    can_ram = me.captain_alive and me.grappled_with is None
    struck = first_struck(state, me, my_movement) if can_ram else None
    ram_target = struck[1] if struck is not None else None
    offset = len(out) if ends else len(out) + tables.outlook_size
    for group, slots in ((game.allies_of(me), n - 1), (enemies, n)):
        for slot, other in enumerate(group):
            if other.afloat:
                block = _other_block(game, tables, me, mine, other, fixed_of[other.id], moves[other.id], inv,
                                     ram_target, my_rank)
                _pack(observation, offset + slot * _OTHER_SIZE, block)
        offset += slots * _OTHER_SIZE
    return np.frombuffer(observation, _FLOAT32)


def _move_of(state: GameState, other: Ship, me: Ship, rules: HouseRules) -> tuple[int, frozenset[Square]]:
    """``other``'s move this round and the squares where it could ram ``me`` (none without a free captain)."""
    movement = movement_now(other, state.wind, rules)
    if other.captain_alive and other.grappled_with is None:
        return movement, ram_reach(state, other, me.id, movement)
    return movement, _NO_REACH


def _pack(observation: bytearray, offset: int, values: list[float]) -> None:
    """Write ``values`` into the float32 ``observation`` from ``offset`` on: one C-level pack, which rounds
    each float exactly as a cast to float32 does, and several times cheaper than numpy on a list."""
    _packer(len(values)).pack_into(observation, offset * 4, *values)


@lru_cache(maxsize=64)  # one per block size
def _packer(size: int) -> struct.Struct:
    return struct.Struct(f"{size}f")


def _incoming(out: list[float], game: FlotillaGame, me: Ship, enemies: list[Ship], pending: Attack) -> None:
    """REACTION: who attacks, from what, and the dice and odds of dodging or countering it."""
    rules, state = game.rules, game.state
    mode = rules.penalty_mode
    incoming_from = [0.0] * rules.max_ships_per_side
    attacker = state.ships[pending.attacker]
    incoming_from[enemies.index(attacker)] = 1.0
    from_mages = pending.unit is MAGES
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


_MATCHUPS: dict[tuple[FireRules, Gunnery, Gunnery], int] = {}
_MATCHUP_KEYS: list[tuple[FireRules, Gunnery, Gunnery]] = []
_MATCHUP_LIMIT = 1 << 14


def _matchup(fire: FireRules, mine: Gunnery, theirs: Gunnery) -> int:
    """A small number for the three, so that the memoised views below hash one int instead of three tuples."""
    key = (fire, mine, theirs)
    found = _MATCHUPS.get(key)
    if found is None:
        found = _MATCHUPS[key] = len(_MATCHUP_KEYS)
        _MATCHUP_KEYS.append(key)
    return found


def _bound_matchups() -> None:
    """Past the limit, number the matchups afresh and forget the views memoised on the old numbers. Called
    before an observation takes any number, so none it holds can go stale."""
    if len(_MATCHUP_KEYS) >= _MATCHUP_LIMIT:
        _MATCHUPS.clear()
        _MATCHUP_KEYS.clear()
        _exchange.cache_clear()
        _facing_enemy.cache_clear()


def _other_block(game: FlotillaGame, tables: ObserverTables, me: Ship, mine: Gunnery, other: Ship, fixed: FixedSlices,
                 its_move: tuple[int, frozenset[Square]], inv: float, ram_target: str | None, my_rank: int | None
                 ) -> list[float]:
    state = game.state
    its_movement, its_reach = its_move
    dx, dy = other.x - me.x, other.y - me.y
    ux, uy = _UNIT[me.facing]
    distance, my_arc, its_arc = sighting(me.x - other.x, me.y - other.y, me.facing, me.size, other.facing,
                                         other.size)
    out = [1.0, dx * inv, dy * inv, (dx * ux + dy * uy) * inv, (dx * -uy + dy * ux) * inv, distance * 0.1]
    add = out.extend
    add(_ONE_HOT8[(other.facing - me.facing) % 8])
    add((other.cohesion * 0.1, other.cohesion / other.max_cohesion, fixed.size,
         max(0, steering(other) - other.crew_hits) * DICE, fixed.combat, fixed.range, fixed.boarding,
         its_movement * DICE, float(other.captain_alive)))
    add(fixed.traits)
    out.append(other.mages / 3)
    add(_exchange(_matchup(tables.fire, mine, gunnery(other)), my_arc, its_arc, min(distance, tables.out_of_range)))
    order = state.order
    acts_first = my_rank is not None and other.id in order and order.index(other.id) < my_rank
    grappled = other.grappled_with
    ram = ram_target == other.id
    board = distance == 1 and me.grappled_with is None and grappled is None
    threat = not its_reach.isdisjoint(me.squares)
    add((float(grappled == me.id), float(grappled not in (None, me.id)), float(other.stuck), float(other.moved),
         float(acts_first), float(ram), float(board), float(threat)))
    return out


@lru_cache(maxsize=1 << 14)  # a few ship profiles, three arcs each way and a few gaps
def _exchange(matchup: int, my_arc: Arc, its_arc: Arc, distance: int) -> tuple[float, ...]:
    """The arcs, ranges, dice, odds and damage rules of an other-ship block: its slices from my_arc on."""
    fire, mine, theirs = _MATCHUP_KEYS[matchup]
    mode = fire.penalty_mode
    my_line, its_line = guns(fire, mine, my_arc, distance), guns(fire, theirs, its_arc, distance)
    _, my_range, _, _, my_steering, my_dodge_penalty = mine
    _, its_range, _, _, its_steering, its_dodge_penalty = theirs
    # Exchanges both ways: the attacker's dice against a dodge, and against a counter-attack.
    my_fire_d, its_dodge = pool_sizes(my_line.dice, my_line.penalty, its_steering, its_dodge_penalty, mode)
    my_fire_c, its_counter = pool_sizes(my_line.dice, my_line.penalty, its_line.dice, its_line.penalty, mode)
    its_fire_d, my_dodge = pool_sizes(its_line.dice, its_line.penalty, my_steering, my_dodge_penalty, mode)
    its_fire_c, my_counter = pool_sizes(its_line.dice, its_line.penalty, my_line.dice, my_line.penalty, mode)
    return (*_ONE_HOT3[my_arc], *_ONE_HOT3[its_arc],
            float(distance <= my_range), float(distance <= its_range), float(distance == 1),
            my_fire_c * DICE, its_dodge * DICE, its_counter * DICE, its_fire_c * DICE, my_dodge * DICE,
            my_counter * DICE,
            highest_odds(my_fire_d, its_dodge)[0], highest_odds(my_fire_c, its_counter)[0],
            highest_odds(its_fire_d, my_dodge)[0], highest_odds(its_fire_c, my_counter)[0],
            float(my_line.difference), float(its_line.difference))


def _outlook(out: list[float], game: FlotillaGame, me: Ship, mine: Gunnery, enemies: list[Ship],
             moves: dict[str, tuple[int, frozenset[Square]]], ends: list[tuple[int, int, int] | None],
             odds: float) -> None:
    """Per maneuver: allowed, odds, sea ahead, and the nearest enemy's gap, arcs, exchange values and
    ram line from where it would leave us (where an enemy could ram us does not depend on where we end)."""
    state, tables = game.state, game.observer_tables
    fire, out_of_range = tables.fire, tables.out_of_range
    alive = [(e.x, e.y, e.facing, e.size, moves[e.id][1], _matchup(fire, mine, gunnery(e)))
             for e in enemies if e.afloat]
    if not alive:
        out.extend(_ZERO_OUTLOOK * len(ends))
        return
    size, sea_ahead = me.size, _sea_ahead(state.width)
    append = out.append
    if len(alive) == 1:
        _outlook_on_one(out, alive[0], size, sea_ahead, ends, odds, out_of_range)
        return
    for index, end in enumerate(ends):
        if end is None:
            out.extend(_ZERO_OUTLOOK)
            continue
        x, y, facing = end
        distance = _FAR
        for ex, ey, its_facing, its_size, reach, matchup in alive:
            seen = sighting(x - ex, y - ey, facing, size, its_facing, its_size)
            if seen[0] < distance:  # the nearest enemy; the first of equals
                (distance, my_arc, its_arc), its_reach, its_matchup = seen, reach, matchup
        append(1.0)
        append(1.0 if index == 0 else odds)
        append(sea_ahead[facing][y][x])
        append(distance * 0.1)
        out.extend(_facing_enemy(its_matchup, my_arc, its_arc, min(distance, out_of_range)))
        append(0.0 if its_reach.isdisjoint(footprint(x, y, facing, size)) else 1.0)


def _outlook_on_one(out: list[float], enemy: tuple[int, int, int, int, frozenset[Square], int], size: int,
                    sea_ahead: tuple[tuple[tuple[float, ...], ...], ...], ends: list[tuple[int, int, int] | None],
                    odds: float, out_of_range: int) -> None:
    """:func:`_outlook` against a lone enemy (a duel, or the last enemy afloat): the same values, without the
    search for the nearest."""
    ex, ey, its_facing, its_size, reach, matchup = enemy
    extend, append = out.extend, out.append
    for index, end in enumerate(ends):
        if end is None:
            extend(_ZERO_OUTLOOK)
            continue
        x, y, facing = end
        distance, my_arc, its_arc = sighting(x - ex, y - ey, facing, size, its_facing, its_size)
        extend((1.0, 1.0 if index == 0 else odds, sea_ahead[facing][y][x], distance * 0.1))
        extend(_facing_enemy(matchup, my_arc, its_arc,
                             distance if distance < out_of_range else out_of_range))  # noqa: FURB136 - hot path
        append(1.0 if reach and not reach.isdisjoint(footprint(x, y, facing, size)) else 0.0)


@lru_cache(maxsize=1 << 14)  # a few ship profiles, three arcs each way and a few gaps
def _facing_enemy(matchup: int, my_arc: Arc, its_arc: Arc, distance: int) -> tuple[float, ...]:
    """The outlook's slices on the nearest enemy after its gap and before its ram line: adjacent, in range,
    the arcs abeam and the exchange values."""
    fire, mine, theirs = _MATCHUP_KEYS[matchup]
    gain, loss = edges(fire, mine, my_arc, theirs, its_arc, distance)
    my_range = mine[1]
    return (1.0 if distance == 1 else 0.0, 1.0 if distance <= my_range else 0.0,
            1.0 if my_arc is SIDE else 0.0, 1.0 if its_arc is SIDE else 0.0, gain, loss)


@lru_cache(maxsize=4)  # one table per map size (a table holds 8 x size x size values)
def _sea_ahead(map_size: int) -> tuple[tuple[tuple[float, ...], ...], ...]:
    """[facing][y][x]: squares from a bow on (x, y) to the map edge straight ahead, x0.1."""
    return tuple(tuple(tuple(_room_ahead(x, y, facing, map_size) * 0.1 for x in range(map_size))
                       for y in range(map_size)) for facing in range(8))


def _room_ahead(x: int, y: int, facing: int, map_size: int) -> int:
    """Squares from the bow to the map edge straight ahead."""
    dx, dy = STEP[facing]
    room = map_size  # more than any real room: replaced below, as one of dx, dy is not 0
    if dx:
        room = map_size - 1 - x if dx > 0 else x
    if dy:
        room = min(room, map_size - 1 - y if dy > 0 else y)
    return room
