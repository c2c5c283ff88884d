"""The `pantheon` rules engine: set-up, initiative, the turn sequence and the legal-action masks.

Each captain's turn is a short sequence of decisions (see :class:`Phase`):
START (release a boarded ship / Fair Escape, only when either is possible),
MOVE (skipped when Wrecked or tied), ATTACK (crew actions, retest orders and one
attack) and ESCAPE (the extra move of Get Us Out Of Here!).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from naval_env.core.cache import PerObjectCache, PerScenarioCache, scenario_ships
from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.core.game import ShipBattle
from naval_env.core.grid import Compass
from naval_env.core.maneuvers import ManeuverOutcomes
from naval_env.rulesets.pantheon import combat
from naval_env.rulesets.pantheon.actions import (
    MAX_CREW_SLOTS,
    AttackKind,
    PantheonActions,
    TurnOrder,
)
from naval_env.rulesets.pantheon.config import PantheonConfig, Scenario, ShipSetup, SideSetup
from naval_env.rulesets.pantheon.crew import NONE_CODE, REPAIR_CODE
from naval_env.rulesets.pantheon.events import (
    AttackDeclared,
    CrewActed,
    FairEscape,
    InitiativeRolled,
    Moved,
    TurnStarted,
)
from naval_env.rulesets.pantheon.hull import advance_sinking, damage, set_status, untie
from naval_env.rulesets.pantheon.movement import ManeuverTable, speed_with_wind
from naval_env.rulesets.pantheon.observer import observe
from naval_env.rulesets.pantheon.state import CaptainSheet, GameState, Phase, Ship, Status

A = PantheonActions


class PantheonGame(ShipBattle[GameState, PantheonConfig]):
    ruleset_id = "pantheon"
    scenario: Scenario

    def _prepare(self) -> None:
        super()._prepare()
        self._masks = _MASKS(self.config)

    def _start(self, events: list[Event]) -> None:
        events.append(self._initiative_event)
        self._begin_turn(events)

    def _enter(self, state: GameState) -> None:
        """A loaded ``state`` must be whole and consistent (``position.py`` checks it); ``occupancy`` is
        rebuilt here."""
        state.occupancy = {(s.x, s.y): s.id for s in state.ships.values() if s.status.on_board}
        super()._enter(state)

    # ------------------------------------------------------------------ set-up
    def _set_up(self) -> GameState:
        width, height = self.scenario.board
        ships: dict[str, Ship] = {}
        occupancy: dict[tuple[int, int], str] = {}
        # Squares given explicitly are reserved first, so a randomly placed ship never takes one.
        reserved = {s.position for side in self.scenario.sides for s in side.ships if s.position is not None}
        for (side, setup), prototype in zip(self._setups(), _prototypes(self.config, self.scenario_name)):
            x, y = setup.position if setup.position is not None else self._place(
                side.zone, reserved | occupancy.keys())
            ship = ships[prototype.id] = prototype.copy()
            ship.x, ship.y = x, y
            occupancy[(x, y)] = ship.id
        order = self._initiative_order(ships)
        sides = tuple(side.name for side in self.scenario.sides)
        return GameState(width, height, int(Compass.parse(self.scenario.wind)), (sides[0], sides[1]),
                         ships, order, occupancy=occupancy)

    def _setups(self) -> list[tuple[Any, Any]]:
        """(side, ship set-up) of every ship of the scenario, in side order."""
        return [(side, setup) for side in self.scenario.sides for setup in side.ships]

    def _place(self, zone: Any, taken: set[tuple[int, int]]) -> tuple[int, int]:
        """A free square of the set-up zone (not ``taken``), drawn with the game's dice."""
        free = [
            (x, y)
            for y in range(zone.y[0], zone.y[1] + 1)
            for x in range(zone.x[0], zone.x[1] + 1)
            if (x, y) not in taken
        ]
        if not free:
            raise ValueError(f"set-up zone {zone} has no free square left")
        return free[self.dice.choice_index(len(free), "placement")]

    def _initiative_order(self, ships: dict[str, Ship]) -> list[str]:
        order = roll_initiative(ships, self.dice)
        self._initiative_event = InitiativeRolled(tuple(order), tuple(ships[s].initiative for s in order))
        return order

    # ------------------------------------------------------------- Game API
    def health(self, agent: str) -> tuple[int, int]:
        ship = self.state.ships[agent]
        return ship.health, ship.max_health

    observe = observe  # the observer's ``observe(game, agent)``, bound as the method

    # ------------------------------------------------------------------ masks
    def _build_mask(self, ship: Ship) -> np.ndarray:
        """The decision's mask (read only), kept for every game of the config by what it depends on
        (decisions repeat the same few masks)."""
        offsets = self.action_spec.offsets
        state = self.state
        phase = state.phase
        key: tuple[Any, ...]
        if phase is Phase.START:
            base = offsets[A.TURN_ORDER]
            key = ((base + TurnOrder.RELEASE, ship.boarding is not None),
                   (base + TurnOrder.FAIR_ESCAPE, state.fair_escape_ok))
        elif phase is Phase.MOVE:
            key = (A.MANEUVER, self._maneuver_bits(ship, self.actions.maneuvers, ship.speed_this_turn))
        elif phase is Phase.ATTACK:
            key = self._attack_key(ship)
        else:
            key = (A.ESCAPE, self._maneuver_bits(ship, self.actions.escape_maneuvers, self.rules.get_out_distance))
        mask = self._masks.get((phase, key))
        if mask is None:
            mask = self._write_mask(phase, key)
            if len(self._masks) >= MASKS_LIMIT:
                self._masks.clear()
            self._masks[(phase, key)] = mask
        return mask

    def _write_mask(self, phase: Phase, key: tuple[Any, ...]) -> np.ndarray:
        mask = self.action_spec.noop_mask()
        if phase is Phase.MOVE or phase is Phase.ESCAPE:
            component, bits = key
            table = self.actions.maneuvers if phase is Phase.MOVE else self.actions.escape_maneuvers
            base = self.action_spec.offsets[component]
            mask[base: base + len(table)] = table.mask_of(bits)
        elif phase is Phase.ATTACK:
            self._write_attack_mask(mask, key)
        else:
            for index, value in key:
                mask[index] = value
        mask.flags.writeable = False
        return mask

    def _maneuver_bits(self, ship: Ship, table: ManeuverTable, allowance: int) -> int:
        state = self.state
        others = [square for square, other in state.occupancy.items() if other != ship.id]
        return table.legal_bits(ship.x, ship.y, ship.facing, allowance, state.width, state.height, others)

    def _attack_key(self, ship: Ship) -> tuple[Any, ...]:
        """All an ATTACK mask depends on: per enemy slot, whether a Fire!, a ram and a boarding are open on
        it; then afloat, wrecked and untied, crew slots, whether the crew may repair, retests left."""
        fire_range, moved_forward = ship.fire_range, ship.moved_forward
        untied = ship.tied_to is None
        slots = []
        for target in self._enemies[ship.id]:
            if not target.status.fighting:
                slots.append(_NO_TARGET)
                continue
            distance = max(abs(ship.x - target.x), abs(ship.y - target.y))
            adjacent = distance == 1
            slots.append((distance <= fire_range, adjacent and moved_forward, adjacent and (
                ship.boarding == target.id or (untied and target.tied_to is None))))
        status = ship.status
        return (tuple(slots), status is Status.AFLOAT, status is Status.WRECKED and untied,
                min(ship.crew_slots, MAX_CREW_SLOTS), ship.shipwright > 0 and not ship.crew_repair_used,
                ship.retests > 0)

    def _write_attack_mask(self, mask: np.ndarray, key: tuple[Any, ...]) -> None:
        slots, afloat, wrecked_untied, crew_slots, may_repair, retests = key
        offsets = self.action_spec.offsets
        base = offsets[A.ATTACK]
        n = self.rules.max_ships_per_side
        for slot, (fire, ram, board) in enumerate(slots):
            mask[base + 1 + n + slot] = fire
            mask[base + 1 + slot] = ram
            mask[base + 1 + 2 * n + slot] = board
        mask[base + 1 + 3 * n] = afloat
        mask[base + 2 + 3 * n] = wrecked_untied
        for slot in range(crew_slots):
            crew_base = offsets[A.CREW + slot]
            mask[crew_base: crew_base + REPAIR_CODE] = True
            mask[crew_base + REPAIR_CODE] = slot == 0 and may_repair
        mask[offsets[A.RETEST_ON_FAILURE] + 1] = retests
        mask[offsets[A.RETEST_WHEN_HIT] + 1] = retests

    # ------------------------------------------------------------------ apply
    def apply(self, agent: str, action: Any) -> list[Event]:
        values = self._checked_values(agent, action, _PHASE_CONTEXT)
        state = self.state
        ship = state.ships[agent]
        events: list[Event] = []
        self._mask = None
        if state.phase is Phase.START:
            self._apply_start(ship, TurnOrder(int(values[A.TURN_ORDER])), events)
        elif state.phase is Phase.MOVE:
            self._move(ship, self.actions.maneuvers, int(values[A.MANEUVER]), ship.speed_this_turn, events)
            self._enter_attack(ship)
        elif state.phase is Phase.ATTACK:
            self._apply_attack(ship, values, events)
        else:
            self._move(ship, self.actions.escape_maneuvers, int(values[A.ESCAPE]),
                       self.rules.get_out_distance, events)
            self._end_turn(events)
        return events

    def _apply_start(self, ship: Ship, order: TurnOrder, events: list[Event]) -> None:
        if order is TurnOrder.FAIR_ESCAPE:
            events.append(FairEscape(ship.id))
            set_status(self.state, ship, Status.ESCAPED, events)
            self._end_turn(events)
            return
        if order is TurnOrder.RELEASE:
            untie(self.state, ship, "released by the boarder", events)
        self._enter_move_or_attack(ship)

    def _enter_move_or_attack(self, ship: Ship) -> None:
        if ship.status is Status.AFLOAT and ship.tied_to is None:
            self.state.phase = Phase.MOVE
            ship.speed_this_turn = speed_with_wind(ship.speed, ship.facing, self.state.wind)
        else:
            self._enter_attack(ship)

    def _enter_attack(self, ship: Ship) -> None:
        self.state.phase = Phase.ATTACK

    def _move(self, ship: Ship, table: ManeuverTable, index: int, allowance: int, events: list[Event]) -> None:
        maneuver = table.maneuvers[index]
        if index == 0:
            return
        cells = table.paths[ship.facing][index]
        start, facing_from = (ship.x, ship.y), ship.facing
        state = self.state
        del state.occupancy[start]
        if cells:
            ship.x, ship.y = ship.x + cells[-1][0], ship.y + cells[-1][1]
        ship.facing = int(table.end_facing[facing_from, index])
        state.occupancy[(ship.x, ship.y)] = ship.id
        if maneuver.forward:
            ship.moved_forward = True
        path = (start, *((start[0] + dx, start[1] + dy) for dx, dy in cells))
        events.append(Moved(ship.id, path, facing_from, ship.facing, maneuver.forward, allowance))

    def _apply_attack(self, ship: Ship, values: list[int], events: list[Event]) -> None:
        state, rules, dice = self.state, self.rules, self.dice
        chosen = [int(values[A.CREW + i]) for i in range(A.RETEST_ON_FAILURE - A.CREW)]
        ship.buffs = tuple(code for code in chosen if code not in (NONE_CODE, REPAIR_CODE))
        ship.retest_on_failure = bool(values[A.RETEST_ON_FAILURE])
        ship.retest_when_hit = bool(values[A.RETEST_WHEN_HIT])
        if any(code != NONE_CODE for code in chosen):
            labels = tuple(self.action_spec.components[A.CREW].labels[c] for c in chosen if c != NONE_CODE)
            events.append(CrewActed(ship.id, labels))
        repaired = REPAIR_CODE in chosen
        if repaired:
            combat.crew_repair(rules, state, ship, events)
        exchanged = ship.boarding is not None
        if ship.boarding is not None:
            boarded = state.ships[ship.boarding]
            boarded.targeted_at = state.turn_counter
            combat.boarding_exchange(state, ship, boarded, events)
        choice = self.actions.attacks[int(values[A.ATTACK])]
        if not ship.status.fighting:
            self._end_turn(events)
            return
        code = int(values[A.ATTACK])
        # Only a repair or a boarding melee can change what the decision's mask allowed (checked above).
        if (repaired or exchanged) and not self._build_mask(ship)[self.action_spec.offsets[A.ATTACK] + code]:
            # The boarding melee just now changed the situation (a tie ended, the ship was wrecked).
            events.append(AttackDeclared(ship.id, f"{choice.kind.value} (no longer possible)", None))
            self._end_turn(events)
            return
        target = None if choice.target_slot is None else self.enemies_of(ship)[choice.target_slot]
        if choice.kind is not AttackKind.NONE:
            events.append(AttackDeclared(ship.id, choice.kind.value, target.id if target else None))
        if target is not None:
            target.targeted_at = state.turn_counter
        if target is not None and choice.kind is AttackKind.RAM:
            combat.ram(dice, rules, state, ship, target, events)
        elif target is not None and choice.kind is AttackKind.FIRE:
            combat.fire(dice, rules, state, ship, target, events)
        elif target is not None and choice.kind is AttackKind.BOARD:
            if ship.boarding == target.id:
                combat.press_boarding(dice, rules, state, ship, target, events)
            else:
                combat.board(dice, rules, state, ship, target, events)
        elif choice.kind is AttackKind.REPAIR:
            combat.repair_wreck(dice, rules, state, ship, events)
        elif choice.kind is AttackKind.GET_OUT:
            if ship.tied_to is not None:
                state.ships[ship.tied_to].targeted_at = state.turn_counter
            if combat.break_free(dice, rules, state, ship, events) and ship.status is Status.AFLOAT:
                state.phase = Phase.ESCAPE
                self._check_end(events)
                if not state.ended:
                    return
        self._end_turn(events)

    # ------------------------------------------------------------- turn flow
    def _end_turn(self, events: list[Event]) -> None:
        state = self.state
        self._check_end(events)
        while not state.ended:
            state.turn += 1
            if state.turn >= len(state.order):
                state.turn = 0
                if state.round >= self.rules.max_rounds:  # the last round is over: no round past the limit
                    self._finish(None, "round_limit", events)
                    return
                state.round += 1
            if self._begin_turn(events):
                return
            self._check_end(events)

    def _begin_turn(self, events: list[Event]) -> bool:
        """Start the current ship's turn; False when it has no decision (gone, sinking, just sank)."""
        state = self.state
        ship = state.ships[state.current]
        if not ship.status.on_board:
            return False
        state.turn_counter += 1
        events.append(TurnStarted(ship.id, state.round))
        if ship.status is Status.SINKING:
            advance_sinking(state, ship, self.rules.sinking_turns, events)
            return False
        if ship.status is Status.WRECKED:
            damage(state, ship, self.rules.wrecked_damage_per_turn, None, "wrecked", events)
            if not ship.status.fighting:
                return False
        state.fair_escape_ok = (
            ship.status is Status.AFLOAT
            and ship.tied_to is None
            and self._at_edge(ship)
            and ship.last_turn_start >= 0
            and ship.targeted_at < ship.last_turn_start
        )
        ship.last_turn_start = state.turn_counter
        ship.moved_forward = False
        ship.started_at_edge = self._at_edge(ship)
        self._mask = None
        if state.fair_escape_ok or ship.boarding is not None:
            state.phase = Phase.START
        else:
            self._enter_move_or_attack(ship)
        return True

    def _at_edge(self, ship: Ship) -> bool:
        return ship.x in (0, self.state.width - 1) or ship.y in (0, self.state.height - 1)

    def _check_end(self, events: list[Event]) -> None:
        state = self.state
        if state.ended:
            return
        fighting = {s.side for s in state.ships.values() if s.status.fighting}
        standing = [side for side in state.sides if side in fighting]
        if len(standing) == 1:
            self._finish(standing[0], "last side fighting", events)
        elif not standing:
            self._finish(None, "no ship left fighting", events)

    # ---------------------------------------------------------- for captains
    def maneuver_outcomes(self, agent: str) -> ManeuverOutcomes | None:
        """Where each legal maneuver of the current MOVE or ESCAPE decision ends (for scripted captains)."""
        ship = self.state.ships[agent]
        phase = self.state.phase
        if phase is Phase.MOVE:
            table, component = self.actions.maneuvers, A.MANEUVER
        elif phase is Phase.ESCAPE:
            table, component = self.actions.escape_maneuvers, A.ESCAPE
        else:
            return None
        index = np.flatnonzero(self.action_spec.split(self.legal_mask(agent))[component])
        f = ship.facing
        return ManeuverOutcomes(index, ship.x + table.end_dx[f, index], ship.y + table.end_dy[f, index],
                                table.end_facing[f, index], table.forward[index])


#: Decision masks kept per config, one per distinct key: past it they start over.
MASKS_LIMIT = 1 << 12
_MASKS: PerObjectCache[PantheonConfig, dict[tuple[Phase, tuple[Any, ...]], np.ndarray]] = PerObjectCache(lambda _: {})
_NO_TARGET = (False, False, False)  # an enemy slot that is empty or holds a ship out of the fight
_PHASE_CONTEXT = {phase: f"in phase {phase.name}" for phase in Phase}  # for illegal-action messages
# The scenario's ships as set-up makes them, but for the square each is placed on: what no die decides, built
# once per config and scenario and copied for every game (a ship's fields are all immutable).
def _template(config: PantheonConfig, side: SideSetup, setup: ShipSetup, ship_id: str, slot: int) -> Ship:
    rules = config.house_rules
    vessel = config.vessels[setup.vessel]
    ups = setup.enhancements
    crew = vessel.pc_capacity if setup.crew is None else min(setup.crew, vessel.pc_capacity)
    captain = CaptainSheet(**setup.captain.model_dump())
    max_health = vessel.health + rules.armor_enhancement * ups.count("armor")
    return Ship(
        id=ship_id,
        side=side.name,
        vessel=setup.vessel,
        captain=captain,
        x=-1,
        y=-1,
        facing=int(Compass.parse(setup.facing or side.facing)),
        max_health=max_health,
        health=max_health,
        speed=vessel.speed + ups.count("speed"),
        damage=vessel.damage,
        maneuverability=vessel.maneuverability,
        crew_slots=crew,
        shipwright=setup.shipwright,
        fire_range=rules.range_enhancement if "range" in ups else rules.fire_range,
        initiative=captain.wits + captain.seamanship + vessel.maneuverability
        + rules.initiative_enhancement * ups.count("initiative"),
        retests=captain.seamanship,
    )


_prototypes: PerScenarioCache[PantheonConfig, tuple[Ship, ...]] = scenario_ships(_template)


def roll_initiative(ships: dict[str, Ship], dice: Dice) -> list[str]:
    """Highest Wits + Seamanship + Maneuverability first; ties broken by a d10 each (re-rolled).

    Set-up and a loaded position that gives no order both roll it here, with the game's dice.
    """
    tiebreak: dict[str, tuple[int, ...]] = {ship_id: () for ship_id in ships}
    while True:
        keys = {s: (ships[s].initiative, *tiebreak[s]) for s in ships}
        clashes = [s for s in ships if sum(keys[o] == keys[s] for o in ships) > 1]
        if not clashes:
            break
        for s in clashes:
            tiebreak[s] = (*tiebreak[s], dice.d(10, f"initiative tie: {s}"))
    return sorted(ships, key=lambda s: keys[s], reverse=True)


def check_invariants(game: PantheonGame) -> None:
    """Raise AssertionError when the state breaks a rule that must always hold (used by fuzz tests)."""
    state = game.state
    on_board = {s.id for s in state.ships.values() if s.status.on_board}
    assert set(state.occupancy.values()) == on_board, "occupancy does not match ships on board"
    for (x, y), ship_id in state.occupancy.items():
        ship = state.ships[ship_id]
        assert (ship.x, ship.y) == (x, y), f"{ship_id} is not where the board says"
        assert 0 <= x < state.width and 0 <= y < state.height, f"{ship_id} is off the board"
    for ship in state.ships.values():
        assert -ship.max_health <= ship.health <= ship.max_health, f"{ship.id} health {ship.health} out of bounds"
        assert ship.retests >= 0
        if ship.status is Status.AFLOAT:
            assert ship.health > 0, f"{ship.id} is afloat at {ship.health} health"
        if ship.boarding:
            assert state.ships[ship.boarding].boarded_by == ship.id
        if ship.boarded_by:
            assert state.ships[ship.boarded_by].boarding == ship.id
        if ship.tied_to:
            assert ship.status.fighting, f"{ship.id} is tied while {ship.status.value}"
    if not state.ended:
        current = state.ships[state.current]
        assert current.status.fighting, f"{current.id} holds a decision while {current.status.value}"
