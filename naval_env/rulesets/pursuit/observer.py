"""One captain's view of the battle as a fixed-size float32 vector of named slices.

Enemy blocks come in the same order as the target slots of the actions. Every
value is scaled to stay within [-10, 10] (distances are clipped beyond 2000 yards).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from itertools import product
from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.spaces import ObservationField as F
from naval_env.core.spaces import ObservationSpec, group_fields
from naval_env.rulesets.pursuit.config import MachineClass, PursuitConfig
from naval_env.rulesets.pursuit.geometry import relation
from naval_env.rulesets.pursuit.machines import Reach, aims_and_fires, reach_of
from naval_env.rulesets.pursuit.propulsion import crew_options, switching, working_drive
from naval_env.rulesets.pursuit.state import (
    AFLOAT,
    COMMAND,
    OARS,
    ROWED,
    SAILED,
    SINKING,
    Drive,
    Machine,
    Ship,
)

if TYPE_CHECKING:
    from naval_env.rulesets.pursuit.engine import PursuitGame

YARDS = 1 / 200
SPEED = 1 / 20
HULL = 1 / 100
SCORE = 1 / 20
RANGE = 1 / 300
WIND_STRENGTHS = ("calm", "light", "moderate", "strong", "gale")

SELF_FIELDS = [
    F("phase", 3, 1.0, "one-hot decision phase: COMMAND, MANEUVER, GUNS (zeros: not deciding)"),
    F("hull_fraction", 1, 1.0, "Health left / Health"),
    F("hull", 1, HULL, "Health left"),
    F("scuttled", 1, 1.0, "1 if scuttled (half Speed, 2 banes)"),
    F("grounded", 1, 1.0, "1 if aground"),
    F("on_rocks", 1, 1.0, "1 if aground on rocks"),
    F("agility", 1, SCORE, "the ship's Agility (from its pilot or captain)"),
    F("intellect", 1, SCORE, "the captain's Intellect"),
    F("will", 1, SCORE, "the captain's Will"),
    F("maneuverability", 1, 1 / 3, "maneuverability boons (+) or banes (-)"),
    F("seaworthiness", 1, 1 / 3, "seaworthiness boons (+) or banes (-)"),
    F("propulsion", 3, 1.0, "one-hot oars, sails, changing over"),
    F("drive", 3, 1.0, "this round: rowed, sailed, no way (after the COMMAND phase)"),
    F("can_order", 5, 1.0, "allowed now or next COMMAND: row, tend sails, switch, force rowing, inspire"),
    F("base_speeds", 2, SPEED, "Speed by oars, by sails"),
    F("crew", 3, 1.0, "crew aboard / at the start, crew / rowers needed (max 1), crew / sail crew needed (max 1)"),
    F("fatigue", 2, 1.0, "1 if fatigued; Health penalty / crew Health"),
    F("boosts", 4, 1.0, "forced rowing bonus / 6, forced rowing spent, inspiring bonus / 6, inspiring on cooldown"),
    F("mishap_effects", 3, 1.0, "slowed, helm jammed, banes on the next maneuver / 2"),
    F("wind", 4, 1.0, "wind strength / 4 (calm 0 .. gale 1), 1 if becalmed, unit vector (x east, y north) "
                     "of where the wind blows toward"),
    F("current", 2, 1.0, "unit vector (x east, y north) of where the fast current flows; zeros without one"),
    F("clock", 1, 1.0, "round / max rounds"),
    F("escape", 2, 1.0, "escape distance / 400 when this side may escape (else 0), 1 if escaping wins"),
    F("shoal", 3, YARDS, "nearest shoal too shallow for this ship (by distance to its edge): dx, dy to its "
                       "centre and its radius, in yards (zeros: none)"),
]

MACHINE_FIELDS = [
    F("present", 1, 1.0, "1 if this slot holds a war machine that is not destroyed"),
    F("fire_mode", 3, 1.0, "one-hot direct, indirect, cone"),
    F("range", 2, RANGE, "maximum and minimum range in yards"),
    F("damage_dice", 1, 0.1, "d6s of damage"),
    F("loaded", 1, 1.0, "1 if loaded"),
    F("load_progress", 1, 1.0, "load actions done / load number"),
    F("aimed", 1, 1.0, "1 if it holds a finished aim"),
    F("misfired", 1, 1.0, "1 if it needs repair"),
    F("damaged", 1, 1.0, "1 if damaged to half its Health"),
    F("one_round_shot", 1, 1.0, "1 if its gunners can aim and fire in one round"),
]

OTHER_FIELDS = [
    F("present", 1, 1.0, "1 if the ship is fighting"),
    F("sinking", 1, 1.0, "1 if sinking"),
    F("offset", 2, YARDS, "its centre minus the observer's: dx, dy in yards (x east, y north)"),
    F("distance", 2, YARDS, "centre to centre, then open water between the hulls (minus both radii, at "
                          "least 0), in yards"),
    F("bearing", 2, 1.0, "unit vector (x east, y north) from the observer's centre to its centre; (1, 0) "
                        "when they coincide"),
    F("hull", 2, 1.0, "Health left / Health, Health left / 100"),
    F("scuttled_grounded", 2, 1.0, "1 if scuttled, 1 if aground"),
    F("motion", 2, SPEED, "its latest maneuver's displacement dx, dy in yards (x east, y north)"),
    F("base_speeds", 2, SPEED, "its Speed by oars and by sails"),
    F("intellect", 1, SCORE, "its captain's Intellect"),
    F("wind_to_it", 3, 1.0, "one-hot: heading toward it is against, across, with the wind"),
    F("my_speeds", 6, SPEED, "observer's Speed fleeing (straight, port, starboard) then pursuing it"),
    F("can_ram", 1, 1.0, "1 if the observer could ram it now"),
    F("threat", 3, 1.0, "its loaded machines / 4, 1 if the observer is within its longest range, "
                        "1 if a loaded machine of it reaches the observer"),
    F("my_guns", 2, 0.25, "observer's machines that reach it, that can aim and fire at it this round"),
]

_FLOAT32 = np.dtype(np.float32)  # a dtype, not its type: numpy converts the type on every call
_FARTHEST = 10 / YARDS  # yards whose scaled distance reaches the observation's bound (10)
_FASTEST = 10 / SPEED   # the same for a Speed or a displacement
_MACHINE_SIZE = sum(f.size for f in MACHINE_FIELDS)
_OTHER_SIZE = sum(f.size for f in OTHER_FIELDS)
_PHASES = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
_NOT_DECIDING = (0.0, 0.0, 0.0)
_FLAG = (0.0, 1.0)  # a bool's field value: numpy converts a float faster than a bool
_BY_OARS, _BY_SAILS, _CHANGING_OVER = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
_DRIVE_FIELD = {drive: (_FLAG[drive is ROWED], _FLAG[drive is SAILED],
                        _FLAG[drive is not ROWED and drive is not SAILED]) for drive in Drive}
_CAN_ORDER = {options: tuple(_FLAG[option] for option in options) for options in product((False, True), repeat=5)}
_MODES = {"direct": (1.0, 0.0, 0.0), "indirect": (0.0, 1.0, 0.0), "cone": (0.0, 0.0, 1.0)}
_RELATIONS = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
_ZERO_MACHINE = (0.0,) * _MACHINE_SIZE
_ZERO_OTHER = (0.0,) * _OTHER_SIZE
_SINKING_OTHER = (0.0, 1.0) + (0.0,) * (_OTHER_SIZE - 2)
_NO_SHOAL = (0.0, 0.0, 0.0)
_NO_SPEEDS = (0.0,) * 7  # my_speeds and can_ram of an ally
_NO_GUNS = (0.0, 0.0)


@dataclass(frozen=True, slots=True)
class _MachineFacts:
    """What the observer needs of one war machine that never changes in a game."""

    fixed: tuple[float, ...]  # the fire_mode, range and damage_dice fields
    load: int
    one_round: bool           # its gunners can aim and fire in one round
    reach: Reach


@dataclass(frozen=True, slots=True)
class _ShipFacts:
    """What the observer needs of one ship that never changes in a game, as already scaled floats."""

    own: tuple[float, ...]          # self: agility .. seaworthiness
    base_speeds: tuple[float, float]
    surroundings: tuple[float, ...]  # self: wind and current
    escape: tuple[float, float]
    as_other: tuple[float, float, float]  # other: base_speeds, intellect
    machines: tuple[_MachineFacts, ...]
    empty_slots: tuple[float, ...]  # zero blocks of the machine slots it leaves empty
    shallows: tuple[tuple[float, float, float], ...]  # centre and radius of each shoal too shallow for it
    allies: tuple[Ship, ...]
    enemies: tuple[Ship, ...]       # in target slot order
    empty_ally_slots: tuple[float, ...]
    empty_enemy_slots: tuple[float, ...]


def observation_spec(config: PursuitConfig) -> ObservationSpec:
    rules = config.house_rules
    n = rules.max_ships_per_side
    return ObservationSpec(tuple(
        [F(f"self.{f.name}", f.size, f.scale, f.description) for f in SELF_FIELDS]
        + group_fields("machine", rules.max_machines, MACHINE_FIELDS)
        + group_fields("ally", n - 1, OTHER_FIELDS)
        + group_fields("enemy", n, OTHER_FIELDS)
    ))


class Observer:
    """Writes observations of one game into one list of floats, converted once; a ship's fixed facts are
    scaled once per game (numpy calls on a few values cost more than the arithmetic)."""

    def __init__(self, game: PursuitGame) -> None:
        self.game = game
        self._facts = {ship.id: self._learn(ship) for ship in game.state.ships.values()}
        self._pack = struct.Struct(f"{game.observation_spec.size}f").pack

    def _learn(self, ship: Ship) -> _ShipFacts:
        game, t = self.game, self.game.table
        escape = game.scenario.escape
        mine = escape is not None and ship.side in escape.sides
        machines = tuple(_machine_facts(t.machine_classes[m.kind], m) for m in ship.machines)
        allies, enemies = game.allies_of(ship), game.enemies_of(ship)
        n = game.rules.max_ships_per_side
        return _ShipFacts(
            own=(ship.agility * SCORE, ship.controller.intellect * SCORE, ship.controller.will * SCORE,
                 ship.maneuverability / 3, ship.seaworthiness / 3),
            base_speeds=(ship.oars * SPEED, ship.sails * SPEED),
            surroundings=(WIND_STRENGTHS.index(game.state.wind_strength) / 4, float(t.wind.becalmed),
                          t.wind_x, t.wind_y, *((t.current_x, t.current_y) if t.has_current else (0.0, 0.0))),
            escape=(_clip(escape.distance / 400) if mine and escape else 0.0,
                    float(mine and escape is not None and escape.result == "win")),
            as_other=(ship.oars * SPEED, ship.sails * SPEED, ship.controller.intellect * SCORE),
            machines=machines,
            empty_slots=_ZERO_MACHINE * (game.rules.max_machines - len(machines)),
            shallows=tuple((s.center[0], s.center[1], s.radius) for s in game.scenario.shoals
                           if s.depth < ship.draft),
            allies=tuple(allies),
            enemies=tuple(enemies),
            empty_ally_slots=_ZERO_OTHER * (n - 1 - len(allies)),
            empty_enemy_slots=_ZERO_OTHER * (n - len(enemies)),
        )

    def observe(self, agent: str) -> np.ndarray:
        game = self.game
        state, t = game.state, game.table
        me = state.ships[agent]
        facts = self._facts[agent]
        phase = state.phase
        deciding = not state.ended and state.order[state.turn] == agent
        ordered = deciding and phase is not COMMAND  # its drive for this round is set
        options = crew_options(t, me)
        remaining = me.remaining
        crew = me.crew
        rowing = crew / me.rowers if me.rowers else 0.0
        sailing = crew / me.sail_crew if me.sail_crew else 0.0
        out = [
            *(_PHASES[phase] if deciding else _NOT_DECIDING),
            remaining / me.health, remaining * HULL, _FLAG[me.scuttled], _FLAG[me.grounded], _FLAG[me.on_rocks],
            *facts.own,
            *(_CHANGING_OVER if switching(t, me) else _BY_OARS if me.propulsion is OARS else _BY_SAILS),
            *_DRIVE_FIELD[me.drive if ordered else Drive.NONE],
            *_CAN_ORDER[options],
            *facts.base_speeds,
            crew / me.crew_max,
            rowing if rowing < 1.0 else 1.0,  # noqa: FURB136 - hot path: a comparison is cheaper than a call
            sailing if sailing < 1.0 else 1.0,  # noqa: FURB136 - hot path: a comparison is cheaper than a call
            _FLAG[me.fatigued], _clip(me.health_penalty / me.crew_health),
            me.forced_bonus / 6, _FLAG[me.forced_locked], me.inspire_bonus / 6,
            _FLAG[me.inspire_retry_after >= state.round],
            _FLAG[me.slowed], _FLAG[me.helm_jammed], me.maneuver_banes / 2,
            *facts.surroundings,
            state.round / game.rules.max_rounds,
            *facts.escape,
            *(_nearest_shoal(me, facts.shallows) if facts.shallows else _NO_SHOAL),
        ]
        for machine, machine_facts in zip(me.machines, facts.machines):
            if machine.destroyed:
                out += _ZERO_MACHINE
            else:
                out += (1.0, *machine_facts.fixed, _FLAG[machine.loaded],
                        machine.load_progress / machine_facts.load, _FLAG[machine.aim_point is not None],
                        _FLAG[machine.misfired], _FLAG[machine.damaged],
                        _FLAG[machine_facts.one_round])
        out += facts.empty_slots

        drive = me.drive if ordered else working_drive(t, me, options)
        for other in facts.allies:
            self._other_block(out, me, facts, other, False, drive)
        out += facts.empty_ally_slots
        for other in facts.enemies:
            self._other_block(out, me, facts, other, True, drive)
        out += facts.empty_enemy_slots
        # struct packs the floats to float32 (the same C cast as numpy) in about half numpy's instructions
        return np.frombuffer(self._pack(*out), _FLOAT32)

    def _other_block(self, out: list[float], me: Ship, my_facts: _ShipFacts, other: Ship, hostile: bool,
                     drive: Drive) -> None:
        if other.status is not AFLOAT:
            out += _SINKING_OTHER if other.status is SINKING else _ZERO_OTHER
            return
        game = self.game
        t = game.table
        facts = self._facts[other.id]
        dx, dy = other.x - me.x, other.y - me.y
        d = math.hypot(dx, dy)
        ux, uy = (dx / d, dy / d) if d > 0 else (1.0, 0.0)
        mx, my = other.motion
        to_me = d - me.radius
        between = to_me - other.radius
        between = between if between > 0.0 else 0.0  # noqa: FURB136 - hot path: a comparison is cheaper than a call
        remaining = other.remaining
        # Offsets and gap are no longer than the distance: within range as long as it is.
        if d < _FARTHEST:
            out += (1.0, 0.0, dx * YARDS, dy * YARDS, d * YARDS, between * YARDS)
        else:
            out += (1.0, 0.0, _clip(dx * YARDS), _clip(dy * YARDS), _clip(d * YARDS), _clip(between * YARDS))
        # Speeds and motions beyond range take a freak wind table: clipped inline, a call costs 5 comparisons.
        out += (ux, uy, remaining / other.health, remaining * HULL, _FLAG[other.scuttled], _FLAG[other.grounded],
                mx * SPEED if -_FASTEST <= mx <= _FASTEST else _clip(mx * SPEED),
                my * SPEED if -_FASTEST <= my <= _FASTEST else _clip(my * SPEED),
                *facts.as_other, *_RELATIONS[relation(ux, uy, t.wind_x, t.wind_y, t.cos_arc)])
        if hostile:
            flee, flee_port, flee_starboard, pursue, pursue_port, pursue_starboard = \
                game.line_speeds(me, ux, uy, drive)
            out += (flee * SPEED if flee <= _FASTEST else 10.0,
                    flee_port * SPEED if flee_port <= _FASTEST else 10.0,
                    flee_starboard * SPEED if flee_starboard <= _FASTEST else 10.0,
                    pursue * SPEED if pursue <= _FASTEST else 10.0,
                    pursue_port * SPEED if pursue_port <= _FASTEST else 10.0,
                    pursue_starboard * SPEED if pursue_starboard <= _FASTEST else 10.0,
                    _FLAG[pursue > 0 and between <= pursue])
        else:
            out += _NO_SPEEDS
        reach = longest = False
        count = 0
        distances = (d, to_me, to_me - other.radius)  # my hull's machines.gauges from it
        for machine, machine_facts in zip(other.machines, facts.machines):
            if machine.destroyed:
                continue
            span = machine_facts.reach  # machines.within, inline: a call per machine costs more than the test
            in_reach = span.near <= d and distances[span.gauge] <= span.far
            longest = longest or in_reach
            if machine.loaded and not machine.misfired:
                count += 1
                reach = reach or in_reach
        out += (count / 4, _FLAG[longest], _FLAG[reach])
        if not hostile:
            out += _NO_GUNS
            return
        aims = shots = 0
        fighting = me.status is AFLOAT
        to_it = d - other.radius
        distances = (d, to_it, to_it - me.radius)  # its hull's machines.gauges from me
        for machine, machine_facts in zip(me.machines, my_facts.machines):
            if machine.destroyed:
                continue
            span = machine_facts.reach
            if span.near <= d and distances[span.gauge] <= span.far:
                aims += 1
                shots += (machine_facts.one_round and machine.loaded and not machine.misfired and fighting
                          and machine.gunners > 0)
        out += (aims * 0.25, shots * 0.25)


def _clip(value: float) -> float:
    """``value`` within the observation's [-10, 10]. Only the unbounded values (distances, Speeds, the crew's
    Health penalty) go through it; every other field stays within the range by the config's limits. Clipping
    the float64 before the cast to float32 gives the same float32 as clipping after it: 10 is exact in both and
    the cast is monotonic."""
    if -10.0 <= value <= 10.0:
        return value
    return 10.0 if value > 10.0 else -10.0


def _machine_facts(cls: MachineClass, machine: Machine) -> _MachineFacts:
    reach = reach_of(cls, machine)
    return _MachineFacts(
        fixed=(*_MODES[cls.fire], reach.far * RANGE, cls.min_range * RANGE, cls.damage_dice * 0.1),
        load=cls.load,
        one_round=aims_and_fires(cls, machine),
        reach=reach,
    )


def observe(game: PursuitGame, agent: str) -> np.ndarray:
    return game.observer.observe(agent)


def _nearest_shoal(me: Ship, shallows: tuple[tuple[float, float, float], ...]) -> tuple[float, float, float]:
    best = _NO_SHOAL
    best_gap = math.inf
    for x, y, radius in shallows:
        dx, dy = x - me.x, y - me.y
        edge = math.hypot(dx, dy) - radius
        if edge < best_gap:
            best_gap, best = edge, (_clip(dx * YARDS), _clip(dy * YARDS), _clip(radius * YARDS))
    return best
