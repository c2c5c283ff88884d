"""Reading a training run's files: its folder, manifest and config, and a policy's weights, nothing unpickled.

stable-baselines3's ``MaskablePPO.load`` would unpickle every ``:serialized:`` entry of the zip's
``data`` (a crafted file runs code), so it is not used: the policy is rebuilt from the run's validated
``config.yaml`` and the ruleset's spaces, and only its weights are read, ``policy.pth`` through
``torch.load(weights_only=True)``, plus the plain-JSON ``policy_kwargs`` of ``data``. The SB3 zips
(:mod:`naval_agents.captains.learned`) and RLlib's own weights (:mod:`naval_agents.captains.learned_rllib`) both load through here.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from naval_agents.captains.networks import SLOT_BOUNDS
from naval_env.core.errors import NavalError

RUN_MANIFEST = "run.json"
RUN_CONFIG = "config.yaml"
WEIGHTS = "policy.pth"
DATA = "data"
#: Largest ``policy.pth`` / ``data`` read (uncompressed); a [4096, 4096] policy is ~0.1 GiB.
MAX_ENTRY_BYTES = 1 << 30


class ModelLoadError(NavalError):
    """A model file that is missing, not ours, for another ruleset, or does not fit its ruleset."""


def run_folder_of(path: Path) -> Path:
    """The run folder holding ``path`` (a model zip inside it or in its checkpoints/, or the folder itself)."""
    path = Path(path)
    folder = path if path.is_dir() else path.parent
    for candidate in (folder, folder.parent):
        if (candidate / RUN_MANIFEST).is_file():
            return candidate
    raise ModelLoadError(
        f"{path}: not inside a training run folder (no {RUN_MANIFEST} next to it or one level up). "
        "SB3 .zip files are only loaded from run folders written by train.py; "
        "load shared captains from their ONNX export instead."
    )


def read_manifest(run_folder: Path) -> dict[str, Any]:
    """The run's ``run.json``: a JSON object, or :class:`ModelLoadError` naming the file."""
    path = run_folder / RUN_MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelLoadError(f"{path}: unreadable run manifest: {exc}") from None
    if not isinstance(manifest, dict):
        raise ModelLoadError(f"{path}: a run manifest is a JSON object (as train.py writes it), "
                             f"found a JSON {type(manifest).__name__}")
    return manifest


def resolve_model_path(path: Path) -> Path:
    """A run folder resolves to its final model (an RLlib run's: ``final_policy.pth``), a file to itself."""
    path = Path(path)
    if path.is_dir():
        rllib_weights = path / "final_policy.pth"
        path = rllib_weights if rllib_weights.is_file() and not (path / "final_model.zip").exists() \
            else path / "final_model.zip"
    if not path.is_file():
        best = path.parent / "best_model.zip"
        if path.name == "final_model.zip" and best.is_file():   # a run stopped (Ctrl-C, a crash) before its end
            raise ModelLoadError(f"{path}: no such model file: the run stopped before it finished, but it kept the "
                                 f"best model of its evaluations: use {best}")
        raise ModelLoadError(f"{path}: no such model file")
    return path


# ---------------------------------------------------------------- reading the zip without unpickling
@dataclass(frozen=True)
class PolicyFile:
    """What is read from a model zip: the policy's weights, its ``net_arch`` (None: SB3's default) and its
    slot network's settings (None: a flat input; agents/captains/networks/slot_network.py)."""

    state_dict: dict[str, Any]
    net_arch: list[int] | None
    slots: dict[str, Any] | None = None


def _read_entry(archive: zipfile.ZipFile, name: str, where: Path) -> bytes | None:
    try:
        info = archive.getinfo(name)
    except KeyError:
        return None
    if info.file_size > MAX_ENTRY_BYTES:
        raise ModelLoadError(f"{where}: {name} is {info.file_size} bytes, more than the "
                             f"{MAX_ENTRY_BYTES} a policy of this toolkit can need")
    return archive.read(info)


def _policy_kwargs_of(data: bytes | None, where: Path) -> tuple[list[int] | None, dict[str, Any] | None]:
    """``(net_arch, slots)`` from ``data``'s ``policy_kwargs``, which must be plain JSON: ``{}``,
    ``{"net_arch": [widths]}`` or that with ``"slots": {"layout", "width", "heads", "layers"}``."""
    if data is None:
        raise ModelLoadError(f"{where}: no '{DATA}' entry; not a stable-baselines3 model zip")
    try:
        fields = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ModelLoadError(f"{where}: '{DATA}' is not JSON ({exc})") from None
    if not isinstance(fields, dict):
        raise ModelLoadError(f"{where}: '{DATA}' is a JSON {type(fields).__name__}, not an object")
    kwargs = fields.get("policy_kwargs", {})
    if kwargs == {}:
        return None, None
    arch = kwargs.get("net_arch") if isinstance(kwargs, dict) else None
    if (not isinstance(kwargs, dict) or set(kwargs) - {"slots"} != {"net_arch"} or not isinstance(arch, list)
            or not all(_is_int(w) and w > 0 for w in arch)):
        raise ModelLoadError(
            f"{where}: policy_kwargs {str(kwargs)[:200]} can not be rebuilt without unpickling; "
            "only what train.py writes is loaded: {'net_arch': [positive widths]} (or nothing), "
            "optionally with 'slots': {'layout', 'width', 'heads', 'layers'}")
    return arch, (_slots_of(kwargs["slots"], where) if "slots" in kwargs else None)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _slots_of(slots: Any, where: Path) -> dict[str, Any]:
    """The slot network's settings, each number inside the run config's bounds (``SLOT_BOUNDS``; the layout is
    checked against the ruleset when the policy is built)."""
    if not isinstance(slots, dict) or set(slots) != {"layout", *SLOT_BOUNDS}:
        raise ModelLoadError(f"{where}: policy_kwargs.slots {str(slots)[:200]} must have exactly the keys "
                             f"layout, {', '.join(SLOT_BOUNDS)}")
    for key, (low, high) in SLOT_BOUNDS.items():
        if not _is_int(slots[key]) or not low <= slots[key] <= high:
            raise ModelLoadError(f"{where}: policy_kwargs.slots.{key} is {slots[key]!r}; "
                                 f"an integer from {low} to {high}")
    if slots["width"] % slots["heads"]:
        raise ModelLoadError(f"{where}: policy_kwargs.slots.width {slots['width']} is not a multiple of its "
                             f"{slots['heads']} heads")
    return slots


def read_policy_file(path: Path) -> PolicyFile:
    """Weights (``torch.load(weights_only=True)``) and ``net_arch`` of an SB3 zip; nothing is unpickled."""
    try:
        with zipfile.ZipFile(path) as archive:
            weights = _read_entry(archive, WEIGHTS, path)
            net_arch, slots = _policy_kwargs_of(_read_entry(archive, DATA, path), path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ModelLoadError(f"{path}: not a stable-baselines3 model zip ({exc})") from None
    if weights is None:
        raise ModelLoadError(f"{path}: no '{WEIGHTS}' inside; not a stable-baselines3 model zip")
    return PolicyFile(read_tensor_state(io.BytesIO(weights), f"{path}: {WEIGHTS}"), net_arch, slots)


def read_tensor_state(source: Any, what: str) -> dict[str, Any]:
    """A state dict of tensors from ``source`` (a path or a binary file; ``what`` names it in errors), read
    with ``torch.load(weights_only=True)``: a pickle that would build any other object is refused, not run."""
    import torch

    try:
        state = torch.load(source, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises several types; all mean "not plain weights"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelLoadError(f"{what} is not a plain tensor state dict ({first})") from None
    if not isinstance(state, dict) or not all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                              for k, v in state.items()):
        raise ModelLoadError(f"{what} holds a {type(state).__name__}, not a state dict of tensors")
    return state


# ---------------------------------------------------------------- rebuilding the policy
def run_settings(run: Path, manifest: dict[str, Any]) -> tuple[list[int] | None, str | None]:
    """``(ppo.net_arch, ruleset_config)`` of the run's validated config.yaml; without one (a folder made
    by hand), ``(None, run.json's train_config.ruleset_config)``."""
    from naval_agents.training.config import load_train_config

    path = run / RUN_CONFIG
    if path.is_file():
        try:
            config = load_train_config(path)
        except NavalError as exc:
            raise ModelLoadError(f"{path}: the run's config does not validate, so its policy cannot be "
                                 f"rebuilt: {exc}") from None
        return list(config.ppo.net_arch), config.ruleset_config
    train_config = manifest.get("train_config") or {}
    ruleset_config = train_config.get("ruleset_config") if isinstance(train_config, dict) else None
    if ruleset_config is not None and not isinstance(ruleset_config, str):
        raise ModelLoadError(f"{run / RUN_MANIFEST}: train_config.ruleset_config is a path or null, "
                             f"found {ruleset_config!r}")
    return None, ruleset_config


def _check_fits(state: dict[str, Any], observation_size: int, flat_size: int, where: Path, ruleset: str,
                flat_input: bool = True) -> None:
    """Name a size mismatch with the ruleset before torch reports it as a shape error."""
    first, head = state.get("mlp_extractor.policy_net.0.weight"), state.get("action_net.weight")
    if flat_input and first is not None and first.ndim == 2 and first.shape[1] != observation_size:
        raise ModelLoadError(f"{where}: the model takes observations of {first.shape[1]} values, but "
                             f"ruleset {ruleset} observations have {observation_size}")
    if head is not None and head.ndim == 2 and head.shape[0] != flat_size:
        raise ModelLoadError(f"{where}: the model scores {head.shape[0]} action values, but ruleset "
                             f"{ruleset} actions have {flat_size} (flat mask size)")


def build_policy(observation_spec: Any, action_spec: Any, net_arch: list[int] | None,
                 slots: dict[str, Any] | None = None) -> Any:
    """The policy train.py trains (``MlpPolicy``, SB3 defaults but ``net_arch``, and the slot network when
    ``slots`` is given), on the ruleset's spaces, for its weights to be loaded into."""
    from naval_agents.captains.networks.masked_policy import SegmentedMaskablePolicy
    from naval_env.envs.spaces import action_space, observation_box

    # ortho_init off: the loaded state dict overwrites every weight, and orthogonal init's QR
    # decompositions were half the load time. The segmented policy has MlpPolicy's layers and weights and
    # builds its masked distribution ~10x faster per decision (agents/captains/networks/masked_policy.py).
    return SegmentedMaskablePolicy(observation_box(observation_spec), action_space(action_spec),
                                   lambda _: 0.0, net_arch=None if net_arch is None else list(net_arch),
                                   ortho_init=False, slots=slots)


def _check_layout(slots: dict[str, Any], observation_spec: Any, where: Path, ruleset: str) -> None:
    from naval_agents.captains.networks.slot_network import slot_layout

    if slots["layout"] != slot_layout(observation_spec):
        raise ModelLoadError(f"{where}: the model's slot layout is not ruleset {ruleset}'s observation layout "
                             "(own block and ship slots); it was trained on another observation")


def trained_run(model_path: Path, ruleset_id: str) -> tuple[Path, dict[str, Any]]:
    """The run folder of ``model_path`` and its manifest, refused unless the run trained on ``ruleset_id``."""
    run = run_folder_of(model_path)
    manifest = read_manifest(run)
    trained_on = manifest.get("ruleset")
    if trained_on != ruleset_id:
        raise ModelLoadError(f"{model_path}: trained on ruleset {trained_on!r}, not {ruleset_id!r}")
    return run, manifest


def policy_with_weights(model_path: Path, ruleset_id: str, config: Any, state: dict[str, Any],
                        net_arch: list[int] | None, slots: dict[str, Any] | None = None) -> Any:
    """The policy for ``ruleset_id`` under ``config`` (object or path) holding ``state``, checked to fit."""
    from naval_env.core.ruleset import get_ruleset

    ruleset = get_ruleset(ruleset_id)
    if config is None or isinstance(config, (str, Path)):
        try:
            config = ruleset.load_config(config)
        except NavalError as exc:
            raise ModelLoadError(f"{model_path}: cannot load ruleset config {config!r}: {exc}") from None
    observation_spec, action_spec = ruleset.observation_spec(config), ruleset.action_spec(config)
    _check_fits(state, observation_spec.size, action_spec.flat_size, model_path, f"{ruleset.id} {ruleset.version}",
                flat_input=slots is None)
    if slots is not None:
        _check_layout(slots, observation_spec, model_path, f"{ruleset.id} {ruleset.version}")
    policy = build_policy(observation_spec, action_spec, net_arch, slots)
    try:
        policy.load_state_dict(state, strict=True)
    except RuntimeError as exc:
        detail = " ".join(str(exc).split())[:400]
        raise ModelLoadError(f"{model_path}: the weights do not fit the policy the run describes "
                             f"(net_arch {net_arch or 'default'}): {detail}") from None
    policy.set_training_mode(False)
    return policy
