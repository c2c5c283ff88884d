"""The `flotilla` rules engine: set-up, rounds, the phases of a round and the legal-action masks.

Before the battle every captain chooses its facing (DEPLOY, defender first), then
the wind is rolled. Each round: the wind under sail (from round 2), initiative by
opposed steering rolls, the movement phase (every ship in initiative order: MOVE),
then the attack phase (every ship in initiative order: ATTACK; each attack on a
ship hands the decision to the defending captain for its REACTION). Decisions
with nothing to choose are resolved without asking.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from naval_env.core.cache import PerScenarioCache, scenario_ships
from naval_env.core.errors import ConfigError
from naval_env.core.events import Event
from naval_env.core.game import ShipBattle
from naval_env.core.grid import STEP, Compass
from naval_env.rulesets.flotilla import combat
from naval_env.rulesets.flotilla.actions import FlotillaActions, Maneuver
from naval_env.rulesets.flotilla.config import (
    FlotillaConfig,
    Scenario,
    ShipSetup,
    SideSetup,
    WindName,
    Zone,
)
from naval_env.rulesets.flotilla.events import (
    AttackDeclared,
    FacingChosen,
    Held,
    InitiativeRolled,
    ManeuverFailed,
    Moved,
    Placed,
    Reacted,
    RoundStarted,
    WindChanged,
)
from naval_env.rulesets.flotilla.fleet import build_ship
from naval_env.rulesets.flotilla.geometry import Square, footprint, on_map, pivot, sighting
from naval_env.rulesets.flotilla.hull import Table
from naval_env.rulesets.flotilla.movement import (
    drift_path,
    first_struck,
    fits,
    movement_now,
    place,
    plan,
    ram_line,
)
from naval_env.rulesets.flotilla.observer import ObserverTables, observe
from naval_env.rulesets.flotilla.rolls import contest_odds, steering_contest, throw
from naval_env.rulesets.flotilla.state import (
    ATTACK,
    CALM,
    DEPLOY,
    MAGES,
    MOVE,
    REACTION,
    SHIP,
    Attack,
    GameState,
    Phase,
    Ship,
)

#: numpy's bool dtype as an object: ``np.frombuffer(mask, _BOOL)`` parses no keyword (a third of its cost).
_BOOL = np.dtype(bool)

A = FlotillaActions
WIND_CODES: dict[str, int] = {"N": int(Compass.N), "S": int(Compass.S), "E": int(Compass.E), "W": int(Compass.W),
                              "calm": CALM}
PAD = 8  # initiative keys are compared on this many dice


def wind_name(wind: int) -> str:
    return "calm" if wind == CALM else Compass(wind).name


class FlotillaGame(ShipBattle[GameState, FlotillaConfig]):
    ruleset_id = "flotilla"
    scenario: Scenario

    def _prepare(self) -> None:
        super()._prepare()
        self.situations = self.scenario.situations
        self._noop = self.action_spec.noop_mask()
        # Masks are built as bytes (one per value) from the no-op mask's and handed to numpy once: item
        # assignments on a bytearray cost a fraction of numpy's on so few values.
        self._noop_bytes = self._noop.tobytes()
        self._move_ends: list[tuple[int, int, int] | None] = []

    def _open(self) -> list[Event]:
        events: list[Event] = []
        self.state = self._set_up(events)
        self._attach_state()
        if not self.rules.captains_choose_facing:
            self._start_battle(events)
        self._advance(events)
        return events

    def _enter(self, state: GameState) -> None:
        """A loaded ``state`` must be whole and consistent (``position.py`` checks it) but for what is done
        here: every ship's squares and the occupancy are rebuilt from the bows; while the game goes on, an
        empty ``order`` outside DEPLOY is rolled as a round's start rolls it (the game's dice), an ``actor``
        of None is the ship at ``cursor`` (in REACTION: the pending attack's target), and the actor's mask is
        worked out as when the flow hands it the decision."""
        state.occupancy = {}
        for ship in state.ships.values():  # a sunk ship keeps its squares but holds none of the sea
            ship.squares = footprint(ship.x, ship.y, ship.facing, ship.size)
            if ship.afloat:
                state.occupancy.update(dict.fromkeys(ship.squares, ship.id))
        self.state = state
        self._attach_state()
        if state.ended:
            return
        if not state.order and state.phase is not DEPLOY:
            state.order = self._initiative([s for s in state.ships.values() if s.afloat], [])
        if state.actor is None:
            if state.phase is REACTION:
                assert state.pending is not None, "a REACTION needs its pending attack"
                state.actor = state.pending.target
            else:
                state.actor = (state.deploy_order if state.phase is DEPLOY else state.order)[state.cursor]
        ship = state.ships[state.actor]
        if state.phase is DEPLOY:
            self._mask = self._deploy_mask(ship)[0]
        elif state.phase is MOVE:
            self._mask = self._move_mask(ship)[0]
        elif state.phase is ATTACK:
            self._mask = self._attack_mask(ship)[0]
        else:
            self._mask = self._reaction_mask(ship)

    def _attach_state(self) -> None:
        """The rules' table, agent indices and the observer's per-game tables of a game whose state is set."""
        self.table = Table(self.dice, self.rules, self.situations, self.state)
        self._index_ships()
        self.observer_tables = ObserverTables(self)

    # ------------------------------------------------------------------ set-up
    def _set_up(self, events: list[Event]) -> GameState:  # type: ignore[override]  # its set-up tells events
        size = self.rules.map_size
        scenario = self.scenario
        sides = tuple(side.name for side in scenario.sides)
        attacker = next(side.name for side in scenario.sides if side.role == "attacker")
        ships = {prototype.id: prototype.copy() for prototype in _prototypes(self.config, self.scenario_name)}
        # The defender sets up first, in the centre; ships given a position are placed before any is drawn.
        by_role = sorted(scenario.sides, key=lambda side: side.role != "defender")
        deploy_order = [f"{side.name}_{i}" for side in by_role for i in range(len(side.ships))]
        state = GameState(size, size, (sides[0], sides[1]), attacker, ships, deploy_order)
        for side in by_role:
            for index, setup in enumerate(side.ships):
                if setup.position is not None:
                    place(state, ships[f"{side.name}_{index}"], *setup.position, ships[f"{side.name}_{index}"].facing)
        for side in by_role:
            for index, setup in enumerate(side.ships):
                if setup.position is None:
                    ship = ships[f"{side.name}_{index}"]
                    x, y = self._draw_square(state, side, ship)
                    place(state, ship, x, y, ship.facing)
        for ship_id in deploy_order:
            ship = ships[ship_id]
            events.append(Placed(ship.id, ship.x, ship.y, Compass(ship.facing).name))
        return state

    def _zone(self, side: SideSetup) -> Zone:
        if side.zone is not None:
            return side.zone
        return _default_zone(side.role == "defender", self.rules.map_size, self.rules.centre_radius)

    def _draw_square(self, state: GameState, side: SideSetup, ship: Ship) -> tuple[int, int]:
        """A bow square of the side's zone where the ship fits, drawn with one die."""
        zone = self._zone(side)
        free = _free_bows(zone.x, zone.y, ship.facing, ship.size, state.width, tuple(sorted(state.occupancy)),
                          self._other_role_squares(state, ship), self.rules.min_attacker_distance - 1)
        if not free:
            raise ConfigError(f"scenario {self.scenario_name!r}: no room left in {side.name}'s zone {zone} for {ship.id}")
        return free[self.dice.choice_index(len(free), f"placement: {ship.id}")]

    def _too_close(self, state: GameState, ship: Ship) -> frozenset[Square]:
        """Squares nearer than the minimum distance to a placed ship of the other role (attacker/defender)."""
        return _near(self._other_role_squares(state, ship), self.rules.min_attacker_distance - 1)

    @staticmethod
    def _other_role_squares(state: GameState, ship: Ship) -> tuple[Square, ...]:
        """The squares of every placed ship of the other role than ``ship``'s (attacker/defender)."""
        attacking = ship.side == state.attacker_side
        return tuple(square for other in state.ships.values()
                     if other.id != ship.id and other.squares and (other.side == state.attacker_side) != attacking
                     for square in other.squares)

    def _placement_ok(self, state: GameState, ship: Ship, x: int, y: int, facing: int,
                      too_close: frozenset[Square]
                      ) -> bool:
        """On the map, on no other ship, and not on ``too_close`` (attackers: near a defender, or the reverse)."""
        squares = footprint(x, y, facing, ship.size)
        return fits(state, squares, ship.id) and too_close.isdisjoint(squares)

    def _start_battle(self, events: list[Event]) -> None:
        """After placement and facings: the wind (1d5 by default), then round 1."""
        state = self.state
        table = self.rules.setup_wind_table
        if self.situations.wind == "random":
            roll = self.dice.d(len(table), "wind")
            state.wind = WIND_CODES[table[roll - 1]]
            events.append(WindChanged(len(table), roll, table[roll - 1]))
        else:
            state.wind = WIND_CODES[self.situations.wind]
            events.append(WindChanged(0, 0, self.situations.wind))
        self._start_round(events)

    # ------------------------------------------------------------------ rounds
    def _start_round(self, events: list[Event]) -> None:
        state = self.state
        if state.round >= self.rules.max_rounds:
            self._finish(None, "round_limit", events)
            return
        state.round += 1
        events.append(RoundStarted(state.round))
        afloat = [s for s in state.ships.values() if s.afloat]
        if state.round > 1 and self.situations.wind_each_round and any(s.sails for s in afloat):
            table: list[WindName] = self.rules.round_wind_table
            roll = self.dice.d(len(table), "wind")
            state.wind = WIND_CODES[table[roll - 1]]
            events.append(WindChanged(len(table), roll, table[roll - 1]))
        state.order = self._initiative(afloat, events)
        for ship in afloat:
            ship.moved = ship.attacked = ship.tried_break_free = False
        state.phase, state.cursor = MOVE, 0

    def _initiative(self, ships: list[Ship], events: list[Event]) -> list[str]:
        """Every captain's steering roll; highest die first, then the next; full ties throw again."""
        counts = {ship.id: max(0, combat.steering(ship) - ship.crew_hits) for ship in ships}
        keys: dict[str, tuple[int, ...]] = {}
        first: dict[str, tuple[int, ...]] = {}
        for ship in ships:
            faces = throw(self.dice, counts[ship.id], f"initiative: {ship.id}")
            first[ship.id] = faces
            keys[ship.id] = _padded(faces)
        order = sorted(keys, key=keys.__getitem__, reverse=True)
        events.append(InitiativeRolled(tuple(order), tuple(first[s] for s in order)))
        while len(set(keys.values())) < len(keys):  # some keys tie
            tied = [s for s in order if sum(keys[o] == keys[s] for o in order) > 1]
            rerolls: dict[str, tuple[int, ...]] = {}
            for s in tied:
                rerolls[s] = throw(self.dice, max(1, counts[s]), f"initiative tie: {s}")
                keys[s] = keys[s] + _padded(rerolls[s])
            order = sorted(keys, key=keys.__getitem__, reverse=True)
            regrouped = [s for s in order if s in rerolls]
            events.append(InitiativeRolled(tuple(regrouped), tuple(rerolls[s] for s in regrouped)))
        return order

    def _advance(self, events: list[Event]) -> None:
        """Run the flow until a captain must decide or the game ends (trivial decisions are resolved here)."""
        state = self.state
        self._mask = None
        state.actor = None
        while not state.ended:
            if state.phase is DEPLOY:
                if state.cursor >= len(state.deploy_order):
                    self._start_battle(events)
                    continue
                ship = state.ships[state.deploy_order[state.cursor]]
                if self._ask(ship, *self._deploy_mask(ship)):
                    return
                state.cursor += 1
            elif state.phase is MOVE:
                if state.cursor >= len(state.order):
                    state.phase, state.cursor = ATTACK, 0
                    continue
                ship = state.ships[state.order[state.cursor]]
                if not ship.afloat or ship.moved:
                    state.cursor += 1
                    continue
                if self._auto_move(ship, events):
                    ship.moved = True
                    self._check_end(events)
                    continue
                if self._ask(ship, *self._move_mask(ship)):
                    return
                self._apply_move(ship, 0, events)
            elif state.phase is ATTACK:
                if state.attack_queue:
                    if self._next_attack(events):
                        return
                    continue
                if state.cursor >= len(state.order):
                    self._start_round(events)
                    continue
                ship = state.ships[state.order[state.cursor]]
                if not ship.afloat or ship.attacked:
                    state.cursor += 1
                    continue
                if self._ask(ship, *self._attack_mask(ship)):
                    return
                ship.attacked = True
            else:  # a REACTION is pending: only apply() moves on from it
                return

    def _ask(self, ship: Ship, mask: np.ndarray, chosen: bool) -> bool:
        """Hand the decision to ``ship``'s captain unless only the no-op is allowed (``chosen`` False)."""
        if not chosen:
            return False
        self.state.actor = ship.id
        self._mask = mask
        return True

    def _auto_move(self, ship: Ship, events: list[Event]) -> bool:
        """Movement without a decision: stuck after a collision, grappled with no way out, or no captain."""
        if ship.stuck:
            ship.stuck = False
            events.append(Held(ship.id, "stuck after a collision"))
            return True
        if ship.grappled_with is not None:
            if self._can_break_free(ship):
                return False
            events.append(Held(ship.id, f"grappled with {ship.grappled_with}"))
            return True
        if not ship.captain_alive:
            current = self.situations.current
            path = drift_path(self.state, ship, int(Compass.parse(current)), self.situations.drift) if current else []
            if len(path) > 1:
                place(self.state, ship, *path[-1], ship.facing)
                events.append(Moved(ship.id, "drift", tuple(path), ship.facing, ship.facing))
            else:
                events.append(Held(ship.id, "no captain"))
            return True
        return False

    def _can_break_free(self, ship: Ship) -> bool:
        """Once a round, from the round after the grapple was made, while the captain lives."""
        return ship.captain_alive and not ship.tried_break_free and ship.grappled_round < self.state.round

    def _next_attack(self, events: list[Event]) -> bool:
        """Resolve the next queued attack; True when its target's captain must choose a reaction."""
        state = self.state
        attack = state.attack_queue.pop(0)
        attacker, target = state.ships[attack.attacker], state.ships[attack.target]
        if not (attacker.afloat and target.afloat) or (attack.unit is MAGES and attacker.mages == 0) or (
                attack.target_unit is MAGES and target.mages == 0):
            return False
        if attack.target_unit is MAGES:
            combat.resolve_attack(self.table, attack, combat.DEFEND, events)
        elif combat.can_counter(self.rules, target, attacker):
            state.phase, state.pending = REACTION, attack
            state.actor = target.id
            self._mask = self._reaction_mask(target)
            return True
        else:
            events.append(Reacted(target.id, combat.DODGE, attacker.id))
            combat.resolve_attack(self.table, attack, combat.DODGE, events)
        self._check_end(events)
        return False

    # ------------------------------------------------------------- Game API
    def is_active(self, agent: str) -> bool:
        return self.state.ships[agent].afloat

    def health(self, agent: str) -> tuple[int, int]:
        ship = self.state.ships[agent]
        return ship.cohesion, ship.max_cohesion

    def _clone_caches(self, twin: FlotillaGame) -> None:
        """The clone's own rules table (its dice and state) and move ends; the observer's tables hold
        per-game constants and stay shared."""
        twin.table = Table(twin.dice, self.rules, self.situations, twin.state)
        twin._move_ends = list(self._move_ends)

    observe = observe  # the observer's ``observe(game, agent)``, bound as the method

    # ------------------------------------------------------------------ masks
    def legal_mask(self, agent: str) -> np.ndarray:
        if self.state.ended or agent != self.state.actor or self._mask is None:
            return self._noop.copy()
        return self._mask.copy()

    def _deploy_mask(self, ship: Ship) -> tuple[np.ndarray, bool]:
        mask = bytearray(self._noop_bytes)
        base = self.action_spec.offsets[A.FACING]
        chosen = False
        too_close = self._too_close(self.state, ship)
        for facing in range(8):
            x, y = pivot(ship.x, ship.y, ship.facing, ship.size, facing)
            if facing != ship.facing and self._placement_ok(self.state, ship, x, y, facing, too_close):
                mask[base + 1 + facing] = chosen = True
        return np.frombuffer(mask, _BOOL), chosen

    def _move_mask(self, ship: Ship) -> tuple[np.ndarray, bool]:
        mask = bytearray(self._noop_bytes)
        base = self.action_spec.offsets[A.MANEUVER]
        actions = self.actions
        if ship.grappled_with is not None:
            mask[base + actions.break_free] = True
            self._move_ends = []
            return np.frombuffer(mask, _BOOL), True
        state = self.state
        chosen = False
        movement = movement_now(ship, state.wind, self.rules)
        ends = actions.routes.ends(state, ship, movement)
        for index in range(1, len(ends)):
            if ends[index] is not None:
                mask[base + index] = chosen = True
        self._move_ends = ends
        struck = first_struck(state, ship, movement)
        for slot, enemy in enumerate(self._enemies[ship.id]):
            if not enemy.afloat:
                continue
            if struck is not None and struck[1] == enemy.id:
                mask[base + actions.ram_base + slot] = chosen = True
            if enemy.grappled_with is None and _gap(ship, enemy) == 1:
                mask[base + actions.board_base + slot] = chosen = True
        return np.frombuffer(mask, _BOOL), chosen

    def _attack_mask(self, ship: Ship) -> tuple[np.ndarray, bool]:
        mask = bytearray(self._noop_bytes)
        offsets = self.action_spec.offsets
        n = self.actions.max_enemies
        rules = self.rules
        chosen = False
        for slot, enemy in enumerate(self._enemies[ship.id]):
            if not enemy.afloat or enemy.id == ship.grappled_with:
                continue
            distance = _gap(ship, enemy)
            if distance <= ship.range:
                mask[offsets[A.TARGET] + 1 + slot] = chosen = True
                if enemy.mages:
                    mask[offsets[A.TARGET] + 1 + n + slot] = True
            if ship.mages and distance <= rules.mage_range:
                mask[offsets[A.MAGE_TARGET] + 1 + slot] = chosen = True
                if enemy.mages:
                    mask[offsets[A.MAGE_TARGET] + 1 + n + slot] = True
        if ship.grappled_with is not None:
            mask[offsets[A.BOARDING] + 1] = chosen = True
        return np.frombuffer(mask, _BOOL), chosen

    def _reaction_mask(self, ship: Ship) -> np.ndarray:
        mask = bytearray(self._noop_bytes)
        mask[self.action_spec.offsets[A.REACTION] + 1] = True
        return np.frombuffer(mask, _BOOL)

    # ------------------------------------------------------------------ apply
    def apply(self, agent: str, action: Any) -> list[Event]:
        self._check_decider(agent)
        state = self.state
        mask = self._mask if self._mask is not None else self._noop
        # Plain ints from here on: indexing a numpy array per value costs more than one tolist().
        values = self.action_spec.checked_values(action, mask, _PHASE_CONTEXT[state.phase])
        ship = state.ships[agent]
        events: list[Event] = []
        phase = state.phase
        if phase is DEPLOY:
            choice = values[A.FACING]
            if choice:
                place(state, ship, *pivot(ship.x, ship.y, ship.facing, ship.size, choice - 1), choice - 1)
                events.append(FacingChosen(ship.id, Compass(choice - 1).name))
            state.cursor += 1
        elif phase is MOVE:
            self._apply_move(ship, values[A.MANEUVER], events)
        elif phase is ATTACK:
            self._apply_attack(ship, values, events)
        else:
            self._apply_reaction(ship, values[A.REACTION], events)
        self._advance(events)
        return events

    def _apply_move(self, ship: Ship, value: int, events: list[Event]) -> None:
        actions, state = self.actions, self.state
        movement = movement_now(ship, state.wind, self.rules)
        enemies = self._enemies[ship.id]
        ship.moved = True
        if value == actions.break_free:
            ship.tried_break_free = True
            if combat.break_free(self.table, ship, events):
                ship.moved = False  # free: it moves normally this round
        elif value >= actions.board_base:
            combat.board(self.table, ship, enemies[value - actions.board_base], events)
        elif value >= actions.ram_base:
            target = enemies[value - actions.ram_base]
            squares = ram_line(state, ship, target, movement) or 0
            if squares:
                route = plan(state, ship, Maneuver("ram", 0, squares), movement)
                assert route is not None, "the ram line was open but cannot be sailed"
                self._sail(ship, "ram", tuple(route[0]), route[1], events)
            combat.ram(self.table, ship, target, events)
        elif value == 0:
            if ship.grappled_with is not None:
                events.append(Held(ship.id, f"grappled with {ship.grappled_with}"))
            else:
                self._sail_maneuver(ship, 0, movement, events)
        else:
            maneuver = actions.maneuvers[value]
            a, b = combat.maneuver_counts(self.rules, ship)
            won, _, _ = steering_contest(self.dice, maneuver.label, ship.id, None, a, b, events)
            if won:
                self._sail_maneuver(ship, value, movement, events)
            else:
                fallback = self.rules.failed_maneuver
                events.append(ManeuverFailed(ship.id, maneuver.label, fallback))
                if fallback == "ahead":
                    self._sail_maneuver(ship, 0, movement, events)
        self._check_end(events)

    def _sail_maneuver(self, ship: Ship, value: int, movement: int, events: list[Event]) -> None:
        """Sail maneuver ``value`` of this MOVE decision to the end its mask found (the state has not changed
        since), along its route from the route table."""
        end = self._move_ends[value]
        assert end is not None, f"{self.actions.maneuvers[value].label} was allowed but cannot be sailed"
        route = self.actions.routes.routes(ship.facing, ship.size, movement)[value]
        x, y = ship.x, ship.y
        path = tuple([(x + dx, y + dy) for dx, dy in route.path])
        if route.base:  # it stopped short of whatever lay in its way
            path = path[: path.index((end[0], end[1])) + 1]
        self._sail(ship, self.actions.maneuvers[value].label, path, route.facing, events)

    def _sail(self, ship: Ship, label: str, path: tuple[Square, ...], facing: int, events: list[Event]) -> None:
        facing_from = ship.facing
        place(self.state, ship, *path[-1], facing)
        events.append(Moved(ship.id, label, path, facing_from, facing))

    def _apply_attack(self, ship: Ship, values: list[int], events: list[Event]) -> None:
        state, actions = self.state, self.actions
        ship.attacked = True
        enemies = self._enemies[ship.id]
        if values[A.BOARDING] and ship.grappled_with is not None:
            combat.boarding_fight(self.table, ship, state.ships[ship.grappled_with], events)
            self._check_end(events)
            if state.ended or not ship.afloat:
                return
        for unit, component in ((SHIP, A.TARGET), (MAGES, A.MAGE_TARGET)):
            target = actions.targets[values[component]]
            if target is None:
                continue
            enemy = enemies[target.slot]
            events.append(AttackDeclared(ship.id, _UNIT_NAMES[unit], enemy.id, _UNIT_NAMES[target.unit]))
            state.attack_queue.append(Attack(ship.id, unit, enemy.id, target.unit))

    def _apply_reaction(self, ship: Ship, value: int, events: list[Event]) -> None:
        state = self.state
        attack = state.pending
        assert attack is not None
        reaction = combat.COUNTER if value else combat.DODGE
        events.append(Reacted(ship.id, reaction, attack.attacker))
        combat.resolve_attack(self.table, attack, reaction, events)
        state.pending, state.phase = None, ATTACK
        self._check_end(events)

    # ------------------------------------------------------------- the end
    def _check_end(self, events: list[Event]) -> None:
        state = self.state
        if state.ended:
            return
        standing = {ship.side for ship in state.ships.values() if ship.afloat}
        if len(standing) == 1:
            self._finish(next(iter(standing)), "last side afloat", events)
        elif not standing:
            self._finish(None, "no ship afloat", events)

    def _finish(self, winner: str | None, reason: str, events: list[Event]) -> None:
        state = self.state
        state.actor, state.pending = None, None
        state.attack_queue.clear()
        super()._finish(winner, reason, events)

    # ---------------------------------------------------------- for captains
    def move_options(self, agent: str) -> list[MoveOption]:
        """Where each legal maneuver of the current MOVE decision leads, with its odds (scripted captains)."""
        state = self.state
        ship = state.ships[agent]
        if state.phase is not MOVE or agent != state.actor or ship.grappled_with is not None:
            return []
        odds = contest_odds(*combat.maneuver_counts(self.rules, ship))
        return [MoveOption(value, *end, 1.0 if value == 0 else odds)
                for value, end in enumerate(self.maneuver_ends(agent)) if end is not None]

    def maneuver_ends(self, agent: str) -> list[tuple[int, int, int] | None]:
        """For the MOVE decision ``agent`` holds: each maneuver's end (bow x, y, facing), None if not allowed."""
        if self.state.phase is not MOVE or agent != self.state.actor or self._mask is None:
            return []
        return self._move_ends


@dataclass(frozen=True, slots=True)
class MoveOption:
    """A legal maneuver: its action value, where the bow ends and facing, and the chance it succeeds."""

    value: int
    x: int
    y: int
    facing: int
    odds: float


_UNIT_NAMES = {SHIP: "ship", MAGES: "mages"}
_PHASE_CONTEXT = {phase: f"in phase {phase.name}" for phase in Phase}  # for illegal-action messages


# The scenario's ships as set-up builds them, before any is placed: what no die decides, built once per config
# and scenario and copied for every game (a ship's fields are all immutable).
def _template(config: FlotillaConfig, side: SideSetup, setup: ShipSetup, ship_id: str, slot: int) -> Ship:
    build = build_ship(config, setup)
    return Ship(
        id=ship_id, side=side.name, ship_class=setup.ship, x=-1, y=-1,
        facing=int(Compass.parse(setup.facing or side.facing)), size=build.size,
        max_cohesion=build.cohesion, cohesion=build.cohesion, captain_dice=build.steering,
        captain_alive=True, crew_hits=0, combat=build.combat, range=build.range,
        boarding=build.boarding, base_movement=build.movement, propulsion_hits=0,
        armour="armour" in build.traits, ram="ram" in build.traits,
        bow_guns="bow_guns" in build.traits, broadside_guns="broadside_guns" in build.traits,
        sails="sails" in build.traits, hero=setup.hero, mages=build.mages, max_mages=build.mages,
    )


_prototypes: PerScenarioCache[FlotillaConfig, tuple[Ship, ...]] = scenario_ships(_template)


@lru_cache(maxsize=64)
def _default_zone(defender: bool, size: int, radius: int) -> Zone:
    """The set-up zone of a side given none: the defender's centre square, or the whole map."""
    if defender:
        c = size // 2
        return Zone(x=(c - radius, c + radius), y=(c - radius, c + radius))
    return Zone(x=(0, size - 1), y=(0, size - 1))


# Set-up and every DEPLOY decision ask where a ship may stand; the answers depend on a few placed squares
# (the defender's centre zone holds few), so they are kept: a new game is set up in a fraction of the time.
@lru_cache(maxsize=1024)
def _free_bows(xs: tuple[int, int], ys: tuple[int, int], facing: int, size: int, width: int,
               occupied: tuple[Square, ...], other_role: tuple[Square, ...], reach: int) -> tuple[Square, ...]:
    """The bow squares of a zone (row by row) whose footprint lies on the map, on no ``occupied`` square and
    not within ``reach`` of an ``other_role`` square."""
    blocked = set(occupied) | _near(other_role, reach)
    dx, dy = STEP[facing]
    # A footprint covers a blocked square exactly when its bow lies 0 .. size - 1 squares ahead of it.
    taken = {(bx + i * dx, by + i * dy) for bx, by in blocked for i in range(size)}
    return tuple(bow for bow in _zone_bows(xs, ys, facing, size, width) if bow not in taken)


@lru_cache(maxsize=1024)
def _near(squares: tuple[Square, ...], reach: int) -> frozenset[Square]:
    """The squares at most ``reach`` from any of ``squares``."""
    near: set[Square] = set()
    for x, y in squares:
        near.update(_squares_around(x, y, reach))
    return frozenset(near)


@lru_cache(maxsize=4096)
def _squares_around(x: int, y: int, reach: int) -> tuple[Square, ...]:
    """The squares at most ``reach`` from (x, y), counting diagonals as one."""
    return tuple((x + i, y + j) for i in range(-reach, reach + 1) for j in range(-reach, reach + 1))


@lru_cache(maxsize=256)
def _zone_bows(xs: tuple[int, int], ys: tuple[int, int], facing: int, size: int, width: int) -> tuple[Square, ...]:
    """Every bow square of a zone (row by row) whose footprint lies on the map."""
    return tuple((x, y) for y in range(ys[0], ys[1] + 1) for x in range(xs[0], xs[1] + 1)
                 if on_map(footprint(x, y, facing, size), width, width))


def _gap(a: Ship, b: Ship) -> int:
    """:func:`~naval_env.rulesets.flotilla.geometry.gap` of two ships, from the cached sightings."""
    return sighting(a.x - b.x, a.y - b.y, a.facing, a.size, b.facing, b.size)[0]


def _padded(faces: tuple[int, ...]) -> tuple[int, ...]:
    return faces + (0,) * (PAD - len(faces))


def check_invariants(game: FlotillaGame) -> None:
    """Raise AssertionError when the state breaks a rule that must always hold (used by fuzz tests)."""
    state = game.state
    expected: dict[Square, str] = {}
    for ship in state.ships.values():
        assert 0 <= ship.cohesion <= ship.max_cohesion, f"{ship.id} cohesion {ship.cohesion} out of bounds"
        assert 0 <= ship.mages <= ship.max_mages, f"{ship.id} mages {ship.mages} out of bounds"
        assert ship.afloat == (ship.cohesion > 0), f"{ship.id} afloat={ship.afloat} at cohesion {ship.cohesion}"
        assert ship.captain_dice >= 0 and ship.crew_hits >= 0 and ship.propulsion_hits >= 0
        if not ship.captain_alive:
            assert ship.captain_dice == 0 or not ship.afloat, f"{ship.id}: dead captain still rolls"
        if not ship.afloat:
            assert ship.grappled_with is None
            continue
        assert on_map(ship.squares, state.width, state.height), f"{ship.id} is off the map"
        for square in ship.squares:
            assert square not in expected, f"{ship.id} overlaps {expected[square]} on {square}"
            expected[square] = ship.id
        if ship.grappled_with is not None:
            other = state.ships[ship.grappled_with]
            assert other.grappled_with == ship.id and other.afloat
    assert expected == state.occupancy, "occupancy does not match the ships afloat"
    if not state.ended:
        actor = state.actor
        assert actor is not None and state.ships[actor].afloat, f"{actor} holds a decision while not afloat"
        if state.phase is REACTION:
            assert state.pending is not None and state.pending.target == actor
