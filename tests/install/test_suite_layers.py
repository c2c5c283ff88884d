"""The suite's layers (docs/install.md: Test layers): what each layer needs is installed where `make test` runs,
a module that needs the [train] extra says so twice (its ``train`` marker and a ``pytest.importorskip`` before
the imports that need it), without the extra those modules are skipped rather than broken, and under
``NAVAL_NO_SKIPS=1`` (`make test`) a skip is a failure."""

from __future__ import annotations

import ast
import importlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.chromium import CHROMEDRIVER, CHROMIUM

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
LAYERS = ("slow", "browser", "train", "ray", "node")
#: The [train] extra's packages a test module may import (sb3-contrib needs stable-baselines3 needs torch).
TRAIN_PACKAGES = ("torch", "stable_baselines3", "sb3_contrib")

#: What `make test` installs for each layer, with the step that installs it. `make test` must run every layer,
#: so a missing one fails here loudly (each check carries its layer's marker: `-m "not train"` leaves it out).
NEEDS = [
    pytest.param("module", "torch", "make setup (the [train] extra)", marks=pytest.mark.train),
    pytest.param("module", "stable_baselines3", "make setup (the [train] extra)", marks=pytest.mark.train),
    pytest.param("module", "sb3_contrib", "make setup (the [train] extra)", marks=pytest.mark.train),
    pytest.param("module", "ray", "make setup (the [ray] extra)", marks=pytest.mark.ray),
    pytest.param("module", "selenium", "make setup (the [dev] extra)", marks=pytest.mark.browser),
    pytest.param("command", CHROMIUM, "make system-packages (chromium)", marks=pytest.mark.browser),
    pytest.param("command", CHROMEDRIVER, "make system-packages (chromium-driver)", marks=pytest.mark.browser),
    pytest.param("command", "node", "make system-packages (nodejs)", marks=pytest.mark.node),
]


@pytest.mark.parametrize(("kind", "name", "installed_by"), NEEDS)
def test_what_each_layer_needs_is_installed(kind: str, name: str, installed_by: str) -> None:
    if kind == "module":
        try:
            importlib.import_module(name)
        except ImportError as error:
            pytest.fail(f"{name} does not import ({error}); {installed_by} installs it")
    else:
        assert shutil.which(name), f"{name} is not on PATH; {installed_by} installs it"


def test_every_layer_is_a_registered_marker_and_make_test_fast_leaves_each_out(
        pytestconfig: pytest.Config) -> None:
    registered = {line.split(":")[0].strip() for line in pytestconfig.getini("markers")}
    assert set(LAYERS) <= registered, f"unregistered layer markers: {set(LAYERS) - registered}"
    fast = re.search(r"^FAST := (.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert fast, "the Makefile has no FAST := line (make test-fast's marker expression)"
    assert fast.group(1).split(" and ") == [f"not {layer}" for layer in LAYERS]


def _module_level(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The packages a module imports-or-skips at its top level, and the markers its ``pytestmark`` names."""
    skipped, marks = set(), set()
    for node in tree.body:
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and ast.unparse(node.value.func) == "pytest.importorskip"):
            skipped.add(ast.literal_eval(node.value.args[0]))
        if isinstance(node, ast.Assign) and any(ast.unparse(t) == "pytestmark" for t in node.targets):
            marks |= set(re.findall(r"pytest\.mark\.(\w+)", ast.unparse(node.value)))
    return skipped, marks


def test_a_module_marked_train_imports_or_skips_the_extra_and_the_other_way_round() -> None:
    found = {path.relative_to(ROOT).as_posix(): _module_level(ast.parse(path.read_text(encoding="utf-8")))
             for path in sorted(TESTS.rglob("test_*.py"))}
    marked = {name for name, (_, marks) in found.items() if "train" in marks}
    guarded = {name for name, (skipped, _) in found.items() if skipped & set(TRAIN_PACKAGES)}
    assert marked, "no test module is marked train: the layer's marker went missing"
    assert marked - guarded == set(), "marked train without a pytest.importorskip of torch/SB3/sb3-contrib"
    assert guarded - marked == set(), "importorskip the [train] extra without pytestmark = pytest.mark.train"


# A pytest plugin (loaded with -p, before conftest.py and every test module) that makes the [train] and [ray]
# extras unimportable, as in a base install: `import torch` raises ModuleNotFoundError.
BASE_INSTALL = """
import sys
from importlib.abc import MetaPathFinder

class NoExtras(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "ray"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: a base install)", name=name)
        return None

sys.meta_path.insert(0, NoExtras())
"""


@pytest.mark.slow
def test_without_the_train_and_ray_extras_their_modules_are_skipped_not_broken(tmp_path: Path) -> None:
    """Collects the whole suite with torch, SB3, sb3-contrib and Ray unimportable: no collection error, and the
    modules skipped are exactly those that import-or-skip an extra at their top (a skip elsewhere would hide a
    base-install test)."""
    (tmp_path / "no_extras.py").write_text(BASE_INSTALL)
    env = {key: value for key, value in os.environ.items() if key != "NAVAL_NO_SKIPS"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no_extras", "-p", "no:cacheprovider",
                           "--collect-only", "-q", "-rs", "tests"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-4000:]
    skipped = set(re.findall(r"^SKIPPED \[\d+\] (tests/\S+?\.py):\d+: could not import '(?:torch|stable_baselines3|"
                             r"sb3_contrib|ray)'", out, re.MULTILINE))
    # A module guarded at its top level is skipped whole; one marked ray that needs Ray only when it runs (its
    # fixtures skip) is collected, as a base install would.
    guarded = {path.relative_to(ROOT).as_posix() for path in sorted(TESTS.rglob("test_*.py"))
               if _module_level(ast.parse(path.read_text(encoding="utf-8")))[0] & {*TRAIN_PACKAGES, "ray"}}
    assert guarded and skipped == guarded, out[-4000:]


SKIPPING = """
import pytest

def test_runs():
    pass

def test_skips():
    pytest.skip("no widget here")
"""
SKIPPED_MODULE = """
import pytest

pytest.importorskip("naval_no_such_module")

def test_never_collected():
    pass
"""


@pytest.mark.parametrize(("no_skips", "outcomes"), [
    (None, {"passed": 1, "skipped": 2}),
    ("1", {"passed": 1, "failed": 1, "errors": 1}),
])
@pytest.mark.slow
def test_naval_no_skips_turns_each_skip_into_a_failure(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
                                                       no_skips: str | None, outcomes: dict[str, int]) -> None:
    """The suite's own conftest.py on a tiny suite: a test that skips and a module that imports-or-skips."""
    pytester.makeconftest((TESTS / "conftest.py").read_text(encoding="utf-8"))
    pytester.makepyfile(test_skipping=SKIPPING, test_skipped_module=SKIPPED_MODULE)
    if no_skips is None:
        monkeypatch.delenv("NAVAL_NO_SKIPS", raising=False)
    else:
        monkeypatch.setenv("NAVAL_NO_SKIPS", no_skips)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-rA",
                                           "--continue-on-collection-errors")
    result.assert_outcomes(**outcomes)
    if no_skips:
        assert result.ret == pytest.ExitCode.TESTS_FAILED   # the skipped module is a collection error
        result.stdout.fnmatch_lines(["*skipped under NAVAL_NO_SKIPS=1 (*naval_no_such_module*",   # ERRORS first
                                     "*skipped under NAVAL_NO_SKIPS=1 (Skipped: no widget here)*"])
    else:
        assert result.ret == pytest.ExitCode.OK
