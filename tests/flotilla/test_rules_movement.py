"""Movement (document: "Movimiento", the movement phase: "Un barco se moverá de base una cantidad de
casillas iguales a su velocidad en la dirección hacia la que apunta. El capitán podrá tomar una de las
siguientes maneuvers ... Todas ellas se harán contra un tiro de enfrentado de 2d6.") and the sails trait.

Red brig (steering 2d6, movement 3) with its bow on (3, 7) facing E (stern on (2, 7)); blue far away.
Initiative dice [6, 1] for red and [1, 1] for blue: red moves first.
"""

from __future__ import annotations

import pytest

from naval_env.rulesets.flotilla.events import Contest, ManeuverFailed, Moved, WindChanged
from naval_env.testing import allowed, allowed_labels

from .helpers import act, contests, make_game, of, ship, ships

FAR_BLUE = [ship("brig", (12, 1), "W")]
RED_FIRST = [6, 1, 1, 1]


def red_game(position=(3, 7), facing="E", cls="brig", dice=(), blue=FAR_BLUE, **kw):
    game = make_game([ship(cls, position, facing)], blue, dice=[*RED_FIRST, *dice], **kw)
    assert game.current_agent == "red_0"
    return game


def test_the_base_move_sails_the_full_movement_ahead_without_a_roll():
    game = red_game()
    events = act(game, maneuver="ahead")
    assert of(events, Moved)[0] == Moved("red_0", "ahead", ((3, 7), (4, 7), (5, 7), (6, 7)), 2, 2)
    assert of(events, Contest) == []
    assert ships(game)["red_0"].squares == ((6, 7), (5, 7))


def test_the_base_move_stops_at_the_edge_of_the_map():
    game = red_game(position=(13, 7))
    events = act(game, maneuver="ahead")
    assert of(events, Moved)[0].path == ((13, 7), (14, 7))


def test_the_base_move_stops_short_of_another_ship():
    game = red_game(blue=[ship("brig", (6, 7), "N")])
    events = act(game, maneuver="ahead")
    assert of(events, Moved)[0].path == ((3, 7), (4, 7), (5, 7))


@pytest.mark.parametrize("maneuver, path, facing, squares", [
    ("heave_to", ((3, 7),), 2, ((3, 7), (2, 7))),
    ("half_sail", ((3, 7), (4, 7), (5, 7)), 2, ((5, 7), (4, 7))),                 # half of 3, rounded up
    ("turn_starboard", ((3, 7), (3, 8), (4, 9), (5, 10), (6, 11)), 3, ((6, 11), (5, 10))),
    ("turn_port", ((3, 7), (3, 6), (4, 5), (5, 4), (6, 3)), 1, ((6, 3), (5, 4))),
    ("tack_port", ((3, 7), (3, 6), (4, 5), (5, 4)), 1, ((5, 4), (4, 5))),
    ("hard_turn_port", ((3, 7), (2, 6)), 0, ((2, 6), (2, 7))),                    # bow swings round the stern
    ("hard_turn_starboard", ((3, 7), (2, 8)), 4, ((2, 8), (2, 7))),
])
def test_each_maneuver_after_winning_the_opposed_2d6(maneuver, path, facing, squares):
    """Each maneuver: the captain's Steering Roll against 2d6 (list of maneuvers: ASSUMPTION)."""
    game = red_game(dice=[5, 2, 4, 4])
    events = act(game, maneuver=maneuver)
    assert contests(events) == [(maneuver, (5, 2), (4, 4), "won")]
    assert of(events, Contest)[0].b is None and of(events, Contest)[0].b_dice == 2
    assert of(events, Moved) == [Moved("red_0", maneuver, path, 2, facing)]
    assert ships(game)["red_0"].squares == squares


def test_a_failed_maneuver_makes_the_base_move_instead():
    """What a failed maneuver does is not written (ASSUMPTION: failed_maneuver = ahead)."""
    game = red_game(dice=[3, 1, 6, 2])
    events = act(game, maneuver="turn_port")
    assert contests(events) == [("turn_port", (3, 1), (6, 2), "lost")]
    assert of(events, ManeuverFailed) == [ManeuverFailed("red_0", "turn_port", "ahead")]
    assert of(events, Moved) == [Moved("red_0", "ahead", ((3, 7), (4, 7), (5, 7), (6, 7)), 2, 2)]


def test_a_failed_maneuver_can_hold_instead():
    game = red_game(dice=[3, 1, 6, 2], house_rules={"failed_maneuver": "hold"})
    events = act(game, maneuver="turn_port")
    assert of(events, ManeuverFailed) == [ManeuverFailed("red_0", "turn_port", "hold")]
    assert of(events, Moved) == [] and ships(game)["red_0"].squares == ((3, 7), (2, 7))


def test_a_maneuver_ties_go_to_the_next_die_then_a_rethrow():
    game = red_game(dice=[4, 2, 4, 2, 5, 1, 5, 3])
    events = act(game, maneuver="heave_to")
    assert contests(events) == [("heave_to", (4, 2), (4, 2), "tie"), ("heave_to", (5, 1), (5, 3), "lost")]


def test_maneuvers_that_would_leave_the_map_are_not_offered():
    """A ship never leaves the 15 x 15 map (ASSUMPTION): only maneuvers that stay on it are offered."""
    game = red_game(position=(13, 1), facing="E", blue=[ship("brig", (2, 12), "W")])
    assert allowed_labels(game, "maneuver") == ["ahead", "heave_to", "hard_turn_port", "hard_turn_starboard"]


def test_maneuvers_through_another_ship_are_not_offered():
    game = red_game(blue=[ship("brig", (5, 9), "N")])        # blue on (5, 9) and (5, 10)
    assert not allowed(game, "maneuver", "turn_starboard")  # (3, 8), (4, 9), (5, 10): blue's stern
    assert not allowed(game, "maneuver", "tack_starboard")
    assert allowed(game, "maneuver", "turn_port") and allowed(game, "maneuver", "heave_to")


def test_a_ship_at_the_edge_facing_out_can_still_turn_away():
    game = red_game(position=(14, 7), facing="E")
    assert allowed_labels(game, "maneuver") == ["ahead", "heave_to", "hard_turn_port", "hard_turn_starboard"]
    events = act(game, maneuver="ahead")
    assert of(events, Moved)[0].path == ((14, 7),)


@pytest.mark.parametrize("wind, facing, movement", [
    ("E", "E", 4),      # 'Aquellos barcos que naveguen en dirección del viento verán su movimiento aumentado por 1'
    ("E", "NE", 4),     # 45 degrees off the wind still counts as with it (ASSUMPTION: wind_with_within)
    ("E", "N", 3),      # 'Aquellos que no vayan ni a favor ni en contra no verán su movimiento afectado'
    ("E", "NW", 2),
    ("E", "W", 2),      # '... mientras que aquellos que naveguen en dirección contraria reducirán su movimiento por 1'
    ("calm", "E", 3),
])
def test_sails_make_the_wind_add_or_take_a_square(wind, facing, movement):
    game = red_game(position=(7, 7), facing=facing, situations={"wind": wind})
    events = act(game, maneuver="ahead")
    assert len(of(events, Moved)[0].path) == movement + 1


def test_ships_without_sails_ignore_the_wind():
    game = red_game(position=(3, 7), facing="E", cls="galley", situations={"wind": "W"})
    events = act(game, maneuver="ahead")
    assert len(of(events, Moved)[0].path) == 4


def test_the_wind_is_rolled_on_1d4_every_round_under_sail():
    """'Cada ronda el DJ hará un tiro de 1d4 para determinar la dirección del viento (1: Norte, 2: Sur,
    3: Este, 4: Oeste).' Round 1 keeps the set-up wind (ASSUMPTION)."""
    game = make_game([ship("brig", (2, 2), "E")], [ship("brig", (12, 12), "W")],
                     dice=[6, 1, 1, 1, 4, 2, 2, 1, 1], situations={"wind": "N", "wind_each_round": True})
    act(game, maneuver="ahead")
    events = act(game, maneuver="ahead")
    assert of(events, WindChanged) == [WindChanged(4, 4, "W")]
    assert game.state.wind == 6


def test_no_wind_roll_when_no_ship_has_sails():
    game = make_game([ship("galley", (2, 2), "E")], [ship("galley", (12, 12), "W")],
                     dice=[6, 1, 1, 1, 2, 2, 1, 1], situations={"wind": "N", "wind_each_round": True})
    act(game, maneuver="ahead")
    events = act(game, maneuver="ahead")
    assert of(events, WindChanged) == []
