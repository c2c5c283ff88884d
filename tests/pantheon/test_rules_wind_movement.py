"""Wind and Step One - Movement (document: Wind, Step One - Movement)."""

from __future__ import annotations

import pytest

from naval_env.core.errors import IllegalActionError
from naval_env.core.grid import Compass
from naval_env.rulesets.pantheon.events import Moved
from naval_env.rulesets.pantheon.events import TestThrown as Thrown
from naval_env.rulesets.pantheon.movement import speed_with_wind, wind_modifier
from naval_env.rulesets.pantheon.state import Phase
from naval_env.testing import allowed, allowed_labels

from .helpers import act, make_game, of, ship

# Wind blows toward N; the modifier depends only on the angle between facing and wind.
EXPECTED = {"N": 2, "NE": 1, "E": 0, "SE": -1, "S": -2, "SW": -1, "W": 0, "NW": 1}


def centre_game(facing: str, wind: str = "N", vessel: str = "trireme", **kw):
    return make_game([ship(vessel, (10, 10), facing, wits=4, **kw)], [ship("trireme", (0, 0))],
                     wind=wind, board=(21, 21))


# ----------------------------------------------------------------------- Wind
@pytest.mark.parametrize("facing", list(EXPECTED))
def test_wind_compass_modifies_the_movement_allowance(facing):
    """'Moving completely with the wind increases movement by 2. Going slightly with the wind increases it by 1.
    Sailing partially against the wind decreases it by 1. Heading directly into the wind decreases it by 2.'"""
    game = centre_game(facing)
    allowance = 4 + EXPECTED[facing]                      # trireme speed 4
    assert game.state.ships["red_0"].speed_this_turn == allowance
    assert allowed(game, "maneuver", f"ahead {allowance}")
    assert not allowed(game, "maneuver", f"ahead {allowance + 1}")


@pytest.mark.parametrize("wind", [c.name for c in Compass])
def test_wind_modifier_is_relative_to_the_wind_direction(wind):
    w = int(Compass[wind])
    assert [wind_modifier((w + k) % 8, w) for k in range(8)] == [2, 1, 0, -1, -2, -1, 0, 1]


@pytest.mark.parametrize("speed, facing, allowance", [(1, "S", 1), (2, "S", 1), (2, "SE", 1), (3, "S", 1), (4, "S", 2)])
def test_wind_cannot_reduce_speed_below_one(speed, facing, allowance):
    """'Wind cannot reduce a ship's speed below 1'."""
    game = make_game([ship("skiff", (10, 10), facing, wits=4)], [ship("trireme", (0, 0))], wind="N",
                     board=(21, 21), vessels={"skiff": {"speed": speed, "health": 5, "damage": 1,
                                                        "maneuverability": 3, "pc_capacity": 0}})
    assert game.state.ships["red_0"].speed_this_turn == allowance
    assert allowed(game, "maneuver", "ahead 1")
    assert not allowed(game, "maneuver", f"ahead {allowance + 1}")
    assert speed_with_wind(speed, int(Compass[facing]), int(Compass.N)) == allowance


def test_turning_during_the_move_does_not_change_the_wind_modifier_taken_at_the_start():
    """'Turning your ship during movements will not alter Movement bonuses/penalties since the Wind modifier
    is calculated and added before movement.'"""
    game = centre_game("N")                                      # +2: allowance 6
    assert allowed(game, "maneuver", "ahead 6, starboard after 0")  # heads NE (+1) for all six squares
    events = act(game, maneuver="ahead 6, starboard after 0")
    moved = of(events, Moved)[0]
    assert (moved.forward, moved.allowance, moved.path[-1], moved.facing_to) == (6, 6, (16, 4), int(Compass.NE))

    game = centre_game("E")                                      # 0: allowance 4
    assert not allowed(game, "maneuver", "ahead 5, port after 0")  # turning toward the wind adds nothing


def test_wind_keeps_its_direction_for_the_whole_combat():
    """'It will continue to move in that direction unless acted upon by an outside force'."""
    game = make_game([ship("trireme", (2, 5), "N", wits=4)], [ship("trireme", (9, 5), "S")], wind="N")
    for _ in range(3):
        for _ in range(2):
            mover = game.state.ships[game.current_agent]
            assert mover.speed_this_turn == 4 + EXPECTED[Compass(mover.facing).name]
            act(game, maneuver="turn port2")
            act(game, attack="none")
            assert game.state.wind == int(Compass.N)
    # red faced N, W, S and blue S, E, N: allowances 6, 4, 2 and 2, 4, 6 under the same N wind
    assert game.state.round == 4
    assert game.state.ships["red_0"].facing == int(Compass.E)


def test_wind_has_no_effect_on_attacks():
    """'[Wind] has no affect on attack actions'."""
    results = []
    for wind in ("E", "W"):
        game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (5, 5), "W")], wind=wind,
                         dice=[4, 2])
        act(game, maneuver="hold")
        events = act(game, attack="fire@enemy0")
        throw = of(events, Thrown)[0]
        results.append((throw.attack_pool, throw.defense_pool, throw.result, game.state.ships["blue_0"].health))
    assert results[0] == results[1] == (9, 8, "success", 9)


@pytest.mark.parametrize("wind", ["E", "W"])
def test_wind_has_no_effect_on_get_us_out_of_here(wind):
    """'... including 'Get Us Out Of Here''. The extra move is two spaces with or against the wind."""
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (9, 9), "W")], wind=wind)
    act(game, maneuver="hold")
    act(game, attack="get_us_out")
    assert game.state.phase is Phase.ESCAPE
    assert allowed(game, "escape_maneuver", "ahead 2")
    events = act(game, escape="ahead 2")
    assert of(events, Moved)[0].path == ((2, 5), (3, 5), (4, 5))


# ------------------------------------------------------------------- Movement
def test_ship_moves_forward_up_to_its_modified_speed():
    """'a captain moves their boat forward a number of spaces equal to their ship's speed, as modified by the wind'."""
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (11, 0))], wind="E")
    events = act(game, maneuver="ahead 6")
    moved = of(events, Moved)[0]
    assert moved.path == tuple((x, 5) for x in range(2, 9))
    assert (moved.forward, moved.allowance) == (6, 6)
    s = game.state.ships["red_0"]
    assert (s.x, s.y, s.facing, s.moved_forward) == (8, 5, int(Compass.E), True)
    assert game.state.occupancy[(8, 5)] == "red_0" and (2, 5) not in game.state.occupancy


def test_ship_need_not_move_its_full_allowance():
    """'They do not have to move the full amount of spaces that their movement allows'."""
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (11, 0))])
    assert allowed_labels(game, "maneuver")[:3] == ["hold", "turn port1", "turn starboard1"]
    act(game, maneuver="ahead 1")
    assert (game.state.ships["red_0"].x, game.state.ships["red_0"].y) == (3, 5)


def test_ship_cannot_move_more_than_its_modified_movement():
    """'they cannot move any more than their modified movement rating'."""
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (11, 0))])   # wind N: 4
    before = game.state_dict()
    with pytest.raises(IllegalActionError, match="'maneuver'.*ahead 5"):
        act(game, maneuver="ahead 5")
    assert game.state_dict() == before


def test_one_turn_of_one_point_anywhere_during_the_move():
    """'Anywhere during this movement, they may turn their ship up to one space to the right or the left'."""
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (11, 0))])
    events = act(game, maneuver="ahead 3, starboard after 1")
    moved = of(events, Moved)[0]
    assert moved.path == ((2, 5), (3, 5), (4, 6), (5, 7))
    assert (moved.facing_from, moved.facing_to) == (int(Compass.E), int(Compass.SE))

    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (11, 0))])
    events = act(game, maneuver="ahead 2, port after 2")               # turn at the very end
    assert of(events, Moved)[0].path == ((2, 5), (3, 5), (4, 5))
    assert game.state.ships["red_0"].facing == int(Compass.NE)


def test_a_moving_ship_cannot_turn_twice_or_two_points():
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (11, 0))])
    moving = [m for m in game.actions.maneuvers.maneuvers if m.forward > 0]
    assert moving and all(abs(m.turn) <= 1 for m in moving)
    assert sorted({m.turn for m in moving}) == [-1, 0, 1]
    assert sum(1 for m in moving if m.forward == 3 and m.turn) == 8    # port or starboard after 0..3


def test_turning_in_place_may_go_two_points():
    """'If you do not move forward any spaces, you may instead turn your ship up to two spaces'."""
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (11, 0))])
    assert {"turn port1", "turn starboard1", "turn port2", "turn starboard2"} <= set(allowed_labels(game, "maneuver"))
    assert "turn port3" not in game.action_spec.components[1].labels
    events = act(game, maneuver="turn port2")
    moved = of(events, Moved)[0]
    assert (moved.path, moved.forward, moved.facing_to) == (((2, 5),), 0, int(Compass.N))
    assert game.state.ships["red_0"].moved_forward is False


def test_ships_cannot_enter_or_pass_through_occupied_squares():
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (4, 5), "W")])
    assert allowed(game, "maneuver", "ahead 1")
    assert not allowed(game, "maneuver", "ahead 2")      # onto the enemy
    assert not allowed(game, "maneuver", "ahead 3")      # through the enemy
    assert allowed(game, "maneuver", "ahead 3, port after 0")  # diagonal path around it


def test_ships_cannot_leave_the_board():
    game = make_game([ship("trireme", (9, 5), "E", wits=4)], [ship("trireme", (0, 0))])
    assert allowed(game, "maneuver", "ahead 2")          # to x = 11, the last column
    assert not allowed(game, "maneuver", "ahead 3")
    with pytest.raises(IllegalActionError, match="'maneuver'"):
        act(game, maneuver="ahead 3")


def test_boarded_ship_has_no_movement_step():
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (4, 5), "W")], dice=[9, 1])
    act(game, maneuver="ahead 1")
    act(game, attack="board@enemy0")                    # 9+9 vs 8+1: tied
    assert game.state.ships["blue_0"].boarded_by == "red_0"
    assert game.state.phase is Phase.ATTACK and game.current_agent == "blue_0"   # boarded: no movement
    assert allowed_labels(game, "maneuver") == ["hold"]
