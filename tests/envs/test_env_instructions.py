"""``bench/env_instructions.py`` refuses bad arguments with a message naming what is allowed (the counts
themselves need valgrind and a minute, so they are left to the bench)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow   # the bench script started as processes

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "env_instructions.py"


@pytest.mark.parametrize(("arguments", "message"), [
    (["--steps", "0"], "--steps must be at least 1, not 0"),
    (["--baseline", "/nonexistent/tree"], "holds no naval_env package; give the root of a checkout"),
    (["--ruleset", "chess"], "invalid choice: 'chess'"),
])
def test_bad_arguments_are_refused_with_what_is_allowed(arguments: list[str], message: str) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(SCRIPT.parents[1])}, check=False)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
