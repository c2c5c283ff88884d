"""Helpers for the `pantheon` rules-fidelity tests.

Build a game from a compact description (ships with position, facing, vessel
and captain stats; wind; board; house-rule overrides) with exactly scripted
dice, and build actions by component name and label.

Set-up dice order (see ``PantheonGame._set_up``): one placement die for every
ship without an explicit ``position`` (in side order, then ship order), then
one d10 per ship tied on initiative (re-rolled while still tied). The helpers
always give explicit positions; tests give different initiatives (or script
the tie dice) so the dice scripts stay short.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from naval_env.core.config import validate
from naval_env.core.dice import ScriptedDice
from naval_env.core.events import Event
from naval_env.rulesets.pantheon import RULESET
from naval_env.rulesets.pantheon.config import DEFAULT_CONFIG, PantheonConfig
from naval_env.rulesets.pantheon.engine import PantheonGame, check_invariants
from naval_env.testing import events_of, label_index
from tests.helpers import apply_checked, yaml_copy

SCENARIO = "test"
of = events_of


def base_data() -> dict[str, Any]:
    """The repository's pantheon YAML as a plain dict (a fresh copy each call)."""
    return yaml_copy(DEFAULT_CONFIG)


def ship(vessel: str = "trireme", position: tuple[int, int] | None = None, facing: str | None = None,
         **kwargs: Any) -> dict[str, Any]:
    """One ship set-up. Captain stats (wits, charisma, resolve, composure, seamanship) may be given
    as keywords; every other keyword (crew, shipwright, enhancements, name) goes to the ship.
    Captain defaults: every attribute 3, Seamanship 2."""
    captain = {"wits": 3, "charisma": 3, "resolve": 3, "composure": 3, "seamanship": 2}
    for key in list(kwargs):
        if key in captain:
            captain[key] = kwargs.pop(key)
    data: dict[str, Any] = {"vessel": vessel, "captain": captain, **kwargs}
    if position is not None:
        data["position"] = list(position)
    if facing is not None:
        data["facing"] = facing
    return data


def config_data(red: list[dict[str, Any]], blue: list[dict[str, Any]], *, wind: str = "N",
                board: tuple[int, int] = (12, 12), house_rules: dict[str, Any] | None = None,
                vessels: dict[str, dict[str, Any]] | None = None,
                zones: tuple[dict[str, Any], dict[str, Any]] | None = None,
                facings: tuple[str, str] = ("E", "W")) -> dict[str, Any]:
    """Config dict with one scenario ``test``; both set-up zones default to the whole board."""
    data = base_data()
    width, height = board
    whole = {"x": [0, width - 1], "y": [0, height - 1]}
    red_zone, blue_zone = zones if zones is not None else (whole, whole)
    data["scenarios"] = {
        SCENARIO: {
            "board": [width, height],
            "wind": wind,
            "sides": [
                {"name": "red", "zone": copy.deepcopy(red_zone), "facing": facings[0], "ships": red},
                {"name": "blue", "zone": copy.deepcopy(blue_zone), "facing": facings[1], "ships": blue},
            ],
        }
    }
    data["default_scenario"] = SCENARIO
    if house_rules:
        data["house_rules"].update(house_rules)
    if vessels:
        for name, stats in vessels.items():
            data["vessels"].setdefault(name, {}).update(stats)
    return data


def make_config(red: list[dict[str, Any]], blue: list[dict[str, Any]], **kwargs: Any) -> PantheonConfig:
    return validate(PantheonConfig, config_data(red, blue, **kwargs), "test")


def make_game(red: list[dict[str, Any]], blue: list[dict[str, Any]], dice: list[int] | tuple[int, ...] = (),
              **kwargs: Any) -> PantheonGame:
    """A new game of the ``test`` scenario with exactly ``dice`` scripted."""
    config = make_config(red, blue, **kwargs)
    return RULESET.new_game(config, SCENARIO, dice=ScriptedDice(list(dice)))


def action(game: PantheonGame, *, turn_order: str | None = None, maneuver: str | None = None,
           attack: str | None = None, crew: list[str] | tuple[str, ...] = (),
           retest_on_failure: bool = False, retest_when_hit: bool = False,
           escape: str | None = None) -> np.ndarray:
    """An action vector; unnamed components stay 0 (their no-op)."""
    spec = game.action_spec
    values = spec.noop()
    if turn_order is not None:
        values[spec.index("turn_order")] = label_index(game, "turn_order", turn_order)
    if maneuver is not None:
        values[spec.index("maneuver")] = label_index(game, "maneuver", maneuver)
    if attack is not None:
        values[spec.index("attack")] = label_index(game, "attack", attack)
    for slot, label in enumerate(crew):
        values[spec.index(f"crew_{slot}")] = label_index(game, f"crew_{slot}", label)
    if retest_on_failure:
        values[spec.index("retest_on_failure")] = 1
    if retest_when_hit:
        values[spec.index("retest_when_hit")] = 1
    if escape is not None:
        values[spec.index("escape_maneuver")] = label_index(game, "escape_maneuver", escape)
    return values


def act(game: PantheonGame, **kwargs: Any) -> list[Event]:
    """Apply an action built by :func:`action` for the captain whose decision it is."""
    return apply_checked(game, action(game, **kwargs), check_invariants)


def ships(game: PantheonGame) -> dict[str, Any]:
    return game.state.ships
