"""Damage to ships and what follows: crew casualties, struck war machines, scuttling, sinking, running aground.

Every blow that strikes a ship at a spot (war machine shots, mishaps, running
aground, rocks) goes through :func:`strike`: the hull damage, then the war
machine standing on the struck spot (a d<deck spots> roll), then the crew near
it (1d6 + 4 percent of the crew, each an Agility challenge or half the damage),
then the ship's state (scuttled at half its Health, destroyed at its Health).
"""

from __future__ import annotations

from naval_env.core.events import DamageDealt, Event
from naval_env.rulesets.pursuit.events import (
    CrewCasualties,
    Destroyed,
    MachineDamaged,
    RanAground,
    Sank,
    Scuttled,
    roll_event,
)
from naval_env.rulesets.pursuit.rolls import challenge_roll
from naval_env.rulesets.pursuit.state import AFLOAT, SINKING, SUNK, Ship
from naval_env.rulesets.pursuit.table import Table


def add_damage(ship: Ship, amount: int, source: str | None, cause: str, events: list[Event]) -> int:
    """Hull damage, capped at what the ship has left; its consequences wait for :func:`check_hull`."""
    if amount <= 0 or ship.status is not AFLOAT:
        return 0
    left = ship.remaining
    taken = left if left < amount else amount  # noqa: FURB136 - hot path: a comparison is cheaper than a call
    if taken <= 0:
        return 0
    ship.damage += taken
    events.append(DamageDealt(ship.id, taken, source, cause))
    return taken


def check_hull(t: Table, ship: Ship, events: list[Event]) -> None:
    """Scuttled when the damage total reaches half its Health; destroyed when it reaches its Health."""
    if ship.status is not AFLOAT:
        return
    if not ship.scuttled and 2 * ship.damage >= ship.health:
        ship.scuttled = True
        days = t.dice.d(6, f"{ship.id} scuttled: days to sink") + t.rules.scuttled_days_base
        events.append(Scuttled(ship.id, days))
    if ship.damage >= ship.health:
        destroy(t, ship, events)


def destroy(t: Table, ship: Ship, events: list[Event]) -> None:
    """The pilot or captain's Intellect challenge with seaworthiness: success sinks after Size minutes."""
    boons = ship.seaworthiness - (t.rules.scuttled_banes if ship.scuttled else 0)
    roll = challenge_roll(t.dice, ship.controller.intellect, boons, f"{ship.id} keeps afloat")
    events.append(roll_event(ship.id, "keep afloat", roll))
    if roll.succeeded:
        ship.status = SINKING
        ship.sinking_rounds = 0
        events.append(Destroyed(ship.id, ship.size))
    else:
        events.append(Destroyed(ship.id, 0))
        sink(t, ship, events)


def sink(t: Table, ship: Ship, events: list[Event]) -> None:
    """Everyone aboard makes an Agility challenge with 2 banes or is dragged under (damage = its Health)."""
    aboard = ship.crew
    lost = 0
    for _ in range(aboard):
        roll = challenge_roll(t.dice, ship.crew_agility, -(t.rules.dragged_under_banes + ship.crew_banes),
                              f"{ship.id} crew escapes the wreck")
        lost += not roll.succeeded
    ship.crew -= lost
    ship.status = SUNK
    events.append(Sank(ship.id, aboard, lost))


def exposed_crew(t: Table, ship: Ship) -> int:
    """1d6 + 4 percent of the crew (5 to 10), rounded half up: the creatures near a struck spot."""
    percent = t.dice.d(t.rules.crew_exposure_die, f"{ship.id} crew near the spot") + t.rules.crew_exposure_base
    return (ship.crew * percent * 2 + 100) // 200


def crew_hit(t: Table, ship: Ship, exposed: int, on_failure: int, on_success: int, cause: str,
             events: list[Event], banes: int = 0) -> int:
    """Each exposed crew member makes an Agility challenge and takes ``on_failure`` or ``on_success`` damage.

    Crew members are not tracked one by one: one dies when its damage reaches its
    Health and is otherwise unhurt. A roll is made only when its result decides
    that (so a blow too weak to kill, or strong enough to kill anyway, rolls nothing).
    """
    exposed = ship.crew if ship.crew < exposed else exposed  # noqa: FURB136 - hot path: a comparison is cheaper than a call
    if exposed <= 0:
        return 0
    health = ship.crew_effective_health or 1  # at least 1
    if on_failure < health:
        killed = 0
    elif on_success >= health:
        killed = exposed
    else:
        killed = 0
        for _ in range(exposed):
            roll = challenge_roll(t.dice, ship.crew_agility, -(ship.crew_banes + banes), f"{ship.id} crew dodges")
            killed += not roll.succeeded
    ship.crew -= killed
    t.state.casualties[ship.id] = t.state.casualties.get(ship.id, 0) + killed
    events.append(CrewCasualties(ship.id, exposed, killed, cause))
    return killed


def damage_machine(ship: Ship, index: int, amount: int, events: list[Event]) -> None:
    machine = ship.machines[index]
    if machine.destroyed or amount <= 0:
        return
    taken = min(amount, machine.health - machine.damage)
    machine.damage += taken
    if machine.damage >= machine.health:
        machine.destroyed = True
        machine.loaded = False
    events.append(MachineDamaged(ship.id, index, taken, machine.destroyed))


def machine_on_spot(ship: Ship, spot: int) -> int | None:
    for index, machine in enumerate(ship.machines):
        if machine.spot == spot:
            return index
    return None


def strike(t: Table, ship: Ship, amount: int, source: str | None, cause: str, events: list[Event]) -> int:
    """A blow at one spot of the ship: hull, the war machine on that spot, the crew near it, then its state."""
    if amount <= 0 or ship.status is not AFLOAT:
        return 0
    taken = add_damage(ship, amount, source, cause, events)
    spot = t.dice.d(ship.deck_spots, f"{ship.id} struck spot") - 1
    index = machine_on_spot(ship, spot)
    if index is not None:
        damage_machine(ship, index, amount, events)
    crew_hit(t, ship, exposed_crew(t, ship), amount // 2, 0, cause, events)
    check_hull(t, ship, events)
    return taken


def roll_damage(t: Table, dice_count: int, reason: str) -> int:
    return sum(t.dice.roll(6, dice_count, reason)) if dice_count > 0 else 0


def run_aground(t: Table, ship: Ship, at: tuple[float, float], rocks: bool, events: list[Event]) -> None:
    """Grounded for a reason beyond the captain's control: 3d6 damage; no sailing or rowing from now on."""
    ship.grounded = True
    ship.on_rocks = rocks
    ship.aground_rounds = 0
    events.append(RanAground(ship.id, at, rocks))
    amount = roll_damage(t, t.rules.aground_dice, f"{ship.id} runs aground")
    strike(t, ship, amount, None, "aground", events)


def end_of_round(t: Table, ship: Ship, events: list[Event]) -> None:
    """Rocks (1d6 each hour aground on them) and sinking (debris each minute, sinks after Size minutes)."""
    rules = t.rules
    if ship.status is AFLOAT and ship.on_rocks:
        ship.aground_rounds += 1
        if ship.aground_rounds % rules.rounds_per_hour == 0:
            strike(t, ship, roll_damage(t, rules.rocks_dice, f"{ship.id} grinds on rocks"), None, "rocks", events)
    if ship.status is SINKING:
        ship.sinking_rounds += 1
        if ship.sinking_rounds % rules.rounds_per_minute == 0:
            sliding_debris(t, ship, events)
            if ship.sinking_rounds >= ship.size * rules.rounds_per_minute:
                sink(t, ship, events)


def sliding_debris(t: Table, ship: Ship, events: list[Event]) -> None:
    """Each creature aboard: Agility challenge with seaworthiness, or 1d6 damage from sliding debris."""
    boons = ship.seaworthiness - (t.rules.scuttled_banes if ship.scuttled else 0) - ship.crew_banes
    health = max(1, ship.crew_effective_health)
    aboard, killed = ship.crew, 0
    for _ in range(aboard):
        roll = challenge_roll(t.dice, ship.crew_agility, boons, f"{ship.id} crew keeps footing")
        if not roll.succeeded:
            killed += roll_damage(t, t.rules.debris_dice, f"{ship.id} sliding debris") >= health
    ship.crew -= killed
    t.state.casualties[ship.id] = t.state.casualties.get(ship.id, 0) + killed
    events.append(CrewCasualties(ship.id, aboard, killed, "sliding debris"))
