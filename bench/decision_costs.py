"""Where an engine's time goes: microseconds per decision of each Game call, over random-legal games.

Plays random-legal decisions straight on the engine (no Gymnasium layer, every ship's captain
random) and times each call of ``legal_mask``, ``observe``, the shared ``ActionSpec.sample`` and
``apply``. An env step of ``bench/env_speed.py`` costs about two decisions (the learner's and the
opponent's) plus one observation, so this split tells which part of an engine to work on.

    python bench/decision_costs.py                              # every ruleset, default scenarios
    python bench/decision_costs.py --ruleset flotilla --scenario armada
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match

PARTS = ("mask", "observe", "sample", "apply")


def decision_costs(ruleset_id: str, scenario: str | None, decisions: int) -> tuple[dict[str, float], int]:
    """Mean microseconds per decision of each part, and the number of games played."""
    match = Match(ruleset_id, None, scenario)
    spec = match.action_spec
    rng = np.random.default_rng(0)
    clock = time.perf_counter
    totals = dict.fromkeys(PARTS, 0.0)
    done = games = 0
    while done < decisions:
        match.reset(games)
        games += 1
        game = match.game
        while not game.is_over and done < decisions:
            agent = game.current_agent
            assert agent is not None  # the game is not over
            start = clock()
            mask = game.legal_mask(agent)
            masked = clock()
            game.observe(agent)
            observed = clock()
            action = spec.sample(mask, rng)
            sampled = clock()
            game.apply(agent, action)
            applied = clock()
            totals["mask"] += masked - start
            totals["observe"] += observed - masked
            totals["sample"] += sampled - observed
            totals["apply"] += applied - sampled
            done += 1
    return {part: seconds / decisions * 1e6 for part, seconds in totals.items()}, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", choices=ruleset_ids(), help="one ruleset (default: all)")
    parser.add_argument("--scenario", help="scenario of --ruleset (default: the config's default)")
    parser.add_argument("--decisions", type=int, default=20_000)
    args = parser.parse_args()
    if args.scenario and not args.ruleset:
        parser.error("--scenario needs --ruleset")
    print(f"{'ruleset':<12} {'scenario':<24} " + " ".join(f"{p:>8}" for p in PARTS) + "   (us per decision)")
    for ruleset_id in [args.ruleset] if args.ruleset else ruleset_ids():
        scenario = args.scenario or get_ruleset(ruleset_id).load_config().default_scenario
        costs, games = decision_costs(ruleset_id, scenario, args.decisions)
        print(f"{ruleset_id:<12} {scenario:<24} " + " ".join(f"{costs[p]:8.1f}" for p in PARTS)
              + f"   ({games} games)")


if __name__ == "__main__":
    main()
