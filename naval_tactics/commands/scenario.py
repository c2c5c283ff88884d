"""``naval-tactics scenario``: check whether a scenario is balanced, decided by its captains or by its dice.

    naval-tactics scenario check --ruleset R [--scenario S ...] [--games 50] [--seed S] [--config YAML]
                                 [--strongest SPEC] [--sound SPEC ...] [--no-luck-bound] [--luck-games 10]
                                 [--clairvoyant-simulations 8] [--workers 2] [--backend ray] [--json PATH]

The measurements and verdicts are described in agents/evaluation/scenario_check.py and docs/scenarios.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from naval_env.core.ruleset import ruleset_ids

#: First seed of a check: no training (0.., 3e6, 5e6, 7e6), quick evaluation (1e7) or zoo report (2e7) uses it.
CHECK_SEED = 30_000_000
PROG = "naval-tactics scenario"


def make_parser() -> argparse.ArgumentParser:
    from agents.distributed.ray_runtime import add_ray_arguments
    from agents.evaluation.scenario_check import (
        DEFAULT_CLAIRVOYANT_SIMULATIONS,
        DEFAULT_LUCK_SEEDS,
        DEFAULT_SEEDS,
    )
    from agents.evaluation.tournament import BACKENDS

    parser = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0].replace("``", ""))
    commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = commands.add_parser(
        "check", help="side balance, skill spread, decisiveness and luck bound of each scenario, with a verdict",
        description="Play every ordered pair of sound captains (the strongest and every scripted one but random) "
                    "and the strongest against random on the same seeds; print a table and the verdicts "
                    "(balanced / lopsided / luck-dominated) with their thresholds.")
    check.add_argument("--ruleset", required=True, choices=ruleset_ids(), help="the ruleset whose scenarios to check")
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
                       help="processes (or Ray actors) playing the block; the luck bound plays in this process "
                            "(default %(default)s)")
    add_ray_arguments(check, backends=BACKENDS, default="local")
    check.add_argument("--json", type=Path, metavar="PATH", help="also write every measurement as JSON here")
    check.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    if args.action == "check":
        return _check(args)
    return error(f"unknown action {args.action!r}")   # argparse's choices keep this unreachable


def _check(args: argparse.Namespace) -> int:
    from agents.evaluation.scenario_check import CheckCaptains, check_scenario, to_markdown
    from agents.evaluation.tournament import EvaluationInputError, check_backend, check_workers
    from naval_env.core.errors import ConfigError
    from naval_env.core.ruleset import get_ruleset

    for flag, value in (("--games", args.games), ("--luck-games", args.luck_games),
                        ("--clairvoyant-simulations", args.clairvoyant_simulations)):
        if value < 1:
            return error(f"{flag} must be at least 1, got {value}")
    if args.seed < 0:
        return error(f"--seed must be 0 or more, got {args.seed}")
    started = time.monotonic()
    try:
        check_workers(args.workers)
        check_backend(args.backend, args.address)
        rules = get_ruleset(args.ruleset)
        config = rules.load_config(args.config)
        known = rules.scenarios(config)
        unknown = [s for s in args.scenario or () if s not in known]
        if unknown:
            return error(f"unknown {args.ruleset} scenario(s) {', '.join(unknown)}; choose from {', '.join(known)}")
        default = CheckCaptains.default(args.ruleset)
        captains = CheckCaptains.of(args.strongest or default.strongest,
                                    args.sound if args.sound is not None else default.sound[1:])
        checks = []
        for scenario in args.scenario or known:
            print(f"{args.ruleset} / {scenario} ...", file=sys.stderr, flush=True)
            checks.append(check_scenario(args.ruleset, scenario, config=args.config, captains=captains,
                                         seeds=args.games, seed=args.seed, luck=args.luck_bound,
                                         luck_seeds=args.luck_games,
                                         clairvoyant_simulations=args.clairvoyant_simulations,
                                         workers=args.workers, backend=args.backend, address=args.address,
                                         progress=not args.no_progress))
    except (EvaluationInputError, ConfigError) as exc:
        return error(str(exc))
    print(to_markdown(checks), end="")
    seconds = time.monotonic() - started
    print(f"{sum(c.games for c in checks)} games (luck bound: {sum(2 * c.luck_seeds for c in checks)}) "
          f"in {seconds:.0f} s", file=sys.stderr)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"seconds": round(seconds, 1), "checks": [c.to_dict() for c in checks]},
                                        indent=2) + "\n")
        print(f"wrote {args.json}", file=sys.stderr)
    return 0
