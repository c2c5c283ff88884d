"""The seat meta-game (agents/evaluation/meta_game.py): the value of a zero-sum game of captain choices, by
hand-solved games, and its seed-bootstrap interval."""

from __future__ import annotations

import numpy as np
import pytest

from naval_agents.evaluation.meta_game import seat_balance, solve


@pytest.mark.parametrize(("payoff", "value", "first", "second"), [
    # a beats b from either seat: the first side fields a, the second a, and the value is a's mirror
    pytest.param([[0.55, 0.90],
                  [0.20, 0.50]], 0.55, [1, 0], [1, 0], id="a captain best on both seats gives its mirror"),
    # gunner (row and column 0) is the better second side, rammer the better first side: the mirror of either
    # misreads the seat; the value is rammer first against gunner second
    pytest.param([[0.05, 0.30],
                  [0.40, 0.45]], 0.40, [0, 1], [1, 0], id="a seat-skewed captain is replaced on its bad seat"),
    pytest.param([[1.0, 0.0],
                  [0.0, 1.0]], 0.5, [0.5, 0.5], [0.5, 0.5], id="matching pennies is solved in mixed strategies"),
])
def test_hand_solved_games(payoff: list[list[float]], value: float, first: list[float], second: list[float]) -> None:
    got, rows, columns = solve(np.array(payoff))
    assert got == pytest.approx(value)
    assert rows == pytest.approx(first) and columns == pytest.approx(second)


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
