"""Captains from RLlib run folders (``train.py --backend rllib``): plain weights plus JSON, nothing unpickled.

The RLlib backend saves its module's weights itself, under sb3-contrib ``MaskableActorCriticPolicy``
names (``agents/training/rllib/module.py``), as ``<stem>.pth`` (a tensor state dict read with
``torch.load(weights_only=True)``) beside ``<stem>.json`` (format, ``net_arch``, sizes, timesteps).
Loading rebuilds the policy from the run's validated ``config.yaml`` and the ruleset's spaces, as
:mod:`naval_agents.captains.learned` does for SB3 runs, so the same captain, export and parity code serves both.
RLlib's own checkpoints (``rllib_checkpoint/``, written only when asked for) are never read here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from naval_agents.captains.model_files import (
    MAX_ENTRY_BYTES,
    ModelLoadError,
    policy_with_weights,
    read_manifest,
    read_tensor_state,
    run_settings,
    trained_run,
)

WEIGHTS_SUFFIX = ".pth"
FINAL_WEIGHTS = "final_policy.pth"
BEST_WEIGHTS = "best_policy.pth"
FORMAT = "naval-tactics/rllib-policy"
FORMAT_VERSION = 1


def metadata_path(weights: Path) -> Path:
    return Path(weights).with_suffix(".json")


def save_policy_weights(path: Path, state_dict: dict[str, Any], net_arch: list[int], observation_size: int,
                        flat_action_size: int, timesteps: int) -> Path:
    """Write ``path`` (tensors only) and its JSON metadata next to it; returns ``path``."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({key: value.detach().cpu().contiguous() for key, value in state_dict.items()}, path)
    meta = {"format": FORMAT, "format_version": FORMAT_VERSION, "policy": "MaskableActorCriticPolicy",
            "net_arch": list(net_arch), "observation_size": observation_size,
            "flat_action_size": flat_action_size, "timesteps": timesteps}
    metadata_path(path).write_text(json.dumps(meta, indent=1))
    return path


def _read_metadata(weights: Path) -> dict[str, Any]:
    path = metadata_path(weights)
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelLoadError(f"{weights}: no {path.name} beside it; RLlib policy weights are saved with "
                             "their JSON metadata by train.py --backend rllib") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{path}: unreadable policy metadata: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
        raise ModelLoadError(f"{path}: not {FORMAT} v{FORMAT_VERSION} metadata (found format "
                             f"{meta.get('format') if isinstance(meta, dict) else type(meta).__name__!r})")
    return meta


def read_weights(path: Path) -> dict[str, Any]:
    """The tensor state dict in ``path``, read with ``torch.load(weights_only=True)``: a pickle that would
    build any other object is refused, not run."""
    size = path.stat().st_size
    if size > MAX_ENTRY_BYTES:
        raise ModelLoadError(f"{path}: {size} bytes, more than the {MAX_ENTRY_BYTES} a policy of this "
                             "toolkit can need")
    return read_tensor_state(path, str(path))


def is_rllib_run(folder: Path) -> bool:
    """Whether a run folder was written by the RLlib backend (its run.json says so)."""
    try:
        return read_manifest(folder).get("backend") == "rllib"
    except ModelLoadError:
        return False


def load_rllib_policy(weights: Path, ruleset_id: str, config: Any = None) -> tuple[Any, Path]:
    """The sb3-contrib policy holding the weights ``weights`` of an RLlib run, and the run folder.

    ``config``: the ruleset config (object or path) of the games; default: the run's own.
    """

    weights = Path(weights)
    if not weights.is_file():
        raise ModelLoadError(f"{weights}: no such weights file")
    run, manifest = trained_run(weights, ruleset_id)
    meta = _read_metadata(weights)
    config_net_arch, run_ruleset_config = run_settings(run, manifest)
    net_arch = meta.get("net_arch")
    if not isinstance(net_arch, list) or not all(isinstance(w, int) and not isinstance(w, bool) and w > 0
                                                 for w in net_arch) or not net_arch:
        raise ModelLoadError(f"{metadata_path(weights)}: net_arch must be a list of positive widths, "
                             f"found {net_arch!r}")
    if config_net_arch is not None and config_net_arch != net_arch:
        raise ModelLoadError(f"{weights}: the weights' net_arch is {net_arch}, but {run / 'config.yaml'} says "
                             f"{config_net_arch}; the file does not belong to this run")
    policy = policy_with_weights(weights, ruleset_id, config if config is not None else run_ruleset_config,
                                 read_weights(weights), net_arch)
    return policy, run
