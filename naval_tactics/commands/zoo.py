"""``naval-tactics zoo``: rebuild a ruleset's shipped captain, re-measure its ladder, or report how it generalizes.

    naval-tactics zoo build --ruleset R [--config RUN_CONFIG] [--seed 0] [--run RUN_FOLDER] [--games 400]
                            [--report-games 200] [--report-positions 200] [--workers 2]
    naval-tactics zoo ladder --ruleset R [--calibrate [--anchored] [--target 0.7] [--probe-games 100] [--check-games N]
                                          [--levels hard normal easy]]
                             [--games 400] [--other-games N] [--workers 2]
    naval-tactics zoo report --ruleset R [--captain zoo] [--games 100] [--positions N] [--seed S] [--out FILE]
                             [--card] [--workers 2]
    naval-tactics zoo value --ruleset R [--games 3000] [--first-seed SEED] [--epochs 30] [--out FOLDER]
    naval-tactics zoo list
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from naval_tactics.ruleset_names import ruleset_ids

if TYPE_CHECKING:
    from naval_agents.zoo.report import Report

TARGET = 0.70   # naval_agents.zoo.ladder.TARGET, without importing the evaluation stack for --help
REPORT_GAMES = 200   # naval_agents.zoo.build.REPORT_GAMES (and REPORT_POSITIONS): 400 paired games a cell
CALIBRATED = ("hard", "normal", "easy")   # the levels below expert, in the order calibration walks down
VALUE_GAMES = 3000   # naval_agents.zoo.value_build: what the shipped value networks were built from
MAX_VALUE_GAMES = 100_000
#: Exit status of a build stopped by Ctrl-C or SIGTERM (as ``train``'s: 128 + SIGINT).
STOPPED = 130


def make_parser() -> argparse.ArgumentParser:
    # The docstring's first paragraph without its reStructuredText quotes: --help is read in a terminal.
    parser = argparse.ArgumentParser(prog="naval-tactics zoo", description=__doc__.split("\n\n")[0].replace("``", ""),
                                     allow_abbrev=False)
    commands = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    build = commands.add_parser("build", allow_abbrev=False, help="train (or take --run), export, evaluate against every scripted "
                                              "captain, run the generalization report and write the model card")
    build.add_argument("--ruleset", required=True, choices=ruleset_ids(), help="the ruleset whose captain to rebuild")
    build.add_argument("--seed", type=int, default=0, help="training seed (default 0)")
    build.add_argument("--config", metavar="RUN_CONFIG", default=None,
                       help="run config to train: a shipped name (crew_phase_general) or a YAML path; with --run, the "
                            "config the run must have been trained by (default: the one the shipped captain's card "
                            "was built with, as its rebuild command names it; else configs/train/<ruleset>.yaml)")
    build.add_argument("--run", type=Path, metavar="RUN_FOLDER",
                       help="skip training: ship this run's final model (refused unless trained by the config)")
    build.add_argument("--games", type=int, default=400,
                       help="seeds per pairing, each played from both sides (default 400)")
    build.add_argument("--report-games", type=int, default=REPORT_GAMES, metavar="SEEDS",
                       help="generalization report: seeds per scenario and scripted captain, each played from both "
                            f"sides (default {REPORT_GAMES}: {2 * REPORT_GAMES} games a cell)")
    build.add_argument("--report-positions", type=int, default=REPORT_GAMES, metavar="N",
                       help="generalization report: mid-game positions per scenario, each played on from both seats "
                            f"(default {REPORT_GAMES})")
    build.add_argument("--workers", type=int, default=2, help="processes playing the evaluation games (default 2)")
    build.add_argument("--remeasure", action="store_true",
                       help="no training and no export: measure the shipped captain again (strength table and "
                            "report) and rewrite its card, e.g. after its ruleset's scenarios changed")
    ladder = commands.add_parser("ladder", allow_abbrev=False, help="re-measure the difficulty ladder in every scenario (and "
                                                "recalibrate it)")
    ladder.add_argument("--ruleset", required=True, choices=ruleset_ids(), help="the ruleset whose ladder to measure")
    ladder.add_argument("--calibrate", action="store_true",
                        help="first bisect each level's sampling temperature toward --target (writes agents/captains/zoo/levels.yaml)")
    ladder.add_argument("--anchored", action="store_true",
                        help="with --calibrate: anchor each level to a reference captain instead of the level above "
                             "(hard level with the strongest scripted captain, normal with the weakest, easy 0.70 "
                             "against random; agents/zoo/anchors.py)")
    ladder.add_argument("--anchor-games", type=int, default=100, metavar="SEEDS",
                        help="seeds a row of each scenario's anchor and stall table, each played from both sides: "
                             "hard/normal/easy against their reference captains, and zoo and each level against "
                             "the strongest scripted captain for the stall counts (default 100; 0: none)")
    ladder.add_argument("--target", type=float, default=TARGET,
                        help=f"with --calibrate: the win rate each level aims for against the one below it, "
                             f"0.6 to 0.8 (default {TARGET})")
    ladder.add_argument("--probe-games", type=int, default=100, metavar="SEEDS",
                        help="with --calibrate: seeds per calibration probe, each played from both sides "
                             "(default 100)")
    ladder.add_argument("--check-games", type=int, default=None, metavar="SEEDS",
                        help="with --calibrate: seeds per check of a chosen step in each other scenario, where a "
                             "broken step makes calibration try another temperature in the band (default: "
                             "--probe-games; 0: no checks)")
    ladder.add_argument("--levels", nargs="+", choices=CALIBRATED, default=list(CALIBRATED), metavar="LEVEL",
                        help="with --calibrate: the levels to recalibrate, the others keep their temperatures "
                             f"(choices: {', '.join(CALIBRATED)}; default all)")
    ladder.add_argument("--games", type=int, default=400,
                        help="seeds per step in the default scenario, each played from both sides (default 400)")
    ladder.add_argument("--no-steps", action="store_true",
                        help="measure no step (each level against the one below: expert's steps take hours); write "
                             "the levels and the anchor and stall tables, and mark the card's steps as measured "
                             "with the levels before, where the levels changed")
    ladder.add_argument("--other-games", type=int, default=None, metavar="SEEDS",
                        help="seeds per step in every other scenario, each played from both sides "
                             "(default: --games)")
    ladder.add_argument("--workers", type=int, default=2, help="processes playing the games (default 2)")
    report = commands.add_parser("report", allow_abbrev=False, help="a captain against every scripted captain in every scenario and "
                                                "from mid-game positions (agents/zoo/report.py)")
    report.add_argument("--ruleset", required=True, choices=ruleset_ids(), help="the ruleset whose captain to report on")
    report.add_argument("--captain", default="zoo",
                        help="the captain to judge: zoo (default), a level, a scripted name, a run folder, a .zip or "
                             "an .onnx export")
    report.add_argument("--games", type=int, default=None,
                        help="seeds per scenario and opponent, each played from both sides (default 100; "
                             f"{REPORT_GAMES} with --card: {2 * REPORT_GAMES} games a cell)")
    report.add_argument("--positions", type=int, default=None,
                        help="mid-game positions per scenario, each played on from both seats (default: --games)")
    report.add_argument("--seed", type=int, default=None, help="first seed (default 20000000: no training uses it)")
    report.add_argument("--out", type=Path, metavar="FILE",
                        help="write the markdown here and the JSON beside it (FILE with .json); default: print")
    report.add_argument("--card", action="store_true",
                        help="write the report onto the zoo captain's model card and its rules page "
                             "(only for --captain zoo)")
    report.add_argument("--workers", type=int, default=2, help="processes playing the games (default 2)")
    value = commands.add_parser("value", allow_abbrev=False, help="play games and fit the ruleset's value network, "
                                                 "the leaf of expert's search (agents/zoo/value_build.py)")
    value.add_argument("--ruleset", required=True, choices=ruleset_ids(), help="the ruleset whose value network to build")
    value.add_argument("--games", type=int, default=VALUE_GAMES,
                       help=f"games played over the ruleset's scenarios (default {VALUE_GAMES})")
    value.add_argument("--first-seed", type=int, default=None, metavar="SEED",
                       help="the first game's seed (default: the build's own range, which no evaluation uses)")
    value.add_argument("--epochs", type=int, default=30, help="passes over the positions (default 30)")
    value.add_argument("--out", type=Path, metavar="FOLDER", default=None,
                       help="write <ruleset>.value.npz and its card here (default: the shipped captains' folder)")
    commands.add_parser("list", allow_abbrev=False, help="the shipped captains and their cards")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    from naval_agents.captains.zoo import card_path, zoo_rulesets

    if args.action == "list":
        for ruleset_id in zoo_rulesets():
            print(f"{ruleset_id:<12} {card_path(ruleset_id)}")
        return 0
    if args.action == "value":
        return _value(args)
    if args.action == "report" and args.games is None:
        args.games = REPORT_GAMES if args.card else 100
    if args.games < 1 or args.workers < 1:
        print("naval-tactics zoo: error: --games and --workers must be at least 1", file=sys.stderr)
        return 2
    if args.action == "report":
        return _report(args)
    if args.action == "ladder":
        problem = _ladder_problem(args)
        if problem:
            print(f"naval-tactics zoo: error: {problem}", file=sys.stderr)
            return 2
    if args.action == "build":
        problem = _build_problem(args)
        if problem:
            print(f"naval-tactics zoo: error: {problem}", file=sys.stderr)
            return 2
        if not args.remeasure and not _has_training("naval-tactics zoo build"):   # measuring needs no torch
            return 2
        from naval_agents.captains.zoo.catalogue import ZooError
        from naval_agents.training.checkpoints import TrainingStopped
        from naval_agents.zoo.build import build_entry
        from naval_env.core.errors import ConfigError

        config = build_config(args.ruleset, args.config)
        again = f"naval-tactics zoo build --ruleset {args.ruleset} --config {config} --run RUN_FOLDER"
        try:
            with sigterm_stops():
                card = build_entry(args.ruleset, seed=args.seed, run_folder=args.run, seeds=args.games,
                                   workers=args.workers, config=config, report_games=args.report_games,
                                   report_positions=args.report_positions, remeasure=args.remeasure)
        except (ZooError, ConfigError) as exc:
            print(f"naval-tactics zoo: error: {exc}", file=sys.stderr)
            return 2
        except TrainingStopped as stopped:   # the training wrote its checkpoint and says how to resume
            print(f"naval-tactics zoo: {stopped}\nonce trained, ship the run with: {again}", file=sys.stderr)
            return STOPPED
        except KeyboardInterrupt:
            print("naval-tactics zoo: stopped before the card was written (files exported so far stay; the card "
                  f"still describes the previous captain); to finish from a trained run: {again}", file=sys.stderr)
            return STOPPED
        print(f"wrote {card}")
        return 0
    return _ladder(args)


def _has_training(command: str) -> bool:
    """Whether the [train] extra is installed; if not, says what to install for ``command``."""
    from naval_agents.captains.extras import MissingExtraError, require_training

    try:
        require_training(command)
    except MissingExtraError as exc:
        print(f"naval-tactics zoo: error: {exc}", file=sys.stderr)
        return False
    return True


def _value(args: argparse.Namespace) -> int:
    if not 1 <= args.games <= MAX_VALUE_GAMES or not 1 <= args.epochs <= 1000:
        print(f"naval-tactics zoo: error: --games must be 1 to {MAX_VALUE_GAMES} and --epochs 1 to 1000",
              file=sys.stderr)
        return 2
    if not _has_training("naval-tactics zoo value"):
        return 2
    from naval_agents.captains.zoo.catalogue import CAPTAINS_DIR
    from naval_agents.zoo.value_build import DEFAULT_FIRST_SEED, build

    first = DEFAULT_FIRST_SEED if args.first_seed is None else args.first_seed
    card = build(args.ruleset, args.games, first, directory=args.out or CAPTAINS_DIR, epochs=args.epochs)
    print(f"value network of {args.ruleset}: {card['positions']} positions from {args.games} games; held-out "
          f"squared error {card['holdout_mse']} (hull fractions {card['hull_mse']}, a constant {card['constant_mse']}); "
          f"{card['seconds']} s")
    return 0


def _ladder(args: argparse.Namespace) -> int:
    from naval_agents.zoo.ladder import (
        calibrate,
        measure_elsewhere,
        measure_ladder,
        record_ladder,
        write_levels,
    )
    from naval_agents.zoo.monotone import scenario_ladder, summary_lines, to_markdown
    from naval_env.core.ruleset import get_ruleset

    rules = get_ruleset(args.ruleset)
    config = rules.load_config()
    scenario = config.default_scenario
    others = [name for name in rules.scenarios(config) if name != scenario]
    if args.calibrate and args.anchored:
        from naval_agents.zoo.anchors import calibrate_anchored, describe

        anchored = calibrate_anchored(args.ruleset, scenario, probe_seeds=args.probe_games, workers=args.workers)
        write_levels(args.ruleset, anchored.levels)
        for line in describe(anchored):
            print(line, file=sys.stderr)
    elif args.calibrate:
        check_games = args.probe_games if args.check_games is None else args.check_games
        calibration = calibrate(args.ruleset, scenario, workers=args.workers, target=args.target,
                                probe_seeds=args.probe_games, check_scenarios=others if check_games else (),
                                check_seeds=check_games, only=args.levels)
        write_levels(args.ruleset, calibration.levels)
        for level, scenarios in calibration.broken().items():
            print(f"warning: no {level} temperature in the band keeps its step unbroken in {', '.join(scenarios)}",
                  file=sys.stderr)
    if args.no_steps:
        from naval_agents.zoo.ladder import record_anchor_tables

        tables = _anchor_tables(args, [scenario, *others])
        print(f"wrote {record_anchor_tables(args.ruleset, tables)}")
        return 0
    print(f"{args.ruleset} / {scenario} ...", file=sys.stderr, flush=True)
    evaluation = measure_ladder(args.ruleset, scenario, seeds=args.games, workers=args.workers)
    other_games = args.games if args.other_games is None else args.other_games
    elsewhere = []
    for name in others:
        print(f"{args.ruleset} / {name} ...", file=sys.stderr, flush=True)
        elsewhere += measure_elsewhere(args.ruleset, [name], other_games, workers=args.workers)
    ladders = [scenario_ladder(evaluation), *elsewhere]
    print("\n".join([*to_markdown(ladders, scenario), "", *summary_lines(ladders, scenario)]))
    tables = _anchor_tables(args, [scenario, *others])
    print(f"wrote {record_ladder(args.ruleset, scenario, args.games, evaluation, elsewhere=elsewhere, anchors=tables)}")
    return 0


def _anchor_tables(args: argparse.Namespace, scenarios: list[str]) -> list[dict[str, object]]:
    """Each scenario's anchor and stall table (``--anchor-games``; none for 0), printed as it is measured."""
    if not args.anchor_games:
        return []
    from naval_agents.captains.search.captain import default_rollout
    from naval_agents.zoo.anchor_table import measure_anchor_table
    from naval_agents.zoo.anchors import weakest_scripted
    from naval_agents.zoo.card import anchor_markdown

    weakest = weakest_scripted(args.ruleset, scenarios[0], default_rollout(args.ruleset), args.anchor_games,
                               args.workers)
    tables = []
    for name in scenarios:
        print(f"{args.ruleset} / {name}: anchors and stalls ...", file=sys.stderr, flush=True)
        table = measure_anchor_table(args.ruleset, name, args.anchor_games, weakest, workers=args.workers)
        print("\n".join(anchor_markdown(table)))
        tables.append(table)
    return tables


def build_config(ruleset_id: str, given: str | None) -> str:
    """The run config a build trains (or checks ``--run`` against): ``given``, else the one the shipped captain's
    card was built with (its rebuild command names it: ``pantheon_general`` for pantheon), else the ruleset's
    own ``configs/train/<ruleset>.yaml``. Rebuilding with no ``--config`` thus remakes the captain that ships."""
    if given is not None:
        return given
    from naval_agents.captains.zoo.catalogue import recorded_rebuild_command

    words = recorded_rebuild_command(ruleset_id).split()
    return words[words.index("--config") + 1] if "--config" in words[:-1] else ruleset_id


@contextmanager
def sigterm_stops() -> Iterator[None]:
    """SIGTERM stops a build as Ctrl-C does (a KeyboardInterrupt, caught by the command), not with a traceback;
    while the training runs, its own handler takes both signals and checkpoints first."""
    def stop(_sig: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _build_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the build's report flags, or None: checked before hours of training."""
    from naval_agents.zoo.report import MAX_GAMES

    for flag, value in (("--report-games", args.report_games), ("--report-positions", args.report_positions)):
        if not 1 <= value <= MAX_GAMES:
            return f"{flag} {value}: give 1 to {MAX_GAMES}"
    if args.remeasure and (args.run is not None or args.config is not None or args.seed != 0):
        return "--remeasure measures the shipped captain as it is: it takes no --run, --config or --seed"
    return None


def _ladder_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the ladder's calibration flags, or None."""
    given = [flag for flag, value, default in (("--target", args.target, TARGET),
                                                ("--probe-games", args.probe_games, 100),
                                                ("--check-games", args.check_games, None),
                                                ("--levels", args.levels, list(CALIBRATED)),
                                                ("--anchored", args.anchored, False)) if value != default]
    if given and not args.calibrate:
        return f"{', '.join(given)}: needs --calibrate"
    step_only = [flag for flag in given if flag in ("--target", "--check-games", "--levels")]
    if args.anchored and step_only:
        return (f"{', '.join(step_only)}: calibrates the steps between levels; --anchored aims each level at its "
                "reference captain and takes only --probe-games")
    if not 0.6 <= args.target <= 0.8:
        return f"--target {args.target}: aim for a win rate from 0.6 to 0.8"
    if args.probe_games < 1:
        return "--probe-games must be at least 1"
    if args.check_games is not None and args.check_games < 0:
        return "--check-games must be 0 (no checks) or more"
    if args.other_games is not None and args.other_games < 1:
        return "--other-games must be at least 1"
    if args.anchor_games < 0:
        return "--anchor-games must be 0 (no anchor table) or more"
    if args.no_steps and not args.anchor_games:
        return "--no-steps with --anchor-games 0 would measure nothing"
    return None


def _report_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with ``--card``, or None: only the shipped zoo captain's report goes on its card."""
    from naval_agents.captains.zoo.catalogue import ZOO_CAPTAIN, has_zoo_captain

    if not args.card:
        return None
    if args.captain != ZOO_CAPTAIN:
        return (f"--card writes onto the zoo captain's model card, so it reports only --captain {ZOO_CAPTAIN} "
                f"(got --captain {args.captain}); drop --card, or use --out FILE for another captain's report")
    if not has_zoo_captain(args.ruleset):
        return f"--card: no zoo captain ships for {args.ruleset}; build one with naval-tactics zoo build"
    return None


def _report(args: argparse.Namespace) -> int:
    import time

    from naval_agents.evaluation.tournament import EvaluationInputError
    from naval_agents.zoo.report import (
        REPORT_SEED,
        generalization_report,
        to_markdown,
        write_report,
    )

    problem = _report_problem(args)
    if problem:
        print(f"naval-tactics zoo: error: {problem}", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        report = generalization_report(args.ruleset, args.captain, games=args.games, positions=args.positions,
                                       seed=REPORT_SEED if args.seed is None else args.seed, workers=args.workers,
                                       on_scenario=lambda name: print(f"{args.ruleset} / {name} ...",
                                                                      file=sys.stderr, flush=True))
    except EvaluationInputError as exc:
        print(f"naval-tactics zoo: error: {exc}", file=sys.stderr)
        return 2
    seconds = time.monotonic() - started
    if args.out is not None:
        markdown, data = write_report(report, args.out)
        print(f"wrote {markdown} and {data}")
    if args.card:
        return _write_onto_card(report, seconds, args.workers)
    if args.out is None:
        print(to_markdown(report), end="")
    return 0


def _write_onto_card(report: Report, seconds: float, workers: int) -> int:
    """Put the report onto the zoo card (the rules page's block follows from the card's facts)."""
    from naval_agents.captains.zoo.catalogue import ZooError
    from naval_agents.page_blocks import RULES_DIR
    from naval_agents.zoo.card import record_report
    from naval_agents.zoo.report_card import report_facts

    try:
        card = record_report(report.ruleset, report_facts(report, seconds, workers))
    except ZooError as exc:
        print(f"naval-tactics zoo: error: {exc}", file=sys.stderr)
        return 2
    page = RULES_DIR / f"{report.ruleset}.md"
    print(f"wrote {card}" + (f" and the report block of {page}" if page.is_file() else ""))
    return 0
