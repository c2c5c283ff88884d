"""Steer and movement: no base speed, no dash, no backwards, 45 degrees per speed unit spent, Agile ships."""

from __future__ import annotations

import pytest

from naval_env.rulesets.crew_phase.events import CheckRolled, CrewActionWasted, Moved, StationManned
from naval_env.testing import allowed, allowed_labels

from .helpers import act, duel, make_game, of, pass_crew, ship, where

SAIL3 = ["navigate@s0", "navigate@s1", "navigate@s2"]
BRIG = {"brig": {"size": "medium", "speed_unit": 10, "sections": 4, "hull_points": 40,
                 "hull_dice": {"count": 2, "sides": 8}, "ac": 13, "initiative": 10, "weapons": [],
                 "crew": ["sailor", "sailor", "sailor", "sailor", "officer"]}}


def to_move(game, crew, dice_pass=True):
    act(game, crew=crew)
    pass_crew(game)
    assert where(game) == ("red_0", "MOVE")


def test_without_steer_a_ship_moves_only_in_a_straight_line():
    """'Si un barco que necesite dirección (timón) no toma esta acción, solo puede moverse en línea recta.'"""
    game = duel(dice=[10, 10, 10])
    to_move(game, SAIL3)
    assert allowed_labels(game, "maneuver") == ["hold"] + [f"ahead {n}" for n in range(1, 7)]


def test_steer_lets_the_ship_turn_without_a_roll_in_calm_weather():
    """'Esta acción normalmente no requiere una tirada.'"""
    game = duel(dice=[10, 10, 10])
    events = act(game, crew=[*SAIL3, "steer"])
    assert of(events, StationManned) == [StationManned("red_0", 3, "helm")]
    assert len(of(events, CheckRolled)) == 3              # the three Navigate checks only
    pass_crew(game)
    assert allowed(game, "maneuver", "ahead 2, starboard 1 early")


def test_a_ship_whose_propulsion_steers_needs_no_steer():
    """'Esta acción no es necesaria si el barco tiene un método de propulsión que determine dirección
    (ej.: bote de remos).'"""
    game = duel(dice=[10], red="rowboat")
    to_move(game, ["navigate@s0"])
    assert allowed(game, "maneuver", "ahead 1, port 1 late")


@pytest.mark.parametrize("face, can_turn", [(7, True), (6, False)])
def test_rough_weather_steering_needs_a_water_vehicles_check(face, can_turn):
    """'climas extremos ... pueden requerir una tirada de Vehículos de Agua (Fuerza o Destreza a elección del
    DM)': Dexterity (+1) + Water Vehicles (+2) against DC 10 (see Assumptions); failing, the ship sails straight."""
    game = duel(dice=[10, 10, 10, face], weather="rough")
    events = act(game, crew=[*SAIL3, "steer"])
    steer = of(events, CheckRolled)[-1]
    assert (steer.crew, steer.modifier, steer.total, steer.dc, steer.success) == (3, 3, face + 3, 10, can_turn)
    pass_crew(game)
    assert allowed(game, "maneuver", "ahead 2, starboard 1 early") is can_turn
    assert allowed(game, "maneuver", "ahead 6")


def test_one_helmsman_a_second_steer_is_wasted():
    game = duel()
    events = act(game, crew=["steer", "steer"])
    assert of(events, CrewActionWasted) == [CrewActionWasted("red_0", 1, "steer", "the helm is already manned")]
    assert game.state.ships["red_0"].helmsman == 0


def test_turning_costs_one_speed_unit_of_movement_per_45_degrees():
    """'Un barco puede girar 45 grados por unidad de velocidad que gasta mientras se mueven': a 20-ft speed unit
    needs two 10-ft squares of movement for each point of turn."""
    game = duel(dice=[10, 10, 10])
    to_move(game, [*SAIL3, "steer"])
    assert not allowed(game, "maneuver", "ahead 1, starboard 1 early")
    assert allowed(game, "maneuver", "ahead 2, starboard 1 early")
    assert allowed(game, "maneuver", "ahead 2, starboard 1 late")
    assert not allowed(game, "maneuver", "ahead 3, starboard 2 late")
    assert allowed(game, "maneuver", "ahead 4, starboard 2 early")
    assert allowed(game, "maneuver", "ahead 6, port 3 early")
    assert not allowed(game, "maneuver", "ahead 6, port 4 early")   # 180 degrees would need 80 ft


def test_early_turns_come_as_soon_as_paid_late_turns_after_the_last_square():
    game = duel(dice=[10, 10, 10])
    to_move(game, [*SAIL3, "steer"])
    trial = game.clone()
    events = act(game, maneuver="ahead 4, starboard 2 early")
    [moved] = of(events, Moved)
    assert moved.path == ((3, 8), (4, 8), (5, 8), (6, 9), (7, 10)) and (moved.facing_from, moved.facing_to) == (2, 4)
    events = act(trial, maneuver="ahead 4, starboard 2 late")
    [moved] = of(events, Moved)
    assert moved.path == ((3, 8), (4, 8), (5, 8), (6, 8), (7, 8)) and moved.facing_to == 4


def test_a_half_turn_needs_four_speed_units_the_documents_example():
    """'un barco con una unidad de velocidad de 10 pies necesitaría gastar al menos 40 pies de movimiento para
    hacer una Giro de 180 grados' (and that is how a ship reverses: it cannot go backwards)."""
    game = make_game([ship("brig", (3, 8), "E")], [ship("sailing_ship", (12, 3), "W")], vessels=BRIG,
                     dice=[10, 10, 10, 10])
    to_move(game, [*SAIL3, "navigate@s3", "steer"])
    assert not allowed(game, "maneuver", "ahead 3, port 4 early")
    assert allowed(game, "maneuver", "ahead 4, port 4 early")
    events = act(game, maneuver="ahead 4, port 4 early")
    [moved] = of(events, Moved)
    assert moved.path == ((3, 8), (4, 8), (5, 7), (5, 6), (4, 5)) and moved.facing_to == 6


def test_no_moving_backwards_every_path_starts_ahead():
    """'un barco no puede viajar hacia atrás': every legal maneuver's first square is the one ahead."""
    game = duel(dice=[10, 10, 10])
    to_move(game, [*SAIL3, "steer"])
    table = game.actions.table(False, 20, 10)
    index = game.actions.spec.components[game.actions.MANEUVER].labels
    paths = {label: table.paths[2][index.index(label)] for label in allowed_labels(game, "maneuver")}
    assert any(paths.values()), f"no legal maneuver moves the ship: {sorted(paths)}"
    for label, cells in paths.items():
        assert not cells or cells[0] == (1, 0), label


def test_ships_cannot_turn_in_place_unless_agile():
    """'Los barcos no pueden girar en el lugar como lo hacen las criaturas, A menos que tenga la propiedad Ágil.'"""
    game = duel(dice=[10, 10, 10])
    to_move(game, [*SAIL3, "steer"])
    assert not allowed(game, "maneuver", "pivot port 1")
    galley = duel(dice=[10], red="galley")
    to_move(galley, ["navigate@s0", "steer"])
    assert allowed(galley, "maneuver", "pivot port 1") and allowed(galley, "maneuver", "pivot starboard 4")
    assert allowed(galley, "maneuver", "ahead 1, port 3 early")   # Agile: turns without spending movement
    events = act(galley, maneuver="ahead 1, port 2 early")
    assert of(events, Moved)[0].path == ((3, 8), (3, 7))


def test_no_dash_speed_comes_only_from_navigate():
    """'No pueden tomar la acción de carrera': the allowance is the speed gained, never more."""
    game = duel(dice=[10, 1])
    to_move(game, ["navigate@s0", "navigate@s1"])
    assert allowed(game, "maneuver", "ahead 3") and not allowed(game, "maneuver", "ahead 4")


def test_ships_stay_on_the_board_and_out_of_other_ships():
    game = duel(red_at=(13, 8), blue_at=(15, 8), dice=[10, 10, 10])
    to_move(game, SAIL3)
    assert allowed_labels(game, "maneuver") == ["hold", "ahead 1"]   # (14, 8) is free, (15, 8) is blue
    edge = duel(red_at=(14, 2), blue_at=(3, 3), dice=[10, 10, 10])
    to_move(edge, SAIL3)
    assert allowed_labels(edge, "maneuver") == ["hold", "ahead 1"]
