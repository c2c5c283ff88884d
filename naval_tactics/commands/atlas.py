"""``naval-tactics atlas``: every scripted and shipped trained captain in every scenario of every ruleset.

    naval-tactics atlas [--rulesets R ...] [--games N] [--seed S] [--workers N] [--out docs/atlas.md]
                        [--backend {local,ray}] [--address ADDR] [--no-progress]

Writes the markdown (win-rate matrices, side advantage, game lengths, a reading generated from the numbers)
and its figures in the folder of the same name beside it. The logic lives in ``agents/atlas``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn

from naval_agents.atlas.plan import BACKENDS, DEFAULT_GAMES, DEFAULT_OUT, AtlasError, AtlasSettings
from naval_agents.distributed.ray_runtime import add_ray_arguments
from naval_env.core.errors import NavalError
from naval_env.core.ruleset import ruleset_ids

PROG = "naval-tactics atlas"


class OneLineParser(argparse.ArgumentParser):
    """Argument errors as one line and exit status 2, like the command's other input errors."""

    def __init__(self, **kwargs: Any) -> None:
        # no abbreviated flags: `--game 3` is refused, not quietly read as `--games 3`
        super().__init__(**{"allow_abbrev": False, **kwargs})

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def make_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog=PROG, description="Play every scripted and shipped trained captain in every scenario of every "
                                       "ruleset and write the tactics atlas (markdown and figures).",
                           epilog=f"rulesets: {', '.join(ruleset_ids())}. Default size: {DEFAULT_GAMES} seeds per "
                                  "pairing, every ruleset: about 12 CPU-minutes (some 6 minutes on 2 idle cores).")
    parser.add_argument("--rulesets", nargs="+", default=[], metavar="RULESET",
                        help=f"rulesets to play (default: all of {', '.join(ruleset_ids())})")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES,
                        help="seeds per pairing, each played twice with the sides swapped (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default %(default)s)")
    parser.add_argument("--workers", type=int, default=2,
                        help="worker processes of the local backend (default %(default)s); results do not depend on it")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help="markdown file to write (default %(default)s); figures go to the folder of the same "
                             "name beside it")
    add_ray_arguments(parser, backends=BACKENDS, default="local")
    parser.add_argument("--no-progress", action="store_true", help="print nothing while the games are played")
    return parser


def settings_from(args: argparse.Namespace) -> AtlasSettings:
    return AtlasSettings(rulesets=tuple(args.rulesets), games=args.games, seed=args.seed, workers=args.workers,
                         backend=args.backend, address=args.address, out=args.out)


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    from naval_agents.atlas.build import make_atlas
    from naval_agents.atlas.plan import check_settings

    settings = settings_from(args)
    started = time.perf_counter()

    def report(games: object) -> None:
        from naval_agents.atlas.play import ScenarioGames

        assert isinstance(games, ScenarioGames)
        print(f"{games.plan.ruleset} / {games.plan.scenario}: {len(games.results) + len(games.mirror)} games "
              f"({time.perf_counter() - started:.0f}s so far)", file=sys.stderr, flush=True)

    try:
        check_settings(settings)
        atlas = make_atlas(settings, progress=not args.no_progress,
                           on_scenario=None if args.no_progress else report)
    except (AtlasError, NavalError, OSError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {atlas.markdown} and {len(atlas.figures)} figures in {settings.figures_dir}/ "
          f"in {time.perf_counter() - started:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
