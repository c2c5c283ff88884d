"""Traits (the document gives their effects, not their names: names are ASSUMPTION).

Gunboats as in test_rules_attack.py (combat 3d6, range 3, size 1, cohesion 4), red first.
"""

from __future__ import annotations

import pytest

from naval_env.rulesets.flotilla.events import AttackDeclared, MagesHit, Reacted
from naval_env.rulesets.flotilla.state import Phase
from naval_env.testing import allowed, allowed_labels, damage_list

from .helpers import act, contests, make_game, of, ship, ships
from .test_rules_attack import duel

BOW = {"red_kw": {"upgrades": {"bow_guns": 1}}}
BROADSIDE = {"red_kw": {"upgrades": {"broadside_guns": 1}}}
MAGES = {"red_kw": {"upgrades": {"mage_squad": 1}}}


def test_better_artillery_reaches_one_square_further():
    """'Aumenta su alcance por 1 y su tiro de combate por 1d6.'"""
    game = duel(blue_at=(9, 5), red_kw={"upgrades": {"better_artillery": 1}}, dice=[6, 5, 4, 3, 1, 5, 2, 1, 1, 1])
    assert allowed(game, "target", "ship@enemy0")
    events = act(game, target="ship@enemy0")              # four squares: out of blue's reach, so blue dodges
    assert of(events, Reacted) == [Reacted("blue_0", "dodge", "red_0")]
    assert contests(events)[0] == ("gunfire / dodge", (6, 5, 4, 3), (1,), "won")


def test_a_veteran_captain_throws_more_steering_dice():
    """'Añade 1d6 adicional al tiro de Dirección (+2d6 si aumenta el coste por 2).'"""
    game = make_game([ship("brig", (2, 2), "E", upgrades={"veteran_captain": 2})], [ship("brig", (12, 12), "W")],
                     dice=[1, 1, 1, 6, 6, 1])
    assert [r.values for r in game.dice.history] == [(1, 1, 1, 6), (6, 1)]
    assert game.state.order == ["red_0", "blue_0"]


def test_bow_guns_lose_the_penalty_on_an_adjacent_enemy_ahead_and_deal_the_difference():
    """'Pierde su penalizador al atacar de frente a enemigos adyacentes y podrá provocarle daño igual a la
    diferencia entre resultados.'"""
    game = duel(red_facing="E", blue_at=(6, 5), dice=[6, 2, 2, 1, 1, 5], **BOW)
    act(game, target="ship@enemy0")
    events = act(game, reaction="dodge")
    assert contests(events) == [("gunfire / dodge", (6, 2, 2), (1,), "won")]
    # the difference is 5; blue had 4 cohesion left: it sinks.
    assert damage_list(events) == [("blue_0", 4, "red_0", "gunfire")] and ships(game)["blue_0"].cohesion == 0
    assert game.winner == "red"


def test_bow_guns_keep_the_penalty_on_an_enemy_ahead_that_is_not_adjacent():
    game = duel(red_facing="E", blue_at=(7, 5), dice=[6, 2, 1, 5], **BOW)
    act(game, target="ship@enemy0")
    events = act(game, reaction="dodge")
    assert contests(events) == [("gunfire / dodge", (6, 2), (1,), "won")]
    assert damage_list(events) == [("blue_0", 1, "red_0", "gunfire")]


def test_broadside_guns_deal_the_difference_abeam():
    """'Al atacar a un enemigo que se encuentre de lado podrá provocarle daño igual a la diferencia entre
    resultados.'"""
    game = duel(dice=[6, 1, 1, 3, 3, 2, 5], **BROADSIDE)
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert damage_list(events) == [("blue_0", 3, "red_0", "gunfire")]


def test_broadside_guns_deal_one_when_the_enemy_is_ahead():
    game = duel(red_facing="E", blue_at=(7, 5), dice=[6, 1, 3, 3, 1, 5], **BROADSIDE)
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert damage_list(events) == [("blue_0", 1, "red_0", "gunfire")]


def test_a_counter_attack_with_broadside_guns_deals_the_difference_too():
    game = duel(dice=[2, 1, 1, 6, 1, 1, 5], blue_kw={"upgrades": {"broadside_guns": 1}})
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert damage_list(events) == [("red_0", 4, "blue_0", "counter-attack")]


def test_armour_takes_one_off_every_loss_down_to_one():
    """'Reduce toda la pérdida de cohesión que reciba por 1 hasta un mínimo de 1.'"""
    game = duel(dice=[6, 1, 1, 2, 1, 1, 5], blue_kw={"upgrades": {"armour": 1}}, **BROADSIDE)
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert damage_list(events) == [("blue_0", 3, "red_0", "gunfire")]      # difference 4, less 1
    game = duel(dice=[6, 1, 1, 2, 1, 1, 5], blue_kw={"upgrades": {"armour": 1}})
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert damage_list(events) == [("blue_0", 1, "red_0", "gunfire")]      # 1 stays 1


def test_the_mage_squad_attacks_like_a_cannon_and_the_target_answers():
    """'Los magos son una unidad adicional con 3 cohesión y tiro de ataque y defensa 3d6. Sus ataques
    funcionan de la misma manera que un cañón'"""
    game = duel(dice=[1, 1, 1, 6, 5, 4, 6, 6, 1], **MAGES)
    assert allowed_labels(game, "mage_target") == ["hold", "ship@enemy0"]
    events = act(game, mage_target="ship@enemy0")
    assert of(events, AttackDeclared) == [AttackDeclared("red_0", "mages", "blue_0", "ship")]
    assert game.current_agent == "blue_0" and game.state.phase is Phase.REACTION
    events = act(game, reaction="counter")
    assert contests(events) == [("mage attack / counter", (1, 1, 1), (6, 5, 4), "lost")]
    assert of(events, MagesHit) == [MagesHit("red_0", 1, "blue_0", 2)]
    assert damage_list(events) == [] and ships(game)["red_0"].cohesion == 4


def test_guns_and_mages_both_attack_in_one_attack_step():
    game = duel(dice=[6, 1, 1, 1, 1, 1, 5, 6, 6, 6, 1, 1, 1, 5], **MAGES)
    act(game, target="ship@enemy0", mage_target="ship@enemy0")
    act(game, reaction="counter")
    assert game.current_agent == "blue_0" and game.state.phase is Phase.REACTION   # the second attack
    events = act(game, reaction="counter")
    assert contests(events) == [("mage attack / counter", (6, 6, 6), (1, 1, 1), "won")]
    assert ships(game)["blue_0"].cohesion == 2


def test_the_mage_squad_can_be_attacked_and_defends_with_3d6():
    """'... y pueden ser atacados por otros barcos.' No reaction: the mages defend with their 3d6."""
    game = duel(dice=[6, 2, 2, 5, 4, 3, 1, 1, 1, 1, 1, 1], blue_kw={"upgrades": {"mage_squad": 1}})
    assert allowed_labels(game, "target") == ["hold", "ship@enemy0", "mages@enemy0"]
    events = act(game, target="mages@enemy0")
    assert of(events, Reacted) == []
    assert contests(events)[0] == ("gunfire / defend", (6, 2, 2), (5, 4, 3), "won")
    assert of(events, MagesHit) == [MagesHit("blue_0", 1, "red_0", 2)]
    assert ships(game)["blue_0"].cohesion == 4


@pytest.mark.parametrize("spares, red_cohesion, damage", [
    (False, 3, [("red_0", 1, "blue_0", "defend")]),   # 'el perdedor reducirá su cohesión por 1'
    (True, 4, []),                                     # house rule dodge_win_spares_attacker
])
def test_mages_that_win_their_defence_cost_the_attacker_a_point(spares, red_cohesion, damage):
    game = duel(dice=[2, 2, 1, 5, 4, 3, 6], blue_kw={"upgrades": {"mage_squad": 1}},
                house_rules={"dodge_win_spares_attacker": spares})
    events = act(game, target="mages@enemy0")
    assert contests(events)[0] == ("gunfire / defend", (2, 2, 1), (5, 4, 3), "lost")
    assert damage_list(events) == damage and of(events, MagesHit) == []
    assert ships(game)["red_0"].cohesion == red_cohesion and ships(game)["blue_0"].mages == 3


@pytest.mark.parametrize("spares, red_mages", [(False, 2), (True, 3)])
def test_a_won_dodge_against_mages_costs_the_squad_a_point(spares, red_mages):
    """Mages attack 'de la misma manera que un cañón': a won dodge costs the squad 1 (house rule: nothing)."""
    game = duel(dice=[1, 1, 1, 6], house_rules={"dodge_win_spares_attacker": spares}, **MAGES)
    act(game, mage_target="ship@enemy0")
    events = act(game, reaction="dodge")
    assert contests(events) == [("mage attack / dodge", (1, 1, 1), (6,), "lost")]
    assert ships(game)["red_0"].mages == red_mages and damage_list(events) == []


def test_a_mage_squad_at_zero_cohesion_is_lost():
    game = duel(dice=[6, 2, 2, 5, 4, 3], blue_kw={"upgrades": {"mage_squad": 1}})
    ships(game)["blue_0"].mages = 1
    events = act(game, target="mages@enemy0")
    assert of(events, MagesHit) == [MagesHit("blue_0", 1, "red_0", 0)]
    assert game.current_agent == "blue_0" and allowed_labels(game, "mage_target") == ["hold"]


def test_elite_crew_boards_with_up_to_five_dice():
    """'Añade Xd6 adicional al tiro de Abordaje hasta un máximo de 5d6.'"""
    game = make_game([ship("galley", (5, 5), "N", upgrades={"elite_crew": 2})], [ship("brig", (6, 5), "N")],
                     dice=[6, 1, 1, 1, 5, 2, 4, 4, 1, 1, 1, 1, 2, 6, 1, 4])
    act(game, maneuver="board@enemy0")
    events = act(game, boarding="fight")
    assert contests(events)[0] == ("boarding fight", (2, 1, 1, 1, 1), (6, 1), "lost")
    assert ships(game)["red_0"].boarding == 5


def test_sails_can_be_bought_for_a_ship_without_them():
    """Sails: 'Aquellos barcos que naveguen en dirección del viento verán su movimiento aumentado por 1'."""
    from naval_env.rulesets.flotilla.events import Moved

    plain = make_game([ship("galley", (3, 7), "E")], [ship("brig", (12, 1), "W")], dice=[6, 1, 1, 1],
                      situations={"wind": "E"})
    rigged = make_game([ship("galley", (3, 7), "E", upgrades={"sails": 1})], [ship("brig", (12, 1), "W")],
                       dice=[6, 1, 1, 1], situations={"wind": "E"})
    assert not ships(plain)["red_0"].sails and ships(rigged)["red_0"].sails
    assert len(of(act(plain, maneuver="ahead"), Moved)[0].path) == 4
    assert len(of(act(rigged, maneuver="ahead"), Moved)[0].path) == 5
