"""Helpers for the `crew_phase` rules-fidelity tests.

Build a game from a compact description (ships with position, facing, vessel and
crew; weather; board; config overrides) with exactly scripted dice, and build
actions by component label.

Dice order (see the engine): set-up draws one placement die per ship without a
``position`` (the helpers always give one, so set-up rolls nothing). In the
Character Phase each crew member acts in slot order: Navigate, Command and Steer
(rough weather only) roll one d20 (two under disadvantage); Repair rolls a d20,
then the hull die on a success; healing rolls its dice; Operate, Ready and Cut
roll nothing. In the Ship Phase a weapon attack rolls a d20 (two with advantage or
disadvantage) and, on a hit, its damage dice; a ram rolls a d20, then one d20 per
crew member who must save.

Default ``sailing_ship`` crew (configs/rulesets/crew_phase.yaml): 0-2 sailors
(Strength +2, Water Vehicles: Navigate +4), 3-4 gunners (Dexterity +3, siege
weapons: attack +5), 5 officer (Charisma +3, Water Vehicles, two heals). Weapons:
0 ballista (port), 1 ballista (starboard), 2 harpoon (bow).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from naval_env.core.config import validate
from naval_env.core.dice import ScriptedDice
from naval_env.core.events import Event
from naval_env.rulesets.crew_phase import RULESET
from naval_env.rulesets.crew_phase.config import DEFAULT_CONFIG, CrewPhaseConfig
from naval_env.rulesets.crew_phase.engine import CrewPhaseGame, check_invariants
from naval_env.testing import events_of, label_index
from tests.helpers import apply_checked, yaml_copy

SCENARIO = "test"
of = events_of


def base_data() -> dict[str, Any]:
    """The repository's crew_phase YAML as a plain dict (a fresh copy each call)."""
    return yaml_copy(DEFAULT_CONFIG)


def ship(vessel: str = "sailing_ship", position: tuple[int, int] | None = None, facing: str | None = None,
         crew: list[str] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"vessel": vessel}
    if position is not None:
        data["position"] = list(position)
    if facing is not None:
        data["facing"] = facing
    if crew is not None:
        data["crew"] = crew
    return data


def config_data(red: list[dict[str, Any]], blue: list[dict[str, Any]], *, weather: str = "calm",
                board: tuple[int, int] = (16, 16), house_rules: dict[str, Any] | None = None,
                vessels: dict[str, dict[str, Any]] | None = None, weapons: dict[str, dict[str, Any]] | None = None,
                crew_profiles: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Config dict with one scenario ``test``; both set-up zones are the whole board."""
    data = base_data()
    width, height = board
    whole = {"x": [0, width - 1], "y": [0, height - 1]}
    data["scenarios"] = {
        SCENARIO: {
            "board": [width, height],
            "weather": weather,
            "sides": [
                {"name": "red", "zone": copy.deepcopy(whole), "facing": "E", "ships": red},
                {"name": "blue", "zone": copy.deepcopy(whole), "facing": "W", "ships": blue},
            ],
        }
    }
    data["default_scenario"] = SCENARIO
    for key, extra in (("house_rules", house_rules), ("vessels", vessels), ("weapons", weapons),
                       ("crew_profiles", crew_profiles)):
        if extra and key == "house_rules":
            data[key].update(extra)
        elif extra:
            for name, stats in extra.items():
                data[key].setdefault(name, {}).update(stats)
    return data


def make_config(red: list[dict[str, Any]], blue: list[dict[str, Any]], **kwargs: Any) -> CrewPhaseConfig:
    return validate(CrewPhaseConfig, config_data(red, blue, **kwargs), "test")


def make_game(red: list[dict[str, Any]], blue: list[dict[str, Any]], dice: list[int] | tuple[int, ...] = (),
              **kwargs: Any) -> CrewPhaseGame:
    """A new game of the ``test`` scenario with exactly ``dice`` scripted."""
    config = make_config(red, blue, **kwargs)
    return RULESET.new_game(config, SCENARIO, dice=ScriptedDice(list(dice)))


def duel(red_at: tuple[int, int] = (3, 8), blue_at: tuple[int, int] = (12, 8), red_facing: str = "E",
         blue_facing: str = "W", dice: list[int] | tuple[int, ...] = (), red: str = "sailing_ship",
         blue: str = "sailing_ship", **kwargs: Any) -> CrewPhaseGame:
    return make_game([ship(red, red_at, red_facing)], [ship(blue, blue_at, blue_facing)], dice=dice, **kwargs)


def action(game: CrewPhaseGame, *, crew: list[str] | tuple[str, ...] | dict[int, str] = (),
           maneuver: str | None = None, ram: str | None = None,
           weapons: list[str] | tuple[str, ...] | dict[int, str] = ()) -> np.ndarray:
    """An action vector; unnamed components stay 0 (their no-op). ``crew`` and ``weapons`` are
    labels by slot (a list from slot 0, or a dict slot -> label)."""
    spec = game.action_spec
    values = spec.noop()
    for slot, label in (crew.items() if isinstance(crew, dict) else enumerate(crew)):
        values[spec.index(f"crew_{slot}")] = label_index(game, f"crew_{slot}", label)
    if maneuver is not None:
        values[spec.index("maneuver")] = label_index(game, "maneuver", maneuver)
    if ram is not None:
        values[spec.index("ram")] = label_index(game, "ram", ram)
    for slot, label in (weapons.items() if isinstance(weapons, dict) else enumerate(weapons)):
        values[spec.index(f"weapon_{slot}")] = label_index(game, f"weapon_{slot}", label)
    return values


def act(game: CrewPhaseGame, **kwargs: Any) -> list[Event]:
    """Apply an action built by :func:`action` for the captain whose decision it is."""
    return apply_checked(game, action(game, **kwargs), check_invariants)


def where(game: CrewPhaseGame) -> tuple[str | None, str]:
    """(current agent, phase name) of the decision now held."""
    return game.current_agent, game.state.phase.name


def ships(game: CrewPhaseGame) -> dict[str, Any]:
    return game.state.ships


def pass_crew(game: CrewPhaseGame) -> list[Event]:
    """The current captain's crew does nothing this Character Phase."""
    assert game.state.phase.name == "CREW"
    return act(game)
