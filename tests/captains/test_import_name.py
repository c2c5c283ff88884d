"""The captains' import name is ``naval_agents`` (the repo's ``agents/`` folder; docs/architecture.md), and run
folders made while it was ``agents`` still load: their zips name ``agents.training.masked_policy`` in a pickle
this package never unpickles.

The wheel side (installed beside ``openai-agents``, both importable) is in tests/install/test_base_install.py.
"""

from __future__ import annotations

import base64
import json
import pickle
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")  # the [train] extra: without it this module is skipped
import gymnasium as gym
from sb3_contrib import MaskablePPO

import naval_env  # noqa: F401 - registers the gym ids
from naval_agents.captains.networks.masked_policy import SegmentedMaskablePolicy
from naval_env.core.ruleset import get_ruleset

pytestmark = pytest.mark.train

ROOT = Path(__file__).resolve().parents[2]
OLD_MODULE = "agents.training.masked_policy"

DECIDE = """
import json, sys
from naval_agents.captains.base import Decision
from naval_agents.captains.loading import load_model_captain
from naval_env.core.ruleset import get_ruleset
captain = load_model_captain(sys.argv[1], "pantheon")
ruleset = get_ruleset("pantheon")
chosen = []
for seed in range(3):
    game = ruleset.new_game(ruleset.load_config(), seed=seed)
    agent = game.current_agent
    decision = Decision(agent, game.observe(agent), game.legal_mask(agent), game)
    chosen.append([int(a) for a in captain.act(decision)])
print(json.dumps({"chosen": chosen, "agents_imported": "agents" in sys.modules}))
"""


def _old_policy_class_blob(monkeypatch: pytest.MonkeyPatch) -> str:
    """``policy_class`` as SB3 pickled it when the class lived in ``agents.training.masked_policy``: a global
    reference to that module, made by pickling a stand-in registered under the old name."""
    stand_in = type("SegmentedMaskablePolicy", (), {"__module__": OLD_MODULE})
    for name in ("agents", "agents.training", OLD_MODULE):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    sys.modules[OLD_MODULE].SegmentedMaskablePolicy = stand_in  # type: ignore[attr-defined]
    blob = pickle.dumps(stand_in)
    assert OLD_MODULE.encode() in blob and b"naval_agents" not in blob
    return base64.b64encode(blob).decode()


def _rewrite_policy_class(zip_path: Path, out: Path, blob: str) -> None:
    with zipfile.ZipFile(zip_path) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            content = source.read(item)
            if item.filename == "data":
                data = json.loads(content)
                data["policy_class"] = {**data["policy_class"], ":serialized:": blob, "__module__": OLD_MODULE}
                content = json.dumps(data).encode()
            target.writestr(item, content)


def _decide(zip_path: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", DECIDE, str(zip_path)], cwd=zip_path.parent, check=False,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_run_zip_from_before_the_rename_loads_and_decides_as_it_did(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    model = MaskablePPO(SegmentedMaskablePolicy, gym.make("naval/Pantheon-v0"), n_steps=64, batch_size=64,
                        n_epochs=1, seed=0, device="cpu", policy_kwargs={"net_arch": [32, 32]})
    model.learn(64)   # weights off their initial values, so a wrong load shows in the choices
    manifest = {"ruleset": "pantheon", "ruleset_version": get_ruleset("pantheon").version, "name": "tiny",
                "seed": 0, "train_config": {"ruleset_config": None}}
    for folder in ("new", "old"):   # run folders as train.py leaves them: the zip beside run.json
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "run.json").write_text(json.dumps(manifest), encoding="utf-8")
    new_zip, old_zip = tmp_path / "new" / "final_model.zip", tmp_path / "old" / "final_model.zip"
    model.save(new_zip)
    _rewrite_policy_class(new_zip, old_zip, _old_policy_class_blob(monkeypatch))
    with zipfile.ZipFile(old_zip) as archive:
        assert OLD_MODULE in archive.read("data").decode()

    # Stock SB3 unpickles the class and so cannot load the old zip without a package named ``agents``.
    with pytest.raises(ModuleNotFoundError, match="agents"):
        monkeypatch.delitem(sys.modules, OLD_MODULE)
        monkeypatch.delitem(sys.modules, "agents.training")
        monkeypatch.delitem(sys.modules, "agents")
        monkeypatch.setitem(sys.modules, "agents", None)   # the repo root may be on sys.path: block it
        MaskablePPO.load(old_zip, device="cpu")

    old, new = _decide(old_zip), _decide(new_zip)
    assert old == new and old["agents_imported"] is False
    assert len(old["chosen"]) == 3 and all(old["chosen"])


def test_the_repo_symlink_and_the_folder_are_one_package() -> None:
    """``naval_agents`` is the ``agents/`` folder (a symlink, so mypy, ruff and the editable install read it
    once); nothing in the packages imports the old name."""
    link = ROOT / "naval_agents"
    assert link.is_symlink() and link.resolve() == (ROOT / "agents").resolve()
    stale = [str(path.relative_to(ROOT)) for package in ("agents", "naval_env", "naval_tactics")
             for path in (ROOT / package).rglob("*.py")
             if any(line.lstrip().startswith(("import agents", "from agents ", "from agents."))
                    for line in path.read_text(encoding="utf-8").splitlines())]
    assert stale == []
