"""The league file: one SQLite database (WAL, foreign keys on, schema versioned in ``meta``).

Tables:

- ``meta``: key/value: ``kind`` (marks the file as a league), ``schema_version``, ``ruleset``,
  ``ruleset_version``, ``scenario``, ``config`` and ``config_sha256``, ``first_seed``, ``created_at``;
- ``captains``: one row per captain, ``name`` unique; ``spec`` as given, ``source`` what it is loaded
  from (an absolute path for files), ``sha256`` of its files (None for built-in captains);
- ``games``: one row per finished game, keyed by (a_id, b_id, seed, swap) with ``a_id < b_id`` (A is
  the captain added first), so a game can be stored once only; each is its own transaction;
- ``ratings``: OpenSkill ratings, recomputed from ``games`` (see :mod:`naval_agents.league.standings`);
- ``sprt``: per pairing, the SPRT parameters last played under and the state they reached.

A file that is not a league, or is one from a newer schema, is refused before anything is written to it.
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from naval_agents.evaluation.ratings import Rating
from naval_agents.evaluation.stats import GameResult
from naval_agents.league.sprt import SprtParams, SprtState
from naval_env.core.errors import NavalError

KIND = "naval-tactics league"
SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE captains (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    spec TEXT NOT NULL,
    source TEXT NOT NULL,
    sha256 TEXT,
    ruleset TEXT NOT NULL,
    scenario TEXT NOT NULL,
    added_at TEXT NOT NULL
);
CREATE TABLE games (
    a_id INTEGER NOT NULL REFERENCES captains(id),
    b_id INTEGER NOT NULL REFERENCES captains(id),
    seed INTEGER NOT NULL,
    swap INTEGER NOT NULL CHECK (swap IN (0, 1)),
    a_side TEXT NOT NULL,
    b_side TEXT NOT NULL,
    winner_side TEXT,
    outcome TEXT NOT NULL CHECK (outcome IN ('a', 'b', 'draw')),
    truncated INTEGER NOT NULL,
    rounds INTEGER NOT NULL,
    decisions INTEGER NOT NULL,
    a_damage_dealt INTEGER NOT NULL,
    a_damage_taken INTEGER NOT NULL,
    b_damage_dealt INTEGER NOT NULL,
    b_damage_taken INTEGER NOT NULL,
    ruleset_version TEXT NOT NULL,
    played_at TEXT NOT NULL,
    PRIMARY KEY (a_id, b_id, seed, swap),
    CHECK (a_id < b_id)
);
CREATE TABLE ratings (
    captain_id INTEGER PRIMARY KEY REFERENCES captains(id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    ordinal REAL NOT NULL,
    games INTEGER NOT NULL,
    from_games INTEGER NOT NULL
);
CREATE TABLE sprt (
    a_id INTEGER NOT NULL REFERENCES captains(id),
    b_id INTEGER NOT NULL REFERENCES captains(id),
    elo0 REAL NOT NULL,
    elo1 REAL NOT NULL,
    alpha REAL NOT NULL,
    beta REAL NOT NULL,
    pairs INTEGER NOT NULL,
    llr REAL NOT NULL,
    lower REAL NOT NULL,
    upper REAL NOT NULL,
    decision TEXT CHECK (decision IN ('H0', 'H1')),
    updated_at TEXT NOT NULL,
    PRIMARY KEY (a_id, b_id)
);
"""


class LeagueError(NavalError):
    """A league refusal; the one-line message says what was wrong and what is allowed."""


@dataclass(frozen=True)
class Captain:
    id: int
    name: str
    spec: str
    source: str           # what make_captain gets
    sha256: str | None
    added_at: str


@dataclass(frozen=True)
class LeagueInfo:
    ruleset: str
    ruleset_version: str
    scenario: str
    config: str | None
    config_sha256: str | None
    first_seed: int
    created_at: str


def now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _connect(path: Path, mode: str) -> sqlite3.Connection:
    # mode=rw never creates the file; isolation_level=None: transactions are explicit (see transaction()).
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode={mode}", uri=True, isolation_level=None, timeout=30)
    conn.row_factory = sqlite3.Row
    return conn


def _settings(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")


class League:
    """An open league file. Use :func:`create` or :func:`open_league`; close with :meth:`close`."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path
        self.info = _league_info(dict(conn.execute("SELECT key, value FROM meta").fetchall()), path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic write: committed at the end of the block, rolled back on any exception (Ctrl-C too).

        A Ctrl-C can land between statements (just after BEGIN, or as COMMIT returns), so what is still open
        is checked through ``in_transaction`` rather than assumed, here and before the next BEGIN.
        """
        if self.conn.in_transaction:   # an earlier write interrupted before its ROLLBACK ran
            self.conn.execute("ROLLBACK")
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    # -------------------------------------------------------------------------------- captains
    def captains(self) -> list[Captain]:
        rows = self.conn.execute("SELECT id, name, spec, source, sha256, added_at FROM captains ORDER BY id")
        return [Captain(**dict(row)) for row in rows]

    def add_captain(self, name: str, spec: str, source: str, sha256: str | None) -> Captain:
        with self.transaction() as conn:
            cursor = conn.execute(
                "INSERT INTO captains (name, spec, source, sha256, ruleset, scenario, added_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name, spec, source, sha256, self.info.ruleset, self.info.scenario, now()))
        return next(c for c in self.captains() if c.id == cursor.lastrowid)

    # ----------------------------------------------------------------------------------- games
    def add_game(self, a: Captain, b: Captain, result: GameResult, ruleset_version: str) -> bool:
        """Commit one finished game at once; False when it was already stored (another run played it)."""
        outcome = "draw" if result.winner_side is None else ("a" if result.winner_side == result.a_side else "b")
        with self.transaction() as conn:
            cursor = conn.execute(
                # only the key conflict is ignored (OR IGNORE would also hide a failed CHECK)
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (a_id, b_id, seed, swap) DO NOTHING",
                (a.id, b.id, result.seed, int(result.swap), result.a_side, result.b_side, result.winner_side,
                 outcome, int(result.truncated), result.rounds, result.decisions, result.a_damage_dealt,
                 result.a_damage_taken, result.b_damage_dealt, result.b_damage_taken, ruleset_version, now()))
        return cursor.rowcount == 1

    def game_rows(self) -> list[sqlite3.Row]:
        return self.conn.execute("SELECT * FROM games ORDER BY a_id, b_id, seed, swap").fetchall()

    def games(self, pairing_index: dict[tuple[int, int], int]) -> list[GameResult]:
        """Every stored game as a :class:`GameResult`, ``pairing`` numbered by ``pairing_index``."""
        names = {c.id: c.name for c in self.captains()}
        return [GameResult(
            pairing=pairing_index[(row["a_id"], row["b_id"])], a=names[row["a_id"]], b=names[row["b_id"]],
            seed=row["seed"], swap=bool(row["swap"]), a_side=row["a_side"], b_side=row["b_side"],
            winner_side=row["winner_side"], truncated=bool(row["truncated"]), rounds=row["rounds"],
            decisions=row["decisions"], a_damage_dealt=row["a_damage_dealt"], a_damage_taken=row["a_damage_taken"],
            b_damage_dealt=row["b_damage_dealt"], b_damage_taken=row["b_damage_taken"],
        ) for row in self.game_rows()]

    # --------------------------------------------------------------------------------- ratings
    def write_ratings(self, ratings: Sequence[Rating], from_games: int) -> None:
        ids = {c.name: c.id for c in self.captains()}
        with self.transaction() as conn:
            conn.execute("DELETE FROM ratings")
            conn.executemany("INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?)",
                             [(ids[r.name], r.mu, r.sigma, r.ordinal, r.games, from_games) for r in ratings])

    def stored_ratings(self) -> tuple[list[Rating], int | None]:
        """The ratings table and the number of games it was computed from (None when empty)."""
        rows = self.conn.execute("SELECT c.name, r.* FROM ratings r JOIN captains c ON c.id = r.captain_id "
                                 "ORDER BY r.ordinal DESC, c.name").fetchall()
        if not rows:
            return [], None
        return ([Rating(r["name"], r["mu"], r["sigma"], r["ordinal"], r["games"]) for r in rows],
                rows[0]["from_games"])

    # ------------------------------------------------------------------------------------ sprt
    def sprt_params(self) -> dict[tuple[int, int], SprtParams]:
        rows = self.conn.execute("SELECT a_id, b_id, elo0, elo1, alpha, beta FROM sprt").fetchall()
        return {(r["a_id"], r["b_id"]): SprtParams(r["elo0"], r["elo1"], r["alpha"], r["beta"]) for r in rows}

    def write_sprt(self, a_id: int, b_id: int, state: SprtState) -> None:
        p = state.params
        with self.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO sprt VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (a_id, b_id, p.elo0, p.elo1, p.alpha, p.beta, state.pairs, state.llr, p.lower, p.upper,
                          state.decision, now()))


# ----------------------------------------------------------------------------------- opening
def create(path: str | Path, info: LeagueInfo) -> League:
    """A new league file; refuses a path that exists."""
    path = Path(path)
    if path.exists():
        raise LeagueError(f"{path} already exists; give a new file to create a league, or leave out --ruleset, "
                          "--scenario and --config to add captains to it")
    if not path.parent.is_dir():
        raise LeagueError(f"cannot create {path}: no folder {str(path.parent)!r}")
    conn = _connect(path, "rwc")
    try:
        _settings(conn)
        conn.execute("BEGIN IMMEDIATE")
        for statement in filter(str.strip, SCHEMA.split(";")):
            conn.execute(statement)
        meta = {"kind": KIND, "schema_version": str(SCHEMA_VERSION), "ruleset": info.ruleset,
                "ruleset_version": info.ruleset_version, "scenario": info.scenario, "config": info.config or "",
                "config_sha256": info.config_sha256 or "", "first_seed": str(info.first_seed),
                "created_at": info.created_at}
        conn.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        conn.execute("COMMIT")
    except BaseException:
        conn.close()
        path.unlink(missing_ok=True)
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        raise
    return League(conn, path)


def open_league(path: str | Path) -> League:
    """An existing league file, checked to be one (and of a schema this code reads) before any write."""
    path = Path(path)
    create_hint = f"create one with: naval-tactics league --db {path} add --ruleset RULESET CAPTAIN ..."
    if not path.is_file():
        raise LeagueError(f"no league file {str(path)!r}; {create_hint}")
    conn = _connect(path, "rw")
    try:
        meta = _read_meta(conn, path)
    except BaseException:
        conn.close()
        raise
    text = str(meta.get("schema_version", ""))
    version = int(text) if text.isascii() and text.isdigit() and len(text) < 10 else 0
    if version > SCHEMA_VERSION:
        conn.close()
        raise LeagueError(f"{path} is a league of schema version {version}, written by a newer naval-tactics; "
                          f"this one reads schema versions up to {SCHEMA_VERSION}: upgrade naval-tactics")
    if version < 1:
        conn.close()
        raise LeagueError(f"{path} has a bad league schema version {_shown(meta.get('schema_version'))} (a whole "
                          f"number from 1 to {SCHEMA_VERSION}); the file was changed by hand or is damaged")
    try:
        _league_info(meta, path)   # every field checked before the file is touched
    except BaseException:
        conn.close()
        raise
    _settings(conn)
    return League(conn, path)


def _shown(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _league_info(meta: dict[str, Any], path: Path) -> LeagueInfo:
    """The league's settings from its ``meta`` table, each checked: a LeagueError names every bad one."""
    from naval_env.core.ruleset import ruleset_ids

    problems = [f"{key} is missing" for key in ("ruleset", "ruleset_version", "scenario", "first_seed", "created_at")
                if not isinstance(meta.get(key), str) or not meta.get(key)]
    ruleset, seed = meta.get("ruleset"), str(meta.get("first_seed", ""))
    if isinstance(ruleset, str) and ruleset and ruleset not in ruleset_ids():
        problems.append(f"ruleset {_shown(ruleset)} is not one of {ruleset_ids()}")
    if seed and not (seed.isascii() and seed.isdigit() and len(seed) <= 20):
        problems.append(f"first_seed {_shown(seed)} is not a whole number of at most 20 digits")
    for key in ("config", "config_sha256"):
        if key in meta and not isinstance(meta[key], str):
            problems.append(f"{key} {_shown(meta[key])} is not text")
    if problems:
        raise LeagueError(f"{path}: its league settings (the 'meta' table) are not valid: {'; '.join(problems)}; "
                          "the file was changed by hand or is damaged")
    return LeagueInfo(meta["ruleset"], meta["ruleset_version"], meta["scenario"], meta.get("config") or None,
                      meta.get("config_sha256") or None, int(seed), meta["created_at"])


def _read_meta(conn: sqlite3.Connection, path: Path) -> dict[str, Any]:
    not_league = f"{path} is not a naval-tactics league file"
    try:
        with closing(conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'")) as cur:
            has_meta = cur.fetchone() is not None
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall()) if has_meta else {}
    except sqlite3.DatabaseError as exc:
        raise LeagueError(f"{not_league} ({exc}); give a league file, or a new file name to create one") from None
    if meta.get("kind") != KIND:
        raise LeagueError(f"{not_league} (no league marker in a 'meta' table); give a league file, "
                          "or a new file name to create one")
    return meta
