"""The packages stand in layers and import one way, with no cycles (docs/architecture.md).

The import graph is read from the source (AST), so an import inside a function counts as much as one at the
top of a module: it runs as soon as the function does. Layers, lowest first:

    naval_env.core -> naval_env.rulesets -> naval_env.envs -> naval_env -> naval_agents.captains -> naval_agents
    -> naval_tactics

(``naval_agents.captains``: the run-time captains; the rest of ``naval_agents``: the pipelines above them.)

A module may import its own layer and those below it, never one above (``TYPE_CHECKING`` imports
included: a type named from above is a dependency on it all the same). A cycle is two or more modules
that import each other at run time, directly or round a loop; ``TYPE_CHECKING`` imports never run, so
they cannot make an import order fail and are left out of that check (an engine and its observer
naming each other's class in annotations is how Python types a call and its callback).
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("naval_env", "naval_agents", "naval_tactics")

#: Lowest first; a module belongs to the longest prefix it starts with.
LAYERS = ("naval_env.core", "naval_env.rulesets", "naval_env.envs", "naval_env", "naval_agents.captains", "naval_agents",
          "naval_tactics")

#: The only imports allowed to reach a higher layer, each with why. (importer, imported)
UPWARD_EXCEPTIONS: dict[tuple[str, str], str] = {
    ("naval_env.rulesets.pettingzoo", "naval_env.envs.pettingzoo_env"):
        "PettingZoo's convention: a game's package offers env() and parallel_env() (as pettingzoo.classic."
        "tictactoe_v3 does), made for every ruleset by pettingzoo_factories; the import runs only when they "
        "are called, after the envs are importable",
    ("naval_agents.captains.model_files", "naval_agents.training.config"):
        "a training run folder's config.yaml is validated by the schema that wrote it (load_train_config) before "
        "its policy is rebuilt; the import runs inside run_settings, only when a run folder's zip is loaded (which "
        "needs the [train] extra), never for a scripted, search, zoo or ONNX captain",
}

#: Cycles that still stand, each with why and who removes it. The test fails when one of them is gone too,
#: so this list only shrinks.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    line: int
    type_only: bool   # under ``if TYPE_CHECKING:``


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _owner(name: str, known: dict[str, Path]) -> str | None:
    """The module ``name`` is or lies in (``a.b.C`` -> ``a.b``); None outside the packages."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def _type_only_nodes(tree: ast.Module) -> set[int]:
    nodes: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            nodes.update(id(child) for stmt in node.body for child in ast.walk(stmt))
    return nodes


def imports_of(module: str, path: Path, known: dict[str, Path]) -> Iterator[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    type_only = _type_only_nodes(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            # ``from a import b`` imports the module a.b when there is one, else a name of a.
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        for target in targets:
            owner = _owner(target, known)
            if owner is not None and owner != module:
                yield Import(module, owner, node.lineno, id(node) in type_only)


def all_imports() -> list[Import]:
    known = modules()
    return [found for module, path in known.items() for found in imports_of(module, path, known)]


def layer_of(module: str) -> int:
    return max((i for i, prefix in enumerate(LAYERS) if module == prefix or module.startswith(prefix + ".")),
               key=lambda i: len(LAYERS[i]))


def cycles(edges: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of two or more modules (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_no_module_imports_a_higher_layer() -> None:
    upward = [f"{i.importer} (line {i.line}) imports {i.imported}: layer {LAYERS[layer_of(i.importer)]} may "
              f"not import {LAYERS[layer_of(i.imported)]}"
              for i in all_imports()
              if layer_of(i.imported) > layer_of(i.importer) and (i.importer, i.imported) not in UPWARD_EXCEPTIONS]
    assert not upward, "imports reaching up a layer (docs/architecture.md):\n" + "\n".join(sorted(set(upward)))


def test_each_upward_exception_is_still_needed() -> None:
    present = {(i.importer, i.imported) for i in all_imports()}
    stale = sorted(set(UPWARD_EXCEPTIONS) - present)
    assert not stale, f"no longer imported, remove from UPWARD_EXCEPTIONS: {stale}"


def test_no_import_cycles() -> None:
    edges: dict[str, set[str]] = {module: set() for module in modules()}
    for found in all_imports():
        if not found.type_only:
            edges[found.importer].add(found.imported)
    standing = cycles(edges)
    new = [sorted(cycle) for cycle in standing if cycle not in KNOWN_CYCLES]
    assert not new, ("import cycles (put the shared piece in a module below both):\n"
                     + "\n".join(" <-> ".join(cycle) for cycle in new))
    gone = [sorted(cycle) for cycle in KNOWN_CYCLES if cycle not in standing]
    assert not gone, f"these cycles are gone, remove them from KNOWN_CYCLES: {gone}"


def test_the_checker_sees_lazy_and_relative_imports(tmp_path: Path) -> None:
    source = ("from typing import TYPE_CHECKING\nfrom . import game\n"
              "if TYPE_CHECKING:\n    from naval_agents.captains.base import Captain\n"
              "def f():\n    import naval_tactics.cli\n")
    path = tmp_path / "ruleset.py"
    path.write_text(source)
    known = dict.fromkeys(["naval_env.core.ruleset", "naval_env.core.game", "naval_agents.captains.base", "naval_tactics.cli"],
                          path)
    found = {(i.imported, i.type_only) for i in imports_of("naval_env.core.ruleset", path, known)}
    assert found == {("naval_env.core.game", False), ("naval_agents.captains.base", True), ("naval_tactics.cli", False)}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset("abc")]


def test_importing_every_naval_env_module_imports_no_captain_package() -> None:
    """In a fresh interpreter: naval_env stands on its own (the envs get captains through a resolver)."""
    names = sorted(m for m in modules() if m.split(".")[0] == "naval_env")
    script = ("import importlib, sys\n"
              f"for name in {names!r}:\n    importlib.import_module(name)\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in ('naval_agents', 'naval_tactics')))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "[]", f"naval_env imported these: {done.stdout.strip()}"


def test_an_env_resolves_captain_names_without_agents_imported_first() -> None:
    """``gym.make(..., opponent="zoo")`` finds agents' resolver through its entry point (pyproject.toml)."""
    script = ("import gymnasium, naval_env\n"
              "env = gymnasium.make('naval/Pantheon-v0', opponent='zoo')\n"
              "env.reset(seed=0)\n"
              "print([c.name for c in env.unwrapped._opponent_pool], type(env.unwrapped._ally).__name__)\n"
              "print(gymnasium.make('naval/Pantheon-v0').unwrapped._opponent_pool[0].name)\n")
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, (f"{done.stderr[-1500:]}\n(if it says no captain package is installed: the "
                                  "entry point is recorded on install; run `make setup` or `pip install -e .`)")
    assert done.stdout.splitlines() == ["['zoo:pantheon'] NoneType", "rammer"]


#: Run-time modules that import torch (or Ray) when imported: the policy networks, the numpy copy of a torch
#: policy (made from its torch layers) and the captain of an RLlib checkpoint. Every other run-time module must
#: import without them.
NEEDS_TRAINING_EXTRA = ("naval_agents.captains.networks.", "naval_agents.captains.numpy_policy",
                        "naval_agents.captains.learned_rllib")


def test_the_run_time_captains_import_no_pipeline_torch_sb3_or_ray() -> None:
    """In a fresh interpreter: every run-time module (but the networks) imports, a zoo level and a search captain
    are made and decide, and nothing of torch, stable-baselines3, Ray or the pipelines was imported."""
    names = sorted(m for m in modules() if m.startswith("naval_agents.captains")
                   and not m.startswith(NEEDS_TRAINING_EXTRA))
    script = ("import importlib, sys\n"
              f"for name in {names!r}:\n    importlib.import_module(name)\n"
              "from naval_agents.captains.base import Decision\n"
              "from naval_agents.captains.registry import make_captain\n"
              "from naval_env.core.ruleset import get_ruleset\n"
              "ruleset = get_ruleset('pantheon')\n"
              "game = ruleset.new_game(ruleset.load_config(), seed=0)\n"
              "for name in ('zoo', 'hard', 'search:4', 'expert:20ms'):\n"
              "    captain = make_captain(name, 'pantheon', game.action_spec, seed=0)\n"
              "    agent = game.current_agent\n"
              "    captain.act(Decision(agent, game.observe(agent), game.legal_mask(agent), game))\n"
              "heavy = ('torch', 'stable_baselines3', 'sb3_contrib', 'ray', 'tensorboard')\n"
              "pipelines = tuple(f'naval_agents.{p}' for p in ('training', 'evaluation', 'league', 'atlas', "
              "'distributed', 'export', 'zoo', 'plots'))\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy or m.startswith(pipelines)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, check=False,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "[]", f"the run-time captains imported: {done.stdout.strip()}"


def test_architecture_page_lists_the_layers_the_check_enforces() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = re.search(r"<!-- layers -->\n(.*?)<!-- /layers -->", page, re.DOTALL)
    assert table is not None, "docs/architecture.md lost its layer table (between <!-- layers --> markers)"
    listed = re.findall(r"^\| \d+ \| `([a-z_.]+)` \|", table.group(1), re.MULTILINE)
    assert tuple(listed) == LAYERS
    for imported in {imported for _, imported in UPWARD_EXCEPTIONS}:
        assert imported in page, f"the page does not name the allowed upward import of {imported}"
