"""The league's SPRT: its numbers checked against hand-derived ones, and its stopping rule."""

import math

import pytest

from naval_agents.league.sprt import (
    SprtError,
    SprtParams,
    SprtState,
    constrained_mle,
    expected_score,
    llr,
    parse_sprt,
)


def test_logistic_elo_and_wald_bounds() -> None:
    assert expected_score(0) == 0.5
    assert expected_score(400) == pytest.approx(1 / 1.1)            # 10 ** (400 / 400) = 10 to 1
    assert expected_score(-400) == pytest.approx(1 - 1 / 1.1)
    params = SprtParams(0, 5, 0.05, 0.05)
    assert params.upper == pytest.approx(math.log(19)) == pytest.approx(2.944438979)   # (1 - 0.05) / 0.05
    assert params.lower == pytest.approx(-2.944438979)
    assert SprtParams(0, 5, 0.05, 0.1).lower == pytest.approx(math.log(0.1 / 0.95))


def test_two_outcome_llr_is_the_bernoulli_one() -> None:
    # Only LL (A scores 0) and WW (A scores 2) seen: the MLE with mean s puts s on WW and 1 - s on LL, so
    # LLR = n_WW log(s1 / s0) + n_LL log((1 - s1) / (1 - s0)). elo1 = 100: s1 = 1 / (1 + 10 ** -0.25) = 0.640065.
    s1 = 1 / (1 + 10 ** -0.25)
    assert s1 == pytest.approx(0.640065, abs=1e-6)
    expected = 7 * math.log(s1 / 0.5) + 3 * math.log((1 - s1) / 0.5)
    assert expected == pytest.approx(0.742678, abs=1e-5)                 # 7 * 0.246962 - 3 * 0.328685
    assert llr([3, 0, 0, 0, 7], 0, 100, regularize=False) == pytest.approx(expected, rel=1e-9)


def test_three_outcome_mle_solves_its_quadratic() -> None:
    # Frequencies 1/4, 1/2, 1/4 at scores 0, 1/2, 1 (mean 1/2). For mean s the Lagrange condition
    # sum p d / (1 + t d) = 0 with d = a - s is a quadratic in t; solve it by hand and compare.
    freqs, scores, s = [0.25, 0.0, 0.5, 0.0, 0.25], [0, 0.25, 0.5, 0.75, 1], 0.6
    d = [0 - s, 0.5 - s, 1 - s]
    p = [0.25, 0.5, 0.25]
    # sum_i p_i d_i prod_{j != i} (1 + t d_j) = 0  ->  A t^2 + B t + C = 0
    a2 = sum(p[i] * d[i] * math.prod(d[j] for j in range(3) if j != i) for i in range(3))
    a1 = sum(p[i] * d[i] * sum(d[j] for j in range(3) if j != i) for i in range(3))
    a0 = sum(p[i] * d[i] for i in range(3))
    roots = [(-a1 + sign * math.sqrt(a1 * a1 - 4 * a2 * a0)) / (2 * a2) for sign in (1, -1)]
    t = next(r for r in roots if all(1 + r * x > 0 for x in d))      # the root keeping every probability positive
    by_hand = [p[i] / (1 + t * d[i]) for i in range(3)]
    mle = constrained_mle(freqs, scores, s)
    assert [mle[0], mle[2], mle[4]] == pytest.approx(by_hand, rel=1e-9)
    assert sum(mle) == pytest.approx(1) and sum(m * a for m, a in zip(mle, scores)) == pytest.approx(s)
    # Under H0 (elo 0, s = 1/2 = the observed mean) the MLE is the observed distribution itself.
    assert constrained_mle(freqs, scores, 0.5) == pytest.approx(freqs)
    s1 = expected_score(60)
    d1 = [x - s1 for x in (0, 0.5, 1)]
    a2 = sum(p[i] * d1[i] * math.prod(d1[j] for j in range(3) if j != i) for i in range(3))
    a1 = sum(p[i] * d1[i] * sum(d1[j] for j in range(3) if j != i) for i in range(3))
    a0 = sum(p[i] * d1[i] for i in range(3))
    t1 = next(r for r in ((-a1 + g * math.sqrt(a1 * a1 - 4 * a2 * a0)) / (2 * a2) for g in (1, -1))
              if all(1 + r * x > 0 for x in d1))
    # LLR = N sum p log(p1 / p0) = N sum p log(1 / (1 + t1 d1)), N = 4 pairs
    expected = 4 * sum(p[i] * math.log(1 / (1 + t1 * d1[i])) for i in range(3))
    assert llr([1, 0, 2, 0, 1], 0, 60, regularize=False) == pytest.approx(expected, rel=1e-9)
    assert expected < 0   # an even score is evidence for elo 0 over elo 60


def test_llr_agrees_with_the_normal_approximation_near_the_hypotheses() -> None:
    # With the observed mean near s0 and s1, LLR ~ N (s1 - s0) (2 m - s0 - s1) / (2 var), m and var the
    # per-pair score's mean and variance (fishtest's approximation, exact to second order in s - m).
    counts = [20, 80, 200, 82, 22]
    n = sum(counts)
    scores = [0, 0.25, 0.5, 0.75, 1]
    mean = sum(c * a for c, a in zip(counts, scores)) / n
    var = sum(c * (a - mean) ** 2 for c, a in zip(counts, scores)) / n
    s0, s1 = expected_score(0), expected_score(10)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    # by hand: n = 404, mean = 203.5 / 404 = 0.503713, var = 123.125 / 404 - mean^2 = 0.051038, s1 = 0.514387:
    # 404 * 0.014387 * (1.007426 - 1.014387) / 0.102076 = -0.3964
    assert approx == pytest.approx(-0.3964, abs=0.0005)
    assert llr(counts, 0, 10) == pytest.approx(approx, rel=0.005)


def test_zero_counts_are_regularized_as_fishtest_does() -> None:
    # Only WW seen: with 0.001 in each empty cell the MLE exists, and each WW pair adds about log(s1 / s0).
    step = math.log(expected_score(5) / 0.5)
    assert step == pytest.approx(0.014288, abs=1e-6)   # s1 = 0.507195
    assert llr([0, 0, 0, 0, 100], 0, 5) == pytest.approx(100 * step, rel=0.01)
    with pytest.raises(ValueError, match="strictly between"):
        llr([0, 0, 0, 0, 100], 0, 5, regularize=False)


def test_state_stops_at_the_first_crossing_and_freezes() -> None:
    params = SprtParams(0, 5)
    state = SprtState(params)
    history = []
    while state.add_pair(2.0) is None:
        history.append(state.llr)
    assert state.decision == "H1" and state.llr >= params.upper > history[-1]
    # n WW pairs cross log(19) at n = ceil(2.944439 / 0.014288) = 207 (within one for the regularization)
    assert math.ceil(params.upper / math.log(expected_score(5) / 0.5)) == 207
    assert abs(state.pairs - 207) <= 1
    frozen = (state.pairs, state.llr)
    assert state.add_pair(0.0) == "H1" and (state.pairs, state.llr) == frozen   # later pairs change nothing
    even = SprtState(params)
    while even.add_pair(1.0) is None:   # a captain against its twin: every pair split
        pass
    assert even.decision == "H0" and even.llr <= params.lower
    with pytest.raises(ValueError, match="0, 0.5, 1, 1.5 or 2"):
        SprtState(params).add_pair(0.3)


@pytest.mark.parametrize(("text", "message"), [
    ("elo0=5,elo1=0", "elo1 > elo0"),
    ("alpha=0.7", "alpha must be between 0 and 0.5"),
    ("beta=0", "beta must be between 0 and 0.5"),
    ("gamma=1", "allowed: KEY=VALUE with KEY one of ['elo0', 'elo1', 'alpha', 'beta']"),
    ("elo1=five", "'five' is not a number"),
])
def test_bad_sprt_settings_name_what_is_allowed(text: str, message: str) -> None:
    with pytest.raises(SprtError, match=message.replace("(", r"\(").replace("[", r"\[")):
        parse_sprt(text)


def test_sprt_settings_keep_defaults_for_keys_left_out() -> None:
    assert parse_sprt("elo1=20") == SprtParams(0.0, 20.0, 0.05, 0.05)
    assert parse_sprt("elo0=-5, elo1=5 ,alpha=0.1,beta=0.2") == SprtParams(-5.0, 5.0, 0.1, 0.2)
    assert parse_sprt("") == SprtParams()
