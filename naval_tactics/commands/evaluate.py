"""Evaluate captains against each other: paired games, win rates with Wilson intervals, OpenSkill ratings.

    naval-tactics evaluate --ruleset pantheon --scenario duel --captains random rammer gunner runs/x \
        --games 50 --out results/first [--pairings rammer:gunner x:rammer] [--replays] [--workers 2]
        [--backend ray [--address ray://head:10001]]
    naval-tactics evaluate --demo

Every pairing plays ``--games`` seeds, each twice with the sides swapped: N seeds × 2 sides
= 2N games per pairing. Writes results.json, pairings.csv, ratings.csv and games.csv to
``--out``, by default a new folder per run under the user's data folder (:func:`default_out`), so a
second run never collides with the first and nothing lands in the current folder unasked (and, with ``--replays``, one JSON-lines replay per game under ``<out>/replays``);
results already there are replaced only with ``--overwrite``. The logic lives in
``agents/evaluation``; this script only parses settings and prints. ``--backend ray`` plays
the games on Ray actors (``--workers`` of them; a local Ray, or the cluster at ``--address``)
with the same results, game for game, as the local backend.
"""

import argparse
import ast
import inspect
import sys
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, NoReturn, get_type_hints

from naval_agents.captains.extras import invoked_as
from naval_agents.captains.registry import make_captain
from naval_agents.distributed.ray_runtime import add_ray_arguments
from naval_agents.evaluation.report import (
    check_output_folder,
    clear_replays,
    games_phrase,
    make_console,
    print_report,
    render_match,
    write_results,
)
from naval_agents.evaluation.seat_paired import reference_name
from naval_agents.evaluation.tournament import (
    BACKENDS,
    EvaluationInputError,
    build_tournament,
    check_backend,
    check_workers,
    evaluate,
    load_captain,
    parse_entrant,
)
from naval_env.core.errors import ConfigError
from naval_env.core.ruleset import get_ruleset
from naval_env.envs.match import Match
from naval_tactics.paths import data_home

#: The shipped trained captain, its difficulty levels and pantheon's strongest scripted captain.
DEMO_CAPTAINS = ("zoo", "gunner", "easy", "normal", "hard", "expert")
DEMO_MATCH = ("zoo", "gunner")
DEMO_GAMES = 10
#: The settings the demo honours; it refuses the others rather than ignore them.
DEMO_SETTINGS = frozenset({"demo", "config", "seed", "workers", "backend", "address", "out", "overwrite",
                           "no_progress"})
#: Settings whose flags come from naval_agents.distributed.ray_runtime, worded as in every command with a backend.
RAY_SETTINGS = ("backend", "address")


@dataclass
class Settings:
    ruleset: str = "pantheon"
    """ruleset id (registered rulesets, e.g. pantheon)"""
    scenario: str | None = None
    """scenario of the ruleset's config (pantheon: duel, mixed_duel, squadron, fleet); default: the config's default"""
    config: str | None = None
    """ruleset config YAML; default: configs/rulesets/<ruleset>.yaml"""
    captains: list[str] = field(default_factory=list)
    """captains: random, a scripted name (rammer, gunner), a run folder, a model .zip or an .onnx export;
    NAME=SPEC gives one a short label"""
    pairings: list[str] = field(default_factory=list, metadata={"metavar": "A:B"})
    """explicit pairings A:B by label or spec, instead of a round robin of --captains"""
    games: int = 50
    """seeds per pairing, each played twice with the sides swapped: N seeds × 2 sides = 2N games per pairing"""
    seed: int = 0
    """first seed (0 or more): a pairing plays seeds seed, seed+1, ..., seed+games-1"""
    workers: int = 2
    """worker processes (1: play in this process), or Ray actors with --backend ray; results do not depend
    on it"""
    backend: str = "local"
    """local: this process or a process pool; ray: Ray actors (same results game for game)"""
    address: str | None = None
    """Ray cluster to join with --backend ray; default: a local Ray for this command"""
    out: str | None = None
    """output folder; default a new folder per run, <data>/naval-tactics/evaluations/<ruleset>_<scenario>_seed<seed>-<time>, <data> being $XDG_DATA_HOME or ~/.local/share (the demo writes only when given)"""
    overwrite: bool = False
    """replace the results (and replays) an earlier evaluation left in the output folder"""
    replays: bool = False
    """also write every game as a JSON-lines replay under <out>/replays"""
    reference: str | None = None
    """captain beside whose score each win rate is read: every pairing A vs B also shows A's score minus the
    reference's against B on the same seeds and seats, paired, with its interval; default the ruleset's strongest
    scripted captain (pantheon: gunner); none leaves the column out"""
    play_reference: bool = False
    """also play the reference against each opponent the pairings never set it against (itself too, as a
    mirror), on the same seeds, so every pairing has its seat-paired difference; those games are not rated"""
    no_progress: bool = False
    """hide the progress bar (it is hidden anyway when stderr is not a terminal)"""
    demo: bool = False
    """quick start: one zoo vs gunner pantheon duel (the shipped trained captain against the scripted gunner)
    shown decision by decision, then a round robin of zoo, gunner and the levels easy, normal, hard and expert
    (10 seeds × 2 sides = 20 games per pairing); takes only --config, --seed, --workers, --backend, --address,
    --out, --overwrite and --no-progress"""


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass, read from its source."""
    docs: dict[str, str] = {}
    body = ast.parse(inspect.getsource(cls)).body[0]
    assert isinstance(body, ast.ClassDef)
    for node, after in zip(body.body, body.body[1:]):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)):
            docs[node.target.id] = " ".join(str(after.value.value).split())
    return docs


class OneLineParser(argparse.ArgumentParser):
    """Argument errors as one line and exit status 2, like every other input error here."""

    def __init__(self, **kwargs: Any) -> None:
        # no abbreviated flags: `--game 3` is refused, not quietly read as `--games 3`
        super().__init__(**{"allow_abbrev": False, **kwargs})

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def make_parser(with_defaults: bool = True) -> argparse.ArgumentParser:
    """The command line of :class:`Settings`; ``with_defaults=False``: a setting not named is left out."""
    parser = OneLineParser(prog=invoked_as("evaluate"), description=__doc__.split("\n\n")[0],
                           formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    docs, hints, defaults = field_docs(Settings), get_type_hints(Settings), vars(Settings())
    for f in fields(Settings):
        if f.name in RAY_SETTINGS:
            continue
        flag, kind = f"--{f.name.replace('_', '-')}", hints[f.name]
        default = defaults[f.name] if with_defaults else argparse.SUPPRESS
        if kind is bool:
            parser.add_argument(flag, action="store_true", default=default, help=docs[f.name])
        elif kind == list[str]:
            parser.add_argument(flag, nargs="+", default=default, metavar=f.metadata.get("metavar", "SPEC"), help=docs[f.name])
        else:
            parser.add_argument(flag, type=int if kind is int else str, default=default, help=docs[f.name])
    add_ray_arguments(parser, backends=BACKENDS, default=defaults["backend"])
    if not with_defaults:
        parser.set_defaults(**dict.fromkeys(RAY_SETTINGS, argparse.SUPPRESS))
    return parser


def parse_settings(argv: list[str] | None = None) -> Settings:
    return Settings(**vars(make_parser().parse_args(argv)))


def given_settings(argv: list[str] | None = None) -> set[str]:
    """The settings named on the command line (whatever their value)."""
    return set(vars(make_parser(with_defaults=False).parse_args(argv)))


def check_demo_flags(argv: list[str] | None = None) -> None:
    refused = sorted(given_settings(argv) - DEMO_SETTINGS)
    if refused:
        flags = ", ".join("--" + name.replace("_", "-") for name in refused)
        allowed = ", ".join("--" + name.replace("_", "-") for name in sorted(DEMO_SETTINGS - {"demo"}))
        raise EvaluationInputError(f"--demo plays a fixed pantheon duel and round robin, so it does not take "
                                   f"{flags}; drop them, or leave out --demo (the demo takes {allowed})")


def run(settings: Settings) -> None:
    """Play the tournament the settings describe, print the tables and write the files."""
    started = time.perf_counter()
    tournament = build_tournament(settings.ruleset, settings.captains, settings.games, scenario=settings.scenario,
                                  pairings=settings.pairings, seed=settings.seed, config=settings.config)
    check_workers(settings.workers)
    check_backend(settings.backend, settings.address)
    out = settings.out or str(default_out(settings))
    check_output_folder(out, overwrite=settings.overwrite)
    if settings.overwrite:
        clear_replays(out)
    evaluation = evaluate(tournament, workers=settings.workers, progress=not settings.no_progress,
                          replay_dir=f"{out}/replays" if settings.replays else None,
                          backend=settings.backend, address=settings.address,
                          reference=reference_spec(settings.ruleset, settings.reference, settings.config),
                          play_reference=settings.play_reference)
    console = make_console()
    print_report(evaluation, console)
    paths = write_results(evaluation, out)
    extra = (f" (and {len(evaluation.reference_results)} games of the reference {evaluation.reference}, not rated)"
             if evaluation.reference_results else "")
    console.print(f"{len(evaluation.results)} games{extra} in {time.perf_counter() - started:.1f}s; wrote "
                  + ", ".join(str(p) for p in paths) + (f" and {out}/replays/" if settings.replays else ""))


def reference_spec(ruleset: str, given: str | None, config: str | None = None) -> str | None:
    """The seat-paired reference: ``given``, the ruleset's strongest scripted captain when none is given, or no
    reference for ``none``. A given one is checked like any captain before a game is played."""
    if given is None:
        return reference_name(ruleset)
    if given == "none":
        return None
    rules = get_ruleset(ruleset)
    loaded = rules.load_config(config)
    load_captain(parse_entrant(given), ruleset, rules.action_spec(loaded), config=loaded)
    return given


def default_out(settings: Settings) -> Path:
    """Where results go without ``--out``: a folder named for the run and its start time, never one that exists."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = data_home() / "evaluations" / f"{settings.ruleset}_{settings.scenario or 'default'}_seed{settings.seed}"
    candidate, n = Path(f"{base}-{stamp}"), 1
    while candidate.exists():   # two runs in the same second
        n += 1
        candidate = Path(f"{base}-{stamp}-{n}")
    return candidate


def demo(settings: Settings) -> None:
    """One duel of the shipped captain against the strongest scripted one shown in full, then a round robin
    with the difficulty levels."""
    started = time.perf_counter()
    tournament = build_tournament("pantheon", DEMO_CAPTAINS, DEMO_GAMES, scenario="duel", seed=settings.seed,
                                  config=settings.config)
    check_workers(settings.workers)
    check_backend(settings.backend, settings.address)
    if settings.out:
        check_output_folder(settings.out, overwrite=settings.overwrite)
    console = make_console()
    match = Match("pantheon", settings.config, "duel")
    captains = {side: make_captain(name, "pantheon", match.action_spec, config=match.config)
                for side, name in zip(match.game.sides, DEMO_MATCH)}
    console.rule(f"one match: {' vs '.join(DEMO_MATCH)} on pantheon duel (zoo: the shipped trained captain)")
    console.print(render_match(match, captains, settings.seed), markup=False, highlight=False)
    console.rule(f"round robin: {', '.join(DEMO_CAPTAINS)}, {games_phrase(DEMO_GAMES)} per pairing")
    evaluation = evaluate(tournament, workers=settings.workers, progress=not settings.no_progress,
                          backend=settings.backend, address=settings.address,
                          reference=reference_spec("pantheon", None, settings.config))
    print_report(evaluation, console)
    if settings.out:
        write_results(evaluation, settings.out)
    console.print(f"demo done in {time.perf_counter() - started:.1f}s "
                  f"({len(evaluation.results)} games, {settings.workers} worker(s), backend {settings.backend})")


def main(argv: list[str] | None = None) -> int:
    settings = parse_settings(argv)
    try:
        if settings.demo:
            check_demo_flags(argv)
            demo(settings)
        else:
            run(settings)
    except (EvaluationInputError, ConfigError) as exc:   # ConfigError: Ray missing or out of reach
        print(f"{invoked_as('evaluate')}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:   # the workers ignore Ctrl-C, so this is the one message
        print(f"{invoked_as('evaluate')}: interrupted; the tables and results files are written only when every game has "
              "been played, so nothing was written (replays of finished games, if asked for, are kept)",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
