"""Many random-legal games: no exception, the mask is exactly the engine's legality, invariants hold."""

import numpy as np
import pytest

from naval_env.core.errors import IllegalActionError
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
    from agents.registry import make_captain
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


def test_every_masked_out_value_is_refused_and_every_allowed_value_accepted():
    rng = np.random.default_rng(1)
    spec = RULESET.action_spec(CONFIG)
    checked = 0
    for seed in range(40):
        game = RULESET.new_game(CONFIG, "fleet_with_iceberg" if seed % 2 else "galley_vs_sailing_ship", seed=seed)
        while not game.is_over and checked < 3000:
            agent = game.current_agent
            mask = game.legal_mask(agent)
            base = spec.sample(mask, rng)
            for component, (offset, size) in enumerate(zip(spec.offsets, spec.nvec)):
                for value in range(size):
                    action = base.copy()
                    action[component] = value
                    if mask[offset + value]:
                        game.clone().apply(agent, action)          # must not raise
                    else:
                        before = game.state_dict()
                        with pytest.raises(IllegalActionError):
                            game.apply(agent, action)
                        assert game.state_dict() == before
                    checked += 1
            game.apply(agent, base)
    assert checked >= 3000
