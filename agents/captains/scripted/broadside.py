"""Scripted `broadside` captains with distinct tactics. They read the engine, never the dice.

Captains: ``rammer``, ``gunner``; each class declares its ``description`` (how it plays), which
``naval-tactics list`` and the server's catalogue show.

Both score every legal maneuver at once with ``naval_env.rulesets.broadside.plans``.
"""

from __future__ import annotations

import math

import numpy as np

from naval_agents.captains.base import Captain, Decision
from naval_env.rulesets.broadside.actions import (
    MELEE_FIGHT,
    MELEE_HEROES_FIRST,
    MELEE_WITHDRAW,
)
from naval_env.rulesets.broadside.engine import BroadsideGame
from naval_env.rulesets.broadside.geometry import Battery, distance
from naval_env.rulesets.broadside.plans import Paths, predict, ram_hits
from naval_env.rulesets.broadside.state import Phase, Ship

ALL_BOARDERS = 4          # the ``boarders`` value that sends every marine
EDGE_SAFETY = 3.0         # inches of sea a captain likes to keep between its hull and the table edge


def defenders(ship: Ship) -> int:
    """Who repels boarders: marines and heroes at home."""
    return ship.people.marines + ship.people.heroes


def melee_dice(ship: Ship) -> int:
    """Dice a melee aboard ``ship`` would face: everyone at home."""
    return ship.people.total()


class ScriptedBroadsideCaptain(Captain):
    """Shared plumbing: decision dispatch, gunnery, edge safety; tactics override the hooks."""

    needs_observation = False
    heroes_first = False
    boarding_ratio = 1.0      # board when our marines are at least this times the dice against them
    melee_ratio = 0.5         # withdraw when our boarders fall below this times the defending dice

    def act(self, decision: Decision) -> np.ndarray:
        game = decision.game
        if not isinstance(game, BroadsideGame):
            raise TypeError(f"{self.name} captain needs the broadside game in its Decision, got {type(game).__name__}")
        ship = game.state.ships[decision.agent]
        mask = decision.action_mask
        action = game.action_spec.noop()
        phase = game.state.phase
        if phase is Phase.MANEUVER:
            self.maneuver(game, ship, mask, action)
        elif phase is Phase.GUNNERY:
            self.gunnery(game, ship, mask, action)
            self.archers(game, ship, mask, action)
        elif phase in (Phase.COLLISION_BOARD, Phase.BOARDING):
            self.boarding(game, ship, mask, action)
            self.archers(game, ship, mask, action)
        else:
            self.melee(game, ship, mask, action)
        return action

    # ------------------------------------------------------------------ maneuver
    def maneuver(self, game: BroadsideGame, ship: Ship, mask: np.ndarray, action: np.ndarray) -> None:
        enemies = [e for e in game.enemies_of(ship) if e.status.fighting]
        if not enemies:
            return
        paths = predict(game, ship, mask)
        scores = self.plan_scores(game, ship, paths, enemies) - self.edge_penalty(game, ship, paths)
        best = int(np.argmax(scores))
        A = game.actions
        action[A.speed] = paths.speed[best]
        for gap, component in enumerate(A.turns):
            action[component] = paths.turns[best, gap]

    def plan_scores(self, game: BroadsideGame, ship: Ship, paths: Paths, enemies: list[Ship]) -> np.ndarray:
        raise NotImplementedError

    @staticmethod
    def edge_penalty(game: BroadsideGame, ship: Ship, paths: Paths) -> np.ndarray:
        """Heavy for plans whose track leaves the table (the ship flees), mild for ending near an edge."""
        state = game.state
        radius = ship.shape.radius
        margin = np.minimum.reduce([paths.x, paths.y, state.width - paths.x, state.height - paths.y]) - radius
        leaves = (margin[:, 1:] < 0.05).any(axis=1)
        end = margin[:, -1]
        return np.where(leaves, 1e4, 0.0) + np.where(end < EDGE_SAFETY, 20.0 * (EDGE_SAFETY - end), 0.0)

    # ------------------------------------------------------------------ guns and arrows
    def gunnery(self, game: BroadsideGame, ship: Ship, mask: np.ndarray, action: np.ndarray) -> None:
        spec, A = game.action_spec, game.actions
        parts = spec.split(mask)
        enemies = game.enemies_of(ship)
        for component in A.batteries.values():
            allowed = np.flatnonzero(parts[component][1:])
            if allowed.size:
                action[component] = 1 + min(allowed, key=lambda slot: self.target_rank(ship, enemies[slot]))

    def archers(self, game: BroadsideGame, ship: Ship, mask: np.ndarray, action: np.ndarray) -> None:
        allowed = np.flatnonzero(game.action_spec.split(mask)[game.actions.archers][1:])
        if allowed.size:
            enemies = game.enemies_of(ship)
            action[game.actions.archers] = 1 + min(allowed, key=lambda slot: _gap(ship, enemies[slot]))

    @staticmethod
    def target_rank(ship: Ship, target: Ship) -> tuple[float, float]:
        return target.hull, _gap(ship, target)

    # ------------------------------------------------------------------ boarding and melee
    def boarding(self, game: BroadsideGame, ship: Ship, mask: np.ndarray, action: np.ndarray) -> None:
        """Board the enemy we outnumber most (heroes stay home: a ship with an officer aboard is no prize),
        or reinforce a friend whose deck is being lost."""
        A = game.actions
        parts = game.action_spec.split(mask)
        allowed = np.flatnonzero(parts[A.board][1:]) + 1
        mine = ship.people.marines
        best_value, best_margin = 0, -math.inf
        for value in allowed:
            kind, slot = A.board_target(int(value))  # type: ignore[misc]
            if kind == "ally":
                friend = game.allies_of(ship)[slot]
                margin = 100.0 + sum(p.size for p in friend.boarders.values()) - defenders(friend)
            else:
                target = game.enemies_of(ship)[slot]
                unopposed = target.id in ship.grappled or defenders(target) == 0
                repel = 0 if unopposed else defenders(target)
                margin = mine - self.boarding_ratio * (repel + melee_dice(target))
            if margin >= 0 and margin > best_margin:
                best_value, best_margin = int(value), margin
        if best_value and parts[A.boarders][ALL_BOARDERS]:
            action[A.board] = best_value
            action[A.boarders] = ALL_BOARDERS

    def melee(self, game: BroadsideGame, ship: Ship, mask: np.ndarray, action: np.ndarray) -> None:
        """Fight on while our boarders are not hopelessly outnumbered by the dice against them."""
        A = game.actions
        parts = game.action_spec.split(mask)
        hosts = [host for host in game.enemies_of(ship) if ship.id in host.boarders]
        aboard = sum(sum(p.size for p in host.boarders.values()) for host in hosts)
        against = sum(melee_dice(host) for host in hosts)
        if aboard < self.melee_ratio * against:
            action[A.melee] = MELEE_WITHDRAW
        elif self.heroes_first and parts[A.melee][MELEE_HEROES_FIRST]:
            action[A.melee] = MELEE_HEROES_FIRST
        else:
            action[A.melee] = MELEE_FIGHT


def _gap(a: Ship, b: Ship) -> float:
    return distance(a.shape.x, a.shape.y, b.shape.x, b.shape.y)


def _end_frame(paths: Paths) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """End centre and the unit vectors ahead and to starboard at the end of each plan."""
    radians = np.radians(paths.end_heading)
    return paths.x[:, -1], paths.y[:, -1], np.sin(radians), np.cos(radians)


def _threat(game: BroadsideGame, enemies: list[Ship], ex: np.ndarray, ey: np.ndarray) -> np.ndarray:
    """How exposed each end position is to a ram next turn: inside an enemy rammer's forward reach."""
    danger = np.zeros(ex.size)
    for enemy in enemies:
        vessel = game.vessel(enemy)
        if not vessel.can_ram:
            continue
        reach = (vessel.speeds.ramming or vessel.speeds.battle) + enemy.shape.length
        radians = math.radians(enemy.shape.heading)
        ahead = (ex - enemy.shape.x) * math.sin(radians) + (ey - enemy.shape.y) * math.cos(radians)
        across = (ex - enemy.shape.x) * math.cos(radians) - (ey - enemy.shape.y) * math.sin(radians)
        danger += ((ahead > 0) & (ahead < reach) & (np.abs(across) < 0.9 * ahead + 1.5)).astype(float)
    return danger


def _exposure(game: BroadsideGame, enemies: list[Ship], ex: np.ndarray, ey: np.ndarray) -> np.ndarray:
    """Enemy cannon that would bear on each end position (guns whose arc covers it, inside 12 inches)."""
    exposed = np.zeros(ex.size)
    for enemy in enemies:
        hull = enemy.shape
        radians = math.radians(hull.heading)
        ux, uy = math.sin(radians), math.cos(radians)
        along = (ex - hull.x) * ux + (ey - hull.y) * uy
        across = (ex - hull.x) * uy - (ey - hull.y) * ux
        close = np.hypot(along, across) < 12.0
        band = np.abs(along) <= hull.length / 2 + 1.0
        exposed += close * band * np.where(across > 0, enemy.guns["starboard"], enemy.guns["port"])
        if enemy.guns["turret"]:
            exposed += close * enemy.guns["turret"]
    return exposed


class RammerCaptain(ScriptedBroadsideCaptain):
    name = "rammer"
    description = (
        "lines up full rams (a straight run into an enemy's broadside or stern on its second or "
        "third leg), closes on the nearest enemy otherwise, boards whatever it can outnumber and "
        "presses its melees.")
    heroes_first = True
    boarding_ratio = 0.8
    melee_ratio = 0.4

    def plan_scores(self, game: BroadsideGame, ship: Ship, paths: Paths, enemies: list[Ship]) -> np.ndarray:
        ex, ey, ux, uy = _end_frame(paths)
        target = min(enemies, key=lambda e: (_gap(ship, e) + 0.2 * e.hull))
        tx, ty = expected_position(game, ship, target)
        dx, dy = tx - ex, ty - ey
        gap = np.hypot(dx, dy)
        ahead, across = dx * ux + dy * uy, dx * uy - dy * ux
        turned = np.abs((paths.end_heading - target.shape.heading + 180.0) % 360.0 - 180.0)
        crossing = np.minimum(turned, 180.0 - turned)
        off_bow = np.degrees(np.abs(np.arctan2(across, ahead)))
        score = -gap - 0.08 * off_bow + 0.05 * crossing - 25.0 * _exposure(game, enemies, ex, ey)
        if not moves_again_first(game, ship):
            # The enemy moves before we do again: stand off beyond its move plus point-blank gun range.
            for enemy in enemies:
                if any(enemy.guns.values()):
                    safe = game.vessel(enemy).speeds.battle + 8.0
                    near = np.hypot(enemy.shape.x - ex, enemy.shape.y - ey)
                    score = score - 6.0 * np.maximum(0.0, safe - near)
        vessel = game.vessel(ship)
        if vessel.can_ram:
            # Set up next turn's ram: the target dead ahead, beyond the first leg, across its keel.
            leg = (vessel.speeds.ramming or vessel.speeds.battle) / game.rules.legs_per_turn
            reach = 3 * leg + ship.shape.length / 2
            lined_up = (ahead > leg + ship.shape.length / 2 + target.shape.beam) & (ahead < reach) \
                & (np.abs(across) < target.shape.length / 3) & (crossing > game.rules.full_ram_above + 10)
            score = score + np.where(lined_up, 300.0 - np.abs(across) * 10, 0.0)
            for enemy in enemies:
                hits = ram_hits(game, ship, paths, enemy)
                score = np.where(hits.full, np.maximum(score, 1000.0 + hits.incidence - enemy.hull),
                                 np.where(hits.hit, np.maximum(score, 150.0),
                                          np.where(hits.touch, score - 60.0, score)))
        return score


def moves_again_first(game: BroadsideGame, ship: Ship) -> bool:
    """Whether this ship moves again before any enemy: it is the last to act this turn and its side
    opens the next one."""
    state = game.state
    later = state.order[state.cursor + 1:]
    enemies_later = any(state.ships[s].side != ship.side for s in later)
    return not enemies_later and state.sides[state.round % 2] == ship.side


def expected_position(game: BroadsideGame, ship: Ship, target: Ship) -> tuple[float, float]:
    """Where the target will be at this ship's next move: here if it cannot move first, else one
    cruising turn straight ahead."""
    if moves_again_first(game, ship) or not game.can_move(target) and not target.grappled:
        return target.shape.x, target.shape.y
    run = game.vessel(target).speeds.cruising
    radians = math.radians(target.shape.heading)
    return target.shape.x + run * math.sin(radians), target.shape.y + run * math.cos(radians)


class GunnerCaptain(ScriptedBroadsideCaptain):
    name = "gunner"
    description = (
        "keeps a broadside (or its turret) on the nearest enemy at short range and out of the "
        "track of enemy rams, fires every gun and arrow it can, and boards only ships it clearly "
        "outnumbers.")
    boarding_ratio = 1.5
    melee_ratio = 0.8
    standoff = 6.0            # inches it likes between its battery and the target

    def plan_scores(self, game: BroadsideGame, ship: Ship, paths: Paths, enemies: list[Ship]) -> np.ndarray:
        ex, ey, ux, uy = _end_frame(paths)
        target = min(enemies, key=lambda e: _gap(ship, e))
        dx, dy = target.shape.x - ex, target.shape.y - ey
        gap = np.hypot(dx, dy)
        along, across = dx * ux + dy * uy, dx * uy - dy * ux
        half = ship.shape.length / 2
        guns = ship.guns
        in_arc = np.zeros(gap.size, dtype=bool)
        if guns[Battery.PORT.value]:
            in_arc |= (np.abs(along) <= half) & (across < 0)
        if guns[Battery.STARBOARD.value]:
            in_arc |= (np.abs(along) <= half) & (across > 0)
        if guns[Battery.TURRET.value]:
            in_arc |= np.degrees(np.abs(np.arctan2(across, along))) >= game.rules.turret_dead_zone / 2 + 2
        standoff = self.standoff if in_arc.any() or any(guns.values()) else 9.0
        score = np.where(in_arc, 40.0, 0.0) - 2.0 * np.abs(gap - standoff)
        score -= 35.0 * _threat(game, enemies, ex, ey)
        score -= np.where(gap < 3.5, 30.0, 0.0)
        return score


#: Found by naval_agents.captains.registry; the first one is the env's default opponent.
CAPTAINS = {"rammer": RammerCaptain, "gunner": GunnerCaptain}
