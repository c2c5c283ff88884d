"""One captain's view of the battle as a fixed-size float32 vector of named slices.

Sizes come from the config's maxima (ships a side, crew, weapons), so one trained
captain works on every scenario. Enemy blocks come in target-slot order; offsets
are also given in the observer's own frame (ahead, to starboard). While a captain
holds its MOVE decision, the ``move.*`` slices preview every value of the
``maneuver`` component (what would bear, how close, a ram, the enemy's bow).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.grid import STEP
from naval_env.core.spaces import ObservationField as F
from naval_env.core.spaces import ObservationSpec, group_fields
from naval_env.rulesets.crew_phase import preview
from naval_env.rulesets.crew_phase.arcs import directly_ahead
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
_ARC_HOT = [tuple(1.0 if i == k else 0.0 for i in range(len(ARCS))) for k in range(len(ARCS))]
_KIND_HOT = {kind: tuple(1.0 if k is kind else 0.0 for k in KINDS) for kind in KINDS}
_STATUS = {Status.AFLOAT: (1.0, 0.0), Status.SINKING: (0.0, 1.0)}
_UNIT = [(dx / math.hypot(dx, dy), dy / math.hypot(dx, dy)) for dx, dy in STEP]
_CREW_SIZE = sum(f.size for f in CREW_FIELDS)
_OTHER_HEAD = sum(f.size for f in OTHER_FIELDS if f.name not in ("crew", "weapons"))
_WEAPON_HEAD = sum(f.size for f in WEAPON_FIELDS)


def observe(game: CrewPhaseGame, agent: str) -> np.ndarray:
    state = game.state
    rules = game.rules
    me = state.ships[agent]
    out: list[float] = []
    add = out.extend
    deciding = not state.ended and state.current == agent
    add(_PHASES[state.phase] if deciding else (0.0, 0.0, 0.0))
    add((float(state.ship_phase), me.x * LENGTH, me.y * LENGTH, me.y * LENGTH,
         (state.width - 1 - me.x) * LENGTH, (state.height - 1 - me.y) * LENGTH, me.x * LENGTH))
    add(_ONE_HOT8[me.facing])
    add(_STATUS.get(me.status, (0.0, 0.0)))
    initiative = state.initiative.get(me.id) if state.ship_phase else None
    if initiative is None:
        initiative = me.base_initiative + rules.command_bonus * me.command_successes
    cost, _ = game.move_cost(me)
    grappled = any(g.involves(me.id) for g in state.grapples)
    can_ram = deciding and state.phase is Phase.ATTACK and game.ram_target(me) is not None
    add((
        me.hp * HULL, me.hp / me.max_hp, me.max_hp * HULL, float(me.below_half), me.hull_dice_left / 10,
        me.hull_die / 20, me.ac / 20, me.size / 5, me.speed_unit * FEET, me.sections / 4,
        float(me.self_steering), float(me.agile), float(me.rails), initiative / 20, me.speed_ft * FEET,
        me.movement_left * FEET, float(me.helmsman is not None), float(me.can_turn), float(me.cut_lines),
        float(grappled), float(held_by_larger(state, me)), cost / rules.square_feet / 4, float(can_ram),
        state.round / 30,
    ))
    codec = game.actions.crew
    crew_static, weapon_static = _static(game, me)
    for member, fixed in zip(me.crew, crew_static):
        add((1.0, float(member.hp > 0), member.hp / member.max_hp, float(member.prone)))
        add(fixed)
        out.append(member.heals_left / 3)
        add(_KIND_HOT[codec.actions[member.action].kind])
    out.extend([0.0] * (_CREW_SIZE * (game.actions.max_crew - len(me.crew))))
    enemies = game.enemies_of(me)
    n_enemies = game.actions.max_enemies
    for weapon, fixed in zip(me.weapons, weapon_static):
        manned_by = weapon.operator if weapon.operator is not None else weapon.readied_by
        modifier = 0.0
        if manned_by is not None:
            op = me.crew[manned_by]
            modifier = ((op.dexterity if weapon.ability == "dexterity" else op.strength)
                        + (op.proficiency if op.siege_weapons else 0) + weapon.attack_bonus) / 10
        add((1.0, float(weapon.hp > 0), weapon.hp / weapon.max_hp, weapon.ammo / 10))
        add(fixed)
        add((float(weapon.holding is not None), float(weapon.operator is not None),
             float(weapon.readied_by is not None), modifier))
        covers = [0.0] * (2 * n_enemies)
        for e, enemy in enumerate(enemies):
            if enemy.status is not Status.SUNK and game.covers(me, weapon, enemy):
                covers[e] = 1.0
                dist = max(abs(enemy.x - me.x), abs(enemy.y - me.y)) * rules.square_feet
                covers[n_enemies + e] = float(dist <= weapon.range_ft)
        add(covers)
    out.extend([0.0] * ((_WEAPON_HEAD + 2 * n_enemies) * (game.actions.max_weapons - len(me.weapons))))

    rank = {ship_id: i for i, ship_id in enumerate(state.order)}
    allies = game.allies_of(me)
    other_size = _OTHER_HEAD + 3 * game.actions.max_crew + 6 * game.actions.max_weapons
    for group, size in ((allies, n_enemies - 1), (enemies, n_enemies)):
        for other in group:
            _other_block(game, out, me, other, rank)
        out.extend([0.0] * (other_size * (size - len(group))))
    head = np.array(out, dtype=np.float32)
    return np.concatenate((head, _move_preview(game, me, agent) if deciding and state.phase is Phase.MOVE
                           else np.zeros(4 * len(game.actions.maneuvers), dtype=np.float32)))


def _static(game: CrewPhaseGame, ship: Ship) -> tuple[list[tuple[float, ...]], list[tuple[float, ...]]]:
    """The values of a ship's crew and weapon slots that never change in a battle, built once per game."""
    cache: dict[str, tuple[list[tuple[float, ...]], list[tuple[float, ...]]]] = game.__dict__.setdefault(
        "_observer_static", {})
    found = cache.get(ship.id)
    if found is None:
        crew: list[tuple[float, ...]] = [
            (m.strength * MOD, m.dexterity * MOD, m.intelligence * MOD, m.charisma * MOD, m.proficiency * MOD,
             float(m.water_vehicles), float(m.siege_weapons)) for m in ship.crew]
        weapons: list[tuple[float, ...]] = []
        for w in ship.weapons:
            count, sides, bonus = w.dice
            weapons.append((*_ARC_HOT[w.arc], w.range_ft * FEET, w.long_range_ft * FEET,
                            (count * (sides + 1) / 2 + bonus) / 40, float(w.grapples)))
        found = (crew, weapons)
        cache[ship.id] = found
    return found


def _move_preview(game: CrewPhaseGame, me: Ship, agent: str) -> np.ndarray:
    n = len(game.actions.maneuvers)
    block = np.zeros((4, n), dtype=np.float32)
    moves = game.maneuver_outcomes(agent)
    enemies = [e for e in game.enemies_of(me) if e.status is not Status.SUNK]
    if moves is None or not enemies:
        return block.reshape(-1)
    index = moves.index
    block[0, index] = preview.coverage(game, me, moves) / 4
    block[1, index] = np.min([preview.end_distance(moves, e) for e in enemies], axis=0) * LENGTH
    block[2, index] = np.any([preview.ram_ready(moves, e) for e in enemies], axis=0)
    block[3, index] = np.any([preview.in_its_bow(game, moves, e) for e in enemies], axis=0)
    return block.reshape(-1)


def _other_block(game: CrewPhaseGame, out: list[float], me: Ship, other: Ship, rank: dict[str, int]) -> None:
    state = game.state
    actions = game.actions
    if other.status is Status.SUNK:
        out.extend([0.0] * (_OTHER_HEAD + 3 * actions.max_crew + 6 * actions.max_weapons))
        return
    dx, dy = other.x - me.x, other.y - me.y
    ux, uy = _UNIT[me.facing]
    initiative = state.initiative.get(other.id, other.base_initiative) if state.ship_phase else (
        other.base_initiative + game.rules.command_bonus * other.command_successes)
    out.append(1.0)
    out.extend(_STATUS[other.status])
    out.extend((dx * LENGTH, dy * LENGTH, (dx * ux + dy * uy) * LENGTH, (dx * -uy + dy * ux) * LENGTH,
                max(abs(dx), abs(dy)) * LENGTH))
    out.extend(_ONE_HOT8[(other.facing - me.facing) % 8])
    grappled_me = grappled_with(state, me.id, other.id)
    out.extend((
        other.hp * HULL, other.hp / other.max_hp, other.max_hp * HULL, other.hull_dice_left / 10, other.ac / 20,
        (other.size - me.size) / 5, other.speed_unit * FEET, other.normal_max_speed * FEET, float(other.agile),
        initiative / 20, float(rank.get(other.id, 99) < rank.get(me.id, 99)),
        float(directly_ahead(me.x, me.y, me.facing) == (other.x, other.y)),
        float(directly_ahead(other.x, other.y, other.facing) == (me.x, me.y)),
        float(grappled_me), float(not grappled_me and any(g.involves(other.id) for g in state.grapples)),
        other.speed_ft * FEET,
    ))
    for member in other.crew:
        out.extend((float(member.hp > 0), member.hp / member.max_hp, float(member.prone)))
    out.extend([0.0] * (3 * (actions.max_crew - len(other.crew))))
    for weapon in other.weapons:
        out.extend((float(weapon.hp > 0), weapon.hp / weapon.max_hp, float(weapon.ammo > 0),
                    float(weapon.operator is not None), float(weapon.readied_by is not None),
                    float(game.covers(other, weapon, me))))
    out.extend([0.0] * (6 * (actions.max_weapons - len(other.weapons))))
