"""Helpers for the `flotilla` rules tests.

Build a game from a compact description (ships with class, bow square, facing
and upgrades; house-rule and situation overrides) with exactly scripted dice,
and build actions by component name and label.

Defaults keep the dice scripts short: ships are given explicit positions (no
placement dice), captains do not choose facings (no DEPLOY decisions), the wind
is calm and never re-rolled (no wind dice), nobody rolls a character's fate,
and the attacker may start anywhere (``min_attacker_distance`` 1). So the first
dice of a game are round 1's initiative: every ship's Steering Roll, in agent
order (red ships, then blue ships), each throw as many dice as that ship rolls.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from naval_env.core.config import validate
from naval_env.core.dice import ScriptedDice
from naval_env.core.events import Event
from naval_env.rulesets.flotilla import RULESET
from naval_env.rulesets.flotilla.config import DEFAULT_CONFIG, FlotillaConfig
from naval_env.rulesets.flotilla.engine import FlotillaGame, check_invariants
from naval_env.rulesets.flotilla.events import Contest
from naval_env.testing import events_of, label_index
from tests.helpers import apply_checked, yaml_copy

SCENARIO = "test"
of = events_of
TEST_HOUSE_RULES = {"captains_choose_facing": False, "min_attacker_distance": 1}
TEST_SITUATIONS = {"wind": "calm", "wind_each_round": False, "character_fate": False}


def base_data() -> dict[str, Any]:
    """The repository's flotilla YAML as a plain dict (a fresh copy each call)."""
    return yaml_copy(DEFAULT_CONFIG)


def ship(cls: str = "brig", position: tuple[int, int] | None = None, facing: str | None = None,
         **kwargs: Any) -> dict[str, Any]:
    """One ship set-up; keywords: upgrades (dict), hero, captain_perception, name."""
    data: dict[str, Any] = {"ship": cls, **kwargs}
    if position is not None:
        data["position"] = list(position)
    if facing is not None:
        data["facing"] = facing
    return data


def config_data(red: list[dict[str, Any]], blue: list[dict[str, Any]], *, budget: int = 1000,
                house_rules: dict[str, Any] | None = None, situations: dict[str, Any] | None = None,
                ship_classes: dict[str, dict[str, Any]] | None = None,
                roles: tuple[str, str] = ("attacker", "defender"), facings: tuple[str, str] = ("E", "W"),
                zones: tuple[dict[str, Any] | None, dict[str, Any] | None] | None = None) -> dict[str, Any]:
    """Config dict with one scenario ``test`` (red first, blue second); both zones default to the whole
    map (``zones=(None, None)``: the document's centre for the defender, anywhere for the attacker)."""
    data = base_data()
    if zones is None:
        whole = {"x": [0, data["house_rules"]["map_size"] - 1], "y": [0, data["house_rules"]["map_size"] - 1]}
        zones = (whole, whole)
    sides = []
    for name, role, facing, ships, zone in zip(("red", "blue"), roles, facings, (red, blue), zones):
        side: dict[str, Any] = {"name": name, "role": role, "facing": facing, "ships": ships}
        if zone is not None:
            side["zone"] = copy.deepcopy(zone)
        sides.append(side)
    data["scenarios"] = {SCENARIO: {"budget": budget, "situations": {**TEST_SITUATIONS, **(situations or {})},
                                    "sides": sides}}
    data["default_scenario"] = SCENARIO
    data["house_rules"].update({**TEST_HOUSE_RULES, **(house_rules or {})})
    for name, stats in (ship_classes or {}).items():
        data["ship_classes"].setdefault(name, {}).update(stats)
    return data


def make_config(red: list[dict[str, Any]], blue: list[dict[str, Any]], **kwargs: Any) -> FlotillaConfig:
    return validate(FlotillaConfig, config_data(red, blue, **kwargs), "test")


def make_game(red: list[dict[str, Any]], blue: list[dict[str, Any]], dice: list[int] | tuple[int, ...] = (),
              **kwargs: Any) -> FlotillaGame:
    """A new game of the ``test`` scenario with exactly ``dice`` scripted."""
    config = make_config(red, blue, **kwargs)
    game = RULESET.new_game(config, SCENARIO, dice=ScriptedDice(list(dice)))
    check_invariants(game)
    return game


def action(game: FlotillaGame, **labels: str) -> np.ndarray:
    """An action vector from component=label keywords; unnamed components stay 0 (their no-op)."""
    spec = game.action_spec
    values = spec.noop()
    for component, label in labels.items():
        values[spec.index(component)] = label_index(game, component, label)
    return values


def act(game: FlotillaGame, **labels: str) -> list[Event]:
    """Apply an action for the captain whose decision it is, then check the invariants."""
    return apply_checked(game, action(game, **labels), check_invariants)


def contests(events: list[Event]) -> list[tuple[str, tuple[int, ...], tuple[int, ...], str]]:
    """(roll, a's faces, b's faces, a's result) of every opposed throw, in order."""
    return [(e.roll, e.a_faces, e.b_faces, e.result) for e in events if isinstance(e, Contest)]


def ships(game: FlotillaGame) -> dict[str, Any]:
    return game.state.ships
