"""Training callbacks: self-play snapshots, win-rate logging and quick evaluations with best-model saving."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from naval_agents.captains.arena import play_game
from naval_agents.captains.numpy_policy import NumpyPolicyCaptain
from naval_agents.captains.registry import make_captain
from naval_agents.training.plots import EVAL_HISTORY, TRAIN_HISTORY
from naval_env.envs.gym_env import learner_points
from naval_env.envs.match import Match


class SelfPlayCallback(BaseCallback):
    """Every ``every`` timesteps, freeze the policy and hand the snapshot to every env worker."""

    def __init__(self, every: int) -> None:
        super().__init__()
        self.every = every
        self._next = every
        self.count = 0

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next += self.every
            self.count += 1
            policy = self.model.policy
            state = {k: v.detach().cpu().clone() for k, v in policy.state_dict().items()}
            kwargs = dict(policy._get_constructor_parameters())
            for key in ("observation_space", "action_space", "lr_schedule"):
                kwargs.pop(key, None)
            self.training_env.env_method("add_snapshot", state, type(policy), kwargs, f"snapshot{self.count}")
            self.logger.record("selfplay/snapshots", self.count)
        return True


class WinRateLogger(BaseCallback):
    """Logs the learner's win rate over the episodes finished since the last rollout.

    With a ``run_folder`` it also appends one entry per rollout to ``train_history.json``
    (timesteps, episodes, win rate, mean and standard deviation of the episode reward), the
    training half of the learning curve.
    """

    def __init__(self, run_folder: Path | None = None) -> None:
        super().__init__()
        self.run_folder = run_folder
        self._results: list[float] = []
        self._rewards: list[float] = []
        self.history: list[dict[str, Any]] = []

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done and "learner_won" in info:
                self._results.append(learner_points(info))
            if done and "episode" in info:  # VecMonitor's record of the finished episode
                self._rewards.append(float(info["episode"]["r"]))
        return True

    def _on_rollout_end(self) -> None:
        if self._results:
            self.logger.record("charts/win_rate", float(np.mean(self._results)))
            self.logger.record("charts/episodes", len(self._results))
        if self.run_folder is not None and self._rewards:
            rewards = np.asarray(self._rewards)
            self.history.append({
                "timesteps": self.num_timesteps, "episodes": len(rewards),
                "win_rate": float(np.mean(self._results)) if self._results else None,
                "reward_mean": float(rewards.mean()),
                "reward_std": float(rewards.std(ddof=1)) if len(rewards) > 1 else 0.0,
            })
            (self.run_folder / TRAIN_HISTORY).write_text(json.dumps(self.history, indent=1))
        self._results, self._rewards = [], []


class QuickEvalCallback(BaseCallback):
    """Every ``every`` timesteps play paired games against one captain; keep the best model."""

    def __init__(self, match: Match, opponent: str, games: int, every: int, run_folder: Path, seed: int) -> None:
        super().__init__()
        self.match, self.opponent, self.games, self.every = match, opponent, games, every
        self.run_folder, self.seed = run_folder, seed
        self._next = every
        self.best = -1.0
        self.history: list[dict[str, Any]] = []

    def play(self) -> dict[str, int]:
        """The learner's wins, draws and losses over ``games`` seeds, each played from both sides."""
        # The policy's numpy copy plays the same moves as policy.predict(deterministic=True); a pantheon
        # evaluation took 3.6x less CPU through it (cProfile, docs/training.md "Training throughput").
        learner = NumpyPolicyCaptain(self.model.policy, name="learner")
        opponent = make_captain(self.opponent, self.match.ruleset.id, self.match.action_spec)
        sides = self.match.game.sides
        counts = {"wins": 0, "draws": 0, "losses": 0}
        for i in range(self.games):
            seed = 10_000_000 + self.seed * 1000 + i  # never a training seed
            for learner_side in sides:
                captains = {side: learner if side == learner_side else opponent for side in sides}
                record = play_game(self.match, captains, seed, keep_events=False)
                outcome = "draws" if record.winner is None else ("wins" if record.winner == learner_side else "losses")
                counts[outcome] += 1
        return counts

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next:
            self._next += self.every
            self.evaluate_now()
        return True

    def evaluate_now(self, final: bool = False) -> float:
        """Play the quick evaluation and record it in eval_history.json (one entry per opponent and time).

        ``final``: the evaluation of the final model after training, marked so in the record.
        """
        counts = self.play()
        games = sum(counts.values())
        win_rate = (counts["wins"] + counts["draws"] / 2) / games
        self.logger.record(f"eval/win_rate_vs_{self.opponent}", win_rate)
        self.history.append({"timesteps": self.num_timesteps, "win_rate": win_rate, "opponent": self.opponent,
                             "games": games, **counts, "final": final})
        (self.run_folder / EVAL_HISTORY).write_text(json.dumps(self.history, indent=1))
        if win_rate > self.best:
            self.best = win_rate
            self.model.save(self.run_folder / "best_model.zip")
        return win_rate
