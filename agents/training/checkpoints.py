"""Resumable training: checkpoints with everything a run needs to go on, written atomically, and resumed.

A checkpoint is a folder ``<run>/resume/step-<N>/`` holding ``policy.pth`` (the policy's weights),
``optimizer.pth`` (Adam's moments), ``snapshots.pth`` (the self-play pool's weights) and
``state.json`` (the step count, the callbacks' histories and counters, the opponent-draw table),
written under a temporary name and renamed into place, so a kill at any moment leaves the last
complete checkpoint intact. Nothing is unpickled on resume: tensors come back through
``torch.load(weights_only=True)``, the rest is JSON, and the model is rebuilt from the run's own
validated ``config.yaml`` (the learning-rate schedule is a function of the step count, so it
continues where it stopped). A folder without the toolkit's ``run.json`` and a checkpoint of
this format is refused before anything in it is read.

SIGINT and SIGTERM ask the run to stop: the next step writes a checkpoint and ends ``learn``.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from stable_baselines3.common.callbacks import BaseCallback

from naval_agents.captains.learned import RUN_CONFIG, RUN_MANIFEST
from naval_env.core.errors import NavalError

RESUME_DIR = "resume"
FORMAT = "naval-tactics-resume/1"
STATE = "state.json"
TENSOR_FILES = ("policy.pth", "optimizer.pth", "snapshots.pth")
KEEP = 2   # complete checkpoints kept (the newest and one before it)


class ResumeError(NavalError):
    """A folder that cannot be resumed: not a run folder of this toolkit, no checkpoint, or a damaged one."""


@dataclass(frozen=True)
class Checkpoint:
    folder: Path
    step: int
    state: dict[str, Any]


class StopRequest:
    """Set by SIGINT or SIGTERM while installed; the checkpoint callback then saves and stops the run."""

    def __init__(self) -> None:
        self.signal: int | None = None

    @property
    def requested(self) -> bool:
        return self.signal is not None

    @contextmanager
    def installed(self) -> Iterator[StopRequest]:
        if threading.current_thread() is not threading.main_thread():   # a Ray task or a thread: signals go elsewhere
            yield self
            return
        previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}

        def ask(sig: int, _frame: Any) -> None:
            if self.signal is not None and sig == signal.SIGINT:   # a second Ctrl-C: stop at once
                raise KeyboardInterrupt
            self.signal = sig

        for sig in previous:
            signal.signal(sig, ask)
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


class TrainingStopped(KeyboardInterrupt):
    """The run stopped on a signal after writing its checkpoint (a KeyboardInterrupt: it was asked to stop)."""


#: Per stateful part of a run: what goes into state.json, and how it is put back.
Saver = Callable[[], Any]
Restorer = Callable[[Any], None]


#: The counters and histories of the run's callbacks that a checkpoint keeps, by class name (callbacks with
#: ``checkpoint_state``/``restore_state`` methods keep their own).
CALLBACK_STATE = {
    "WinRateLogger": ("history",),
    "QuickEvalCallback": ("history", "best", "_next"),
    "SelfPlayCallback": ("count", "_next"),
}


def callback_parts(callbacks: list[BaseCallback]) -> dict[str, tuple[Saver, Restorer]]:
    """What each stateful callback saves into a checkpoint and how it is put back."""
    parts: dict[str, tuple[Saver, Restorer]] = {}
    for callback in callbacks:
        name = type(callback).__name__
        if hasattr(callback, "checkpoint_state"):
            parts[name] = (callback.checkpoint_state, getattr(callback, "restore_state"))  # noqa: B009
        elif name in CALLBACK_STATE:
            fields = CALLBACK_STATE[name]
            parts[name] = (_saver(callback, fields), _restorer(callback, fields))
    return parts


def _saver(callback: BaseCallback, fields: tuple[str, ...]) -> Saver:
    return lambda: {field: getattr(callback, field) for field in fields}


def _restorer(callback: BaseCallback, fields: tuple[str, ...]) -> Restorer:
    def restore(state: dict[str, Any]) -> None:
        for field in fields:
            setattr(callback, field, state[field])
    return restore


class CheckpointCallback(BaseCallback):
    """Every ``every`` timesteps, and when a stop is requested, write a resumable checkpoint of the run.

    Checkpoints are taken where a rollout starts: the weights are then those after the last update and
    the step count is exactly the steps trained on. A stop mid-rollout saves the same weights with the
    rollout's first step; its partial rollout is played again after the resume.
    """

    def __init__(self, run_folder: Path, every: int, parts: dict[str, tuple[Saver, Restorer]],
                 stop: StopRequest) -> None:
        super().__init__()
        self.run_folder, self.every, self.parts, self.stop = run_folder, every, parts, stop
        self._next = every
        self._rollout_start = 0

    def _on_training_start(self) -> None:
        self._next = (self.num_timesteps // self.every + 1) * self.every

    def _on_rollout_start(self) -> None:
        self._rollout_start = self.num_timesteps
        if self.num_timesteps >= self._next:
            self._next = (self.num_timesteps // self.every + 1) * self.every
            self.save()

    def _on_step(self) -> bool:
        if self.stop.requested:
            self.save()
            return False
        return True

    def _on_training_end(self) -> None:
        if not self.stop.requested:   # the run's last steps: a checkpoint at its total
            self._rollout_start = self.num_timesteps
            self.save()

    def save(self) -> Path:
        return save_checkpoint(self.run_folder, self.model, {name: save() for name, (save, _) in self.parts.items()},
                               snapshot_states(self.training_env), self._rollout_start)


def snapshot_states(vec: Any) -> list[tuple[str, dict[str, torch.Tensor]]]:
    """The self-play pool of the first env (every env holds the same snapshots)."""
    return vec.env_method("snapshot_states", indices=[0])[0]


def save_checkpoint(run_folder: Path, model: Any, parts: dict[str, Any],
                    snapshots: list[tuple[str, dict[str, torch.Tensor]]], step: int) -> Path:
    """Write ``resume/step-<N>/`` (``step``: the timesteps trained on) atomically (a temporary folder renamed
    into place) and prune older ones."""
    root = run_folder / RESUME_DIR
    root.mkdir(exist_ok=True)
    final = root / f"step-{step:012d}"
    if final.exists():
        return final
    temporary = root / f".step-{step:012d}.partial"
    shutil.rmtree(temporary, ignore_errors=True)
    temporary.mkdir()
    torch.save(model.policy.state_dict(), temporary / "policy.pth")
    torch.save(model.policy.optimizer.state_dict(), temporary / "optimizer.pth")
    torch.save({"names": [name for name, _ in snapshots], "states": [state for _, state in snapshots]},
               temporary / "snapshots.pth")
    state = {"format": FORMAT, "num_timesteps": step, "n_updates": int(getattr(model, "_n_updates", 0)),
             "sha256": {name: _sha256(temporary / name) for name in TENSOR_FILES}, "parts": parts}
    (temporary / STATE).write_text(json.dumps(state, indent=1))
    temporary.rename(final)
    for older in complete_checkpoints(run_folder)[:-KEEP]:
        shutil.rmtree(older, ignore_errors=True)
    return final


def complete_checkpoints(run_folder: Path) -> list[Path]:
    """The run's complete checkpoints, oldest first (a partial one, from a kill mid-write, is skipped)."""
    root = run_folder / RESUME_DIR
    if not root.is_dir():
        return []
    return sorted(p for p in root.glob("step-*") if p.is_dir() and (p / STATE).is_file())


def check_run_folder(run_folder: Path) -> dict[str, Any]:
    """The run's manifest, after checking the folder is a training run folder of this toolkit."""
    manifest_path, config_path = run_folder / RUN_MANIFEST, run_folder / RUN_CONFIG
    if not run_folder.is_dir():
        raise ResumeError(f"{run_folder}: no such run folder; give the folder train printed ('run folder: ...')")
    if not manifest_path.is_file() or not config_path.is_file():
        raise ResumeError(f"{run_folder}: not a training run folder of naval-tactics (no {RUN_MANIFEST} and "
                          f"{RUN_CONFIG}); resume only folders that train made")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResumeError(f"{manifest_path}: unreadable run manifest: {error}") from None
    if not isinstance(manifest, dict) or not {"train_config", "versions", "status"} <= manifest.keys():
        raise ResumeError(f"{manifest_path}: not a run manifest of naval-tactics (it needs train_config, versions "
                          "and status); resume only folders that train made")
    return manifest


def latest_checkpoint(run_folder: Path) -> Checkpoint:
    """The newest complete checkpoint, its files checked against the hashes it recorded."""
    check_run_folder(run_folder)
    found = complete_checkpoints(run_folder)
    if not found:
        raise ResumeError(f"{run_folder}: no checkpoint to resume from (none under {RESUME_DIR}/ yet: a run writes "
                          "its first at checkpoint_every timesteps, or when stopped by Ctrl-C or SIGTERM)")
    folder = found[-1]
    try:
        state = json.loads((folder / STATE).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ResumeError(f"{folder / STATE}: unreadable checkpoint state: {error}") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise ResumeError(f"{folder}: not a checkpoint of this toolkit's format {FORMAT!r}")
    for name in TENSOR_FILES:
        if not (folder / name).is_file() or _sha256(folder / name) != state["sha256"].get(name):
            raise ResumeError(f"{folder / name}: missing or changed since the checkpoint was written; "
                              "remove this checkpoint folder to resume from the one before it")
    return Checkpoint(folder, int(state["num_timesteps"]), state)


def load_tensors(checkpoint: Checkpoint, name: str) -> Any:
    return torch.load(checkpoint.folder / name, map_location="cpu", weights_only=True)


def restore_model(model: Any, checkpoint: Checkpoint) -> None:
    """Put the policy's weights, the optimizer's state and the step count back into a freshly built model."""
    model.policy.load_state_dict(load_tensors(checkpoint, "policy.pth"))
    model.policy.optimizer.load_state_dict(load_tensors(checkpoint, "optimizer.pth"))
    model.num_timesteps = checkpoint.step
    model._n_updates = int(checkpoint.state.get("n_updates", 0))


def restore_snapshots(vec: Any, model: Any, checkpoint: Checkpoint) -> int:
    """Hand the saved self-play pool back to every env, oldest first; returns how many."""
    saved = load_tensors(checkpoint, "snapshots.pth")
    policy = model.policy
    kwargs = dict(policy._get_constructor_parameters())
    for key in ("observation_space", "action_space", "lr_schedule"):
        kwargs.pop(key, None)
    for name, state in zip(saved["names"], saved["states"]):
        vec.env_method("add_snapshot", state, type(policy), kwargs, name)
    return len(saved["names"])


def restore_parts(parts: dict[str, tuple[Saver, Restorer]], checkpoint: Checkpoint) -> None:
    for name, (_, restore) in parts.items():
        if name in checkpoint.state["parts"]:
            restore(checkpoint.state["parts"][name])


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
