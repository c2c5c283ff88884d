"""Config validation: the numbers the document fixes and the gaps it leaves live in
configs/rulesets/flotilla.yaml; a bad config is refused with a ConfigError naming the field."""

from __future__ import annotations

import pytest

from naval_env.core.config import validate
from naval_env.core.errors import ConfigError
from naval_env.rulesets.flotilla import RULESET
from naval_env.rulesets.flotilla.config import FlotillaConfig, load_config
from tests.helpers import config_refusal

from .helpers import config_data, ship

RED = [ship("brig", (2, 2), "E")]
BLUE = [ship("brig", (9, 9), "W")]


def refused(data) -> str:
    return config_refusal(FlotillaConfig, data)


def test_default_config_keeps_the_documents_numbers():
    rules = load_config().house_rules
    assert (rules.map_size, rules.min_attacker_distance, rules.maneuver_difficulty) == (15, 4, 2)
    assert (rules.cohesion_loss, rules.ram_damage_to_target, rules.ram_damage_to_rammer) == (1, 2, 1)
    assert (rules.arc_penalty, rules.artillery_range, rules.artillery_dice, rules.veteran_dice_per_level) == (1, 1, 1, 1)
    assert (rules.armour_reduction, rules.max_boarding_dice, rules.hero_boarding_dice) == (1, 5, 1)
    assert (rules.mage_cohesion, rules.mage_dice, rules.sails_bonus) == (3, 3, 1)
    table = rules.hit_location
    assert (table.die, table.command_room, table.crew, table.hull, table.propulsion) == (
        10, (1, 1), (2, 3), (4, 8), (9, 10))
    assert rules.round_wind_table == ["N", "S", "E", "W"] and len(rules.setup_wind_table) == 5


def test_default_config_fills_the_gaps_with_marked_choices():
    config = load_config()
    rules = config.house_rules
    assert (rules.penalty_mode, rules.failed_maneuver, rules.hit_location_per) == ("remove_die", "ahead", "impact")
    assert rules.setup_wind_table[4] == "calm" and (rules.fate_die, rules.fate_threshold) == (6, 3)
    assert [(m.name, m.turn, m.distance) for m in config.maneuvers] == [
        ("heave_to", 0, 0), ("half_sail", 0, "half"), ("turn", 1, "full"), ("tack", 1, "half"), ("hard_turn", 2, 0)]
    assert {name: u.levels for name, u in config.upgrades.items()} == {
        "veteran_captain": [5, 10], "better_artillery": [8], "elite_crew": [3, 6, 9, 12], "armour": [8], "ram": [5],
        "bow_guns": [4], "broadside_guns": [6], "mage_squad": [10], "sails": [3]}


@pytest.mark.parametrize("key, value, field", [
    ("penalty_mode", "halve", "house_rules.penalty_mode"),
    ("map_size", 5, "house_rules.map_size"),
    ("wind_with_within", 2, "house_rules.wind_with_within"),
    ("fate_threshold", 7, "fate_threshold 7 is above the fate die"),
])
def test_bad_house_rules_are_refused(key, value, field):
    assert field in refused(config_data(RED, BLUE, house_rules={key: value}))


def test_unknown_house_rule_lists_the_allowed_keys():
    message = refused(config_data(RED, BLUE, house_rules={"penalty_mod": "remove_die"}))
    assert "house_rules.penalty_mod" in message and "penalty_mode" in message


def test_the_hit_location_table_must_cover_the_die():
    data = config_data(RED, BLUE)
    data["house_rules"]["hit_location"]["hull"] = [4, 7]
    assert "must cover 1..10 exactly once" in refused(data)


def test_maneuver_names_must_be_unique_and_not_ahead():
    data = config_data(RED, BLUE)
    data["maneuvers"].append({"name": "ahead", "turn": 0, "distance": 1})
    assert "not 'ahead'" in refused(data)


def test_every_upgrade_needs_a_price():
    data = config_data(RED, BLUE)
    del data["upgrades"]["ram"]
    assert "no price for ['ram']" in refused(data)


def test_sides_need_an_attacker_and_a_defender():
    assert "one side must be the attacker and one the defender" in refused(
        config_data(RED, BLUE, roles=("attacker", "attacker")))


def test_zone_must_fit_the_map():
    zones = ({"x": [0, 15], "y": [0, 3]}, None)
    assert "does not fit the 15x15 map" in refused(config_data(RED, BLUE, zones=zones))


def test_a_ship_must_fit_on_the_map_and_not_overlap():
    assert "leave the map" in refused(config_data([ship("galleon", (1, 2), "E")], BLUE))
    assert "overlaps another ship" in refused(config_data(RED, [ship("brig", (2, 2), "W")]))


def test_unknown_scenario_is_refused_at_new_game():
    config = load_config()
    with pytest.raises(ConfigError, match="unknown flotilla scenario 'regatta'"):
        RULESET.new_game(config, "regatta")


def test_a_zone_without_room_is_refused_at_load_not_mid_game():
    zone = {"x": [0, 1], "y": [0, 0]}   # a brig facing E fits with its bow on (1, 0) only
    message = refused(config_data([ship("brig", None, "E"), ship("brig", None, "E")], BLUE,
                                  zones=(zone, {"x": [9, 9], "y": [9, 9]})))
    assert ("scenarios.test.sides[red].ships[1]: its zone x=(0, 1) y=(0, 0) has 1 bow square(s) where a brig can "
            "start, and the ships drawn before it may block 1") in message


def test_a_zone_the_defenders_may_crowd_out_is_refused():
    """Attackers start at least min_attacker_distance (4) from every defender, wherever the defenders landed."""
    rules = {"min_attacker_distance": 4}
    attack = {"x": [8, 9], "y": [7, 7]}      # a brig facing E: bow on (8, 7) or (9, 7), stern one square west
    crowding = {"x": [3, 6], "y": [7, 7]}    # a cutter drawn on (5, 7) or (6, 7) is within 3 of both
    message = refused(config_data([ship("brig", None, "E")], [ship("cutter", None, "W")], house_rules=rules,
                                  zones=(attack, crowding)))
    assert ("sides[red].ships[0]: its zone x=(8, 9) y=(7, 7) has 2 bow square(s) where a brig can start, and the "
            "ships drawn before it may block 2") in message
    # Kept to (2..3, 7), the cutter always leaves both bows 4 or more away: the config loads, every seed sets up.
    config = validate(FlotillaConfig, config_data([ship("brig", None, "E")], [ship("cutter", None, "W")],
                                                  house_rules=rules, zones=(attack, {"x": [2, 3], "y": [7, 7]})),
                      "test")
    for seed in range(20):
        assert RULESET.new_game(config, "test", seed=seed).state.ships["red_0"].x in (8, 9)
