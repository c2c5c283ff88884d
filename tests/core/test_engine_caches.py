"""Every cache the engines keep has a size limit, and stays within it however many keys play brings.

``bench/engine_caches.py`` shows the limits cost no hits in the shipped scenarios (issue 33)."""

from __future__ import annotations

import importlib
import pkgutil
import sys

import numpy as np
import pytest

import naval_env
from naval_env.core.ruleset import get_ruleset
from naval_env.core.spaces import SAMPLE_TABLES_LIMIT
from naval_env.rulesets.broadside import engine as broadside_engine
from naval_env.rulesets.flotilla import movement as flotilla_movement


def _rules_modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(naval_env.__path__, "naval_env.")
             if m.name.startswith("naval_env.rulesets.")]
    for name in names:
        importlib.import_module(name)
    return names


def test_every_memoised_engine_function_has_a_size_limit() -> None:
    memoised = {}
    for name in _rules_modules():
        for attribute, value in vars(sys.modules[name]).items():
            if hasattr(value, "cache_info") and getattr(value, "__module__", None) == name:
                memoised[f"{name}.{attribute}"] = value.cache_info().maxsize
    assert len(memoised) >= 15, f"found only {sorted(memoised)}: the search missed the engines' caches"
    unbounded = sorted(name for name, limit in memoised.items() if limit is None)
    assert not unbounded, f"caches without a size limit: {unbounded}"


def test_action_sampling_tables_stay_bounded_and_draw_legal_values() -> None:
    ruleset = get_ruleset("pursuit")
    spec = ruleset.action_spec(ruleset.load_config())
    rng = np.random.default_rng(0)
    for _ in range(SAMPLE_TABLES_LIMIT + 200):
        mask = rng.random(spec.flat_size) < 0.5
        mask[list(spec.offsets)] = True  # every component keeps a legal value
        action = spec.sample(mask, rng)
        assert all(mask[offset + value] for offset, value in zip(spec.offsets, action.tolist()))
        assert len(spec._sample_tables) <= SAMPLE_TABLES_LIMIT


@pytest.mark.slow
def test_flotilla_route_table_stays_bounded() -> None:
    ruleset = get_ruleset("flotilla")
    routes = ruleset.new_game(ruleset.load_config(), "duel", seed=0).actions.routes
    for movement in range(flotilla_movement._ROUTES_LIMIT + 50):
        routes.routes(movement % 8, 3, movement)
        assert len(routes._routes) <= flotilla_movement._ROUTES_LIMIT
        assert routes._reach.keys() == routes._routes.keys()


def test_broadside_maneuver_masks_stay_bounded() -> None:
    ruleset = get_ruleset("broadside")
    game = ruleset.new_game(ruleset.load_config(), None, seed=0)
    ship = next(iter(game.state.ships.values()))
    for sweeps in range(broadside_engine.MANEUVER_MASKS_LIMIT + 50):
        ship.oar_sweeps = sweeps
        game._maneuver_mask(ship)
        assert len(game._maneuver_masks) <= broadside_engine.MANEUVER_MASKS_LIMIT
