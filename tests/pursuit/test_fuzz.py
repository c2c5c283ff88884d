"""Many random-legal games: no exception, invariants hold, dead ships act no more, and the mask is exactly the
engine's legality (every masked-out value is refused with the state untouched, every allowed value applies)."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.core.errors import IllegalActionError
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


def test_every_masked_out_value_is_refused_and_every_allowed_value_accepted():
    rng = np.random.default_rng(1)
    spec = RULESET.action_spec(CONFIG)
    checked = 0
    for seed in range(12):
        game = RULESET.new_game(CONFIG, "uneven", seed=seed)
        while not game.is_over and checked < 3000:
            agent = game.current_agent
            mask = game.legal_mask(agent)
            base = spec.sample(mask, rng)
            for component, (offset, size) in enumerate(zip(spec.offsets, spec.nvec)):
                for value in range(size):
                    action = base.copy()
                    action[component] = value
                    if mask[offset + value]:
                        trial = game.clone()
                        trial.apply(agent, action)      # must not raise
                        check_invariants(trial)
                    else:
                        before = game.state_dict()
                        rolls = len(game.dice.history)
                        with pytest.raises(IllegalActionError):
                            game.apply(agent, action)
                        assert game.state_dict() == before and len(game.dice.history) == rolls
                    checked += 1
            game.apply(agent, base)
    assert checked >= 3000
