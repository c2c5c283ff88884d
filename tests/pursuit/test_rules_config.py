"""Config: the numbers the document fixes, the assumed tables and catalogue, scenarios, and refusals that name
the field."""

from __future__ import annotations

import pytest

from naval_env.core.config import validate
from naval_env.core.dice import ScriptedDice
from naval_env.core.errors import ConfigError
from naval_env.rulesets.pursuit import RULESET
from naval_env.rulesets.pursuit.config import PursuitConfig, load_config
from tests.helpers import config_refusal

from .helpers import config_data, ship


def refused(data) -> str:
    return config_refusal(PursuitConfig, data)


def test_default_config_keeps_the_documents_numbers():
    rules = load_config().house_rules
    assert rules.captain_professions == ["sailor", "boatman", "ferryman", "pirate", "fisher", "whaler"]
    assert (rules.crew_exposure_die, rules.crew_exposure_base) == (6, 4)          # 5 to 10 percent
    assert (rules.current_with_factor, rules.current_against_factor) == (1.5, 0.5)
    assert (rules.explosion_radius, rules.ram_extra_dice, rules.aground_dice, rules.rocks_dice) == (5, 3, 3, 1)
    assert (rules.debris_dice, rules.dragged_under_banes, rules.scuttled_banes) == (1, 2, 2)
    assert (rules.scuttled_days_base, rules.forced_rowing_banes) == (3, 1)


def test_assumed_time_scale_and_limits():
    rules = load_config().house_rules
    assert (rules.rounds_per_minute, rules.rounds_per_hour, rules.max_rounds) == (1, 10, 60)
    assert (rules.max_ships_per_side, rules.max_machines, rules.veer_degrees, rules.wind_arc_degrees) == (2, 4, 45, 45)


def test_wind_table_keeps_the_galleon_example():
    """Only the moderate row is fixed by the document: a Speed 9 galleon goes 3, 12, 15."""
    table = load_config().wind_table
    assert (table["moderate"].against, table["moderate"].across, table["moderate"].with_) == (-6, 3, 6)
    assert load_config().ship_classes["galleon"].sails == 9
    assert table["calm"].becalmed and not table["gale"].becalmed


def test_mishaps_table_has_six_rows():
    assert [m.name for m in load_config().mishaps] == [
        "fouled lines", "helm jammed", "man overboard", "sprung planks", "broached", "cargo shifts"]


def test_assumed_ship_catalogue():
    """(Size, Health, oars, sails, maneuverability, seaworthiness, needs a captain, crew)."""
    classes = load_config().ship_classes
    assert {name: (c.size, c.health, c.oars, c.sails, c.maneuverability, c.seaworthiness, c.needs_captain, c.crew)
            for name, c in classes.items()} == {
        "rowboat": (2, 20, 4, 0, 1, -1, False, 1),
        "sailboat": (3, 30, 0, 8, 1, 0, False, 2),
        "longship": (6, 60, 10, 10, 1, 0, True, 24),
        "galley": (8, 80, 12, 6, 0, -1, True, 30),
        "caravel": (8, 90, 0, 11, 1, 1, True, 16),
        "galleon": (12, 160, 0, 9, -1, 1, True, 30),
    }


def test_scenarios_a_duel_a_chase_and_two_against_one():
    config = load_config()
    assert config.default_scenario == "duel"
    sizes = {name: tuple(len(side.ships) for side in s.sides) for name, s in config.scenarios.items()}
    assert sizes == {"duel": (1, 1), "chase": (1, 1), "uneven": (2, 1)}
    chase = config.scenarios["chase"].escape
    assert (chase.sides, chase.result) == (["red"], "win")


@pytest.mark.parametrize("scenario", ["duel", "chase", "uneven"])
def test_every_shipped_scenario_sets_up_inside_its_zones(scenario):
    config = load_config()
    game = RULESET.new_game(config, scenario, seed=3)
    for side in config.scenarios[scenario].sides:
        for i, _ in enumerate(side.ships):
            s = game.state.ships[f"{side.name}_{i}"]
            assert side.zone.x[0] <= s.x <= side.zone.x[1] and side.zone.y[0] <= s.y <= side.zone.y[1]


def test_placement_rolls_one_die_per_coordinate_in_side_order():
    data = config_data([{"ship": "hulk", "propulsion": "oars"}], [{"ship": "hulk", "propulsion": "oars"}])
    data["scenarios"]["test"]["sides"][0]["zone"] = {"x": [0, 9], "y": [5, 5]}
    data["scenarios"]["test"]["sides"][1]["zone"] = {"x": [100, 119], "y": [0, 3]}
    game = RULESET.new_game(validate(PursuitConfig, data, "test"), "test", dice=ScriptedDice([4, 20, 2]))
    assert [(s.x, s.y) for s in game.state.ships.values()] == [(3.0, 5.0), (119.0, 1.0)]


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["house_rules"].update(tide=3), "tide"),
    (lambda d: d["scenarios"]["test"]["sides"][0]["ships"][0].update(ship="junk"), "unknown ship 'junk'"),
    (lambda d: d["scenarios"]["test"]["sides"][0]["ships"][0].update(machines=[{"machine": "trebuchet"}]),
     "unknown war machine 'trebuchet'"),
    (lambda d: d["scenarios"]["test"]["sides"][0]["ships"].extend([ship((0, 9)), ship((0, 19))]),
     "at most 2 a side"),
    (lambda d: d["scenarios"]["test"]["sides"][0]["ships"][0].update(machines=[{"machine": "ballista"}] * 5),
     "carries at most 4"),
    (lambda d: d["wind_table"].pop("gale"), "lacks the strength"),
    (lambda d: d["war_machines"]["cannon"].update(misfire_faces=[1]), "only indirect-fire machines"),
    (lambda d: d["scenarios"]["test"].update(escape={"distance": 10, "sides": ["green"]}), "unknown side"),
    (lambda d: d["scenarios"]["test"]["sides"][0]["ships"][0]["crew"].update(count=11), "more than a hulk holds"),
    (lambda d: d["scenarios"]["test"]["wind"].update(toward="NNE"), "wind.toward"),
    (lambda d: d["ship_classes"]["hulk"].update(oars=0, sails=0), "needs oars or sails"),
    (lambda d: d["scenarios"]["test"]["sides"][0]["ships"][0].update(propulsion="sails"), None),
    (lambda d: d.update(default_scenario="nope"), "default_scenario 'nope'"),
])
def test_bad_configs_are_refused_naming_the_field(edit, message):
    data = config_data([ship((0, 0))], [ship((100, 0))])
    edit(data)
    if message is None:
        validate(PursuitConfig, data, "test")      # a hulk has sails too: allowed
        return
    assert message in refused(data)


def test_unknown_scenario_is_refused_at_new_game():
    with pytest.raises(ConfigError, match="unknown pursuit scenario 'armada'"):
        RULESET.new_game(load_config(), "armada", seed=0)
