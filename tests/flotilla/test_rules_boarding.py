"""Boarding (document: "Cuando dos barcos estén adyacentes uno a otro puede llegar a ocurrir un abordaje
...", breaking free, and the boarding fights).

Red galley (steering 2d6, boarding 3d6) on (5, 5)-(5, 6) facing N, blue brig (steering 2d6, boarding 2d6)
alongside on (6, 5)-(6, 6). Initiative [6, 1] red, [1, 1] blue: red first.
"""

from __future__ import annotations

from naval_env.rulesets.flotilla.events import (
    BoardingAttempt,
    BreakFree,
    CharacterFate,
    GrappleEnded,
    Held,
    Moved,
    Sunk,
)
from naval_env.rulesets.flotilla.state import Phase
from naval_env.testing import allowed, allowed_labels, damage_list

from .helpers import act, contests, make_game, of, ship, ships

RED_FIRST = [6, 1, 1, 1]


def alongside(dice=(), blue_at=(6, 5), red=None, blue=None, third=None, **kw):
    reds = [red or ship("galley", (5, 5), "N")] + ([third] if third else [])
    game = make_game(reds, [blue or ship("brig", blue_at, "N")], dice=[*RED_FIRST, *dice], **kw)
    assert game.current_agent == "red_0"
    return game


def grappled(dice=(), **kw):
    """Red boards blue with [5, 2] against [4, 4]; blue is held; red's attack step is next."""
    game = alongside(dice=[5, 2, 4, 4, *dice], **kw)
    act(game, maneuver="board@enemy0")
    return game


def test_boarding_needs_the_ships_adjacent():
    """'Cuando dos barcos estén adyacentes uno a otro puede llegar a ocurrir un abordaje.'"""
    assert allowed(alongside(), "maneuver", "board@enemy0")
    assert allowed(alongside(blue_at=(6, 3)), "maneuver", "board@enemy0")      # diagonal contact with the bow
    assert not allowed(alongside(blue_at=(7, 5)), "maneuver", "board@enemy0")


def test_boarding_is_a_steering_roll_against_the_enemy_captain_and_grapples_both_ships():
    """'el capitán deberá hacer un tiro de dirección contra el capitán enemigo. Cuando esto ocurra ambos
    barcos estarán agarrados uno a otro'"""
    game = alongside(dice=[5, 2, 4, 4])
    events = act(game, maneuver="board@enemy0")
    assert contests(events) == [("boarding", (5, 2), (4, 4), "won")]
    assert of(events, BoardingAttempt) == [BoardingAttempt("red_0", "blue_0", True)]
    assert ships(game)["red_0"].grappled_with == "blue_0" and ships(game)["blue_0"].grappled_with == "red_0"


def test_a_failed_boarding_changes_nothing_but_costs_the_move():
    game = alongside(dice=[3, 1, 4, 4])
    events = act(game, maneuver="board@enemy0")
    assert of(events, BoardingAttempt) == [BoardingAttempt("red_0", "blue_0", False)]
    assert ships(game)["red_0"].grappled_with is None and ships(game)["red_0"].squares == ((5, 5), (5, 6))
    assert game.current_agent == "blue_0" and game.state.phase is Phase.MOVE


def test_grappled_ships_stop_moving_and_cannot_attack_each_other():
    """'haciendo así que dejen de moverse e impidiendo que puedan atacarse entre ellos.'"""
    game = alongside(dice=[5, 2, 4, 4])
    events = act(game, maneuver="board@enemy0")
    assert of(events, Held) == [Held("blue_0", "grappled with red_0")]      # no movement decision for blue
    assert game.state.phase is Phase.ATTACK and game.current_agent == "red_0"
    assert ships(game)["blue_0"].squares == ((6, 5), (6, 6))
    assert allowed_labels(game, "target") == ["hold"]                       # in range, but grappled
    assert allowed_labels(game, "boarding") == ["hold", "fight"]


def test_grappled_ships_may_still_fire_at_other_ships():
    game = make_game([ship("galley", (5, 5), "N")], [ship("brig", (6, 5), "N"), ship("brig", (3, 9), "N")],
                     dice=[6, 1, 2, 1, 1, 1, 5, 2, 4, 4])
    act(game, maneuver="board@enemy0")                                    # red [5, 2] against blue_0 [4, 4]
    while game.state.phase is Phase.MOVE:
        act(game, maneuver="ahead")                                       # blue_1: (3, 9) -> (3, 6)
    assert game.current_agent == "red_0"
    assert allowed_labels(game, "target") == ["hold", "ship@enemy1"]


def test_boarding_fight_uses_the_boarding_roll_and_the_loser_loses_one_cohesion():
    """'ambos barcos emplearán su tiro de ataque de abordaje ... el ganador de cada enfrentamiento reducirá
    la cohesión del perdedor por 1, ocasionando así los mismos efectos que un ataque.'"""
    game = grappled(dice=[6, 2, 1, 5, 3, 4])
    events = act(game, boarding="fight")
    assert contests(events) == [("boarding fight", (6, 2, 1), (5, 3), "won")]
    assert damage_list(events) == [("blue_0", 1, "red_0", "boarding fight")]
    assert game.dice.history[-1].sides == 10                                # the same hit location as an attack


def test_a_hero_adds_a_die_to_the_boarding_roll():
    """'Este tiro aumentará por 1d6 si el barco tiene presente a un héroe'"""
    game = grappled(blue=ship("brig", (6, 5), "N", hero=True), dice=[4, 2, 1, 5, 3, 1, 4])
    events = act(game, boarding="fight")
    assert contests(events) == [("boarding fight", (4, 2, 1), (5, 3, 1), "lost")]
    assert damage_list(events) == [("red_0", 1, "blue_0", "boarding fight")]


def test_the_grapple_is_made_this_round_so_breaking_free_waits_for_the_next():
    """'Al inicio de cada ronda nueva el capitán de un barco agarrado puede intentar un tiro para separarse.'"""
    game = grappled(dice=[2, 1, 1, 1])
    act(game, boarding="hold")
    assert game.current_agent == "blue_0" and allowed_labels(game, "boarding") == ["hold", "fight"]
    act(game, boarding="hold")
    assert game.state.round == 2 and game.current_agent == "red_0"
    assert allowed_labels(game, "maneuver") == ["ahead", "break_free"]      # 'ahead' stays grappled


def test_breaking_free_penalty_grows_with_each_failure_and_success_moves_normally():
    """'Este tiro recibirá una penalización de 1d6 por cada vez que fracase (incluyendo la primera) y en
    caso de éxito podrá liberarse y moverse con normalidad.'"""
    game = grappled(dice=[2, 1, 1, 1, 3, 1, 4, 2, 2, 1, 1, 1, 6, 5, 5])
    act(game, boarding="hold")
    act(game, boarding="hold")                                            # round 2
    events = act(game, maneuver="break_free")                             # red [3, 1] against blue [4, 2]
    assert of(events, BreakFree) == [BreakFree("red_0", "blue_0", 0, False)]
    assert game.current_agent == "blue_0" and allowed_labels(game, "maneuver") == ["ahead", "break_free"]
    events = act(game, maneuver="ahead")                                  # blue stays put
    assert of(events, Held) == [Held("blue_0", "grappled with red_0")]
    act(game, boarding="hold")
    act(game, boarding="hold")                                            # round 3: red [2, 1], blue [1, 1]
    events = act(game, maneuver="break_free")                             # one failure: 2 - 1 = 1 die
    assert contests(events) == [("break free", (6,), (5, 5), "won")]
    assert of(events, BreakFree) == [BreakFree("red_0", "blue_0", 1, True)]
    assert of(events, GrappleEnded) == [GrappleEnded("red_0", "blue_0", "broke free")]
    assert game.current_agent == "red_0" and game.state.phase is Phase.MOVE   # free: it sails this round
    assert "break_free" not in allowed_labels(game, "maneuver")
    events = act(game, maneuver="ahead")
    assert of(events, Moved)[0] == Moved("red_0", "ahead", ((5, 5), (5, 4), (5, 3), (5, 2)), 0, 0)


def test_a_ship_sunk_in_a_boarding_fight_has_its_characters_captured_on_a_fifty_percent_roll():
    """'Si hay personajes importantes a bordo tienen un 50% de probabilidad de morir (o ser capturados si
    fue durante un abordaje).' Fate: a d6, 1-3 (ASSUMPTION)."""
    game = grappled(blue=ship("brig", (6, 5), "N", hero=True), dice=[6, 1, 1, 5, 1, 1, 2, 5],
                    situations={"character_fate": True})
    ships(game)["blue_0"].cohesion = 1
    events = act(game, boarding="fight")
    assert of(events, Sunk) == [Sunk("blue_0", "boarding fight")]
    assert of(events, CharacterFate) == [CharacterFate("blue_0", "captain", 2, "captured"),
                                         CharacterFate("blue_0", "hero", 5, "survived")]
    assert game.is_over and game.winner == "red"


def test_a_ship_sunk_in_its_own_boarding_fight_fires_no_more():
    game = make_game([ship("galley", (5, 5), "N"), ship("cutter", (0, 14), "N")],
                     [ship("brig", (6, 5), "N"), ship("brig", (3, 9), "N")],
                     dice=[6, 1, 3, 1, 2, 1, 1, 1, 5, 2, 4, 4, 1, 1, 1, 6, 2])
    act(game, maneuver="board@enemy0")
    while game.state.phase is Phase.MOVE:
        act(game, maneuver="ahead")
    assert game.current_agent == "red_0" and allowed_labels(game, "target") == ["hold", "ship@enemy1"]
    ships(game)["red_0"].cohesion = 1
    events = act(game, boarding="fight", target="ship@enemy1")
    assert of(events, Sunk) == [Sunk("red_0", "boarding fight")]
    assert [e for e in events if type(e).__name__ == "AttackDeclared"] == []
    assert game.state.attack_queue == [] and not game.is_over
