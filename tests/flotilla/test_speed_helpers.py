"""The shortcuts the engine and observer take for speed agree with the plain rules they stand for."""

from __future__ import annotations

import random

from naval_env.core.grid import STEP
from naval_env.rulesets.flotilla.geometry import arc_of, facing_pair, footprint, sighting
from naval_env.rulesets.flotilla.movement import in_ram_line, movement_now, plan, sail_ends
from naval_env.testing import random_legal_positions


def test_sighting_matches_the_footprints_wherever_the_ships_lie():
    rng = random.Random(3)
    for _ in range(2000):
        x, y, ox, oy = (rng.randrange(15) for _ in range(4))
        facing, other_facing = rng.randrange(8), rng.randrange(8)
        size, other_size = rng.randrange(1, 5), rng.randrange(1, 5)
        squares, other = footprint(x, y, facing, size), footprint(ox, oy, other_facing, other_size)
        distance, nearest_other, nearest = facing_pair(squares, other)
        expected = (distance, arc_of(squares, facing, nearest_other), arc_of(other, other_facing, nearest))
        assert sighting(x - ox, y - oy, facing, size, other_facing, other_size) == expected


def _walked_ram_line(game, rammer, squares, target_id, movement) -> bool:
    """The ram line walked square by square, as the rules read."""
    state = game.state
    dx, dy = STEP[rammer.facing]
    x, y = rammer.x, rammer.y
    for _ in range(movement):
        x, y = x + dx, y + dy
        if (x, y) in squares:
            return True
        if not (0 <= x < state.width and 0 <= y < state.height):
            return False
        if state.occupancy.get((x, y)) not in (None, rammer.id, target_id):
            return False
    return False


def test_routes_and_ram_lines_match_the_square_by_square_rules():
    checked = 0
    for game in random_legal_positions("flotilla", ("duel", "armada"), range(3)):
        state, maneuvers = game.state, game.actions.maneuvers
        afloat = [s for s in state.ships.values() if s.afloat]
        for me in afloat:
            movement = movement_now(me, state.wind, game.rules)
            ends = sail_ends(state, me, game.actions.routes.routes(me.facing, me.size, movement))
            for maneuver, end in zip(maneuvers, ends, strict=True):
                route = plan(state, me, maneuver, movement)
                assert end == (None if route is None else (*route[0][-1], route[1]))
            for other in afloat:
                if other.id != me.id:
                    for reach in (1, 3, 5):
                        assert in_ram_line(state, other, me.squares, me.id, reach) == _walked_ram_line(
                            game, other, me.squares, me.id, reach)
        checked += 1
    assert checked > 100
