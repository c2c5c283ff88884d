"""The suite runs in a throwaway home: the toolkit's data folder (the server's default game store, the
evaluations) is inside it, subprocesses inherit it, and the user's own folder is left exactly as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from naval_tactics import cli
from naval_tactics.paths import data_home
from naval_tactics.server import ServerSettings, create_app

REPO = Path(__file__).resolve().parents[2]


def test_the_data_folder_is_a_throwaway_one_in_this_process_and_its_subprocesses(real_data_folder: Any) -> None:
    real = real_data_folder.path
    home = Path(os.environ["HOME"])
    assert data_home() != real and data_home().is_relative_to(home)
    assert "naval-tactics-test-home-" in str(home) and "naval-tactics-test-home-" not in str(real)
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        assert Path(os.environ[name]).is_relative_to(home), name
    code = "from naval_tactics.paths import data_home; print(data_home())"
    child = subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(REPO)},
                           capture_output=True, text=True, check=True, timeout=60)
    assert Path(child.stdout.strip()) == data_home()


def test_a_server_on_the_default_store_writes_its_games_here_and_leaves_the_users_folder_alone(
        real_data_folder: Any) -> None:
    store = Path(cli._store_of(None))   # what `naval-tactics serve` uses when --store is not given
    try:
        with TestClient(create_app(ServerSettings(store=store))) as http:
            game = http.post("/v1/games", json={"ruleset": "pursuit", "seed": 1})
            assert game.status_code == 201, game.text
            assert http.get("/v1/health").json()["games"] >= 1
        assert store.is_file() and store.is_relative_to(Path(os.environ["XDG_DATA_HOME"]))
    finally:   # the next server test of this process starts on an empty default store
        for made in store.parent.glob(store.name + "*"):
            made.unlink()
    assert real_data_folder.now() == real_data_folder.before, f"{real_data_folder.path} changed during the tests"


@pytest.mark.slow
def test_a_run_that_writes_into_the_users_data_folder_fails(tmp_path: Path) -> None:
    """The session check of conftest.py, on a run whose "user" data folder is a temporary one."""
    (tmp_path / "test_writes.py").write_text(
        "def test_writes(real_data_folder):\n"
        "    real_data_folder.path.mkdir(parents=True, exist_ok=True)\n"
        "    (real_data_folder.path / 'games.sqlite3').write_text('x')\n"
        "def test_reads(real_data_folder):\n"
        "    assert real_data_folder.now() == real_data_folder.before\n")
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_DATA_HOME": str(tmp_path / "real")}
    env.pop("NAVAL_TACTICS_TEST_REAL_DATA_HOME")   # this run's user folder is the one named just above

    def run(*selection: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.conftest", "-q", "-n", "0",
                               "-p", "no:cacheprovider", *selection], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120, check=False)

    quiet = run("test_writes.py::test_reads")
    assert quiet.returncode == 0, quiet.stdout[-2000:]
    writes = run("test_writes.py::test_writes")
    assert writes.returncode == 1, writes.stdout[-2000:]
    assert f"the tests changed the user's data folder {tmp_path / 'real' / 'naval-tactics'}" in writes.stdout
