"""One captain's view of the battle as a fixed-size float32 vector of named slices.

Sizes come from the config's maxima (ships a side, crew, weapons), so one trained
captain works on every scenario. Enemy blocks come in target-slot order; offsets
are also given in the observer's own frame (ahead, to starboard). While a captain
holds its MOVE decision, the ``move.*`` slices preview every value of the
``maneuver`` component (what would bear, how close, a ram, the enemy's bow).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.grid import STEP
from naval_env.core.spaces import ObservationField as F
from naval_env.core.spaces import ObservationSpec, group_fields
from naval_env.rulesets.crew_phase import preview
from naval_env.rulesets.crew_phase.arcs import ARC_CELLS, cell
from naval_env.rulesets.crew_phase.config import ARCS, CrewPhaseConfig
from naval_env.rulesets.crew_phase.crew import CrewKind
from naval_env.rulesets.crew_phase.grapple import grappled_with, held_by_larger
from naval_env.rulesets.crew_phase.movement import build_maneuvers
from naval_env.rulesets.crew_phase.state import Phase, Ship, Status

if TYPE_CHECKING:
    from naval_env.rulesets.crew_phase.engine import CrewPhaseGame

LENGTH = 1 / 20      # squares
HULL = 1 / 100       # hull points
FEET = 1 / 100       # feet of speed or range
MOD = 1 / 5          # ability modifiers and proficiency
KINDS = tuple(CrewKind)

SELF_FIELDS = [
    F("phase", 3, 1.0, "one-hot decision held now: CREW, MOVE, ATTACK (zeros when not deciding)"),
    F("ship_phase", 1, 1.0, "1 during the Ship Phase, 0 during the Character Phase"),
    F("position", 2, LENGTH, "x, y in squares (y grows southward)"),
    F("edge_distance", 4, LENGTH, "squares to the north, east, south and west edges"),
    F("facing", 8, 1.0, "one-hot compass facing N..NW"),
    F("status", 2, 1.0, "one-hot afloat, sinking"),
    F("hull", 1, HULL, "hull points (negative while sinking)"),
    F("hull_fraction", 1, 1.0, "hull points / maximum"),
    F("max_hull", 1, HULL, "maximum hull points"),
    F("below_half", 1, 1.0, "1 below half the maximum (maximum speed halved)"),
    F("hull_dice_left", 1, 1 / 10, "hull dice left to spend on repairs"),
    F("hull_die", 1, 1 / 20, "sides of the hull die"),
    F("ac", 1, 1 / 20, "armour class"),
    F("size", 1, 1 / 5, "size class: 0 tiny .. 5 gargantuan"),
    F("speed_unit", 1, FEET, "feet per successful Navigate"),
    F("sections", 1, 1 / 4, "navigation sections"),
    F("traits", 3, 1.0, "self-steering, agile, rails"),
    F("initiative", 1, 1 / 20, "ship initiative this round (with Command)"),
    F("speed_gained", 1, FEET, "feet gained from Navigate this round"),
    F("movement_left", 1, FEET, "feet of movement left this turn"),
    F("helm", 2, 1.0, "helm manned this round, ship may turn this round"),
    F("cut_lines", 1, 1.0, "1 if the crew will cut the grappling lines this round"),
    F("grapple", 3, 1.0, "grappled at all, held by a larger ship, tow cost per square (x1/4)"),
    F("can_ram", 1, 1.0, "1 if an enemy ship can be rammed now"),
    F("round", 1, 1 / 30, "round number"),
]

CREW_FIELDS = [
    F("present", 1, 1.0, "1 if this crew slot holds a crew member"),
    F("conscious", 1, 1.0, "1 if able to act (not incapacitated)"),
    F("hp_fraction", 1, 1.0, "hit points / maximum"),
    F("prone", 1, 1.0, "1 if knocked prone"),
    F("abilities", 4, MOD, "strength, dexterity, intelligence, charisma modifiers"),
    F("proficiency", 1, MOD, "proficiency bonus"),
    F("proficient", 2, 1.0, "water vehicles, siege weapons"),
    F("heals_left", 1, 1 / 3, "healing uses left"),
    F("action", len(KINDS), 1.0, "one-hot kind of this round's action (none, navigate, steer, ...)"),
]

WEAPON_FIELDS = [
    F("present", 1, 1.0, "1 if this mount holds a weapon"),
    F("working", 1, 1.0, "1 if its hit points are above 0"),
    F("hp_fraction", 1, 1.0, "hit points / maximum"),
    F("ammo", 1, 1 / 10, "ammunition left"),
    F("arc", len(ARCS), 1.0, "one-hot arc: bow, starboard, stern, port, all"),
    F("ranges", 2, FEET, "normal and long range in feet"),
    F("mean_damage", 1, 1 / 40, "average damage of a hit"),
    F("grapples", 2, 1.0, "grappling weapon, holding a ship now"),
    F("manned", 2, 1.0, "operated this round (attack on the ship's turn), readied this round"),
    F("attack_modifier", 1, 1 / 10, "attack modifier of the crew member manning it (0 if none)"),
]


def _weapon_fields(max_enemies: int) -> list[F]:
    return WEAPON_FIELDS + [F("covers", 2 * max_enemies, 1.0,
                              "per enemy slot: in its arc within long range; then per enemy: within normal range")]

OTHER_FIELDS = [
    F("present", 1, 1.0, "1 if this slot holds a ship still on the board"),
    F("status", 2, 1.0, "one-hot afloat, sinking"),
    F("offset", 2, LENGTH, "dx, dy from the observer in squares"),
    F("ahead_starboard", 2, LENGTH, "offset in the observer's frame: ahead, to starboard"),
    F("distance", 1, LENGTH, "distance in squares (diagonals count one)"),
    F("facing_relative", 8, 1.0, "one-hot its facing minus the observer's, in compass points"),
    F("hull", 1, HULL, "hull points"),
    F("hull_fraction", 1, 1.0, "hull points / maximum"),
    F("max_hull", 1, HULL, "maximum hull points"),
    F("hull_dice_left", 1, 1 / 10, "hull dice left"),
    F("ac", 1, 1 / 20, "armour class"),
    F("size_difference", 1, 1 / 5, "its size class minus the observer's"),
    F("speed", 2, FEET, "speed unit, normal maximum speed"),
    F("agile", 1, 1.0, "1 if agile"),
    F("initiative", 2, 1.0, "initiative x1/20, 1 if it acts before the observer this phase"),
    F("ram_geometry", 2, 1.0, "it is directly ahead of the observer; the observer is directly ahead of it"),
    F("grapple", 2, 1.0, "grappled with the observer, grappled with another ship"),
    F("speed_gained", 1, FEET, "feet it gained from Navigate this round"),
    F("crew", 3, 1.0, "per crew slot below: conscious, hp fraction, prone (flattened)"),
    F("weapons", 1, 1.0, "see the per-weapon fields below"),
]


def _other_fields(max_crew: int, max_weapons: int) -> list[F]:
    head = [f for f in OTHER_FIELDS if f.name not in ("crew", "weapons")]
    crew = [F("crew", 3 * max_crew, 1.0, "per crew slot: conscious, hp fraction, prone")]
    weapons = [F("weapons", 6 * max_weapons, 1.0,
                 "per weapon slot: working, hp fraction, has ammo, operated, readied, covers the observer")]
    return head + crew + weapons


def _move_fields(maneuvers: int) -> list[F]:
    """Per value of the ``maneuver`` component, what it would lead to (zeros unless holding MOVE)."""
    return [
        F("move.cover", maneuvers, 1 / 4, "operated weapons that would bear on an enemy from the end square "
                                           "(1 at normal range, 1/3 at long range); 0 if not allowed"),
        F("move.distance", maneuvers, LENGTH, "squares from the end square to the nearest enemy; 0 if not allowed"),
        F("move.ram", maneuvers, 1.0, "1 if it ends with an enemy directly ahead and movement left to ram"),
        F("move.exposed", maneuvers, 1.0, "1 if it ends in front of an enemy's bow within its reach"),
    ]


def observation_spec(config: CrewPhaseConfig) -> ObservationSpec:
    rules = config.house_rules
    n = rules.max_ships_per_side
    other = _other_fields(rules.max_crew, rules.max_weapons)
    maneuvers = len(build_maneuvers(config.max_forward, rules.max_turn_points))
    return ObservationSpec(tuple(
        [F(f"self.{f.name}", f.size, f.scale, f.description) for f in SELF_FIELDS]
        + group_fields("crew", rules.max_crew, CREW_FIELDS)
        + group_fields("weapon", rules.max_weapons, _weapon_fields(n))
        + group_fields("ally", n - 1, other)
        + group_fields("enemy", n, other)
        + _move_fields(maneuvers)
    ))


_ONE_HOT8 = [tuple(1.0 if i == k else 0.0 for i in range(8)) for k in range(8)]
_PHASES = [tuple(1.0 if i == k else 0.0 for i in range(3)) for k in range(3)]
_NOT_DECIDING = (0.0, 0.0, 0.0)
_ARC_HOT = [tuple(1.0 if i == k else 0.0 for i in range(len(ARCS))) for k in range(len(ARCS))]
_KIND_HOT = {kind: tuple(1.0 if k is kind else 0.0 for k in KINDS) for kind in KINDS}
_STATUS = {Status.AFLOAT: (1.0, 0.0), Status.SINKING: (0.0, 1.0)}
_NO_STATUS = (0.0, 0.0)
# Enum members read once: Enum class attributes are slow to read in Python 3.11.
_SUNK = Status.SUNK
_MOVE, _ATTACK = Phase.MOVE, Phase.ATTACK
_UNIT = [(dx / math.hypot(dx, dy), dy / math.hypot(dx, dy)) for dx, dy in STEP]
_CREW_SIZE = sum(f.size for f in CREW_FIELDS)
#: ``_ARC_ROWS[facing][arc]``: the row of :data:`ARC_CELLS` of an arc seen from a facing.
_ARC_ROWS = tuple(tuple(rows[facing] for rows in ARC_CELLS) for facing in range(8))
_OTHER_HEAD = sum(f.size for f in OTHER_FIELDS if f.name not in ("crew", "weapons"))


Values = tuple[float, ...]
#: ``rows[prone][hp]``: the values of a crew member's slot that follow from its hit points and prone flag.
CrewRows = tuple[tuple[Values, ...], tuple[Values, ...]]


@dataclass(frozen=True, slots=True)
class ShipConstants:
    """The values of one ship's blocks that never change in a battle, and tables of those that follow
    from a few small numbers (hit points, prone): looked up instead of worked out on every call."""

    traits: Values                       # own block: hull die, AC, size, speed unit, sections, traits
    max_hull: float
    crew: list[CrewRows]                 # per crew member: present, conscious, hp fraction, prone, abilities,
    #                                      proficiency, proficient
    crew_seen: list[CrewRows]            # per crew member, seen from another ship: conscious, hp fraction, prone
    weapons: list[Values]                # per weapon: arc, ranges, mean damage, grappling
    weapon_health: list[tuple[Values, ...]]  # per weapon, by hit points: present, working, hp fraction
    weapon_seen: list[tuple[Values, ...]]    # the same seen from another ship: working, hp fraction
    as_other: Values                     # seen from another ship: max hull, AC, speeds, agile


class ObserverConstants:
    """What the observer works out once per game: block offsets, padding, one-hots by action code and
    each ship's constant values."""

    def __init__(self, game: CrewPhaseGame) -> None:
        actions = game.actions
        self.square_feet: int = game.rules.square_feet
        self.command_bonus: int = game.rules.command_bonus
        self.max_enemies = actions.max_enemies
        self.action_hot = tuple(_KIND_HOT[a.kind] for a in actions.crew.actions)
        self.crew_padding = [[0.0] * (_CREW_SIZE * (actions.max_crew - n)) for n in range(actions.max_crew + 1)]
        offsets = game.observation_spec.offsets
        self.size = game.observation_spec.size
        self.other_size = _OTHER_HEAD + 3 * actions.max_crew + 6 * actions.max_weapons
        self.ally_offset = offsets["ally0.present"] if actions.max_enemies > 1 else self.size
        self.enemy_offset = offsets["enemy0.present"]
        self.preview_offset = offsets["move.cover"]
        self.crew_left = [[0.0] * (3 * (actions.max_crew - n)) for n in range(actions.max_crew + 1)]
        self.ships = {ship.id: _ship_constants(ship) for ship in game.state.ships.values()}


def _ship_constants(ship: Ship) -> ShipConstants:
    weapons: list[tuple[float, ...]] = []
    for w in ship.weapons:
        count, sides, bonus = w.dice
        weapons.append((*_ARC_HOT[w.arc], w.range_ft * FEET, w.long_range_ft * FEET,
                        (count * (sides + 1) / 2 + bonus) / 40, float(w.grapples)))
    return ShipConstants(
        traits=(ship.hull_die / 20, ship.ac / 20, ship.size / 5, ship.speed_unit * FEET, ship.sections / 4,
                float(ship.self_steering), float(ship.agile), float(ship.rails)),
        max_hull=ship.max_hp * HULL,
        crew=[_crew_rows(m.max_hp, (1.0,), (m.strength * MOD, m.dexterity * MOD, m.intelligence * MOD,
                                            m.charisma * MOD, m.proficiency * MOD, float(m.water_vehicles),
                                            float(m.siege_weapons))) for m in ship.crew],
        crew_seen=[_crew_rows(m.max_hp, (), ()) for m in ship.crew],
        weapons=weapons,
        weapon_health=[_health_rows(w.max_hp, (1.0,)) for w in ship.weapons],
        weapon_seen=[_health_rows(w.max_hp, ()) for w in ship.weapons],
        as_other=(ship.max_hp * HULL, ship.ac / 20, ship.speed_unit * FEET, ship.normal_max_speed * FEET,
                  float(ship.agile)),
    )


# Tables are shared by every ship with the same numbers, in every game.
@lru_cache(maxsize=256)  # one per hit-point maximum and head
def _health_rows(max_hp: int, head: Values) -> tuple[Values, ...]:
    """``[hp]``: ``head``, then whether hit points are left and their fraction of the maximum."""
    return tuple((*head, float(hp > 0), hp / max_hp) for hp in range(max_hp + 1))


@lru_cache(maxsize=256)
def _crew_rows(max_hp: int, head: Values, tail: Values) -> CrewRows:
    """``[prone][hp]``: ``head``, conscious, hp fraction, prone, then ``tail``."""
    health = _health_rows(max_hp, head)
    standing, prone = (tuple((*row, float(flag), *tail) for row in health) for flag in (False, True))
    return standing, prone


def _constants(game: CrewPhaseGame) -> ObserverConstants:
    constants = game.observer_constants
    if constants is None:
        constants = game.observer_constants = ObserverConstants(game)
    return constants


def observe(game: CrewPhaseGame, agent: str) -> np.ndarray:
    """The float32 vector of ``observation_spec``.

    Each block is built as a Python list and packed by ``struct`` straight into a zeroed buffer that
    becomes the array (numpy and ``array`` convert a list of Python floats item by item through
    generic paths, several times slower); empty and sunk ship slots, and the empty weapon slots ending
    a block, are left as the zeros they start as.
    """
    state = game.state
    constants = _constants(game)
    me = state.ships[agent]
    deciding = not state.ended and state.current == agent
    enemies = game.enemies_of(me)
    out: list[float] = []
    _own_block(game, constants, out, me, deciding)
    _crew_blocks(constants, out, me)
    _weapon_blocks(constants, out, me, enemies)
    buffer = bytearray(4 * constants.size)
    _pack(buffer, 0, out)
    for group, start in ((game.allies_of(me), constants.ally_offset), (enemies, constants.enemy_offset)):
        for slot, other in enumerate(group):
            if other.status is not _SUNK:
                _pack(buffer, start + slot * constants.other_size, _other_block(game, constants, me, other))
    if deciding and state.phase is _MOVE:
        _pack_move_preview(game, me, buffer, constants.preview_offset)
    return np.frombuffer(buffer, _FLOAT32_DTYPE)


@lru_cache(maxsize=64)
def _float32s(count: int) -> struct.Struct:
    return struct.Struct(f"{count}f")


_FLOAT32 = _float32s(1)
#: numpy's float32 dtype as an object: ``np.frombuffer(buffer, _FLOAT32_DTYPE)`` parses no keyword (a third of
#: its cost).
_FLOAT32_DTYPE = np.dtype(np.float32)


def _pack(buffer: bytearray, start: int, values: list[float]) -> None:
    """Write ``values`` as float32 from element ``start`` of ``buffer`` (a bool is written as 1.0 or 0.0,
    which spares the blocks a ``float()`` call per flag)."""
    _float32s(len(values)).pack_into(buffer, 4 * start, *values)


def _own_block(game: CrewPhaseGame, constants: ObserverConstants, out: list[float], me: Ship,
               deciding: bool) -> None:
    state = game.state
    initiative = state.initiative.get(me.id) if state.ship_phase else None
    if initiative is None:
        initiative = me.base_initiative + constants.command_bonus * me.command_successes
    if state.grapples:
        cost, _ = game.move_cost(me)
        grappled = any(g.involves(me.id) for g in state.grapples)
        held = held_by_larger(state, me)
    else:  # nothing towed, nobody held
        cost, grappled, held = constants.square_feet, False, False
    can_ram = deciding and state.phase is _ATTACK and game.ram_target(me) is not None
    own = constants.ships[me.id]
    out += _PHASES[state.phase] if deciding else _NOT_DECIDING
    out += (state.ship_phase, me.x * LENGTH, me.y * LENGTH, me.y * LENGTH,
            (state.width - 1 - me.x) * LENGTH, (state.height - 1 - me.y) * LENGTH, me.x * LENGTH)
    out += _ONE_HOT8[me.facing]
    out += _STATUS.get(me.status, _NO_STATUS)
    out += (me.hp * HULL, me.hp / me.max_hp, own.max_hull, me.below_half, me.hull_dice_left / 10)
    out += own.traits
    out += (initiative / 20, me.speed_ft * FEET, me.movement_left * FEET, me.helmsman is not None,
            me.can_turn, me.cut_lines, grappled, held, cost / constants.square_feet / 4, can_ram, state.round / 30)


def _crew_blocks(constants: ObserverConstants, out: list[float], me: Ship) -> None:
    action_hot = constants.action_hot
    for member, rows in zip(me.crew, constants.ships[me.id].crew):
        out += rows[member.prone][member.hp]
        out.append(member.heals_left / 3)
        out += action_hot[member.action]
    out += constants.crew_padding[len(me.crew)]


def _weapon_blocks(constants: ObserverConstants, out: list[float], me: Ship, enemies: list[Ship]) -> None:
    square_feet = constants.square_feet
    slots = constants.max_enemies
    # Each enemy on the board: its slot, its offset's cell in the arc tables and its distance in feet, shared
    # by every weapon (covers_square written out: one row lookup per weapon, one index per enemy).
    bearings: list[tuple[int, int, int]] = []
    for e, enemy in enumerate(enemies):
        if enemy.status is not _SUNK:
            dx, dy = enemy.x - me.x, enemy.y - me.y
            bearings.append((e, cell(dx, dy), max(abs(dx), abs(dy)) * square_feet))
    arcs = _ARC_ROWS[me.facing]
    own = constants.ships[me.id]
    for weapon, fixed, health in zip(me.weapons, own.weapons, own.weapon_health):
        manned_by = weapon.operator if weapon.operator is not None else weapon.readied_by
        modifier = 0.0
        if manned_by is not None:
            op = me.crew[manned_by]
            modifier = ((op.dexterity if weapon.ability == "dexterity" else op.strength)
                        + (op.proficiency if op.siege_weapons else 0) + weapon.attack_bonus) / 10
        out += health[weapon.hp]
        out.append(weapon.ammo / 10)
        out += fixed
        out += (weapon.holding is not None, weapon.operator is not None, weapon.readied_by is not None, modifier)
        covers = [0.0] * (2 * slots)
        row = arcs[weapon.arc]
        for e, at, feet in bearings:
            if feet <= weapon.long_range_ft and row[at]:
                covers[e] = 1.0
                covers[slots + e] = feet <= weapon.range_ft
        out += covers


def _pack_move_preview(game: CrewPhaseGame, me: Ship, buffer: bytearray, start: int) -> None:
    """Write the four ``move.*`` rows from element ``start``: their non-zero values, at the legal maneuvers
    (a handful of the values: the rest stay zero)."""
    legal = game.legal_maneuvers().tolist()
    seen = preview.outlook(game, me, legal)
    if seen is None:
        return
    row = 4 * len(game.actions.maneuvers)  # bytes from one row to the next
    pack = _FLOAT32.pack_into
    for i, coverage, nearest, ram, exposed in zip(legal, seen.coverage, seen.nearest, seen.ram, seen.exposed):
        at = 4 * (start + i)
        if coverage:
            pack(buffer, at, coverage / 4)
        pack(buffer, at + row, nearest * LENGTH)  # a distance is never 0
        if ram:
            pack(buffer, at + 2 * row, 1.0)
        if exposed:
            pack(buffer, at + 3 * row, 1.0)


def _other_block(game: CrewPhaseGame, constants: ObserverConstants, me: Ship, other: Ship) -> list[float]:
    """An ally or enemy slot, up to its last weapon (empty weapon slots after it stay zero)."""
    state = game.state
    dx, dy = other.x - me.x, other.y - me.y
    ux, uy = _UNIT[me.facing]
    initiative = state.initiative.get(other.id, other.base_initiative) if state.ship_phase else (
        other.base_initiative + constants.command_bonus * other.command_successes)
    if state.grapples:
        grappled_me = grappled_with(state, me.id, other.id)
        grappled_else = not grappled_me and any(g.involves(other.id) for g in state.grapples)
    else:
        grappled_me = grappled_else = False
    theirs = constants.ships[other.id]
    max_hull, ac, speed_unit, max_speed, agile = theirs.as_other
    my_step, its_step = STEP[me.facing], STEP[other.facing]
    out = [1.0]
    out += _STATUS[other.status]
    out += (dx * LENGTH, dy * LENGTH, (dx * ux + dy * uy) * LENGTH, (dx * -uy + dy * ux) * LENGTH,
            max(abs(dx), abs(dy)) * LENGTH)
    out += _ONE_HOT8[(other.facing - me.facing) % 8]
    out += (
        other.hp * HULL, other.hp / other.max_hp, max_hull, other.hull_dice_left / 10, ac,
        (other.size - me.size) / 5, speed_unit, max_speed, agile,
        initiative / 20, _acts_before(state.order, other.id, me.id),
        my_step == (dx, dy), its_step == (-dx, -dy), grappled_me, grappled_else, other.speed_ft * FEET,
    )
    for member, rows in zip(other.crew, theirs.crew_seen):
        out += rows[member.prone][member.hp]
    out += constants.crew_left[len(other.crew)]
    # Whether each of its weapons bears on the observer: the offset seen from it is (-dx, -dy) (covers_square
    # written out: the offset's cell worked out once for every weapon).
    feet = max(abs(dx), abs(dy)) * constants.square_feet
    at, facing = cell(-dx, -dy), other.facing
    for weapon, health in zip(other.weapons, theirs.weapon_seen):
        out += health[weapon.hp]
        out += (weapon.ammo > 0, weapon.operator is not None, weapon.readied_by is not None,
                feet <= weapon.long_range_ft and ARC_CELLS[weapon.arc][facing][at] == 1)
    return out


def _acts_before(order: list[str], a: str, b: str) -> bool:
    """Whether ship ``a`` comes before ship ``b`` in this phase's ``order`` (a ship not in it comes last)."""
    if a not in order:
        return False
    return b not in order or order.index(a) < order.index(b)
