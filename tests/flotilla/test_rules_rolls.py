"""The Steering Roll and every opposed roll: Nd6, keep the highest (document: "Tiro de Dirección",
"Iniciativa", and the attack exchange)."""

from __future__ import annotations

import pytest

from naval_env.core.dice import ScriptedDice
from naval_env.rulesets.flotilla.events import Contest
from naval_env.rulesets.flotilla.rolls import (
    compare_cascade,
    compare_highest,
    contest_odds,
    exchange,
    highest_odds,
    pool_sizes,
    steering_contest,
    throw,
)


def test_a_pool_is_one_d6_per_level_thrown_highest_first():
    """'El capitán tirará 1d6 ... por cada nivel de talento': n dice, read highest first."""
    dice = ScriptedDice([2, 6, 3])
    assert throw(dice, 3, "steering") == (6, 3, 2)
    assert dice.history[0].sides == 6 and dice.history[0].values == (2, 6, 3)
    assert throw(dice, 0, "steering") == ()


@pytest.mark.parametrize("a, b, result", [
    ((6, 1), (5, 5), "won"),      # 'Se cogerá el número más alto de ambos tiros'
    ((4, 4), (5, 1), "lost"),
    ((5, 3), (5, 2), "won"),      # 'En caso de empate se escoge el segundo más alto'
    ((5, 3, 1), (5, 3, 2), "lost"),  # '... y así progresivamente'
    ((5, 3), (5,), "won"),        # a missing die counts as 0 (ASSUMPTION)
    ((5, 3), (5, 3), "tie"),
    ((), (), "tie"),
])
def test_steering_contests_compare_highest_then_next_highest(a, b, result):
    assert compare_cascade(a, b) == result


@pytest.mark.parametrize("a, b, result", [
    ((6, 1), (5, 5), "won"),
    ((5, 3), (5, 1), "tie"),      # exchanges read only the highest die: 'En caso de un empate no habrá pérdida'
    ((2,), (3, 1), "lost"),
    ((), (1,), "lost"),           # an empty pool loses to any die
])
def test_exchanges_compare_the_highest_die_only(a, b, result):
    assert compare_highest(a, b) == result


def test_a_full_tie_is_thrown_again_until_someone_wins():
    """'En caso de empate se repetirá el tiro hasta que haya ganador.'"""
    events: list = []
    dice = ScriptedDice([4, 2, 4, 2, 3, 3, 5, 1, 6, 1])
    won, fa, fb = steering_contest(dice, "initiative", "red_0", "blue_0", 2, 2, events)
    assert [(e.a_faces, e.b_faces, e.result) for e in events] == [
        ((4, 2), (4, 2), "tie"), ((3, 3), (5, 1), "lost")]
    assert not won and fa == (3, 3) and fb == (5, 1)
    assert dice.remaining == 2


def test_two_empty_pools_rethrow_with_one_die_each():
    """A re-throw needs dice: with none on either side each throws one (ASSUMPTION)."""
    events: list = []
    won, _, _ = steering_contest(ScriptedDice([2, 5]), "initiative", "a", "b", 0, 0, events)
    assert [(e.a_dice, e.b_dice, e.a_faces, e.b_faces) for e in events] == [(0, 0, (), ()), (1, 1, (2,), (5,))]
    assert not won


def test_exchange_events_record_both_throws():
    events: list = []
    result, fa, fb = exchange(ScriptedDice([3, 6, 2, 6]), "gunfire / dodge", "red_0", "blue_0", 2, 2, events)
    assert result == "tie" and fa == (6, 3) and fb == (6, 2)
    assert events == [Contest("gunfire / dodge", "red_0", "blue_0", 2, 2, (6, 3), (6, 2), "tie")]


@pytest.mark.parametrize("mode, expected", [
    ("remove_die", (1, 3)),        # a penalty die is one die fewer for the roller (ASSUMPTION, default)
    ("add_to_opponent", (3, 5)),   # ... or one die more for the other side
])
def test_penalty_modes(mode, expected):
    """What 'un penalizador 1d6' does to a pool is a house rule (penalty_mode)."""
    assert pool_sizes(3, 2, 3, 0, mode) == expected


def test_remove_die_never_goes_below_zero_dice():
    assert pool_sizes(1, 3, 2, 0, "remove_die") == (0, 2)


def test_odds_tables():
    win, tie = highest_odds(1, 1)
    assert win == pytest.approx(15 / 36) and tie == pytest.approx(6 / 36)
    assert highest_odds(0, 2) == (0.0, 0.0)
    assert highest_odds(2, 0) == (1.0, 0.0)
    assert contest_odds(0, 0) == 0.5
    assert contest_odds(3, 1) > 0.7 and contest_odds(1, 3) < 0.3
