"""The floors `make test-min` installs: one `==floor` per direct dependency of pyproject.toml.

`make test-min` itself (a second venv at these floors running the conformance tests) is too slow for
`make test`; these tests keep the generator honest, and the last one runs in that venv too, where it
checks that what is installed there really is the floor.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("version_floors", ROOT / "tools" / "version_floors.py")
assert spec is not None and spec.loader is not None
version_floors = importlib.util.module_from_spec(spec)
sys.modules["version_floors"] = version_floors
spec.loader.exec_module(version_floors)


def write_pyproject(tmp_path: Path, dependencies: list[str], extras: dict[str, list[str]] | None = None) -> Path:
    lines = ["[project]", 'name = "x"', f"dependencies = {json.dumps(dependencies)}"]
    if extras:
        lines.append("[project.optional-dependencies]")
        lines += [f"{name} = {json.dumps(reqs)}" for name, reqs in extras.items()]
    path = tmp_path / "pyproject.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_every_direct_dependency_of_the_project_is_pinned_to_its_floor() -> None:
    pins = version_floors.floor_constraints(ROOT / "pyproject.toml")
    by_name = dict(line.split("==") for line in pins)
    for requirement in version_floors.direct_requirements(ROOT / "pyproject.toml"):
        name = canonicalize_name(requirement.name)
        assert name in by_name, name
        assert Version(by_name[name]) in requirement.specifier, (name, by_name[name], str(requirement.specifier))


def test_extras_and_markers_are_stripped_and_skipped_names_left_out(tmp_path: Path) -> None:
    pyproject = write_pyproject(tmp_path, ["Numpy>=1.26,<3", "ray[rllib]>=2.60,<3"],
                                {"train": ["torch>=2.3,<2.14", "PyYAML==6.0.1; python_version >= '3.11'"]})
    assert version_floors.floor_constraints(pyproject, frozenset({"torch"})) == [
        "numpy==1.26", "pyyaml==6.0.1", "ray==2.60"]


@pytest.mark.parametrize("dependency", ["ruff", "ruff<1", "ruff>0.5"])
def test_a_dependency_without_a_floor_is_refused_by_name(tmp_path: Path, dependency: str) -> None:
    with pytest.raises(version_floors.MissingFloorError, match="ruff: .*declares no lower bound"):
        version_floors.floor_constraints(write_pyproject(tmp_path, [dependency]))


def test_two_floors_for_one_dependency_are_refused(tmp_path: Path) -> None:
    pyproject = write_pyproject(tmp_path, ["numpy>=1.26"], {"fast": ["numpy>=2.0"]})
    with pytest.raises(version_floors.MissingFloorError, match="numpy: two different floors"):
        version_floors.floor_constraints(pyproject)


def test_installed_base_and_train_dependencies_are_in_range_and_at_the_floor_under_test_min() -> None:
    """`make test-min` sets NAVAL_FLOORS_FILE to the constraints it installed: there each must be the floor."""
    floors_file = os.environ.get("NAVAL_FLOORS_FILE")
    floors = {} if floors_file is None else dict(
        line.split("==") for line in Path(floors_file).read_text().splitlines() if "==" in line)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for text in project["dependencies"] + project["optional-dependencies"]["train"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        installed = Version(importlib.metadata.version(name))
        assert installed in requirement.specifier, (name, str(installed), str(requirement.specifier))
        if name in floors:
            assert installed == Version(floors[name]), (name, str(installed), floors[name])
