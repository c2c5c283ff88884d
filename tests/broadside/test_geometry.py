"""Geometry of `broadside` on its own: hulls, arcs, angles of incidence, distances, contact and rakes.

Conventions: x east, y north, inches; compass headings (0 north, 90 east, clockwise).
"""

from __future__ import annotations

import math
import random

import pytest

from naval_env.rulesets.broadside.geometry import (
    Battery,
    Hull,
    Region,
    battery_position,
    bearing,
    compass,
    edge_exit,
    heading_vector,
    hull_distance,
    in_arc,
    in_broadside_arc,
    in_turret_arc,
    incidence_angle,
    normalize_angle,
    overlap,
    rakes,
    ray_to_hull,
    relative_bearing,
    round6,
    sweep,
    within,
)

approx = pytest.approx


def hull(x: float, y: float, heading: float, length: float = 6.0, beam: float = 2.0) -> Hull:
    return Hull(x, y, heading, length, beam)


# ------------------------------------------------------------------ angles
@pytest.mark.parametrize("heading, vector", [(0, (0, 1)), (90, (1, 0)), (180, (0, -1)), (270, (-1, 0)),
                                             (45, (math.sqrt(0.5), math.sqrt(0.5)))])
def test_heading_vectors_are_compass(heading, vector):
    assert heading_vector(heading) == approx(vector, abs=1e-12)


@pytest.mark.parametrize("angle, normal, wrapped", [(190, -170, 190), (-190, 170, 170), (180, 180, 180),
                                                   (-180, 180, 180), (360, 0, 0), (725, 5, 5), (-30, -30, 330)])
def test_angles_wrap(angle, normal, wrapped):
    assert normalize_angle(angle) == approx(normal)
    assert compass(angle) == approx(wrapped)


@pytest.mark.parametrize("to, expected", [((0, 5), 0), ((5, 0), 90), ((0, -5), 180), ((-5, 0), 270), ((3, 3), 45)])
def test_bearing_is_compass_from_north(to, expected):
    assert bearing(0, 0, *to) == approx(expected)


@pytest.mark.parametrize("course, keel, expected", [
    (90, 0, 90),      # square on the broadside
    (90, 180, 90),
    (90, 90, 0),      # up the stern
    (90, 270, 0),     # bow to bow
    (90, 45, 45),
    (90, 44, 46),
    (90, 46, 44),
    (10, 350, 20),
    (0, 135, 45),
    (200, 10, 10),
])
def test_angle_of_incidence_is_acute_angle_to_the_keel_line(course, keel, expected):
    """'A full ram occurs when the angle of incidence to the bow is greater than 45°' - measured between the
    rammer's course and the target's keel line, folded into 0..90."""
    assert incidence_angle(course, keel) == approx(expected)


# ------------------------------------------------------------------ hulls
def test_corners_of_a_hull_heading_east():
    h = hull(10, 20, 90)          # bow east: bow edge at x=13, starboard side at y=19
    assert [tuple(round(v, 9) for v in c) for c in h.corners()] == [(13, 19), (13, 21), (7, 21), (7, 19)]
    assert h.bow == approx((13, 20)) and h.stern == approx((7, 20))


def test_local_frame_round_trip_and_signs():
    h = hull(10, 20, 30)
    along, across = h.to_local(*h.to_world(2.5, -0.75))
    assert (along, across) == approx((2.5, -0.75))
    assert hull(0, 0, 0).to_local(1, 2) == approx((2, 1))      # heading north: east is starboard
    assert hull(0, 0, 90).to_local(1, 2) == approx((1, -2))    # heading east: north is port


def test_turn_about_a_pivot_keeps_the_pivot_fixed():
    h = hull(10, 20, 0)
    turned = h.turned(90, pivot=h.stern)      # swing the bow to starboard about the stern
    assert turned.stern == approx(h.stern)
    assert (turned.x, turned.y, turned.heading) == approx((13, 17, 90))
    assert h.turned(-30).heading == approx(330) and (h.turned(-30).x, h.turned(-30).y) == (10, 20)


@pytest.mark.parametrize("point, region", [
    ((10, 23), Region.BOW), ((10.9, 22.1), Region.BOW), ((10, 17), Region.STERN), ((9.1, 17.9), Region.STERN),
    ((11, 20), Region.STARBOARD), ((9, 20), Region.PORT), ((11, 21.9), Region.STARBOARD), ((9, 18.1), Region.PORT),
])
def test_regions_bow_and_stern_are_the_last_inch_of_each_end(point, region):
    assert hull(10, 20, 0).region(*point, end_zone=1.0) is region


def test_inside_board():
    assert hull(3, 3, 0).inside_board(48, 36)
    assert not hull(3, 2.9, 0).inside_board(48, 36)
    assert not hull(47.5, 20, 90).inside_board(48, 36)


# ------------------------------------------------------------------ overlap, distance, contact
def test_touching_hulls_do_not_overlap_and_sharing_area_does():
    a = hull(10, 20, 0)
    assert not overlap(a, hull(12, 20, 0))          # side to side, touching
    assert overlap(a, hull(11.99, 20, 0))
    assert not overlap(a, hull(10, 26, 0))          # bow to stern, touching


@pytest.mark.parametrize("other, expected", [
    (hull(13, 20, 0), 1.0),                 # parallel, 1 inch of sea between the sides
    (hull(10, 27, 0), 1.0),                 # bow to stern
    (hull(14, 26, 0), math.hypot(2, 0)),    # offset: the gap is between facing sides
    (hull(15, 27, 0), math.hypot(3, 1)),    # corner to corner
    (hull(12, 20, 0), 0.0),
])
def test_hull_distance_edge_to_edge(other, expected):
    a = hull(10, 20, 0)
    assert hull_distance(a, other) == approx(expected)
    assert hull_distance(other, a) == approx(expected)


def test_hull_distance_to_a_rotated_corner():
    a = hull(0, 0, 0, length=2, beam=2)            # a 2x2 square
    b = hull(4, 0, 45, length=2, beam=2)           # a diamond, nearest corner at x = 4 - sqrt(2)
    assert hull_distance(a, b) == approx(4 - math.sqrt(2) - 1)


def test_within_boarding_distance():
    a = hull(10, 20, 0)
    assert within(a, hull(13, 20, 0), 1.0)
    assert not within(a, hull(13.01, 20, 0), 1.0)


def test_sweep_distance_and_contact_at_a_corner():
    mover = hull(10, 20, 90)                 # bow at x=13
    target = hull(20, 22.5, 30)              # rotated: its corner (17.634, 20.402) sticks out toward the mover
    contact = sweep(mover, 90, 20, target)
    assert contact is not None
    corners = target.corners()
    nearest = min(corners, key=lambda c: c[0])
    assert nearest == approx((20 - 1.5 - math.sqrt(0.75), 22.5 - 1.5 * math.sqrt(3) + 0.5))
    assert contact.distance == approx(nearest[0] - 13)
    assert contact.point == approx(nearest)
    assert not overlap(mover.advanced(contact.distance), target)
    assert overlap(mover.advanced(contact.distance + 1e-3), target)


def test_sweep_flat_bow_against_a_broadside_meets_mid_bow():
    mover = hull(10, 20, 90)                 # bow edge x=13, y 19..21
    target = hull(20, 22, 0, length=7, beam=1.5)   # port side at x=19.25, y 18.5..25.5
    contact = sweep(mover, 90, 20, target)
    assert contact is not None
    assert contact.distance == approx(6.25)
    assert contact.point == approx((19.25, 20.0))  # the middle of the shared stretch (y 19..21)


def test_sweep_partial_overlap_meets_at_the_middle_of_the_shared_stretch():
    mover = hull(10, 20, 90)                 # bow edge y 19..21
    target = hull(20, 23, 0, length=7, beam=1.5)   # port side y 19.5..26.5
    contact = sweep(mover, 90, 20, target)
    assert contact.point == approx((19.25, 20.25))


def test_sweep_misses_beyond_the_limit_and_to_the_side():
    mover = hull(10, 20, 90)
    assert sweep(mover, 90, 6.0, hull(20, 20, 0)).distance == approx(6.0)   # port side at x=19, bow at 13
    assert sweep(mover, 90, 5.99, hull(20, 20, 0)) is None
    assert sweep(mover, 90, 20, hull(20, 25, 0)) is None         # passes beside it


def test_sweep_touching_hulls_close_slide_or_part():
    mover = hull(10, 20, 90)
    ahead = hull(16, 20, 90)                 # stern edge x=13 touches the mover's bow
    closing = sweep(mover, 90, 5, ahead)
    assert closing is not None and closing.distance == approx(0)
    assert sweep(mover, 270, 5, ahead) is None                   # moving away
    beside = hull(10, 22, 90)                # side by side, touching along y=21
    assert sweep(mover, 90, 5, beside) is None                   # sliding along
    assert sweep(mover, 0, 5, beside).distance == approx(0)      # pressing into it


def test_edge_exit_is_the_first_corner_to_reach_the_table_edge():
    assert edge_exit(hull(10, 20, 90), 90, 48, 36) == approx(48 - 13)
    assert edge_exit(hull(10, 20, 90), 0, 48, 36) == approx(36 - 21)
    h = hull(24, 18, 45)
    far = max(c[0] for c in h.corners())
    assert edge_exit(h, 90, 48, 36) == approx(48 - far)


# ------------------------------------------------------------------ arcs, batteries, rakes
@pytest.mark.parametrize("point, port, starboard", [
    ((20, 23), False, True), ((20, 17), False, True),     # on the perpendiculars from bow and stern
    ((20, 23.01), False, False), ((5, 20), True, False), ((0, 16.99), False, False),
    ((10, 30), False, False),                             # dead ahead: no broadside bears
])
def test_broadside_arcs_lie_between_the_perpendiculars_from_bow_and_stern(point, port, starboard):
    """'brought to bear in an area encompassed by perpendiculars from the bow and stern of the firing ship'"""
    h = hull(10, 20, 0)
    assert in_broadside_arc(h, *point, Battery.PORT) is port
    assert in_broadside_arc(h, *point, Battery.STARBOARD) is starboard


@pytest.mark.parametrize("bearing_off_bow, allowed", [(0, False), (9.9, False), (-9.9, False), (10, True),
                                                      (-10, True), (90, True), (179, True), (-170, True)])
def test_turret_fires_everywhere_but_over_the_bow(bearing_off_bow, allowed):
    """'This turret allows for 340° movement, allowing shots in all directions except over the bow'"""
    h = hull(10, 20, 30)
    px, py = h.x + 8 * math.sin(math.radians(30 + bearing_off_bow)), h.y + 8 * math.cos(math.radians(30 + bearing_off_bow))
    assert relative_bearing(h, px, py) == approx(normalize_angle(bearing_off_bow))
    assert in_turret_arc(h, px, py, dead_zone=20) is allowed
    assert in_arc(h, px, py, Battery.TURRET, 20) is allowed


def test_battery_positions_are_mid_broadside_and_amidships():
    h = hull(10, 20, 0)
    assert battery_position(h, Battery.PORT) == approx((9, 20))
    assert battery_position(h, Battery.STARBOARD) == approx((11, 20))
    assert battery_position(h, Battery.TURRET) == (10, 20)


@pytest.mark.parametrize("shooter, raking", [
    ((10, 30), True),           # dead ahead of the target's bow
    ((10, 10), True),           # dead astern
    ((12, 30), True),           # 2 in off the keel line at 10 in: inside the bow's cone (|along|*2 > |across|*6)
    ((13.3, 30), True),         # 10 * 2 = 20 > 3.3 * 6 = 19.8
    ((13.34, 30), False),       # 20 < 3.34 * 6 = 20.04: the shot enters the broadside
    ((14, 30), False),
    ((20, 20), False),          # square on the beam
])
def test_a_shot_rakes_when_it_enters_through_bow_or_stern(shooter, raking):
    """'When a broadside is pointed directly at the bow or stern of an enemy ship, it can rake the length of the
    ship': the line of fire to the centre crosses the bow or stern edge."""
    target = hull(10, 20, 0)
    assert rakes(target, *shooter) is raking


def test_rake_cone_boundary_is_the_diagonal():
    target = hull(0, 0, 0, length=6, beam=2)     # diagonals at atan(2/6) off the keel
    # |along| * beam > |across| * length: exactly on the diagonal is not a rake
    assert not rakes(target, 3.0, 9.0)
    assert rakes(target, 2.999, 9.0)


@pytest.mark.parametrize("start, heading, expected", [
    ((0, 20), 90, (9.0, 0.0)),              # square onto the port side at the centre
    ((0, 22.5), 90, (9.0, 2.5)),            # onto the port side 2.5 forward of the centre
    ((10, 0), 0, (17.0, -3.0)),             # up the stern
    ((10, 40), 180, (17.0, 3.0)),           # onto the bow
    ((0, 30), 90, None),                    # passes ahead of it
    ((0, 20), 270, None),                   # going away
    ((12, 20), 90, None),
    ((10.5, 20), 90, (0.0, 0.0)),           # starting inside: met at once
])
def test_ray_ahead_meets_a_hull(start, heading, expected):
    """The line ahead of a bow: how far to the target's hull and where on its keel (the observer's ram line)."""
    met = ray_to_hull(*start, heading, hull(10, 20, 0))
    assert met == (None if expected is None else approx(expected))


def test_ray_at_an_angle():
    met = ray_to_hull(0, 0, 45, hull(10, 10, 0, length=6, beam=2))   # meets the port side x = 9 at y = 9
    assert met == approx((9 * math.sqrt(2), -1.0))


@pytest.mark.parametrize("value", [
    0.0, -0.0, 1e-7, -1e-7, 5e-7, -5e-7, 2.5e-6, 0.0000015, 123.4567895, -123.4567895, 47.99999949999,
    1 / 3, -2 / 3, 359.9999996, 1e20, -1e20, 6.8e4, 7e4, math.inf, -math.inf, math.nan,
])
def test_round6_is_round_to_six_places_bit_for_bit(value):
    assert repr(round6(value)) == repr(round(value, 6))


def test_round6_agrees_with_round_on_poses_and_halves():
    """Random positions, headings and distances, and values a hair from a half of a millionth."""
    rng = random.Random(6)
    values = [rng.uniform(-200.0, 200.0) for _ in range(20_000)]
    values += [(rng.randint(-10**9, 10**9) + 0.5) / 1e6 + rng.choice([0.0, 1e-13, -1e-13]) for _ in range(20_000)]
    values += [math.cos(rng.uniform(0.0, 7.0)) * rng.choice([1.0, 7.5, 48.0]) for _ in range(20_000)]
    assert [repr(round6(v)) for v in values] == [repr(round(v, 6)) for v in values]

