"""The root search: challengers, the plan a budget buys, the confirmation test, clairvoyance, the numpy actor."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from naval_agents.captains.base import Decision
from naval_agents.captains.registry import make_captain
from naval_agents.captains.search import SearchCaptain
from naval_agents.captains.search.candidates import allowed_values, allows
from naval_agents.captains.search.evaluators import RolloutEvaluator, hull_values
from naval_agents.captains.search.fast_policy import (
    NumpyActor,
    NumpyActorCaptain,
    UnsupportedGraph,
    fast_copy,
)
from naval_agents.captains.search.root import (
    RootSearch,
    RootSettings,
    distinct_challengers,
    top_joint_actions,
)
from naval_agents.captains.zoo.catalogue import load_zoo_captain, zoo_onnx_path
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from tests.captains.test_search_captain import FIRE_WINS, decide, mid_game

NO_OBSERVATION = np.zeros(0, dtype=np.float32)


# ------------------------------------------------------------------------------- candidates
def test_top_joint_actions_are_the_exact_most_likely_joint_moves() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        components = [rng.dirichlet(np.ones(n)) * (rng.random(n) > 0.2) for n in (3, 4, 2, 5)]
        components = [p / p.sum() if p.sum() else np.eye(len(p))[0] for p in components]
        every = sorted(itertools.product(*[np.flatnonzero(p) for p in components]),
                       key=lambda a: -np.prod([p[v] for p, v in zip(components, a)]))
        top = top_joint_actions(components, 6)
        want = [np.prod([p[v] for p, v in zip(components, a)]) for a in every[:6]]
        got = [np.prod([p[v] for p, v in zip(components, a)]) for a in top]
        assert np.allclose(got, want) and len(set(top)) == len(top)
        assert all(all(p[v] > 0 for p, v in zip(components, a)) for a in top)   # never a masked value


def test_challengers_are_distinct_legal_and_never_the_incumbent() -> None:
    allowed = [[0, 1, 2], [4, 5], [7]]
    rng = np.random.default_rng(0)
    incumbent = (0, 4, 7)
    chosen = distinct_challengers(incumbent, [(0, 4, 7), (2, 5, 7), (2, 5, 7)], allowed, 10, rng)
    assert chosen[0] == (2, 5, 7)                       # proposals first, in order, once
    assert incumbent not in chosen and len(set(chosen)) == len(chosen) == 5   # all 6 legal moves but one
    assert all(a[0] in allowed[0] and a[1] in allowed[1] and a[2] == 7 for a in chosen)


@pytest.mark.parametrize(("budget", "plan"), [(1, (0, 0)), (2, (0, 0)), (8, (0, 0)), (9, (0, 4)),
                                              (16, (2, 4)), (64, (8, 16)), (1024, (16, 256))])
def test_a_budget_buys_screening_and_confirmation(budget: int, plan: tuple[int, int]) -> None:
    expected = (max(plan[0], 1), plan[1]) if plan[1] else plan
    assert RootSettings().plan(budget) == expected


def test_bad_root_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="min_paired >= 2"):
        RootSettings(min_paired=1)
    with pytest.raises(ValueError, match=r"confidence in \[0.5, 1\)"):
        RootSettings(confidence=1.0)


# ------------------------------------------------------------------ never worse than the prior
@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_a_budget_too_small_to_test_plays_exactly_the_priors_move(ruleset_id: str) -> None:
    game = mid_game(ruleset_id)
    prior = make_captain("random", ruleset_id, game.action_spec)   # a prior whose every move differs by seed
    for seed in range(3):
        search = SearchCaptain(8, seed=seed, rollout=prior)
        prior.reset(seed)
        wanted = decide(prior, game)   # type: ignore[arg-type]
        prior.reset(seed)
        assert np.array_equal(decide(search, game), wanted)
        assert search.last_result is not None and not search.last_result.overrode_prior


def test_the_search_overrides_its_prior_where_the_rollouts_prove_it() -> None:
    """rammer boards here and loses its ship; Fire! sinks the enemy at once (tests/captains/test_search_captain.py)."""
    game = get_ruleset("pantheon").load_position(FIRE_WINS, seed=0)
    attack = game.action_spec.index("attack")
    labels = game.action_spec.components[attack].labels
    for seed in range(3):
        search = SearchCaptain(64, seed=seed, rollout="rammer", portfolio=["gunner"])
        assert labels[decide(search, game)[attack]] == "fire@enemy0"
        assert search.last_result is not None and search.last_result.overrode_prior


def test_an_unproven_challenger_does_not_replace_the_prior() -> None:
    """Leaf values that are pure noise, the same for every move: no challenger can clear the test."""
    game = mid_game("pantheon", seed=4)
    agent = game.current_agent
    noise = np.random.default_rng(1)
    sides = game.sides

    def noisy(_game):   # type: ignore[no-untyped-def]
        value = float(noise.normal(0, 0.5))
        return {side: value if side == sides[0] else -value for side in sides}

    allowed = allowed_values(game.action_spec, game.legal_mask(agent))
    incumbent = tuple(values[0] for values in allowed)
    overrides = 0
    for seed in range(40):
        search = RootSearch(RootSettings(), noisy, np.random.default_rng(seed))
        result = search.run(game, agent, incumbent, [], 64, None)
        overrides += result.overrode_prior
        assert result.overrode_prior == (tuple(result.action) != incumbent)
    assert overrides <= 6, f"{overrides} of 40 noise-only searches overrode the prior (a 5% test: ~2 expected)"


def test_the_same_seed_gives_the_same_search() -> None:
    game = mid_game("flotilla", seed=5)
    results = []
    for seed in (0, 0, 1):
        captain = SearchCaptain(32, seed=seed)
        decide(captain, game)
        assert captain.last_result is not None
        results.append((tuple(captain.last_result.action), captain.last_result.children))
    assert results[0] == results[1]
    assert results[2] != results[0]   # the seed is what it replays from: another seed searches otherwise


# ------------------------------------------------------------------------------- clairvoyance
@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_a_clairvoyant_search_scores_each_move_on_the_real_dice(ruleset_id: str) -> None:
    game = mid_game(ruleset_id)
    agent = game.current_agent
    before = (game.state_dict(), game.dice._rng.getstate())
    captain = SearchCaptain(6, seed=0, clairvoyant=True)
    action = decide(captain, game)
    assert (game.state_dict(), game.dice._rng.getstate()) == before      # the real game untouched
    assert allows(game.action_spec, game.legal_mask(agent), tuple(int(v) for v in action))
    result = captain.last_result
    assert result is not None and result.children
    rollout = captain._rollout_captain(game)
    evaluator = RolloutEvaluator(rollout, captain.rollout_depth, hull_values)
    for stats in result.children:    # each value is the real dice's: replaying it gives the same number
        rollout.reset(0)
        twin = game.clone()
        twin.apply(agent, np.array(stats.action, dtype=np.int64))
        assert evaluator(twin)[game.side_of(agent)] == pytest.approx(stats.mean)
    assert result.children[0].mean == max(s.mean for s in result.children)


def test_clairvoyance_needs_the_root_method() -> None:
    with pytest.raises(ValueError, match="clairvoyant search needs method='root'"):
        SearchCaptain(8, clairvoyant=True, method="tree")
    with pytest.raises(ValueError, match="search method 'mcts' is not one of root, tree"):
        SearchCaptain(8, method="mcts")   # type: ignore[arg-type]


# ------------------------------------------------------------------------------- numpy actor
@pytest.mark.parametrize("ruleset_id", ruleset_ids())
def test_the_numpy_actor_plays_the_onnx_captains_own_moves(ruleset_id: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    onnx_captain = load_zoo_captain(ruleset_id, config)
    fast = fast_copy(onnx_captain)
    assert isinstance(fast, NumpyActorCaptain)
    game = ruleset.new_game(config, None, seed=2)
    rng = np.random.default_rng(2)
    checked = 0
    while not game.is_over and checked < 60:
        agent = game.current_agent
        decision = Decision(agent, game.observe(agent), game.legal_mask(agent), game)
        assert np.array_equal(fast.act(decision), onnx_captain.act(decision))
        for ours, theirs in zip(fast.probabilities(decision), onnx_captain.probabilities(decision)):
            assert np.allclose(ours, theirs, atol=1e-5)
        game.apply(agent, game.action_spec.sample(decision.action_mask, rng))   # wander off the policy's path
        checked += 1
    assert checked >= 10


def test_a_graph_that_is_not_an_mlp_actor_is_refused_by_name(tmp_path) -> None:   # type: ignore[no-untyped-def]
    import onnx
    from onnx import TensorProto, helper

    node = helper.make_node("Relu", ["observation"], ["action"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("observation", TensorProto.FLOAT, [1, 3])],
                              [helper.make_tensor_value_info("action", TensorProto.FLOAT, [1, 3])])
    path = tmp_path / "odd.onnx"
    onnx.save(helper.make_model(graph), str(path))
    with pytest.raises(UnsupportedGraph, match="first node Relu"):
        NumpyActor.from_onnx(path)
    assert zoo_onnx_path("pantheon").is_file()


def test_the_confirmation_test_uses_students_t_for_a_handful_of_pairs() -> None:
    from naval_agents.captains.search.root import t_quantile

    assert t_quantile(0.95, 3) == pytest.approx(2.3534, abs=1e-4)     # 4 pairs: far above the normal's 1.645
    assert t_quantile(0.95, 1000) == pytest.approx(1.6464, abs=1e-3)
    search = RootSearch(RootSettings(), lambda game: {}, np.random.default_rng(0))
    # 4 pairs, mean 0.25, sd 0.289: the normal bound (0.25 - 1.645 * 0.144 = 0.013) would pass, Student's t
    # (0.25 - 2.353 * 0.144 = -0.090) does not
    assert not search._proven([0.0, 0.0, 0.5, 0.5])
    assert search._proven([0.3, 0.4, 0.5, 0.6])


def test_a_timed_search_pays_for_no_import_inside_its_first_decision() -> None:
    """The t quantile's scipy function is imported when the search is made, not inside the first decision's
    clock (scipy.stats took 1.2 s there, 20 times a 60 ms budget); scipy.stats is not needed at all."""
    import subprocess
    import sys

    script = ("import sys, numpy as np\n"
              "from naval_agents.captains.search.root import RootSearch, RootSettings\n"
              "before = 'scipy.special' in sys.modules\n"
              "RootSearch(RootSettings(), lambda game: {}, np.random.default_rng(0))\n"
              "print(before, 'scipy.special' in sys.modules, 'scipy.stats' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.split() == ["False", "True", "False"]


def test_a_pause_while_timing_does_not_cut_a_timed_search_short() -> None:
    """A search given 600 ms whose first timed simulation is caught in a 0.4 s pause (a loaded machine) still
    sizes its plan from the fastest timed simulation, searches and uses its time, instead of playing its prior
    after 0.4 s (a single timed simulation made it do so)."""
    import time

    game = mid_game("pantheon", seed=4)
    agent = game.current_agent
    calls = 0

    def paused_once(_game):   # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        if calls == 2:   # the first simulation timed
            time.sleep(0.4)
        else:
            time.sleep(0.002)
        return {side: 0.0 for side in game.sides}

    allowed = allowed_values(game.action_spec, game.legal_mask(agent))
    incumbent = tuple(values[0] for values in allowed)
    result = RootSearch(RootSettings(), paused_once, np.random.default_rng(0)).run(game, agent, incumbent, [], None, 600)
    assert result.simulations > 2 * RootSettings().min_paired + 1, result   # it searched: more than the prior's share
    assert 0.5 <= result.seconds <= 0.6 * 1.5 + 0.05, result.seconds
