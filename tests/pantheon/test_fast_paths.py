"""Tables that exist for speed agree with the plain forms they replace."""

from __future__ import annotations

import numpy as np
import pytest

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


@pytest.mark.slow
def test_maneuver_bits_agree_with_the_grid_gather_wherever_games_go() -> None:
    positions = random_legal_positions("pantheon", ("duel", "squadron", "fleet"), range(6))
    assert positions
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


def _plain_attack_mask(game: PantheonGame, ship_id: str) -> np.ndarray:
    """The ATTACK mask written out rule by rule, as the engine built it before masks were kept by key."""
    from naval_env.rulesets.pantheon.actions import MAX_CREW_SLOTS, PantheonActions
    from naval_env.rulesets.pantheon.crew import REPAIR_CODE
    from naval_env.rulesets.pantheon.state import Status

    A = PantheonActions
    ship = game.state.ships[ship_id]
    mask = game.action_spec.noop_mask()
    offsets = game.action_spec.offsets
    base = offsets[A.ATTACK]
    n = game.rules.max_ships_per_side
    for slot, target in enumerate(game.enemies_of(ship)):
        if not target.status.fighting:
            continue
        distance = max(abs(ship.x - target.x), abs(ship.y - target.y))
        mask[base + 1 + n + slot] = distance <= ship.fire_range
        if distance == 1:
            mask[base + 1 + slot] = ship.moved_forward
            mask[base + 1 + 2 * n + slot] = ship.boarding == target.id or (
                ship.tied_to is None and target.tied_to is None)
    mask[base + 1 + 3 * n] = ship.status is Status.AFLOAT
    mask[base + 2 + 3 * n] = ship.status is Status.WRECKED and ship.tied_to is None
    for slot in range(min(ship.crew_slots, MAX_CREW_SLOTS)):
        crew_base = offsets[A.CREW + slot]
        mask[crew_base: crew_base + REPAIR_CODE] = True
        mask[crew_base + REPAIR_CODE] = slot == 0 and ship.shipwright > 0 and not ship.crew_repair_used
    mask[offsets[A.RETEST_ON_FAILURE] + 1] = ship.retests > 0
    mask[offsets[A.RETEST_WHEN_HIT] + 1] = ship.retests > 0
    return mask


def test_kept_attack_masks_agree_with_the_rules_written_out_wherever_games_go() -> None:
    from naval_env.rulesets.pantheon.state import Phase

    checked = 0
    for game in random_legal_positions("pantheon", ("duel", "mixed_duel", "squadron", "fleet"), range(8)):
        assert isinstance(game, PantheonGame)
        if game.state.phase is Phase.ATTACK:
            agent = game.state.current
            assert game.legal_mask(agent).tolist() == _plain_attack_mask(game, agent).tolist()
            checked += 1
    assert checked > 100
