"""Hit locations (document: "Cada vez que un barco pierda cohesión corre el riesgo que una parte importante
de él sufra daños ...", the d10 table) and the captain's death ("Si el capitán muere entonces el barco no
se moverá o se moverá siguiendo las corrientes.").

Gunboats as in test_rules_attack.py; red fires, blue counter-attacks and loses: [6, 1, 1] against
[2, 2, 2], then the d10.
"""

from __future__ import annotations

import pytest

from naval_env.rulesets.flotilla.events import (
    CaptainKilled,
    Held,
    HitLocation,
    InitiativeRolled,
    Moved,
)
from naval_env.testing import damage_list, script

from .helpers import act, make_game, of, ship, ships
from .test_rules_attack import GUNBOAT, RED_FIRST, duel

RED_HITS = [6, 1, 1, 2, 2, 2]


def blue_hit(d10: int, **kw):
    game = duel(dice=[*RED_HITS, d10], **kw)
    act(game, target="ship@enemy0")
    return game, act(game, reaction="counter")


@pytest.mark.parametrize("d10, part", [
    (1, "command_room"), (2, "crew"), (3, "crew"), (4, "hull"), (5, "hull"), (8, "hull"), (9, "propulsion"),
    (10, "propulsion"),
])
def test_every_loss_of_cohesion_rolls_the_d10_table(d10, part):
    game, events = blue_hit(d10)
    assert of(events, HitLocation) == [HitLocation("blue_0", d10, part)]
    assert game.dice.history[-1].sides == 10 and game.dice.history[-1].reason == "hit location: blue_0"


def test_command_room_takes_a_steering_die_for_good():
    """'Sala de mandos | Recibe -1d6 en tiros para dirigir el barco (permanente).'"""
    game, events = blue_hit(1)
    blue = ships(game)["blue_0"]
    assert blue.captain_dice == 1 and blue.captain_alive and of(events, CaptainKilled) == []


def test_command_room_hit_that_would_leave_no_die_kills_the_captain():
    """'Si esto lo reduciría a 0 entonces morirá el capitán.'"""
    game = duel(dice=[*RED_HITS, 1])
    ships(game)["blue_0"].captain_dice = 1
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert of(events, CaptainKilled) == [CaptainKilled("blue_0")]
    blue = ships(game)["blue_0"]
    assert not blue.captain_alive and blue.captain_dice == 0


def test_crew_hit_makes_every_steering_roll_a_die_harder():
    """'Tripulación | Aumenta la dificultad de todos los tiros de dirección por 1d6.' Next round's initiative:
    blue throws 2 - 1 = 1 die."""
    game, _ = blue_hit(2)
    assert ships(game)["blue_0"].crew_hits == 1

    script(game, 4, 1, 1)   # round 2 initiative: red 2 dice, blue 1 die (blue's attack: red is in range)
    act(game, target="hold")
    rolls = of(game.opening_events, InitiativeRolled)
    assert rolls  # round 1 initiative happened at set-up
    assert [r.values for r in game.dice.history[-2:]] == [(4, 1), (1,)]


def test_hull_hit_has_no_effect():
    """'Casco | No hay efecto'"""
    game, _ = blue_hit(6)
    blue = ships(game)["blue_0"]
    assert (blue.captain_dice, blue.crew_hits, blue.propulsion_hits, blue.cohesion) == (2, 0, 0, 3)


def test_propulsion_hit_takes_a_square_of_movement():
    """'Propulsión | Reduce su movimiento por 1'"""
    game = make_game([ship("gunboat", (5, 5), "N")], [ship("brig", (7, 5), "N")],
                     dice=[*RED_FIRST, 6, 1, 1, 2, 2, 9], ship_classes=GUNBOAT)
    act(game, maneuver="ahead")
    act(game, maneuver="ahead")                              # blue brig: (7, 5) -> (7, 2)
    act(game, target="ship@enemy0")
    act(game, reaction="counter")                           # the brig's 2 dice lose to red's 6
    blue = ships(game)["blue_0"]
    assert blue.propulsion_hits == 1 and blue.movement == 2


def test_one_location_per_impact_not_per_point():
    """An impact of 2 (here a difference of 5 - 3 with broadside guns) rolls once (ASSUMPTION:
    hit_location_per = impact); per point is a house rule."""
    kw = {"red_kw": {"upgrades": {"broadside_guns": 1}}}
    game = duel(dice=[5, 1, 1, 3, 2, 2, 6], **kw)
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert damage_list(events) == [("blue_0", 2, "red_0", "gunfire")] and len(of(events, HitLocation)) == 1
    game = duel(dice=[5, 1, 1, 3, 2, 2, 6, 7], house_rules={"hit_location_per": "point"}, **kw)
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert [h.roll for h in of(events, HitLocation)] == [6, 7]


def kill_captain(game, ship_id):
    ships(game)[ship_id].captain_alive = False
    ships(game)[ship_id].captain_dice = 0


def test_a_ship_without_captain_does_not_move():
    """Blue moves first; red has no captain: it stays where it is (no decision), and rolls no initiative."""
    game = make_game([ship("brig", (2, 2), "E")], [ship("brig", (12, 12), "W")], dice=[1, 1, 6, 1, 2, 1])
    kill_captain(game, "red_0")
    events = act(game, maneuver="ahead")
    assert of(events, Held) == [Held("red_0", "no captain")]
    assert ships(game)["red_0"].squares == ((2, 2), (1, 2))
    assert of(events, InitiativeRolled) == [InitiativeRolled(("blue_0", "red_0"), ((2, 1), ()))]


def test_a_ship_without_captain_drifts_with_the_current_when_the_scenario_has_one():
    """The GM's choice: 'o se moverá siguiendo las corrientes' (scenario situations: current, drift)."""
    game = make_game([ship("brig", (2, 2), "E")], [ship("brig", (12, 12), "W")], dice=[1, 1, 6, 1, 2, 1],
                     situations={"current": "S", "drift": 2})
    kill_captain(game, "red_0")
    events = act(game, maneuver="ahead")
    assert of(events, Moved)[-1] == Moved("red_0", "drift", ((2, 2), (2, 3), (2, 4)), 2, 2)
    assert ships(game)["red_0"].squares == ((2, 4), (1, 4))


def test_a_captainless_ship_still_fights():
    game = duel(dice=[6, 1, 1, 1, 1, 1, 5])
    kill_captain(game, "red_0")
    assert game.current_agent == "red_0"
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert damage_list(events) == [("blue_0", 1, "red_0", "gunfire")]
