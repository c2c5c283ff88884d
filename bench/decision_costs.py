"""Where an engine's time goes: microseconds per decision of each Game call, over random-legal games.

Plays random-legal decisions straight on the engine (no Gymnasium layer, every ship's captain
random) and times each call of ``legal_mask``, ``observe``, the shared ``ActionSpec.sample``,
``clone`` and ``apply``. An env step of ``bench/env_speed.py`` costs about two decisions (the
learner's and the opponent's) plus one observation, so this split tells which part of an engine to
work on. ``clone`` is timed at the same positions as ``apply``, just before it, so ``clone/apply``
(the cost of one copy of the game in decisions, what a search over clones pays per simulation) holds
however loaded the machine is; the target is at most 3. ``--deepcopy`` adds the column of a plain
``copy.deepcopy`` of the game (config, action tables and observation spec shared), which is what
``clone`` was before the engines copied their state field by field.

    python bench/decision_costs.py                              # every ruleset, default scenarios
    python bench/decision_costs.py --ruleset flotilla --scenario armada
    python bench/decision_costs.py --decisions 2000 --deepcopy  # the deep copy is slow: fewer decisions
    python bench/decision_costs.py --search                     # the search captain's simulations/s

``--search`` times the search captain instead (``search:64`` at decisions with a choice, as
``python -m naval_agents.evaluation.search_bench`` picks them) and prints simulations per second with three rollout
and proposal captains side by side: the ruleset's scripted rollout captain (the default), and an
untrained ``[128, 128]`` policy played through ``policy.predict`` (how expert iteration's search
rolled out before) and through its numpy copy (``agents/captains/numpy_policy.py``, how it rolls out now).
"""

from __future__ import annotations

import argparse
import copy
import time
from typing import Any

import numpy as np

from naval_env.core.game import Game
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match

PARTS = ("mask", "observe", "sample", "apply", "clone")
#: Clone cost in decisions (``clone / apply``) that search over clones can afford.
CLONE_TARGET = 3.0


def deep_copy(game: Game) -> Game:
    """The game copied by ``copy.deepcopy``, sharing only the immutable config, action tables and spec."""
    shared: list[Any] = [getattr(game, "config", None), getattr(game, "actions", None), game.observation_spec]
    copied: Game = copy.deepcopy(game, {id(s): s for s in shared if s is not None})
    return copied


def decision_costs(ruleset_id: str, scenario: str | None, decisions: int,
                   deepcopy: bool = False) -> tuple[dict[str, float], int]:
    """Mean microseconds per decision of each part (and of ``deepcopy`` when asked), and the games played."""
    match = Match(ruleset_id, None, scenario)
    spec = match.action_spec
    rng = np.random.default_rng(0)
    clock = time.perf_counter
    totals = dict.fromkeys((*PARTS, "deepcopy") if deepcopy else PARTS, 0.0)
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
            game.clone()
            cloned = clock()
            if deepcopy:
                deep_copy(game)
                totals["deepcopy"] += clock() - cloned
            before_apply = clock()
            game.apply(agent, action)
            applied = clock()
            totals["mask"] += masked - start
            totals["observe"] += observed - masked
            totals["sample"] += sampled - observed
            totals["clone"] += cloned - sampled
            totals["apply"] += applied - before_apply
            done += 1
    return {part: seconds / decisions * 1e6 for part, seconds in totals.items()}, games


def search_rates(ruleset_id: str, positions: int, simulations: int) -> dict[str, float]:
    """Search simulations per second at ``positions`` decisions with a choice, per rollout captain."""
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from naval_agents.captains.base import Decision
    from naval_agents.captains.learned import LoadedModel, MaskablePPOCaptain
    from naval_agents.captains.numpy_policy import NumpyPolicyCaptain
    from naval_agents.captains.search.captain import SearchCaptain
    from naval_agents.evaluation.search_bench import NO_OBSERVATION, choice_positions
    from naval_env.envs.spaces import action_space, observation_box

    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)
    games = choice_positions(ruleset_id, positions)
    torch.manual_seed(0)
    # sb3-contrib's own policy class, as expert iteration's search rolled out through before (the
    # segmented policy of agents/captains/networks/masked_policy.py is faster through predict too).
    policy = MaskableActorCriticPolicy(observation_box(games[0].observation_spec), action_space(games[0].action_spec),
                                       lambda _: 0.0, net_arch=[128, 128])
    rollouts: dict[str, Any] = {"scripted": None,
                                "policy.predict": MaskablePPOCaptain(LoadedModel(policy), name="network"),
                                "numpy policy": NumpyPolicyCaptain(policy, name="network")}
    rates = {}
    for label, rollout in rollouts.items():
        # The tree method spends every simulation it is given (the root method plays its prior unsearched below
        # 9), so the rate measures the rollout captains at any budget.
        captain = SearchCaptain(simulations, seed=0, rollout=rollout, proposer=rollout, method="tree")
        done = seconds = 0.0
        for game in games:
            agent = game.current_agent
            assert agent is not None
            captain.act(Decision(agent, NO_OBSERVATION, game.legal_mask(agent), game))
            assert captain.last_result is not None
            done += captain.last_result.simulations
            seconds += captain.last_result.seconds
        rates[label] = done / seconds
    return rates


def print_search_rates(rulesets: list[str], positions: int, simulations: int) -> None:
    print(f"search:{simulations}, {positions} positions a ruleset: simulations per second by rollout captain")
    print("| ruleset | scripted | policy.predict | numpy policy | numpy / predict |")
    print("|---|---|---|---|---|")
    for ruleset_id in rulesets:
        r = search_rates(ruleset_id, positions, simulations)
        print(f"| {ruleset_id} | {r['scripted']:,.0f} | {r['policy.predict']:,.0f} | {r['numpy policy']:,.0f} | "
              f"{r['numpy policy'] / r['policy.predict']:.1f}x |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", choices=ruleset_ids(), help="one ruleset (default: all)")
    parser.add_argument("--scenario", help="scenario of --ruleset (default: the config's default)")
    parser.add_argument("--decisions", type=int, default=20_000)
    parser.add_argument("--deepcopy", action="store_true",
                        help="also time copy.deepcopy of the game (the clone before issue 20; slow)")
    parser.add_argument("--search", action="store_true", help="time the search captain's simulations instead")
    parser.add_argument("--positions", type=int, default=4, help="with --search: decisions searched a ruleset")
    parser.add_argument("--simulations", type=int, default=64, help="with --search: simulations a decision")
    args = parser.parse_args()
    if args.search:
        print_search_rates([args.ruleset] if args.ruleset else ruleset_ids(), args.positions, args.simulations)
        return
    if args.scenario and not args.ruleset:
        parser.error("--scenario needs --ruleset")
    columns = (*PARTS, "deepcopy") if args.deepcopy else PARTS
    print(f"{'ruleset':<12} {'scenario':<24} " + " ".join(f"{p:>8}" for p in columns)
          + f" {'clone/apply':>11}   (us per decision; clone target <= {CLONE_TARGET:g}x apply)")
    for ruleset_id in [args.ruleset] if args.ruleset else ruleset_ids():
        scenario = args.scenario or get_ruleset(ruleset_id).load_config().default_scenario
        costs, games = decision_costs(ruleset_id, scenario, args.decisions, args.deepcopy)
        ratio = costs["clone"] / costs["apply"]
        print(f"{ruleset_id:<12} {scenario:<24} " + " ".join(f"{costs[p]:8.1f}" for p in columns)
              + f" {ratio:10.2f}x   ({games} games)")


if __name__ == "__main__":
    main()
