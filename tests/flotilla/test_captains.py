"""Scripted captains: distinct tactics, both far ahead of random play."""

from __future__ import annotations

from collections import Counter

import pytest

from agents.arena import play_game
from agents.registry import default_opponent, make_captain, scripted_names
from naval_env.envs.match import Match
from naval_env.rulesets.flotilla.events import BoardingAttempt, Rammed, Reacted


def paired_results(scenario, a, b, games):
    """Each seed played twice with sides swapped; returns wins by captain name and what each side did."""
    match = Match("flotilla", scenario=scenario, illegal_action="raise")
    tally: Counter = Counter()
    deeds: Counter = Counter()
    for seed in range(games):
        for swap in (False, True):
            first, second = (b, a) if swap else (a, b)
            captains = dict(zip(match.game.sides, (
                make_captain(first, "flotilla", match.action_spec, seed),
                make_captain(second, "flotilla", match.action_spec, seed),
            )))
            record = play_game(match, captains, seed, keep_actions=False)
            tally[record.captains[record.winner] if record.winner else "draw"] += 1
            for event in record.events:
                if isinstance(event, Rammed):
                    deeds[(record.captains[match.game.side_of(event.rammer)], "ram")] += 1
                elif isinstance(event, BoardingAttempt):
                    deeds[(record.captains[match.game.side_of(event.boarder)], "board")] += 1
                elif isinstance(event, Reacted):
                    deeds[(record.captains[match.game.side_of(event.defender)], event.reaction)] += 1
    return tally, deeds


def test_scripted_names_and_default_opponent():
    assert scripted_names("flotilla") == ["random", "boarder", "gunner"]
    assert default_opponent("flotilla") == "gunner"


@pytest.mark.parametrize("tactic, scenario, games", [
    ("gunner", "duel", 40), ("boarder", "duel", 40), ("gunner", "squadron", 15), ("boarder", "squadron", 15),
])
def test_scripted_captain_beats_random_by_a_wide_margin(tactic, scenario, games):
    tally, _ = paired_results(scenario, tactic, "random", games)
    assert tally[tactic] >= 0.8 * 2 * games, tally


def test_tactics_are_distinct():
    _, deeds = paired_results("duel", "boarder", "gunner", 15)
    assert deeds[("boarder", "ram")] + deeds[("boarder", "board")] >= 10
    assert deeds[("gunner", "ram")] == 0 and deeds[("gunner", "board")] == 0
    assert deeds[("gunner", "counter")] > 0 and deeds[("boarder", "counter")] > 0
