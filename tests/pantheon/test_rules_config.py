"""Config validation: the values the document fixes or leaves open live in configs/rulesets/pantheon.yaml,
and a bad config is refused with a ConfigError naming the field."""

from __future__ import annotations

import pytest

from naval_env.core.config import validate
from naval_env.core.errors import ConfigError
from naval_env.rulesets.pantheon import RULESET
from naval_env.rulesets.pantheon.config import PantheonConfig, load_config
from tests.helpers import config_refusal

from .helpers import config_data, make_game, ship

RED = [ship("trireme", (0, 0), wits=4)]
BLUE = [ship("trireme", (11, 11))]


def refused(data) -> str:
    return config_refusal(PantheonConfig, data)


def test_default_config_matches_the_documents_numbers():
    config = load_config()
    rules = config.house_rules
    assert (rules.max_ships_per_side, rules.fire_range, rules.range_enhancement, rules.max_enhancements) == (5, 3, 4, 4)
    assert (rules.repair_difficulty, rules.wrecked_damage_per_turn, rules.sinking_turns) == (8, 5, 3)
    assert (rules.get_out_distance, rules.get_out_scrape_damage, rules.crew_repair_multiplier) == (2, 1, 2)
    assert (rules.wrecked_repair_bonus, rules.initiative_enhancement, rules.armor_enhancement) == (2, 3, 5)
    assert (rules.test_resolution, rules.test_die, rules.exceptional_margin, rules.ties_go_to) == (
        "opposed_d10", 10, 5, "defender")


def test_six_vessel_types_with_assumed_stats():
    """'there are only six different kind of vessels' (their stat table is missing: see Assumptions)."""
    vessels = load_config().vessels
    assert {name: (v.speed, v.health, v.damage, v.maneuverability, v.pc_capacity) for name, v in vessels.items()} == {
        "trireme": (4, 12, 3, 3, 3),
        "bireme": (4, 10, 2, 3, 2),
        "penteconter": (5, 8, 2, 4, 2),
        "quinquereme": (3, 16, 4, 1, 4),
        "hemiolia": (5, 7, 2, 5, 1),
        "merchantman": (3, 14, 1, 1, 3),
    }


def test_board_size_is_per_scenario():
    config = load_config()
    assert {name: s.board for name, s in config.scenarios.items()} == {
        "duel": (12, 12), "mixed_duel": (12, 12), "squadron": (16, 16), "fleet": (20, 20),
    }
    game = make_game(RED, [ship("trireme", (11, 8))], board=(12, 9))
    assert (game.state.width, game.state.height) == (12, 9)


@pytest.mark.parametrize("board", [(3, 12), (12, 3), (65, 12)])
def test_board_size_limits(board):
    data = config_data([ship("trireme", (0, 0))], [ship("trireme", (1, 1))], board=board,
                       zones=({"x": [0, 0], "y": [0, 0]}, {"x": [1, 1], "y": [1, 1]}))
    assert "must be between 4x4 and 64x64" in refused(data)


def test_zone_must_fit_the_board():
    data = config_data(RED, BLUE, zones=({"x": [0, 12], "y": [0, 1]}, {"x": [10, 11], "y": [10, 11]}))
    assert "does not fit the 12x12 board" in refused(data)


def test_two_ships_cannot_share_a_square():
    data = config_data(RED, [ship("trireme", (0, 0))])
    assert "position (0, 0) is already taken" in refused(data)


def test_side_names_must_differ_and_there_are_two_sides():
    data = config_data(RED, BLUE)
    data["scenarios"]["test"]["sides"][1]["name"] = "red"
    assert "side names must differ" in refused(data)
    data = config_data(RED, BLUE)
    data["scenarios"]["test"]["sides"].pop()
    assert "scenarios.test.sides" in refused(data)


def test_unknown_vessel_and_unknown_house_rule_are_refused():
    assert "unknown vessel 'galleon'" in refused(config_data([ship("galleon", (0, 0))], BLUE))
    message = refused(config_data(RED, BLUE, house_rules={"fire_rnage": 4}))
    assert "house_rules.fire_rnage" in message and "fire_range" in message


def test_bad_test_resolution_is_refused():
    message = refused(config_data(RED, BLUE, house_rules={"test_resolution": "poker"}))
    assert "house_rules.test_resolution" in message


@pytest.mark.parametrize("field, value", [("seamanship", 6), ("wits", -1), ("charisma", 11)])
def test_captain_stats_are_bounded(field, value):
    data = config_data([ship("trireme", (0, 0), **{field: value})], BLUE)
    assert f"captain.{field}" in refused(data)


def test_crew_beyond_four_is_refused():
    assert "crew" in refused(config_data([ship("trireme", (0, 0), crew=5)], BLUE))


def test_bad_wind_and_facing_are_refused():
    assert "scenarios.test.wind" in refused(config_data(RED, BLUE, wind="NNE"))
    assert "facing" in refused(config_data([ship("trireme", (0, 0), "up")], BLUE))


def test_unknown_scenario_is_refused_at_new_game():
    config = validate(PantheonConfig, config_data(RED, BLUE), "test")
    with pytest.raises(ConfigError, match="unknown pantheon scenario 'armada'"):
        RULESET.new_game(config, "armada")


def test_a_zone_too_small_for_its_ships_is_refused_at_load_not_mid_game():
    zone = {"x": [0, 0], "y": [0, 0]}
    message = refused(config_data([ship("trireme", wits=4), ship("trireme", wits=5)], [ship("trireme", (11, 11))],
                                  zones=(zone, {"x": [11, 11], "y": [11, 11]})))
    assert ("scenarios.test.sides[red].zone: x=(0, 0) y=(0, 0) has 1 free square(s), too few for the 2 ship(s) "
            "placed at random in it") in message


def test_a_zone_counts_squares_taken_by_positions_and_by_an_earlier_side_it_overlaps():
    red_zone, blue_zone = {"x": [0, 2], "y": [0, 0]}, {"x": [1, 3], "y": [0, 0]}   # they share (1, 0) and (2, 0)
    red = [ship("trireme", wits=4), ship("trireme", wits=5)]
    # Blue's 3 squares, one of them a blue ship's own position: 2 left, both of which red may take.
    message = refused(config_data(red, [ship("trireme", (3, 0)), ship("trireme")], zones=(red_zone, blue_zone)))
    assert "sides[blue].zone: x=(1, 3) y=(0, 0) has 2 free square(s), of which earlier sides' ships may take 2" \
        in message
    # Without the fixed ship, blue keeps (3, 0) whatever red draws: the config loads and every seed sets up.
    config = validate(PantheonConfig, config_data(red, [ship("trireme")], zones=(red_zone, blue_zone)), "test")
    for seed in range(20):
        assert RULESET.new_game(config, "test", seed=seed).state.ships["blue_0"].x in (1, 2, 3)


@pytest.mark.parametrize("scenario", ["duel", "mixed_duel", "squadron", "fleet"])
def test_every_shipped_scenario_sets_up(scenario):
    config = load_config()
    game = RULESET.new_game(config, scenario, seed=1)
    sides = config.scenarios[scenario].sides
    assert len(game.agents) == sum(len(side.ships) for side in sides)
    for ship_ in game.state.ships.values():
        side = next(s for s in sides if s.name == ship_.side)
        assert side.zone.contains(ship_.x, ship_.y)
