"""Scripted captains: distinct tactics that beat the random captain by a wide margin."""

from collections import Counter

import numpy as np
import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.base import Decision, RandomCaptain
from naval_agents.captains.registry import make_captain, scripted_names
from naval_env.core.events import DamageDealt
from naval_env.envs.match import Match
from naval_env.rulesets.pantheon.events import AttackDeclared


def paired_results(scenario, a, b, games):
    """Each seed played twice with sides swapped; returns the winners by captain name."""
    match = Match("pantheon", scenario=scenario, illegal_action="raise")
    tally: Counter = Counter()
    attacks: Counter = Counter()
    for seed in range(games):
        for swap in (False, True):
            first, second = (b, a) if swap else (a, b)
            captains = dict(zip(match.game.sides, (
                make_captain(first, "pantheon", match.action_spec, seed),
                make_captain(second, "pantheon", match.action_spec, seed),
            )))
            record = play_game(match, captains, seed)
            tally[record.captains[record.winner] if record.winner else "draw"] += 1
            for event in record.events:
                if isinstance(event, AttackDeclared):
                    side = match.game.side_of(event.ship)
                    attacks[(record.captains[side], event.attack)] += 1
    return tally, attacks


def test_scripted_names_listed():
    assert scripted_names("pantheon") == ["random", "gunner", "rammer"]


@pytest.mark.parametrize("tactic", ["rammer", "gunner"])
@pytest.mark.parametrize("scenario", ["duel", "squadron"])
def test_scripted_captain_beats_random_by_a_wide_margin(tactic, scenario):
    tally, _ = paired_results(scenario, tactic, "random", games=40)
    assert tally[tactic] >= 0.8 * 80, tally


def test_tactics_are_distinct():
    _, attacks = paired_results("duel", "rammer", "gunner", games=20)
    rams = attacks[("rammer", "ram")] + attacks[("rammer", "board")]
    assert rams > attacks[("rammer", "fire")] * 0.2
    assert attacks[("gunner", "ram")] == 0 and attacks[("gunner", "board")] == 0
    assert attacks[("gunner", "fire")] > 50


def test_random_captain_only_plays_legal_actions_and_is_seeded():
    match = Match("pantheon", scenario="fleet", illegal_action="raise")
    captain = RandomCaptain(match.action_spec, seed=4)
    match.reset(4)
    game = match.game
    first = []
    for _ in range(200):
        if game.is_over:
            break
        agent = game.current_agent
        action = captain.act(Decision(agent, np.zeros(0), game.legal_mask(agent), game))
        first.append(action.tolist())
        game.apply(agent, action)  # raises if illegal
    replay = RandomCaptain(match.action_spec, seed=4)
    match.reset(4)
    again = []
    for _ in range(len(first)):
        agent = match.game.current_agent
        action = replay.act(Decision(agent, np.zeros(0), match.game.legal_mask(agent), match.game))
        again.append(action.tolist())
        match.game.apply(agent, action)
    assert first == again


def test_scripted_captains_deal_damage():
    match = Match("pantheon", scenario="duel", illegal_action="raise")
    record = play_game(match, {"red": make_captain("gunner", "pantheon", match.action_spec),
                               "blue": make_captain("rammer", "pantheon", match.action_spec)}, seed=1)
    assert any(isinstance(e, DamageDealt) for e in record.events)
    assert record.winner in ("red", "blue")
