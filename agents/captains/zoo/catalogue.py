"""Where the shipped captains live and how one is loaded by the name ``zoo``."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from naval_agents.captains.base import Captain
from naval_agents.captains.search.value_net import ValueFileError, ValueLeaf, ValueNet
from naval_env.core.errors import NavalError

#: The captain name that loads a ruleset's shipped captain.
ZOO_CAPTAIN = "zoo"

#: Shipped with the package (package data), so ``zoo`` works from a wheel installed anywhere.
CAPTAINS_DIR = Path(str(files("naval_agents.captains.zoo")))


class ZooError(NavalError):
    """A ruleset without a shipped captain, or a shipped captain that no longer fits its ruleset."""


def zoo_onnx_path(ruleset_id: str, directory: Path = CAPTAINS_DIR) -> Path:
    return directory / f"{ruleset_id}.onnx"


def zoo_value_path(ruleset_id: str, directory: Path = CAPTAINS_DIR) -> Path:
    """The ruleset's value network (``agents/zoo/value_build.py`` writes it; the search's leaf reads it)."""
    return directory / f"{ruleset_id}.value.npz"


def load_zoo_value_leaf(ruleset_id: str, config: Any = None, directory: Path = CAPTAINS_DIR) -> ValueLeaf | None:
    """The search leaf from the ruleset's shipped value network; None where none ships.

    One made for another version of the ruleset or another observation layout fails with what to rerun.
    """
    from naval_env.core.ruleset import get_ruleset

    path = zoo_value_path(ruleset_id, directory)
    if not path.is_file():
        return None
    ruleset = get_ruleset(ruleset_id)
    size = ruleset.observation_spec(config if config is not None else ruleset.load_config()).size
    try:
        return ValueLeaf(_value_net(path, ruleset_id, ruleset.version, size))
    except ValueFileError as exc:
        raise ZooError(f"the value network of {ruleset_id} does not fit: {exc}") from None


@lru_cache(maxsize=16)
def _value_net(path: Path, ruleset_id: str, version: str, size: int) -> ValueNet:
    """Read once a process: a server's every expert decision would otherwise reopen it."""
    return ValueNet.load(path, ruleset_id, version, size)


def card_path(ruleset_id: str, directory: Path = CAPTAINS_DIR) -> Path:
    return directory / f"{ruleset_id}.md"


def facts_path(ruleset_id: str, directory: Path = CAPTAINS_DIR) -> Path:
    """The card's facts (JSON) the build and ladder commands write; the Markdown card is rendered from them."""
    return directory / f"{ruleset_id}.card.json"


def read_facts(ruleset_id: str, directory: Path = CAPTAINS_DIR) -> dict[str, Any]:
    path = facts_path(ruleset_id, directory)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def has_zoo_captain(ruleset_id: str, directory: Path = CAPTAINS_DIR) -> bool:
    return zoo_onnx_path(ruleset_id, directory).is_file()


def zoo_rulesets(directory: Path = CAPTAINS_DIR) -> list[str]:
    """Rulesets with a shipped captain."""
    return sorted(p.stem for p in directory.glob("*.onnx"))


def rebuild_command(ruleset_id: str, config: str | None = None) -> str:
    """The command that rebuilds the entry; ``config`` when it was trained by other than the ruleset's own."""
    extra = f" --config {config}" if config and config != ruleset_id else ""
    return f"naval-tactics zoo build --ruleset {ruleset_id}{extra}"


def recorded_rebuild_command(ruleset_id: str, directory: Path = CAPTAINS_DIR) -> str:
    """The rebuild command the entry's card records (it names the run config), else the default one."""
    return str(read_facts(ruleset_id, directory).get("rebuild_command") or rebuild_command(ruleset_id))


def load_zoo_captain(ruleset_id: str, config: Any = None, directory: Path = CAPTAINS_DIR) -> Captain:
    """The shipped captain of ``ruleset_id``, checked against the ruleset's version and layouts.

    A ruleset changed since the captain was exported fails here with what to rerun.
    """
    from naval_agents.captains.learned import ModelLoadError
    from naval_agents.captains.onnx_captain import OnnxCaptain

    path = zoo_onnx_path(ruleset_id, directory)
    if not path.is_file():
        raise ZooError(f"no zoo captain ships for ruleset {ruleset_id!r} (have: {zoo_rulesets(directory) or 'none'}); "
                       f"build one with: {rebuild_command(ruleset_id)}")
    try:
        captain = OnnxCaptain(path, expected_ruleset=ruleset_id, config=config)
    except ModelLoadError as exc:
        raise ZooError(f"the zoo captain of {ruleset_id} is stale: {exc}; rebuild it with: "
                       f"{recorded_rebuild_command(ruleset_id, directory)}") from None
    captain.name = f"zoo:{ruleset_id}"
    return captain
