"""RLlib backend of ``train.py`` (``--backend rllib``): masked PPO on Ray, the run folder of any other captain.

Ray is imported only when a run starts, so configs validate and run folders load where it is absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from naval_agents.training.config import TrainConfig


def train_rllib(config: TrainConfig, address: str | None = None) -> Path:
    """Train ``config`` with RLlib (a local Ray, or the cluster at ``address``); returns the run folder."""
    from naval_agents.training.rllib.train import train_rllib as run

    return run(config, address)
