"""The observer's ``move.*`` slices (plain Python, ``preview.outlook``) agree exactly with the numpy
forms the scripted captains score moves with (``preview.coverage`` and friends)."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.rulesets.crew_phase import preview
from naval_env.rulesets.crew_phase.observer import LENGTH
from naval_env.rulesets.crew_phase.state import Phase, Status
from naval_env.testing import random_legal_positions


def numpy_preview(game, agent: str) -> np.ndarray:
    """The ``move.*`` rows built from the captains' numpy forms."""
    ship = game.state.ships[agent]
    block = np.zeros((4, len(game.actions.maneuvers)), dtype=np.float32)
    moves = game.maneuver_outcomes(agent)
    enemies = [e for e in game.enemies_of(ship) if e.status is not Status.SUNK]
    if enemies:
        block[0, moves.index] = preview.coverage(game, ship, moves) / 4
        block[1, moves.index] = np.min([preview.end_distance(moves, e) for e in enemies], axis=0) * LENGTH
        block[2, moves.index] = np.any([preview.ram_ready(moves, e) for e in enemies], axis=0)
        block[3, moves.index] = np.any([preview.in_its_bow(game, moves, e) for e in enemies], axis=0)
    return block.reshape(-1)


@pytest.mark.parametrize("scenario", ["duel", "nimble_vs_heavy", "two_vs_one"])
def test_move_preview_matches_the_numpy_forms_bit_for_bit(scenario):
    checked = 0
    for game in random_legal_positions("crew_phase", (scenario,), range(8)):
        agent = game.current_agent
        if game.state.phase is Phase.MOVE:
            start = game.observation_spec.offsets["move.cover"]
            expected = numpy_preview(game, agent)
            assert game.observe(agent)[start:].tobytes() == expected.tobytes()
            checked += 1
    assert checked > 20
