"""``naval-tactics league``: a persistent league of captains in one SQLite file (docs/league.md).

    naval-tactics league --db L.sqlite add --ruleset pantheon [--scenario duel] gunner rammer random
    naval-tactics league --db L.sqlite play --games 50 [--workers 2] [--pairings A:B ...]
                                            [--sprt elo0=0,elo1=5,alpha=0.05,beta=0.05]
    naval-tactics league --db L.sqlite status [--json]

Every finished game is committed at once; after a crash or Ctrl-C the same ``play`` resumes with the
missing games. Adding a captain later and playing again plays only its new pairings.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from naval_env.core.errors import NavalError
from naval_env.core.ruleset import ruleset_ids

PROG = "naval-tactics league"


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line and exit status 2, like every other input error here."""

    def __init__(self, **kwargs: Any) -> None:
        # no abbreviated flags: `--game 3` is refused, not quietly read as `--games 3`
        super().__init__(**{"allow_abbrev": False, **kwargs})

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def make_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="A persistent league of captains in one SQLite file: add captains, "
                                            "play the missing games (each committed at once), show ratings.",
                     epilog="the league file remembers its ruleset, scenario and captains; see docs/league.md")
    parser.add_argument("--db", required=True, metavar="FILE", help="the league file (SQLite); add creates it")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION", parser_class=_Parser)
    add = actions.add_parser("add", help="create the league (with --ruleset) and add captains to it",
                             description="Add captains; a new file needs --ruleset (and takes --scenario, --config, "
                                         "--seed). Files are hashed: a changed file must be added under a new name.")
    add.add_argument("captains", nargs="+", metavar="CAPTAIN",
                     help="random, a scripted name, zoo or a level, search[:N], a run folder, a model .zip or an "
                          ".onnx export; NAME=SPEC names it (e.g. twin=gunner)")
    add.add_argument("--ruleset", choices=ruleset_ids(), help="the league's ruleset (needed to create it)")
    add.add_argument("--scenario", help="the league's scenario (default: the ruleset's default)")
    add.add_argument("--config", help="ruleset config YAML (default: the shipped one)")
    add.add_argument("--seed", type=int, default=0,
                     help="first seed of every pairing, fixed when the league is created (default 0)")
    play = actions.add_parser("play", help="play the missing games, committing each as it finishes",
                              description="Play the missing games of every pairing (or --pairings), N seeds × 2 "
                                          "sides each, the same games evaluate.py plays for the same seeds.")
    play.add_argument("--games", type=int, default=50,
                      help="seeds per pairing, each played twice with sides swapped (default 50: 100 games)")
    play.add_argument("--pairings", nargs="+", default=[], metavar="A:B", help="only these pairings, by name")
    play.add_argument("--workers", type=int, default=1, help="worker processes (default 1: this process)")
    play.add_argument("--sprt", metavar="elo0=0,elo1=5,alpha=0.05,beta=0.05",
                      help="stop each pairing once a sequential test decides it (keys left out keep these "
                           "defaults); --games is then the most seeds a pairing plays")
    play.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    status = actions.add_parser("status", help="ratings, win rates with intervals and SPRT state",
                                description="Ratings (OpenSkill) with intervals, per-pairing win rates with Wilson "
                                            "95%% intervals and the SPRT state of each pairing.")
    status.add_argument("--json", action="store_true", help="print JSON instead of tables")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    from naval_agents.league.db import LeagueError
    from naval_agents.league.sprt import SprtError

    try:
        return {"add": run_add, "play": run_play, "status": run_status}[args.action](args)
    except (LeagueError, SprtError, NavalError) as exc:
        print(f"{PROG}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:   # e.g. a read-only or full disk: the transaction in progress was rolled back
        print(f"{PROG}: error: {args.db}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:   # before play began (loading captains) or after it ended: nothing half-written
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


class LeagueStoredError(NavalError):
    """A league file whose stored ruleset, scenario or config no longer loads."""


def run_add(args: argparse.Namespace) -> int:
    from naval_agents.league.roster import add

    try:
        league, fresh = add(args.db, args.captains, ruleset=args.ruleset, scenario=args.scenario, config=args.config,
                            first_seed=args.seed)
    except NavalError:
        raise
    except ValueError as exc:   # the league's stored ruleset settings no longer load (a scenario edited by hand)
        raise LeagueStoredError(f"{args.db}: the league's stored settings do not load: {exc}; fix the file's meta "
                                "table, or start a new league file") from None
    with league:
        info = league.info
        names = [c.name for c in fresh]
        print(f"{args.db}: {info.ruleset} {info.ruleset_version} / {info.scenario}, first seed {info.first_seed}; "
              f"added {', '.join(names) if names else 'no new captain'}; "
              f"captains: {', '.join(c.name for c in league.captains())}")
    return 0


def run_play(args: argparse.Namespace) -> int:
    from naval_agents.evaluation.report import make_console
    from naval_agents.league.db import open_league
    from naval_agents.league.play import play
    from naval_agents.league.sprt import parse_sprt

    sprt = parse_sprt(args.sprt) if args.sprt is not None else None
    with open_league(args.db) as league:
        report = play(league, args.games, pairings=args.pairings, workers=args.workers, sprt=sprt,
                      progress=not args.no_progress)
        console = make_console()
        for a, b in report.skipped:
            console.print(f"{a} vs {b}: already decided by its SPRT; no games played")
        if report.interrupted:
            console.print(f"interrupted: the {report.played} game(s) this run finished are committed; run the same "
                          "command again to play the rest")
            return 130
        console.print(f"played {report.played} game(s)")
        print_status(league, console)
    return 0


def run_status(args: argparse.Namespace) -> int:
    from naval_agents.league.db import open_league

    with open_league(args.db) as league:
        if args.json:
            print(json.dumps(status_json(league), indent=2))
        else:
            from naval_agents.evaluation.report import make_console

            print_status(league, make_console())
    return 0


def status_json(league: Any) -> dict[str, Any]:
    from naval_agents.league.sprt import MODEL
    from naval_agents.league.standings import standings

    s = standings(league)
    info = s.info
    return {
        "league": {"ruleset": info.ruleset, "ruleset_version": info.ruleset_version, "scenario": info.scenario,
                   "config": info.config, "first_seed": info.first_seed, "created_at": info.created_at,
                   "games": s.games, "win_rate": "draws count half; interval: Wilson 95%",
                   "ratings": "openskill PlackettLuce refitted from every game in order (seed, swap, pairing); "
                              "interval: mu ± 1.96 sigma", "sprt_model": MODEL},
        "captains": [{"name": c.name, "spec": c.spec, "source": c.source, "sha256": c.sha256, "added_at": c.added_at}
                     for c in s.captains],
        "ratings": [{**r.to_dict(), "low": r.mu - 1.96 * r.sigma, "high": r.mu + 1.96 * r.sigma} for r in s.ratings],
        "pairings": [{"a": p.a.name, "b": p.b.name, **(p.summary.to_dict() if p.summary else {"games": 0}),
                      "sprt": p.sprt.to_dict() if p.sprt else None} for p in s.pairings],
    }


def sprt_cells(a: str, b: str, state: Any) -> tuple[str, str]:
    """What the test accepted, in the captains' names, and its LLR against the bound (pairs so far)."""
    if state is None:
        return "-", "-"
    p = state.params
    if state.decision is None:
        return "undecided (play more seeds)", f"{state.llr:.2f} in ({p.lower:.2f}, {p.upper:.2f}) ({state.pairs})"
    if state.decision == "H1":
        return f"H1: {a} {p.elo1:+g} Elo over {b}", f"{state.llr:.2f} >= {p.upper:.2f} ({state.pairs})"
    return f"H0: {a} not {p.elo1:+g} Elo over {b}", f"{state.llr:.2f} <= {p.lower:.2f} ({state.pairs})"


def print_status(league: Any, console: Any) -> None:
    from rich.table import Table

    from naval_agents.league.sprt import MODEL
    from naval_agents.league.standings import standings

    s = standings(league)
    info = s.info
    ratings = Table(title=f"League {league.path}: {info.ruleset} {info.ruleset_version} / {info.scenario}, "
                          f"{s.games} games; ratings (OpenSkill Plackett-Luce)", title_justify="left")
    for column in ("#", "captain", "mu", "sigma", "ordinal", "mu 95% interval", "games"):
        ratings.add_column(column, justify="left" if column == "captain" else "right")
    for rank, r in enumerate(s.ratings, start=1):
        ratings.add_row(str(rank), r.name, f"{r.mu:.2f}", f"{r.sigma:.2f}", f"{r.ordinal:.2f}",
                        f"[{r.mu - 1.96 * r.sigma:.2f}, {r.mu + 1.96 * r.sigma:.2f}]", str(r.games))
    ratings.caption = ("refitted from every game in (seed, swap, pairing) order; ordinal = mu - 3 sigma; "
                       "interval = mu ± 1.96 sigma")
    console.print(ratings)
    pairings = Table(title=f"Pairings (A added first; seeds from {info.first_seed}, each played with A on both sides)",
                     title_justify="left")
    for column in ("A vs B", "games", "W/D/L", "A's win rate [95% CI]", "SPRT", "LLR (pairs)"):
        pairings.add_column(column, justify="left" if column in ("A vs B", "SPRT") else "right")
    for p in s.pairings:
        m = p.summary
        pairings.add_row(f"{p.a.name} vs {p.b.name}", str(m.games if m else 0),
                         f"{m.wins}/{m.draws}/{m.losses}" if m else "-",
                         f"{m.win_rate:.2f} [{m.ci_low:.2f}, {m.ci_high:.2f}]" if m else "-",
                         *sprt_cells(p.a.name, p.b.name, p.sprt))
    pairings.caption = ("a draw counts half a win; CI: Wilson score interval; LLR: the SPRT's log-likelihood ratio "
                        "against the bound it crossed, or its two bounds while undecided")
    console.print(pairings)
    tests = dict.fromkeys(p.sprt.params for p in s.pairings if p.sprt)
    for params in tests:
        names = ", ".join(f"{p.a.name} vs {p.b.name}" for p in s.pairings if p.sprt and p.sprt.params == params)
        console.print(f"SPRT {params.text()} ({names}): {params.hypotheses()}. {MODEL}.")


if __name__ == "__main__":
    sys.exit(main())
