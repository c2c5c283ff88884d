"""Captains backed by a trained sb3-contrib MaskablePPO model from one of the user's own run folders.

Nothing in a model file is unpickled. stable-baselines3's ``MaskablePPO.load`` would
unpickle every ``:serialized:`` entry of the zip's ``data`` (a crafted file runs code),
so it is not used: the policy is rebuilt from the run's validated ``config.yaml`` and
the ruleset's spaces, and only its weights are read, ``policy.pth`` through
``torch.load(weights_only=True)``, plus the plain-JSON ``policy_kwargs`` of ``data``.
The same loader serves run folders, their checkpoints and ``best_model.zip``
(self-play snapshots never touch the disk: they travel between processes as state
dicts). Share captains as ONNX exports (``agents/export``). The run files are read by
:mod:`naval_agents.captains.model_files`, which RLlib's loader (:mod:`naval_agents.captains.learned_rllib`) shares.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from naval_agents.captains.base import Captain, Decision
from naval_agents.captains.model_files import (
    RUN_CONFIG,
    RUN_MANIFEST,
    ModelLoadError,
    policy_with_weights,
    read_manifest,
    read_policy_file,
    resolve_model_path,
    run_folder_of,
    run_settings,
    trained_run,
)

if TYPE_CHECKING:   # numpy_policy imports torch, which the base install (ONNX play) does not have
    from naval_agents.captains.numpy_policy import NumpyPolicy

# The run-file readers live in naval_agents.captains.model_files (below this module and naval_agents.captains.learned_rllib); named here too.
__all__ = [
    "RUN_CONFIG",
    "RUN_MANIFEST",
    "LoadedModel",
    "MaskablePPOCaptain",
    "ModelLoadError",
    "load_policy",
    "load_run_captain",
    "policy_with_weights",
    "read_manifest",
    "read_policy_file",
    "resolve_model_path",
    "run_folder_of",
    "trained_run",
]


def load_policy(model_path: Path, ruleset_id: str, config: Any = None) -> tuple[Any, Path]:
    """The policy of a model zip (or run folder) of ``ruleset_id`` and its run folder.

    ``config``: the ruleset config (object or path) of the games it will play; default: the one the
    run trained with. Its observation and action sizes must fit the weights.
    """
    model_path = resolve_model_path(Path(model_path))
    if model_path.suffix == ".pth":  # weights an RLlib run saved itself (agents/captains/learned_rllib.py)
        from naval_agents.captains.learned_rllib import load_rllib_policy

        return load_rllib_policy(model_path, ruleset_id, config)
    run, manifest = trained_run(model_path, ruleset_id)
    config_net_arch, run_ruleset_config = run_settings(run, manifest)
    policy_file = read_policy_file(model_path)
    net_arch = policy_file.net_arch
    if config_net_arch is not None and config_net_arch != net_arch:
        raise ModelLoadError(f"{model_path}: the model's net_arch is {net_arch or 'the SB3 default'}, but "
                             f"{run / RUN_CONFIG} says {config_net_arch}; the file does not belong to this run")
    policy = policy_with_weights(model_path, ruleset_id, config if config is not None else run_ruleset_config,
                                 policy_file.state_dict, net_arch, policy_file.slots)
    return policy, run



# ---------------------------------------------------------------- the captain
class LoadedModel:
    """The part of a ``MaskablePPO`` model a captain uses (``policy``, ``predict``), around a rebuilt policy."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def predict(self, observation: np.ndarray, action_masks: np.ndarray | None = None,
                deterministic: bool = False) -> tuple[np.ndarray, Any]:
        # What MaskablePPO.predict does: hand over to the policy.
        return self.policy.predict(observation, None, None, deterministic, action_masks=action_masks)


class MaskablePPOCaptain(Captain):
    """Acts with a MaskablePPO policy: the most likely legal action (or a sample).

    ``model``: a live ``MaskablePPO`` (training callbacks) or a :class:`LoadedModel`.
    ``network``: a numpy copy of a policy whose weights no longer change; the most likely legal action is
    then read from it (the same action as ``predict``, several times sooner), samples still from torch.
    """

    def __init__(self, model: Any, name: str = "ppo", deterministic: bool = True,
                 network: NumpyPolicy | None = None) -> None:
        self.model = model
        self.name = name
        self.deterministic = deterministic
        self.network = network

    def act(self, decision: Decision) -> np.ndarray:
        if self.deterministic and self.network is not None:
            return self.network.mode(decision.observation, decision.action_mask)
        action, _ = self.model.predict(
            decision.observation, action_masks=decision.action_mask, deterministic=self.deterministic
        )
        return np.asarray(action, dtype=np.int64)


def load_run_captain(path: str | Path, ruleset_id: str, deterministic: bool = True,
                     config: Any = None, numpy_copy: bool = True) -> MaskablePPOCaptain:
    """A trained captain from a run folder, or a model zip inside one (final, best or a checkpoint).

    ``config``: the ruleset config (object or path) of the games; default: the run's own.
    ``numpy_copy``: play the most likely action through the policy's numpy copy (the same action, several
    times sooner); False where torch itself is what is measured (an export's reference, the latency bench).
    """
    from naval_agents.captains.extras import MissingExtraError, require_training

    try:
        require_training(f"the run captain {path}")
    except MissingExtraError as exc:   # the base install plays .onnx exports, not run folders
        raise ModelLoadError(f"{exc} (an .onnx export of the run plays without it)") from None
    import torch

    # torch.distributions argument checks cost more than the policy itself here; masks are valid by
    # construction (as in train.py).
    torch.distributions.Distribution.set_default_validate_args(False)
    from naval_agents.captains.numpy_policy import NumpyPolicy

    policy, run = load_policy(Path(path), ruleset_id, config)
    try:   # a loaded policy's weights are fixed: play its most likely action through the numpy copy
        network = NumpyPolicy(policy) if deterministic and numpy_copy else None
    except ValueError:   # a network with no numpy copy (an RLlib model) plays through torch
        network = None
    return MaskablePPOCaptain(LoadedModel(policy), name=f"ppo:{run.name}", deterministic=deterministic,
                              network=network)
