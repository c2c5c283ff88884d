"""The search captain: legal whole games everywhere, the real game untouched, determinism, names, strength."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

from naval_agents.captains.arena import play_game
from naval_agents.captains.base import Decision
from naval_agents.captains.registry import captain_names, default_opponent, make_captain
from naval_agents.captains.search import SearchCaptain, SearchNameError, parse_search_name
from naval_agents.captains.search.chance import determinized
from naval_env.core.dice import Dice, ScriptedDice
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match

RULESETS = ruleset_ids()
ALL_SCENARIOS = [(rid, s) for rid in RULESETS for s in get_ruleset(rid).scenarios(get_ruleset(rid).load_config())]
NO_OBSERVATION = np.zeros(0, dtype=np.float32)


def decide(captain: SearchCaptain, game) -> np.ndarray:
    agent = game.current_agent
    return captain.act(Decision(agent, NO_OBSERVATION, game.legal_mask(agent), game))


def mid_game(ruleset_id: str, seed: int = 3, decisions: int = 6):
    """A game of the default scenario after ``decisions`` random legal decisions or more, at a decision with
    a choice (the next seed when a game ends first)."""
    ruleset = get_ruleset(ruleset_id)
    for attempt in range(seed, seed + 20):
        game = ruleset.new_game(ruleset.load_config(), None, seed=attempt)
        rng = np.random.default_rng(attempt)
        played = 0
        while not game.is_over:
            agent = game.current_agent
            mask = game.legal_mask(agent)
            if played >= decisions and int(mask.sum()) > len(game.action_spec.components):
                return game
            game.apply(agent, game.action_spec.sample(mask, rng))
            played += 1
    raise AssertionError(f"no {ruleset_id} game from seed {seed} reached a choice after {decisions} decisions")


#: pantheon, red_0 to attack blue_0 alongside; both at 1 health of a maximum of 2, so 2 damage sinks.
#: Fire! (Wits 10 against Resolve and Composure 0) sinks blue: red wins. Boarding (what ``rammer``
#: chooses) deals no damage, and then blue may sink red.
FIRE_WINS = {
    "ruleset": "pantheon", "scenario": "duel", "phase": "attack", "to_move": "red_0",
    "order": ["red_0", "blue_0"],
    "ships": [
        {"id": "red_0", "vessel": "trireme", "x": 4, "y": 5, "facing": "E", "health": 1, "max_health": 2,
         "captain": {"wits": 10, "charisma": 10, "resolve": 5, "composure": 5, "seamanship": 2}},
        {"id": "blue_0", "vessel": "trireme", "x": 5, "y": 5, "facing": "W", "health": 1, "max_health": 2,
         "captain": {"wits": 0, "charisma": 0, "resolve": 0, "composure": 0, "seamanship": 0}},
    ],
}


# ------------------------------------------------------------------------------------ legality
@pytest.mark.parametrize(("ruleset_id", "scenario"), ALL_SCENARIOS)
def test_search_plays_legal_whole_games_in_every_scenario(ruleset_id: str, scenario: str) -> None:
    match = Match(ruleset_id, scenario=scenario, illegal_action="raise")   # an illegal action raises
    searcher = make_captain("search:2", ruleset_id, match.action_spec, seed=0)
    captains = dict(zip(match.game.sides, (searcher, make_captain("random", ruleset_id, match.action_spec, 1))))
    record = play_game(match, captains, seed=5, keep_events=False)
    assert match.game.is_over
    red = match.game.sides[0]
    ships = [a for a in match.game.agents if match.game.side_of(a) == red]
    searched = {a for a, _ in record.actions if match.game.side_of(a) == red}
    assert searched and searched <= set(ships)
    if len(ships) > 1:   # a fleet: it decided for more than one ship
        assert len(searched) >= 2, searched


def test_env_takes_search_as_opponent() -> None:
    env = gym.make("naval/Pantheon-v0", opponent="search:2", illegal_action="raise")
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    done, steps = False, 0
    while not done:
        action = env.unwrapped.action_spec.sample(info["action_mask"], rng)
        _, _, terminated, truncated, info = env.step(action)
        done, steps = terminated or truncated, steps + 1
    assert steps > 0 and env.unwrapped.match.game.is_over
    assert env.unwrapped.captains and all(c.name == "search:2" for c in env.unwrapped.captains.values())


# ------------------------------------------------------------------------ the real game untouched
@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_search_never_touches_the_real_game_or_its_dice(ruleset_id: str) -> None:
    game = mid_game(ruleset_id)
    before = (game.state_dict(), game.position(), game.dice._rng.getstate(), list(game.dice.history))
    masks = {agent: game.legal_mask(agent) for agent in game.agents}
    captain = SearchCaptain(16, seed=1)
    action = decide(captain, game)
    assert captain.last_result is not None and captain.last_result.simulations == 16
    assert (game.state_dict(), game.position(), game.dice._rng.getstate(), list(game.dice.history)) == before
    for agent, mask in masks.items():
        np.testing.assert_array_equal(game.legal_mask(agent), mask)
    game.apply(game.current_agent, action)   # and the action is legal in the real game


def test_search_rolls_none_of_a_scripted_real_game_dice() -> None:
    ruleset = get_ruleset("pantheon")
    game = ruleset.load_position(FIRE_WINS, dice=ScriptedDice([]))   # any roll of the real dice would raise
    decide(SearchCaptain(32, seed=0), game)
    assert game.dice.remaining == 0 and game.dice.history == []
    assert type(game.dice) is ScriptedDice


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_search_copy_rolls_its_own_sample_not_the_real_games_future(ruleset_id: str) -> None:
    """Two games in one position with different dice give identical copies once re-seeded alike: no part of
    an engine keeps rolling the original dice (flotilla's combat table holds the dice object too)."""
    ruleset = get_ruleset(ruleset_id)
    game = mid_game(ruleset_id)
    twin = ruleset.load_position(game.position(), seed=12345)
    copies = [determinized(game, 7), determinized(twin, 7)]
    captain = make_captain(default_opponent(ruleset_id), ruleset_id, game.action_spec)   # it seeks a fight
    while not copies[0].is_over:
        agent = copies[0].current_agent
        action = captain.act(Decision(agent, NO_OBSERVATION, copies[0].legal_mask(agent), copies[0]))
        for copy in copies:
            copy.apply(agent, action)
    assert copies[0].state_dict() == copies[1].state_dict()
    rolled = copies[0].dice.history
    assert rolled, "a whole game rolled no dice"
    fresh = Dice(7)
    assert [r.values for r in rolled] == [fresh.roll(r.sides, len(r.values)) for r in rolled]


# -------------------------------------------------------------------------------- determinism
def test_same_seed_and_simulations_give_the_same_game() -> None:
    match = Match("pantheon", scenario="duel", illegal_action="raise")
    records = []
    for _ in range(2):
        captains = dict(zip(match.game.sides, (make_captain("search:8", "pantheon", match.action_spec, seed=0),
                                               make_captain("gunner", "pantheon", match.action_spec))))
        records.append(play_game(match, captains, seed=11))
    assert records[0].actions == records[1].actions
    assert records[0].final_state == records[1].final_state


def test_the_seed_steers_the_search() -> None:
    game = mid_game("pantheon", seed=4)
    results = []
    for seed in (0, 0, 1):
        captain = SearchCaptain(24, seed=seed)
        decide(captain, game)
        assert captain.last_result is not None
        results.append(captain.last_result.children)
    assert results[0] == results[1]      # same seed: the same tree statistics
    assert results[0] != results[2]      # another seed samples other dice


# ------------------------------------------------------------------------------------- names
@pytest.mark.parametrize(("name", "simulations", "ms"), [
    ("search", 64, None), ("search:1", 1, None), ("search:256", 256, None), ("search:500ms", None, 500.0),
])
def test_search_names_give_their_budget(name: str, simulations: int | None, ms: float | None) -> None:
    budget = parse_search_name(name)
    assert (budget.simulations, budget.time_budget_ms) == (simulations, ms)
    captain = make_captain(name, "flotilla", get_ruleset("flotilla").action_spec(get_ruleset("flotilla").load_config()))
    assert isinstance(captain, SearchCaptain)
    assert (captain.simulations, captain.time_budget_ms, captain.name) == (simulations, ms, name)


@pytest.mark.parametrize("name", ["search:0", "search:", "search:abc", "search:-4", "search:1.5", "search:5s",
                                  "search:64 ", "search:9999999", "search:0ms"])
def test_bad_search_names_are_refused_with_the_allowed_forms(name: str) -> None:
    spec = get_ruleset("pantheon").action_spec(get_ruleset("pantheon").load_config())
    with pytest.raises(SearchNameError) as error:
        make_captain(name, "pantheon", spec)
    message = str(error.value)
    assert repr(name) in message and "'search:N'" in message and "'search:Nms'" in message


def test_unknown_captain_lists_the_search_forms() -> None:
    spec = get_ruleset("pantheon").action_spec(get_ruleset("pantheon").load_config())
    with pytest.raises(ValueError, match=r"'search:N'"):
        make_captain("serch", "pantheon", spec)
    names = captain_names("pantheon")
    assert names[-3:] == ["search", "search:N", "search:Nms"]
    assert {"random", "gunner", "rammer"} <= set(names)


def test_bad_budgets_are_refused() -> None:
    with pytest.raises(ValueError, match="needs a budget"):
        SearchCaptain(None, None)
    with pytest.raises(ValueError, match="simulations must be 1"):
        SearchCaptain(0)
    captain = SearchCaptain(None, 100)
    with pytest.raises(ValueError, match="time_budget_ms must be above 0"):
        captain.time_budget_ms = -5
    with pytest.raises(ValueError, match="cannot be None while simulations is None"):
        captain.time_budget_ms = None
    assert captain.time_budget_ms == 100
    with pytest.raises(ValueError, match="cannot search"):
        SearchCaptain(rollout="search:4")


def test_a_time_budget_an_app_sets_bounds_the_decision() -> None:
    game = mid_game("pantheon", seed=4)
    captain = SearchCaptain(simulations=None, time_budget_ms=40, seed=0)
    decide(captain, game)
    first = captain.last_result
    # The root search sizes its plan from the simulations' pace, so it spends most of the time, not past it.
    assert first is not None and first.simulations >= 1 and 0.01 <= first.seconds <= 0.04 * 1.5 + 0.05
    captain.time_budget_ms = 200     # the app gives more time: more simulations
    decide(captain, game)
    assert captain.last_result is not None and 0.05 <= captain.last_result.seconds <= 0.2 * 1.5 + 0.05
    assert captain.last_result.simulations > first.simulations
    capped = SearchCaptain(simulations=1_000_000, time_budget_ms=30, seed=0)   # whichever runs out first
    decide(capped, game)
    assert capped.last_result is not None and capped.last_result.simulations < 1_000_000


# ----------------------------------------------------------------------------------- strength
def test_search_finds_the_winning_shot_its_rollout_captain_misses() -> None:
    ruleset = get_ruleset("pantheon")
    game = ruleset.load_position(FIRE_WINS, seed=0)
    spec = game.action_spec
    attack = spec.index("attack")
    labels = spec.components[attack].labels
    rammer = make_captain("rammer", "pantheon", spec)
    assert labels[decide(rammer, game)[attack]] == "board@enemy0"   # the rollout captain would board
    for seed in range(3):
        captain = SearchCaptain(64, seed=seed, rollout="rammer")
        assert labels[decide(captain, game)[attack]] == "fire@enemy0"


def test_search_alone_beats_random_in_the_pantheon_duel() -> None:
    """Random rollouts: the strength is the search's, not a scripted captain's (19 of 20 when written)."""
    match = Match("pantheon", scenario="duel", illegal_action="raise")
    wins = 0
    for seed in range(10):
        for searcher_side in match.game.sides:
            other = next(s for s in match.game.sides if s != searcher_side)
            captains = {searcher_side: SearchCaptain(16, seed=seed, rollout="random", method="tree"),
                        other: make_captain("random", "pantheon", match.action_spec, seed=seed)}
            record = play_game(match, captains, seed=seed, keep_events=False, keep_actions=False)
            wins += record.winner == searcher_side
    assert wins >= 18, f"search (16 simulations, random rollouts) won {wins} of 20 games against random"
