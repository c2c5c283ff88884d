"""Grapples: who holds whom, the effect on Navigate speed, the ships towed along, and escaping."""

from __future__ import annotations

from naval_env.core.events import Event
from naval_env.rulesets.crew_phase.events import GrappleEnded, GrappleStarted
from naval_env.rulesets.crew_phase.state import GameState, Grapple, Ship


def start_grapple(state: GameState, holder: Ship, held: Ship, weapon: int | None, events: list[Event]) -> None:
    """``weapon`` None: the mutual grapple a ram leaves (each ship holds the other)."""
    for g in state.grapples:
        if g.weapon is None and weapon is None and g.involves(holder.id) and g.involves(held.id):
            return  # already tangled together by an earlier ram
    state.grapples.append(Grapple(holder.id, held.id, weapon))
    if weapon is not None:
        holder.weapons[weapon].holding = held.id
    events.append(GrappleStarted(holder.id, held.id, weapon))


def end_grapple(state: GameState, grapple: Grapple, reason: str, events: list[Event]) -> None:
    state.grapples.remove(grapple)
    if grapple.weapon is not None:
        state.ships[grapple.holder].weapons[grapple.weapon].holding = None
    events.append(GrappleEnded(grapple.holder, grapple.held, reason))


def end_grapples_of(state: GameState, ship_id: str, reason: str, events: list[Event],
                    weapon_only: bool = False) -> None:
    """End every grapple the ship is part of (only those held by weapons when ``weapon_only``)."""
    for g in [g for g in state.grapples if g.involves(ship_id) and not (weapon_only and g.from_ram)]:
        end_grapple(state, g, reason, events)


def end_grapple_of_weapon(state: GameState, ship: Ship, weapon: int, reason: str, events: list[Event]) -> None:
    for g in [g for g in state.grapples if g.holder == ship.id and g.weapon == weapon]:
        end_grapple(state, g, reason, events)


def held_by_larger(state: GameState, ship: Ship) -> bool:
    """Held by a ship of a larger size class (a ram's grapple holds both ways)."""
    if not state.grapples:  # the common case, without building a generator
        return False
    return any(
        (g.held == ship.id or (g.from_ram and g.holder == ship.id)) and state.ships[g.other(ship.id)].size > ship.size
        for g in state.grapples
    )


def in_weapon_grapple(state: GameState, ship_id: str) -> bool:
    if not state.grapples:  # the common case, without building a generator
        return False
    return any(g.involves(ship_id) and not g.from_ram for g in state.grapples)


def grappled_with(state: GameState, a: str, b: str) -> bool:
    if not state.grapples:  # the common case, without building a generator
        return False
    return any(g.involves(a) and g.involves(b) for g in state.grapples)


def towed_by(state: GameState, ship: Ship) -> list[Ship]:
    """Ships that move with ``ship``: every ship joined to it through grapples, in scenario order."""
    if not state.grapples:
        return []
    group = {ship.id}
    frontier = [ship.id]
    while frontier:
        current = frontier.pop()
        for g in state.grapples:
            if g.involves(current):
                other = g.other(current)
                if other not in group:
                    group.add(other)
                    frontier.append(other)
    return [s for s in state.ships.values() if s.id in group and s.id != ship.id]
