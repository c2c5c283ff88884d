"""The memoised views the observer and the movement mask keep agree with working them out afresh."""

from __future__ import annotations

import numpy as np

from naval_env.rulesets.flotilla import observer
from naval_env.rulesets.flotilla.movement import movement_now, sail_ends
from naval_env.testing import random_legal_positions


def test_route_table_ends_match_sail_ends_in_open_sea_and_near_ships():
    checked = 0
    for game in random_legal_positions("flotilla", ("armada",), range(2)):
        state = game.state
        for ship in (s for s in state.ships.values() if s.afloat):
            movement = movement_now(ship, state.wind, game.rules)
            routes = game.actions.routes.routes(ship.facing, ship.size, movement)
            assert game.actions.routes.ends(state, ship, movement) == sail_ends(state, ship, routes)
            checked += 1
    assert checked > 1000


def test_observations_do_not_depend_on_when_the_matchups_are_numbered_afresh(monkeypatch):
    checked = 0
    for game in random_legal_positions("flotilla", ("squadron",), range(2)):
        usual = [game.observe(agent) for agent in game.agents]
        monkeypatch.setattr(observer, "_MATCHUP_LIMIT", 1)  # numbered afresh at every observation
        renumbered = [game.observe(agent) for agent in game.agents]
        monkeypatch.undo()
        assert all(np.array_equal(a, b) for a, b in zip(usual, renumbered, strict=True))
        checked += 1
    assert checked > 100
