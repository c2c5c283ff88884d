"""Scripted pursuit captains: distinct tactics, both far ahead of random play."""

from __future__ import annotations

from collections import Counter

import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.registry import default_opponent, make_captain, scripted_names
from naval_env.envs.match import Match
from naval_env.rulesets.pursuit.events import Crashed, Maneuvered


def paired(scenario, a, b, games):
    """Each seed twice with the sides swapped; the winners by captain name, and what each captain did."""
    match = Match("pursuit", scenario=scenario, illegal_action="raise")
    tally: Counter = Counter()
    moves: Counter = Counter()
    for seed in range(games):
        for swap in (False, True):
            names = (b, a) if swap else (a, b)
            captains = {side: make_captain(name, "pursuit", match.action_spec, seed)
                        for side, name in zip(match.game.sides, names)}
            record = play_game(match, captains, seed, keep_actions=False)
            tally[record.captains[record.winner] if record.winner else "draw"] += 1
            for event in record.events:
                if isinstance(event, (Maneuvered, Crashed)):
                    who = record.captains[match.game.side_of(event.ship)]
                    moves[(who, event.kind if isinstance(event, Crashed) else event.maneuver.split("_")[0])] += 1
    return tally, moves


def test_scripted_names_and_default_opponent():
    assert scripted_names("pursuit") == ["random", "gunner", "hunter"]
    assert default_opponent("pursuit") == "hunter"


@pytest.mark.parametrize("tactic", ["hunter", "gunner"])
@pytest.mark.parametrize("scenario", ["duel", "chase", "uneven"])
def test_scripted_captain_beats_random_by_a_wide_margin(tactic, scenario):
    tally, _ = paired(scenario, tactic, "random", games=25)
    assert tally[tactic] >= 0.8 * 50, tally


def test_tactics_are_distinct():
    """The hunter closes in and rams what the crash would sink; the gunner stands off at its guns' range (it
    flees an enemy that closes) and never rams."""
    _, moves = paired("duel", "hunter", "gunner", games=15)
    assert moves[("gunner", "ram")] == 0 and moves[("gunner", "crash")] == 0
    assert moves[("gunner", "flee")] > 5 * moves[("gunner", "pursue")]
    assert moves[("hunter", "flee")] == 0 and moves[("hunter", "pursue")] > 100
    _, moves = paired("duel", "hunter", "random", games=10)
    assert moves[("hunter", "ram")] > 0 and moves[("hunter", "crash")] > 0
