"""Reward weights every ruleset config carries under ``rewards:`` (read by the envs' Match)."""

from __future__ import annotations

from naval_env.core.config import StrictModel


class Rewards(StrictModel):
    """Per-step reward of a captain: the result at the end plus shaping read from damage events."""

    win: float = 1.0
    loss: float = -1.0
    draw: float = 0.0
    damage_dealt: float = 0.02
    damage_taken: float = 0.02
    illegal_action: float = -0.05
