"""The `broadside` rules engine: set-up, the turn, the decisions and their masks.

A turn (a round) runs in three stages:

1. Activations. Ships act one at a time, the sides alternating (the side that goes
   first alternates each turn). An activated ship makes its MANEUVER (unless grappled,
   or struck in a collision before it moved), then its GUNNERY (batteries and archers).
   A collision in the move offers COLLISION_BOARD at once: the activated ship first,
   then, if it declines, the struck ship.
2. Boarding. Once every ship has moved, each captain declares a BOARDING (board an enemy
   within 1 inch or grappled, reinforce a friend in a melee, archers not yet fired);
   all declarations then resolve together: archers, reinforcements, boarding actions.
3. Melee. Each captain with boarders on an enemy deck chooses MELEE (fight on, or
   withdraw); then one melee exchange is fought aboard every boarded ship.

Decisions with nothing to choose (no target in arc, nobody to board) are skipped.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from naval_env.core.events import Event
from naval_env.core.game import ShipBattle
from naval_env.rulesets.broadside import boarding, gunnery, movement
from naval_env.rulesets.broadside.actions import (
    BOARDER_SHARES,
    HEROES_FIRST,
    HEROES_STAY,
    MELEE_HEROES_FIRST,
    MELEE_WITHDRAW,
)
from naval_env.rulesets.broadside.config import (
    PEOPLE,
    BroadsideConfig,
    Scenario,
    ShipSetup,
    Vessel,
    derived_tables,
)
from naval_env.rulesets.broadside.events import RoundStarted
from naval_env.rulesets.broadside.geometry import EPS, Hull, compass, overlap, within
from naval_env.rulesets.broadside.observer import ObserverTables, observe
from naval_env.rulesets.broadside.state import (
    BoardingOrder,
    GameState,
    Iceberg,
    People,
    Phase,
    Ship,
    Speed,
    Status,
)

ACTIVATIONS, BOARDING, MELEE = "activations", "boarding", "melee"
_PHASES = tuple(Phase)       # Phase by value, without an Enum call in the turn loop
_SPEEDS = tuple(Speed)
# Enum members as module globals: Phase.X and Status.X cost a class-attribute lookup on every use.
_MANEUVER_PHASE, _GUNNERY_PHASE, _COLLISION_PHASE, _BOARDING_PHASE, _MELEE_PHASE = _PHASES
_AFLOAT = Status.AFLOAT
_CONTEXT = {phase: f"in phase {phase.name}" for phase in Phase}


#: MANEUVER masks kept per config, one per (vessel type, oar sweeps): past it they start over.
MANEUVER_MASKS_LIMIT = 256

class BroadsideGame(ShipBattle[GameState, BroadsideConfig]):
    ruleset_id = "broadside"
    scenario: Scenario

    def _prepare(self) -> None:
        super()._prepare()
        self._maneuver_masks: dict[tuple[str, int], np.ndarray] = derived_tables(self.config).setdefault(
            "maneuver_masks", {})
        offsets = self.action_spec.offsets
        # (battery, its key in Ship.guns, flat index of its first target): Battery.value is an Enum property.
        self._battery_slots = tuple((battery, battery.value, offsets[component] + 1)
                                    for battery, component in self.actions.batteries.items())

    def _start(self, events: list[Event]) -> None:
        self._start_round(events)
        self._advance(events)

    def _enter(self, state: GameState) -> None:
        """Hold ``state``: index its ships (agent order, enemies, allies, fleets) and start the observer's tables."""
        super()._enter(state)
        ships = list(state.ships.values())
        self._vessels = {s.id: self.config.vessels[s.vessel] for s in ships}
        self._fleets = [[s for s in ships if s.side == side] for side in state.sides]
        self.observer_tables = ObserverTables(self)

    def _clone_caches(self, twin: BroadsideGame) -> None:
        """The clone's fleets of its own ships and its own observer caches (their entries are pure functions
        of the immutable hulls, which the clone shares, so they stay valid); vessels stay shared."""
        ships = list(twin.state.ships.values())
        twin._fleets = [[s for s in ships if s.side == side] for side in twin.state.sides]
        twin.observer_tables = self.observer_tables.copy()

    # ------------------------------------------------------------------ set-up
    def _set_up(self) -> GameState:
        scenario, rules = self.scenario, self.rules
        ships: dict[str, Ship] = {}
        for ship_id, side, setup, vessel, people in self._placements():
            x, y = setup.position
            heading = setup.heading
            if scenario.placement_jitter > 0:
                x += self._jitter(scenario.placement_jitter, rules.jitter_step, f"{ship_id} placement x")
                y += self._jitter(scenario.placement_jitter, rules.jitter_step, f"{ship_id} placement y")
            if scenario.heading_jitter > 0:
                heading = compass(heading + self._jitter(scenario.heading_jitter, 5.0, f"{ship_id} heading"))
            guns = {"port": vessel.guns.port, "starboard": vessel.guns.starboard, "turret": vessel.guns.turret}
            ships[ship_id] = Ship(ship_id, side, setup.vessel, Hull(x, y, heading, vessel.length, vessel.beam),
                                  vessel.hull, vessel.hull, People(**people), guns)
        icebergs = [Iceberg(f"iceberg_{i}", Hull(b.position[0], b.position[1], b.heading, b.length, b.beam))
                    for i, b in enumerate(scenario.icebergs)]
        sides = tuple(side.name for side in scenario.sides)
        width, height = scenario.board
        return GameState(width, height, scenario.wind, (sides[0], sides[1]), ships, icebergs)

    def _placements(self) -> list[tuple[str, str, ShipSetup, Vessel, dict[str, int]]]:
        """(ship id, side, set-up, vessel, people aboard) of every ship of the scenario, worked out once per
        config and scenario."""
        key = f"placements of {self.scenario_name}"
        tables = derived_tables(self.config)
        placements = tables.get(key)
        if placements is None:
            placements = tables[key] = [
                (f"{side.name}_{index}", side.name, setup, self.config.vessels[setup.vessel],
                 _people_aboard(setup, self.config.vessels[setup.vessel]))
                for side in self.scenario.sides for index, setup in enumerate(side.ships)
            ]
        return placements

    def _jitter(self, span: float, step: float, reason: str) -> float:
        """A uniform offset in [-span, span] in whole steps, drawn as one die."""
        steps = int(span / step + EPS)
        return 0.0 if steps == 0 else (self.dice.d(2 * steps + 1, reason) - steps - 1) * step

    # ------------------------------------------------------------- Game API
    def health(self, agent: str) -> tuple[int, int]:
        ship = self.state.ships[agent]
        return ship.hull, ship.max_hull

    observe = observe  # the observer's ``observe(game, agent)``, bound as the method

    # ------------------------------------------------------------- lookups
    def vessel(self, ship: Ship) -> Vessel:
        return self._vessels[ship.id]

    def can_move(self, ship: Ship) -> bool:
        return ship.status is _AFLOAT and not ship.forfeit and not ship.grappled

    def party_in_melee(self, owner: Ship) -> bool:
        """Whether ``owner`` has boarders on an enemy deck whose melee is still to be fought this turn."""
        return any(owner.id in host.boarders and not host.melee_fought and host.status is _AFLOAT
                   for host in self._enemies[owner.id])

    def boarders_for(self, ship: Ship, share_value: int, hero_value: int) -> tuple[int, int, bool]:
        """(marines, heroes, heroes_first) a boarding sends for the ``boarders`` and ``heroes`` values."""
        marines = math.ceil(BOARDER_SHARES[share_value] * ship.people.marines - EPS)
        heroes = 0 if hero_value == HEROES_STAY else ship.people.heroes
        return marines, heroes, hero_value == HEROES_FIRST

    # ------------------------------------------------------------------ masks
    def _build_mask(self, ship: Ship, phase: Phase | None = None) -> np.ndarray:
        """``ship``'s mask in ``phase`` (default: the phase now)."""
        if phase is None:
            phase = self.state.phase
        if phase is _MANEUVER_PHASE:
            return self._maneuver_mask(ship)
        return self._mask_of(self._allowed(ship, phase))

    def _mask_of(self, allowed: list[int]) -> np.ndarray:
        """Every component's no-op value 0 plus the ``allowed`` flat indices."""
        mask = self.action_spec.noop_mask()
        for index in allowed:
            mask[index] = True
        return mask

    def _maneuver_mask(self, ship: Ship) -> np.ndarray:
        """Cached per vessel type and oar sweeps (the only state a MANEUVER mask depends on) for every game
        of the config; read only."""
        key = (ship.vessel, ship.oar_sweeps)
        mask = self._maneuver_masks.get(key)
        if mask is None:
            A, offsets = self.actions, self.action_spec.offsets
            vessel = self.vessel(ship)
            allowed = [offsets[A.speed] + speed for speed in Speed
                       if movement.speed_allowed(self.rules, vessel, ship, speed)]
            allowed += [offsets[component] + value for component in A.turns
                        for value, turn in enumerate(A.turn_choices) if abs(turn) <= vessel.max_turn + EPS]
            if len(self._maneuver_masks) >= MANEUVER_MASKS_LIMIT:
                self._maneuver_masks.clear()
            mask = self._maneuver_masks[key] = self._mask_of(allowed)
            mask.flags.writeable = False
        return mask

    def _allowed(self, ship: Ship, phase: Phase) -> list[int]:
        """Flat indices a GUNNERY, COLLISION_BOARD, BOARDING or MELEE decision allows beyond the no-ops."""
        A, offsets = self.actions, self.action_spec.offsets
        if phase is _GUNNERY_PHASE:
            enemies = self._enemies[ship.id]
            guns = ship.guns
            allowed = [base + slot for battery, key, base in self._battery_slots if guns[key]
                       for slot, enemy in enumerate(enemies) if gunnery.can_fire(self, ship, battery, enemy)]
            return allowed + self._archers_allowed(ship)
        if phase is _COLLISION_PHASE:
            assert self.state.collision is not None
            mover, struck = self.state.collision
            other = struck if ship.id == mover else mover
            slot = [e.id for e in self._enemies[ship.id]].index(other)
            return [offsets[A.board] + 1 + slot, *self._boarders_allowed(ship)]
        if phase is _BOARDING_PHASE:
            allowed = self._boarding_targets(ship) if ship.people.boarders else []
            if allowed:
                allowed += self._boarders_allowed(ship)
            return allowed + self._archers_allowed(ship)
        base = offsets[A.melee]
        allowed = [base + MELEE_WITHDRAW, offsets[A.on_tie] + 1]
        if any(host.boarders[ship.id].heroes > 0 for host in self._enemies[ship.id] if ship.id in host.boarders):
            allowed.append(base + MELEE_HEROES_FIRST)
        return allowed

    def _boarding_targets(self, ship: Ship) -> list[int]:
        """``board`` values: enemies within reach or grappled, friends in a melee within reach or grappled."""
        reach = self.rules.boarding_distance
        base = self.action_spec.offsets[self.actions.board] + 1
        allowed = [base + slot for slot, enemy in enumerate(self._enemies[ship.id])
                   if enemy.status is _AFLOAT
                   and (enemy.id in ship.grappled or within(ship.shape, enemy.shape, reach))]
        base += self.actions.max_enemies
        allowed += [base + slot for slot, friend in enumerate(self._allies[ship.id])
                    if friend.status is _AFLOAT and friend.in_melee
                    and (friend.id in ship.grappled or within(ship.shape, friend.shape, reach))]
        return allowed

    def _archers_allowed(self, ship: Ship) -> list[int]:
        if not self._archers_ready(ship):       # can_shoot_arrows refuses every target then
            return []
        base = self.action_spec.offsets[self.actions.archers] + 1
        return [base + slot for slot, enemy in enumerate(self._enemies[ship.id])
                if gunnery.can_shoot_arrows(self, ship, enemy)]

    def _boarders_allowed(self, ship: Ship) -> list[int]:
        offsets = self.action_spec.offsets
        allowed: list[int] = []
        if ship.people.marines:
            allowed += range(offsets[self.actions.boarders] + 1, offsets[self.actions.boarders] + len(BOARDER_SHARES))
        if ship.people.heroes:
            allowed += range(offsets[self.actions.heroes] + 1, offsets[self.actions.heroes] + 3)
        return allowed

    def _offer(self, ship: Ship, phase: Phase) -> np.ndarray | None:
        """The mask of this decision, or None when the captain has nothing to decide."""
        if ship.status is not _AFLOAT:
            return None
        if phase is _MANEUVER_PHASE:
            return self._maneuver_mask(ship) if self.can_move(ship) else None
        if phase is _COLLISION_PHASE:
            pair = self.state.collision
            if pair is None or ship.id not in pair or not ship.people.boarders:
                return None
            other = self.state.ships[pair[1] if ship.id == pair[0] else pair[0]]
            return self._build_mask(ship, phase) if other.status.fighting else None
        if phase is _MELEE_PHASE:
            return self._build_mask(ship, phase) if self.party_in_melee(ship) else None
        if phase is _GUNNERY_PHASE and not any(ship.guns.values()) and not self._archers_ready(ship):
            return None
        if phase is _BOARDING_PHASE and not ship.people.boarders and not self._archers_ready(ship):
            return None
        allowed = self._allowed(ship, phase)
        return self._mask_of(allowed) if allowed else None

    @staticmethod
    def _archers_ready(ship: Ship) -> bool:
        return ship.people.archers > 0 and not ship.archers_fired

    # ------------------------------------------------------------------ apply
    def apply(self, agent: str, action: Any) -> list[Event]:
        # Plain ints from here on: indexing a numpy array per value costs more than one tolist().
        values = self._checked_values(agent, action, _CONTEXT)
        state = self.state
        ship = state.ships[agent]
        phase = state.phase
        events: list[Event] = []
        state.pending.pop(0)
        self._mask = None
        if phase is _MANEUVER_PHASE:
            self._apply_maneuver(ship, values, events)
        elif phase is _GUNNERY_PHASE:
            self._apply_gunnery(ship, values, events)
        elif phase is _COLLISION_PHASE:
            self._apply_collision_board(ship, values, events)
        elif phase is _BOARDING_PHASE:
            self._apply_boarding(ship, values)
        else:
            self._apply_melee(ship, values, events)
        self._advance(events)
        return events

    def _apply_maneuver(self, ship: Ship, values: list[int], events: list[Event]) -> None:
        A = self.actions
        speed = _SPEEDS[values[A.speed]]
        choices = A.turn_choices
        turns = tuple([choices[values[c]] for c in A.turns])
        pair = movement.move(self, ship, speed, turns, events)
        if pair is not None:
            self.state.collision = pair
            self.state.pending[0:0] = [(pair[0], int(_COLLISION_PHASE)), (pair[1], int(_COLLISION_PHASE))]

    def _apply_gunnery(self, ship: Ship, values: list[int], events: list[Event]) -> None:
        A = self.actions
        enemies = self._enemies[ship.id]
        for battery, component in A.batteries.items():
            value = values[component]
            if value and gunnery.can_fire(self, ship, battery, enemies[value - 1]):
                gunnery.fire_battery(self, ship, battery, enemies[value - 1], events)
        value = values[A.archers]
        if value and gunnery.can_shoot_arrows(self, ship, enemies[value - 1]):
            gunnery.shoot_arrows(self, ship, enemies[value - 1], events)

    def _apply_collision_board(self, ship: Ship, values: list[int], events: list[Event]) -> None:
        A = self.actions
        assert self.state.collision is not None
        mover, struck = self.state.collision
        other = self.state.ships[struck if ship.id == mover else mover]
        marines, heroes, heroes_first = self.boarders_for(ship, values[A.boarders], values[A.heroes])
        if values[A.board] and marines + heroes > 0:
            self.state.collision = None
            boarding.board_at_once(self, ship, other, marines, heroes, heroes_first, events)
        elif ship.id == struck:
            self.state.collision = None

    def _apply_boarding(self, ship: Ship, values: list[int]) -> None:
        A = self.actions
        target = A.board_target(values[A.board])
        marines, heroes, heroes_first = self.boarders_for(ship, values[A.boarders], values[A.heroes])
        archers = values[A.archers]
        target_id = None
        if target is not None:
            group = self._enemies[ship.id] if target[0] == "enemy" else self._allies[ship.id]
            target_id = group[target[1]].id
        self.state.boarding_orders.append(BoardingOrder(
            ship.id, target_id, target is not None and target[0] == "ally", marines, heroes, heroes_first,
            self._enemies[ship.id][archers - 1].id if archers else None,
        ))

    def _apply_melee(self, ship: Ship, values: list[int], events: list[Event]) -> None:
        A = self.actions
        choice = values[A.melee]
        if choice == MELEE_WITHDRAW:
            boarding.withdraw(self, ship, events)
            return
        for host in self._enemies[ship.id]:
            party = host.boarders.get(ship.id)
            if party is not None:
                party.heroes_first = choice == MELEE_HEROES_FIRST
                party.retreat_on_tie = bool(values[A.on_tie])

    # ------------------------------------------------------------- turn flow
    def _advance(self, events: list[Event]) -> None:
        """Run the game on to the next decision (or its end)."""
        state = self.state
        while True:
            self._check_end(events)
            if state.ended:
                state.decider, state.pending, self._mask = None, [], None
                return
            while state.pending:
                agent, value = state.pending[0]
                phase = _PHASES[value]
                mask = self._offer(state.ships[agent], phase)
                if mask is not None:
                    state.decider, state.phase, self._mask = agent, phase, mask
                    return
                state.pending.pop(0)
            state.decider = None
            if state.stage == ACTIVATIONS:
                if not self._activate_next(events):
                    self._open_stage(BOARDING, _BOARDING_PHASE)
            elif state.stage == BOARDING:
                boarding.resolve_orders(self, state.boarding_orders, events)
                state.boarding_orders = []
                self._open_stage(MELEE, _MELEE_PHASE)
            else:
                for host_id in state.order:
                    host = state.ships[host_id]
                    if host.status.fighting and host.boarders and not host.melee_fought:
                        boarding.melee(self, host, events)
                self._end_round(events)

    def _activate_next(self, events: list[Event]) -> bool:
        state = self.state
        state.collision = None
        while state.cursor + 1 < len(state.order):
            state.cursor += 1
            ship = state.ships[state.order[state.cursor]]
            if ship.status is _AFLOAT:
                ship.activated = True
                state.pending = [(ship.id, int(_MANEUVER_PHASE)), (ship.id, int(_GUNNERY_PHASE))]
                return True
        return False

    def _open_stage(self, stage: str, phase: Phase) -> None:
        state = self.state
        state.stage = stage
        state.collision = None
        state.pending = [(ship_id, int(phase)) for ship_id in state.order]

    def _start_round(self, events: list[Event]) -> None:
        state = self.state
        state.round += 1
        for ship in state.ships.values():
            ship.activated = ship.forfeit = ship.archers_fired = ship.melee_fought = ship.rammed = False
        order = activation_order(self._fleets, state.round)
        state.order, state.cursor, state.stage = order, -1, ACTIVATIONS
        events.append(RoundStarted(state.round, tuple(order)))

    def _end_round(self, events: list[Event]) -> None:
        boarding.cut_idle_grapples(self, events)
        self._check_end(events)
        if self.state.ended:
            return
        if self.state.round >= self.rules.max_rounds:
            self._finish(None, "round_limit", events)
            return
        self._start_round(events)

    def _check_end(self, events: list[Event]) -> None:
        state = self.state
        if state.ended:
            return
        first, second = self._fleets
        first_standing, second_standing = _any_afloat(first), _any_afloat(second)
        if first_standing and second_standing:
            return
        if first_standing or second_standing:
            self._finish(state.sides[0] if first_standing else state.sides[1], "last side fighting", events)
        else:
            self._finish(None, "no ship left fighting", events)

    def _finish(self, winner: str | None, reason: str, events: list[Event]) -> None:
        self.state.decider, self.state.pending = None, []
        super()._finish(winner, reason, events)


def activation_order(fleets: list[list[Ship]], round_: int) -> list[str]:
    """A round's activation order: the sides alternate ship by ship, the first side leading in odd rounds,
    over the ships afloat as the round begins."""
    leading = fleets if round_ % 2 == 1 else fleets[::-1]
    lines = [[s.id for s in fleet if s.status is _AFLOAT] for fleet in leading]
    order: list[str] = []
    for i in range(max(len(lines[0]), len(lines[1]))):
        order += [line[i] for line in lines if i < len(line)]
    return order


def _people_aboard(setup: ShipSetup, vessel: Vessel) -> dict[str, int]:
    """The set-up's numbers of people, the vessel's complement where it gives none."""
    return {who: getattr(setup, who) if getattr(setup, who) is not None else getattr(vessel.complement, who)
            for who in PEOPLE}


def _any_afloat(fleet: list[Ship]) -> bool:
    for ship in fleet:   # a plain loop: any() over a generator costs more than the check itself
        if ship.status is _AFLOAT:
            return True
    return False


def check_invariants(game: BroadsideGame) -> None:
    """Raise AssertionError when the state breaks a rule that must always hold (used by fuzz tests)."""
    state = game.state
    afloat = [s for s in state.ships.values() if s.status is Status.AFLOAT]
    bodies = [(s.id, s.shape) for s in afloat] + [(b.id, b.shape) for b in state.icebergs]
    for ship in afloat:
        assert ship.shape.inside_board(state.width, state.height), f"{ship.id} is off the board: {ship.shape}"
        assert 0 < ship.hull <= ship.max_hull, f"{ship.id} afloat with hull {ship.hull}/{ship.max_hull}"
    for i, (a_id, a) in enumerate(bodies):
        for b_id, b in bodies[i + 1:]:
            assert not overlap(a, b, tolerance=1e-6), f"{a_id} and {b_id} overlap"
    for ship in state.ships.values():
        assert 0 <= ship.hull <= ship.max_hull, f"{ship.id} hull {ship.hull} out of bounds"
        assert min(getattr(ship.people, who) for who in PEOPLE) >= 0, f"{ship.id} has negative people"
        assert min(ship.guns.values()) >= 0
        if not ship.status.fighting:
            assert not ship.boarders and not ship.grappled, f"{ship.id} is out of the battle but still engaged"
        for owner, party in ship.boarders.items():
            assert party.size > 0 and party.marines >= 0 and party.heroes >= 0, f"empty party of {owner}"
            assert state.ships[owner].side != ship.side and state.ships[owner].status.fighting
        for other in ship.grappled:
            assert ship.id in state.ships[other].grappled, f"{ship.id}-{other} grapple is one-sided"
    if not state.ended:
        assert state.decider is not None, "the game is running but nobody holds a decision"
        assert state.ships[state.decider].status.fighting, f"{state.decider} decides while out of the battle"
