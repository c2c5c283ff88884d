"""Settings shared by every test process (each pytest-xdist worker loads this file too)."""

import atexit
import os
import shutil
import tempfile
from collections.abc import Generator
from pathlib import Path

import pytest

from naval_tactics.paths import data_home  # reads the environment when called, not on import

# One BLAS/OpenMP thread per process, set before anything imports torch or numpy's BLAS, and
# inherited by the subprocesses tests start (the export CLI, the torch-free ONNX check). The
# test workers are the parallelism, as the training runs (`torch_threads: 1`) and evaluation
# workers already do: on a 2-core machine a second torch thread per worker only contends,
# turning a 0.5 s behaviour-cloning fit into 10 s or more. Results do not depend on it.
os.environ.setdefault("OMP_NUM_THREADS", "1")

# The suite never reads or writes the user's own folders: before any test runs, the XDG folders and HOME
# point into one throwaway folder per test process (subprocesses inherit them). A serve run on this machine
# once left its games in ~/.local/share/naval-tactics and a fresh test server started with them.
# The user's data folder is recorded as it was first (the fixture below), for tests/install/test_user_folders.py.


def folder_state(folder: Path) -> dict[str, tuple[int, int]] | None:
    """Every file under ``folder`` with its size and modification time; None when the folder does not exist."""
    if not folder.is_dir():
        return None
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


# A pytest-xdist worker inherits the environment its controller already pointed at the throwaway home: the user's
# own folder comes down in this variable, set by the first test process.
REAL_DATA_HOME = Path(os.environ.setdefault("NAVAL_TACTICS_TEST_REAL_DATA_HOME", str(data_home())))
REAL_DATA_STATE = folder_state(REAL_DATA_HOME)
_REAL_HOME = Path.home()
# pip's cache stays where it was: the install tests read wheels from it (a cache, not the user's data).
os.environ.setdefault("PIP_CACHE_DIR", str(Path(os.environ.get("XDG_CACHE_HOME") or _REAL_HOME / ".cache") / "pip"))
TEST_HOME = Path(tempfile.mkdtemp(prefix="naval-tactics-test-home-"))
atexit.register(shutil.rmtree, TEST_HOME, ignore_errors=True)
for _name, _sub in (("HOME", ""), ("XDG_DATA_HOME", ".local/share"), ("XDG_CONFIG_HOME", ".config"),
                    ("XDG_CACHE_HOME", ".cache")):
    (TEST_HOME / _sub).mkdir(parents=True, exist_ok=True)
    os.environ[_name] = str(TEST_HOME / _sub)


class RealDataFolder:
    """The user's own naval-tactics data folder and its files as they were before this test process began."""

    def __init__(self, path: Path, before: dict[str, tuple[int, int]] | None) -> None:
        self.path, self.before = path, before

    def now(self) -> dict[str, tuple[int, int]] | None:
        return folder_state(self.path)


@pytest.fixture(scope="session")
def real_data_folder() -> RealDataFolder:
    return RealDataFolder(REAL_DATA_HOME, REAL_DATA_STATE)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The whole run (every test, every worker) left the user's data folder as it found it; else it fails."""
    if folder_state(REAL_DATA_HOME) != REAL_DATA_STATE:
        print(f"\nerror: the tests changed the user's data folder {REAL_DATA_HOME}; a test must use the "
              "throwaway home conftest.py sets up (or a program outside the tests wrote there meanwhile)")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# `make test` installs every extra and system package (Makefile: setup, system-packages) and sets NAVAL_NO_SKIPS=1,
# so a skip there means an install step went missing (the [train] extra's pytest.importorskip, for one): each
# skip, a skipped module included, is turned into a failure that says so. Without the variable a skip stays a skip.
NO_SKIPS = os.environ.get("NAVAL_NO_SKIPS") == "1"


def _no_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Turn a skip (never an expected failure's xfail) into a failure naming its reason."""
    if not (NO_SKIPS and report.skipped and not hasattr(report, "wasxfail")):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = (f"skipped under NAVAL_NO_SKIPS=1 ({reason}): `make test` installs every extra and "
                       "system package, so nothing may skip there; run `make setup system-packages`")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    _no_skip(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector
                               ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    _no_skip(report)
    return report
