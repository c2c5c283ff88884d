"""A run's captain as a model zip that stock sb3-contrib loads: ``MaskablePPO.load`` with only sb3-contrib installed.

A run's own zips pickle this package's ``SegmentedMaskablePolicy`` (and naval_env's space subclasses), so
``MaskablePPO.load`` fails without ``agents`` and ``naval_env`` importable, which keeps them out of RL Zoo and
model hubs. The segmented policy is ``MaskableActorCriticPolicy`` (what ``"MlpPolicy"`` names) with a faster
distribution over the same logits: every layer, name and weight is the same (agents/captains/networks/masked_policy.py).
So the weights are loaded into a stock ``MaskablePPO("MlpPolicy", ...)`` built on plain Gymnasium ``Box`` and
``MultiDiscrete`` spaces of the same sizes, with the run's PPO settings, and saved. The zip is then loaded back
with stock ``MaskablePPO.load`` and must take the project policy's most likely action on real decisions.

A slot-network run (``ppo.slots``) is refused: its entity network is a features extractor of this package, which
stock sb3-contrib cannot rebuild. Its ONNX export needs nothing of this package to play.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from naval_agents.captains.model_files import RUN_CONFIG, read_policy_file
from naval_agents.export.onnx_export import ExportError, run_model

#: The stock policy class every zip written here names (``"MlpPolicy"`` of ``MaskablePPO``).
STOCK_POLICY = "sb3_contrib.common.maskable.policies.MaskableActorCriticPolicy"
#: Decisions from real games on which the reloaded zip must act as the run's own policy (``--parity``).
DEFAULT_CHECK = 2000


class Sb3ParityError(ExportError):
    """The zip, reloaded with stock ``MaskablePPO.load``, acted differently from the run's policy (it was removed)."""


@dataclass(frozen=True)
class Sb3ExportResult:
    zip_path: Path
    run_folder: Path
    ruleset_id: str
    observation_size: int
    nvec: tuple[int, ...]
    net_arch: list[int] | None
    #: Decisions on which stock ``MaskablePPO.load``'s policy took the run policy's action (0: not checked).
    checked: int


class _SpacesOnly(gym.Env[np.ndarray, np.ndarray]):
    """Carries the spaces ``MaskablePPO`` builds its policy from; the export never steps it, and a zip keeps
    no env."""

    def __init__(self, observation_space: spaces.Box, action_space: spaces.MultiDiscrete) -> None:
        self.observation_space = observation_space
        self.action_space = action_space

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        raise NotImplementedError("only the spaces of this env are used (agents/export/sb3_zip.py)")

    def step(self, action: np.ndarray) -> Any:
        raise NotImplementedError("only the spaces of this env are used (agents/export/sb3_zip.py)")


def default_zip_path(model_path: Path) -> Path:
    """``runs/x/final_model.zip`` -> ``runs/x/final_model.sb3.zip``."""
    return model_path.with_name(f"{model_path.stem}.sb3.zip")


def _ppo_settings(run: Path) -> dict[str, Any]:
    """The run's PPO hyperparameters (so stock ``learn`` goes on as the run trained), or SB3's defaults for a
    run folder without its config.yaml."""
    if not (run / RUN_CONFIG).is_file():
        return {}
    from naval_agents.training.config import load_train_config
    from naval_agents.training.run import learning_rate

    ppo = load_train_config(run / RUN_CONFIG).ppo
    return {"learning_rate": learning_rate(ppo), "n_steps": ppo.n_steps, "batch_size": ppo.batch_size,
            "n_epochs": ppo.n_epochs, "gamma": ppo.gamma, "gae_lambda": ppo.gae_lambda,
            "clip_range": ppo.clip_range, "ent_coef": ppo.ent_coef, "vf_coef": ppo.vf_coef,
            "max_grad_norm": ppo.max_grad_norm}


def export_sb3(source: str | Path, out: str | Path | None = None, *, check: int = DEFAULT_CHECK,
               seed: int = 0) -> Sb3ExportResult:
    """Write the captain of a run folder (or a model zip inside one) as a stock sb3-contrib zip at ``out``
    (default: ``<model>.sb3.zip`` beside the model), then load it back with ``MaskablePPO.load`` and check it
    acts as the run's policy on ``check`` decisions from real games (seeded with ``seed``; 0: no check)."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from naval_agents.captains.learned import load_policy

    if isinstance(check, bool) or not isinstance(check, int) or check < 0:
        raise ExportError(f"check must be 0 (none) or a positive number of decisions, got {check!r}")
    model_path, run, _, ruleset, config_path, config = run_model(source)
    out = default_zip_path(model_path) if out is None else Path(out)
    if out.suffix != ".zip":
        raise ExportError(f"{out}: an SB3 model is a .zip file (MaskablePPO.load reads it)")
    if out.resolve() == model_path.resolve():
        raise ExportError(f"{out}: is the run's own model; write the stock zip to another file")
    policy_file = read_policy_file(model_path)
    if policy_file.slots is not None:
        raise ExportError(
            f"{model_path}: a slot-network run (policy_kwargs.slots): its entity network is a features "
            "extractor of this package that stock sb3-contrib cannot rebuild, so no stock zip can hold it. "
            "Export it to ONNX instead (naval-tactics export RUN --out NAME.onnx), which plays with onnxruntime "
            "alone; only MLP runs (ppo.net_arch) export with --sb3")
    policy, _ = load_policy(model_path, ruleset.id, config)
    observation_spec, action_spec = ruleset.observation_spec(config), ruleset.action_spec(config)
    box = policy.observation_space
    # Plain Gymnasium spaces of the same sizes: naval_env's subclasses would be pickled into the zip too.
    stock_spaces = (spaces.Box(box.low, box.high, shape=box.shape, dtype=np.float32),
                    spaces.MultiDiscrete(np.asarray(action_spec.nvec, dtype=np.int64)))
    policy_kwargs = {} if policy_file.net_arch is None else {"net_arch": list(policy_file.net_arch)}
    model = MaskablePPO("MlpPolicy", _SpacesOnly(*stock_spaces), policy_kwargs=policy_kwargs, device="cpu",
                        seed=seed, verbose=0, **_ppo_settings(run))
    model.policy.load_state_dict(policy.state_dict(), strict=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(out)
    try:
        reloaded = MaskablePPO.load(out, device="cpu")
        if type(reloaded.policy) is not MaskableActorCriticPolicy:
            raise ExportError(f"{out}: reloaded as {type(reloaded.policy).__qualname__}, not {STOCK_POLICY}")
        checked = _check_actions(policy, reloaded, ruleset.id, check, seed, config_path, out) if check else 0
    except Exception:
        out.unlink(missing_ok=True)   # never leave a zip that failed its check where it could be shipped
        raise
    return Sb3ExportResult(out, run, ruleset.id, observation_spec.size, tuple(int(n) for n in action_spec.nvec),
                           policy_file.net_arch, checked)


def _check_actions(policy: Any, reloaded: Any, ruleset_id: str, n: int, seed: int, config_path: str | None,
                   out: Path) -> int:
    """The run policy's most likely actions on ``n`` of its own decisions in real games, which stock
    ``predict(..., action_masks=..., deterministic=True)`` must reproduce exactly."""
    from naval_agents.captains.learned import LoadedModel, MaskablePPOCaptain
    from naval_agents.export.parity import collect_decisions

    captain = MaskablePPOCaptain(LoadedModel(policy), name="run", deterministic=True)
    decisions = collect_decisions(captain, ruleset_id, n, seed=seed, config_path=config_path)
    actions, _ = reloaded.predict(decisions.observations, action_masks=decisions.masks, deterministic=True)
    differ = np.flatnonzero((np.asarray(actions) != decisions.actions).any(axis=1))
    if differ.size:
        first = int(differ[0])
        raise Sb3ParityError(
            f"{out}: stock MaskablePPO.load's policy acts differently from the run's on {differ.size} of {n} "
            f"decisions (first: decision {first}, run {decisions.actions[first].tolist()}, stock "
            f"{np.asarray(actions)[first].tolist()}); the zip was removed")
    return n
