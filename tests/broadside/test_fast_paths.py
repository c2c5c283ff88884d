"""The shortcuts the `broadside` engine takes for speed give the answers of the exact computations."""

from __future__ import annotations

import copy
import itertools
import math
import random

import pytest

from naval_env.rulesets.broadside import movement
from naval_env.rulesets.broadside.geometry import EPS, Hull, SettledHull, edge_exit, overlap, sweep
from naval_env.rulesets.broadside.movement import _edge_before, within_reach
from naval_env.rulesets.broadside.state import Speed

from .helpers import make_game, ship


def random_hulls(count: int, seed: int = 0) -> list[Hull]:
    rng = random.Random(seed)
    return [Hull(rng.uniform(-2, 50), rng.uniform(-2, 38), rng.uniform(0, 360), rng.uniform(1, 12), rng.uniform(0.5, 4))
            for _ in range(count)]


def test_clear_of_edges_only_when_every_corner_is_that_far_inside() -> None:
    for hull in random_hulls(3000):
        margin = random.Random(hull.x).uniform(0, 6)
        if hull.clear_of_edges(48, 36, margin):
            assert all(margin - 1e-9 <= cx <= 48 - margin + 1e-9 and margin - 1e-9 <= cy <= 36 - margin + 1e-9
                       for cx, cy in hull.corners())


def test_inside_board_agrees_with_the_corner_test() -> None:
    for hull in random_hulls(3000, seed=1):
        corners_inside = all(-EPS <= cx <= 48 + EPS and -EPS <= cy <= 36 + EPS for cx, cy in hull.corners())
        assert hull.inside_board(48, 36) == corners_inside


def test_edge_before_agrees_with_edge_exit() -> None:
    for i, hull in enumerate(random_hulls(3000, seed=2)):
        if not hull.inside_board(48, 36):
            continue
        reach = random.Random(i).uniform(0, 8)
        exit_at = edge_exit(hull, hull.heading, 48, 36)
        expected = exit_at if exit_at < reach - EPS else None
        assert _edge_before(hull, reach, 48, 36) == expected


def test_a_settled_hull_answers_as_overlap_and_sweep() -> None:
    hulls = random_hulls(400, seed=3)
    for i, (a, b) in enumerate(itertools.pairwise(hulls)):
        settled = SettledHull.of(b)
        assert settled.overlapped_by(a) == overlap(a, b)
        limit = random.Random(i).uniform(0, 10)
        assert settled.swept_by(a, a.heading, limit) == sweep(a, a.heading, limit, b)


def test_obstacles_left_out_of_reach_cannot_be_met_during_the_move() -> None:
    rng = random.Random(4)
    hulls = random_hulls(300, seed=4)
    for mover, other in itertools.pairwise(hulls):
        travel = rng.uniform(0, 12)
        if within_reach(mover, [("other", other)], travel):
            continue
        for _ in range(20):       # anywhere the centre can get to, at any heading
            angle, run = rng.uniform(0, 2 * math.pi), rng.uniform(0, travel)
            moved = Hull(mover.x + run * math.sin(angle), mover.y + run * math.cos(angle), rng.uniform(0, 360),
                         mover.length, mover.beam)
            assert not overlap(moved, other)
            assert sweep(moved, moved.heading, travel - run, other) is None


@pytest.mark.parametrize("vessel", ["galley", "sailing_ship"])
def test_a_move_in_open_water_matches_the_leg_by_leg_move(vessel: str) -> None:
    rng = random.Random(5)
    choices = (0.0, -15.0, 15.0, -30.0, 30.0)
    for _ in range(40):
        x, y, heading = rng.uniform(14, 34), rng.uniform(14, 22), rng.uniform(0, 360)
        game = make_game([ship(vessel, (x, y), heading)], [ship("ironclad", (75, 18), 0)], board=(80, 36),
                         wind=rng.uniform(0, 360))
        speed = rng.choice([Speed.HOLD, Speed.CRUISING, Speed.BATTLE])
        turns = (rng.choice(choices), rng.choice(choices))
        assert game.state.ships["red_0"].shape.clear_of_edges(80, 36, 9.0 + movement.EDGE_SLACK)  # open water
        leg_by_leg = copy.deepcopy(game)
        fast_events: list = []
        movement.move(game, game.state.ships["red_0"], speed, turns, fast_events)
        slow_events: list = []
        inches = movement.turn_speed(leg_by_leg.vessel(leg_by_leg.state.ships["red_0"]), speed)
        movement._move_among(leg_by_leg, leg_by_leg.state.ships["red_0"], speed, inches, turns, [], 12.0,
                             slow_events)
        assert fast_events == slow_events
        assert game.state.ships["red_0"].shape == leg_by_leg.state.ships["red_0"].shape


def test_planners_bounding_circle_shortcut_gives_the_separating_axes_answer() -> None:
    """plans._overlaps tests only hulls whose bounding circles meet; over random and near-touching hulls
    it agrees, plan by plan, with the separating-axes test run on every plan."""
    import numpy as np

    from naval_env.rulesets.broadside.plans import _overlaps, _separating_axes_overlap

    rng = np.random.default_rng(0)
    overlapping = 0
    for other in random_hulls(300, seed=5):
        length, beam = rng.uniform(1, 12), rng.uniform(0.5, 4)
        radius = math.hypot(length / 2, beam / 2)
        # Centres scattered around the other hull, many at about the touching distance.
        angle = rng.uniform(0, 2 * math.pi, 64)
        gap = rng.uniform(0, radius + other.radius + 1, 64)
        x, y = other.x + gap * np.cos(angle), other.y + gap * np.sin(angle)
        radians = np.radians(rng.uniform(0, 360, 64))
        ux, uy = np.sin(radians), np.cos(radians)
        fast = _overlaps(ux, uy, x, y, length, beam, other, radius)
        exact = _separating_axes_overlap(ux, uy, other.x - x, other.y - y, length, beam, other)
        assert np.array_equal(fast, exact)
        overlapping += int(exact.sum())
    assert 0 < overlapping < 300 * 64  # both answers were exercised
