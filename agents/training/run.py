"""One training run: build the vector env, MaskablePPO and callbacks, and write a repeatable run folder."""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import CallbackList, CheckpointCallback, ProgressBarCallback
from stable_baselines3.common.utils import LinearSchedule, set_random_seed
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

from naval_agents.captains.learned import RUN_MANIFEST
from naval_agents.captains.networks.masked_policy import SegmentedMaskablePolicy
from naval_agents.captains.networks.slot_network import slot_layout
from naval_agents.captains.registry import make_captain
from naval_agents.training.callbacks import QuickEvalCallback, SelfPlayCallback, WinRateLogger
from naval_agents.training.checkpoints import (
    Checkpoint,
    StopRequest,
    TrainingStopped,
    callback_parts,
    latest_checkpoint,
    restore_model,
    restore_parts,
    restore_snapshots,
)
from naval_agents.training.checkpoints import CheckpointCallback as ResumeCheckpoints
from naval_agents.training.config import PPOSettings, TrainConfig, TrainingScenarios
from naval_agents.training.expert_iteration import expert_iteration
from naval_agents.training.imitation import clone, collect, teachers_by_side
from naval_agents.training.plots import plot_learning_curve
from naval_agents.training.start_draws import StartsCallback, StartsEnv, position_pool
from naval_env.core.errors import ConfigError
from naval_env.core.ruleset import get_ruleset
from naval_env.envs.gym_env import CaptainSpec, NavalEnv
from naval_env.envs.match import Match

LIBRARIES = ("naval-tactics", "numpy", "torch", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib")
#: Environment variables that pick torch's (ATen) and MKL's CPU kernels, recorded when set.
KERNEL_VARIABLES = ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "MKL_CBWR")


def library_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def cpu_kernels() -> dict[str, Any]:
    """The CPU kernels torch and MKL compute with: a run retraces another bit for bit only on the same ones
    (AVX512 and AVX2 kernels put the weights ~2e-6 apart within two updates, and a run of the same seed
    then parts from the other once a sampled action flips; docs/rules/pursuit.md, "Training")."""
    return {"machine": platform.machine(), "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "env": {name: os.environ[name] for name in KERNEL_VARIABLES if name in os.environ}}


def make_env(config: TrainConfig, rank: int, positions: dict[str | None, list[dict[str, Any]]] | None = None,
             seed_offset: int = 0, scenarios: TrainingScenarios | None = None):
    """Factory for one training env (picklable for SubprocVecEnv); ``positions``: the mid-game pool;
    ``scenarios``: the run's, worked out once (default: from ``config``, for a caller that builds one env)."""
    scenarios = scenarios or TrainingScenarios.of(config)

    def build() -> StartsEnv:
        pool: list[CaptainSpec] = list(config.opponents.pool)
        if config.opponents.mode == "scripted":
            pool = pool[:1]
        weights = dict(scenarios.weights)
        env = NavalEnv(config.ruleset, config.ruleset_config, scenarios.home, learner=config.learner,
                       opponent=pool, command=config.learner_commands)
        share = config.opponents.self_play.snapshot_share if config.opponents.mode == "self_play" else 0.0
        anchors = config.opponents.pool[:1] if config.opponents.mode == "scripted" else config.opponents.pool
        wrapped = StartsEnv(env, anchors, share, config.opponents.self_play.max_snapshots, weights=weights,
                            positions=positions or {}, midgame_share=scenarios.midgame.share,
                            prioritized=config.starts.prioritized,
                            allies_are_snapshots=config.opponents.allies == "learner")
        wrapped.reset(seed=config.seed * 1000 + rank + seed_offset)
        return wrapped

    return build


def make_vec_env(config: TrainConfig, seed_offset: int = 0, scenarios: TrainingScenarios | None = None) -> VecEnv:
    """The training envs; ``seed_offset`` (a resumed run's step count) gives a resumed run fresh game seeds."""
    scenarios = scenarios or TrainingScenarios.of(config)
    positions = position_pool(config.ruleset, config.ruleset_config, scenarios.names, scenarios.midgame)
    factories = [make_env(config, rank, positions, seed_offset, scenarios) for rank in range(config.n_envs)]
    if config.vec_env == "subproc":
        vec: VecEnv = SubprocVecEnv(factories, start_method="forkserver")
    else:
        vec = DummyVecEnv(factories)
    vec.seed(config.seed + seed_offset)
    return VecMonitor(vec)


def create_run_folder(config: TrainConfig) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    folder = Path(config.run_dir) / f"{config.name}-{stamp}"
    suffix = 1
    while folder.exists():
        suffix += 1
        folder = Path(config.run_dir) / f"{config.name}-{stamp}-{suffix}"
    folder.mkdir(parents=True)
    return folder


def write_manifest(folder: Path, config: TrainConfig, extra: dict[str, Any],
                   scenarios: TrainingScenarios | None = None) -> None:
    ruleset = get_ruleset(config.ruleset)
    scenarios = scenarios or TrainingScenarios.of(config)
    (folder / "config.yaml").write_text(yaml.safe_dump(config.model_dump(), sort_keys=False))
    manifest = {
        "name": folder.name,
        "ruleset": ruleset.id,
        "ruleset_version": ruleset.version,
        "scenario": scenarios.home,
        "scenarios": scenarios.manifest(),
        "toolkit": "naval-tactics",
        "resume_command": f"naval-tactics train --resume {folder}",
        "seed": config.seed,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "versions": library_versions(),
        "cpu_kernels": cpu_kernels(),
        "command": "python train.py --config " + str(folder / "config.yaml"),
        "train_config": config.model_dump(),
        **extra,
    }
    (folder / RUN_MANIFEST).write_text(json.dumps(manifest, indent=2))


def policy_kwargs(config: TrainConfig) -> dict[str, Any]:
    """The policy's kwargs as plain JSON (a saved model rebuilds from them without unpickling)."""
    kwargs: dict[str, Any] = {"net_arch": list(config.ppo.net_arch)}
    if config.ppo.slots is not None:
        ruleset = get_ruleset(config.ruleset)
        spec = ruleset.observation_spec(ruleset.load_config(config.ruleset_config))
        kwargs["slots"] = {"layout": slot_layout(spec), **config.ppo.slots.model_dump()}
    return kwargs


def check_teachers(config: TrainConfig, scenarios: TrainingScenarios) -> None:
    """Raise, naming what is allowed, for a teacher that is not a captain or a side the scenario lacks."""
    match = Match(config.ruleset, config.ruleset_config, scenarios.home)
    assert config.imitation.teacher is not None
    for name in teachers_by_side(config.imitation.teacher, match.game.sides).values():
        make_captain(name, match.ruleset.id, match.action_spec)


def resolve_device(device: str) -> str:
    """The torch device a run trains on: ``cuda`` only where torch sees a GPU (SB3 would silently use the CPU)."""
    if device == "cpu":
        return "cpu"
    if torch.cuda.is_available():
        return "cuda"
    if device == "auto":
        return "cpu"
    raise ConfigError("device 'cuda' asked for, but torch sees no CUDA GPU (torch.cuda.is_available() is False); "
                      "use device 'cpu', or 'auto' to take a GPU only when there is one")


def check_run_dir(run_dir: str | Path) -> None:
    """Refuse a run_dir that is, or lies under, a file: run folders could not be made there."""
    path = Path(run_dir)
    for existing in (path, *path.parents):
        if existing.exists():
            if not existing.is_dir():
                raise ConfigError(f"run_dir {str(run_dir)!r}: {str(existing)!r} is a file, not a folder; "
                                  "give the folder run folders are made in (default runs)")
            return


def check_run(config: TrainConfig, scenarios: TrainingScenarios | None = None) -> str:
    """Everything a run needs, checked before its folder exists; returns the device it trains on.

    Builds one training env (ruleset config, scenario, learner seats, opponent pool, a first
    reset) and the quick evaluation's opponent, so a refused config leaves no run folder behind.
    ``scenarios``: the run's (default: worked out here from ``config``, which names the allowed ones).
    """
    try:
        get_ruleset(config.ruleset)
    except KeyError as error:
        raise ConfigError(str(error.args[0])) from None
    check_run_dir(config.run_dir)
    device = resolve_device(config.device)
    scenarios = scenarios or TrainingScenarios.of(config)   # names the allowed scenarios
    make_env(config, rank=0, scenarios=scenarios)().close()
    match = Match(config.ruleset, config.ruleset_config, scenarios.home)
    make_captain(config.eval.opponent, match.ruleset.id, match.action_spec, config=match.config)
    if config.imitation.teacher is not None:
        check_teachers(config, scenarios)
    return device


def imitate(model: MaskablePPO, config: TrainConfig, scenarios: TrainingScenarios) -> dict[str, Any]:
    """Clone ``config.imitation.teacher`` into the policy before PPO; what it measured, or {} when off."""
    settings = config.imitation
    if settings.teacher is None:
        return {}
    started = time.perf_counter()
    seed = 5_000_000 + config.seed * 100_000  # never a PPO training or evaluation seed
    demos = collect(make_env(config, rank=0, scenarios=scenarios), settings.teacher, settings.decisions, config.ppo.gamma, seed)
    fit = clone(model.policy, demos, settings.epochs, settings.batch_size, settings.learning_rate,
                config.ppo.vf_coef, config.ppo.max_grad_norm, settings.held_out, config.seed)
    measured = {"teacher": settings.teacher, "decisions": len(demos.actions), "games": demos.games,
                "teacher_win_rate": round(demos.teacher_win_rate, 4), **fit,
                "seconds": round(time.perf_counter() - started, 1)}
    print(f"imitation: {measured['decisions']} decisions in {measured['games']} games, held-out agreement "
          f"{measured.get('held_out_agreement', 'n/a')}, {measured['seconds']:.0f} s", file=sys.stderr, flush=True)
    return measured


def iterate(model: MaskablePPO, config: TrainConfig, scenarios: TrainingScenarios) -> dict[str, Any]:
    """Expert iteration on the policy after imitation, before PPO; what it measured, or {} when off."""
    seed = 7_000_000 + config.seed * 100_000  # never a PPO, evaluation or imitation seed
    rounds = config.expert_iteration.rounds

    def report(measured: dict[str, Any]) -> None:
        print(f"expert iteration round {measured['round']}/{rounds}: {measured['decisions']} decisions in "
              f"{measured['games']} games, search scored {measured['search_score']:.3f}, "
              f"{measured['seconds']:.0f} s", file=sys.stderr, flush=True)

    return expert_iteration(model.policy, make_env(config, rank=0, scenarios=scenarios), config.expert_iteration, config.ppo.gamma,
                            config.ppo.vf_coef, config.ppo.max_grad_norm, seed, on_round=report)


def learning_rate(ppo: PPOSettings) -> float | LinearSchedule:
    """The learning rate, or SB3's picklable schedule of it (saved models load it back)."""
    if ppo.learning_rate_schedule == "linear":
        return LinearSchedule(ppo.learning_rate, 0.0, 1.0)
    return ppo.learning_rate


def train(config: TrainConfig, folder: Path | None = None) -> Path:
    """Train one captain; returns the run folder (final_model.zip, best_model.zip, logs, checkpoints).

    ``folder``: the run folder to make (one seed of a multi-seed run); default a new
    ``<run_dir>/<name>-<time>``.
    """
    scenarios = TrainingScenarios.of(config)
    device = _prepare(config, scenarios)
    if folder is None:
        folder = create_run_folder(config)
    else:
        folder.mkdir(parents=True)
    return _run_guarded(folder, config, scenarios, device, None)


def resume(run_folder: Path, progress_bar: bool | None = None) -> Path:
    """Go on with an interrupted run from its newest checkpoint (``resume/step-<N>/``) to its total timesteps.

    The run's own ``config.yaml`` is read back and validated; the policy, optimizer, step count (and so
    the learning-rate schedule), self-play pool, histories and draw table come from the checkpoint.
    Refuses a folder this toolkit did not make (:class:`~naval_agents.training.checkpoints.ResumeError`).
    """
    from naval_agents.training.config import load_train_config

    checkpoint = latest_checkpoint(run_folder)
    config = load_train_config(run_folder / "config.yaml", {"progress_bar": progress_bar})
    if checkpoint.step >= config.total_timesteps:
        raise ConfigError(f"{run_folder}: its checkpoint is at {checkpoint.step} timesteps, already the run's "
                          f"total_timesteps {config.total_timesteps}; nothing to resume")
    scenarios = TrainingScenarios.of(config)
    device = _prepare(config, scenarios, seed_offset=checkpoint.step)
    return _run_guarded(run_folder, config, scenarios, device, checkpoint)


def _prepare(config: TrainConfig, scenarios: TrainingScenarios, seed_offset: int = 0) -> str:
    device = check_run(config, scenarios)
    torch.set_num_threads(config.torch_threads)
    # Argument checks in torch.distributions cost ~4x the policy's forward time with ten
    # MultiDiscrete components (measured); the masks we feed are valid by construction.
    torch.distributions.Distribution.set_default_validate_args(False)
    set_random_seed(config.seed + seed_offset)
    return device


def _run_guarded(folder: Path, config: TrainConfig, scenarios: TrainingScenarios, device: str,
                 checkpoint: Checkpoint | None) -> Path:
    try:
        return _train_in(folder, config, scenarios, device, checkpoint)
    except BaseException as error:
        status = "interrupted" if isinstance(error, KeyboardInterrupt) else "failed"
        write_manifest(folder, config, {"status": status, "device": device,
                                        "error": f"{type(error).__name__}: {error}"}, scenarios)
        _plot_what_there_is(folder, error)
        raise


def _plot_what_there_is(folder: Path, error: BaseException) -> None:
    """Draw the learning curve of a run that stopped early; a failure to draw is noted on ``error``, not raised."""
    try:
        plot_learning_curve(folder)
    except Exception as plot_error:  # noqa: BLE001  # any: the run's own error is the one to report
        error.add_note(f"learning_curve.png was not drawn: {type(plot_error).__name__}: {plot_error}")


def _train_in(folder: Path, config: TrainConfig, scenarios: TrainingScenarios, device: str,
              checkpoint: Checkpoint | None) -> Path:
    resumed = {"resumed_from": checkpoint.step} if checkpoint is not None else {}
    previous = _previous_manifest(folder) if checkpoint is not None else {}
    write_manifest(folder, config, {"status": "running", "device": device, **resumed}, scenarios)
    vec = make_vec_env(config, seed_offset=0 if checkpoint is None else checkpoint.step, scenarios=scenarios)
    ppo = config.ppo
    model = MaskablePPO(
        SegmentedMaskablePolicy, vec, learning_rate=learning_rate(ppo), n_steps=ppo.n_steps, batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs, gamma=ppo.gamma, gae_lambda=ppo.gae_lambda, clip_range=ppo.clip_range,
        ent_coef=ppo.ent_coef, vf_coef=ppo.vf_coef, max_grad_norm=ppo.max_grad_norm,
        policy_kwargs=policy_kwargs(config), tensorboard_log=str(folder / "tb"),
        seed=config.seed, device=device, verbose=0,
    )
    evaluator = QuickEvalCallback(Match(config.ruleset, config.ruleset_config, scenarios.home, "raise"),
                                  config.eval.opponent, config.eval.games, config.eval.every, folder, config.seed)
    callbacks = [
        WinRateLogger(folder),
        evaluator,
        StartsCallback(folder, config.starts.prioritized.window, config.starts.prioritized.enabled),
        CheckpointCallback(max(1, config.checkpoint_every // config.n_envs), str(folder / "checkpoints"),
                           name_prefix="model"),
    ]
    if config.opponents.mode == "self_play" or config.opponents.allies == "learner":
        callbacks.append(SelfPlayCallback(config.opponents.self_play.snapshot_every))
    parts = callback_parts(callbacks)
    clock = {"before": 0.0, "started": time.perf_counter()}
    parts["clock"] = (lambda: clock["before"] + time.perf_counter() - clock["started"],
                      lambda seconds: clock.update(before=float(seconds)))
    stop = StopRequest()
    callbacks.append(ResumeCheckpoints(folder, config.checkpoint_every, parts, stop))
    if config.progress_bar:
        callbacks.append(ProgressBarCallback())
    imitation: dict[str, Any] = {}
    expert: dict[str, Any] = {}
    if checkpoint is None:
        imitation = imitate(model, config, scenarios)
        if imitation:
            write_manifest(folder, config, {"status": "running", "device": device, "imitation": imitation},
                           scenarios)
        expert = iterate(model, config, scenarios)
        if expert:
            write_manifest(folder, config, {"status": "running", "device": device, "expert_iteration": expert,
                                            **({"imitation": imitation} if imitation else {})}, scenarios)
    else:
        restore_model(model, checkpoint)
        restore_snapshots(vec, model, checkpoint)
        restore_parts(parts, checkpoint)
        imitation, expert = previous.get("imitation", {}), previous.get("expert_iteration", {})
        print(f"resumed {folder} at {checkpoint.step} of {config.total_timesteps} timesteps", file=sys.stderr,
              flush=True)
    try:
        with stop.installed():
            model.learn(config.total_timesteps - model.num_timesteps, callback=CallbackList(callbacks),
                        tb_log_name="ppo", reset_num_timesteps=checkpoint is None)
    finally:
        vec.close()
    if stop.requested:
        saved = latest_checkpoint(folder).step
        raise TrainingStopped(f"stopped by signal {stop.signal} at {model.num_timesteps} timesteps, checkpoint at "
                              f"{saved}; resume with: naval-tactics train --resume {folder}")
    model.save(folder / "final_model.zip")
    final_rate = evaluator.evaluate_now(final=True)
    # Drawn once, at the end: a redraw at every quick evaluation measured 0.23-0.35 s of CPU each (2 busy
    # cores), over the 0.2 s allowed for it; TensorBoard shows the same numbers while a run goes.
    plot_learning_curve(folder)
    write_manifest(folder, config, {
        "status": "finished",
        "device": device,
        "wall_seconds": round(parts["clock"][0](), 1),   # every session of a resumed run together
        "final_quick_eval": {"opponent": config.eval.opponent, "games": 2 * config.eval.games,
                             "win_rate": final_rate},
        "best_quick_eval": evaluator.best,
        **resumed,
        **({"imitation": imitation} if imitation else {}),
        **({"expert_iteration": expert} if expert else {}),
    }, scenarios)
    return folder


def _previous_manifest(folder: Path) -> dict[str, Any]:
    try:
        return json.loads((folder / RUN_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
