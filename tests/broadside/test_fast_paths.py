"""The shortcuts the `broadside` engine takes for speed give the answers of the exact computations."""

from __future__ import annotations

import random

from naval_env.rulesets.broadside.geometry import EPS, Hull, edge_exit
from naval_env.rulesets.broadside.movement import _edge_before


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
