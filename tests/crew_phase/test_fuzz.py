"""Many random-legal games: no exception, invariants hold, dead ships act no more, mask == engine legality."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.core.ruleset import get_ruleset
from naval_env.rulesets.crew_phase.engine import check_invariants

RULESET = get_ruleset("crew_phase")
CONFIG = RULESET.load_config()


@pytest.mark.parametrize("scenario", ["duel", "nimble_vs_heavy", "two_vs_one"])
def test_random_legal_games_keep_invariants(scenario):
    rng = np.random.default_rng(0)
    for seed in range(40):
        game = RULESET.new_game(CONFIG, scenario, seed=seed)
        check_invariants(game)
        gone: set[str] = set()
        while not game.is_over:
            agent = game.current_agent
            assert agent not in gone, f"{agent} acts after sinking"
            for other in game.agents:
                if other != agent:
                    assert np.array_equal(game.legal_mask(other), game.action_spec.noop_mask())
            mask = game.legal_mask(agent)
            assert mask.sum() > len(game.action_spec.components), "a decision with nothing to decide"
            game.apply(agent, game.action_spec.sample(mask, rng))
            check_invariants(game)
            gone |= {a for a in game.agents if not game.is_active(a)}
        assert game.winner is None or game.winner in game.sides
        assert game.truncated == (game.state.end_reason == "round_limit")
