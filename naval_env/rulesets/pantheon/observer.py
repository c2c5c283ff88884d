"""One captain's view of the battle as a fixed-size float32 vector of named slices.

Enemy blocks come in the same order as the attack target slots; positions are
also given in the observer's own frame (ahead, to starboard) so a policy can
read "in front of me" without learning the compass.
"""

from __future__ import annotations

import math
import struct
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.grid import STEP, chebyshev
from naval_env.core.spaces import ObservationField as F
from naval_env.core.spaces import ObservationSpec, group_fields
from naval_env.rulesets.pantheon.config import PantheonConfig
from naval_env.rulesets.pantheon.crew import REPAIR_CODE
from naval_env.rulesets.pantheon.movement import speed_with_wind
from naval_env.rulesets.pantheon.state import Phase, Ship, Status

if TYPE_CHECKING:
    from naval_env.rulesets.pantheon.engine import PantheonGame

#: numpy's float32 dtype as an object: ``np.frombuffer(buffer, _FLOAT32)`` parses no keyword (a third of its cost).
_FLOAT32 = np.dtype(np.float32)

LENGTH = 1 / 16     # squares
HULL = 1 / 20       # health levels
POOL = 1 / 20
SMALL = 1 / 5
SPEED = 1 / 8
N_BUFFS = REPAIR_CODE - 1

SELF_FIELDS = [
    F("phase", 4, 1.0, "one-hot decision phase: START, MOVE, ATTACK, ESCAPE"),
    F("position", 2, LENGTH, "x, y of its square from the north-west corner, in squares (x east, y south)"),
    F("edge_distance", 4, LENGTH, "squares to the north, east, south and west edges"),
    F("facing", 8, 1.0, "one-hot compass facing: N, NE, E, SE, S, SW, W, NW (clockwise)"),
    F("wind_relative", 8, 1.0, "one-hot (wind - facing) mod 8 in compass points; the wind is where it blows "
                               "toward, so 0 = sailing with it (+2), 4 = into it (-2)"),
    F("allowance", 1, SPEED, "squares of movement this turn: the MOVE decision's allowance, otherwise speed "
                          "plus the wind modifier (at least 1)"),
    F("health", 1, HULL, "current health (negative: below Wrecked)"),
    F("max_health", 1, HULL, "current maximum health"),
    F("health_fraction", 1, 1.0, "health / max health"),
    F("speed", 1, SPEED, "speed rating: squares before wind"),
    F("damage", 1, SMALL, "damage rating"),
    F("maneuverability", 1, SMALL, "maneuverability rating (added to both pools)"),
    F("attack_pool", 1, POOL, "Charisma/Wits + Seamanship + Maneuverability"),
    F("defense_pool", 1, POOL, "Resolve/Composure + Seamanship + Maneuverability"),
    F("retests", 1, SMALL, "retests left"),
    F("fire_range", 1, SMALL, "Fire! range in squares"),
    F("status", 3, 1.0, "one-hot afloat, wrecked, sinking"),
    F("boarding", 1, 1.0, "1 if tied as the boarder"),
    F("boarded", 1, 1.0, "1 if tied as the boarded ship"),
    F("moved_forward", 1, 1.0, "1 if the ship moved forward this turn"),
    F("crew_slots", 1, 1 / 4, "crew actions available"),
    F("crew_repair_available", 1, 1.0, "1 if the crew's Repair can still be used"),
    F("fair_escape_available", 1, 1.0, "1 if Fair Escape may be declared now"),
    F("round", 1, 1 / 40, "round number (1 in the first round)"),
    F("buffs", N_BUFFS, SMALL, "active crew buffs, one count per (kind, scope) in crew label order"),
]

OTHER_FIELDS = [
    F("present", 1, 1.0, "1 if this slot holds a ship still on the board"),
    F("status", 3, 1.0, "one-hot afloat, wrecked, sinking"),
    F("offset", 2, LENGTH, "its square minus the observer's: dx, dy in squares (x east, y south)"),
    F("ahead_starboard", 2, LENGTH, "offset projected on the observer's facing (ahead) and on it turned 90 "
                                    "degrees clockwise (to starboard); diagonal facings use unit vectors"),
    F("distance", 1, LENGTH, "Chebyshev distance in squares (a diagonal step counts one)"),
    F("facing_relative", 8, 1.0, "one-hot (its facing - the observer's) mod 8, in compass points clockwise"),
    F("health", 1, HULL, "current health"),
    F("health_fraction", 1, 1.0, "health / max health"),
    F("damage", 1, SMALL, "damage rating"),
    F("maneuverability", 1, SMALL, "maneuverability rating (added to both pools)"),
    F("attack_pool", 1, POOL, "its attack pool: Charisma/Wits + Seamanship + Maneuverability"),
    F("defense_pool", 1, POOL, "its defense pool: Resolve/Composure + Seamanship + Maneuverability"),
    F("speed", 1, SPEED, "speed rating: squares before wind"),
    F("fire_range", 1, SMALL, "its Fire! range in squares"),
    F("retests", 1, SMALL, "retests left"),
    F("in_my_range", 1, 1.0, "1 if its distance is within the observer's Fire! range"),
    F("me_in_its_range", 1, 1.0, "1 if the observer is within its Fire! range"),
    F("adjacent", 1, 1.0, "1 if in contact with the observer (distance 1)"),
    F("tied_with_me", 1, 1.0, "1 if tied to the observer by boarding"),
    F("tied_elsewhere", 1, 1.0, "1 if tied to another ship"),
    F("acts_before_me", 1, 1.0, "1 if it comes earlier in this round's initiative order"),
]


def observation_spec(config: PantheonConfig) -> ObservationSpec:
    n = config.house_rules.max_ships_per_side
    return ObservationSpec(
        tuple(
            [F(f"self.{f.name}", f.size, f.scale, f.description) for f in SELF_FIELDS]
            + group_fields("ally", n - 1, OTHER_FIELDS)
            + group_fields("enemy", n, OTHER_FIELDS)
        )
    )


_STATUS = {Status.AFLOAT: (1.0, 0.0, 0.0), Status.WRECKED: (0.0, 1.0, 0.0), Status.SINKING: (0.0, 0.0, 1.0)}
_UNIT = [(dx / math.hypot(dx, dy), dy / math.hypot(dx, dy)) for dx, dy in STEP]
_ONE_HOT8 = [tuple(1.0 if i == k else 0.0 for i in range(8)) for k in range(8)]
_PHASES = [tuple(1.0 if i == k else 0.0 for i in range(4)) for k in range(4)]
_OTHER_SIZE = sum(f.size for f in OTHER_FIELDS)


def observe(game: PantheonGame, agent: str) -> np.ndarray:
    state = game.state
    me = state.ships[agent]
    out: list[float] = []
    add = out.extend
    phase = state.phase if state.current == agent and not state.ended else None
    add(_PHASES[phase] if phase is not None else (0.0, 0.0, 0.0, 0.0))
    add((me.x * LENGTH, me.y * LENGTH))
    add((me.y * LENGTH, (state.width - 1 - me.x) * LENGTH, (state.height - 1 - me.y) * LENGTH, me.x * LENGTH))
    add(_ONE_HOT8[me.facing])
    add(_ONE_HOT8[(state.wind - me.facing) % 8])
    allowance = me.speed_this_turn if phase is Phase.MOVE else speed_with_wind(me.speed, me.facing, state.wind)
    add((
        allowance * SPEED, me.health * HULL, me.max_health * HULL, me.health / me.max_health,
        me.speed * SPEED, me.damage * SMALL, me.maneuverability * SMALL, me.attack_pool * POOL,
        me.defense_pool * POOL, me.retests * SMALL, me.fire_range * SMALL,
    ))
    add(_STATUS.get(me.status, (0.0, 0.0, 0.0)))
    add((
        float(me.boarding is not None), float(me.boarded_by is not None), float(me.moved_forward),
        me.crew_slots / 4, float(me.shipwright > 0 and not me.crew_repair_used),
        float(state.fair_escape_ok and phase is Phase.START), state.round / 40,
    ))
    buffs = [0.0] * N_BUFFS
    for code in me.buffs:
        buffs[code - 1] += SMALL
    add(buffs)

    rank = {ship_id: i for i, ship_id in enumerate(state.order)}
    n = game.config.house_rules.max_ships_per_side
    blocks = [(0, out)]  # (offset, values): the slots of ships off the board stay zero
    offset = len(out)
    for group, size in ((game.allies_of(me), n - 1), (game.enemies_of(me), n)):
        for slot, other in enumerate(group):
            if other.status.on_board:
                blocks.append((offset + slot * _OTHER_SIZE, _other_block(me, other, rank)))
        offset += size * _OTHER_SIZE
    return _pack(offset, blocks)


def _pack(size: int, blocks: list[tuple[int, list[float]]]) -> np.ndarray:
    """The float32 vector of ``size`` zeros with ``blocks`` written in: one C-level pack per block into a
    zeroed buffer, which rounds each value as a cast to float32 does and costs a third of ``np.array`` on
    the whole list. A value past float32's range (only a loaded position can hold one) is cast by numpy,
    which makes it inf as before."""
    buffer = bytearray(4 * size)
    try:
        for offset, values in blocks:
            _packer(len(values)).pack_into(buffer, 4 * offset, *values)
    except OverflowError:
        vector = np.zeros(size, dtype=np.float32)
        for offset, values in blocks:
            vector[offset: offset + len(values)] = np.array(values, dtype=np.float32)
        return vector
    return np.frombuffer(buffer, _FLOAT32)


@lru_cache(maxsize=64)  # one per block size
def _packer(count: int) -> struct.Struct:
    return struct.Struct(f"{count}f")


def _other_block(me: Ship, other: Ship, rank: dict[str, int]) -> list[float]:
    """The block of a ship on the board."""
    out: list[float] = []
    dx, dy = other.x - me.x, other.y - me.y
    ux, uy = _UNIT[me.facing]
    distance = chebyshev(me.x, me.y, other.x, other.y)
    out.append(1.0)
    out.extend(_STATUS[other.status])
    out.extend((dx * LENGTH, dy * LENGTH, (dx * ux + dy * uy) * LENGTH, (dx * -uy + dy * ux) * LENGTH,
                distance * LENGTH))
    out.extend(_ONE_HOT8[(other.facing - me.facing) % 8])
    out.extend((
        other.health * HULL, other.health / other.max_health, other.damage * SMALL,
        other.maneuverability * SMALL, other.attack_pool * POOL, other.defense_pool * POOL,
        other.speed * SPEED, other.fire_range * SMALL, other.retests * SMALL,
        float(distance <= me.fire_range), float(distance <= other.fire_range), float(distance == 1),
        float(other.tied_to == me.id), float(other.tied_to is not None and other.tied_to != me.id),
        float(rank[other.id] < rank[me.id]),
    ))
    return out
