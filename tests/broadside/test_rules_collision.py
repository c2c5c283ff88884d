"""Collisions (document: Collisions). The mover is a sailing ship (it cannot ram), heading east at Battle Speed
(9 inches: three legs of 3, wind across its course); its bow edge starts at x = 13, spanning y 19..21.

Dice order: the mover's d4 damage, the struck ship's d4, then the d4 the mover carries on (swing, deflect)."""

from __future__ import annotations

import math

import pytest

from naval_env.rulesets.broadside.events import (
    Carried,
    Collided,
    DamageDealt,
    Moved,
    MovementForfeited,
    OarsSwept,
)
from naval_env.rulesets.broadside.geometry import overlap
from naval_env.rulesets.broadside.state import Phase
from naval_env.testing import allowed_labels, damage_list

from .helpers import act, decision, make_game, of, pose, ship

approx = pytest.approx
MOVER = [ship("sailing_ship", (10, 20), 90)]


def collide(blue, dice, **kwargs):
    game = make_game(MOVER, blue, dice=dice, **kwargs)
    return game, act(game, speed="battle")


def test_both_ships_take_d4_and_lose_the_rest_of_their_move():
    """'movement of the ships in the collision is forfeited for that turn ... Both ships sustain d4 of Hull Point
    damage. (Do not reroll maximums.)'"""
    game, events = collide([ship("galley", (20, 20), 0)], dice=[4, 3])
    [hit] = of(events, Collided)
    assert (hit.ship, hit.struck, hit.region, hit.leg) == ("red_0", "blue_0", "port", 2)
    assert damage_list(events) == [("red_0", 4, "blue_0", "collision"), ("blue_0", 3, "red_0", "collision")]
    assert of(events, MovementForfeited) == [MovementForfeited("blue_0")]
    # The struck galley keeps its other actions but makes no move this turn.
    pass_to = [d for d in _decisions_until_round_2(game)]
    assert ("blue_0", "MANEUVER") not in pass_to


def _decisions_until_round_2(game):
    seen = []
    while game.state.round == 1 and not game.is_over:
        seen.append(decision(game))
        act(game)
    return seen


def test_strike_within_an_inch_of_the_centre_pushes_both_two_inches_in_a_t():
    """'If the colliding ship strikes within 1" of the center of a ship's broadside, both ships will push forward
    2" maintaining their "T" shape.'"""
    game, events = collide([ship("galley", (20, 20.9), 0)], dice=[1, 2])
    [hit] = of(events, Collided)
    assert hit.point == approx((19.25, 20.0))                 # 0.9 inches from the galley's centre
    assert pose(game, "red_0") == approx((16.25 + 2, 20, 90))
    assert pose(game, "blue_0") == approx((22, 20.9, 0))
    assert [(c.ship, c.how, c.amount) for c in of(events, Carried)] == [("red_0", "push", 2), ("blue_0", "push", 2)]
    # The galley was struck on its oars.
    assert of(events, OarsSwept) == [OarsSwept("blue_0", 1)]
    assert game.dice.remaining == 0                            # no carry die in a T


def test_t_push_stops_at_anything_in_the_way():
    blocker = ship("sailing_ship", (26, 20), 0)                 # its port side at x = 25
    game, events = collide([ship("galley", (20, 20), 0), blocker], dice=[1, 1])
    # the galley's starboard side (x = 20.75) can go 4.25 before the blocker: the full 2 inches
    assert pose(game, "blue_0")[0] == approx(22)
    game, events = collide([ship("galley", (20, 20), 0), ship("sailing_ship", (21.75, 20), 0)], dice=[1, 1])
    assert [(c.ship, c.amount) for c in of(events, Carried)] == [("red_0", 0), ("blue_0", 0)]


def test_struck_elsewhere_on_the_broadside_the_ship_swings_on_its_far_end():
    """'The activated ship continues forward d4 inches, the ship that was struck will swing on its bow or stern
    to let the offender pass. The end of the ship that is farthest from the impact will remain in place, while the
    end of the ship that is closest to the collision will swing to allow the forward motion of the other ship.'"""
    # The galley spans y 18.5..25.5: struck 2 inches abaft its centre, so its bow (farther) stays put.
    game, events = collide([ship("galley", (20, 22), 0)], dice=[2, 2, 3])
    blue = game.state.ships["blue_0"].shape
    assert blue.bow == approx((20, 25.5))
    # Swung to port (its stern goes the way the mover goes) just far enough for the mover's bow-port corner
    # (22.25, 21) to clear its port side: 2.25 cos t - 4.5 sin t = -0.75.
    phi = math.degrees(math.atan2(4.5, 2.25))
    angle = math.degrees(math.acos(-0.75 / math.hypot(2.25, 4.5))) - phi
    assert angle == approx(35.138, abs=1e-3)
    assert blue.heading == approx(360 - angle, abs=1e-5)   # to the overlap tolerance (1e-7 inch)
    assert pose(game, "red_0") == approx((16.25 + 3, 20, 90))  # carried on the full d4 = 3
    swing, carry = of(events, Carried)
    assert (swing.ship, swing.how, carry.ship, carry.how, carry.amount) == ("blue_0", "swing", "red_0", "carry", 3)
    assert not overlap(game.state.ships["red_0"].shape, blue, tolerance=1e-6)
    assert overlap(game.state.ships["red_0"].shape, blue.turned(1e-3, pivot=blue.bow))   # any less would not clear
    assert of(events, OarsSwept) == [OarsSwept("blue_0", 1)]


def test_swing_about_the_stern_when_struck_near_the_bow():
    game, _events = collide([ship("galley", (20, 18), 0)], dice=[1, 1, 1])   # struck 2 inches forward of centre
    blue = game.state.ships["blue_0"].shape
    assert blue.stern == approx((20, 14.5))
    assert blue.heading > 0                       # the bow swings to starboard, the way the mover goes


def test_strike_on_the_bow_or_stern_deflects_along_the_closest_side_and_rakes_it():
    """'If the ship strikes the stern or bow of a ship, it will deflect along closest side and rake the side of
    the ship was struck.'"""
    # The galley spans y 19.5..26.5; the mover meets its port side at y 20.25, 2.75 abaft its centre: the stern.
    game, events = collide([ship("galley", (20, 23), 0)], dice=[1, 2, 2])
    [hit] = of(events, Collided)
    assert (hit.region, hit.point) == ("stern", approx((19.25, 20.25)))
    # Turned along the galley's keel (north: the way nearer its course, 90 degrees either way: the keel's own),
    # its starboard side against the galley's port side, bow level with the impact; then 2 inches on.
    assert pose(game, "red_0") == approx((18.25, 17.25 + 2, 0))
    [deflect] = of(events, Carried)
    assert (deflect.how, deflect.amount) == ("deflect", 2)
    assert pose(game, "blue_0") == approx((20, 23, 0))          # the struck ship does not move
    assert of(events, OarsSwept) == [OarsSwept("blue_0", 1)]     # raked along its oars


def test_deflect_heads_the_way_closer_to_the_movers_course():
    # Striking the bow of a galley heading 200: its keel runs 200/20, and 20 is nearer the mover's 90.
    game, events = collide([ship("galley", (21, 22.5), 200)], dice=[1, 1, 1])
    [hit] = of(events, Collided)
    assert hit.region == "bow"
    assert [c.how for c in of(events, Carried)] == ["deflect"]
    assert pose(game, "red_0")[2] == approx(20)


def test_two_galleys_raking_each_other_both_lose_their_oars():
    """'if the oars of either ship are contacted by the other ship, the oars are considered "swept"'."""
    game = make_game([ship("galley", (10, 20), 90)], [ship("galley", (20, 23.5), 0)], dice=[1, 1, 1])
    events = act(game, speed="battle", turn_1="port 15")         # a turn: no ram, a plain collision
    assert [(c.ship, c.how) for c in of(events, Carried)] == [("red_0", "deflect")]
    assert sorted(e.ship for e in of(events, OarsSwept)) == ["blue_0", "red_0"]


def test_icebergs_cannot_be_sunk_and_the_ship_glances_off():
    """'Icebergs cannot be sunk.' The ship takes d4 and slides along the face it struck (see Assumptions)."""
    iceberg = [{"position": [20, 20], "heading": 0, "length": 4, "beam": 3}]   # spans x 18.5..21.5
    game = make_game(MOVER, [ship("galley", (40, 8), 270)], dice=[3, 4], icebergs=iceberg)
    events = act(game, speed="battle")
    [hit] = of(events, Collided)
    assert (hit.struck, hit.point) == ("iceberg_0", approx((18.5, 20)))
    assert damage_list(events) == [("red_0", 3, None, "struck an iceberg")]
    assert pose(game, "red_0") == approx((17.5, 17 + 4, 0))      # along the west face, north, 4 inches on
    assert not any(isinstance(e, DamageDealt) and e.target.startswith("iceberg") for e in events)


def test_collision_sinking_a_ship():
    game = make_game(MOVER, [ship("galley", (20, 20), 0)], dice=[2, 4])
    game.state.ships["blue_0"].hull = 4
    events = act(game, speed="battle")
    assert game.state.ships["blue_0"].status.value == "sunk"
    assert not of(events, Carried)
    assert game.is_over and game.winner == "red"


def test_collision_with_a_friend_is_a_collision_too():
    game = make_game([*MOVER, ship("galley", (20, 22), 0)], [ship("galley", (40, 8), 270)], dice=[1, 1, 1])
    events = act(game, speed="battle")
    assert [(c.ship, c.struck) for c in of(events, Collided)] == [("red_0", "red_1")]
    assert decision(game) != ("red_0", "COLLISION_BOARD")       # friends do not board each other


def test_boarding_at_once_the_activated_ship_choosing_first():
    """'Ships that collide immediately resolve any boarding actions. The ship that was activated has the first
    choice of whether to board or not. If that player chooses not to board, the other captain may attempt a
    boarding action.'"""
    game, _events = collide([ship("galley", (20, 20), 0)], dice=[1, 1])
    assert decision(game) == ("red_0", "COLLISION_BOARD")
    assert allowed_labels(game, "board") == ["none", "board@enemy0"]
    act(game)                                                    # red declines
    assert decision(game) == ("blue_0", "COLLISION_BOARD")
    act(game)                                                    # blue declines too
    assert game.state.phase is not Phase.COLLISION_BOARD or game.current_agent != "blue_0"


def test_no_collision_boarding_offer_without_boarders():
    game, _ = collide([ship("galley", (20, 20), 0)], dice=[1, 1])
    assert decision(game) == ("red_0", "COLLISION_BOARD")
    game2 = make_game([ship("sailing_ship", (10, 20), 90, marines=0, heroes=0)], [ship("galley", (20, 20), 0)],
                      dice=[1, 1])
    act(game2, speed="battle")
    assert decision(game2) == ("blue_0", "COLLISION_BOARD")      # only the struck galley may board


def test_the_move_report_stops_at_the_impact():
    _game, events = collide([ship("galley", (20, 20), 0)], dice=[1, 1])
    [moved] = of(events, Moved)
    assert moved.waypoints[-1] == approx((16.25, 20, 90))
    assert moved.distance == approx(6.25)
