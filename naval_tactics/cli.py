"""The ``naval-tactics`` command: one parser, one subcommand per job, each a thin call into a function.

    naval-tactics list [--ruleset R] [--captains-dir DIR] [--json]
    naval-tactics serve [--host 127.0.0.1] [--port 8765] [--captains-dir DIR] [--max-games N] ...

A subcommand is a function that adds its parser to :data:`SUBCOMMANDS` and sets ``run`` to a
function of the parsed arguments returning the exit status; adding one is one function and one line.

Starting is kept under a second: nothing here imports the rules, the captains or the server until a
command runs (the rulesets' names for ``--help`` come from their folders, as the registry finds them),
and a subcommand whose flags need a heavy import adds them only when it is the command given.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from naval_tactics import __version__
from naval_tactics.paths import default_game_store
from naval_tactics.ruleset_names import ruleset_ids

Subparsers = Any  # argparse's _SubParsersAction is private


class CommandError(Exception):
    """A refusal the command prints as ``error: ...`` with exit status 2 (bad settings, a bad export)."""


def add_parser(subparsers: Subparsers, name: str, **kwargs: Any) -> argparse.ArgumentParser:
    """A subcommand's parser; like every parser of the toolkit it takes no abbreviated flags (``--captain``
    is not quietly read as ``--captains``)."""
    parser: argparse.ArgumentParser = subparsers.add_parser(name, allow_abbrev=False, **kwargs)
    return parser


# ------------------------------------------------------------------ list
def add_list(subparsers: Subparsers) -> None:
    parser = add_parser(subparsers, "list", help="rulesets, their scenarios and the captains known by name",
                                   description="List every ruleset with its version, scenarios and captains.")
    parser.add_argument("--ruleset", choices=ruleset_ids(), help="only this ruleset")
    parser.add_argument("--captains-dir", type=Path, metavar="DIR",
                        help="also list the exported captains (.onnx + sidecar) in this folder")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(run=run_list)


def catalogue_rows(ruleset: str | None = None, captains_dir: Path | None = None) -> list[dict[str, Any]]:
    """What ``list`` prints: one row per ruleset (id, version, scenarios, default, captains with their kind)."""
    from naval_tactics.catalogue import Catalogue, CatalogueError

    try:
        catalogue = Catalogue.load(captains_dir, [ruleset] if ruleset else None, load_models=False)
    except CatalogueError as exc:
        raise CommandError(str(exc)) from None
    return [
        {"id": entry.id, "version": entry.ruleset.version, "scenarios": list(entry.scenarios),
         "default_scenario": entry.default_scenario,
         "captains": [{"name": c.name, "kind": c.kind, "description": c.description}
                      for c in catalogue.captains(entry.id)]}
        for entry in catalogue.rulesets.values()
    ]


def run_list(args: argparse.Namespace) -> int:
    rows = catalogue_rows(args.ruleset, args.captains_dir)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    for row in rows:
        scenarios = ", ".join(f"{s}*" if s == row["default_scenario"] else s for s in row["scenarios"])
        print(f"{row['id']} {row['version']}")
        print(f"  scenarios: {scenarios}   (* default)")
        print("  captains:")
        for captain in row["captains"]:
            print(f"    {captain['name']:<12} {captain['kind']:<9} {captain['description']}")
    return 0


# ------------------------------------------------------------------ serve
def add_serve(subparsers: Subparsers) -> None:
    parser = add_parser(
        subparsers, "serve", help="run the captain server (HTTP + JSON; OpenAPI page at /docs)",
        description="Serve the captains to other apps over HTTP. Games are kept in an SQLite file (--store), "
                    "so they survive a restart and every worker (--workers) serves them.")
    # its defaults are the server's settings, and importing the server takes a second: flags when it is asked for
    parser.set_defaults(run=run_serve, late_arguments=add_serve_arguments)


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    from naval_tactics.server import DEFAULT_HOST, DEFAULT_PORT
    from naval_tactics.server.settings import ServerSettings

    fields = ServerSettings.model_fields
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to bind (default {DEFAULT_HOST}: this machine only; the server has no "
                             "authentication, so put it behind your own proxy before binding wider)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("--captains-dir", type=Path, metavar="DIR",
                        help="serve the exported captains (<name>.onnx + <name>.json) in this folder, each under "
                             "its file stem; they are checked at start-up (clients only ever send names)")
    parser.add_argument("--max-games", type=int, default=fields["max_games"].default,
                        help="games kept at once (default %(default)s)")
    parser.add_argument("--idle-seconds", type=float, default=fields["idle_seconds"].default,
                        help="drop a game after this long without a request (default %(default)s)")
    parser.add_argument("--max-body-bytes", type=int, default=fields["max_body_bytes"].default,
                        help="largest request body accepted (default %(default)s)")
    parser.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                        help="let web pages from ORIGIN (https://host:port, or * for any) call the server; "
                             "repeat for several (default: none)")
    parser.add_argument("--store", default=None, metavar="FILE|memory",
                        help="SQLite file keeping every game turn by turn (created when new), or 'memory' to keep "
                             f"them in this process only (lost on restart) (default {default_game_store()})")
    parser.add_argument("--workers", type=int, default=1,
                        help="server processes sharing the port and the store file (default %(default)s)")
    parser.add_argument("--search-workers", type=int, default=fields["search_workers"].get_default(call_default_factory=True),
                        help="processes per server worker that run search captains (expert:Nms), at low CPU "
                             "priority (default: half the cores, %(default)s here)")
    parser.add_argument("--max-searches", type=int, default=fields["max_searches"].default,
                        help="searches admitted at once per worker; one more answers 503 (default %(default)s)")
    parser.add_argument("--decision-timeout", type=float, default=fields["decision_timeout_s"].default, metavar="S",
                        help="longest a search request may take, waiting included; then 503 (default %(default)s)")
    parser.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                        help="also answer requests whose Host header names NAME (*.example.com for its subdomains, "
                             "* for any, behind a proxy that checks it); repeat for several (default: localhost "
                             "names and --host)")
    parser.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                        help="a reverse proxy whose X-Forwarded-For names the client (default: none; the client "
                             "is the connection's address)")
    parser.add_argument("--max-games-per-client", type=int, default=None, metavar="N",
                        help="live games one client address may keep (default: --max-games)")
    parser.add_argument("--max-requests-per-second", type=float, default=None, metavar="N",
                        help="requests one client address may send a second, in bursts of 2N (default: no limit)")
    parser.add_argument("--max-turns", type=int, default=fields["max_turns"].default,
                        help="turns one game may keep (default %(default)s)")
    parser.add_argument("--max-proposals", type=int, default=fields["max_proposals"].default,
                        help="captains' moves one game may keep unapplied, apply=false (default %(default)s)")
    parser.add_argument("--request-budget", type=float, default=fields["request_budget_s"].default, metavar="S",
                        help="longest a heavy request (replays, event listings, pictures) may take; then 503 "
                             "(default %(default)s)")
    parser.add_argument("--read-timeout", type=float, default=fields["read_timeout_s"].default, metavar="S",
                        help="time a request has to arrive whole; then 408 (default %(default)s)")
    parser.add_argument("--max-captain-bytes", type=int, default=fields["max_captain_bytes"].default,
                        help="largest file the captains folder may hold (default %(default)s)")
    parser.add_argument("--quarantine-damaged", action="store_true",
                        help="when SQLite finds the store file damaged at start, move it aside and start on a new "
                             "file with every game that still reads (default: refuse to start, saying how to recover)")
    parser.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"],
                        help="uvicorn's log level (default info)")


#: Settings whose flag is not the field's name with dashes.
_FLAGS = {"decision_timeout_s": "--decision-timeout", "cors_origins": "--cors-origin",
          "allowed_hosts": "--allowed-host", "trusted_proxies": "--trusted-proxy",
          "request_budget_s": "--request-budget", "read_timeout_s": "--read-timeout"}


def _flag_of(field: str) -> str:
    return _FLAGS.get(field, "--" + field.replace("_", "-"))


def _store_of(flag: str | None) -> Path | Literal["memory"]:
    """--store as the settings take it; the default file's folder is made here, a named file's must exist."""
    if flag is None:
        default_game_store().parent.mkdir(parents=True, exist_ok=True)
        return default_game_store()
    from naval_tactics.server.settings import MEMORY
    return MEMORY if flag == MEMORY else Path(flag)


def _allowed_hosts(bound: str, added: list[str]) -> tuple[str, ...]:
    """The Host names the server answers to: localhost names, the address it binds (unless every address),
    and those added with --allowed-host."""
    from naval_tactics.server.settings import LOCAL_HOSTS

    names = list(LOCAL_HOSTS)
    if bound not in ("0.0.0.0", "::", ""):
        names.append(bound)
    return tuple(dict.fromkeys([*names, *added]))


def run_serve(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from naval_tactics.catalogue import CatalogueError
    from naval_tactics.server import serve
    from naval_tactics.server.settings import ServerSettings
    from naval_tactics.server.sqlite_store import StoreFileError
    from naval_tactics.server.workers import ServeError

    try:
        settings = ServerSettings(captains_dir=args.captains_dir, max_games=args.max_games,
                                  idle_seconds=args.idle_seconds, max_body_bytes=args.max_body_bytes,
                                  cors_origins=tuple(args.cors_origin),
                                  store=_store_of(args.store),
                                  workers=args.workers, search_workers=args.search_workers,
                                  max_searches=args.max_searches, decision_timeout_s=args.decision_timeout,
                                  quarantine_damaged=args.quarantine_damaged, warm_searches=True,
                                  allowed_hosts=_allowed_hosts(args.host, args.allowed_host),
                                  trusted_proxies=tuple(args.trusted_proxy),
                                  max_games_per_client=args.max_games_per_client,
                                  max_requests_per_second=args.max_requests_per_second,
                                  max_turns=args.max_turns, max_proposals=args.max_proposals,
                                  request_budget_s=args.request_budget, read_timeout_s=args.read_timeout,
                                  max_captain_bytes=args.max_captain_bytes)
    except ValidationError as exc:
        raise CommandError("; ".join(f"{_flag_of(str(e['loc'][0]))}: {e['msg']}" if e["loc"]
                                     else e["msg"].removeprefix("Value error, ") for e in exc.errors())) from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: binding {args.host}: anyone who can reach it can use this server (no authentication)",
              file=sys.stderr)
    port_is_free(args.host, args.port)   # before the URL is shown: a busy port is not a page to open
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"play in the browser: http://{shown}:{args.port}/play · the API: http://{shown}:{args.port}/docs",
          file=sys.stderr)
    try:
        serve(settings, host=args.host, port=args.port, log_level=args.log_level)
    except (CatalogueError, StoreFileError, ServeError) as exc:
        raise CommandError(str(exc)) from None
    return 0


def port_is_free(host: str, port: int) -> None:
    """:class:`CommandError` naming the port when another program already listens on it (as the server's
    own sockets bind: with ``SO_REUSEADDR``, so a port left in TIME_WAIT by a stopped server still counts
    as free; ``SO_REUSEPORT`` is not set, so a listening server, ours included, counts as busy)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise CommandError(f"--host {host}: not an address of this machine ({exc.strerror})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
            probe.listen(1)
        except OSError as exc:
            raise CommandError(f"--port {port}: cannot listen on {host}:{port} ({exc.strerror}); another "
                               "program (or a naval-tactics serve) is using it: stop it or choose another --port"
                               ) from None


# ------------------------------------------------------------------ play, watch, replay
#: Seconds between decisions ``watch`` waits on a terminal unless ``--delay`` says otherwise.
WATCH_DELAY = 0.6


def _game_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ruleset", required=True, choices=ruleset_ids(), help="the ruleset to play")
    parser.add_argument("--scenario", help="scenario of the ruleset (default: its default; see list)")
    parser.add_argument("--config", help="ruleset config YAML (default: the shipped one)")


def add_play(subparsers: Subparsers) -> None:
    parser = add_parser(subparsers, "play", help="play a captain yourself in the terminal (one choice per line)",
                                   description="Play one side against a captain; options are numbered from 1 and "
                                               "taken by number or label; the game is saved as a replay.")
    _game_flags(parser)
    parser.add_argument("--captain", help="the captain you play against (see list; default: zoo where the ruleset "
                                          "ships one, else its reference scripted captain)")
    parser.add_argument("--side", default="red", help="the side you command (every ship of it)")
    parser.add_argument("--replay", required=True, type=Path, metavar="FILE", help="where the game is saved")
    parser.add_argument("--seed", type=int, help="game seed (default: a random one, printed and saved)")
    parser.set_defaults(run=run_play)


def run_play(args: argparse.Namespace) -> int:
    from naval_agents.captains.registry import default_opponent
    from naval_agents.captains.zoo import has_zoo_captain
    from naval_tactics.play import play

    captain = args.captain or ("zoo" if has_zoo_captain(args.ruleset) else default_opponent(args.ruleset))
    try:
        result = play(args.ruleset, args.scenario, captain, args.side, args.replay, seed=args.seed,
                      config=args.config)
    except ValueError as exc:
        raise CommandError(" ".join(str(exc).split())) from None
    return result.exit_code


def add_watch(subparsers: Subparsers) -> None:
    parser = add_parser(subparsers, "watch", help="watch captains play one game with the live log",
                                   description="Play one game between captains and show it decision by decision.")
    _game_flags(parser)
    parser.add_argument("--captains", nargs=2, required=True, metavar=("RED", "BLUE"),
                        help="one captain per side, in side order (see list)")
    parser.add_argument("--seed", type=int, default=0, help="game seed (default 0)")
    parser.add_argument("--delay", type=float, default=None,
                        help=f"seconds between decisions (default: {WATCH_DELAY} on a terminal, so a game can be "
                             "followed; 0 when the output goes to a file or a pipe)")
    parser.add_argument("--replay", type=Path, metavar="FILE", help="also save the game as a replay")
    parser.set_defaults(run=run_watch)


def watch_delay(given: float | None, stream: Any = None) -> float:
    """``--delay`` as given, else :data:`WATCH_DELAY` when the game is shown on a terminal, else 0."""
    if given is not None:
        return given
    return WATCH_DELAY if (stream or sys.stdout).isatty() else 0.0


def run_watch(args: argparse.Namespace) -> int:
    from naval_tactics.play import watch

    try:
        watch(args.ruleset, args.scenario, args.captains, args.seed, watch_delay(args.delay), config=args.config,
              replay_path=args.replay)
    except ValueError as exc:
        raise CommandError(" ".join(str(exc).split())) from None
    return 0


def add_replay(subparsers: Subparsers) -> None:
    parser = add_parser(subparsers, "replay", help="turn a game's replay into one self-contained HTML page",
                                   description="Re-play a JSON-lines replay and write an HTML viewer of it "
                                               "(board per decision, event log, play/step controls; no network).")
    parser.add_argument("replay", type=Path, metavar="GAME.jsonl",
                        help="a replay written by play, watch --replay or evaluate --replays")
    parser.add_argument("--html", required=True, type=Path, metavar="OUT.html", help="the page to write")
    parser.set_defaults(run=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    from naval_tactics.viewer import replay_to_html

    try:
        out = replay_to_html(args.replay, args.html)
    except (ValueError, OSError) as exc:
        raise CommandError(" ".join(str(exc).split())) from None
    print(f"wrote {out}")
    return 0


# ------------------------------------------------------------------ commands with parsers of their own
def delegate(name: str, help_text: str, entry: Callable[[], Callable[[list[str]], int]]) -> Callable[[Subparsers], None]:
    """A subcommand whose flags a command of its own parses (``train``, ``evaluate``, ``export``): the rest of
    the line goes to it unchanged, ``--help`` included, so the flags are the same as the script's."""
    def add(subparsers: Subparsers) -> None:
        parser = add_parser(subparsers, name, help=help_text, add_help=False, prefix_chars="\0")
        parser.add_argument("args", nargs=argparse.REMAINDER)
        parser.set_defaults(run=lambda args: entry()(args.args))
    return add


def _train() -> Callable[[list[str]], int]:
    from naval_tactics.commands.train import main as train_main

    return train_main


def _evaluate() -> Callable[[list[str]], int]:
    from naval_tactics.commands.evaluate import main as evaluate_main

    return evaluate_main


def _export() -> Callable[[list[str]], int]:
    from naval_agents.export.__main__ import main as export_main

    return export_main


def _zoo() -> Callable[[list[str]], int]:
    from naval_tactics.commands.zoo import main as zoo_main

    return zoo_main


def _atlas() -> Callable[[list[str]], int]:
    from naval_tactics.commands.atlas import main as atlas_main

    return atlas_main


#: Every subcommand, in the order ``--help`` lists them.
SUBCOMMANDS: list[Callable[[Subparsers], None]] = [
    add_list,
    delegate("train", "train a MaskablePPO captain (flags as train.py; --help)", _train),
    delegate("evaluate", "play captains against each other: win rates, intervals, ratings (--help)", _evaluate),
    delegate("export", "export a trained captain to ONNX with its sidecar and conformance vectors (--help)", _export),
    delegate("zoo", "the shipped captains: rebuild an entry, re-measure the difficulty ladder (--help)", _zoo),
    delegate("league", "a persistent league in SQLite: add captains, play missing games, ratings, SPRT (--help)",
             lambda: __import__("naval_tactics.commands.league", fromlist=["main"]).main),
    delegate("atlas", "every captain in every scenario of every ruleset: docs/atlas.md with figures (--help)", _atlas),
    add_play,
    add_watch,
    add_replay,
    delegate("scenario", "check a scenario's balance, decisiveness and luck; balance its numbers (--help)",
             lambda: __import__("naval_tactics.commands.scenario", fromlist=["main"]).main),
    add_serve,
]


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser; given the command line ``argv``, only the command it names gets the flags that are
    added late (``serve``'s, which import the server), so ``--help`` and ``list`` start without them."""
    parser = argparse.ArgumentParser(
        prog="naval-tactics", description="Rules engines, environments and captains for tabletop naval combat.",
        allow_abbrev=False,
        epilog=f"rulesets: {', '.join(ruleset_ids())}. `naval-tactics list` shows their scenarios and captains; "
               "`naval-tactics COMMAND --help` the options of a command.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(title="commands", dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    named = None if argv is None else next((a for a in argv if not a.startswith("-")), "")
    for name, command in subparsers.choices.items():
        late = command.get_default("late_arguments")
        if late is not None and named in (None, name):
            late(command)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    try:
        status: int = args.run(args)
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader closed the pipe (`naval-tactics list | head`): stop quietly, as Unix tools do. Python's
        # recipe: point stdout at devnull so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return status


if __name__ == "__main__":
    raise SystemExit(main())
