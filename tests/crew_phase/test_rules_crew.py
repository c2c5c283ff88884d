"""Crew casualties: incapacitated crew take no crew actions; healing (not Repair) restores them."""

from __future__ import annotations

from naval_env.rulesets.crew_phase.events import CrewActionWasted, CrewHealed
from naval_env.testing import allowed, allowed_labels

from .helpers import act, duel, of, where


def test_any_character_can_take_a_crew_action():
    """'Cualquier personaje puede tomar una acción de tripulación.'"""
    game = duel()
    for slot in range(6):
        labels = allowed_labels(game, f"crew_{slot}")
        assert {"navigate@s0", "steer", "operate@w0", "ready@w0", "command"} <= set(labels)


def test_an_incapacitated_crew_member_takes_no_crew_actions():
    """'El número del miembro de la tripulación se reduce cuando un miembro de la tripulación no puede realizar las
    tareas regulares de la embarcación y las Acciones de Tripulación'."""
    game = duel()
    game.state.ships["red_0"].crew[2].hp = 0
    game._mask = None
    assert allowed_labels(game, "crew_2") == ["none"]
    keelboat = duel(red="keelboat")
    assert allowed_labels(keelboat, "crew_4") == ["none"]     # a keelboat has four crew members


def test_healing_restores_an_incapacitated_crew_member():
    """'se requieren métodos regulares de curación de criaturas, como la aplicación de magia curativa, objetos y
    habilidades': the officer's healing (2d4 + 2) brings the first one down back to his feet."""
    game = duel(dice=[3, 4])
    red = game.state.ships["red_0"]
    red.crew[1].hp = red.crew[4].hp = 0
    game._mask = None
    assert allowed(game, "crew_5", "heal") and not allowed(game, "crew_0", "heal")   # only the officer heals
    events = act(game, crew={5: "heal"})
    assert of(events, CrewHealed) == [CrewHealed("red_0", 5, 1, 9)]
    assert red.crew[1].hp == 9 and red.crew[5].heals_left == 1 and red.crew[4].hp == 0


def test_healing_is_immediate_the_healed_crew_member_acts_next_round_and_healing_runs_out():
    game = duel(dice=[1, 1, 1, 1])
    red = game.state.ships["red_0"]
    red.crew[0].hp = 0
    red.crew[5].heals_left = 1
    game._mask = None
    act(game, crew={5: "heal"})
    assert red.crew[0].hp == 4
    act(game)
    assert where(game) == ("red_0", "CREW")
    assert allowed(game, "crew_0", "navigate@s0")
    red.crew[0].hp = 0
    game._mask = None
    assert not allowed(game, "crew_5", "heal")              # no uses left


def test_two_healers_and_one_patient_the_second_heal_is_wasted():
    game = duel(dice=[2, 2], crew_profiles={"sailor": {"heals": 1}})
    red = game.state.ships["red_0"]
    red.crew[3].hp = 0
    game._mask = None
    events = act(game, crew={0: "heal", 1: "heal"})
    assert of(events, CrewHealed) == [CrewHealed("red_0", 0, 3, 6)]
    assert of(events, CrewActionWasted) == [CrewActionWasted("red_0", 1, "heal", "nobody to heal")]
    assert red.crew[1].heals_left == 1


def test_repair_does_nothing_for_the_crew():
    """'Obviamente, realizar la acción Reparar no hace nada al intentar restaurar miembros de la tripulación.'"""
    game = duel(dice=[15, 6])
    red = game.state.ships["red_0"]
    red.hp, red.crew[3].hp = 50, 0
    game._mask = None
    act(game, crew=["repair_hull"])
    assert red.hp == 56 and red.crew[3].hp == 0
