"""Cohesion: losses (armour, hit locations and their lasting effects), sinking, grapples and mage squads."""

from __future__ import annotations

from dataclasses import dataclass

from naval_env.core.dice import Dice
from naval_env.core.events import DamageDealt, Event
from naval_env.rulesets.flotilla.config import HouseRules, Situations
from naval_env.rulesets.flotilla.events import (
    CaptainKilled,
    CharacterFate,
    GrappleEnded,
    HitLocation,
    MagesHit,
    Sunk,
)
from naval_env.rulesets.flotilla.state import GameState, Ship


@dataclass(frozen=True)
class Table:
    """What every rule needs at hand: the dice, the house rules, the scenario's situations and the state."""

    dice: Dice
    rules: HouseRules
    situations: Situations
    state: GameState


def lose_cohesion(table: Table, target: Ship, amount: int, source: str | None, cause: str,
                  events: list[Event], boarding: bool = False) -> int:
    """The target loses ``amount`` cohesion (armour: one less, at least 1); each impact rolls a hit location.

    At 0 the ship sinks at once and rolls no location. Returns the cohesion actually lost.
    """
    if amount <= 0 or not target.afloat:
        return 0
    rules = table.rules
    if target.armour:
        amount = max(1, amount - rules.armour_reduction)
    taken = min(amount, target.cohesion)
    target.cohesion -= taken
    events.append(DamageDealt(target.id, taken, source, cause))
    if target.cohesion <= 0:
        sink(table, target, cause, boarding, events)
        return taken
    for _ in range(1 if rules.hit_location_per == "impact" else taken):
        hit_location(table, target, events)
    return taken


def hit_location(table: Table, ship: Ship, events: list[Event]) -> str:
    """Roll the hit-location table and apply the lasting effect of the damaged part."""
    location = table.rules.hit_location
    roll = table.dice.d(location.die, f"hit location: {ship.id}")
    part = location.part(roll)
    events.append(HitLocation(ship.id, roll, part))
    if part == "command_room" and ship.captain_alive:
        ship.captain_dice = max(0, ship.captain_dice - 1)
        if ship.captain_dice == 0:
            ship.captain_alive = False
            events.append(CaptainKilled(ship.id))
    elif part == "crew":
        ship.crew_hits += 1
    elif part == "propulsion":
        ship.propulsion_hits += 1
    return part


def sink(table: Table, ship: Ship, cause: str, boarding: bool, events: list[Event]) -> None:
    """0 cohesion: the ship sinks at once; each important character aboard dies (or, in a boarding, is
    captured) on a fate roll at or under the threshold."""
    state = table.state
    ship.afloat = False
    ship.cohesion = 0
    release(state, ship, "sunk", events)
    for square in ship.squares:
        if state.occupancy.get(square) == ship.id:
            del state.occupancy[square]
    events.append(Sunk(ship.id, cause))
    if not table.situations.character_fate:
        return
    rules = table.rules
    aboard = (["captain"] if ship.captain_alive else []) + (["hero"] if ship.hero else [])
    for character in aboard:
        roll = table.dice.d(rules.fate_die, f"fate: {ship.id} {character}")
        if roll <= rules.fate_threshold:
            fate = "captured" if boarding else "died"
            if character == "captain":
                ship.captain_alive = False
        else:
            fate = "survived"
        events.append(CharacterFate(ship.id, character, roll, fate))


def grapple(a: Ship, b: Ship, round_: int) -> None:
    a.grappled_with, b.grappled_with = b.id, a.id
    a.grappled_round = b.grappled_round = round_
    a.break_failures = b.break_failures = 0


def release(state: GameState, ship: Ship, reason: str, events: list[Event]) -> None:
    if ship.grappled_with is None:
        return
    other = state.ships[ship.grappled_with]
    ship.grappled_with = other.grappled_with = None
    ship.break_failures = other.break_failures = 0
    events.append(GrappleEnded(ship.id, other.id, reason))


def hurt_mages(ship: Ship, amount: int, source: str, events: list[Event]) -> None:
    """The mage squad aboard ``ship`` loses cohesion (no armour, no hit location); at 0 it is lost."""
    taken = min(amount, ship.mages)
    if taken <= 0:
        return
    ship.mages -= taken
    events.append(MagesHit(ship.id, taken, source, ship.mages))
