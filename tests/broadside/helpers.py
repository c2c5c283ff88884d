"""Helpers for the `broadside` rules tests.

Build a game from a compact description (ships with exact position and heading, wind,
board, icebergs, house-rule and vessel overrides) with exactly scripted dice, and build
actions by component name and label. Test scenarios have no set-up jitter, so no die is
rolled before the first decision. Red (the first side) activates first in odd rounds.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from naval_env.core.config import validate
from naval_env.core.dice import ScriptedDice
from naval_env.core.events import Event
from naval_env.rulesets.broadside import RULESET
from naval_env.rulesets.broadside.config import DEFAULT_CONFIG, BroadsideConfig
from naval_env.rulesets.broadside.engine import BroadsideGame, check_invariants
from naval_env.rulesets.broadside.state import Phase
from naval_env.testing import events_of, label_index
from tests.helpers import apply_checked, yaml_copy

SCENARIO = "test"
of = events_of


def base_data() -> dict[str, Any]:
    """The repository's broadside YAML as a plain dict (a fresh copy each call)."""
    return yaml_copy(DEFAULT_CONFIG)


def ship(vessel: str, position: tuple[float, float], heading: float, **people: int) -> dict[str, Any]:
    """One ship set-up; keywords (crew, archers, marines, lieutenants, heroes) override its complement."""
    return {"vessel": vessel, "position": list(position), "heading": heading, **people}


def config_data(red: list[dict[str, Any]], blue: list[dict[str, Any]], *, wind: float = 0.0,
                board: tuple[float, float] = (48.0, 36.0), icebergs: list[dict[str, Any]] | None = None,
                house_rules: dict[str, Any] | None = None,
                vessels: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    data = base_data()
    data["scenarios"] = {SCENARIO: {
        "board": list(board), "wind": wind,
        "sides": [{"name": "red", "ships": copy.deepcopy(red)}, {"name": "blue", "ships": copy.deepcopy(blue)}],
        "icebergs": copy.deepcopy(icebergs or []),
    }}
    data["default_scenario"] = SCENARIO
    if house_rules:
        data["house_rules"].update(house_rules)
    for name, stats in (vessels or {}).items():
        data["vessels"].setdefault(name, {}).update(stats)
    return data


def make_config(red: list[dict[str, Any]], blue: list[dict[str, Any]], **kwargs: Any) -> BroadsideConfig:
    return validate(BroadsideConfig, config_data(red, blue, **kwargs), "test")


def make_game(red: list[dict[str, Any]], blue: list[dict[str, Any]], dice: list[int] | tuple[int, ...] = (),
              **kwargs: Any) -> BroadsideGame:
    """A new game of the ``test`` scenario with exactly ``dice`` scripted."""
    return RULESET.new_game(make_config(red, blue, **kwargs), SCENARIO, dice=ScriptedDice(list(dice)))


def action(game: BroadsideGame, **choices: str) -> np.ndarray:
    """An action vector from component=label keywords; unnamed components stay 0 (their no-op)."""
    values = game.action_spec.noop()
    for component, label in choices.items():
        values[game.action_spec.index(component)] = label_index(game, component, label)
    return values


def act(game: BroadsideGame, **choices: str) -> list[Event]:
    """Apply an action for the captain whose decision it is, then check the invariants."""
    return apply_checked(game, action(game, **choices), check_invariants)


def decision(game: BroadsideGame) -> tuple[str | None, str]:
    """(captain, phase name) of the current decision."""
    return game.current_agent, game.state.phase.name


def pass_until(game: BroadsideGame, agent: str, phase: Phase, limit: int = 50) -> list[Event]:
    """Answer every decision with its no-op until ``agent`` holds a ``phase`` decision."""
    events: list[Event] = []
    for _ in range(limit):
        if game.current_agent == agent and game.state.phase is phase:
            return events
        events += act(game)
    raise AssertionError(f"{agent} never got a {phase.name} decision; now {decision(game)}")


def pose(game: BroadsideGame, ship_id: str) -> tuple[float, float, float]:
    shape = game.state.ships[ship_id].shape
    return shape.x, shape.y, shape.heading
