"""One RLlib training run: masked PPO (new API stack) on Ray, written as a run folder like train.py's.

Reads top to bottom: check the config, make the run folder, build the PPO algorithm (env runners
sample games of :class:`NavalMultiAgentEnv`, the learner updates :class:`MaskedPPOModule`), then loop
``algo.train()`` until ``total_timesteps`` env steps, saving on the way what the SB3 path saves:
self-play snapshots pushed to every env, checkpoints, quick evaluations (the best kept), training
history, the final weights and ``run.json``.
"""

from __future__ import annotations

import csv
import json
import time
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.utils import set_random_seed

from naval_agents.captains.learned import LoadedModel
from naval_agents.captains.learned_rllib import (
    BEST_WEIGHTS,
    FINAL_WEIGHTS,
    load_rllib_policy,
    save_policy_weights,
)
from naval_agents.distributed.ray_runtime import import_ray, ray_session
from naval_agents.training.config import TrainConfig, TrainingScenarios
from naval_agents.training.plots import EVAL_HISTORY, TRAIN_HISTORY, plot_learning_curve
from naval_agents.training.run import check_run, create_run_folder, library_versions, write_manifest
from naval_env.core.errors import ConfigError
from naval_env.envs.match import Match

METRICS_CSV = "rllib_metrics.csv"
CHECKPOINTS = "checkpoints"
RLLIB_CHECKPOINT = "rllib_checkpoint"


def check_rllib(config: TrainConfig) -> None:
    """What only this backend refuses, named with what is allowed instead."""
    if config.backend != "rllib":
        raise ConfigError(f"train_rllib: config backend is {config.backend!r}; allowed: 'rllib' "
                          "(local and ray train with SB3: naval_agents.training.run.train)")
    if config.imitation.teacher is not None:
        raise ConfigError("backend rllib: imitation.teacher is not supported (behaviour cloning runs on the "
                          "SB3 policy only); allowed: imitation.teacher unset, or backend local/ray")
    if config.device == "cuda":
        raise ConfigError("backend rllib: device 'cuda' is not supported yet (learners train on CPU); "
                          "allowed: device cpu or auto")


def train_rllib(config: TrainConfig, address: str | None = None) -> Path:
    """Train ``config`` with RLlib on a local Ray (or the cluster at ``address``); returns the run folder."""
    check_rllib(config)
    scenarios = TrainingScenarios.of(config)   # worked out once, as the SB3 path does
    check_run(config, scenarios)
    import_ray()   # a missing Ray is refused here, before a run folder exists
    torch.set_num_threads(config.torch_threads)
    torch.distributions.Distribution.set_default_validate_args(False)
    set_random_seed(config.seed)
    folder = create_run_folder(config)
    extra = {"backend": "rllib", "address": address, "device": "cpu", "versions": _versions()}
    try:
        with ray_session(address) as ray:
            extra["ray_cluster"] = {"address": address or "local", "cpus": ray.cluster_resources().get("CPU")}
            return _train_in(folder, config, scenarios, extra)
    except BaseException as error:
        status = "interrupted" if isinstance(error, KeyboardInterrupt) else "failed"
        write_manifest(folder, config, {**extra, "status": status, "error": f"{type(error).__name__}: {error}"},
                       scenarios)
        raise


def _versions() -> dict[str, str]:
    versions = library_versions()
    try:
        versions["ray"] = metadata.version("ray")
    except metadata.PackageNotFoundError:
        versions["ray"] = "not installed"
    return versions


def build_algorithm(config: TrainConfig) -> Any:
    """The RLlib PPO algorithm of ``config`` (Ray must be initialised)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from naval_agents.training.rllib.callbacks import NavalCallbacks
    from naval_agents.training.rllib.env import LEARNER_MODULE, NavalMultiAgentEnv, to_learner
    from naval_agents.training.rllib.module import MaskedPPOModule

    env_config = {"train_config": config.model_dump(mode="json")}
    probe = NavalMultiAgentEnv(env_config)
    seat = probe.possible_agents[0]
    ppo, settings = config.ppo, config.rllib
    learners = max(1, settings.num_learners)
    lr: Any = ppo.learning_rate
    if ppo.learning_rate_schedule == "linear":
        lr = [[0, ppo.learning_rate], [config.total_timesteps, 0.0]]
    spec = RLModuleSpec(module_class=MaskedPPOModule, observation_space=probe.get_observation_space(seat),
                        action_space=probe.get_action_space(seat), model_config={"net_arch": list(ppo.net_arch)})
    algo_config = (
        PPOConfig()
        .environment(NavalMultiAgentEnv, env_config=env_config, disable_env_checking=True)
        .framework("torch", torch_compile_learner=False)
        .env_runners(num_env_runners=settings.num_env_runners,
                     num_envs_per_env_runner=settings.num_envs_per_env_runner,
                     # Ray takes fractions of a CPU; RLlib's annotation says int.
                     num_cpus_per_env_runner=settings.num_cpus_per_env_runner,  # type: ignore[arg-type]
                     rollout_fragment_length=settings.rollout_fragment_length or "auto",
                     gym_env_vectorize_mode="sync")
        .learners(num_learners=settings.num_learners)
        .training(lr=lr, gamma=ppo.gamma, lambda_=ppo.gae_lambda, clip_param=ppo.clip_range,
                  vf_clip_param=settings.vf_clip_param or float("inf"), entropy_coeff=ppo.ent_coef,
                  vf_loss_coeff=ppo.vf_coef, grad_clip=ppo.max_grad_norm, grad_clip_by="global_norm",
                  use_kl_loss=False, train_batch_size_per_learner=settings.train_batch_size // learners,
                  minibatch_size=ppo.batch_size, num_epochs=ppo.n_epochs, shuffle_batch_per_epoch=True)
        .multi_agent(policies={LEARNER_MODULE}, policy_mapping_fn=to_learner, policies_to_train=[LEARNER_MODULE])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER_MODULE: spec}))
        .callbacks(NavalCallbacks)
        .debugging(seed=config.seed, log_level="ERROR")
    )
    return algo_config.build_algo()


class _Recorder:
    """Weights, metrics and quick evaluations of one run folder, in the SB3 path's file formats."""

    def __init__(self, folder: Path, config: TrainConfig, scenarios: TrainingScenarios) -> None:
        self.folder, self.config = folder, config
        match = Match(config.ruleset, config.ruleset_config, scenarios.home, "raise")
        self.match = match
        self.observation_size, self.flat_size = match.observation_spec.size, match.action_spec.flat_size
        self.train_history: list[dict[str, Any]] = []
        self.eval_history: list[dict[str, Any]] = []
        self.best = -1.0
        self.rows: list[dict[str, Any]] = []

    def save(self, path: Path, state: dict[str, torch.Tensor], timesteps: int) -> Path:
        return save_policy_weights(path, state, list(self.config.ppo.net_arch), self.observation_size,
                                   self.flat_size, timesteps)

    def record_iteration(self, result: dict[str, Any], timesteps: int, seconds: float) -> None:
        from naval_agents.training.rllib.callbacks import episode_summary

        summary = episode_summary(result)
        if summary is not None:
            self.train_history.append({"timesteps": timesteps, **summary})
            (self.folder / TRAIN_HISTORY).write_text(json.dumps(self.train_history, indent=1))
        learner = result.get("learners", {}).get("learner", {})
        row = {"iteration": result.get("training_iteration"), "timesteps": timesteps,
               "seconds": round(seconds, 2),
               "timesteps_per_s": round(timesteps / seconds, 1) if seconds > 0 else None,
               "episodes": summary["episodes"] if summary else 0,
               "win_rate": summary["win_rate"] if summary else None,
               "reward_mean": summary["reward_mean"] if summary else None,
               **{key: _number(learner.get(key)) for key in
                  ("policy_loss", "vf_loss", "entropy", "mean_kl_loss", "vf_explained_var")},
               "learning_rate": _number(learner.get("default_optimizer_learning_rate"))}
        self.rows.append(row)
        with (self.folder / METRICS_CSV).open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(row))
            writer.writeheader()
            writer.writerows(self.rows)

    def evaluate(self, weights: Path, timesteps: int, final: bool = False) -> float:
        """Paired games against ``eval.opponent`` on the quick-evaluation seeds of the SB3 path."""
        from naval_agents.training.callbacks import QuickEvalCallback

        policy, _ = load_rllib_policy(weights, self.config.ruleset, self.match.config)
        quick = QuickEvalCallback(self.match, self.config.eval.opponent, self.config.eval.games,
                                  self.config.eval.every, self.folder, self.config.seed)
        # play() needs only the model's predict (and gives the SB3 path's seeds and pairing); no SB3 logger here.
        quick.model = LoadedModel(policy)  # type: ignore[assignment]
        counts = quick.play()
        games = sum(counts.values())
        win_rate = (counts["wins"] + counts["draws"] / 2) / games
        self.eval_history.append({"timesteps": timesteps, "win_rate": win_rate, "opponent": self.config.eval.opponent,
                                  "games": games, **counts, "final": final})
        (self.folder / EVAL_HISTORY).write_text(json.dumps(self.eval_history, indent=1))
        if win_rate > self.best:
            self.best = win_rate
            self.save(self.folder / BEST_WEIGHTS, _read(weights), timesteps)
        return win_rate


def _read(weights: Path) -> dict[str, torch.Tensor]:
    return torch.load(weights, map_location="cpu", weights_only=True)


def _number(value: Any) -> float | None:
    try:
        return round(float(value), 6)
    except (TypeError, ValueError):
        return None


def learner_state(algo: Any) -> dict[str, torch.Tensor]:
    """The trained module's weights as CPU tensors, under sb3-contrib policy names."""
    from naval_agents.training.rllib.env import LEARNER_MODULE

    state = algo.learner_group.get_weights(module_ids=[LEARNER_MODULE])[LEARNER_MODULE]
    return {key: torch.as_tensor(np.asarray(value)).clone() for key, value in state.items()}


def push_snapshot(algo: Any, state: dict[str, torch.Tensor], name: str) -> int:
    """Hand a frozen copy of the learner to every env of every env runner; returns how many envs took it."""

    def add(runner: Any) -> int:
        vector = getattr(runner, "env", None)
        if vector is None:
            return 0
        envs = getattr(vector, "envs", [vector])
        for env in envs:
            env.unwrapped.add_snapshot(state, name)
        return len(envs)

    return sum(algo.env_runner_group.foreach_env_runner(add, local_env_runner=True))


#: Training iterations in a row without the runners' step count before a run is called failed.
MAX_IDLE_ITERATIONS = 5


def sampled_lifetime(result: dict[str, Any]) -> int | None:
    """Env steps sampled so far, from a training result; None when the iteration carries no runner metrics."""
    runners = result.get("env_runners") or {}
    value = runners.get("num_env_steps_sampled_lifetime", result.get("num_env_steps_sampled_lifetime"))
    from naval_agents.training.rllib.callbacks import reported_count

    return reported_count(value)


def _train_in(folder: Path, config: TrainConfig, scenarios: TrainingScenarios, extra: dict[str, Any]) -> Path:
    write_manifest(folder, config, {**extra, "status": "running"}, scenarios)
    recorder = _Recorder(folder, config, scenarios)
    algo = build_algorithm(config)
    self_play = config.opponents.mode == "self_play" or config.opponents.allies == "learner"
    next_snapshot, next_eval, next_checkpoint = (config.opponents.self_play.snapshot_every, config.eval.every,
                                                 config.checkpoint_every)
    snapshots, snapshot_envs, timesteps, idle = 0, 0, 0, 0
    started = time.perf_counter()
    try:
        while timesteps < config.total_timesteps:
            result = algo.train()
            sampled = sampled_lifetime(result)
            if sampled is None:
                # RLlib leaves the runners' metrics out of an iteration in which no runner reported (a runner
                # restarting, or sampling past its timeout on a loaded machine): try again, a few times.
                idle += 1
                if idle >= MAX_IDLE_ITERATIONS:
                    raise RuntimeError(f"RLlib reported no sampled env steps in {idle} training iterations in a "
                                       "row: its env runners are failing or timing out (see the Ray log above)")
                continue
            idle, timesteps = 0, sampled
            recorder.record_iteration(result, timesteps, time.perf_counter() - started)
            if self_play and timesteps >= next_snapshot:
                next_snapshot += config.opponents.self_play.snapshot_every
                snapshots += 1
                snapshot_envs = push_snapshot(algo, learner_state(algo), f"snapshot{snapshots}")
            if timesteps >= next_checkpoint:
                next_checkpoint += config.checkpoint_every
                recorder.save(folder / CHECKPOINTS / f"policy_{timesteps}_steps.pth", learner_state(algo), timesteps)
            if timesteps >= next_eval:
                next_eval += config.eval.every
                checkpoint = recorder.save(folder / CHECKPOINTS / "latest_eval.pth", learner_state(algo), timesteps)
                recorder.evaluate(checkpoint, timesteps)
        wall = time.perf_counter() - started
        final = recorder.save(folder / FINAL_WEIGHTS, learner_state(algo), timesteps)
        if config.rllib.checkpoint_algorithm:
            algo.save_to_path(str((folder / RLLIB_CHECKPOINT).absolute()))
    finally:
        algo.stop()
    (folder / CHECKPOINTS / "latest_eval.pth").unlink(missing_ok=True)
    (folder / CHECKPOINTS / "latest_eval.json").unlink(missing_ok=True)
    final_rate = recorder.evaluate(final, timesteps, final=True)
    plot_learning_curve(folder)
    write_manifest(folder, config, {
        **extra, "status": "finished", "timesteps": timesteps, "wall_seconds": round(wall, 1),
        "timesteps_per_second": round(timesteps / wall, 1) if wall > 0 else None,
        "self_play_snapshots": snapshots, "envs_given_the_last_snapshot": snapshot_envs,
        "final_quick_eval": {"opponent": config.eval.opponent, "games": 2 * config.eval.games, "win_rate": final_rate},
        "best_quick_eval": recorder.best,
    }, scenarios)
    return folder
