"""Scripted `flotilla` captains with distinct tactics. They read the engine, never the dice.

Captains: ``gunner``, ``boarder``, ``tactician``;
each class declares its ``description`` (how it plays), which ``naval-tactics list`` and the
server's catalogue show.

All three answer an incoming attack the same way: dodge or counter-attack, whichever the odds favour.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from naval_agents.captains.base import Captain, Decision
from naval_env.core.grid import STEP
from naval_env.rulesets.flotilla import combat
from naval_env.rulesets.flotilla.actions import FlotillaActions as A
from naval_env.rulesets.flotilla.engine import FlotillaGame, MoveOption
from naval_env.rulesets.flotilla.geometry import Arc, arc_of, facing_pair, footprint, gap
from naval_env.rulesets.flotilla.movement import first_struck, movement_now, place
from naval_env.rulesets.flotilla.rolls import contest_odds, highest_odds, pool_sizes
from naval_env.rulesets.flotilla.state import GameState, Phase, Ship, Unit


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
        return self.choose_sailing(game, ship, options, legal) if options else 0

    def choose_sailing(self, game: FlotillaGame, ship: Ship, options: list[MoveOption], legal: np.ndarray) -> int:
        """The maneuver (of the legal ``options``) whose end scores best by :meth:`position_score`."""
        return best_maneuver(options, lambda option: self.position_score(game, ship, option))[0]

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
                    score = mage_exchange_value(game, line) * 0.6 * worth
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


def best_maneuver(options: list[MoveOption], score: Callable[[MoveOption], float]) -> tuple[int, float]:
    """The maneuver value with the highest expected ``score`` of its end (a failed maneuver makes the base
    move instead), and that expectation; the base move (value 0) wins ties."""
    base = next(o for o in options if o.value == 0)
    base_score = score(base)
    best, best_score = 0, base_score
    for option in options:
        if option.value:
            expected = option.odds * score(option) + (1 - option.odds) * base_score
            if expected > best_score + 1e-9:
                best, best_score = option.value, expected
    return best, best_score


def exchange_value(game: FlotillaGame, attacker: Ship, unit: Unit, defender: Ship, reaction: str) -> float:
    """Expected cohesion the attack costs the defender minus what it costs the attacker (one point each)."""
    rules = game.rules
    line = combat.fire_line(rules, attacker, unit, defender.squares)
    dice, penalty, _ = combat.defence_pool(rules, defender, attacker, reaction)
    a, b = pool_sizes(line.dice, line.penalty, dice, penalty, rules.penalty_mode)
    win, tie = highest_odds(a, b)
    lose = 1.0 - win - tie
    gain = win * (2.0 if line.difference else 1.0)
    if reaction == combat.COUNTER or not rules.dodge_win_spares_attacker:
        counter_line = combat.gun_line(rules, defender, attacker.squares)
        gain -= lose * (2.0 if reaction == combat.COUNTER and counter_line.difference else 1.0)
    return gain


def mage_exchange_value(game: FlotillaGame, line: combat.FireLine) -> float:
    """Expected hits on a mage squad (it defends with its dice) less, by default, the attacker's own loss
    when the mages win (a won defence only avoids the hit under ``dodge_win_spares_attacker``)."""
    rules = game.rules
    a, b = pool_sizes(line.dice, line.penalty, rules.mage_dice, 0, rules.penalty_mode)
    win, tie = highest_odds(a, b)
    return win - (0.0 if rules.dodge_win_spares_attacker else 1.0 - win - tie)


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
    description = (
        "keeps its enemies abeam inside gun range and out of boarding reach, fires when the "
        "exchange favours it, breaks free of grapples.")

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
    description = (
        "closes in, rams whatever lies straight ahead, grapples and wins boarding fights.")

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


class TacticianCaptain(ScriptedFlotillaCaptain):
    """Chooses its move by looking one reply ahead.

    Each end a maneuver can reach (and each ram or boarding it may try) is valued by what the position
    is worth once every enemy that has yet to move answers it: every maneuver, ram and boarding that
    enemy could make is scored, and the answers are weighed ``worst_weight`` towards the worst for
    us, the rest their mean. A position is worth the expected cohesion of this round's exchange of
    fire (each side against the other's best answer, :func:`combat.edges`) plus, next to an enemy, a
    share of the grapple either ship may make. Fire, reactions and boarding fights go by the odds.
    """

    name = "tactician"
    description = (
        "looks one reply ahead: sails, rams or boards where the exchange of fire and the boarding "
        "odds are worth most after each enemy's answering move, weighed towards its worst one.")
    grapple_rounds = 3.0   # rounds a grapple is counted to last, one boarding fight each
    adjacent_share = 0.5   # of a grapple's worth, for ending next to an enemy (either captain may board)
    worst_weight = 0.7     # the enemy's answer: this much its worst for us, the rest the mean of its answers
    edge_penalty = 0.5     # ending with under two squares of sea ahead (the next base move runs aground)
    closing_pull = 0.15    # a square further than gun range from the nearest enemy: without it, no one closes

    def special_move(self, game: FlotillaGame, ship: Ship, legal: np.ndarray) -> int | None:
        if ship.grappled_with is None:
            return None
        other = game.state.ships[ship.grappled_with]
        if self.grapple_worth(game, ship, other) >= 0 or not legal[game.actions.break_free]:
            return 0
        return game.actions.break_free

    def choose_sailing(self, game: FlotillaGame, ship: Ship, options: list[MoveOption], legal: np.ndarray) -> int:
        """The best of the maneuvers, rams and boardings by their worth once the enemies answer."""
        # A copy of the ship is moved about a copy of the occupancy to value each end; the rest is shared.
        sea = dataclasses.replace(game.state, occupancy=dict(game.state.occupancy))
        me = dataclasses.replace(ship)
        enemies = game.enemies_of(ship)
        values: dict[tuple[int, int, int], float] = {}

        def worth_at(x: int, y: int, facing: int) -> float:
            end = (x, y, facing)
            if end not in values:
                place(sea, me, x, y, facing)
                values[end] = self.position_worth(game, sea, me, enemies)
            return values[end]

        best, best_worth = best_maneuver(options, lambda option: worth_at(option.x, option.y, option.facing))
        place(sea, me, ship.x, ship.y, ship.facing)
        here = self.position_worth(game, sea, me, enemies)
        actions = game.actions
        for slot, enemy in enumerate(enemies):
            if not enemy.afloat:
                continue
            odds = steering_odds(game, me, enemy)
            if legal[actions.board_base + slot]:  # grappled, neither ship fires at the other
                worth = odds * self.grapple_worth(game, me, enemy) + (1 - odds) * here
                if worth > best_worth + 1e-9:
                    best, best_worth = actions.board_base + slot, worth
            if legal[actions.ram_base + slot]:
                worth = odds * ram_trade(game, me) + self.adjacent_worth(game, me, enemy)
                if worth > best_worth + 1e-9:
                    best, best_worth = actions.ram_base + slot, worth
        return best

    def position_worth(self, game: FlotillaGame, sea: GameState, me: Ship, enemies: list[Ship]) -> float:
        """What ``me`` standing where it is in ``sea`` is worth, each enemy answering in turn."""
        worth = -self.edge_penalty if room_ahead(game, me.x, me.y, me.facing) < 2 else 0.0
        nearest = 1 << 30
        for enemy in enemies:
            if enemy.afloat:
                worth += self.answered_worth(game, sea, me, enemy)
                nearest = min(nearest, gap(me.squares, enemy.squares))
        return worth - self.closing_pull * max(0, nearest - me.range)

    def answered_worth(self, game: FlotillaGame, sea: GameState, me: Ship, enemy: Ship) -> float:
        """What ``me`` is worth against ``enemy`` after the enemy's answer, if it has yet to move this round."""
        still_to_move = not (enemy.moved or enemy.stuck or enemy.grappled_with is not None
                             or not enemy.captain_alive)
        rules = game.rules
        fire, my_guns, their_guns = combat.fire_rules(rules), combat.gunnery(me), combat.gunnery(enemy)
        alongside = self.adjacent_worth(game, me, enemy)

        def standing_worth(x: int, y: int, facing: int) -> float:
            """This round's exchange of fire with the enemy's bow at (x, y, facing), and its boarding threat."""
            theirs_at = footprint(x, y, facing, enemy.size)
            distance, their_near, my_near = facing_pair(me.squares, theirs_at)
            mine, theirs = combat.edges(fire, my_guns, arc_of(me.squares, me.facing, their_near), their_guns,
                                        arc_of(theirs_at, facing, my_near), distance)
            worth = max(0.0, mine) - max(0.0, theirs)  # a side holds its fire rather than lose the exchange
            return worth + alongside if distance == 1 else worth

        here = standing_worth(enemy.x, enemy.y, enemy.facing)
        if not still_to_move:
            return here
        movement = movement_now(enemy, sea.wind, rules)
        ends = game.actions.routes.ends(sea, enemy, movement)
        odds = contest_odds(*combat.maneuver_counts(rules, enemy))
        base_end = ends[0]
        assert base_end is not None, "the base move can always be sailed"
        base = standing_worth(*base_end)
        answers = [base]
        for end in ends[1:]:
            if end is not None:
                answers.append(odds * standing_worth(*end) + (1 - odds) * base)
        theirs = steering_odds(game, enemy, me)
        if gap(me.squares, enemy.squares) == 1 and me.grappled_with is None:
            answers.append(theirs * self.grapple_worth(game, me, enemy) + (1 - theirs) * here)
        struck = first_struck(sea, enemy, movement)
        if struck is not None and struck[1] == me.id:
            answers.append(alongside - theirs * ram_trade(game, enemy))
        worst = min(answers)
        return self.worst_weight * worst + (1 - self.worst_weight) * sum(answers) / len(answers)

    def adjacent_worth(self, game: FlotillaGame, me: Ship, enemy: Ship) -> float:
        return self.adjacent_share * self.grapple_worth(game, me, enemy)

    def grapple_worth(self, game: FlotillaGame, me: Ship, enemy: Ship) -> float:
        return grapple_trade(game, me, enemy, self.grapple_rounds)


def steering_odds(game: FlotillaGame, ship: Ship, other: Ship) -> float:
    """Chance ``ship``'s captain wins a steering contest (a ram or a boarding) against ``other``'s."""
    return contest_odds(*combat.steering_counts(game.rules, ship, 0, other))


def grapple_trade(game: FlotillaGame, ship: Ship, other: Ship, rounds: float) -> float:
    """Expected cohesion ``ship`` gains over ``rounds`` rounds grappled with ``other``, one boarding fight
    a round: the loser of each loses a point."""
    rules = game.rules
    win, tie = highest_odds(combat.boarding_dice(rules, ship), combat.boarding_dice(rules, other))
    return rounds * (win - (1.0 - win - tie))


def ram_trade(game: FlotillaGame, rammer: Ship) -> float:
    """Cohesion a successful ram by ``rammer`` costs its target less what it costs the rammer. With the ram
    trait the target loses the difference of the dice, counted as 2 like a difference in :func:`combat.edges`."""
    rules = game.rules
    if rammer.ram:
        return 2.0
    return float(rules.ram_damage_to_target - rules.ram_damage_to_rammer)


#: Found by naval_agents.captains.registry; the first one is the env's default opponent.
CAPTAINS = {"gunner": GunnerCaptain, "boarder": BoarderCaptain, "tactician": TacticianCaptain}
