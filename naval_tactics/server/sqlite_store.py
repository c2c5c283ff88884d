"""Games kept in one SQLite file, so they survive a restart and every worker process serves them.

The league's pattern (:mod:`naval_agents.league.db`): WAL, explicit ``BEGIN IMMEDIATE`` transactions, a
``meta`` table that marks the file and its schema version, checked before anything is written.

A game is stored as what replays it exactly (:mod:`.history`): ruleset, config digest, scenario or
start position, seed, and one ``turns`` row per move or captain consulted; beside them its latest
:class:`~.snapshots.Snapshot` (position, dice state, captains' generators). Each move is one
transaction: the turn, the snapshot after it and the game's turn count (its version). Each worker
keeps the sessions it has built in a bounded cache keyed by game id and checked against that version
on every request: a session another worker has moved since (or one this worker has never seen) is
picked up from the snapshot in one step, whatever the number of turns, so any worker answers from the
stored game at the cost of one position load. The turns are the game's history: ``/events`` on a
session picked up from a snapshot replays them once. Two workers moving one game at once: the second
write finds the version changed and is refused (:class:`~.store.GameChangedError`), its move not applied.
"""

from __future__ import annotations

import fcntl
import json
import logging
import math
import os
import sqlite3
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from naval_env.core.position import PositionError
from naval_tactics.catalogue import Catalogue
from naval_tactics.server import history, snapshots, store_checks
from naval_tactics.server.history import NotReplayableError
from naval_tactics.server.store import (
    ClientFullError,
    Clock,
    GameChangedError,
    GameGoneError,
    GameSession,
    StoreFullError,
    Turn,
    written,
)
from naval_tactics.server.store_checks import GameDamagedError, StoreDamagedError, StoreFileError

__all__ = ["SqliteGameStore", "StoreDamagedError", "StoreFileError"]

logger = logging.getLogger("uvicorn.error")

KIND = "naval-tactics game store"
#: 2: the ``snapshots`` table (a version-1 file gains it when opened; its games are replayed until moved).
#: 3: each turn's ``events`` (a version-2 file gains the column; /events replays a game whose turns lack them),
#:    and each game's ``client`` (the address that created it, for ``max_games_per_client``).
SCHEMA_VERSION = 3

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    ruleset TEXT NOT NULL,
    ruleset_version TEXT NOT NULL,
    config_sha256 TEXT NOT NULL,
    scenario TEXT NOT NULL,
    start_position TEXT,
    seed INTEGER NOT NULL,
    created_at REAL NOT NULL,
    last_used REAL NOT NULL,
    turns INTEGER NOT NULL DEFAULT 0,
    state TEXT NOT NULL CHECK (state IN ('live', 'deleted', 'expired')),
    gone_at REAL,
    client TEXT
);
CREATE INDEX IF NOT EXISTS games_by_state ON games (state, last_used);
CREATE TABLE IF NOT EXISTS turns (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('move', 'captain', 'proposal')),
    seat TEXT NOT NULL,
    captain TEXT,
    action TEXT NOT NULL,
    events TEXT,
    PRIMARY KEY (game_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    position TEXT NOT NULL,
    dice BLOB NOT NULL,
    state TEXT NOT NULL
);
"""


#: WAL pages past which a committing request copies the WAL back itself (SQLite's default is 1,000): a
#: safety net, as :class:`Checkpointer` keeps the WAL far shorter.
WAL_AUTOCHECKPOINT_PAGES = 20_000
CHECKPOINT_SECONDS = 0.5


class SqliteGameStore:
    """At most ``max_games`` live games in ``path``; the same limits and answers as the memory store.

    ``clock`` is wall-clock seconds (stored, so shared by workers and restarts). ``last_used`` is
    written at most every ``touch_seconds`` for reads (every move writes it anyway).
    """

    durable = True

    def __init__(self, path: Path, catalogue: Catalogue, max_games: int, idle_seconds: float,
                 remembered: int = 10_000, clock: Clock | None = None, cache_size: int | None = None,
                 quarantine_damaged: bool = False, per_client: int | None = None) -> None:
        self.path, self.catalogue = Path(path), catalogue
        self.per_client = per_client
        self.max_games, self.idle_seconds, self.remembered = max_games, idle_seconds, remembered
        self.clock: Clock = clock or time.time
        self.touch_seconds = min(1.0, idle_seconds / 100)
        self.cache_size = cache_size if cache_size is not None else min(max_games, 1000)
        self._cache: OrderedDict[str, GameSession] = OrderedDict()
        self._lock = threading.Lock()   # one connection, used from the event loop and (rarely) threads
        self._conn = open_checked(self.path, quarantine_damaged)
        try:
            self._writers = WriterLock(self.path.with_name(self.path.name + "-lock"))
        except StoreFileError:
            self._conn.close()
            raise
        self._checkpointer = Checkpointer(self.path, CHECKPOINT_SECONDS)
        self._next_sweep = self.clock() + idle_seconds / 10

    # ---------------------------------------------------------------- the GameStore interface
    def __len__(self) -> int:
        with self._lock, closing(self._conn.execute("SELECT COUNT(*) FROM games WHERE state = 'live'")) as cur:
            return int(cur.fetchone()[0])

    def add(self, build: Callable[[str, float], GameSession], client: str | None = None) -> GameSession:
        """Make room (expiring idle games), build the session outside any lock, then store it (refused when
        ``client`` keeps ``per_client`` live games already)."""
        self._make_room()
        session = build(uuid.uuid4().hex, self.clock())
        session.client = client
        digest = history.config_digest(session.entry)
        start = json.dumps(session.start) if session.start is not None else None
        with self._transaction() as conn:
            if self._live(conn) >= self.max_games:
                self._expire_idle(conn, self.clock())
                if self._live(conn) >= self.max_games:
                    raise self._full(conn)
            if self.per_client is not None and client is not None:
                own, soonest = conn.execute("SELECT COUNT(*), MIN(last_used) FROM games WHERE client = ? AND "
                                            "state = 'live'", (client,)).fetchone()
                if own >= self.per_client:
                    wait = max(1, math.ceil(soonest + self.idle_seconds - self.clock()))
                    raise ClientFullError(client, self.per_client, self.idle_seconds, wait)
            conn.execute("INSERT INTO games (id, ruleset, ruleset_version, config_sha256, scenario, start_position, "
                         "seed, created_at, last_used, turns, state, client) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 'live', ?)",
                         (session.id, session.entry.id, session.entry.ruleset.version, digest, session.scenario,
                          start, session.seed, session.last_used, session.last_used, client))
        self._remember(session)
        return session

    def get(self, game_id: str, whole: bool = False) -> GameSession:
        """The stored game, from this worker's cache when it has seen every turn, else from its snapshot;
        ``whole``: with its turns and events from the start (replayed once, if picked up from a snapshot)."""
        now = self.clock()
        with self._lock, closing(self._conn.execute(
                "SELECT state, last_used, turns FROM games WHERE id = ?", (game_id,))) as cur:
            row = cur.fetchone()
        if row is None:
            self._cache.pop(game_id, None)
            raise GameGoneError(game_id, None, self.idle_seconds, durable=True)
        state, last_used, turns = row
        if state in ("deleted", "expired"):
            self._cache.pop(game_id, None)
            raise GameGoneError(game_id, state, self.idle_seconds)
        if state != "live" or not isinstance(last_used, int | float):
            raise GameDamagedError(game_id, "state and last_used", f"are {state!r} and {last_used!r}")
        turns = store_checks.count(game_id, turns)
        if now - last_used > self.idle_seconds:
            with self._transaction() as conn:
                conn.execute("UPDATE games SET state = 'expired', gone_at = ? WHERE id = ? AND state = 'live' "
                             "AND last_used = ?", (now, game_id, last_used))
            self._cache.pop(game_id, None)
            raise GameGoneError(game_id, "expired", self.idle_seconds)
        if now - last_used >= self.touch_seconds:
            with self._transaction() as conn:
                conn.execute("UPDATE games SET last_used = MAX(last_used, ?) WHERE id = ?", (now, game_id))
        session = self._session(game_id, turns, now, whole)
        session.last_used = now
        return session

    def commit(self, session: GameSession) -> None:
        """Store the session's last turn and its snapshot after it, if no other request stored a turn since
        this one read the game."""
        turn = session.turns[-1]
        index = session.version - 1
        snapshot = snapshots.take(session)
        position = json.dumps(snapshot.position, separators=(",", ":"))
        state = json.dumps(snapshot.state_json(), separators=(",", ":"))
        try:
            with self._transaction() as conn:
                changed = conn.execute("UPDATE games SET turns = turns + 1 WHERE id = ? AND state = 'live' AND turns = ?",
                                       (session.id, index))   # last_used: kept fresh by get()
                if changed.rowcount != 1:
                    raise GameChangedError(session.id)
                conn.execute("INSERT INTO turns VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (session.id, index, turn.kind, turn.seat, turn.captain, json.dumps(list(turn.action)),
                              _events_text(session.last_events)))
                stored = conn.execute("UPDATE snapshots SET version = ?, decisions = ?, position = ?, dice = ?, state = ? "
                                      "WHERE game_id = ?", (snapshot.version, snapshot.decisions, position,
                                                            snapshot.dice, state, session.id))
                if stored.rowcount == 0:   # its first move (or a game a version-1 file kept)
                    conn.execute("INSERT INTO snapshots VALUES (?, ?, ?, ?, ?, ?)",
                                 (session.id, snapshot.version, snapshot.decisions, position, snapshot.dice, state))
        except BaseException:   # refused (GameChangedError) or failed (sqlite3.Error): rolled back
            self._cache.pop(session.id, None)  # this worker's copy holds a turn that was not kept
            raise

    def discard(self, game_id: str) -> None:
        with self._transaction() as conn:
            conn.execute("UPDATE games SET state = 'deleted', gone_at = ? WHERE id = ? AND state = 'live'",
                         (self.clock(), game_id))
            conn.execute("DELETE FROM turns WHERE game_id = ?", (game_id,))
            conn.execute("DELETE FROM snapshots WHERE game_id = ?", (game_id,))
        self._cache.pop(game_id, None)

    def event_log(self, session: GameSession) -> tuple[list[dict[str, Any]], list[str]]:
        """Every event of the game from its start: the opening's, made again from the seed (a new game, no
        turn replayed), then each turn's, as stored with it; replayed from the turns only for turns kept without their
        events (by a version-2 file), or when the session already holds them all."""
        if session.whole:
            return written(session.events)
        with self._lock, closing(self._conn.execute(
                "SELECT events FROM turns WHERE game_id = ? ORDER BY idx", (session.id,))) as cur:
            stored = [row[0] for row in cur]
        if len(stored) != session.version or any(text is None for text in stored):
            return written(self.get(session.id, whole=True).events)
        start = history.start_session(session.entry, session.id, session.scenario if session.start is None else None,
                                      session.start, session.seed, session.last_used)
        logged, log = written(start.events)
        for index, text in enumerate(stored):
            try:
                pairs = json.loads(text)
                logged.extend(event for event, _ in pairs)
                log.extend(sentence for _, sentence in pairs)
            except (ValueError, TypeError) as exc:
                raise GameDamagedError(session.id, f"turn {index}", f"has events that do not read ({exc})") from None
        return logged, log

    def sweep(self) -> int:
        """Expire every game idle past the limit now, and forget gone ids past ``remembered``; returns how many expired."""
        with self._transaction() as conn:
            expired = self._expire_idle(conn, self.clock())
            conn.execute("DELETE FROM games WHERE state != 'live' AND id NOT IN (SELECT id FROM games WHERE "
                         "state != 'live' ORDER BY gone_at DESC LIMIT ?)", (self.remembered,))
        return expired

    def close(self) -> None:
        self._checkpointer.close()
        with self._lock:
            self._conn.close()
            self._writers.close()

    # ---------------------------------------------------------------- internals
    def _session(self, game_id: str, turns: int, now: float, whole: bool) -> GameSession:
        cached = self._cache.get(game_id)
        if cached is not None and cached.version == turns and (cached.whole or not whole):
            self._cache.move_to_end(game_id)
            return cached
        with self._lock, closing(self._conn.execute(
                "SELECT g.ruleset, g.config_sha256, g.scenario, g.start_position, g.seed, g.turns, s.version, "
                "s.decisions, s.position, s.dice, s.state FROM games g LEFT JOIN snapshots s ON s.game_id = g.id "
                "WHERE g.id = ?", (game_id,))) as cur:
            found = cur.fetchone()
        if found is None:   # deleted by another worker since get() read it
            raise GameGoneError(game_id, "deleted", self.idle_seconds)
        game = store_checks.game_row(game_id, found[:6])   # a row edited by hand: 410 game_damaged, not a 500
        stored = found[6:]
        session = None
        if stored[0] == game.turns and not whole:   # a snapshot of another version is stale: replay instead
            entry = history.entry_for(self.catalogue, game_id, game.ruleset, game.config_sha256)
            version, decisions, position, dice, state = stored
            try:
                snapshot = snapshots.Snapshot.from_stored(version, decisions, json.loads(position), dice,
                                                          json.loads(state))
                session = snapshots.resume(self.catalogue, entry, game_id, game.scenario, game.start_position,
                                           game.seed, snapshot, now)
            except (ValueError, TypeError, KeyError, PositionError):   # SnapshotError, or a file changed by hand
                session = None   # replayed from the turns instead (which says why, if that fails too)
        if session is None:
            kept = self._turns(game_id, game.turns)
            try:
                session = history.restore(self.catalogue, game_id, game.ruleset, game.config_sha256, game.scenario,
                                          game.start_position, game.seed, kept, now)
            except NotReplayableError:
                raise
            except Exception as exc:  # noqa: BLE001 - checked rows that still do not replay: the game is damaged
                raise GameDamagedError(game_id, "its turns", f"do not replay ({type(exc).__name__}: {exc})") from None
        self._remember(session)
        return session

    def _turns(self, game_id: str, expected: int) -> list[Turn]:
        """Every stored turn of the game, checked to be ``expected`` well-formed rows."""
        with self._lock, closing(self._conn.execute(
                "SELECT idx, kind, seat, captain, action FROM turns WHERE game_id = ? ORDER BY idx",
                (game_id,))) as cur:
            rows = cur.fetchall()
        return store_checks.turn_rows(game_id, rows, 0, expected)

    def _remember(self, session: GameSession) -> None:
        self._cache[session.id] = session
        self._cache.move_to_end(session.id)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _make_room(self) -> None:
        now = self.clock()
        if now >= self._next_sweep:
            self._next_sweep = now + self.idle_seconds / 10
            self.sweep()
        with self._lock, closing(self._conn.execute("SELECT COUNT(*) FROM games WHERE state = 'live'")) as cur:
            full = cur.fetchone()[0] >= self.max_games
        if full:
            with self._transaction() as conn:
                self._expire_idle(conn, now)
                if self._live(conn) >= self.max_games:
                    raise self._full(conn)

    @staticmethod
    def _live(conn: sqlite3.Connection) -> int:
        return int(conn.execute("SELECT COUNT(*) FROM games WHERE state = 'live'").fetchone()[0])

    def _expire_idle(self, conn: sqlite3.Connection, now: float) -> int:
        cursor = conn.execute("UPDATE games SET state = 'expired', gone_at = ? WHERE state = 'live' AND last_used < ?",
                              (now, now - self.idle_seconds))
        if cursor.rowcount:
            for table in ("turns", "snapshots"):
                conn.execute(f"DELETE FROM {table} WHERE game_id IN (SELECT id FROM games WHERE state = 'expired' "
                             "AND gone_at = ?)", (now,))
        return cursor.rowcount

    def _full(self, conn: sqlite3.Connection) -> StoreFullError:
        soonest = conn.execute("SELECT MIN(last_used) FROM games WHERE state = 'live'").fetchone()[0]
        now = self.clock()
        wait = max(1, math.ceil((soonest if soonest is not None else now) + self.idle_seconds - now))
        return StoreFullError(self.max_games, self.idle_seconds, wait)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write (the league's pattern): committed at the end, rolled back on any exception.
        Writers of every process take :attr:`_writers` first, so SQLite's own lock is never found taken."""
        with self._lock, self._writers:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise


class WriterLock:
    """One writer at a time across processes: an exclusive ``flock`` on ``path`` (a file beside the store)
    around each write transaction. A waiting worker wakes the moment the lock is free; SQLite's own busy
    handler, when it found the lock taken, slept 1, 2, 5 ms and more with the worker's event loop
    stopped (two workers under load: about 100 such sleeps in 660 requests of one worker, traced)."""

    def __init__(self, path: Path) -> None:
        try:
            self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:   # a folder in its place, or no right to it: one line, not a traceback
            raise StoreFileError(f"--store {path.with_name(path.name.removesuffix('-lock'))}: cannot open its lock "
                                 f"file {path} ({exc.strerror or exc}); it holds no data: remove it, or give "
                                 "another store file") from None

    def __enter__(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        os.close(self._fd)


class Checkpointer:
    """Copies the WAL back into the store file every ``every_s`` from a thread with its own connection
    (SQLite runs the statement without the GIL). Left to SQLite, the checkpoint ran inside the commit
    that crossed 1,000 WAL pages, and with its fsync held that request, and the worker's event loop,
    for 4-15 ms: 85% of the time commits took, in one commit of 150."""

    def __init__(self, path: Path, every_s: float) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(path, every_s), name="store-checkpoint", daemon=True)
        self._thread.start()

    def _run(self, path: Path, every_s: float) -> None:
        with closing(sqlite3.connect(path, isolation_level=None, timeout=0, check_same_thread=False)) as conn:
            while not self._stop.wait(every_s):
                try:
                    conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.OperationalError:
                    continue   # another worker is checkpointing: the WAL is in hand

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def _events_text(events: list[Any]) -> str:
    """A turn's events as stored: ``[[written out, sentence], ...]``."""
    return json.dumps([[event.to_dict(), event.text()] for event in events], separators=(",", ":"))


def open_checked(path: Path, quarantine_damaged: bool = False) -> sqlite3.Connection:
    """:func:`_open`; a damaged file is refused (:class:`StoreDamagedError`) or, with ``quarantine_damaged``,
    moved aside with every game that still reads copied into a new file at ``path`` (logged)."""
    try:
        return _open(path)
    except StoreDamagedError as exc:
        if not quarantine_damaged:
            raise
        done = store_checks.quarantine(path, _open)
        logger.warning("--store %s was damaged (%s); moved it to %s and started a new file with the %d games "
                       "that read whole (%d left behind in it)", path, exc.reason, done.moved_to, done.kept, done.lost)
        return _open(path)


def _open(path: Path) -> sqlite3.Connection:
    """The store file, created with its schema when new; refused when it is something else, or damaged."""
    if path.exists() and not path.is_file():
        raise StoreFileError(f"--store {path}: not a file; give a file name (created when new) or 'memory'")
    if not path.parent.is_dir():
        raise StoreFileError(f"--store {path}: no folder {str(path.parent)!r}")
    known_sqlite = path.exists() and store_checks.is_sqlite_file(path)
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
    except (sqlite3.Error, OSError) as exc:   # a folder it may not write in (/sys, /proc), a read-only disk
        raise StoreFileError(f"--store {path}: cannot open it ({exc}); give a file in a folder this user can "
                             "write, or 'memory'") from None
    try:
        _refuse_other_files(conn, path)   # before any pragma: a file that is not a store is left as it was
        if path.stat().st_size:
            store_checks.check_file(conn, path)
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("BEGIN IMMEDIATE")   # several workers may open a new file at once: one creates it
        try:
            for statement in filter(str.strip, SCHEMA.split(";")):
                conn.execute(statement)
            if "events" not in {row[1] for row in conn.execute("PRAGMA table_info(turns)")}:   # a version-2 file
                conn.execute("ALTER TABLE turns ADD COLUMN events TEXT")
            if "client" not in {row[1] for row in conn.execute("PRAGMA table_info(games)")}:
                conn.execute("ALTER TABLE games ADD COLUMN client TEXT")
            conn.execute("CREATE INDEX IF NOT EXISTS games_by_client ON games (client, state)")
            conn.executemany("INSERT OR IGNORE INTO meta VALUES (?, ?)",
                             (("kind", KIND), ("schema_version", str(SCHEMA_VERSION))))
            _check_meta(path, dict(conn.execute("SELECT key, value FROM meta").fetchall()))
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION),))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    except sqlite3.DatabaseError as exc:
        conn.close()
        if known_sqlite:   # an SQLite file SQLite cannot read: damaged (truncated, overwritten), not another kind
            raise store_checks.damaged(path, f"SQLite cannot read it: {exc}") from None
        raise StoreFileError(f"--store {path}: not a naval-tactics game store ({exc}); give a new file name, "
                             "or 'memory'") from None
    except (sqlite3.Error, OSError) as exc:
        conn.close()
        raise StoreFileError(f"--store {path}: cannot use it ({exc}); give a file in a folder this user can "
                             "write, or 'memory'") from None
    except BaseException:
        conn.close()
        raise
    return conn


def _refuse_other_files(conn: sqlite3.Connection, path: Path) -> None:
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if tables and "meta" not in tables:
        raise StoreFileError(f"--store {path}: an SQLite file that is not a naval-tactics game store; "
                             "give a new file name, or 'memory'")
    if tables:
        _check_meta(path, dict(conn.execute("SELECT key, value FROM meta").fetchall()))


def _check_meta(path: Path, meta: dict[str, Any]) -> None:
    if meta.get("kind") != KIND:
        raise StoreFileError(f"--store {path}: not a naval-tactics game store (its meta kind is "
                             f"{meta.get('kind')!r}); give a new file name, or 'memory'")
    version = str(meta.get("schema_version", ""))
    if not version.isdigit() or int(version) < 1:
        raise StoreFileError(f"--store {path}: bad schema_version {version!r}")
    if int(version) > SCHEMA_VERSION:
        raise StoreFileError(f"--store {path}: a game store of schema version {version}, written by a newer "
                             f"naval-tactics; this one reads up to {SCHEMA_VERSION}")

