"""Scripted `flotilla` captains with distinct tactics. They read the engine, never the dice.

- ``gunner``: keeps its enemies abeam inside gun range and out of boarding reach, fires when the
  exchange favours it, breaks free of grapples.
- ``boarder``: closes in, rams whatever lies straight ahead, grapples and wins boarding fights.

Both answer an incoming attack the same way: dodge or counter-attack, whichever the odds favour.
"""

from __future__ import annotations

import numpy as np

from agents.base import Captain, Decision
from naval_env.core.grid import STEP
from naval_env.rulesets.flotilla import combat
from naval_env.rulesets.flotilla.actions import FlotillaActions as A
from naval_env.rulesets.flotilla.engine import FlotillaGame, MoveOption
from naval_env.rulesets.flotilla.geometry import Arc, arc_of, facing_pair, footprint, gap
from naval_env.rulesets.flotilla.rolls import contest_odds, highest_odds, pool_sizes
from naval_env.rulesets.flotilla.state import Phase, Ship, Unit


class ScriptedFlotillaCaptain(Captain):
    """Shared plumbing: phase dispatch, firing and reactions by the odds."""

    needs_observation = False

    def act(self, decision: Decision) -> np.ndarray:
        game = decision.game
        if not isinstance(game, FlotillaGame):
            raise TypeError(f"{self.name} captain needs the flotilla game in its Decision, got {type(game).__name__}")
        spec = game.action_spec
        parts = spec.split(decision.action_mask)
        ship = game.state.ships[decision.agent]
        action = spec.noop()
        phase = game.state.phase
        if phase is Phase.DEPLOY:
            action[A.FACING] = self.choose_facing(game, ship, parts[A.FACING])
        elif phase is Phase.MOVE:
            action[A.MANEUVER] = self.choose_move(game, ship, parts[A.MANEUVER])
        elif phase is Phase.ATTACK:
            action[A.TARGET] = self.choose_target(game, ship, Unit.SHIP, parts[A.TARGET])
            action[A.MAGE_TARGET] = self.choose_target(game, ship, Unit.MAGES, parts[A.MAGE_TARGET])
            action[A.BOARDING] = int(parts[A.BOARDING][1] and self.wants_boarding_fight(game, ship))
        else:
            action[A.REACTION] = int(parts[A.REACTION][1] and self.prefers_counter(game, ship))
        return action

    # Deployment -----------------------------------------------------------------
    def choose_facing(self, game: FlotillaGame, ship: Ship, legal: np.ndarray) -> int:
        """Bow toward the nearest enemy."""
        enemy = nearest_enemy(game, ship)
        if enemy is None:
            return 0
        best, best_score = 0, heading_score(ship.facing, enemy.x - ship.x, enemy.y - ship.y)
        for facing in range(8):
            if legal[1 + facing]:
                score = heading_score(facing, enemy.x - ship.x, enemy.y - ship.y)
                if score > best_score + 1e-9:
                    best, best_score = 1 + facing, score
        return best

    # Movement ------------------------------------------------------------------------
    def choose_move(self, game: FlotillaGame, ship: Ship, legal: np.ndarray) -> int:
        special = self.special_move(game, ship, legal)
        if special is not None:
            return special
        options = game.move_options(ship.id)
        if not options:
            return 0
        base = next(o for o in options if o.value == 0)
        base_score = self.position_score(game, ship, base)
        best, best_score = 0, base_score
        for option in options[1:]:
            score = option.odds * self.position_score(game, ship, option) + (1 - option.odds) * base_score
            if score > best_score + 1e-9:
                best, best_score = option.value, score
        return best

    def special_move(self, game: FlotillaGame, ship: Ship, legal: np.ndarray) -> int | None:
        """Ram, board or break free instead of sailing; None to sail."""
        return None

    def position_score(self, game: FlotillaGame, ship: Ship, option: MoveOption) -> float:
        raise NotImplementedError

    # Attacks and reactions --------------------------------------------------------------
    def choose_target(self, game: FlotillaGame, ship: Ship, unit: Unit, legal: np.ndarray) -> int:
        """The target whose exchange is best for us against the defender's best answer (hold if none gains)."""
        rules = game.rules
        best, best_value = 0, 0.0
        for slot, enemy in enumerate(game.enemies_of(ship)):
            for target_unit in (Unit.SHIP, Unit.MAGES):
                value = game.actions.target_value(target_unit, slot)
                if not legal[value]:
                    continue
                line = combat.fire_line(rules, ship, unit, enemy.squares)
                worth = 1.0 / max(1, enemy.cohesion if target_unit is Unit.SHIP else enemy.mages)
                if target_unit is Unit.MAGES:
                    a, b = pool_sizes(line.dice, line.penalty, rules.mage_dice, 0, rules.penalty_mode)
                    score = highest_odds(a, b)[0] * 0.6 * worth
                else:
                    score = min(exchange_value(game, ship, unit, enemy, reaction) for reaction in
                                reactions_open(game, enemy, ship)) * (1 + worth)
                if score > best_value + 1e-9:
                    best, best_value = value, score
        return best

    def prefers_counter(self, game: FlotillaGame, ship: Ship) -> bool:
        attack = game.state.pending
        if attack is None:
            return False
        attacker = game.state.ships[attack.attacker]
        dodge = exchange_value(game, attacker, attack.unit, ship, combat.DODGE)
        counter = exchange_value(game, attacker, attack.unit, ship, combat.COUNTER)
        return counter < dodge  # values are the attacker's: lower is better for us

    def wants_boarding_fight(self, game: FlotillaGame, ship: Ship) -> bool:
        other = game.state.ships[ship.grappled_with] if ship.grappled_with else None
        if other is None:
            return False
        rules = game.rules
        win, tie = highest_odds(combat.boarding_dice(rules, ship), combat.boarding_dice(rules, other))
        return win > 1 - win - tie


def exchange_value(game: FlotillaGame, attacker: Ship, unit: Unit, defender: Ship, reaction: str) -> float:
    """Expected cohesion the attack costs the defender minus what it costs the attacker (one point each)."""
    rules = game.rules
    line = combat.fire_line(rules, attacker, unit, defender.squares)
    dice, penalty, _ = combat.defence_pool(rules, defender, attacker, reaction)
    a, b = pool_sizes(line.dice, line.penalty, dice, penalty, rules.penalty_mode)
    win, tie = highest_odds(a, b)
    lose = 1.0 - win - tie
    gain = win * (2.0 if line.difference else 1.0)
    if reaction == combat.COUNTER or rules.dodge_win_hurts_attacker:
        counter_line = combat.gun_line(rules, defender, attacker.squares)
        gain -= lose * (2.0 if reaction == combat.COUNTER and counter_line.difference else 1.0)
    return gain


def reactions_open(game: FlotillaGame, defender: Ship, attacker: Ship) -> tuple[str, ...]:
    if combat.can_counter(game.rules, defender, attacker):
        return (combat.DODGE, combat.COUNTER)
    return (combat.DODGE,)


def nearest_enemy(game: FlotillaGame, ship: Ship) -> Ship | None:
    enemies = [e for e in game.enemies_of(ship) if e.afloat]
    if not enemies:
        return None
    squares = ship.squares
    return min(enemies, key=lambda e: (gap(squares, e.squares), e.cohesion))


def heading_score(facing: int, dx: int, dy: int) -> float:
    """Cosine between a facing and the direction (dx, dy)."""
    ux, uy = STEP[facing]
    norm = (dx * dx + dy * dy) ** 0.5 * (ux * ux + uy * uy) ** 0.5
    return 0.0 if norm == 0 else (dx * ux + dy * uy) / norm


def room_ahead(game: FlotillaGame, x: int, y: int, facing: int) -> int:
    """Squares from (x, y) to the map edge straight ahead."""
    dx, dy = STEP[facing]
    size = game.state.width
    steps = 0
    while 0 <= x + dx < size and 0 <= y + dy < size and steps < 6:
        x, y, steps = x + dx, y + dy, steps + 1
    return steps


class GunnerCaptain(ScriptedFlotillaCaptain):
    name = "gunner"

    def special_move(self, game: FlotillaGame, ship: Ship, legal: np.ndarray) -> int | None:
        if ship.grappled_with is not None:
            return game.actions.break_free if legal[game.actions.break_free] else 0
        return None

    def position_score(self, game: FlotillaGame, ship: Ship, option: MoveOption) -> float:
        squares = footprint(option.x, option.y, option.facing, ship.size)
        rules = game.rules
        best = -100.0
        for enemy in game.enemies_of(ship):
            if not enemy.afloat:
                continue
            distance, nearest_enemy, nearest_me = facing_pair(squares, enemy.squares)
            arc = arc_of(squares, option.facing, nearest_enemy)
            if distance <= ship.range:
                score = 10.0 + (3.0 if arc is Arc.SIDE else 0.0) + 0.2 * distance
                their_arc = arc_of(enemy.squares, enemy.facing, nearest_me)
                score += 1.0 if their_arc is not Arc.SIDE else 0.0
                if distance == 1 and combat.boarding_dice(rules, enemy) >= combat.boarding_dice(rules, ship):
                    score -= 6.0
            else:
                score = -float(distance - ship.range)
            best = max(best, score)
        room = room_ahead(game, option.x, option.y, option.facing)
        return best - (2.0 if room < 2 else 0.0)


class BoarderCaptain(ScriptedFlotillaCaptain):
    name = "boarder"

    def special_move(self, game: FlotillaGame, ship: Ship, legal: np.ndarray) -> int | None:
        actions, rules = game.actions, game.rules
        enemies = game.enemies_of(ship)
        if ship.grappled_with is not None:
            other = game.state.ships[ship.grappled_with]
            stronger = combat.boarding_dice(rules, ship) >= combat.boarding_dice(rules, other)
            return 0 if stronger or not legal[actions.break_free] else actions.break_free
        mine = max(0, combat.steering(ship) - ship.crew_hits)
        for slot, enemy in enumerate(enemies):
            if legal[actions.board_base + slot] and (
                    combat.boarding_dice(rules, ship) >= combat.boarding_dice(rules, enemy)):
                theirs = max(0, combat.steering(enemy) - enemy.crew_hits)
                if contest_odds(mine, theirs) >= 0.35:
                    return actions.board_base + slot
        for slot, enemy in enumerate(enemies):
            if legal[actions.ram_base + slot]:
                theirs = max(0, combat.steering(enemy) - enemy.crew_hits)
                if ship.ram or contest_odds(mine, theirs) >= 0.4 or ship.cohesion > enemy.cohesion:
                    return actions.ram_base + slot
        return None

    def position_score(self, game: FlotillaGame, ship: Ship, option: MoveOption) -> float:
        squares = footprint(option.x, option.y, option.facing, ship.size)
        best = -100.0
        dx, dy = STEP[option.facing]
        for enemy in game.enemies_of(ship):
            if not enemy.afloat:
                continue
            distance, target, _ = facing_pair(squares, enemy.squares)
            score = -float(distance)
            if distance == 1:
                score += 4.0
            ahead = arc_of(squares, option.facing, target) is Arc.AHEAD
            vx, vy = target[0] - option.x, target[1] - option.y
            if ahead and vx * dy == vy * dx:  # dead ahead on the bow line: a ram next round
                score += 2.0
            if distance <= ship.range and arc_of(squares, option.facing, target) is Arc.SIDE:
                score += 0.5
            best = max(best, score)
        room = room_ahead(game, option.x, option.y, option.facing)
        return best - (2.0 if room < 2 else 0.0)


#: Found by agents.registry; the first one is the env's default opponent.
CAPTAINS = {"gunner": GunnerCaptain, "boarder": BoarderCaptain}
