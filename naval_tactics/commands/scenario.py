"""``naval-tactics scenario``: check whether a scenario is balanced, decided by its captains or by its dice.

    naval-tactics scenario check --ruleset R [--scenario S ...] [--games 50] [--seed S] [--config YAML]
                                 [--strongest SPEC] [--sound SPEC ...] [--no-luck-bound] [--luck-games 10]
                                 [--clairvoyant-simulations 8] [--workers 2] [--backend ray] [--json PATH]
    naval-tactics scenario balance --ruleset R [--scenario S] --vary PATH=LOW..HIGH [...] --out balanced.yaml
                                   [--games-per-point 100] [--seed S] [--captain SPEC] [--captains SPEC ...]
                                   [--rounds 2] [--min-decisiveness 0.3] [--cache FILE] [--resume] [--workers 2]

The measurements and verdicts are described in agents/evaluation/scenario_check.py, the search in
agents/evaluation/balance.py, both with a worked example in docs/scenarios.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from naval_env.core.ruleset import ruleset_ids

#: First seed of a check: no training (0.., 3e6, 5e6, 7e6), quick evaluation (1e7) or zoo report (2e7) uses it.
CHECK_SEED = 30_000_000
PROG = "naval-tactics scenario"


def make_parser() -> argparse.ArgumentParser:
    from naval_agents.distributed.ray_runtime import add_ray_arguments
    from naval_agents.evaluation.balance import DEFAULT_ROUNDS
    from naval_agents.evaluation.balance import DEFAULT_SEEDS as DEFAULT_BALANCE_SEEDS
    from naval_agents.evaluation.scenario_check import (
        DEFAULT_CLAIRVOYANT_SIMULATIONS,
        DEFAULT_LUCK_SEEDS,
        DEFAULT_SEEDS,
        MIN_DECISIVENESS,
    )
    from naval_agents.evaluation.tournament import BACKENDS

    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0].replace("``", ""))
    commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = commands.add_parser(
        "check", help="seat balance, skill spread, decisiveness and luck bound of each scenario, with a verdict",
        description="Play every ordered pair of sound captains (the strongest and every scripted one but random) "
                    "and the strongest against random on the same seeds; print a table and the verdicts "
                    "(balanced / lopsided / luck-dominated) with their thresholds.")
    check.add_argument("--ruleset", required=True, nargs="+", choices=[*ruleset_ids(), "all"], metavar="R",
                       help="the ruleset(s) whose scenarios to check, or all: every registered ruleset (with more "
                            "than one, each ruleset's own defaults: no --config, --scenario, --strongest or --sound)")
    check.add_argument("--scenario", nargs="+", metavar="S", help="only these scenarios (default: every one)")
    check.add_argument("--config", metavar="YAML", help="ruleset config YAML (default: the shipped one)")
    check.add_argument("--games", type=int, default=DEFAULT_SEEDS, metavar="SEEDS",
                       help="seeds a pairing; every pairing but a mirror is played from both sides "
                            "(default %(default)s)")
    check.add_argument("--seed", type=int, default=CHECK_SEED, help="first seed (default %(default)s)")
    check.add_argument("--strongest", metavar="SPEC",
                       help="the strongest captain (default: zoo where the ruleset ships one, else its strongest "
                            "scripted captain)")
    check.add_argument("--sound", nargs="+", metavar="SPEC",
                       help="the other sound captains (default: every scripted captain but random)")
    check.add_argument("--luck-bound", action=argparse.BooleanOptionalAction, default=True,
                       help="also play a clairvoyant search against the strongest captain (default: on)")
    check.add_argument("--luck-games", type=int, default=DEFAULT_LUCK_SEEDS, metavar="SEEDS",
                       help="seeds of the luck bound, each from both sides (default %(default)s)")
    check.add_argument("--clairvoyant-simulations", type=int, default=DEFAULT_CLAIRVOYANT_SIMULATIONS, metavar="N",
                       help="candidate moves the clairvoyant search tries a decision (default %(default)s)")
    check.add_argument("--workers", type=int, default=2,
                       help="processes (or Ray actors) playing the block; the luck bound plays in this process, "
                            "or on as many Ray actors with --backend ray (default %(default)s)")
    add_ray_arguments(check, backends=BACKENDS, default="local")
    check.add_argument("--json", type=Path, metavar="PATH", help="also write every measurement as JSON here")
    check.add_argument("--rules-pages", action="store_true",
                       help="also write each ruleset's table onto its rules page (docs/rules/<id>.md, section "
                            "'Scenario check'; a source checkout only) with the command, date and time")
    check.add_argument("--no-progress", action="store_true", help="hide the progress bar")

    balance = commands.add_parser(
        "balance", help="search numeric parameters of a scenario for a seat balance nearest 0.50",
        description="Bisect one parameter (or each of several in turn) on the same seeds at every point, for the "
                    "values whose seat balance (the first side's score when each side fields its best captain of "
                    "the set) is nearest 0.50 among those that keep the decisiveness "
                    "threshold; write the balanced config as YAML. Every point is cached as it is played "
                    "(--resume goes on from the cache).")
    balance.add_argument("--ruleset", required=True, choices=ruleset_ids(), help="the ruleset of the scenario")
    balance.add_argument("--scenario", help="the scenario to balance (default: the config's default)")
    balance.add_argument("--config", metavar="YAML", help="ruleset config YAML to start from (default: the shipped "
                                                          "one)")
    balance.add_argument("--vary", nargs="+", required=True, metavar="PATH=LOW..HIGH",
                         help="a parameter and its range: PATH dotted inside the scenario (escape.distance, "
                              "sides.1.ships.0.captain.wits; list items by index) or from the config's root with a "
                              "leading / (/vessels.warship.health); a list of numbers (a zone's x) is shifted by an "
                              "offset from LOW to HIGH")
    balance.add_argument("--out", required=True, type=Path, metavar="YAML", help="where the balanced config goes")
    balance.add_argument("--games-per-point", type=int, default=DEFAULT_BALANCE_SEEDS, metavar="SEEDS",
                         help="seeds each point plays, as evaluate's --games: every ordered pair of the captains on "
                              "each (a mirror once) (default %(default)s)")
    balance.add_argument("--seed", type=int, default=CHECK_SEED, help="first seed (default %(default)s)")
    balance.add_argument("--captain", metavar="SPEC",
                         help="the mirror's captain, shown beside the seat balance (default: zoo where the ruleset "
                              "ships one, else its strongest scripted captain)")
    balance.add_argument("--captains", nargs="+", metavar="SPEC",
                         help="the other captains the seat balance and decisiveness are measured among (default: "
                              "every scripted captain but random)")
    balance.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS,
                         help="coordinate-search rounds over several parameters (default %(default)s)")
    balance.add_argument("--min-decisiveness", type=float, default=MIN_DECISIVENESS, metavar="SHARE",
                         help="points under this share of seeds changing result are chosen only when no point "
                              "reaches it (default %(default)s)")
    balance.add_argument("--cache", type=Path, metavar="JSON",
                         help="the evaluated points (default: --out with .points.json added)")
    balance.add_argument("--resume", action="store_true", help="go on from the points already in the cache")
    balance.add_argument("--workers", type=int, default=2, help="processes (or Ray actors) playing each point "
                                                                "(default %(default)s)")
    add_ray_arguments(balance, backends=BACKENDS, default="local")
    return parser


def error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    if args.action == "check":
        return _check(args)
    if args.action == "balance":
        return _balance(args)
    return error(f"unknown action {args.action!r}")   # argparse's choices keep this unreachable


def _check(args: argparse.Namespace) -> int:
    from naval_agents.evaluation.scenario_check import (
        CheckCaptains,
        ScenarioCheck,
        check_scenario,
        to_markdown,
    )
    from naval_agents.evaluation.tournament import (
        EvaluationInputError,
        check_backend,
        check_workers,
    )
    from naval_env.core.errors import ConfigError
    from naval_env.core.ruleset import get_ruleset

    for flag, value in (("--games", args.games), ("--luck-games", args.luck_games),
                        ("--clairvoyant-simulations", args.clairvoyant_simulations)):
        if value < 1:
            return error(f"{flag} must be at least 1, got {value}")
    if args.seed < 0:
        return error(f"--seed must be 0 or more, got {args.seed}")
    rulesets = ruleset_ids() if "all" in args.ruleset else list(dict.fromkeys(args.ruleset))
    per_ruleset = [flag for flag, value in (("--config", args.config), ("--scenario", args.scenario),
                                            ("--strongest", args.strongest), ("--sound", args.sound))
                   if value is not None]
    if len(rulesets) > 1 and per_ruleset:
        return error(f"{', '.join(per_ruleset)} belong to one ruleset; check {', '.join(rulesets)} one at a time "
                     "to give them, or leave them out to use each ruleset's defaults")
    started = time.monotonic()
    by_ruleset: list[list[ScenarioCheck]] = []
    ruleset_seconds: list[float] = []
    try:
        check_workers(args.workers)
        check_backend(args.backend, args.address)
        for ruleset in rulesets:
            rules = get_ruleset(ruleset)
            config = rules.load_config(args.config)
            known = rules.scenarios(config)
            unknown = [s for s in args.scenario or () if s not in known]
            if unknown:
                return error(f"unknown {ruleset} scenario(s) {', '.join(unknown)}; choose from {', '.join(known)}")
            default = CheckCaptains.default(ruleset)
            captains = CheckCaptains.of(args.strongest or default.strongest,
                                        args.sound if args.sound is not None else default.sound[1:])
            group = []
            ruleset_started = time.monotonic()
            for scenario in args.scenario or known:
                print(f"{ruleset} / {scenario} ...", file=sys.stderr, flush=True)
                group.append(check_scenario(ruleset, scenario, config=args.config, captains=captains,
                                            seeds=args.games, seed=args.seed, luck=args.luck_bound,
                                            luck_seeds=args.luck_games,
                                            clairvoyant_simulations=args.clairvoyant_simulations,
                                            workers=args.workers, backend=args.backend, address=args.address,
                                            progress=not args.no_progress))
            by_ruleset.append(group)
            ruleset_seconds.append(time.monotonic() - ruleset_started)
    except (EvaluationInputError, ConfigError) as exc:
        return error(str(exc))
    print("\n".join(to_markdown(group) for group in by_ruleset), end="")
    checks = [check for group in by_ruleset for check in group]
    if len(by_ruleset) > 1:
        passing = sum(check.verdict == "balanced" for check in checks)
        print(f"\n{passing} of {len(checks)} scenarios balanced")
    seconds = time.monotonic() - started
    print(f"{sum(c.games for c in checks)} games (luck bound: {sum(2 * c.luck_seeds for c in checks)}) "
          f"in {seconds:.0f} s", file=sys.stderr)
    if args.rules_pages:
        from naval_agents.evaluation.scenario_page import write_rules_page

        machine = f"{os.cpu_count()} CPU cores"
        for group, spent in zip(by_ruleset, ruleset_seconds, strict=True):
            written = write_rules_page(group[0].ruleset, group, check_command(args, group[0].ruleset), spent,
                                       machine)
            print(f"wrote {written}" if written else f"{group[0].ruleset} has no rules page here", file=sys.stderr)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"seconds": round(seconds, 1), "checks": [c.to_dict() for c in checks]},
                                        indent=2) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0


def check_command(args: argparse.Namespace, ruleset: str) -> str:
    """The command that measures one ruleset's block as ``args`` did (for a rules page)."""
    from naval_agents.evaluation.scenario_check import DEFAULT_CLAIRVOYANT_SIMULATIONS

    parts = ["naval-tactics scenario check", f"--ruleset {ruleset}", f"--games {args.games}", f"--seed {args.seed}"]
    if args.config:
        parts.append(f"--config {args.config}")
    if args.scenario:
        parts.append(f"--scenario {' '.join(args.scenario)}")
    if args.strongest:
        parts.append(f"--strongest {args.strongest}")
    if args.sound:
        parts.append(f"--sound {' '.join(args.sound)}")
    if args.luck_bound:
        parts.append(f"--luck-games {args.luck_games}")
        if args.clairvoyant_simulations != DEFAULT_CLAIRVOYANT_SIMULATIONS:
            parts.append(f"--clairvoyant-simulations {args.clairvoyant_simulations}")
    else:
        parts.append("--no-luck-bound")
    return " ".join(parts)


def _balance(args: argparse.Namespace) -> int:
    from naval_agents.evaluation.balance import Point, balance_scenario, points_table
    from naval_agents.evaluation.scenario_check import SIDE_BALANCE, CheckCaptains
    from naval_agents.evaluation.tournament import (
        EvaluationInputError,
        check_backend,
        check_workers,
    )
    from naval_env.core.errors import ConfigError

    for flag, value in (("--games-per-point", args.games_per_point), ("--rounds", args.rounds)):
        if value < 1:
            return error(f"{flag} must be at least 1, got {value}")
    if not 0 <= args.min_decisiveness <= 1:
        return error(f"--min-decisiveness is a share of seeds, 0 to 1; got {args.min_decisiveness}")
    default = CheckCaptains.default(args.ruleset)
    captains = CheckCaptains.of(args.captain or default.strongest,
                                args.captains if args.captains is not None else default.sound[1:])

    def show(point: Point, played: bool) -> None:
        values = ", ".join(f"{x:g}" for x in point.values)
        print(f"  ({values}): seat balance {point.balance.text()}, mirror {point.mirror.text()}, decisiveness "
              f"{point.decisiveness:.2f}"
              f"{'' if played else ' (cached)'}", file=sys.stderr, flush=True)

    started = time.monotonic()
    try:
        check_workers(args.workers)
        check_backend(args.backend, args.address)
        result = balance_scenario(args.ruleset, args.scenario, args.vary, args.out, config=args.config,
                                  captains=captains, seeds=args.games_per_point, seed=args.seed, rounds=args.rounds,
                                  cache=args.cache, resume=args.resume, min_decisiveness=args.min_decisiveness,
                                  workers=args.workers, backend=args.backend, address=args.address, on_point=show)
    except (EvaluationInputError, ConfigError) as exc:
        return error(str(exc))
    print(f"{args.ruleset} / {result.scenario}: seat balance and decisiveness among {', '.join(captains.sound)}, "
          f"mirror of {captains.strongest}; {result.seeds} seeds from {result.seed}, {result.games_per_point} games a "
          "point (the same seeds at every point)")
    print()
    print(points_table(result))
    for variation, bracket in zip(result.variations, result.brackets, strict=True):
        where = (f"0.50 not bracketed in {variation.low:g}..{variation.high:g} (the last pass kept the nearer)"
                 if bracket is None else f"0.50 reached at {bracket[0]:g}" if bracket[0] == bracket[1]
                 else f"0.50 crossed between {bracket[0]:g} and {bracket[1]:g}")
        print(f"{variation.path}: {where}")
    chosen = ", ".join(f"{v.path}{' +' if v.offset else '='}{x:g}" for v, x in zip(result.variations,
                                                                                  result.best.values))
    print(f"chosen: {chosen}: seat balance {result.best.balance.text()} (was {result.start.balance.text()}), "
          f"decisiveness {result.best.decisiveness:.2f}"
          + ("" if result.decisive else f", UNDER the threshold {result.min_decisiveness:.2f}")
          + ("" if SIDE_BALANCE[0] <= result.best.balance.score <= SIDE_BALANCE[1]
             else f"; STILL LOPSIDED: no point played reached {SIDE_BALANCE[0]:.2f}..{SIDE_BALANCE[1]:.2f}"))
    print(f"wrote {args.out}; {result.evaluated} points played now, {len(result.points) - result.evaluated} from "
          f"the cache, in {time.monotonic() - started:.0f} s")
    return 0
