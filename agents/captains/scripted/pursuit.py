"""Scripted `pursuit` captains with distinct tactics. They read the engine, never the dice.

Captains: ``hunter``, ``gunner``; each class declares its ``description`` (how it plays), which
``naval-tactics list`` and the server's catalogue show.

Both run for open water when their side wins by escaping (the chase's quarry).
"""

from __future__ import annotations

import math

import numpy as np

from naval_agents.captains.base import Captain, Decision
from naval_env.rulesets.pursuit.actions import PursuitActions as A
from naval_env.rulesets.pursuit.engine import PursuitGame
from naval_env.rulesets.pursuit.geometry import entry_along
from naval_env.rulesets.pursuit.machines import OrderKind, max_range
from naval_env.rulesets.pursuit.maneuvers import ManeuverKind, crash_kind, gap, heading
from naval_env.rulesets.pursuit.propulsion import Command, PropulsionOrder, speed_along
from naval_env.rulesets.pursuit.state import Drive, Phase, Propulsion, Ship

VEER_CLOSURE = {0: 1.0, 1: math.cos(math.radians(45)), -1: math.cos(math.radians(45))}


class ScriptedPursuitCaptain(Captain):
    """Shared plumbing: phase dispatch, propulsion, target choice and gunnery."""

    needs_observation = False
    rams = False

    def act(self, decision: Decision) -> np.ndarray:
        game = decision.game
        if not isinstance(game, PursuitGame):
            raise TypeError(f"{self.name} captain needs the pursuit game in its Decision, got {type(game).__name__}")
        spec = game.action_spec
        parts = spec.split(decision.action_mask)
        ship = game.state.ships[decision.agent]
        action = spec.noop()
        target = self.target(game, ship)
        phase = game.state.phase
        if phase is Phase.COMMAND:
            action[A.PROPULSION] = self.propulsion(game, ship, target, parts[A.PROPULSION])
            action[A.COMMAND] = self.command(game, ship, parts[A.COMMAND])
        elif phase is Phase.MANEUVER:
            action[A.MANEUVER] = self.maneuver(game, ship, target, parts[A.MANEUVER])
        else:
            for i in range(len(ship.machines)):
                action[A.MACHINE + i] = self.gun_order(game, ship, i, target, parts[A.MACHINE + i])
        return action

    # Targets and movement ------------------------------------------------------
    def target(self, game: PursuitGame, ship: Ship) -> Ship | None:
        """The weakest fighting enemy, the nearest among equals."""
        enemies = [e for e in game.enemies_of(ship) if e.status.fighting]
        if not enemies:
            return None
        return min(enemies, key=lambda e: (e.remaining, math.hypot(e.x - ship.x, e.y - ship.y)))

    def wants(self, game: PursuitGame, ship: Ship, target: Ship) -> ManeuverKind:
        """Flee, pursue or hold relative to the target."""
        raise NotImplementedError

    def escaping(self, game: PursuitGame, ship: Ship) -> bool:
        escape = game.scenario.escape
        return escape is not None and ship.side in escape.sides and escape.result == "win"

    def propulsion(self, game: PursuitGame, ship: Ship, target: Ship | None, legal: np.ndarray) -> int:
        """Work the ship; change propulsion when the other method is clearly faster where it wants to go."""
        if target is not None and legal[PropulsionOrder.SWITCH]:
            kind = self.wants(game, ship, target)
            if kind is not ManeuverKind.HOLD:
                now = Drive.ROWED if ship.propulsion is Propulsion.OARS else Drive.SAILED
                other = Drive.SAILED if now is Drive.ROWED else Drive.ROWED
                if _best_speed(game, ship, target, kind, other) >= _best_speed(game, ship, target, kind, now) + 4:
                    return PropulsionOrder.SWITCH
        for order in (PropulsionOrder.ROW, PropulsionOrder.TEND_SAILS):
            if legal[order]:
                return order
        return PropulsionOrder.NONE

    def command(self, game: PursuitGame, ship: Ship, legal: np.ndarray) -> int:
        if legal[Command.FORCE_ROWING] and not ship.fatigued:
            return Command.FORCE_ROWING
        if legal[Command.INSPIRE]:
            return Command.INSPIRE
        return Command.NONE

    def maneuver(self, game: PursuitGame, ship: Ship, target: Ship | None, legal: np.ndarray) -> int:
        if target is None:
            return 0
        slot = game.target_slot(ship, target)
        choices = game.actions.maneuvers
        if self.rams and self.ram_pays(game, ship, target):
            code = 1 + 7 * slot + 6
            if legal[code]:
                return code
        kind = self.wants(game, ship, target)
        if kind is ManeuverKind.HOLD:
            return 0
        best, best_score = 0, 0.0
        for code in map(int, np.flatnonzero(legal)):
            choice = choices[code]
            if choice.kind is not kind or choice.target_slot != slot:
                continue
            ux, uy = heading(game.table, ship, target, kind, choice.veer)
            speed = speed_along(game.table, ship, ux, uy, ship.drive)
            if _runs_aground(game, ship, ux, uy, speed + 3):
                continue
            score = speed * VEER_CLOSURE[choice.veer]
            if score > best_score:
                best, best_score = int(code), float(score)
        return best

    def ram_pays(self, game: PursuitGame, ship: Ship, target: Ship) -> bool:
        """The crash would sink the target and leave this ship afloat."""
        amount = ship.health // 2
        if crash_kind(ship, target) == "toward":
            amount += target.health // 2
        return amount >= target.remaining and amount < ship.remaining

    # Gunnery -------------------------------------------------------------------
    def gun_order(self, game: PursuitGame, ship: Ship, index: int, target: Ship | None, legal: np.ndarray) -> int:
        orders = game.actions.orders
        enemies = game.enemies_of(ship)
        slots = [game.target_slot(ship, target)] if target is not None else []
        slots += [k for k, e in enumerate(enemies) if e.status.fighting and k not in slots]
        for slot in slots:
            code = _code(orders, OrderKind.SHOOT, slot)
            if legal[code] and self.clear_shot(game, ship, index, enemies[slot]):
                return code
        machine = ship.machines[index]
        if legal[_code(orders, OrderKind.FIRE)] and machine.aim_point is not None and machine.aim_target:
            aimed = game.state.ships[machine.aim_target]
            if math.hypot(aimed.x - machine.aim_point[0], aimed.y - machine.aim_point[1]) <= aimed.radius:
                return _code(orders, OrderKind.FIRE)
        for kind in (OrderKind.LOAD, OrderKind.REPAIR):
            if legal[_code(orders, kind)]:
                return _code(orders, kind)
        if machine.loaded:
            for slot in slots:
                code = _code(orders, OrderKind.AIM, slot)
                if legal[code] and machine.aim_target != enemies[slot].id:
                    return code
                if legal[code] and machine.aim_point is None:
                    return code
        return 0

    def clear_shot(self, game: PursuitGame, ship: Ship, index: int, target: Ship) -> bool:
        """No friendly hull on a direct shot's line before the target."""
        cls = game.table.machine_classes[ship.machines[index].kind]
        if cls.fire == "indirect":
            return True
        d = math.hypot(target.x - ship.x, target.y - ship.y)
        ux, uy = (target.x - ship.x) / d, (target.y - ship.y) / d
        for ally in game.allies_of(ship):
            if not ally.status.fighting:
                continue
            entry = entry_along(ship.x, ship.y, ux, uy, ally.x, ally.y, ally.radius + cls.area / 2)
            if entry is not None and entry < d:
                return False
        return True


def _code(orders: tuple, kind: OrderKind, slot: int | None = None) -> int:
    return next(i for i, o in enumerate(orders) if o.kind is kind and o.target_slot == slot)


def _best_speed(game: PursuitGame, ship: Ship, target: Ship, kind: ManeuverKind, drive: Drive) -> float:
    best = 0.0
    for veer in (0, 1, -1):
        ux, uy = heading(game.table, ship, target, kind, veer)
        best = max(best, speed_along(game.table, ship, ux, uy, drive) * VEER_CLOSURE[veer])
    return best


def _runs_aground(game: PursuitGame, ship: Ship, ux: float, uy: float, distance: float) -> bool:
    for shoal in game.scenario.shoals:
        if shoal.depth < ship.draft:
            entry = entry_along(ship.x, ship.y, ux, uy, shoal.center[0], shoal.center[1], shoal.radius)
            if entry is not None and entry <= distance:
                return True
    return False


def longest_range(game: PursuitGame, ship: Ship) -> int:
    classes = game.table.machine_classes
    ranges = [max_range(classes[m.kind], m) for m in ship.machines if not m.destroyed]
    return max(ranges, default=0)


class HunterCaptain(ScriptedPursuitCaptain):
    name = "hunter"
    description = (
        "drives the ship as hard as it can (forced rowing, inspiring, the faster propulsion), "
        "pursues the weakest enemy, rams when the crash would sink it and spare its own ship, and "
        "fires every war machine that bears.")
    rams = True

    def wants(self, game: PursuitGame, ship: Ship, target: Ship) -> ManeuverKind:
        if self.escaping(game, ship):
            return ManeuverKind.FLEE
        return ManeuverKind.PURSUE if gap(ship, target) > 0 else ManeuverKind.HOLD


class GunnerCaptain(ScriptedPursuitCaptain):
    name = "gunner"
    description = (
        "keeps at the range its war machines like (most of its longest range), fleeing when the "
        "enemy closes and pursuing when it drifts out, never rams, and fires every war machine "
        "that bears.")
    keep = 0.8  # share of its longest range it stands off at

    def wants(self, game: PursuitGame, ship: Ship, target: Ship) -> ManeuverKind:
        if self.escaping(game, ship):
            return ManeuverKind.FLEE
        distance = math.hypot(target.x - ship.x, target.y - ship.y)
        ideal = self.keep * longest_range(game, ship)
        escape = game.scenario.escape
        if escape is not None and target.side in escape.sides:
            ideal = min(ideal, 0.6 * escape.distance)  # never let a quarry slip away
        if distance > ideal + 10:
            return ManeuverKind.PURSUE
        if distance < ideal - 30:
            return ManeuverKind.FLEE
        return ManeuverKind.HOLD


#: Found by naval_agents.captains.registry; the first one is the env's default opponent.
CAPTAINS = {"hunter": HunterCaptain, "gunner": GunnerCaptain}
