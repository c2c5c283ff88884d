"""Milliseconds a decision of ``expert`` (the zoo captain searched) next to ``zoo`` itself, in one run.

Both answer the same decisions: the positions of ``zoo``-against-``zoo`` games of each ruleset's
default scenario (seeds from ``--seed``), every decision with more than one legal move. The
target (issue 40): ``expert``'s median at most 250 ms on a quiet 2-core machine; run it with
nothing else on the cores, and read the load it prints.

    python bench/expert_latency.py [--rulesets pantheon pursuit] [--decisions 60] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from naval_agents.captains.base import Decision
from naval_agents.captains.registry import make_captain
from naval_agents.captains.search.candidates import allowed_values, joint_count
from naval_env.core.ruleset import get_ruleset, ruleset_ids


def positions(ruleset_id: str, count: int, seed: int) -> list:   # type: ignore[type-arg]
    """Games (clones at each decision with a choice) of the zoo captain against itself."""
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    zoo = make_captain("zoo", ruleset_id, ruleset.action_spec(config), config=config)
    found = []
    game_seed = seed
    while len(found) < count:
        game = ruleset.new_game(config, None, seed=game_seed)
        game_seed += 1
        while not game.is_over and len(found) < count:
            agent = game.current_agent
            mask = game.legal_mask(agent)
            if joint_count(allowed_values(game.action_spec, mask)) > 1:
                found.append(game.clone())
            game.apply(agent, zoo.act(Decision(agent, game.observe(agent), mask, game)))
    return found


def timed(captain_name: str, ruleset_id: str, games: list) -> list[float]:   # type: ignore[type-arg]
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    captain = make_captain(captain_name, ruleset_id, ruleset.action_spec(config), seed=0, config=config)
    out = []
    for game in games:
        agent = game.current_agent
        decision = Decision(agent, game.observe(agent), game.legal_mask(agent), game)
        start = time.perf_counter()
        captain.act(decision)
        out.append(1000 * (time.perf_counter() - start))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", nargs="+", default=ruleset_ids(), choices=ruleset_ids())
    parser.add_argument("--decisions", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("| ruleset | decisions | zoo median ms | expert median ms | expert p90 ms | ratio |")
    print("|---|---|---|---|---|---|")
    for ruleset_id in args.rulesets:
        games = positions(ruleset_id, args.decisions, args.seed)
        zoo = timed("zoo", ruleset_id, games)
        expert = timed("expert", ruleset_id, games)
        zoo_median, expert_median = statistics.median(zoo), statistics.median(expert)
        p90 = statistics.quantiles(expert, n=10)[-1]
        print(f"| {ruleset_id} | {len(games)} | {zoo_median:.2f} | {expert_median:.0f} | {p90:.0f} | "
              f"{expert_median / zoo_median:.0f}x |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
