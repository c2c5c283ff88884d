"""A game store that checks itself: the file at start, each game's rows when read.

At start (:func:`check_file`), the way PostgreSQL and Redis refuse a damaged data file: SQLite's own
``PRAGMA quick_check`` (every page and index readable and consistent; linear in the file's size, about
a second a GB), the schema version, and each table's columns. A damaged file stops the server with
one line naming the file and how to recover (:class:`StoreDamagedError`), or, when asked
(``--quarantine-damaged``), is moved aside and every game that still reads is copied into a new
file at the same path (:func:`quarantine`).

On read (:func:`game_row`, :func:`turn_rows`): a row edited by hand (a ``seed`` that is text, a
``start_position`` that is not a JSON object, a ``turns`` count that does not match its turns) is
refused with :class:`GameDamagedError`, which the routes answer 410 ``game_damaged`` naming the
field, never a 500.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from naval_tactics.server.history import NotReplayableError
from naval_tactics.server.store import Turn

#: The first 16 bytes of every SQLite 3 database file.
SQLITE_HEADER = b"SQLite format 3\x00"
#: Each table's columns, in order, as the schema creates them.
COLUMNS = {
    "meta": ("key", "value"),
    "games": ("id", "ruleset", "ruleset_version", "config_sha256", "scenario", "start_position", "seed",
              "created_at", "last_used", "turns", "state", "gone_at", "client"),
    "turns": ("game_id", "idx", "kind", "seat", "captain", "action", "events"),
    "snapshots": ("game_id", "version", "decisions", "position", "dice", "state"),
}
#: Problems quoted from quick_check in the one-line refusal (it may list thousands).
QUOTED_PROBLEMS = 3
SEED_LIMIT = 2**53
TURN_KINDS = ("move", "captain", "proposal")


class StoreFileError(Exception):
    """A ``--store`` file this server cannot use (not a game store, from a newer schema, unreadable)."""


class StoreDamagedError(StoreFileError):
    """A game store whose file is damaged (SQLite's quick_check fails, or it cannot be read at all)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason
        super().__init__(f"--store {path}: the game store is damaged ({reason}); {recovery_hint(path)}")


class GameDamagedError(NotReplayableError):
    """A stored game whose rows do not hold a game (edited by hand, or damaged on disk)."""

    def __init__(self, game_id: str, field: str, problem: str) -> None:
        self.game_id, self.field = game_id, field
        super().__init__(f"game {game_id!r} is damaged in the game store: {field} {problem}; it cannot be served "
                         "(DELETE it, or restore the store file from a backup)")


def recovery_hint(path: Path) -> str:
    return (f"restore {path} from a backup, or move it aside and start with a new file, or start with "
            "--quarantine-damaged to move it aside and keep every game that still reads")


def is_sqlite_file(path: Path) -> bool:
    """Whether the file starts as an SQLite database does (a damaged store still does; a text file does not)."""
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def damaged(path: Path, reason: str) -> StoreDamagedError:
    # SQLite's own messages may span lines (quick_check's page reports do); the refusal is one line.
    return StoreDamagedError(path, " ".join(reason.split()))


def check_file(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a store file SQLite finds damaged, or whose tables are not the schema's."""
    try:
        problems = [str(row[0]) for row in conn.execute("PRAGMA quick_check")]
    except sqlite3.DatabaseError as exc:
        raise damaged(path, f"SQLite cannot read it: {exc}") from None
    if problems != ["ok"]:
        quoted = "; ".join(problems[:QUOTED_PROBLEMS]) + ("; ..." if len(problems) > QUOTED_PROBLEMS else "")
        raise damaged(path, f"SQLite's quick_check found {len(problems)} problem{'s' * (len(problems) != 1)}: {quoted}")
    for table, expected in COLUMNS.items():
        found = tuple(str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})"))
        # a version-2 file has neither the turns' events nor the games' client: they are added when it is opened
        version_2 = table in ("turns", "games") and found == expected[:-1]
        if found and found != expected and not version_2:
            raise damaged(path, f"its {table} table has columns {list(found)}, not {list(expected)}")


# ------------------------------------------------------------------ rows, checked on read
@dataclass(frozen=True)
class GameRow:
    """A ``games`` row, checked: what rebuilds the game, and how many turns it has."""

    ruleset: str
    config_sha256: str
    scenario: str
    start_position: dict[str, Any] | None
    seed: int
    turns: int


def game_row(game_id: str, row: tuple[Any, ...]) -> GameRow:
    """``(ruleset, config_sha256, scenario, start_position, seed, turns)`` checked field by field."""
    ruleset, digest, scenario, start, seed, turns = row
    for field, value in (("ruleset", ruleset), ("config_sha256", digest), ("scenario", scenario)):
        if not isinstance(value, str):
            raise GameDamagedError(game_id, field, f"is {value!r}, not text")
    if not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
        raise GameDamagedError(game_id, "seed", f"is {seed!r}, not a whole number in [0, 2**53)")
    count(game_id, turns)
    position = None
    if start is not None:
        try:
            position = json.loads(start) if isinstance(start, str | bytes) else None
        except ValueError:
            position = None
        if not isinstance(position, dict):
            raise GameDamagedError(game_id, "start_position", "is not a JSON object (a position) nor NULL")
    return GameRow(ruleset, digest, scenario, position, seed, turns)


def count(game_id: str, turns: Any) -> int:
    """A ``turns`` count, checked to be a whole number of at least 0."""
    if not isinstance(turns, int) or turns < 0:
        raise GameDamagedError(game_id, "turns", f"is {turns!r}, not a count of turns (0 or more)")
    return turns


def turn_rows(game_id: str, rows: list[tuple[Any, ...]], since: int, expected: int) -> list[Turn]:
    """``(idx, kind, seat, captain, action)`` rows from ``since``, checked: numbered ``since`` onwards without a
    gap, ``expected`` - ``since`` of them, each a known kind with a seat and a list of whole numbers."""
    if len(rows) != expected - since:
        raise GameDamagedError(game_id, "turns", f"is {expected}, but {since + len(rows)} turns are stored")
    turns = []
    for offset, (idx, kind, seat, captain, action) in enumerate(rows):
        where = f"turn {since + offset}"
        if idx != since + offset:
            raise GameDamagedError(game_id, "turns", f"skip from {where} to {idx!r}")
        if kind not in TURN_KINDS or not isinstance(seat, str) or not (captain is None or isinstance(captain, str)):
            raise GameDamagedError(game_id, where, f"has kind {kind!r}, seat {seat!r}, captain {captain!r}")
        try:
            values = json.loads(action) if isinstance(action, str | bytes) else None
        except ValueError:
            values = None
        if not isinstance(values, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            raise GameDamagedError(game_id, where, f"has action {action!r}, not a JSON list of whole numbers")
        turns.append(Turn(kind, seat, tuple(values), captain))
    return turns


# ------------------------------------------------------------------ quarantine
@dataclass(frozen=True)
class Quarantined:
    """What :func:`quarantine` did: where the damaged file went, and how many games were kept and lost."""

    moved_to: Path
    kept: int
    lost: int


def quarantine(path: Path, create: Callable[[Path], sqlite3.Connection]) -> Quarantined:
    """Move the damaged store aside (``<name>.damaged-<UTC time>``, with its -wal and -shm), create a new store
    at ``path`` with ``create(path)`` (a connection with the schema), and copy into it every game whose rows
    all still read; a game with any unreadable row is left behind, in the moved file."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    moved = path.with_name(f"{path.name}.damaged-{stamp}")
    for suffix in ("-wal", "-shm", ""):
        part = path.with_name(path.name + suffix)
        if part.exists():
            part.rename(moved.with_name(moved.name + suffix))
    kept = lost = 0
    with closing(create(path)) as fresh, closing(sqlite3.connect(f"file:{moved}?mode=ro", uri=True)) as old:
        try:
            ids = [row[0] for row in old.execute("SELECT id FROM games")]
        except sqlite3.DatabaseError:
            ids = []   # not even the games table reads: nothing can be kept
        for game_id in ids:
            try:
                game = old.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchall()
                turns = old.execute("SELECT * FROM turns WHERE game_id = ?", (game_id,)).fetchall()
                snapshot = old.execute("SELECT * FROM snapshots WHERE game_id = ?", (game_id,)).fetchall()
            except sqlite3.DatabaseError:
                lost += 1
                continue
            fresh.execute("BEGIN IMMEDIATE")
            for table, rows in (("games", game), ("turns", turns), ("snapshots", snapshot)):
                for row in rows:   # by position: a version-2 file's turns lack the last column (events)
                    columns = ", ".join(COLUMNS[table][:len(row)])
                    fresh.execute(f"INSERT OR IGNORE INTO {table} ({columns}) VALUES ({', '.join('?' * len(row))})", row)
            fresh.execute("COMMIT")
            kept += 1
    return Quarantined(moved, kept, lost)
