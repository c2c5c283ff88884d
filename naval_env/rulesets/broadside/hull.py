"""Hull points, casualties, swept oars, grapples and ships leaving the battle.

Everything that changes when a ship is hurt lives here, so the rules modules
(collision, gunnery, boarding) only decide *what* happens.
"""

from __future__ import annotations

from collections.abc import Sequence

from naval_env.core.dice import Dice
from naval_env.core.events import DamageDealt, Event
from naval_env.rulesets.broadside.events import (
    Casualties,
    GrappleCut,
    Grappled,
    OarsSwept,
    ShipLost,
)
from naval_env.rulesets.broadside.state import GameState, Ship, Status


def open_ended(dice: Dice, count: int, sides: int, reason: str) -> tuple[int, int]:
    """Roll ``count`` d``sides``; every maximum face is rolled again and added, on and on.

    Returns (total, number of maximum faces rolled). The first ``count`` dice are one
    roll; each re-roll is its own roll, in order.
    """
    if count <= 0:
        return 0, 0
    faces = dice.roll(sides, count, reason)
    total = sum(faces)
    maxima = pending = faces.count(sides)
    while pending:
        face = dice.d(sides, f"{reason} (open-ended)")
        total += face
        pending -= 1
        if face == sides:
            maxima += 1
            pending += 1
    return total, maxima


def damage(state: GameState, ship: Ship, amount: int, source: str | None, cause: str,
           events: list[Event]) -> int:
    """Take hull damage (at most what is left); at 0 hull points the ship sinks. Returns what was taken."""
    if amount <= 0 or not ship.status.fighting:
        return 0
    taken = min(amount, ship.hull)
    ship.hull -= taken
    events.append(DamageDealt(ship.id, taken, source, cause))
    if ship.hull <= 0:
        leave_battle(state, ship, Status.SUNK, None, events)
    return taken


def casualties(ship: Ship, count: int, order: Sequence[str], cause: str,
               events: list[Event]) -> int:
    """Remove ``count`` people from the ship's deck in the defender's ``order`` of preference."""
    left = count
    losses: list[tuple[str, int]] = []
    for who in order:
        if left <= 0:
            break
        have = getattr(ship.people, who)
        lost = min(have, left)
        if lost:
            setattr(ship.people, who, have - lost)
            losses.append((who, lost))
            left -= lost
    if losses:
        events.append(Casualties(ship.id, tuple(losses), cause))
    return count - left


def kill(ship: Ship, who: str, count: int, cause: str, events: list[Event]) -> int:
    """Remove up to ``count`` people of one category (collateral damage picks them, not the defender)."""
    return casualties(ship, count, (who,), cause, events)


def sweep_oars(ship: Ship, oared: bool, events: list[Event]) -> None:
    """Count one oar sweep on a ship that rows (Ramming Speed and then Battle Speed are lost)."""
    if oared and ship.status.fighting:
        ship.oar_sweeps += 1
        events.append(OarsSwept(ship.id, ship.oar_sweeps))


def grapple(state: GameState, a: Ship, b: Ship, cause: str, events: list[Event]) -> None:
    if b.id in a.grappled:
        return
    a.grappled = sorted([*a.grappled, b.id])
    b.grappled = sorted([*b.grappled, a.id])
    events.append(Grappled(a.id, b.id, cause))


def cut_grapple(state: GameState, a: Ship, b: Ship, events: list[Event]) -> None:
    if b.id not in a.grappled:
        return
    a.grappled = [s for s in a.grappled if s != b.id]
    b.grappled = [s for s in b.grappled if s != a.id]
    events.append(GrappleCut(a.id, b.id))


def return_party(state: GameState, host: Ship, owner_id: str) -> None:
    """Boarders of ``owner_id`` aboard ``host`` go home (lost if their ship is out of the battle)."""
    party = host.boarders.pop(owner_id, None)
    owner = state.ships[owner_id]
    if party is not None and owner.status.fighting:
        owner.people.marines += party.marines
        owner.people.heroes += party.heroes


def leave_battle(state: GameState, ship: Ship, status: Status, by: str | None, events: list[Event]) -> None:
    """Sunk, taken or fled: off the board. Boarders on its deck go home; its own boarders elsewhere are lost."""
    ship.status = status
    events.append(ShipLost(ship.id, status.value, by))
    for owner in list(ship.boarders):
        return_party(state, ship, owner)
    for other in state.ships.values():
        if ship.id in other.boarders:
            other.boarders.pop(ship.id)
    for other_id in list(ship.grappled):
        cut_grapple(state, ship, state.ships[other_id], events)
