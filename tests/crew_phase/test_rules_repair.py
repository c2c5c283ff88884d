"""Repair: in combat (Strength or Intelligence DC 10, spend and roll a hull die, immediately; hull or a part),
and long-term in a dock (days, gold, hull dice)."""

from __future__ import annotations

import pytest

from naval_env.rulesets.crew_phase.config import HouseRules
from naval_env.rulesets.crew_phase.events import CheckRolled, CrewActionWasted, Repaired
from naval_env.rulesets.crew_phase.repair import DockRepair, dock_repair
from naval_env.rulesets.crew_phase.state import Status
from naval_env.testing import allowed

from .helpers import act, duel, make_game, of, pass_crew, ship, where


def test_repair_spends_and_rolls_a_hull_die_on_a_dc_10_check():
    """'el personaje debe realizar una prueba de Fuerza o Inteligencia de DC 10 (a elección del jugador). El éxito
    en la tirada le permite a ese personaje gastar y tirar uno de los dados de Dados de Casco del barco para
    agregarlos a los Puntos de Casco actuales': sailor Strength +2; 8 + 2 = 10 succeeds; the d10 rolls 7."""
    game = duel(dice=[8, 7])
    red = game.state.ships["red_0"]
    red.hp = 40
    events = act(game, crew=["repair_hull"])
    [check] = of(events, CheckRolled)
    assert (check.check, check.modifier, check.total, check.dc, check.success) == (
        "repair (Strength or Intelligence)", 2, 10, 10, True)
    assert of(events, Repaired) == [Repaired("red_0", 0, "hull", 7, 7)]
    assert red.hp == 47 and red.hull_dice_left == 3


def test_the_better_of_strength_and_intelligence_is_used():
    game = duel(dice=[9, 5])
    game.state.ships["red_0"].hp = 40
    [check] = of(act(game, crew={5: "repair_hull"}), CheckRolled)   # officer: Strength 0, Intelligence +1
    assert (check.modifier, check.total, check.success) == (1, 10, True)


def test_a_failed_repair_spends_no_hull_die():
    game = duel(dice=[7])
    red = game.state.ships["red_0"]
    red.hp = 40
    events = act(game, crew=["repair_hull"])
    assert of(events, Repaired) == [] and red.hull_dice_left == 4 and red.hp == 40


def test_repair_never_goes_above_the_maximum():
    game = duel(dice=[15, 9])
    game.state.ships["red_0"].hp = 55
    events = act(game, crew=["repair_hull"])
    assert of(events, Repaired) == [Repaired("red_0", 0, "hull", 9, 5)] and game.state.ships["red_0"].hp == 60


def test_repair_is_immediate_not_a_crew_action():
    """'Esto no es una Acción de Tripulación, y por lo tanto el efecto es inmediato': a sinking ship mended in the
    Character Phase is afloat before the phase ends (and its side does not lose); the check is not at
    disadvantage."""
    game = duel(dice=[10, 6])
    red = game.state.ships["red_0"]
    red.hp, red.status = -3, Status.SINKING
    events = act(game, crew=["repair_hull"])
    assert of(events, CheckRolled)[0].rolls == (10,)
    assert red.hp == 3 and red.status is Status.AFLOAT
    pass_crew(game)
    assert not game.is_over


def test_a_part_with_its_own_hit_points_can_be_repaired_with_a_hull_die():
    """'Alternativamente, si una parte de la nave tiene su propio total de Puntos de Golpe individual (como muchas
    de las armas a distancia), el personaje puede gastar y tirar los Dados de Casco para agregar al total de los
    Puntos de Golpe del de la parte.'"""
    game = duel(dice=[12, 10])
    red = game.state.ships["red_0"]
    red.weapons[1].hp = 0
    assert not allowed(game, "crew_3", "operate@w1")
    events = act(game, crew=["repair@w1"])
    assert of(events, Repaired) == [Repaired("red_0", 0, "weapon 1", 10, 10)]
    assert red.weapons[1].hp == 10 and red.hull_dice_left == 3


def test_repair_needs_hull_dice_and_damage_to_mend():
    game = duel()
    red = game.state.ships["red_0"]
    assert not allowed(game, "crew_0", "repair_hull")      # the hull is whole
    red.hp, red.hull_dice_left = 30, 0
    game._mask = None
    assert not allowed(game, "crew_0", "repair_hull") and not allowed(game, "crew_0", "repair@w0")


def test_when_the_hull_dice_run_out_a_later_repair_is_wasted():
    game = duel(dice=[15, 3])
    red = game.state.ships["red_0"]
    red.hp, red.hull_dice_left = 30, 1
    game._mask = None
    events = act(game, crew=["repair_hull", "repair_hull"])
    assert of(events, CrewActionWasted) == [CrewActionWasted("red_0", 1, "repair_hull", "no hull dice left")]


RULES = HouseRules()


@pytest.mark.parametrize("kwargs, expected", [
    # 60-hp ship at 40 with d10 hull dice, one skilled worker: 10 a day; two days to the hull, then dice.
    ({"hp": 40, "hull_dice_left": 4, "skilled_workers": 1, "days": 2}, DockRepair(60, 4, 2, 2, 26)),
    ({"hp": 40, "hull_dice_left": 1, "skilled_workers": 1}, DockRepair(60, 4, 5, 5, 65)),
    # Free labour: 10 gold a day of materials only.
    ({"hp": 40, "hull_dice_left": 4, "free_workers": 1}, DockRepair(60, 4, 2, 2, 20)),
    # Two workers a day; the last one idle on day 2 is not paid.
    ({"hp": 35, "hull_dice_left": 3, "skilled_workers": 1, "free_workers": 1}, DockRepair(60, 4, 4, 2, 46)),
    ({"hp": -10, "hull_dice_left": 4, "skilled_workers": 2, "days": 1}, DockRepair(10, 4, 2, 1, 26)),
    ({"hp": 60, "hull_dice_left": 4, "skilled_workers": 1}, DockRepair(60, 4, 0, 0, 0)),
])
def test_long_term_repair_in_a_dock(kwargs, expected):
    """'un trabajador calificado puede trabajar 8 horas por día a un costo de 13 de oro. Si se realiza mediante mano
    de obra gratuita ... el costo es de 10 oros por día solo por los materiales. Por cada día que un trabajador
    calificado gasta reparando el barco, el barco recupera Puntos de Casco equivalentes al valor máximo de uno de
    sus Dados de Casco o recupera uno de los Dados de Casco gastados.'"""
    assert dock_repair(RULES, max_hp=60, hull_die=10, hull_dice_max=4, **kwargs) == expected


def test_dock_repair_refuses_no_workers():
    with pytest.raises(ValueError, match="at least one worker"):
        dock_repair(RULES, max_hp=60, hp=10, hull_die=10, hull_dice_max=4, hull_dice_left=4)


def test_ships_are_not_healed_by_healing():
    """'una nave no puede beneficiarse de los efectos de magia de curación': healing targets crew only."""
    game = make_game([ship("sailing_ship", (3, 8), "E")], [ship("sailing_ship", (12, 8), "W")], dice=[2, 2])
    red = game.state.ships["red_0"]
    red.hp = 30
    red.crew[0].hp = 0
    game._mask = None
    act(game, crew={5: "heal"})
    assert red.hp == 30 and red.crew[0].hp == 6
    assert where(game) == ("blue_0", "CREW")
