"""What RLlib's env runners count per game: the learner's result and return, summed per training iteration."""

from __future__ import annotations

import math
from typing import Any

from ray.rllib.callbacks.callbacks import RLlibCallback

EPISODES, POINTS, RETURN, RETURN_SQUARED = "naval_episodes", "naval_points", "naval_return", "naval_return_sq"


class NavalCallbacks(RLlibCallback):
    """Logs, per finished game, 1 episode, the learner's points (1 win, 0.5 draw, 0 loss) and its return."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        infos = episode.get_infos(-1)
        points = next((info["points"] for info in infos.values() if "points" in info), None)
        episode_return = float(episode.get_return())
        metrics_logger.log_value(EPISODES, 1, reduce="sum")
        metrics_logger.log_value(RETURN, episode_return, reduce="sum")
        metrics_logger.log_value(RETURN_SQUARED, episode_return**2, reduce="sum")
        if points is not None:
            metrics_logger.log_value(POINTS, float(points), reduce="sum")


def reported_count(value: Any) -> int | None:
    """A count RLlib reported, or None where it reported none: the key missing, or NaN (its value for a summed
    metric whose window holds nothing yet, seen on a loaded machine)."""
    return None if value is None or math.isnan(float(value)) else int(value)


def episode_summary(result: dict[str, Any]) -> dict[str, Any] | None:
    """``{episodes, win_rate, reward_mean, reward_std}`` of one iteration's result (None: no game ended)."""
    runners = result.get("env_runners", {})
    episodes = reported_count(runners.get(EPISODES)) or 0
    if episodes == 0:
        return None
    mean = float(runners.get(RETURN, 0.0)) / episodes
    variance = float(runners.get(RETURN_SQUARED, 0.0)) / episodes - mean**2
    std = math.sqrt(max(variance, 0.0) * episodes / (episodes - 1)) if episodes > 1 else 0.0
    return {"episodes": episodes, "win_rate": float(runners.get(POINTS, 0.0)) / episodes,
            "reward_mean": mean, "reward_std": std}
