"""Scripted `skirmish` captains (the ``scripted_captains`` hook). They read the engine, never the dice.

``CAPTAINS`` maps each name to a factory; the first is the envs' default opponent. A ruleset's captains live
beside its rules only when it is not one of the built-in ones (those ship theirs in agents/captains/scripted/).
"""

from __future__ import annotations

import numpy as np

from naval_env.core.captain import Captain, Decision

from .actions import Maneuver, SkirmishActions
from .engine import SkirmishGame

A = SkirmishActions


class Closer(Captain):
    """Fires at the weakest enemy in range (the nearest among equals), then closes until the nearest enemy is
    in range, and holds there."""

    name = "closer"
    description = "fires at the weakest enemy in range, then closes to firing range and holds"
    needs_observation = False

    def act(self, decision: Decision) -> np.ndarray:
        game = decision.game
        if not isinstance(game, SkirmishGame):
            raise TypeError(f"the closer needs the skirmish game in its Decision, got {type(game).__name__}")
        boat = game.state.ships[decision.agent]
        action = game.action_spec.noop()
        enemies = [(slot, e) for slot, e in enumerate(game.enemies_of(boat)) if e.status.fighting]
        targets = [(e.hull, abs(e.cell - boat.cell), slot) for slot, e in enemies if game.in_range(boat, e)]
        if targets:
            action[A.SHOT] = 1 + min(targets)[2]
        nearest = min(abs(e.cell - boat.cell) for _, e in enemies)
        if nearest > game.rules.fire_range and game.can_sail(boat, Maneuver.AHEAD):
            action[A.MANEUVER] = Maneuver.AHEAD
        return action


CAPTAINS = {"closer": Closer}
