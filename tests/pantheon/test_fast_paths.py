"""Tables that exist for speed agree with the plain forms they replace."""

from __future__ import annotations

import numpy as np

from naval_env.rulesets.pantheon.engine import PantheonGame
from naval_env.rulesets.pantheon.movement import TABLE_LIMIT, ManeuverTable, build_maneuvers
from naval_env.testing import random_legal_positions


def _padded_grid(game: PantheonGame, mover: str, pad: int) -> np.ndarray:
    """The board padded with ``pad`` blocked squares; other ships block, the mover's own square is free."""
    state = game.state
    grid = np.ones((state.height + 2 * pad, state.width + 2 * pad), dtype=bool)
    grid[pad: pad + state.height, pad: pad + state.width] = False
    for (x, y), other in state.occupancy.items():
        if other != mover:
            grid[y + pad, x + pad] = True
    return grid


def test_maneuver_bits_agree_with_the_grid_gather_wherever_games_go() -> None:
    positions = random_legal_positions("pantheon", ("duel", "squadron", "fleet"), range(6))
    for game in positions:
        assert isinstance(game, PantheonGame)
        state = game.state
        for ship in state.ships.values():
            if not ship.status.on_board:
                continue
            others = [square for square, other in state.occupancy.items() if other != ship.id]
            for table in (game.actions.maneuvers, game.actions.escape_maneuvers):
                pad = table.max_path + 1
                grid = _padded_grid(game, ship.id, pad)
                for allowance in range(table.max_path + 2):
                    expected = table.legal(ship.x, ship.y, ship.facing, allowance, grid, pad)
                    found = table.legal_among(ship.x, ship.y, ship.facing, allowance, state.width, state.height,
                                              others)
                    assert found.tolist() == expected.tolist()


def test_maneuver_tables_stay_bounded() -> None:
    table = ManeuverTable(build_maneuvers(4, in_place_turns=2))
    for x in range(TABLE_LIMIT // 8 + 50):
        table.legal_among(x, 0, x % 8, 3, 10**6, 10, [(x + 1, 0)])
    assert len(table._on_board) <= TABLE_LIMIT and len(table._masks) <= TABLE_LIMIT



def test_an_observation_past_float32_range_holds_inf_as_numpy_casts_it() -> None:
    from naval_env.core.ruleset import get_ruleset

    ruleset = get_ruleset("pantheon")
    game = ruleset.new_game(ruleset.load_config(), "duel", seed=0)
    agent = game.current_agent
    assert agent is not None
    game.state.ships[agent].health = 10**60  # only a loaded position could hold such a number
    with np.errstate(over="ignore"):
        observation = game.observe(agent)
    assert observation.dtype == np.float32 and observation.shape == (game.observation_spec.size,)
    assert np.isinf(observation).any()
