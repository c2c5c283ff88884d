"""One captain's view of the battle as a fixed-size float32 vector of named slices.

Enemy blocks come in the same order as the target slots of the actions. Every
value is scaled to stay within [-10, 10] (distances are clipped beyond 2000 yards).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from naval_env.core.spaces import ObservationField as F
from naval_env.core.spaces import ObservationSpec, group_fields
from naval_env.rulesets.pursuit.config import PursuitConfig
from naval_env.rulesets.pursuit.geometry import relation
from naval_env.rulesets.pursuit.machines import max_range
from naval_env.rulesets.pursuit.propulsion import (
    can_force,
    can_inspire,
    can_row,
    can_switch,
    can_tend,
    switching,
    working_drive,
)
from naval_env.rulesets.pursuit.state import Drive, Phase, Propulsion, Ship, Status

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
    F("wind", 4, 1.0, "wind strength / 4, becalmed, wind direction (x, y)"),
    F("current", 2, 1.0, "fast current direction (x, y); zeros without one"),
    F("clock", 1, 1.0, "round / max rounds"),
    F("escape", 2, 1.0, "escape distance / 400 when this side may escape (else 0), 1 if escaping wins"),
    F("shoal", 3, YARDS, "nearest shoal too shallow for this ship: dx, dy, radius (zeros: none)"),
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
    F("offset", 2, YARDS, "dx, dy from the observer in yards"),
    F("distance", 2, YARDS, "centre distance and open water between hulls"),
    F("bearing", 2, 1.0, "unit vector from the observer to it"),
    F("hull", 2, 1.0, "Health left / Health, Health left / 100"),
    F("scuttled_grounded", 2, 1.0, "1 if scuttled, 1 if aground"),
    F("motion", 2, SPEED, "its latest maneuver's displacement in yards"),
    F("base_speeds", 2, SPEED, "its Speed by oars and by sails"),
    F("intellect", 1, SCORE, "its captain's Intellect"),
    F("wind_to_it", 3, 1.0, "one-hot: heading toward it is against, across, with the wind"),
    F("my_speeds", 6, SPEED, "observer's Speed fleeing (straight, port, starboard) then pursuing it"),
    F("can_ram", 1, 1.0, "1 if the observer could ram it now"),
    F("threat", 3, 1.0, "its loaded machines / 4, 1 if the observer is within its longest range, "
                        "1 if a loaded machine of it reaches the observer"),
    F("my_guns", 2, 0.25, "observer's machines that reach it, that can aim and fire at it this round"),
]

_MACHINE_SIZE = sum(f.size for f in MACHINE_FIELDS)
_OTHER_SIZE = sum(f.size for f in OTHER_FIELDS)
_PHASES = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
_MODES = {"direct": (1.0, 0.0, 0.0), "indirect": (0.0, 1.0, 0.0), "cone": (0.0, 0.0, 1.0)}
_RELATIONS = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
_ZERO_MACHINE = [0.0] * _MACHINE_SIZE
_ZERO_OTHER = [0.0] * _OTHER_SIZE
_ZERO7 = (0.0,) * 7


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
    """Writes observations of one game; the parts that never change are computed once per captain."""

    def __init__(self, game: PursuitGame) -> None:
        self.game = game
        self._static: dict[str, list[float]] = {}
        self._machine_static: dict[str, list[list[float]]] = {}
        self._other_static: dict[str, list[float]] = {}
        self._reach: dict[str, list[tuple[str, int, int, bool]]] = {}

    def _statics(self, me: Ship) -> tuple[list[float], list[list[float]]]:
        cached = self._static.get(me.id)
        if cached is None:
            game, t = self.game, self.game.table
            escape = game.scenario.escape
            mine = escape is not None and me.side in escape.sides
            cached = [
                me.agility * SCORE, me.controller.intellect * SCORE, me.controller.will * SCORE,
                me.maneuverability / 3, me.seaworthiness / 3, me.oars * SPEED, me.sails * SPEED,
                WIND_STRENGTHS.index(game.state.wind_strength) / 4, float(t.wind.becalmed), t.wind_x, t.wind_y,
                *((t.current_x, t.current_y) if t.has_current else (0.0, 0.0)),
                escape.distance / 400 if mine and escape else 0.0,
                float(mine and escape is not None and escape.result == "win"),
            ]
            self._static[me.id] = cached
            classes = t.machine_classes
            self._machine_static[me.id] = [
                [*_MODES[classes[m.kind].fire], max_range(classes[m.kind], m) * RANGE, classes[m.kind].min_range
                 * RANGE, classes[m.kind].damage_dice * 0.1]
                for m in me.machines
            ]
        return cached, self._machine_static[me.id]

    def observe(self, agent: str) -> np.ndarray:
        game = self.game
        state, t, rules = game.state, game.table, game.rules
        me = state.ships[agent]
        static, machine_static = self._statics(me)
        out: list[float] = []
        add = out.extend
        deciding = not state.ended and state.current == agent
        add(_PHASES[state.phase] if deciding else (0.0, 0.0, 0.0))
        add((me.remaining / me.health, me.remaining * HULL, float(me.scuttled), float(me.grounded),
             float(me.on_rocks)))
        add(static[:5])
        changing = switching(t, me)
        oars = me.propulsion is Propulsion.OARS
        add((float(oars and not changing), float(not oars and not changing), float(changing)))
        drive = me.drive if deciding and state.phase is not Phase.COMMAND else Drive.NONE
        add((float(drive is Drive.ROWED), float(drive is Drive.SAILED),
             float(drive is not Drive.ROWED and drive is not Drive.SAILED)))
        add((float(can_row(t, me)), float(can_tend(t, me)), float(can_switch(t, me)), float(can_force(t, me)),
             float(can_inspire(t, me))))
        add(static[5:7])
        add((me.crew / me.crew_max, min(1.0, me.crew / me.rowers) if me.rowers else 0.0,
             min(1.0, me.crew / me.sail_crew) if me.sail_crew else 0.0))
        add((float(me.fatigued), me.health_penalty / me.crew_health))
        add((me.forced_bonus / 6, float(me.forced_locked), me.inspire_bonus / 6,
             float(me.inspire_retry_after >= state.round)))
        add((float(me.slowed), float(me.helm_jammed), me.maneuver_banes / 2))
        add(static[7:13])
        out.append(state.round / rules.max_rounds)
        add(static[13:15])
        add(_nearest_shoal(game, me))

        classes = t.machine_classes
        for machine, fixed in zip(me.machines, machine_static):
            if machine.destroyed:
                add(_ZERO_MACHINE)
                continue
            cls = classes[machine.kind]
            out.append(1.0)
            add(fixed)
            add((float(machine.loaded), machine.load_progress / cls.load, float(machine.aim_point is not None),
                 float(machine.misfired), float(machine.damaged), float(machine.gunners >= cls.aim + 1)))
        add(_ZERO_MACHINE * (rules.max_machines - len(me.machines)))

        n = rules.max_ships_per_side
        allies = game.allies_of(me)
        enemies = game.enemies_of(me)
        drive_now = me.drive if deciding and state.phase is not Phase.COMMAND else working_drive(t, me)
        for other in allies:
            self._other_block(out, me, other, False, drive_now)
        add(_ZERO_OTHER * (n - 1 - len(allies)))
        for other in enemies:
            self._other_block(out, me, other, True, drive_now)
        add(_ZERO_OTHER * (n - len(enemies)))
        vector = np.array(out, dtype=np.float32)
        np.clip(vector, -10.0, 10.0, out=vector)
        return vector

    def _other_block(self, out: list[float], me: Ship, other: Ship, hostile: bool, drive: Drive) -> None:
        if other.status is not Status.AFLOAT:
            out.extend(_ZERO_OTHER)
            if other.status is Status.SINKING:
                out[len(out) - _OTHER_SIZE + 1] = 1.0
            return
        game = self.game
        t = game.table
        fixed = self._other_static.get(other.id)
        if fixed is None:
            fixed = [other.oars * SPEED, other.sails * SPEED, other.controller.intellect * SCORE]
            self._other_static[other.id] = fixed
        dx, dy = other.x - me.x, other.y - me.y
        d = math.hypot(dx, dy)
        ux, uy = (dx / d, dy / d) if d > 0 else (1.0, 0.0)
        mx, my = other.motion
        between = max(0.0, d - me.radius - other.radius)
        out.extend((1.0, 0.0, dx * YARDS, dy * YARDS, d * YARDS, between * YARDS, ux, uy,
                    other.remaining / other.health, other.remaining * HULL, float(other.scuttled),
                    float(other.grounded), mx * SPEED, my * SPEED))
        out.extend(fixed)
        out.extend(_RELATIONS[relation(ux, uy, t.wind_x, t.wind_y, t.cos_arc)])
        if hostile:
            speeds = game.maneuver_speeds(me, other, drive)
            out.extend([s * SPEED for s in speeds])
            out.append(float(speeds[3] > 0 and between <= speeds[3]))
        else:
            out.extend(_ZERO7)
        reach = longest = False
        count = 0
        for machine, (mode, far, near, _) in zip(other.machines, self._reaches(other)):
            if machine.destroyed:
                continue
            in_reach = _in_range(mode, far, near, d, me.radius, other.radius)
            longest = longest or in_reach
            if machine.loaded and not machine.misfired:
                count += 1
                reach = reach or in_reach
        out.extend((count / 4, float(longest), float(reach)))
        if hostile:
            aims = shots = 0
            fighting = me.status is Status.AFLOAT
            for machine, (mode, far, near, one_round) in zip(me.machines, self._reaches(me)):
                if machine.destroyed:
                    continue
                if _in_range(mode, far, near, d, other.radius, me.radius):
                    aims += 1
                    shots += (one_round and machine.loaded and not machine.misfired and fighting
                              and machine.gunners > 0)
            out.extend((aims * 0.25, shots * 0.25))
        else:
            out.extend((0.0, 0.0))

    def _reaches(self, ship: Ship) -> list[tuple[str, int, int, bool]]:
        """Per machine: fire mode, maximum and minimum range, and whether its gunners aim and fire in a round."""
        cached = self._reach.get(ship.id)
        if cached is None:
            classes = self.game.table.machine_classes
            cached = [(classes[m.kind].fire, max_range(classes[m.kind], m), classes[m.kind].min_range,
                       m.gunners >= classes[m.kind].aim + 1) for m in ship.machines]
            self._reach[ship.id] = cached
        return cached


def _in_range(mode: str, far: int, near: int, d: float, target_radius: float, shooter_radius: float) -> bool:
    """``machines.target_in_range`` for a known centre distance ``d``."""
    if mode == "indirect":
        return near <= d <= far
    if mode == "cone":
        return d - target_radius - shooter_radius <= far
    return d - target_radius <= far


def observe(game: PursuitGame, agent: str) -> np.ndarray:
    return game.observer.observe(agent)


def _nearest_shoal(game: PursuitGame, me: Ship) -> tuple[float, float, float]:
    best: tuple[float, float, float] = (0.0, 0.0, 0.0)
    best_gap = math.inf
    for shoal in game.scenario.shoals:
        if shoal.depth >= me.draft:
            continue
        dx, dy = shoal.center[0] - me.x, shoal.center[1] - me.y
        edge = math.hypot(dx, dy) - shoal.radius
        if edge < best_gap:
            best_gap, best = edge, (dx * YARDS, dy * YARDS, shoal.radius * YARDS)
    return best
