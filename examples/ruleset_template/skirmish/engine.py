"""The `skirmish` rules engine: set-up, the turn, the shot, the maneuver and the end.

Rules (each a few lines below, by name):

- **Set-up**: each side's boats on the scenario's cells, full hull; boats take turns in the order
  red_0, blue_0, red_1, blue_1 (sides alternate), sunk boats skipped. A round ends when every boat has
  had its turn.
- **Shot**: the boat to act may fire at one enemy afloat within ``fire_range`` cells; a d6 of
  ``hit_roll`` or more hits and removes 1 hull; a boat at 0 hull sinks and leaves the track.
- **Maneuver**: after the shot the boat stays, or moves one cell back or ahead (ahead: toward the
  enemy's end) onto a cell of the track no boat afloat holds.
- **End**: a side with no boat afloat loses; after round ``max_rounds`` the battle is a draw
  (reported as truncation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from naval_env.core.events import DamageDealt, Event, StatusChanged, TurnStarted
from naval_env.core.game import ROUND_LIMIT, ShipBattle

from .actions import Maneuver, SkirmishActions
from .config import HouseRules, Scenario, SkirmishConfig
from .events import Sailed, Shot
from .observer import observe
from .state import Boat, GameState, Phase, Status, turn_order

A = SkirmishActions
#: ``end_reason`` of a battle won by sinking the other side.
LAST_SIDE_AFLOAT = "last side afloat"
_CONTEXT = {phase: f"in phase {phase.name}" for phase in Phase}   # for illegal-action messages


class SkirmishGame(ShipBattle[GameState, SkirmishConfig]):   # the base reads the state and config it names
    ruleset_id = "skirmish"
    rules: HouseRules
    scenario: Scenario
    actions: SkirmishActions

    observe = observe   # the observer's ``observe(game, agent)``, bound as the method

    # ------------------------------------------------------------------ set-up
    def _set_up(self) -> GameState:
        hull = self.rules.hull
        sides = (self.scenario.sides[0].name, self.scenario.sides[1].name)
        ships = {
            f"{side.name}_{i}": Boat(f"{side.name}_{i}", side.name, 1 if k == 0 else -1, cell, hull, hull)
            for k, side in enumerate(self.scenario.sides) for i, cell in enumerate(side.cells)
        }
        return GameState(self.rules.track_length, sides, ships, turn_order(ships, sides))

    def _start(self, events: list[Event]) -> None:
        events.append(TurnStarted(self.state.current, self.state.round))

    # ------------------------------------------------------------- Game API
    def health(self, agent: str) -> tuple[int, int]:
        boat = self.state.ships[agent]
        return boat.hull, boat.max_hull

    def _build_mask(self, ship: Boat) -> np.ndarray:
        mask = self.action_spec.noop_mask()
        shot, maneuver = self.action_spec.offsets
        for slot, enemy in enumerate(self.enemies_of(ship)):
            mask[shot + 1 + slot] = self.in_range(ship, enemy)
        for move in (Maneuver.BACK, Maneuver.AHEAD):
            mask[maneuver + move] = self.can_sail(ship, move)
        return mask

    def in_range(self, ship: Boat, target: Boat) -> bool:
        """Whether ``ship`` may fire at ``target``: an enemy afloat within ``fire_range`` cells."""
        return target.status.fighting and abs(target.cell - ship.cell) <= self.rules.fire_range

    def can_sail(self, ship: Boat, move: Maneuver) -> bool:
        """Whether ``move`` ends on a cell of the track that no boat afloat holds."""
        cell = ship.cell + move.step * ship.ahead
        return 0 <= cell < self.state.track_length and self.state.holder(cell) is None

    # ------------------------------------------------------------------ apply
    def apply(self, agent: str, action: Any) -> list[Event]:
        values = self._checked_values(agent, action, _CONTEXT)
        ship = self.state.ships[agent]
        events: list[Event] = []
        self._mask = None
        if values[A.SHOT]:
            self._fire(ship, self.enemies_of(ship)[values[A.SHOT] - 1], events)
        move = Maneuver(values[A.MANEUVER])
        if move is not Maneuver.HOLD:
            start = ship.cell
            ship.cell += move.step * ship.ahead
            events.append(Sailed(ship.id, start, ship.cell))
        self._end_turn(events)
        return events

    def _fire(self, ship: Boat, target: Boat, events: list[Event]) -> None:
        need = self.rules.hit_roll
        roll = self.dice.d(6, f"{ship.id} fires at {target.id}")
        hit = roll >= need
        events.append(Shot(ship.id, target.id, roll, need, "hit" if hit else "miss"))
        if not hit:
            return
        target.hull -= 1
        events.append(DamageDealt(target.id, 1, ship.id, "shot"))
        if target.hull == 0:
            target.status = Status.SUNK
            events.append(StatusChanged(target.id, Status.SUNK.value))

    # ------------------------------------------------------------- turn flow
    def _end_turn(self, events: list[Event]) -> None:
        state = self.state
        afloat = {boat.side for boat in state.ships.values() if boat.status.fighting}
        if len(afloat) == 1:
            self._finish(afloat.pop(), LAST_SIDE_AFLOAT, events)
            return
        while True:
            state.turn += 1
            if state.turn == len(state.order):
                if state.round >= self.rules.max_rounds:
                    self._finish(None, ROUND_LIMIT, events)
                    return
                state.turn, state.round = 0, state.round + 1
            if state.ships[state.current].status.fighting:
                events.append(TurnStarted(state.current, state.round))
                return

    def _finish(self, winner: str | None, reason: str, events: list[Event]) -> None:
        """End the battle; a finished battle holds no turn (``turn`` 0, as a loaded finished position has)."""
        self.state.turn = 0
        super()._finish(winner, reason, events)


def check_invariants(game: SkirmishGame) -> None:
    """Raise AssertionError when the state breaks a rule that must always hold (fuzz and conformance tests)."""
    state = game.state
    cells = [boat.cell for boat in state.ships.values() if boat.status.fighting]
    assert len(cells) == len(set(cells)), f"two boats afloat share a cell: {cells}"
    for boat in state.ships.values():
        assert 0 <= boat.cell < state.track_length, f"{boat.id} is off the track"
        assert 0 <= boat.hull <= boat.max_hull, f"{boat.id} hull {boat.hull} out of bounds"
        assert (boat.hull == 0) == (boat.status is Status.SUNK), f"{boat.id} is {boat.status.value} at hull {boat.hull}"
    if not state.ended:
        assert state.ships[state.current].status.fighting, f"{state.current} holds a decision while sunk"
