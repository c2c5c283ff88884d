"""Many random-legal games: no exception, the mask is exactly the engine's legality, invariants hold."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.core.ruleset import get_ruleset
from naval_env.rulesets.flotilla.engine import check_invariants
from naval_env.rulesets.flotilla.state import Phase

RULESET = get_ruleset("flotilla")
CONFIG = RULESET.load_config()
GAMES = {"duel": 60, "squadron": 30, "armada": 15}


@pytest.mark.parametrize("scenario", list(GAMES))
def test_random_legal_games_keep_invariants(scenario):
    rng = np.random.default_rng(0)
    phases: set[Phase] = set()
    endings = set()
    for seed in range(GAMES[scenario]):
        game = RULESET.new_game(CONFIG, scenario, seed=seed)
        check_invariants(game)
        sunk: set[str] = set()
        while not game.is_over:
            agent = game.current_agent
            assert agent not in sunk, f"{agent} decides after sinking"
            phases.add(game.state.phase)
            for other in game.agents:
                if other != agent:
                    assert np.array_equal(game.legal_mask(other), game.action_spec.noop_mask())
            game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
            check_invariants(game)
            for a in game.agents:
                current, maximum = game.health(a)
                assert 0 <= current <= maximum
            sunk |= {a for a in game.agents if not game.is_active(a)}
        assert game.winner is None or game.winner in game.sides
        assert game.truncated == (game.state.end_reason == "round_limit")
        endings.add(game.state.end_reason)
    assert phases == set(Phase)
    assert "last side afloat" in endings
