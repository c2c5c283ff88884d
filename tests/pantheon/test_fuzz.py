"""Many random-legal games: no exception, the mask is exactly the engine's legality, invariants hold."""

import numpy as np
import pytest

from naval_env.core.ruleset import get_ruleset
from naval_env.rulesets.pantheon.engine import check_invariants
from naval_env.rulesets.pantheon.state import Status

RULESET = get_ruleset("pantheon")
CONFIG = RULESET.load_config()


@pytest.mark.parametrize("scenario", ["duel", "mixed_duel", "squadron", "fleet"])
def test_random_legal_games_keep_invariants(scenario):
    rng = np.random.default_rng(0)
    ended = 0
    for seed in range(60):
        game = RULESET.new_game(CONFIG, scenario, seed=seed)
        check_invariants(game)
        gone: set[str] = set()
        while not game.is_over:
            agent = game.current_agent
            assert agent not in gone, f"{agent} acts after leaving the fight"
            for other in game.agents:
                if other != agent:
                    assert np.array_equal(game.legal_mask(other), game.action_spec.noop_mask())
            game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
            check_invariants(game)
            gone |= {a for a in game.agents if not game.is_active(a)}
        ended += 1
        statuses = {game.state.ships[a].status for a in game.agents}
        assert statuses <= set(Status)
        assert game.winner is None or game.winner in game.sides
    assert ended == 60
