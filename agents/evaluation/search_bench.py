"""Milliseconds per decision of the search captain at several budgets, on each ruleset's default scenario.

    python -m naval_agents.evaluation.search_bench [--budgets 16 64 256] [--positions 6] [--rulesets pantheon ...]

The positions are decisions with a choice (more than one legal joint action) taken evenly from one
game of the ruleset's rollout captain against itself (seed 0); a decision with one legal action
costs the search nothing and is left out. Times are wall-clock on this machine, whatever else
runs on it.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from naval_agents.captains.base import Decision
from naval_agents.captains.registry import make_captain
from naval_agents.captains.search.candidates import allowed_values, joint_count
from naval_agents.captains.search.captain import SearchCaptain, default_rollout
from naval_env.core.game import Game
from naval_env.core.ruleset import get_ruleset, ruleset_ids

NO_OBSERVATION = np.zeros(0, dtype=np.float32)


@dataclass(frozen=True)
class Timing:
    ruleset: str
    scenario: str
    simulations: int
    positions: int
    median_ms: float
    mean_ms: float
    max_ms: float


def choice_positions(ruleset_id: str, count: int, seed: int = 0) -> list[Game]:
    """``count`` copies of decisions with a choice, evenly spread over one game of the rollout captain."""
    ruleset = get_ruleset(ruleset_id)
    game = ruleset.new_game(ruleset.load_config(), None, seed=seed)
    captain = make_captain(default_rollout(ruleset_id), ruleset_id, game.action_spec, seed=seed)
    found: list[Game] = []
    while not game.is_over:
        agent = game.current_agent
        assert agent is not None
        mask = game.legal_mask(agent)
        if joint_count(allowed_values(game.action_spec, mask)) > 1:
            found.append(game.clone())
        game.apply(agent, captain.act(Decision(agent, NO_OBSERVATION, mask, game)))
    if not found:
        raise ValueError(f"a {ruleset_id} game of seed {seed} had no decision with a choice")
    picks = np.linspace(0, len(found) - 1, min(count, len(found))).round().astype(int)
    return [found[i] for i in picks]


def time_search(ruleset_id: str, budgets: Sequence[int], positions: int) -> list[Timing]:
    games = choice_positions(ruleset_id, positions)
    scenario = get_ruleset(ruleset_id).load_config().default_scenario
    timings = []
    for budget in budgets:
        captain = SearchCaptain(budget, seed=0)
        seconds = []
        for game in games:
            agent = game.current_agent
            assert agent is not None
            captain.act(Decision(agent, NO_OBSERVATION, game.legal_mask(agent), game))
            assert captain.last_result is not None
            seconds.append(captain.last_result.seconds * 1000)
        timings.append(Timing(ruleset_id, scenario, budget, len(games), statistics.median(seconds),
                              statistics.fmean(seconds), max(seconds)))
    return timings


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[16, 64, 256], help="simulations a decision")
    parser.add_argument("--positions", type=int, default=6, help="decisions timed per ruleset")
    parser.add_argument("--rulesets", nargs="+", default=ruleset_ids(), choices=ruleset_ids())
    args = parser.parse_args(argv)
    print("| ruleset | scenario | simulations | positions | median ms | mean ms | max ms |")
    print("|---|---|---|---|---|---|---|")
    for ruleset_id in args.rulesets:
        for t in time_search(ruleset_id, args.budgets, args.positions):
            print(f"| {t.ruleset} | {t.scenario} | {t.simulations} | {t.positions} | {t.median_ms:.0f} | "
                  f"{t.mean_ms:.0f} | {t.max_ms:.0f} |", flush=True)


if __name__ == "__main__":
    main()
