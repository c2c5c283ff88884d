"""Attacks and the defender's answer (document: "Una vez se resuelve la ronda de movimiento se harán los
tiros de ataque ...", "El defensor puede escoger entre esquivar un ataque o contratacar ...", "Una vez
determinados los tiros base ambos combatientes harán un tiro ...").

Two gunboats (test class: steering 2d6, combat 3d6, range 3, boarding 2d6, size 1, cohesion 4,
movement 0) side by side facing north, two squares apart: each has the other abeam. Initiative dice
[6, 1] red, [1, 1] blue: red acts first. Both hold in the movement phase ('ahead' with movement 0).
"""

from __future__ import annotations

import numpy as np
import pytest

from naval_agents.captains.scripted.flotilla import exchange_value
from naval_env.rulesets.flotilla import combat
from naval_env.rulesets.flotilla.events import AttackDeclared, HitLocation, Reacted
from naval_env.rulesets.flotilla.geometry import Arc
from naval_env.rulesets.flotilla.state import Phase, Unit
from naval_env.testing import allowed, allowed_labels, damage_list

from .helpers import act, contests, make_game, of, ship, ships

GUNBOAT = {"gunboat": {"cost": 1, "steering": 2, "combat": 3, "range": 3, "boarding": 2, "size": 1, "cohesion": 4,
                       "movement": 0}}
RED_FIRST = [6, 1, 1, 1]


def duel(red_at=(5, 5), red_facing="N", blue_at=(7, 5), blue_facing="N", dice=(), red_cls="gunboat",
         blue_cls="gunboat", red_kw=None, blue_kw=None, **kw):
    game = make_game([ship(red_cls, red_at, red_facing, **(red_kw or {}))],
                     [ship(blue_cls, blue_at, blue_facing, **(blue_kw or {}))],
                     dice=[*RED_FIRST, *dice], ship_classes={**GUNBOAT, **kw.pop("ship_classes", {})}, **kw)
    while game.state.phase is Phase.MOVE and game.state.round == 1:
        act(game, maneuver="ahead")
    return game


def test_attacks_come_after_every_ship_has_moved():
    game = make_game([ship("gunboat", (5, 5), "N")], [ship("gunboat", (7, 5), "N")], dice=RED_FIRST,
                     ship_classes=GUNBOAT)
    assert game.state.phase is Phase.MOVE and game.current_agent == "red_0"
    assert allowed_labels(game, "target") == ["hold"]
    act(game, maneuver="ahead")
    assert game.state.phase is Phase.MOVE and game.current_agent == "blue_0"
    act(game, maneuver="ahead")
    assert game.state.phase is Phase.ATTACK and game.current_agent == "red_0"
    assert allowed_labels(game, "target") == ["hold", "ship@enemy0"]


@pytest.mark.parametrize("blue_at, in_range", [((8, 5), True), ((8, 2), True), ((9, 5), False), ((5, 9), False)])
def test_attack_range_is_counted_in_squares(blue_at, in_range):
    """'También se indica el alcance del ataque en casillas.' (Squares between the nearest squares,
    diagonals counting one.) Out of range there is nothing to decide: the attack phase passes."""
    game = duel(blue_at=blue_at, dice=[2, 1, 1, 1])
    if in_range:
        assert game.state.phase is Phase.ATTACK and allowed(game, "target", "ship@enemy0")
    else:
        assert game.state.round == 2 and game.state.phase is Phase.MOVE


def test_the_defender_chooses_to_dodge_or_counter_attack():
    """The defending captain's own decision, mid-turn: the decision passes to blue_0 for a REACTION."""
    game = duel()
    events = act(game, target="ship@enemy0")
    assert of(events, AttackDeclared) == [AttackDeclared("red_0", "ship", "blue_0", "ship")]
    assert game.current_agent == "blue_0" and game.state.phase is Phase.REACTION
    assert allowed_labels(game, "reaction") == ["dodge", "counter"]
    assert allowed_labels(game, "maneuver") == ["ahead"] and allowed_labels(game, "target") == ["hold"]
    assert np.array_equal(game.legal_mask("red_0"), game.action_spec.noop_mask())


@pytest.mark.parametrize("dice, result, blue_cohesion", [
    ([6, 2, 1, 5, 5, 4, 5], "won", 3),     # 'el perdedor reducirá su cohesión por 1' (+ a hit-location d10)
    ([5, 2, 1, 5, 4, 4], "tie", 4),        # 'En caso de un empate no habrá pérdida de cohesión.'
])
def test_counter_attack_exchange_the_loser_loses_one_cohesion(dice, result, blue_cohesion):
    """Counter-attack: 'tirará el valor de ataque que tenga en la dirección relativa al atacante'."""
    game = duel(dice=dice)
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert of(events, Reacted) == [Reacted("blue_0", "counter", "red_0")]
    assert contests(events) == [("gunfire / counter", tuple(dice[:3]), tuple(dice[3:6]), result)]
    assert ships(game)["blue_0"].cohesion == blue_cohesion and ships(game)["red_0"].cohesion == 4


def test_a_won_counter_attack_costs_the_attacker_cohesion():
    game = duel(dice=[4, 2, 1, 6, 1, 1, 5])
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert damage_list(events) == [("red_0", 1, "blue_0", "counter-attack")]
    assert of(events, HitLocation) == [HitLocation("red_0", 5, "hull")]


def test_dodge_is_a_steering_roll_with_a_die_of_penalty_per_square_of_size():
    """'Si escoge esquivar hará un tiro de dirección con penalizador 1d6 por cada casilla que ocupe el barco'
    Blue: steering 2d6, size 1: one die."""
    game = duel(dice=[3, 2, 1, 6, 4])
    act(game, target="ship@enemy0")
    events = act(game, reaction="dodge")
    assert contests(events) == [("gunfire / dodge", (3, 2, 1), (6,), "lost")]


def test_a_won_dodge_costs_the_attacker_one_cohesion():
    """'el perdedor reducirá su cohesión por 1': whichever side loses, the dodger's attacker too. Red's
    3d6 (highest 3) lose to blue's dodge die (6); red loses 1 of 4 and rolls a hit location (4: hull)."""
    game = duel(dice=[3, 2, 1, 6, 4])
    act(game, target="ship@enemy0")
    events = act(game, reaction="dodge")
    assert damage_list(events) == [("red_0", 1, "blue_0", "dodge")]
    assert of(events, HitLocation) == [HitLocation("red_0", 4, "hull")]
    assert ships(game)["red_0"].cohesion == 3 and ships(game)["blue_0"].cohesion == 4


def test_a_tied_dodge_costs_nothing():
    """'En caso de un empate no habrá pérdida de cohesión.'"""
    game = duel(dice=[5, 2, 1, 5])
    act(game, target="ship@enemy0")
    events = act(game, reaction="dodge")
    assert contests(events) == [("gunfire / dodge", (5, 2, 1), (5,), "tie")]
    assert damage_list(events) == [] and ships(game)["red_0"].cohesion == 4


def test_a_big_ship_dodges_with_fewer_dice():
    game = duel(blue_cls="brig", blue_at=(7, 5), dice=[1, 1, 1, 9])
    # Brig: steering 2d6 less 2 for its two squares: no dice at all; any die beats it.
    act(game, target="ship@enemy0")
    events = act(game, reaction="dodge")
    assert contests(events) == [("gunfire / dodge", (1, 1, 1), (), "won")]
    assert damage_list(events) == [("blue_0", 1, "red_0", "gunfire")]


def test_a_won_dodge_only_avoids_the_hit_as_a_house_rule():
    """House rule ``dodge_win_spares_attacker``: the same throws cost red nothing, and no hit location."""
    game = duel(dice=[3, 2, 1, 6], house_rules={"dodge_win_spares_attacker": True})
    act(game, target="ship@enemy0")
    events = act(game, reaction="dodge")
    assert contests(events) == [("gunfire / dodge", (3, 2, 1), (6,), "lost")]
    assert damage_list(events) == [] and of(events, HitLocation) == []
    assert ships(game)["red_0"].cohesion == 4 and ships(game)["blue_0"].cohesion == 4


@pytest.mark.parametrize("spares, expected", [(False, (855 - 225) / 1296), (True, 855 / 1296)])
def test_the_odds_of_firing_at_a_dodger_count_the_attackers_loss(spares, expected):
    """combat.edges, the scripted captains' and the observer's outlook: red's 3d6 against a dodge of 1d6
    that cannot answer (out of its range) win 855/1296, tie 216/1296 and lose 225/1296; by default a
    loss costs red a point, under ``dodge_win_spares_attacker`` nothing."""
    game = duel(blue_at=(8, 5), house_rules={"dodge_win_spares_attacker": spares},
                ship_classes={"shortgun": {**GUNBOAT["gunboat"], "range": 2}}, blue_cls="shortgun")
    red, blue = ships(game)["red_0"], ships(game)["blue_0"]
    mine, theirs = combat.edges(combat.fire_rules(game.rules), combat.gunnery(red), Arc.SIDE,
                                combat.gunnery(blue), Arc.SIDE, 3)
    assert mine == pytest.approx(expected) and theirs == 0.0
    assert exchange_value(game, red, Unit.SHIP, blue, combat.DODGE) == pytest.approx(expected)


@pytest.mark.parametrize("red_facing, blue_at, dice_thrown", [
    ("N", (7, 5), 3),     # blue abeam: no penalty
    ("E", (7, 5), 2),     # blue ahead: 'recibirá un penalizador 1d6 al tiro de ataque'
    ("W", (7, 5), 2),     # blue astern
    ("N", (5, 2), 2),     # ahead, straight up the bow
    ("N", (6, 3), 2),     # less than 45 degrees off the bow
    ("N", (7, 3), 3),     # exactly 45 degrees off the bow counts as abeam (ASSUMPTION)
])
def test_a_target_ahead_or_astern_costs_a_die(red_facing, blue_at, dice_thrown):
    game = duel(red_facing=red_facing, blue_at=blue_at, dice=[1] * dice_thrown + [1, 1, 1, 9])
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    thrown = next(c for c in contests(events) if c[0].startswith("gunfire"))
    assert len(thrown[1]) == dice_thrown


def test_the_counter_attack_also_pays_the_penalty_when_the_attacker_is_ahead_or_astern():
    """'... y recibirá también un penalizador 1d6 si tiene al enemigo delante o detrás.'"""
    game = duel(blue_facing="W", dice=[2, 2, 2, 6, 6, 5])   # red is dead ahead of blue
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert contests(events) == [("gunfire / counter", (2, 2, 2), (6, 6), "lost")]
    assert damage_list(events) == [("red_0", 1, "blue_0", "counter-attack")]


def test_counter_attack_needs_the_attacker_in_range_else_the_defender_dodges():
    """ASSUMPTION (counter_needs_range): out of the defender's guns there is nothing to decide."""
    game = duel(blue_at=(8, 5), dice=[6, 1, 1, 2, 5, 2, 1, 1, 1],
                ship_classes={"shortgun": {"cost": 1, "steering": 2, "combat": 3, "range": 2, "boarding": 2,
                                           "size": 1, "cohesion": 4, "movement": 0}}, blue_cls="shortgun")
    events = act(game, target="ship@enemy0")
    assert of(events, Reacted) == [Reacted("blue_0", "dodge", "red_0")]
    assert contests(events)[0] == ("gunfire / dodge", (6, 1, 1), (2,), "won")
    assert ships(game)["blue_0"].cohesion == 3
    assert game.state.round == 2                         # blue's guns cannot reach red either


def test_penalty_added_to_the_opponent_as_a_house_rule():
    game = duel(red_facing="E", dice=[1, 1, 1, 6, 6, 6, 6, 2],
                house_rules={"penalty_mode": "add_to_opponent"})
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    # red (blue ahead) throws its 3 dice; blue's counter gets red's penalty die: 4 dice.
    assert contests(events) == [("gunfire / counter", (1, 1, 1), (6, 6, 6, 6), "lost")]


def test_holding_fire_is_always_allowed():
    game = duel()
    events = act(game, target="hold")
    assert of(events, AttackDeclared) == [] and game.current_agent == "blue_0"
