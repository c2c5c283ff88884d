"""The base install: the wheel without extras, installed into a new venv, lists, evaluates with the shipped
``zoo`` captain and serves a decision without torch or stable-baselines3; training says which install it
needs. Also the sdist carries what the README points at (examples/, docs/).

The venv's packages come from pip's cache or the package index, pinned by constraints.txt (a few minutes
the first time on a slow machine, then about a minute)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
TRAINING = ("torch", "stable-baselines3", "sb3-contrib", "tensorboard")
#: Names not copied into the build's source tree (what .gitignore keeps out of a clone).
NOT_SOURCE = (".git", ".venv", "build", "dist", "runs", "results", "__pycache__", ".pytest_cache",
              ".mypy_cache", ".ruff_cache", "*.egg-info")

DECIDE = """
import json, sys
import gymnasium as gym
import naval_env
from fastapi.testclient import TestClient
from naval_tactics.server import create_app

env = gym.make("naval/Pantheon-v0", opponent="zoo", mask_in_obs=True)
obs, info = env.reset(seed=0)
obs, *_ = env.step(env.action_space.sample())
position = {"ruleset": "pantheon", "scenario": "duel", "order": ["red_0", "blue_0"],
            "ships": [{"id": "red_0", "vessel": "trireme", "x": 4, "y": 5, "facing": "E"},
                      {"id": "blue_0", "vessel": "trireme", "x": 6, "y": 5, "facing": "W", "health": 5}]}
answer = TestClient(create_app()).post("/v1/decide", json={"ruleset": "pantheon", "captain": "zoo",
                                                          "position": position})
heavy = sorted({m.split(".")[0] for m in sys.modules} & {"torch", "stable_baselines3", "sb3_contrib",
                                                          "tensorboard"})
print(json.dumps({"status": answer.status_code, "seat": answer.json().get("seat"), "heavy": heavy}))
"""


def _source_copy(tmp: Path) -> Path:
    source = tmp / "src"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    return source


def _build(source: Path, kind: str, out: Path) -> Path:
    """``build_wheel`` or ``build_sdist`` of setuptools' PEP 517 backend, run in the source tree."""
    out.mkdir()
    code = f"from setuptools import build_meta as b; print(b.build_{kind}({str(out)!r}))"
    done = subprocess.run([sys.executable, "-c", code],
                          cwd=source, check=False, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return out / done.stdout.strip().splitlines()[-1]


def _run(args: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["XDG_DATA_HOME"] = str(cwd / "data")
    return subprocess.run(args, cwd=cwd, env=env, check=False, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _source_copy(tmp_path_factory.mktemp("base_install"))


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _build(source, "wheel", tmp_path_factory.mktemp("wheel") / "dist")


def test_the_wheel_without_extras_plays_evaluates_and_serves_without_torch(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python, script = env_dir / "bin" / "python", env_dir / "bin" / "naval-tactics"
    done = _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                 "-c", str(ROOT / "constraints.txt"), str(wheel)], tmp_path, timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    installed = {line.split("==")[0].lower() for line in
                 _run([str(python), "-m", "pip", "freeze"], tmp_path).stdout.splitlines()}
    assert installed & set(TRAINING) == set()

    listed = _run([str(script), "list"], tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert all(f"{rid} " in listed.stdout for rid in ("pantheon", "pursuit", "broadside", "crew_phase", "flotilla"))

    evaluated = _run([str(script), "evaluate", "--ruleset", "pantheon", "--captains", "zoo", "gunner", "--games", "2",
                      "--workers", "1", "--no-progress"], tmp_path)
    assert evaluated.returncode == 0, evaluated.stderr[-3000:]
    results = list((tmp_path / "data" / "naval-tactics" / "evaluations").glob("pantheon_default_seed0-*/results.json"))
    assert len(results) == 1 and json.loads(results[0].read_text())
    assert not (tmp_path / "results").exists()

    decided = _run([str(python), "-c", DECIDE], tmp_path)
    assert decided.returncode == 0, decided.stderr[-3000:]
    assert json.loads(decided.stdout.strip().splitlines()[-1]) == {"status": 200, "seat": "red_0", "heavy": []}

    refused = _run([str(script), "train", "--config", "pantheon"], tmp_path)
    assert refused.returncode == 2
    assert 'pip install "naval-tactics[train]"' in refused.stderr and "Traceback" not in refused.stderr


BESIDE_OPENAI_AGENTS = """
import json
from agents import Agent, Runner            # openai-agents' own top-level package
import naval_agents.captains.registry, naval_env
from naval_env.core.ruleset import get_ruleset
ruleset = get_ruleset("pantheon")
captain = naval_agents.captains.registry.make_captain("zoo", "pantheon", ruleset.action_spec(ruleset.load_config()))
print(json.dumps({"agent": Agent.__module__, "captain": captain.name,
                  "agents_from": __import__("agents").__file__}))
"""


def test_the_wheel_installs_nothing_named_agents_and_sits_beside_openai_agents(wheel: Path, tmp_path: Path) -> None:
    """The wheel's top-level names are this project's own; ``openai-agents`` (whose import name is ``agents``)
    installs beside it, ``pip check`` agrees, and both import in one process."""
    with zipfile.ZipFile(wheel) as archive:
        top = {name.split("/")[0] for name in archive.namelist() if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"naval_env", "naval_agents", "naval_tactics"}
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    done = _run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                 "-c", str(ROOT / "constraints.txt"), str(wheel), "openai-agents"], tmp_path, timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    checked = _run([str(python), "-m", "pip", "check"], tmp_path)
    assert checked.returncode == 0, checked.stdout
    both = _run([str(python), "-c", BESIDE_OPENAI_AGENTS], tmp_path)
    assert both.returncode == 0, both.stderr[-3000:]
    found = json.loads(both.stdout.strip().splitlines()[-1])
    assert found["agent"].startswith("agents.") and found["captain"].startswith("zoo")
    assert "site-packages" in found["agents_from"]


def test_the_sdist_carries_the_examples_docs_and_configs(source: Path, tmp_path: Path) -> None:
    sdist = _build(source, "sdist", tmp_path / "dist")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for path in ("examples/cleanrl_masked_ppo.py", "examples/node/play.js", "docs/apps.md", "docs/rules/pantheon.md",
                 "configs/train/pantheon.yaml", "constraints.txt", "README.md"):
        assert path in names, path
