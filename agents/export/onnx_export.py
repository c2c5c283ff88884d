"""Export a trained MaskablePPO captain from a run folder to ``.onnx`` plus its JSON sidecar.

The graph is the actor half of the policy only (no value head) and reproduces
sb3-contrib's deterministic decision step for step: features extractor ->
``mlp_extractor.forward_actor`` -> ``action_net``, flat logits split per component,
each normalised, forbidden entries set to ``HUGE_NEG`` and normalised again (what
``MaskableCategorical`` does), then the argmax of the softmax per component (what
``mode()`` does). So its logits are the torch distribution's ``logits`` and its
action is ``model.predict(..., deterministic=True)``.

Uses torch's TorchScript exporter (``dynamo=False``): the torch.export-based one needs
``onnxscript``, which is not a dependency. torch marks the TorchScript path deprecated.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import torch
from gymnasium import spaces
from torch import nn

from naval_agents.captains.learned import (
    MaskablePPOCaptain,
    ModelLoadError,
    load_run_captain,
    read_manifest,
    resolve_model_path,
    run_folder_of,
)
from naval_agents.captains.sidecar import (
    HUGE_NEG,
    INPUT_MASK,
    INPUT_OBSERVATION,
    OPSET,
    OUTPUT_ACTION,
    logits_output_names,
    sidecar_path,
    write_sidecar,
)
from naval_agents.export.conformance import DEFAULT_COUNT, conformance_path
from naval_agents.export.sidecar import build_sidecar
from naval_agents.export.vectors import has_positions
from naval_env.core.errors import NavalError
from naval_env.core.ruleset import Ruleset, get_ruleset
from naval_env.core.spaces import ActionSpec, ObservationSpec


class ExportError(NavalError):
    """The export could not be written (bad output path, unsupported policy)."""


class ActorGraph(nn.Module):
    """The exported computation: ``(observation, action_mask) -> (*logits per component, action)``."""

    huge_neg: torch.Tensor

    def __init__(self, policy: Any, nvec: list[int]) -> None:
        super().__init__()
        self.features_extractor = policy.pi_features_extractor
        self.mlp_extractor = policy.mlp_extractor
        self.action_net = policy.action_net
        self.nvec = [int(n) for n in nvec]
        self.register_buffer("huge_neg", torch.tensor(HUGE_NEG, dtype=torch.float32), persistent=False)

    def forward(self, observation: torch.Tensor, action_mask: torch.Tensor) -> tuple[torch.Tensor, ...]:
        latent = self.mlp_extractor.forward_actor(self.features_extractor(observation))
        flat_logits = self.action_net(latent)
        allowed = action_mask > 0.5
        logits: list[torch.Tensor] = []
        actions: list[torch.Tensor] = []
        for raw, mask in zip(torch.split(flat_logits, self.nvec, dim=1), torch.split(allowed, self.nvec, dim=1)):
            normalised = raw - raw.logsumexp(dim=-1, keepdim=True)          # Categorical(logits=...)
            masked = torch.where(mask, normalised, self.huge_neg)           # apply_masking
            masked = masked - masked.logsumexp(dim=-1, keepdim=True)        # Categorical re-init
            logits.append(masked)
            actions.append(torch.argmax(torch.softmax(masked, dim=-1), dim=1))  # mode(): argmax(probs)
        return (*logits, torch.stack(actions, dim=1))


@dataclass(frozen=True)
class ExportResult:
    onnx_path: Path
    sidecar_path: Path
    sha256: str
    ruleset_id: str
    ruleset_version: str
    scenario: str | None
    observation_size: int
    flat_mask_size: int
    components: tuple[str, ...]
    run_folder: Path
    #: The torch captain the export was made from (deterministic), for parity checks.
    torch_captain: MaskablePPOCaptain
    #: The ruleset config the run trained with (None: the ruleset's default).
    config_path: str | None = None
    #: The conformance vectors written next to the graph (None: none, see ``conformance_note``).
    conformance_path: Path | None = None
    conformance_vectors: int = 0
    #: Why no vectors were written, when none were.
    conformance_note: str | None = None


def _check_spaces(model: Any, ruleset: Ruleset, obs_spec: ObservationSpec, action_spec: ActionSpec,
                  where: Path) -> None:
    policy = model.policy
    obs_space, act_space = policy.observation_space, policy.action_space
    if not isinstance(obs_space, spaces.Box) or not isinstance(act_space, spaces.MultiDiscrete):
        raise ExportError(
            f"{where}: only Box observations and MultiDiscrete actions can be exported; "
            f"this model has {obs_space} and {act_space}"
        )
    if tuple(obs_space.shape) != (obs_spec.size,):
        raise ModelLoadError(
            f"{where}: model observations have shape {tuple(obs_space.shape)}, but ruleset "
            f"{ruleset.id} {ruleset.version} observations have {obs_spec.size} values"
        )
    if [int(n) for n in act_space.nvec] != [int(n) for n in action_spec.nvec]:
        raise ModelLoadError(
            f"{where}: model action components have sizes {act_space.nvec.tolist()}, but ruleset "
            f"{ruleset.id} {ruleset.version} has {action_spec.nvec.tolist()}"
        )


def _producer() -> dict[str, str]:
    versions = {"torch": torch.__version__, "exporter": "torch.onnx TorchScript (dynamo=False)"}
    for package in ("naval-tactics", "sb3-contrib", "stable-baselines3", "onnx"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    return versions


def export_policy(policy: Any, action_spec: ActionSpec, observation_size: int, out: Path,
                  opset: int = OPSET) -> None:
    """Write the graph of ``policy`` to ``out`` (no sidecar)."""
    policy.set_training_mode(False)
    graph = ActorGraph(policy, [int(n) for n in action_spec.nvec]).eval()
    observation = torch.zeros(1, observation_size, dtype=torch.float32)
    mask = torch.from_numpy(action_spec.noop_mask().astype("float32")).reshape(1, -1)
    outputs = [*logits_output_names(action_spec), OUTPUT_ACTION]
    dynamic = {name: {0: "batch"} for name in (INPUT_OBSERVATION, INPUT_MASK, *outputs)}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore", DeprecationWarning)      # "legacy TorchScript-based ONNX export"
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        torch.onnx.export(
            graph, (observation, mask), str(out), dynamo=False, opset_version=opset,
            input_names=[INPUT_OBSERVATION, INPUT_MASK], output_names=outputs,
            dynamic_axes=dynamic, do_constant_folding=True,
        )


def _ruleset_config_of(manifest: dict[str, Any], where: Path) -> str | None:
    """run.json's ``train_config.ruleset_config``: a path or None; anything else is refused by name."""
    train_config = manifest.get("train_config")
    if train_config is None:
        return None
    if not isinstance(train_config, dict):
        raise ModelLoadError(f"{where}: 'train_config' is a JSON {_json_kind(train_config)}; expected an "
                             "object of the run's training settings (or null)")
    config_path = train_config.get("ruleset_config")
    if config_path is not None and not isinstance(config_path, str):
        raise ModelLoadError(f"{where}: 'train_config.ruleset_config' is a path or null, found {config_path!r}")
    return config_path


def _json_kind(value: Any) -> str:
    kinds = {list: "list", str: "string", bool: "boolean", int: "number", float: "number"}
    return kinds.get(type(value), type(value).__name__)


def _write_conformance(out: Path, ruleset: Ruleset, config: Any, config_path: str | None, count: int,
                       seed: int) -> tuple[Path, dict[str, Any]]:
    """Write ``count`` vectors played by the just-written graph, reload every one and recompute it."""
    from naval_agents.captains.onnx_captain import OnnxCaptain
    from naval_agents.export.conformance import (
        check_conformance,
        conformance_entry,
        conformance_path,
        write_conformance,
    )
    from naval_agents.export.vectors import make_vectors

    captain = OnnxCaptain(out, expected_ruleset=ruleset.id, config=config)
    path = conformance_path(out)
    document = make_vectors(ruleset.id, config, captain, count=count, seed=seed, config_path=config_path,
                            file_name=path.name)
    sha256 = write_conformance(path, document)
    report = check_conformance(path, config=config, captain=captain)
    if not report.ok:
        raise ExportError(f"{path}: the vectors do not reproduce from their positions:\n{report.summary()}")
    return path, conformance_entry(path, sha256, document)


def run_model(source: str | Path) -> tuple[Path, Path, dict[str, Any], Ruleset, str | None, Any]:
    """``(model zip, run folder, run.json, ruleset, ruleset config path, ruleset config)`` of a run folder or a
    model zip inside one, refused by name when the run's ruleset is unknown or has changed version since."""
    model_path = resolve_model_path(Path(source))
    run = run_folder_of(model_path)
    manifest = read_manifest(run)
    ruleset_id = manifest.get("ruleset")
    if not isinstance(ruleset_id, str):
        raise ModelLoadError(f"{run / 'run.json'}: no 'ruleset' recorded, cannot tell what the model plays")
    try:
        ruleset = get_ruleset(ruleset_id)
    except KeyError as exc:
        raise ModelLoadError(f"{run / 'run.json'}: {exc.args[0]}") from None
    trained_version = manifest.get("ruleset_version")
    if trained_version is not None and str(trained_version) != ruleset.version:
        raise ModelLoadError(
            f"{model_path}: trained on {ruleset_id} {trained_version}, but the installed ruleset is "
            f"{ruleset.version}; its observations and actions may mean something else now"
        )
    # The run's own ruleset config (a custom catalogue or house rules can change the spaces).
    config_path = _ruleset_config_of(manifest, run / "run.json")
    return model_path, run, manifest, ruleset, config_path, ruleset.load_config(config_path)


def export_run(source: str | Path, out: str | Path, opset: int = OPSET, *, conformance: int = DEFAULT_COUNT,
               seed: int = 0) -> ExportResult:
    """Export the captain of a run folder (or a model zip inside one) to ``out``, its sidecar and
    ``conformance`` vectors (``<stem>.conformance.json``, games seeded with ``seed``; 0: none)."""
    out = Path(out)
    if out.suffix != ".onnx":
        raise ExportError(f"{out}: the output must be a .onnx file (its sidecar goes next to it as .json)")
    if isinstance(conformance, bool) or not isinstance(conformance, int) or conformance < 0:
        raise ExportError(f"conformance must be 0 (none) or a positive number of vectors, got {conformance!r}")
    model_path, run, manifest, ruleset, config_path, config = run_model(source)
    ruleset_id = ruleset.id
    obs_spec, action_spec = ruleset.observation_spec(config), ruleset.action_spec(config)
    captain = load_run_captain(model_path, ruleset_id, deterministic=True, config=config, numpy_copy=False)
    _check_spaces(captain.model, ruleset, obs_spec, action_spec, model_path)

    vectors_path: Path | None = None
    note = None
    if conformance == 0:
        note = "not asked for (conformance=0)"
    elif not has_positions(ruleset):
        note = f"ruleset {ruleset_id} has no position model yet"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        export_policy(captain.model.policy, action_spec, obs_spec.size, out, opset)
        import onnx

        onnx.checker.check_model(str(out))
        data = build_sidecar(
            onnx_file=out, ruleset_id=ruleset_id, ruleset_version=ruleset.version,
            scenario=manifest.get("scenario"), observation_spec=obs_spec, action_spec=action_spec,
            opset=opset, run_manifest=manifest, run_folder=str(run), producer=_producer(),
        )
        side = write_sidecar(out, data)  # the ONNX captain that plays the vectors' games reads it
        if note is None:
            vectors_path, data["conformance"] = _write_conformance(out, ruleset, config, config_path,
                                                                   conformance, seed)
            side = write_sidecar(out, data)
    except Exception:
        out.unlink(missing_ok=True)
        sidecar_path(out).unlink(missing_ok=True)
        conformance_path(out).unlink(missing_ok=True)
        raise
    return ExportResult(
        onnx_path=out, sidecar_path=side, sha256=data["onnx"]["sha256"], ruleset_id=ruleset_id,
        ruleset_version=ruleset.version, scenario=manifest.get("scenario"),
        observation_size=obs_spec.size, flat_mask_size=action_spec.flat_size,
        components=tuple(c.name for c in action_spec.components), run_folder=run, torch_captain=captain,
        config_path=config_path, conformance_path=vectors_path,
        conformance_vectors=conformance if vectors_path is not None else 0, conformance_note=note,
    )
