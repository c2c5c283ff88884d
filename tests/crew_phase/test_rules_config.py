"""The config: the vessels the document names, with our stat blocks; validation names file, field and choices."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from naval_env.core.dice import ScriptedDice
from naval_env.core.errors import ConfigError
from naval_env.rulesets.crew_phase import RULESET
from naval_env.rulesets.crew_phase.config import DEFAULT_CONFIG, load_config, parse_dice

from .helpers import config_data, make_game, ship


def write_variant(tmp_path: Path, change) -> Path:
    data = yaml.safe_load(DEFAULT_CONFIG.read_text())
    change(data)
    path = tmp_path / "crew_phase.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def refusal(tmp_path: Path, change) -> str:
    path = write_variant(tmp_path, change)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(path) in str(error.value)
    return str(error.value)


def test_the_vessels_the_document_names_with_assumed_stat_blocks():
    """The document names a rowboat ('bote de remos') and, for repairs and docks, small boats and large ships;
    the issue lists keelboat, sailing ship, galley and warship. Their stats are ours (see Assumptions)."""
    config = load_config()
    assert sorted(config.vessels) == ["galley", "keelboat", "rowboat", "sailing_ship", "warship"]
    rowboat = config.vessels["rowboat"]
    assert rowboat.self_steering and rowboat.agile and not rowboat.rails
    assert config.vessels["galley"].agile and not config.vessels["sailing_ship"].agile
    assert sorted(config.scenarios) == ["duel", "nimble_vs_heavy", "two_vs_one"] and config.default_scenario == "duel"


def test_the_documents_numbers_are_the_defaults():
    rules = load_config().house_rules
    assert (rules.navigate_dc, rules.command_dc, rules.command_bonus, rules.repair_dc) == (10, 10, 2, 10)
    assert (rules.ram_attack_bonus, rules.ram_save_dc, rules.sinking_damage_divisor) == (5, 15, 10)
    assert (rules.skilled_worker_gold_per_day, rules.free_labour_gold_per_day, rules.max_turn_points) == (13, 10, 4)


def test_unknown_key_lists_allowed_keys(tmp_path):
    message = refusal(tmp_path, lambda d: d["vessels"]["keelboat"].update(sped=3))
    assert "vessels.keelboat.sped" in message and "allowed keys here:" in message and "speed_unit" in message


def test_unknown_weapon_profile_and_vessel_are_refused(tmp_path):
    assert "unknown weapon 'catapult'" in refusal(
        tmp_path, lambda d: d["vessels"]["keelboat"]["weapons"].append({"weapon": "catapult", "arc": "bow"}))
    assert "unknown crew profile 'pirate'" in refusal(tmp_path, lambda d: d["vessels"]["keelboat"]["crew"].append("pirate"))
    assert "unknown vessel 'junk'" in refusal(
        tmp_path, lambda d: d["scenarios"]["duel"]["sides"][0]["ships"].append({"vessel": "junk"}))


def test_limits_that_fix_the_spaces_are_enforced(tmp_path):
    assert "at most house_rules.max_crew = 6" in refusal(
        tmp_path, lambda d: d["vessels"]["keelboat"].update(crew=["sailor"] * 7))
    assert "at most house_rules.max_sections = 4" in refusal(tmp_path, lambda d: d["vessels"]["keelboat"].update(sections=5))
    assert "at most house_rules.max_ships_per_side = 2" in refusal(
        tmp_path, lambda d: d["scenarios"]["duel"]["sides"][0]["ships"].extend([{"vessel": "keelboat"}] * 2))


def test_bad_arc_dice_and_ranges_are_refused(tmp_path):
    assert "arc" in refusal(tmp_path, lambda d: d["vessels"]["keelboat"]["weapons"][0].update(arc="aft"))
    assert "not a dice expression" in refusal(tmp_path, lambda d: d["weapons"]["ballista"].update(damage="3x10"))
    assert "shorter than range" in refusal(tmp_path, lambda d: d["weapons"]["ballista"].update(long_range=30))
    assert parse_dice("2d4+2") == (2, 4, 2) and parse_dice("1d8") == (1, 8, 0)


def test_every_shipped_scenario_sets_up_inside_its_zones():
    config = load_config()
    for name, scenario in config.scenarios.items():
        game = RULESET.new_game(config, name, seed=7)
        for side in scenario.sides:
            for index, _ in enumerate(side.ships):
                placed = game.state.ships[f"{side.name}_{index}"]
                assert side.zone.contains(placed.x, placed.y)


def test_unplaced_ships_draw_a_free_square_of_their_zone():
    data = config_data([{"vessel": "keelboat"}], [ship("keelboat", (1, 0), "W")], board=(4, 4))
    data["scenarios"]["test"]["sides"][0]["zone"] = {"x": [0, 1], "y": [0, 0]}
    from naval_env.core.config import validate
    from naval_env.rulesets.crew_phase.config import CrewPhaseConfig

    config = validate(CrewPhaseConfig, data, "test")
    game = RULESET.new_game(config, "test", dice=ScriptedDice([1]))   # one free square left: (0, 0)
    assert (game.state.ships["red_0"].x, game.state.ships["red_0"].y) == (0, 0)


def test_a_zone_too_small_for_its_ships_is_refused_at_load_not_mid_game(tmp_path):
    def two_ships_one_square(data):
        side = data["scenarios"]["duel"]["sides"][0]
        side["zone"] = {"x": [0, 0], "y": [0, 0]}
        side["ships"] = [{"vessel": "keelboat"}, {"vessel": "keelboat"}]

    assert ("scenarios.duel.sides[" in (message := refusal(tmp_path, two_ships_one_square))
            and "].zone: x=(0, 0) y=(0, 0) has 1 free square(s), too few for the 2 ship(s) placed at random in it"
            in message)


def test_unknown_scenario_is_refused():
    with pytest.raises(ConfigError, match="unknown crew_phase scenario 'armada'"):
        RULESET.new_game(load_config(), "armada", seed=0)


def test_a_ship_can_override_its_crew():
    game = make_game([ship("keelboat", (3, 3), "E", crew=["officer", "officer"])], [ship("keelboat", (9, 9))])
    assert [c.role for c in game.state.ships["red_0"].crew] == ["officer", "officer"]
