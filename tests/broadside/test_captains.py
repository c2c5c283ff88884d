"""Scripted captains: distinct tactics that beat the random captain by a wide margin."""

from collections import Counter

import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import make_captain, scripted_names
from naval_env.envs.match import Match
from naval_env.rulesets.broadside.events import Collided, Rammed, Volley


def paired_results(scenario, a, b, games):
    """Each seed played twice with sides swapped; returns winners by captain name and what each captain did."""
    match = Match("broadside", scenario=scenario, illegal_action="raise")
    tally: Counter = Counter()
    acts: Counter = Counter()
    for seed in range(games):
        for swap in (False, True):
            first, second = (b, a) if swap else (a, b)
            captains = dict(zip(match.game.sides, (
                make_captain(first, "broadside", match.action_spec, seed),
                make_captain(second, "broadside", match.action_spec, seed),
            )))
            record = play_game(match, captains, seed)
            tally[record.captains[record.winner] if record.winner else "draw"] += 1
            for event in record.events:
                if isinstance(event, (Rammed, Volley, Collided)):
                    kind = event.battery if isinstance(event, Volley) else event.kind
                    acts[(record.captains[match.game.side_of(event.ship)], kind)] += 1
    return tally, acts


def test_scripted_names_listed():
    assert scripted_names("broadside") == ["random", "gunner", "rammer"]


@pytest.mark.parametrize("tactic, scenario", [
    ("rammer", "galley_vs_sailing_ship"), ("gunner", "galley_vs_sailing_ship"),
    ("rammer", "fleet_with_iceberg"), ("gunner", "ironclad_vs_galleys"), ("gunner", "sailing_duel"),
])
def test_scripted_captain_beats_random_by_a_wide_margin(tactic, scenario):
    tally, _ = paired_results(scenario, tactic, "random", games=25)
    assert tally[tactic] >= 0.8 * 50, tally


def test_tactics_are_distinct():
    _, acts = paired_results("galley_vs_sailing_ship", "rammer", "gunner", games=10)
    # The rammer lines up rams with its galley; the gunner never runs its galley into anything on purpose.
    assert acts[("rammer", "ram")] >= 5
    assert acts[("gunner", "ram")] <= acts[("rammer", "ram")] / 3
    # With the sailing ship the gunner brings its broadsides to bear far more than the rammer does.
    broadsides = lambda who: acts[(who, "port")] + acts[(who, "starboard")]
    assert broadsides("gunner") > 1.5 * broadsides("rammer")
