"""The four attack options, the wrecked-ship repair and the crew's Repair."""

from __future__ import annotations

import math

from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.rulesets.pantheon.challenge import Result, contest
from naval_env.rulesets.pantheon.config import HouseRules
from naval_env.rulesets.pantheon.crew import BuffKind, Scope, total
from naval_env.rulesets.pantheon.events import BoardingTied, Repaired
from naval_env.rulesets.pantheon.hull import damage, heal, set_status, tie, untie
from naval_env.rulesets.pantheon.state import GameState, Ship, Status


def _rating(ship: Ship, scope: Scope) -> int:
    return ship.damage + total(ship.buffs, BuffKind.DAMAGE, scope)


def _exceptional_bonus(ship: Ship, result: Result) -> int:
    """Extra damage of an exceptional success with Damage +2 (Exceptional) crew actions."""
    return total(ship.buffs, BuffKind.DAMAGE, Scope.EXCEPTIONAL) if result is Result.EXCEPTIONAL else 0


def _test(dice: Dice, rules: HouseRules, name: str, scope: Scope | None, attacker: Ship, defender: Ship,
          events: list[Event]) -> Result:
    """An attack test with the ship combat pools and the crew buffs that apply to ``scope``."""
    attack_pool = attacker.attack_pool
    defense_pool = defender.defense_pool
    if scope is not None:
        attack_pool += total(attacker.buffs, BuffKind.ATTACK, scope)
        defense_pool += total(defender.buffs, BuffKind.DODGE, scope)
    shift = total(attacker.buffs, BuffKind.ATTACK, Scope.EXCEPTIONAL) - total(
        defender.buffs, BuffKind.DODGE, Scope.EXCEPTIONAL
    )
    return contest(dice, rules, name, attacker, defender, attack_pool, defense_pool, events, shift)


def ram(dice: Dice, rules: HouseRules, state: GameState, attacker: Ship, defender: Ship,
        events: list[Event]) -> Result:
    """Failure: attacker takes 2x defender's rating, defender 1x attacker's. Success: 1x and 2x.
    Exceptional: attacker takes nothing, defender 3x attacker's rating."""
    result = _test(dice, rules, "ram", Scope.RAM, attacker, defender, events)
    mine, theirs = _rating(attacker, Scope.RAM), _rating(defender, Scope.RAM)
    if result is Result.FAILURE:
        to_attacker, to_defender = 2 * theirs, mine
    elif result is Result.SUCCESS:
        to_attacker, to_defender = theirs, 2 * mine
    else:
        to_attacker, to_defender = 0, 3 * mine + _exceptional_bonus(attacker, result)
    damage(state, defender, to_defender, attacker.id, "ram", events)
    damage(state, attacker, to_attacker, defender.id, "ram recoil", events)
    return result


def fire(dice: Dice, rules: HouseRules, state: GameState, attacker: Ship, defender: Ship,
         events: list[Event]) -> Result:
    """Success: the attacker's damage rating; exceptional: one more level."""
    result = _test(dice, rules, "fire", Scope.FIRE, attacker, defender, events)
    if result.succeeded:
        amount = _rating(attacker, Scope.FIRE)
        if result is Result.EXCEPTIONAL:
            amount += 1 + _exceptional_bonus(attacker, result)
        damage(state, defender, amount, attacker.id, "fire", events)
    return result


def board(dice: Dice, rules: HouseRules, state: GameState, attacker: Ship, defender: Ship,
          events: list[Event]) -> Result:
    """Success ties the two ships together (no damage yet)."""
    result = _test(dice, rules, "board", Scope.BOARD, attacker, defender, events)
    if result.succeeded:
        tie(state, attacker, defender)
        events.append(BoardingTied(attacker.id, defender.id))
    return result


def boarding_exchange(state: GameState, boarder: Ship, boarded: Ship, events: list[Event]) -> None:
    """At the boarder's attack step while still tied: each ship takes the other's damage rating."""
    damage(state, boarded, _rating(boarder, Scope.BOARD), boarder.id, "boarding melee", events)
    damage(state, boarder, _rating(boarded, Scope.BOARD), boarded.id, "boarding melee", events)


def press_boarding(dice: Dice, rules: HouseRules, state: GameState, boarder: Ship, boarded: Ship,
                   events: list[Event]) -> Result:
    """Success: +the boarder's rating (exceptional: one more level). Failure: the defender hits back."""
    result = _test(dice, rules, "press boarding", Scope.BOARD, boarder, boarded, events)
    if result.succeeded:
        amount = _rating(boarder, Scope.BOARD)
        if result is Result.EXCEPTIONAL:
            amount += 1 + _exceptional_bonus(boarder, result)
        damage(state, boarded, amount, boarder.id, "pressed boarding", events)
    else:
        damage(state, boarder, _rating(boarded, Scope.BOARD), boarded.id, "boarding repelled", events)
    return result


def break_free(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, events: list[Event]) -> bool:
    """Get Us Out Of Here! while tied: the initiator tests against the other captain.

    Failure: stays put. Success: free, 1 damage scraping the hull. Exceptional: free, no damage.
    """
    other = state.ships[ship.tied_to] if ship.tied_to else None
    if other is None:
        return True
    result = _test(dice, rules, "get us out", None, ship, other, events)
    if not result.succeeded:
        return False
    untie(state, ship, "got out", events)
    if result is Result.SUCCESS:
        damage(state, ship, rules.get_out_scrape_damage, other.id, "scraped free", events)
    return True


def repair_wreck(dice: Dice, rules: HouseRules, state: GameState, ship: Ship, events: list[Event]) -> Result:
    """Static Wits/Charisma + Seamanship challenge against the repair difficulty.

    Success: health and speed become half the maximum (rounded up) and those are the new
    maximum health and speed; exceptional adds two health levels (raising the new maximum too).
    """
    pool = ship.captain.attack_attribute + ship.captain.seamanship
    result = contest(dice, rules, "repair", ship, None, pool, rules.repair_difficulty, events)
    if result.succeeded:
        ship.max_health = math.ceil(ship.max_health / 2)
        if result is Result.EXCEPTIONAL:
            ship.max_health += rules.wrecked_repair_bonus
        ship.health = ship.max_health
        ship.speed = math.ceil(ship.speed / 2)
        set_status(state, ship, Status.AFLOAT, events)
        events.append(Repaired(ship.id, ship.health, ship.max_health, ship.speed))
    return result


def crew_repair(rules: HouseRules, state: GameState, ship: Ship, events: list[Event]) -> None:
    """The crew's Repair (once per combat): twice the shipwright's Crafts in health."""
    ship.crew_repair_used = True
    heal(ship, rules.crew_repair_multiplier * ship.shipwright, "crew repair", events, state)
