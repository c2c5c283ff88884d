"""The seat meta-game (agents/evaluation/meta_game.py): the value of a zero-sum game of captain choices, by
hand-solved games, and its seed-bootstrap interval."""

from __future__ import annotations

import numpy as np
import pytest

from naval_agents.evaluation.meta_game import seat_balance, solve


def test_a_captain_best_on_both_seats_gives_its_mirror() -> None:
    # a beats b from either seat: the first side fields a, the second a, and the value is a's mirror
    payoff = np.array([[0.55, 0.90],
                       [0.20, 0.50]])
    value, first, second = solve(payoff)
    assert value == pytest.approx(0.55)
    assert first == pytest.approx([1, 0]) and second == pytest.approx([1, 0])


def test_a_seat_skewed_captain_is_replaced_on_its_bad_seat() -> None:
    # gunner is the better second side, rammer the better first side: the mirror of either misreads the seat
    payoff = np.array([[0.05, 0.30],    # gunner first
                       [0.40, 0.45]])   # rammer first
    value, first, second = solve(payoff)
    assert value == pytest.approx(0.40)   # rammer first against gunner second
    assert first == pytest.approx([0, 1]) and second == pytest.approx([1, 0])


def test_matching_pennies_is_solved_in_mixed_strategies() -> None:
    payoff = np.array([[1.0, 0.0],
                       [0.0, 1.0]])
    value, first, second = solve(payoff)
    assert value == pytest.approx(0.5)
    assert first == pytest.approx([0.5, 0.5]) and second == pytest.approx([0.5, 0.5])


def test_a_two_by_two_game_without_a_saddle_point_by_hand() -> None:
    # no pure equilibrium: the first side mixes so that either reply scores the same, x solves x*a + (1-x)*c = x*b + (1-x)*d
    payoff = np.array([[0.8, 0.3],
                       [0.4, 0.6]])
    value, first, _ = solve(payoff)
    x = (0.6 - 0.4) / (0.8 - 0.3 - 0.4 + 0.6)
    assert first[0] == pytest.approx(x)
    assert value == pytest.approx(x * 0.8 + (1 - x) * 0.4)


def test_seat_balance_reads_seeds_and_bootstraps_a_deterministic_interval() -> None:
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 2, size=(40, 2, 2)).astype(float)
    scores[:, 0, :] = np.maximum(scores[:, 0, :], rng.integers(0, 2, size=(40, 2)))   # captain 0 the better first side
    balance = seat_balance(scores.tolist(), ["a", "b"])
    again = seat_balance(scores.tolist(), ["a", "b"])
    assert balance == again
    assert balance.low <= balance.score <= balance.high and balance.seeds == 40
    assert balance.score == pytest.approx(solve(scores.mean(axis=0))[0])
    assert balance.high - balance.low > 0.05   # 40 seeds of 0/1 scores leave a real interval
    assert "a" in balance.first_mix


def test_seat_balance_refuses_a_table_of_the_wrong_shape() -> None:
    with pytest.raises(ValueError, match="seeds x 2 x 2"):
        seat_balance([[[1.0, 0.0, 0.5]]], ["a", "b"])
    with pytest.raises(ValueError, match="at least one row"):
        solve(np.zeros((0, 2)))
