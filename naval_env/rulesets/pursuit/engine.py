"""The `pursuit` rules engine: set-up, the round order, each ship's three decisions and the masks.

Round order (document): the first side's ships (the player characters' side),
then the other side's, then the end of the round. A ship's turn is three
decisions (see :class:`Phase`): COMMAND (the crew's propulsion order and the
captain's command), MANEUVER (flee / pursue / ram a ship, or hold) and GUNS (one
order per war machine). A decision with nothing to choose but the no-op is
played by the engine itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import product
from typing import Any

import numpy as np

from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.core.game import ShipBattle
from naval_env.rulesets.pursuit import hull, propulsion
from naval_env.rulesets.pursuit.actions import PursuitActions
from naval_env.rulesets.pursuit.config import Current, PursuitConfig, Scenario, Wind, mounts_of
from naval_env.rulesets.pursuit.events import Escaped, RoundEnded, TurnStarted
from naval_env.rulesets.pursuit.geometry import ACROSS, COMPASS_DEGREES, direction, relation
from naval_env.rulesets.pursuit.machines import (
    IDLE,
    Reach,
    aims_and_fires,
    gauges,
    give_order,
    point_in_range,
    reach_of,
    usable,
    within,
)
from naval_env.rulesets.pursuit.maneuvers import HOLD, gap, hold, maneuver
from naval_env.rulesets.pursuit.propulsion import (
    Command,
    PropulsionOrder,
    crew_options,
    order_crew,
    relation_speeds,
)
from naval_env.rulesets.pursuit.state import (
    AFLOAT,
    COMMAND,
    ESCAPED,
    GUNS,
    MANEUVER,
    ROWED,
    SAILED,
    Controller,
    Drive,
    GameState,
    Machine,
    Phase,
    Propulsion,
    Ship,
)
from naval_env.rulesets.pursuit.table import Table

A = PursuitActions
_NO_WAY = (0, 0, 0, 0, 0, 0)
_PROPULSION_ORDERS = tuple(PropulsionOrder)  # by value: cheaper than the enum's constructor
_COMMANDS = tuple(Command)
_PHASE_CONTEXTS = tuple(f"in phase {phase.name}" for phase in Phase)
_MASKS_KEPT = 4096  # distinct masks kept per config: a few hundred in practice
_COMPASS_NAMES = {degrees: name for name, degrees in COMPASS_DEGREES.items()}


class PursuitGame(ShipBattle[GameState, PursuitConfig]):
    ruleset_id = "pursuit"
    scenario: Scenario

    def _start(self, events: list[Event]) -> None:
        events.append(TurnStarted(self.state.current, 1))
        self._advance(events)

    def _enter(self, state: GameState) -> None:
        """A loaded ``state`` must be whole and consistent (``position.py`` checks it); its wind and current
        replace the scenario's where they differ."""
        scenario = self.scenario
        wind = Wind(strength=state.wind_strength, toward=_COMPASS_NAMES[state.wind_toward])  # type: ignore[arg-type]
        current = None if state.current_toward is None else Current(
            toward=_COMPASS_NAMES[state.current_toward], fast=state.current_fast)  # type: ignore[arg-type]
        if (wind, current) != (scenario.wind, scenario.current):
            self.scenario = scenario.model_copy(update={"wind": wind, "current": current})
        self.state = state
        self._attach_state()

    def _attach_state(self) -> None:
        """The table, agent indices and every cache of a game whose state is set."""
        self.table = Table(self.dice, self.config, self.scenario, self.state)
        self._index_ships()
        classes = self.table.machine_classes
        self._reaches: dict[str, tuple[Reach, ...]] = {
            ship.id: tuple(reach_of(classes[m.kind], m) for m in ship.machines) for ship in self.state.ships.values()}
        self._no_op = (0,) * len(self.action_spec.components)
        offsets = self.action_spec.offsets
        self._machine_offsets = offsets[A.MACHINE:]
        command_indices = (  # mask index of each crew_options flag
            offsets[A.PROPULSION] + PropulsionOrder.ROW, offsets[A.PROPULSION] + PropulsionOrder.TEND_SAILS,
            offsets[A.PROPULSION] + PropulsionOrder.SWITCH, offsets[A.COMMAND] + Command.FORCE_ROWING,
            offsets[A.COMMAND] + Command.INSPIRE,
        )
        #: the COMMAND choices by the crew_options flags
        self._command_choices = {
            options: tuple(index for allowed, index in zip(options, command_indices) if allowed)
            for options in product((False, True), repeat=len(command_indices))}
        cos, sin = math.cos(math.radians(self.rules.veer_degrees)), math.sin(math.radians(self.rules.veer_degrees))
        self._veers = ((1.0, 0.0), (cos, sin), (cos, -sin))  # straight, port, starboard (as in maneuver order)
        self._mask: np.ndarray | None = None
        self._observer: Any = None
        self._attach_ships()
        self._turn_done = False

    def _attach_ships(self) -> None:
        """What refers to this game's own ship objects (set again on a clone's copied ships)."""
        #: each phase's ``_*_mask``, by phase
        self._choices: tuple[Callable[[Ship], Sequence[int]], ...] = (
            self._command_mask, self._maneuver_mask, self._guns_mask)
        self._ships = list(self.state.ships.values())

    def _clone_caches(self, twin: PursuitGame) -> None:
        """The clone's own table (its dice and state), mask choosers, ship list and observer; the observer's
        facts, the reaches, the command choices and the veers are set once per game, never change and hold
        no ship object: shared."""
        twin.table = Table(twin.dice, self.config, self.scenario, twin.state)
        twin._attach_ships()
        if self._observer is not None:
            twin._observer = self._observer.bound_to(twin)

    # ------------------------------------------------------------------ set-up
    def _set_up(self) -> GameState:
        config, dice = self.config, self.dice
        ships: dict[str, Ship] = {}
        for side in self.scenario.sides:
            for index, setup in enumerate(side.ships):
                cls = config.ship_classes[setup.ship]
                ship_id = f"{side.name}_{index}"
                if setup.position is not None:
                    x, y = float(setup.position[0]), float(setup.position[1])
                else:
                    x = float(_place(dice, side.zone.x, f"{ship_id} placement x"))
                    y = float(_place(dice, side.zone.y, f"{ship_id} placement y"))
                crew = setup.crew
                machines = []
                for spot, mount in enumerate(mounts_of(config, setup)):
                    machine_class = config.war_machines[mount.machine]
                    machines.append(Machine(
                        kind=mount.machine, spot=spot, gunners=mount.gunners or machine_class.crew,
                        gunner_intellect=mount.gunner_intellect, stone=mount.ammunition == "stone",
                        health=machine_class.health,
                    ))
                propulsion_mode = setup.propulsion or ("sails" if cls.sails else "oars")
                count = crew.count if crew.count is not None else cls.crew
                ships[ship_id] = Ship(
                    id=ship_id, side=side.name, ship_class=setup.ship,
                    controller=Controller(**setup.controller.model_dump()),
                    x=x, y=y, health=cls.health, size=cls.size, radius=cls.radius, draft=cls.draft,
                    maneuverability=cls.maneuverability, seaworthiness=cls.seaworthiness,
                    oars=cls.oars, sails=cls.sails, rowers=cls.rowers, sail_crew=cls.sail_crew,
                    deck_spots=cls.deck_spots, crew=count, crew_max=count, crew_agility=crew.agility,
                    crew_strength=crew.strength, crew_will=crew.will, crew_health=crew.health,
                    propulsion=Propulsion(propulsion_mode), machines=machines,
                )
        sides = tuple(side.name for side in self.scenario.sides)
        current = self.scenario.current
        return GameState(
            sides=(sides[0], sides[1]), ships=ships, order=list(ships),
            wind_strength=self.scenario.wind.strength, wind_toward=COMPASS_DEGREES[self.scenario.wind.toward],
            current_toward=COMPASS_DEGREES[current.toward] if current else None,
            current_fast=bool(current and current.fast),
        )

    # ------------------------------------------------------------- Game API
    def health(self, agent: str) -> tuple[int, int]:
        ship = self.state.ships[agent]
        return ship.remaining, ship.health

    @property
    def observer(self) -> Any:
        if self._observer is None:
            from naval_env.rulesets.pursuit.observer import Observer

            self._observer = Observer(self)
        return self._observer

    def observe(self, agent: str) -> np.ndarray:
        return (self._observer or self.observer).observe(agent)

    # ------------------------------------------------------------------ masks
    # Each phase's ``_*_mask`` lists the flat mask indices it allows besides the no-ops (always allowed):
    # none is a decision without a choice, which the engine plays without building a mask.
    def _build_mask(self, ship: Ship) -> np.ndarray:
        return self._mask_of(self._choices[self.state.phase](ship))

    def _mask_of(self, allowed: Sequence[int]) -> np.ndarray:
        """The mask allowing ``allowed`` and the no-ops, kept for every game of the config (decisions repeat a
        few dozen masks; ``legal_mask`` hands out copies)."""
        masks = self.actions.masks
        key = tuple(allowed)
        mask = masks.get(key)
        if mask is None:
            if len(masks) >= _MASKS_KEPT:
                masks.clear()
            mask = self.action_spec.noop_mask()
            mask[list(allowed)] = True
            mask.flags.writeable = False
            masks[key] = mask
        return mask

    def _command_mask(self, ship: Ship) -> Sequence[int]:
        return self._command_choices[crew_options(self.table, ship)]

    def maneuver_speeds(self, ship: Ship, target: Ship, drive: Drive | None = None) -> tuple[int, ...]:
        """Speed along each maneuver at ``target``: flee (straight, port, starboard), then pursue.

        ``drive``: how the ship is driven (default: as ordered this round)."""
        drive = ship.drive if drive is None else drive
        if drive is ROWED and not self.table.has_current:
            return self.line_speeds(ship, 1.0, 0.0, drive)  # the same on every heading: no need for the line
        ux, uy, _ = direction(ship.x, ship.y, target.x, target.y)
        return self.line_speeds(ship, ux, uy, drive)

    def line_speeds(self, ship: Ship, ux: float, uy: float, drive: Drive) -> tuple[int, ...]:
        """:meth:`maneuver_speeds` for the unit vector (ux, uy) toward the target."""
        t = self.table
        if drive is ROWED:
            speeds = relation_speeds(t, ship, drive)
            if not t.has_current:
                return (speeds[ACROSS],) * 6
            wx, wy = t.current_x, t.current_y
        elif drive is SAILED:
            speeds = relation_speeds(t, ship, drive)
            wx, wy = t.wind_x, t.wind_y
        else:
            return _NO_WAY
        # Fleeing heads along the exact negation of the pursuit's heading (IEEE negation and rounding are
        # symmetric), so its relation is the pursuit's mirrored: against for with and with for against.
        cos_arc = t.cos_arc
        pursue = [relation(ux * c - uy * s, ux * s + uy * c, wx, wy, cos_arc) for c, s in self._veers]
        return (speeds[2 - pursue[0]], speeds[2 - pursue[1]], speeds[2 - pursue[2]],
                speeds[pursue[0]], speeds[pursue[1]], speeds[pursue[2]])

    def _maneuver_mask(self, ship: Ship) -> Sequence[int]:
        allowed: list[int] = []
        if ship.helm_jammed:
            return allowed
        first = self.action_spec.offsets[A.MANEUVER] + 1
        for enemy in self._enemies[ship.id]:
            if enemy.status is AFLOAT:
                speeds = self.maneuver_speeds(ship, enemy)
                if 0 in speeds:  # some headings make no way
                    allowed += [first + j for j, speed in enumerate(speeds) if speed > 0]
                else:
                    allowed += range(first, first + 6)
                if speeds[3] > 0 and gap(ship, enemy) <= speeds[3]:
                    allowed.append(first + 6)
            first += 7
        return allowed

    def _guns_mask(self, ship: Ship) -> Sequence[int]:
        allowed: list[int] = []
        if ship.status is not AFLOAT:
            return allowed  # no machine is usable
        classes = self.table.machine_classes
        n = self.rules.max_ships_per_side
        # the afloat enemies' slots and distances, once for every machine
        targets = [(slot, gauges(math.hypot(enemy.x - ship.x, enemy.y - ship.y), ship, enemy))
                   for slot, enemy in enumerate(self._enemies[ship.id]) if enemy.status is AFLOAT]
        for machine, reach, base in zip(ship.machines, self._reaches[ship.id], self._machine_offsets):
            if not usable(machine, ship):
                continue  # destroyed, or no gunners left: only idle
            cls = classes[machine.kind]
            shoots = False  # fire@ needs a loaded machine that has not misfired
            if machine.misfired:
                allowed.append(base + 2)  # repair
            elif not machine.loaded:
                allowed.append(base + 1)  # load
            else:
                point = machine.point  # fire: at the aim or the last shot's space, if still in range
                if point is not None and point_in_range(cls, machine, ship, point):
                    allowed.append(base + 3)
                shoots = aims_and_fires(cls, machine)
            for slot, distances in targets:
                if within(reach, distances):
                    allowed.append(base + 4 + slot)
                    if shoots:
                        allowed.append(base + 4 + n + slot)
        return allowed

    # ------------------------------------------------------------------ apply
    def apply(self, agent: str, action: Any) -> list[Event]:
        values = self._checked_values(agent, action, _PHASE_CONTEXTS)
        state = self.state
        events: list[Event] = []
        self._mask = None
        self._apply_phase(state.ships[agent], values, events)
        self._advance(events)
        return events

    def _apply_phase(self, ship: Ship, values: Sequence[int], events: list[Event]) -> None:
        state, t = self.state, self.table
        phase = state.phase
        if phase is COMMAND:
            order_crew(t, ship, _PROPULSION_ORDERS[values[A.PROPULSION]], _COMMANDS[values[A.COMMAND]], events)
            state.phase = MANEUVER
        elif phase is MANEUVER:
            choice = self.actions.maneuvers[values[A.MANEUVER]]
            if choice.kind is HOLD:
                hold(ship, events)
            else:
                assert choice.target_slot is not None
                maneuver(t, ship, choice, self._enemies[ship.id][choice.target_slot], events)
            if ship.status is AFLOAT:
                state.phase = GUNS
            else:
                self._turn_done = True
        else:
            enemies = self._enemies[ship.id]
            orders = self.actions.orders
            for i, value in enumerate(values[A.MACHINE:A.MACHINE + len(ship.machines)]):
                if ship.status is not AFLOAT:
                    break
                order = orders[value]
                if order.kind is IDLE:
                    continue
                give_order(t, ship, i, order,
                           enemies[order.target_slot] if order.target_slot is not None else None, events)
            self._turn_done = True

    def _advance(self, events: list[Event]) -> None:
        """Play on until a captain has a real choice or the game ends. The end is checked after every phase
        played; a new turn changes no ship (the end of a round checks for itself)."""
        state = self.state
        self._check_end(events)
        while not state.ended:
            if self._turn_done:
                self._next_turn(events)
                continue
            ship = state.ships[state.order[state.turn]]
            allowed = self._choices[state.phase](ship)
            if allowed:
                self._mask = self._mask_of(allowed)
                return
            self._apply_phase(ship, self._no_op, events)
            self._check_end(events)
        self._mask = None

    def _next_turn(self, events: list[Event]) -> None:
        state = self.state
        state.turn += 1
        if state.turn >= len(state.order):
            state.turn = 0
            self._end_round(events)
            self._check_end(events)
            if state.ended:
                return
            state.round += 1
            if state.round > self.rules.max_rounds:
                state.round = self.rules.max_rounds
                self._finish(None, "round_limit", events)
                return
        ship = state.ships[state.order[state.turn]]
        if ship.status is not AFLOAT:
            return  # _turn_done stays True: the next ship
        self._turn_done = False
        state.phase = COMMAND
        events.append(TurnStarted(ship.id, state.round))

    def _end_round(self, events: list[Event]) -> None:
        """The end of the round: crews tire, boosts wear off, rocks grind, sinking ships go down, escapes."""
        t, state = self.table, self.state
        events.append(RoundEnded(state.round))
        for ship_id in state.order:
            ship = state.ships[ship_id]
            if ship.status is AFLOAT:
                propulsion.end_of_round(t, ship, events)
            hull.end_of_round(t, ship, events)
        escape = self.scenario.escape
        if escape is None:
            return
        for ship_id in state.order:
            ship = state.ships[ship_id]
            if ship.status is not AFLOAT or ship.side not in escape.sides:
                continue
            enemies = [e for e in self._enemies[ship_id] if e.status is AFLOAT]
            if not enemies:
                continue
            nearest = min(math.hypot(e.x - ship.x, e.y - ship.y) for e in enemies)
            if nearest > escape.distance:
                ship.status = ESCAPED
                events.append(Escaped(ship.id, nearest))

    def _check_end(self, events: list[Event]) -> None:
        state = self.state
        if state.ended:
            return
        for ship in self._ships:
            if ship.status is not AFLOAT:
                break
        else:
            return  # everyone is still fighting
        fighting = {side: any(s.status.fighting for s in state.ships.values() if s.side == side)
                    for side in state.sides}
        if all(fighting.values()):
            return
        escaped = {side: any(s.status is ESCAPED for s in state.ships.values() if s.side == side)
                   for side in state.sides}
        first, second = state.sides
        if not fighting[first] and not fighting[second]:
            if escaped[first] != escaped[second]:
                self._finish(first if escaped[first] else second, "escaped", events)
            else:
                self._finish(None, "no ship left fighting", events)
            return
        standing, gone = (first, second) if fighting[first] else (second, first)
        result = self.scenario.escape.result if self.scenario.escape is not None else "draw"
        if not escaped[gone]:
            self._finish(standing, "last side fighting", events)
        elif result == "win":
            self._finish(gone, "escaped", events)
        elif result == "loss":
            self._finish(standing, "enemy escaped", events)
        else:
            self._finish(None, "escaped", events)

    # ---------------------------------------------------------- for captains
    def target_slot(self, ship: Ship, target: Ship) -> int:
        return self._enemies[ship.id].index(target)


def _place(dice: Dice, bounds: tuple[int, int], reason: str) -> int:
    """A whole-yard coordinate within the zone's bounds, one die (none when the bounds are one value)."""
    low, high = bounds
    return low if high == low else low + dice.d(high - low + 1, reason) - 1


def check_invariants(game: PursuitGame) -> None:
    """Raise AssertionError when the state breaks a rule that must always hold (used by fuzz tests)."""
    state = game.state
    for ship in state.ships.values():
        assert 0 <= ship.damage <= ship.health, f"{ship.id} damage {ship.damage} out of 0..{ship.health}"
        assert 0 <= ship.crew <= ship.crew_max, f"{ship.id} crew {ship.crew} out of bounds"
        assert math.isfinite(ship.x) and math.isfinite(ship.y), f"{ship.id} is off the sea"
        if ship.status.fighting:
            assert ship.scuttled == (2 * ship.damage >= ship.health), f"{ship.id} scuttled flag is wrong"
        if ship.status.fighting:
            assert ship.damage < ship.health, f"{ship.id} is afloat with {ship.damage} damage"
        for machine in ship.machines:
            assert 0 <= machine.damage <= machine.health
            assert not (machine.destroyed and machine.loaded)
        for other in state.ships.values():
            if other is not ship and ship.status.fighting and other.status.fighting:
                assert gap(ship, other) >= 0.0
    if not state.ended:
        current = state.ships[state.current]
        assert current.status.fighting, f"{current.id} holds a decision while {current.status.value}"
        assert game.legal_mask(current.id).sum() > len(game.action_spec.components), "a decision with no choice"
