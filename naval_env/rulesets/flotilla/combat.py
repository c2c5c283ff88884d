"""Attacks and the defender's answer, mage squads, boarding (grapple, fights, breaking free) and collisions."""

from __future__ import annotations

from typing import NamedTuple

from naval_env.core.events import Event
from naval_env.rulesets.flotilla.config import HouseRules
from naval_env.rulesets.flotilla.events import BoardingAttempt, BreakFree, Rammed
from naval_env.rulesets.flotilla.geometry import AHEAD, SIDE, Arc, Square, arc_of, facing_pair, gap
from naval_env.rulesets.flotilla.hull import Table, grapple, hurt_mages, lose_cohesion, release
from naval_env.rulesets.flotilla.rolls import (
    LOST,
    WON,
    Faces,
    exchange,
    highest,
    highest_odds,
    pool_sizes,
    steering_contest,
)
from naval_env.rulesets.flotilla.state import MAGES, SHIP, Attack, Ship, Unit

DODGE, COUNTER, DEFEND = "dodge", "counter", "defend"


class FireLine(NamedTuple):
    """How one unit of a ship would fire at a target: arc, distance, dice, penalty dice, damage rule.

    A named tuple: the observer builds several per ship and maneuver, and a tuple is the cheapest to make."""

    arc: Arc
    distance: int
    dice: int
    penalty: int
    difference: bool   # a win costs the loser the difference of the highest dice, not a flat loss


def _line(rules: HouseRules, ship: Ship, unit: Unit, arc: Arc, distance: int) -> FireLine:
    if unit is MAGES:
        penalty = rules.arc_penalty if rules.mage_arc_penalty and arc is not SIDE else 0
        return FireLine(arc, distance, rules.mage_dice, penalty, False)
    return _guns(rules.arc_penalty, ship.combat, ship.bow_guns, ship.broadside_guns, arc, distance)


def _guns(arc_penalty: int, combat: int, bow_guns: bool, broadside_guns: bool, arc: Arc, distance: int) -> FireLine:
    bow_shot = bow_guns and arc is AHEAD and distance == 1
    penalty = arc_penalty if arc is not SIDE and not bow_shot else 0
    difference = bow_shot or (broadside_guns and arc is SIDE)
    return FireLine(arc, distance, combat, penalty, difference)


def gun_line(rules: HouseRules, ship: Ship, target: tuple[Square, ...]) -> FireLine:
    """The ship's guns against ``target``: a penalty ahead or astern (bow guns: none on an adjacent
    enemy ahead); bow guns (adjacent, ahead) and broadside guns (abeam) deal the difference."""
    distance, nearest, _ = facing_pair(ship.squares, target)
    return _line(rules, ship, SHIP, arc_of(ship.squares, ship.facing, nearest), distance)


def mage_line(rules: HouseRules, ship: Ship, target: tuple[Square, ...]) -> FireLine:
    """The mage squad aboard ``ship``: its own dice, fired like a cannon from the ship."""
    distance, nearest, _ = facing_pair(ship.squares, target)
    return _line(rules, ship, MAGES, arc_of(ship.squares, ship.facing, nearest), distance)


class FireRules(NamedTuple):
    """The house rules an exchange of gunfire depends on: hashable, so the memoised odds below can take it."""

    arc_penalty: int
    penalty_mode: str
    dodge_win_spares_attacker: bool
    counter_needs_range: bool


def fire_rules(rules: HouseRules) -> FireRules:
    return FireRules(rules.arc_penalty, rules.penalty_mode, rules.dodge_win_spares_attacker, rules.counter_needs_range)


#: One ship's side of an exchange of gunfire: combat dice, range, bow guns, broadside guns, steering dice
#: (its dodge) and dodge penalty dice (crew hits + size). A plain tuple: the observer builds one per ship.
Gunnery = tuple[int, int, bool, bool, int, int]


def gunnery(ship: Ship) -> Gunnery:
    return (ship.combat, ship.range, ship.bow_guns, ship.broadside_guns,
            ship.captain_dice if ship.captain_alive else 0, ship.crew_hits + ship.size)


def guns(fire: FireRules, ship: Gunnery, arc: Arc, distance: int) -> FireLine:
    """:func:`gun_line` of a ship known by its :data:`Gunnery`, once the arc and the gap are known."""
    combat, _, bow_guns, broadside_guns, _, _ = ship
    return _guns(fire.arc_penalty, combat, bow_guns, broadside_guns, arc, distance)


def edges(fire: FireRules, a: Gunnery, arc_a: Arc, b: Gunnery, arc_b: Arc, distance: int) -> tuple[float, float]:
    """Expected cohesion each ship gains by firing its guns at the other, against the other's best answer
    (one point per loss, two for a difference; 0 out of range), given each one's :data:`Gunnery`, the
    arcs each way and the gap."""
    _, a_range, _, _, a_steering, a_dodge_penalty = a
    _, b_range, _, _, b_steering, b_dodge_penalty = b
    if distance > a_range and distance > b_range:
        return 0.0, 0.0  # neither can fire: most positions of a maneuver outlook
    line_a, line_b = guns(fire, a, arc_a, distance), guns(fire, b, arc_b, distance)
    return (_edge(fire, line_a, line_b, b_steering, b_dodge_penalty, distance <= b_range)
            if distance <= a_range else 0.0,
            _edge(fire, line_b, line_a, a_steering, a_dodge_penalty, distance <= a_range)
            if distance <= b_range else 0.0)


def _edge(fire: FireRules, line: FireLine, answer: FireLine, dodge_dice: int, dodge_penalty: int,
          can_answer: bool) -> float:
    """The attacker's expected gain against the better of a dodge and (when possible) a counter-attack."""
    mode = fire.penalty_mode
    a, b = pool_sizes(line.dice, line.penalty, dodge_dice, dodge_penalty, mode)
    worth = 2.0 if line.difference else 1.0
    win, tie = highest_odds(a, b)
    value = win * worth - (0.0 if fire.dodge_win_spares_attacker else 1.0 - win - tie)
    if can_answer or not fire.counter_needs_range:
        a, b = pool_sizes(line.dice, line.penalty, answer.dice, answer.penalty, mode)
        win, tie = highest_odds(a, b)
        value = min(value, win * worth - (1.0 - win - tie) * (2.0 if answer.difference else 1.0))
    return value


def fire_line(rules: HouseRules, ship: Ship, unit: Unit, target: tuple[Square, ...]) -> FireLine:
    return gun_line(rules, ship, target) if unit is SHIP else mage_line(rules, ship, target)


def in_range(rules: HouseRules, ship: Ship, unit: Unit, distance: int) -> bool:
    return distance <= (ship.range if unit is SHIP else rules.mage_range)


def steering(ship: Ship) -> int:
    """The captain's Steering Roll dice (none once the captain is dead)."""
    return ship.captain_dice if ship.captain_alive else 0


def can_counter(rules: HouseRules, defender: Ship, attacker: Ship) -> bool:
    if not rules.counter_needs_range:
        return True
    return gap(defender.squares, attacker.squares) <= defender.range


def defence_pool(rules: HouseRules, defender: Ship, attacker: Ship, reaction: str) -> tuple[int, int, FireLine | None]:
    """(dice, penalty dice, counter-fire line) of the defender's answer."""
    if reaction == DODGE:
        return steering(defender), defender.crew_hits + defender.size, None
    line = gun_line(rules, defender, attacker.squares)
    return line.dice, line.penalty, line


def _amount(rules: HouseRules, line: FireLine | None, won: Faces, lost: Faces) -> int:
    if line is not None and line.difference:
        return max(1, highest(won) - highest(lost))
    return rules.cohesion_loss


def resolve_attack(table: Table, attack: Attack, reaction: str, events: list[Event]) -> str:
    """Both throw; the loser loses cohesion, whichever side it is (a won dodge or mage defence too: «el
    perdedor reducirá su cohesión por 1»; the house rule ``dodge_win_spares_attacker`` makes them only
    avoid the hit); a tie changes nothing. Returns the attacker's result."""
    rules, ships = table.rules, table.state.ships
    attacker, target = ships[attack.attacker], ships[attack.target]
    line = fire_line(rules, attacker, attack.unit, target.squares)
    counter_line: FireLine | None = None
    if attack.target_unit is MAGES:
        b_dice, b_penalty = rules.mage_dice, 0
    else:
        b_dice, b_penalty, counter_line = defence_pool(rules, target, attacker, reaction)
    a_count, b_count = pool_sizes(line.dice, line.penalty, b_dice, b_penalty, rules.penalty_mode)
    kind = f"{'gunfire' if attack.unit is SHIP else 'mage attack'} / {reaction}"
    result, fa, fb = exchange(table.dice, kind, attacker.id, target.id, a_count, b_count, events)
    if result == WON:
        amount = _amount(rules, line, fa, fb)
        if attack.target_unit is MAGES:
            hurt_mages(target, amount, attacker.id, events)
        else:
            lose_cohesion(table, target, amount, attacker.id, "gunfire" if attack.unit is SHIP else "mages",
                          events)
    elif result == LOST and (reaction == COUNTER or not rules.dodge_win_spares_attacker):
        amount = _amount(rules, counter_line, fb, fa)
        if attack.unit is MAGES:
            hurt_mages(attacker, amount, target.id, events)
        else:
            lose_cohesion(table, attacker, amount, target.id, "counter-attack" if reaction == COUNTER else reaction,
                          events)
    return result


def boarding_dice(rules: HouseRules, ship: Ship) -> int:
    return ship.boarding + (rules.hero_boarding_dice if ship.hero else 0)


def boarding_fight(table: Table, ship: Ship, other: Ship, events: list[Event]) -> str:
    """Both crews throw their Boarding Roll (+1d6 with a hero); the loser loses 1 cohesion."""
    rules = table.rules
    result, _, _ = exchange(table.dice, "boarding fight", ship.id, other.id, boarding_dice(rules, ship),
                            boarding_dice(rules, other), events)
    if result == WON:
        lose_cohesion(table, other, rules.cohesion_loss, ship.id, "boarding fight", events, boarding=True)
    elif result == LOST:
        lose_cohesion(table, ship, rules.cohesion_loss, other.id, "boarding fight", events, boarding=True)
    return result


def steering_counts(rules: HouseRules, a: Ship, a_extra: int, b: Ship) -> tuple[int, int]:
    """Dice each captain throws in a steering contest (ram, boarding, breaking free): crew hits and
    ``a_extra`` penalty dice on ``a``."""
    return pool_sizes(steering(a), a.crew_hits + a_extra, steering(b), b.crew_hits, rules.penalty_mode)


def maneuver_counts(rules: HouseRules, ship: Ship) -> tuple[int, int]:
    """Dice the captain throws for a maneuver, and the opposed difficulty's."""
    return pool_sizes(steering(ship), ship.crew_hits, rules.maneuver_difficulty, 0, rules.penalty_mode)


def ram(table: Table, rammer: Ship, target: Ship, events: list[Event]) -> bool:
    """Both captains roll; a win is a collision: the target loses 2 cohesion and the rammer 1 (with a
    ram: the target loses the difference and the rammer nothing), and neither moves again."""
    rules = table.rules
    a, b = steering_counts(rules, rammer, 0, target)
    won, fa, fb = steering_contest(table.dice, "ram", rammer.id, target.id, a, b, events)
    events.append(Rammed(rammer.id, target.id, won))
    if won:
        if rammer.ram:
            to_target, to_rammer = max(1, highest(fa) - highest(fb)), 0
        else:
            to_target, to_rammer = rules.ram_damage_to_target, rules.ram_damage_to_rammer
        rammer.stuck = target.stuck = True
        lose_cohesion(table, target, to_target, rammer.id, "collision", events)
        lose_cohesion(table, rammer, to_rammer, target.id, "collision", events)
    return won


def board(table: Table, boarder: Ship, target: Ship, events: list[Event]) -> bool:
    """Steering roll against the enemy captain; a win grapples the two ships together."""
    a, b = steering_counts(table.rules, boarder, 0, target)
    won, _, _ = steering_contest(table.dice, "boarding", boarder.id, target.id, a, b, events)
    events.append(BoardingAttempt(boarder.id, target.id, won))
    if won:
        grapple(boarder, target, table.state.round)
    return won


def break_free(table: Table, ship: Ship, events: list[Event]) -> bool:
    """Steering roll against the other captain, 1d6 of penalty per failed attempt so far."""
    rules, state = table.rules, table.state
    other = state.ships[ship.grappled_with] if ship.grappled_with else None
    if other is None:
        return True
    penalty = rules.break_free_first_penalty + ship.break_failures
    a, b = steering_counts(rules, ship, penalty, other)
    won, _, _ = steering_contest(table.dice, "break free", ship.id, other.id, a, b, events)
    events.append(BreakFree(ship.id, other.id, penalty, won))
    if won:
        release(state, ship, "broke free", events)
    else:
        ship.break_failures += 1
    return won
