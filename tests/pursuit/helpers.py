"""Helpers for the `pursuit` rules tests.

Build a game from a compact description (ships with explicit positions, so the
set-up rolls no dice) with exactly scripted dice, and build actions by
component name and label. Unless a test says otherwise, captains have
Intellect 10 (attack rolls get +0 and need 10 against another Intellect 10) and
Will 10 (so the ship's Agility is 5), crews have Agility 10, Strength 10, Will 10
and Health 12, and a moderate wind blows north.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from naval_env.core.config import validate
from naval_env.core.dice import ScriptedDice
from naval_env.core.events import Event
from naval_env.rulesets.pursuit import RULESET
from naval_env.rulesets.pursuit.config import DEFAULT_CONFIG, PursuitConfig
from naval_env.rulesets.pursuit.engine import PursuitGame, check_invariants
from naval_env.rulesets.pursuit.state import Ship
from naval_env.testing import events_of, label_index
from tests.helpers import apply_checked, yaml_copy

SCENARIO = "test"
of = events_of

#: A plain test hull: 40 Health, Size 4, oars 10, sails 8, no boons, radius 5, 10 crew (8 rowers, 2 for sails),
#: ten deck spots so that a struck spot rarely holds a machine.
HULK = {
    "size": 4, "health": 40, "oars": 10, "sails": 8, "maneuverability": 0, "seaworthiness": 0,
    "needs_captain": True, "crew": 10, "rowers": 8, "sail_crew": 2, "draft": 2.0, "radius": 5.0,
    "deck_spots": 10, "armament": [],
}


def base_data() -> dict[str, Any]:
    """The repository's pursuit YAML as a plain dict (a fresh copy each call)."""
    return yaml_copy(DEFAULT_CONFIG)


def ship(at: tuple[float, float], cls: str = "hulk", *, intellect: int = 10, will: int = 10, agility: int = 10,
         role: str = "captain", crew: dict[str, Any] | None = None, machines: list[Any] | None = None,
         propulsion: str | None = "oars", **extra: Any) -> dict[str, Any]:
    """One ship set-up at a fixed position; machines may be names or mount dicts."""
    data: dict[str, Any] = {
        "ship": cls,
        "position": list(at),
        "controller": {"role": role, "profession": "sailor", "intellect": intellect, "will": will,
                       "agility": agility},
        "crew": {"agility": 10, "strength": 10, "will": 10, "health": 12, **(crew or {})},
        **extra,
    }
    if propulsion is not None:
        data["propulsion"] = propulsion
    if machines is not None:
        data["machines"] = [{"machine": m} if isinstance(m, str) else m for m in machines]
    else:
        data["machines"] = []
    return data


def config_data(red: list[dict[str, Any]], blue: list[dict[str, Any]], *, wind: tuple[str, str] = ("moderate", "N"),
                current: dict[str, Any] | None = None, shoals: list[dict[str, Any]] | None = None,
                escape: dict[str, Any] | None = None, house_rules: dict[str, Any] | None = None,
                classes: dict[str, dict[str, Any]] | None = None,
                machines: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    data = base_data()
    data["ship_classes"]["hulk"] = copy.deepcopy(HULK)
    for name, stats in (classes or {}).items():
        data["ship_classes"].setdefault(name, copy.deepcopy(HULK)).update(stats)
    for name, stats in (machines or {}).items():
        data["war_machines"][name].update(stats)
    zone = {"x": [0, 1000], "y": [0, 1000]}
    scenario: dict[str, Any] = {
        "wind": {"strength": wind[0], "toward": wind[1]},
        "sides": [
            {"name": "red", "zone": copy.deepcopy(zone), "ships": red},
            {"name": "blue", "zone": copy.deepcopy(zone), "ships": blue},
        ],
    }
    if current is not None:
        scenario["current"] = current
    if shoals is not None:
        scenario["shoals"] = shoals
    if escape is not None:
        scenario["escape"] = escape
    data["scenarios"] = {SCENARIO: scenario}
    data["default_scenario"] = SCENARIO
    if house_rules:
        data["house_rules"].update(house_rules)
    return data


def make_config(red: list[dict[str, Any]], blue: list[dict[str, Any]], **kwargs: Any) -> PursuitConfig:
    return validate(PursuitConfig, config_data(red, blue, **kwargs), "test")


def make_game(red: list[dict[str, Any]], blue: list[dict[str, Any]], dice: list[int] | tuple[int, ...] = (),
              **kwargs: Any) -> PursuitGame:
    """A new game of the ``test`` scenario with exactly ``dice`` scripted."""
    return RULESET.new_game(make_config(red, blue, **kwargs), SCENARIO, dice=ScriptedDice(list(dice)))


def action(game: PursuitGame, *, propulsion: str | None = None, command: str | None = None,
           maneuver: str | None = None, machines: list[str] | tuple[str, ...] = ()) -> np.ndarray:
    """An action vector; unnamed components stay 0 (their no-op)."""
    spec = game.action_spec
    values = spec.noop()
    if propulsion is not None:
        values[spec.index("propulsion")] = label_index(game, "propulsion", propulsion)
    if command is not None:
        values[spec.index("command")] = label_index(game, "command", command)
    if maneuver is not None:
        values[spec.index("maneuver")] = label_index(game, "maneuver", maneuver)
    for i, label in enumerate(machines):
        values[spec.index(f"machine_{i}")] = label_index(game, f"machine_{i}", label)
    return values


def act(game: PursuitGame, **kwargs: Any) -> list[Event]:
    """Apply an action built by :func:`action` for whoever decides now; checks the invariants after."""
    return apply_checked(game, action(game, **kwargs), check_invariants)


def ships(game: PursuitGame) -> dict[str, Ship]:
    return game.state.ships


def to_phase(game: PursuitGame, phase: str) -> None:
    """Play no-op decisions until the current captain is in ``phase`` (COMMAND, MANEUVER or GUNS)."""
    for _ in range(20):
        if game.state.phase.name == phase:
            return
        game.apply(game.current_agent, game.action_spec.noop())
    raise AssertionError(f"never reached phase {phase}")
