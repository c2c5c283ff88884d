"""The two installs: ``pip install naval-tactics`` (envs, engines, captains, evaluation, play, the server) and
``pip install "naval-tactics[train]"`` (adds training and export: torch, stable-baselines3, sb3-contrib,
tensorboard). The base install never imports torch; a command that needs the extra says so."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

#: Distributions the ``train`` extra adds, by the module each is imported as.
TRAINING_MODULES = {"torch": "torch", "stable_baselines3": "stable-baselines3", "sb3_contrib": "sb3-contrib"}
TRAIN_INSTALL = 'pip install "naval-tactics[train]"'


class MissingExtraError(ImportError):
    """A command needs the ``train`` extra and this install lacks it; the message names the install to run."""


def missing_training_packages() -> list[str]:
    """The training extra's distributions this Python cannot import (empty when it has them all)."""
    return [dist for module, dist in TRAINING_MODULES.items() if not _importable(module)]


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):   # a broken or half-removed install counts as missing
        return False


def require_training(what: str) -> None:
    """Raise :class:`MissingExtraError` naming the install to run when the training extra is missing."""
    missing = missing_training_packages()
    if missing:
        raise MissingExtraError(f"{what} needs the training extra ({', '.join(missing)} not installed); "
                                f"install it with: {TRAIN_INSTALL}")


def invoked_as(command: str, module: str | None = None) -> str:
    """How the user typed ``command``, for usage lines and error prefixes: ``naval-tactics train``, or
    ``train.py`` through the repository's thin wrapper, ``python -m naval_tactics train``, or ``python -m
    MODULE`` for a command that is also a module of its own (``module="naval_agents.export"``)."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path()
    if script.name == f"{command}.py":
        return script.name
    if script.name == "__main__.py":
        if script.parent.name == "naval_tactics":
            return f"python -m naval_tactics {command}"
        if module is not None and script.parent.name == module.rsplit(".", 1)[-1]:
            return f"python -m {module}"
    return f"naval-tactics {command}"


def python_command() -> str:
    """``python`` when that name on PATH is this interpreter, else this interpreter's path: a printed command
    then runs as printed, venv activated or not."""
    on_path = shutil.which("python")
    return "python" if on_path and Path(on_path).absolute() == Path(sys.executable).absolute() else sys.executable


def cli_command() -> list[str]:
    """The ``naval-tactics`` command as a user can paste it: its name when PATH finds this install's script,
    else ``<python> -m naval_tactics``."""
    script = shutil.which("naval-tactics")
    if script and Path(script).absolute().parent == Path(sys.executable).absolute().parent:
        return ["naval-tactics"]
    return [python_command(), "-m", "naval_tactics"]
