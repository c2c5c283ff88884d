"""Scripted captains: distinct tactics, each far ahead of the random captain."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.base import Decision, RandomCaptain
from naval_agents.captains.registry import default_opponent, make_captain, scripted_names
from naval_agents.captains.scripted.crew_phase import BreakerCaptain
from naval_env.envs.match import Match
from naval_env.rulesets.crew_phase.combat import TargetKind
from naval_env.rulesets.crew_phase.events import AttackRolled, RamRolled, StationManned

from .helpers import make_game, ship


def paired_results(scenario, a, b, games):
    """Each seed played twice with sides swapped; returns winners by captain name and what each captain did."""
    match = Match("crew_phase", scenario=scenario, illegal_action="raise")
    tally: Counter = Counter()
    deeds: Counter = Counter()
    for seed in range(games):
        for swap in (False, True):
            first, second = (b, a) if swap else (a, b)
            captains = dict(zip(match.game.sides, (
                make_captain(first, "crew_phase", match.action_spec, seed),
                make_captain(second, "crew_phase", match.action_spec, seed),
            )))
            record = play_game(match, captains, seed)
            tally[record.captains[record.winner] if record.winner else "draw"] += 1
            for event in record.events:
                if isinstance(event, RamRolled):
                    deeds[(record.captains[match.game.side_of(event.rammer)], "ram")] += 1
                elif isinstance(event, AttackRolled):
                    deeds[(record.captains[match.game.side_of(event.ship)], "shot")] += 1
                    if event.target.startswith("weapon"):
                        deeds[(record.captains[match.game.side_of(event.ship)], "shot at a gun")] += 1
                elif isinstance(event, StationManned) and event.station.startswith("operate"):
                    weapon = match.game.state.ships[event.ship].weapons[int(event.station.split()[-1])]
                    kind = "harpoon crew" if weapon.grapples else "gun crew"
                    deeds[(record.captains[match.game.side_of(event.ship)], kind)] += 1
                elif isinstance(event, StationManned) and event.station == "helm":
                    deeds[(record.captains[match.game.side_of(event.ship)], "helm")] += 1
    return tally, deeds


def test_scripted_names_listed_and_default_opponent():
    assert scripted_names("crew_phase") == ["random", "breaker", "gunner", "rammer"]
    assert default_opponent("crew_phase") == "rammer"


@pytest.mark.parametrize("tactic", ["rammer", "gunner", "breaker"])
@pytest.mark.parametrize("scenario", ["duel", "two_vs_one"])
def test_scripted_captain_beats_random_by_a_wide_margin(tactic, scenario):
    tally, _ = paired_results(scenario, tactic, "random", games=30)
    assert tally[tactic] >= 0.8 * 60, tally


def test_tactics_are_distinct():
    _, rammer = paired_results("duel", "rammer", "random", games=10)
    _, gunner = paired_results("duel", "gunner", "random", games=10)
    assert gunner[("gunner", "ram")] == 0 and rammer[("rammer", "ram")] >= 3
    assert gunner[("gunner", "harpoon crew")] == 0 and rammer[("rammer", "harpoon crew")] > 10
    assert gunner[("gunner", "gun crew")] > 100 and rammer[("rammer", "helm")] > 100
    assert gunner[("gunner", "shot at a gun")] == 0 and rammer[("rammer", "shot at a gun")] == 0


def test_breaker_silences_the_guns_that_bear_on_it():
    """Against the gunner, whose broadside faces it, a good share of the breaker's shots go at guns (the
    gunner's never do), it never rams, and it wins the paired games."""
    tally, deeds = paired_results("duel", "breaker", "gunner", games=10)
    assert deeds[("breaker", "shot at a gun")] > 0.25 * deeds[("breaker", "shot")], deeds
    assert deeds[("gunner", "shot at a gun")] == 0
    assert deeds[("breaker", "ram")] == 0
    assert tally["breaker"] > tally["gunner"], tally


def _breaker_aim(game) -> str:
    """The breaker's target for a weapon that may fire at any hull, crew member or weapon there is."""
    red = game.state.ships["red_0"]
    enemies = game.enemies_of(red)

    def exists(target) -> bool:
        if target.enemy is None:                       # "none"
            return True
        if target.enemy >= len(enemies):
            return False
        enemy = enemies[target.enemy]
        slots = enemy.crew if target.kind is TargetKind.CREW else enemy.weapons
        return target.index is None or target.index < len(slots)

    legal = np.array([exists(t) for t in game.actions.targets])
    return game.actions.targets[BreakerCaptain().choose_target(game, red, legal)].label


def test_breaker_aims_at_the_most_damaged_gun_that_bears_then_at_the_hull():
    """Red faces north at (3, 8); both blue ships face north to its east, so each blue port ballista
    (weapon 0) bears on red and no starboard ballista or bow harpoon does."""
    game = make_game([ship("sailing_ship", (3, 8), "N")],
                     [ship("sailing_ship", (6, 8), "N"), ship("sailing_ship", (6, 11), "N")])
    first, second = game.state.ships["blue_0"], game.state.ships["blue_1"]
    assert _breaker_aim(game) == "part@e0.w0"          # equal guns: the first enemy's
    second.weapons[0].hp = 12
    assert _breaker_aim(game) == "part@e1.w0"          # the more damaged gun
    second.weapons[0].hp = 0
    first.weapons[0].hp = 0
    first.hp = 20
    assert _breaker_aim(game) == "ship@e0"             # no working gun bears: the hull closest to sinking
    first.weapons[0].hp = 30
    assert _breaker_aim(game) == "ship@e0"             # 20 of 60 hit points: sink it rather than disarm it
    first.hp = 31
    assert _breaker_aim(game) == "part@e0.w0"


def test_random_captain_only_plays_legal_actions_and_is_seeded():
    match = Match("crew_phase", scenario="two_vs_one", illegal_action="raise")
    first = _random_actions(match, seed=4)
    assert first == _random_actions(match, seed=4)


def _random_actions(match, seed):
    captain = RandomCaptain(match.action_spec, seed=seed)
    match.reset(seed)
    game = match.game
    actions = []
    while not game.is_over and len(actions) < 200:
        agent = game.current_agent
        action = captain.act(Decision(agent, np.zeros(0), game.legal_mask(agent), game))
        actions.append(action.tolist())
        game.apply(agent, action)                            # raises if illegal
    return actions
