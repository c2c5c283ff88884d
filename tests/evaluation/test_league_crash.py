"""A killed or interrupted ``league play`` loses no finished game, and a rerun ends where an uninterrupted run does."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from naval_agents.league.db import open_league
from naval_agents.league.play import play
from naval_agents.league.roster import add
from naval_agents.league.standings import standings

pytestmark = pytest.mark.slow   # league runs killed and rerun as processes

ROOT = Path(__file__).resolve().parents[2]
CAPTAINS = ["gunner", "rammer", "random"]
SEEDS = 150                       # 3 pairings x 150 seeds x 2 sides = 900 games, several seconds of play
TOTAL = 3 * SEEDS * 2


def _new(path: Path) -> None:
    league, _ = add(path, CAPTAINS, ruleset="pantheon", scenario="duel")
    league.close()


def _rows(path: Path) -> list[tuple]:  # type: ignore[type-arg]
    """Every stored game without the time it was played.

    A plain connection that waits on locks: a read-only URI connection to a WAL file that is being
    written fails now and then, and a poller seeing no games while play runs interrupts it too late.
    """
    conn = sqlite3.connect(path, timeout=10)
    try:
        return [row[:-1] for row in conn.execute("SELECT * FROM games ORDER BY a_id, b_id, seed, swap")]
    finally:
        conn.close()


def _integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


def _start(path: Path, *extra: str, session: bool = False) -> subprocess.Popen[str]:
    argv = [sys.executable, "-m", "naval_tactics", "league", "--db", str(path), "play", "--games", str(SEEDS),
            "--no-progress", *extra]
    return subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=session, preexec_fn=_default_ctrl_c)  # noqa: PLW1509 - no thread runs before the fork


def _default_ctrl_c() -> None:
    """Start the command as a terminal starts it: with Ctrl-C at its default. A test run launched in the
    background by a non-interactive shell inherits SIGINT ignored, and Python then installs no handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_rows(path: Path, process: subprocess.Popen[str], rows: int, timeout: float = 180) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert process.poll() is None, f"play ended before {rows} games: {process.communicate()}"
        try:
            count = len(_rows(path))
        except sqlite3.OperationalError:   # the file is mid-creation of its WAL index: look again
            count = 0
        if count >= rows:
            return count
        time.sleep(0.02)
    process.kill()
    raise AssertionError(f"fewer than {rows} games committed in {timeout}s")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[tuple], list]:  # type: ignore[type-arg]
    """The rows and ratings of one uninterrupted run."""
    path = tmp_path_factory.mktemp("league") / "reference.sqlite"
    _new(path)
    with open_league(path) as league:
        assert play(league, SEEDS, progress=False).played == TOTAL
        ratings = list(standings(league).ratings)
    return _rows(path), ratings


def test_sigkill_loses_no_committed_game_and_a_rerun_finishes_the_same(tmp_path: Path, reference) -> None:  # type: ignore[no-untyped-def]
    ref_rows, ref_ratings = reference
    path = tmp_path / "killed.sqlite"
    _new(path)
    process = _start(path)
    seen = _wait_for_rows(path, process, 60)
    process.kill()                                   # SIGKILL: no handler, no cleanup
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert _integrity(path) == "ok"
    kept = _rows(path)
    assert seen <= len(kept) < TOTAL                 # killed mid-run, nothing committed was lost
    assert set(kept) <= set(ref_rows)                # every committed row is exactly the uninterrupted run's
    with open_league(path) as league:
        report = play(league, SEEDS, progress=False)  # the rerun plays exactly the missing games
        assert report.played == TOTAL - len(kept)
        assert _rows(path) == ref_rows
        assert list(standings(league).ratings) == ref_ratings
        stored, from_games = league.stored_ratings()
        assert stored == ref_ratings and from_games == TOTAL


def test_ctrl_c_exits_cleanly_and_keeps_the_committed_games(tmp_path: Path, reference) -> None:  # type: ignore[no-untyped-def]
    ref_rows, ref_ratings = reference
    path = tmp_path / "interrupted.sqlite"
    _new(path)
    process = _start(path, "--workers", "2", session=True)      # its own process group, as a terminal's job
    seen = _wait_for_rows(path, process, 40)
    os.killpg(process.pid, signal.SIGINT)                       # Ctrl-C reaches the whole group
    out, err = process.communicate(timeout=120)   # a hang detector; a loaded 2-core machine once needed >60 s
    assert process.returncode == 130, (out, err)
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "interrupted" in out and "are committed" in out
    assert _integrity(path) == "ok"
    kept = _rows(path)
    assert seen <= len(kept) < TOTAL and set(kept) <= set(ref_rows)
    with open_league(path) as league:
        stored, from_games = league.stored_ratings()             # the ratings were refitted before exiting
        assert from_games == len(kept) and stored == list(standings(league).ratings)
        assert play(league, SEEDS, progress=False).played == TOTAL - len(kept)
        assert _rows(path) == ref_rows and list(standings(league).ratings) == ref_ratings


def test_a_write_cut_off_between_its_statements_does_not_block_the_next(tmp_path: Path) -> None:
    path = tmp_path / "cut.sqlite"
    _new(path)
    with open_league(path) as league:
        league.conn.execute("BEGIN IMMEDIATE")   # what a Ctrl-C landing just after BEGIN leaves open
        with league.transaction():               # was: "cannot start a transaction within a transaction"
            pass
        assert not league.conn.in_transaction
        with pytest.raises(KeyboardInterrupt), league.transaction():
            raise KeyboardInterrupt
        assert not league.conn.in_transaction
