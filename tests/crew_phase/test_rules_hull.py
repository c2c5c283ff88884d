"""Hull points: down to minus half the maximum; below half, maximum speed halved; at 0, sinking; at minus half,
sunk and out of the game."""

from __future__ import annotations

from naval_env.core.events import DamageDealt, GameEnded
from naval_env.rulesets.crew_phase.events import CheckRolled, StatusChanged
from naval_env.rulesets.crew_phase.hull import damage_hull, restore_hull
from naval_env.rulesets.crew_phase.state import Status
from naval_env.testing import allowed, allowed_labels, damage_list

from .helpers import act, duel, make_game, of, pass_crew, ship, where

SAIL3 = ["navigate@s0", "navigate@s1", "navigate@s2"]


def test_hull_points_go_down_to_minus_half_the_maximum():
    """'los puntos de casco mínimos de un barco son iguales a la mitad negativa de sus puntos de casco máximos.
    Por ejemplo, un barco con un máximo de 100 puntos de casco puede llegar a una puntuación mínima de -50.'"""
    game = duel(house_rules={}, vessels={"sailing_ship": {"hull_points": 100}})
    blue = game.state.ships["blue_0"]
    events: list = []
    assert damage_hull(game.state, blue, 130, "red_0", "test", events) == 130
    assert blue.hp == -30 and blue.status is Status.SINKING
    assert damage_hull(game.state, blue, 40, "red_0", "test", events) == 20   # only down to -50
    assert blue.hp == -50 and blue.status is Status.SUNK
    assert [e.amount for e in of(events, DamageDealt)] == [130, 20]


def test_below_half_the_maximum_speed_is_halved_and_extra_navigate_speed_is_wasted():
    """'Un barco que tiene menos de la mitad de sus puntos de casco máximos también ve reducida su velocidad máxima
    a la mitad. Cualquier velocidad ... más allá de la mitad de la velocidad máxima normal del barco se
    desperdicia.' 29 of 60: three successes give 60 ft, of which 30 (half of the normal 60) remain."""
    game = duel(dice=[10, 10, 10])
    game.state.ships["red_0"].hp = 29
    act(game, crew=SAIL3)
    pass_crew(game)
    assert game.state.ships["red_0"].movement_left == 30
    assert allowed(game, "maneuver", "ahead 3") and not allowed(game, "maneuver", "ahead 4")


def test_the_speed_penalty_ends_when_the_hull_is_restored_above_half():
    """'Esta penalización se elimina cuando el barco se restaura nuevamente por encima de la mitad.'"""
    game = duel(dice=[10, 10, 10])
    game.state.ships["red_0"].hp = 30                      # exactly half: not below half
    act(game, crew=SAIL3)
    pass_crew(game)
    assert game.state.ships["red_0"].movement_left == 60


def test_at_zero_a_ship_is_sinking_immobile_and_its_crew_rolls_at_disadvantage():
    """'Cuando un barco cae a 0 puntos de casco ... queda inmovilizado y se considera que está hundiéndose. Cuando
    se está hundiendo, la Unidad de Velocidad de un barco se reduce a 0, todas las Acciones de Tripulación se
    lanzan en desventaja.' Blue (second ship) keeps its side afloat so the battle goes on."""
    game = make_game([ship("sailing_ship", (3, 8), "E"), ship("sailing_ship", (3, 3), "E")],
                     [ship("sailing_ship", (12, 8), "W")], dice=[15, 4])
    red = game.state.ships["red_0"]
    events: list = []
    damage_hull(game.state, red, 60, "blue_0", "test", events)
    assert of(events, StatusChanged) == [StatusChanged("red_0", "sinking")] and red.hp == 0
    labels = allowed_labels(game, "crew_0")
    assert not any(label.startswith("navigate") for label in labels) and "steer" not in labels
    events = act(game, crew={5: "command"})
    [check] = of(events, CheckRolled)
    assert (check.rolls, check.total, check.success) == ((15, 4), 7, False)


def test_sinking_damage_is_a_tenth_of_the_maximum_at_the_start_of_each_of_its_turns():
    """'al comienzo de cada uno de sus turnos, el Barco sufre un \"Daño de hundimiento\", equivalente a 1/10 de sus
    puntos de casco máximos (redondeado hacia abajo).' 60 // 10 = 6, at red_1's turns in the Ship Phase."""
    game = make_game([ship("sailing_ship", (3, 3), "E"), ship("sailing_ship", (3, 8), "E")],
                     [ship("sailing_ship", (12, 8), "W")], vessels={"sailing_ship": {"hull_points": 65}})
    red = game.state.ships["red_1"]
    damage_hull(game.state, red, 65, "blue_0", "test", [])
    for _ in range(3):
        events = pass_crew(game)                           # red_0, red_1, blue_0: then the Ship Phase
    assert damage_list(events) == [("red_1", 6, None, "sinking")]
    assert red.hp == -6 and red.status is Status.SINKING
    for _ in range(3):
        pass_crew(game)
    assert red.hp == -12


def test_at_minus_half_a_ship_sinks_and_leaves_the_game():
    """'Una vez que un barco alcanza la mitad negativa de sus puntos de casco máximos ... se hunde debajo de las
    olas. La nave no puede realizar ninguna acción ... A todos los efectos, la nave se retira del juego.'"""
    game = make_game([ship("sailing_ship", (3, 3), "E"), ship("sailing_ship", (3, 8), "E")],
                     [ship("sailing_ship", (12, 8), "W")])
    red = game.state.ships["red_1"]
    damage_hull(game.state, red, 84, "blue_0", "test", [])   # -24: one turn of sinking (6) from the bottom
    for _ in range(3):
        events = pass_crew(game)
    assert of(events, DamageDealt) == [DamageDealt("red_1", 6, None, "sinking")]
    assert red.status is Status.SUNK and (3, 8) not in game.state.occupancy
    assert not game.is_active("red_1") and "red_1" not in game.state.order
    assert not game.is_over


def test_a_sinking_ship_repaired_above_zero_is_afloat_again():
    game = duel()
    red = game.state.ships["red_0"]
    events: list = []
    damage_hull(game.state, red, 62, "blue_0", "test", events)
    assert restore_hull(game.state, red, 5, events) == 5 and red.hp == 3 and red.status is Status.AFLOAT
    assert of(events, StatusChanged)[-1] == StatusChanged("red_0", "afloat")


def test_a_side_whose_ships_are_all_sunk_loses_at_once():
    game = duel()
    events: list = []
    damage_hull(game.state, game.state.ships["blue_0"], 90, "red_0", "test", events)
    game._check_end(events)
    assert of(events, GameEnded) == [GameEnded("red", "the other side's ships are sunk")]
    assert where(game) == (None, "CREW") and game.winner == "red"
