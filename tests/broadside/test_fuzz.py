"""Many random-legal games: no exception, the mask is exactly the engine's legality, invariants hold."""

import numpy as np
import pytest

from naval_env.core.ruleset import get_ruleset
from naval_env.rulesets.broadside.engine import check_invariants

RULESET = get_ruleset("broadside")
CONFIG = RULESET.load_config()


@pytest.mark.parametrize("scenario, games", [("galley_vs_sailing_ship", 60), ("ironclad_vs_galleys", 40),
                                             ("fleet_with_iceberg", 40)])
def test_random_legal_games_keep_invariants(scenario, games):
    rng = np.random.default_rng(0)
    for seed in range(games):
        game = RULESET.new_game(CONFIG, scenario, seed=seed)
        check_invariants(game)
        gone: set[str] = set()
        while not game.is_over:
            agent = game.current_agent
            assert agent not in gone, f"{agent} acts after leaving the battle"
            for other in game.agents:
                if other != agent:
                    assert np.array_equal(game.legal_mask(other), game.action_spec.noop_mask())
            game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))
            check_invariants(game)
            gone |= {a for a in game.agents if not game.is_active(a)}
        assert game.winner is None or game.winner in game.sides
        assert game.truncated == (game.state.end_reason == "round_limit")


def test_scripted_captains_games_keep_invariants():
    """Scripted play reaches rams, boarding and melees far more often than random play."""
    from naval_agents.captains.registry import make_captain
    from naval_env.envs.match import Match

    match = Match("broadside", scenario="fleet_with_iceberg", illegal_action="raise")
    captains = [make_captain(name, "broadside", match.action_spec) for name in ("rammer", "gunner")]
    for seed in range(6):
        match.reset(seed)
        game = match.game
        while not game.is_over:
            agent = game.current_agent
            captain = captains[game.sides.index(game.side_of(agent)) ^ (seed % 2)]
            game.apply(agent, captain.act(match.decision(agent, captain)))
            check_invariants(game)
