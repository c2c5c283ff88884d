"""Ctrl-C during a multi-worker evaluate.py: one clean message and exit 130, no worker tracebacks."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow   # evaluate.py started and interrupted as a process

ROOT = Path(__file__).resolve().parents[2]


def _default_ctrl_c() -> None:
    """Start the command as a terminal starts it: with Ctrl-C at its default (a test run launched in the
    background by a non-interactive shell inherits SIGINT ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_every_worker_with_one_message_and_writes_no_partial_results(tmp_path: Path) -> None:
    out = tmp_path / "results"
    argv = [sys.executable, "evaluate.py", "--ruleset", "pantheon", "--captains", "gunner", "rammer",
            "--games", "5000", "--workers", "2", "--replays", "--no-progress", "--out", str(out)]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=_default_ctrl_c)  # noqa: PLW1509 - a terminal's job; the test starts no thread before it
    deadline = time.monotonic() + 120
    while not any((out / "replays").glob("*")):      # the workers are playing
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no game finished in 120 s"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)            # Ctrl-C reaches the whole group
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert "interrupted" in err and "nothing was written" in err
    assert sorted(p.name for p in out.iterdir()) == ["replays"]   # no tables or results of a partial run
