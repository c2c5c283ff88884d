"""The training extra's CPU one-liner of docs/install.md, resolved in a new venv (pip's dry run: metadata only).

On Linux plain pip resolves ``torch`` from PyPI to its CUDA build, which brings about 20 nvidia packages and
triton (several GB). The documented one-liner adds torch's CPU index, where the same release is ``+cpu``, a
higher version to pip, so it is the one taken. The CPU index cannot be reached from these machines, so a
local PEP 503 index holding torch's CPU wheel stands in for it (the wheel pip finds where constraints.txt's
torch pin resolves here); pip runs with this machine's configuration switched off. The other side, plain
pip taking the CUDA build, is not re-resolved here: this index serves no separate metadata, so pip's dry run
downloads every CUDA wheel (2.7 GB for torch 2.13.0) to read it; tools/install_sizes.py reports it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow   # pip's dry-run resolution in a new venv

ROOT = Path(__file__).resolve().parents[2]
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
CUDA_ONLY = ("nvidia-", "triton", "cuda-")


def one_liner() -> str:
    """The documented command (docs/install.md), the line that installs [train] with the CPU index."""
    text = (ROOT / "docs" / "install.md").read_text()
    found = re.findall(r'^pip install "naval-tactics\[train\]" .*$', text, flags=re.MULTILINE)
    assert len(found) == 1, found
    return found[0]


def train_requirements() -> list[str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["train"]


@pytest.fixture(scope="module")
def fresh_pip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=True).create(where)
    return where / "bin" / "python"


@pytest.fixture(scope="module")
def cpu_index(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A one-package PEP 503 index with constraints.txt's torch as its CPU wheel, standing in for CPU_INDEX."""
    pin = next(line for line in (ROOT / "constraints.txt").read_text().splitlines() if line.startswith("torch=="))
    wheels = tmp_path_factory.mktemp("wheels")
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(wheels), pin],
                   check=True, capture_output=True, text=True, timeout=600)
    (wheel,) = wheels.glob("torch-*.whl")
    assert "+cpu" in wheel.name, f"{pin} resolved to {wheel.name} here, not a CPU wheel to stand in with"
    index = wheels / "simple" / "torch"
    index.mkdir(parents=True)
    index.joinpath("index.html").write_text(f'<a href="{wheel.as_uri()}">{wheel.name}</a>\n')
    return (wheels / "simple").as_uri()


def resolve(python: Path, *extra: str) -> dict[str, str]:
    """``{name: version}`` pip would install for the [train] requirements, with the machine's pip config off."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    done = subprocess.run([str(python), "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed",
                           "--report", "-", *extra, *train_requirements()],
                          env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return {item["metadata"]["name"]: item["metadata"]["version"] for item in json.loads(done.stdout)["install"]}


def test_the_documented_one_liner_adds_torchs_cpu_index() -> None:
    assert one_liner() == f'pip install "naval-tactics[train]" --extra-index-url {CPU_INDEX}'


def test_with_the_cpu_index_train_resolves_torchs_cpu_build_and_no_cuda_package(fresh_pip: Path,
                                                                                cpu_index: str) -> None:
    index_flag = one_liner().split('"naval-tactics[train]" ', 1)[1].replace(CPU_INDEX, cpu_index).split()
    resolved = resolve(fresh_pip, *index_flag)
    assert resolved["torch"].endswith("+cpu"), resolved["torch"]
    assert [name for name in resolved if name.startswith(CUDA_ONLY)] == []

