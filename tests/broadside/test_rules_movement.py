"""Movement (the document's gap, filled in the config): legs, speeds, wind, turns between legs, the table edge,
and who may not move (grappled ships, ships struck before they moved)."""

from __future__ import annotations

import math

import pytest

from naval_env.rulesets.broadside.events import Moved, ShipLost, TurnBlocked
from naval_env.rulesets.broadside.movement import leg_length, wind_factor
from naval_env.rulesets.broadside.state import Phase, Speed
from naval_env.testing import allowed, allowed_labels

from .helpers import act, decision, make_game, of, pose, ship

approx = pytest.approx
FAR = [ship("sailing_ship", (40, 30), 270)]


def test_a_turn_is_three_equal_legs_at_one_speed():
    game = make_game([ship("galley", (10, 10), 90)], FAR)
    events = act(game, speed="cruising")                     # 6 inches: three legs of 2
    [moved] = of(events, Moved)
    assert moved.waypoints == ((10, 10, 90), (12, 10, 90), (14, 10, 90), (16, 10, 90))
    assert moved.distance == approx(6)


@pytest.mark.parametrize("speed, inches", [("hold", 0), ("cruising", 6), ("battle", 9), ("ramming", 12)])
def test_galley_speeds(speed, inches):
    game = make_game([ship("galley", (10, 10), 90)], FAR)
    act(game, speed=speed)
    assert pose(game, "red_0") == approx((10 + inches, 10, 90))


def test_turns_are_made_in_place_between_legs():
    game = make_game([ship("galley", (10, 10), 90)], FAR)
    act(game, speed="cruising", turn_1="port 45", turn_2="starboard 15")
    x1, y1 = 12 + 2 * math.sin(math.radians(45)), 10 + 2 * math.cos(math.radians(45))
    x2, y2 = x1 + 2 * math.sin(math.radians(60)), y1 + 2 * math.cos(math.radians(60))
    assert pose(game, "red_0") == approx((x2, y2, 60))


def test_a_holding_ship_may_still_turn_in_place():
    game = make_game([ship("galley", (10, 10), 90)], FAR)
    act(game, speed="hold", turn_1="starboard 45", turn_2="starboard 45")
    assert pose(game, "red_0") == approx((10, 10, 180))


def test_turn_limit_is_the_vessels():
    galley = make_game([ship("galley", (10, 10), 90)], FAR)
    assert allowed_labels(galley, "turn_1") == ["straight", "port 15", "starboard 15", "port 30", "starboard 30",
                                                "port 45", "starboard 45"]
    sail = make_game([ship("sailing_ship", (10, 10), 90)], FAR)
    assert allowed_labels(sail, "turn_2") == ["straight", "port 15", "starboard 15", "port 30", "starboard 30"]


def test_sailing_ships_have_no_ramming_speed():
    game = make_game([ship("sailing_ship", (10, 10), 90)], FAR)
    assert allowed_labels(game, "speed") == ["hold", "cruising", "battle"]


@pytest.mark.parametrize("heading, factor", [(0, 0.75), (45, 0.75), (90, 1.0), (270, 1.0), (135, 0.5), (180, 0.25)])
def test_sails_make_way_by_the_angle_off_the_wind(heading, factor):
    """Wind blowing toward the north (0): running before it 0.75, across it 1.0, close-hauled 0.5, into it 0.25."""
    assert wind_factor([(45, 0.75), (90, 1.0), (135, 0.5), (180, 0.25)], heading, 0) == factor
    game = make_game([ship("sailing_ship", (24, 18), heading)], [ship("galley", (44, 4), 0)], wind=0)
    act(game, speed="battle")
    assert game.state.ships["red_0"].shape.x == approx(24 + 9 * factor * math.sin(math.radians(heading)))


def test_wind_is_taken_on_each_legs_heading():
    game = make_game([ship("sailing_ship", (10, 10), 90)], FAR, wind=0)
    act(game, speed="battle", turn_1="port 30", turn_2="port 30")   # legs at 90 (1.0), 60 (1.0), 30 (0.75)
    config = game.config
    leg = [leg_length(config.house_rules, config.vessels["sailing_ship"], Speed.BATTLE, h, 0) for h in (90, 60, 30)]
    assert leg == approx([3, 3, 2.25])
    x = 10 + 3 + 3 * math.sin(math.radians(60)) + 2.25 * math.sin(math.radians(30))
    y = 10 + 3 * math.cos(math.radians(60)) + 2.25 * math.cos(math.radians(30))
    assert pose(game, "red_0") == approx((x, y, 30))


def test_oars_ignore_the_wind():
    game = make_game([ship("galley", (24, 18), 180)], FAR, wind=0)
    act(game, speed="battle")
    assert pose(game, "red_0") == approx((24, 9, 180))


def test_a_turn_with_no_room_is_not_made():
    blocker = [ship("sailing_ship", (10, 13.5), 90)]       # its port side lies along y = 12.5
    game = make_game([ship("galley", (10, 10), 90)], blocker)
    events = act(game, speed="hold", turn_1="port 45")      # the bow would swing into it
    assert of(events, TurnBlocked) == [TurnBlocked("red_0", 1, -45.0)]
    assert pose(game, "red_0") == approx((10, 10, 90))


def test_a_ship_whose_hull_crosses_the_table_edge_has_fled():
    game = make_game([ship("galley", (10, 10), 270)], FAR)   # heading west, bow at x = 6.5
    events = act(game, speed="battle")
    assert of(events, ShipLost) == [ShipLost("red_0", "fled", None)]
    [moved] = of(events, Moved)
    assert moved.distance == approx(6.5)                       # up to the edge, then gone
    assert game.is_over and game.winner == "blue"


def test_moving_up_to_the_edge_exactly_does_not_flee():
    game = make_game([ship("galley", (12.5, 10), 270)], FAR)   # bow at x = 9: nine inches of room
    act(game, speed="battle")
    assert game.state.ships["red_0"].status.value == "afloat"
    assert pose(game, "red_0") == approx((3.5, 10, 270))


def test_swept_oars_cost_ramming_then_battle_speed():
    """'After a galley's oars are swept it may not go to Ramming Speed ... swept twice it may not go to Battle
    Speed for the remainder of the game. Any further oar-sweeps are overkill.'"""
    game = make_game([ship("galley", (10, 10), 90)], FAR)
    red = game.state.ships["red_0"]
    assert allowed(game, "speed", "ramming")
    for sweeps, expected in ((1, ["hold", "cruising", "battle"]), (2, ["hold", "cruising"]), (5, ["hold", "cruising"])):
        red.oar_sweeps = sweeps
        game._mask = None
        assert allowed_labels(game, "speed") == expected


def test_grappled_ships_do_not_move():
    """'When grappled, neither ship may move.'"""
    game = make_game([ship("galley", (10, 10), 90)], [ship("sailing_ship", (10, 12.75), 90)])
    red, blue = game.state.ships["red_0"], game.state.ships["blue_0"]
    red.grappled, blue.grappled = ["blue_0"], ["red_0"]
    game._advance([])
    assert decision(game) != ("red_0", "MANEUVER")
    assert not game.can_move(red) and not game.can_move(blue)


def test_one_move_per_turn_and_sides_alternate_who_goes_first():
    game = make_game([ship("galley", (10, 10), 90)], FAR)
    assert decision(game) == ("red_0", "MANEUVER")
    act(game)                                   # red holds (no gunnery: nothing in reach)
    assert decision(game) == ("blue_0", "MANEUVER")
    act(game)
    assert game.state.round == 2 and game.state.order == ["blue_0", "red_0"]
    assert decision(game) == ("blue_0", "MANEUVER")
    assert game.state.phase is Phase.MANEUVER
