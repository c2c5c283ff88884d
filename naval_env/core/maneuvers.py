"""Where each legal maneuver of a square-grid ship's move decision ends, for scripted captains.

``crew_phase`` and ``pantheon`` engines answer ``maneuver_outcomes(agent)`` with one of these (``crew_phase``
adds the feet of movement left), so a captain scores every legal move with array arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ManeuverOutcomes:
    """Parallel arrays over the legal maneuvers: value, end square, end facing, squares moved ahead."""

    index: np.ndarray
    x: np.ndarray
    y: np.ndarray
    facing: np.ndarray
    forward: np.ndarray
