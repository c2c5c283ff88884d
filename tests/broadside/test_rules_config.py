"""The catalogue and config: the document's numbers, our assumptions, and validation with named fields."""

from __future__ import annotations

import pytest

from naval_env.core.config import validate
from naval_env.core.errors import ConfigError
from naval_env.rulesets.broadside import RULESET
from naval_env.rulesets.broadside.config import BroadsideConfig, DiceExpr, load_config
from tests.helpers import config_refusal

from .helpers import config_data, make_game, ship

RED = [ship("galley", (10, 18), 90)]
BLUE = [ship("sailing_ship", (38, 18), 270)]


def refused(data) -> str:
    return config_refusal(BroadsideConfig, data)


def test_hull_points_are_the_documents():
    """'Most galleys can sustain 30 points ... Sailing ships 36 ... ironclads 42. Longboats 25 ... sharkboats 20.'"""
    vessels = load_config().vessels
    assert {name: v.hull for name, v in vessels.items()} == {
        "galley": 30, "sailing_ship": 36, "ironclad": 42, "longboat": 25, "sharkboat": 20}


def test_who_may_ram_and_with_how_many_dice():
    """'Galleys, ironclads and sharkboats may ram. Sailing vessels and longboats may not.' 5d6; 'Sharkboats do 3d6'."""
    vessels = load_config().vessels
    assert {name for name, v in vessels.items() if v.can_ram} == {"galley", "ironclad", "sharkboat"}
    assert (vessels["galley"].ram_dice, vessels["ironclad"].ram_dice, vessels["sharkboat"].ram_dice) == (5, 5, 3)


def test_guns_galleys_none_sailing_ships_four_on_the_broadsides_ironclads_a_turret():
    """'Galleys generally don't have cannons. Sailing ships have up to 4 ... many ironclads have a single cannon on
    a turret.'"""
    guns = {name: v.guns.model_dump() for name, v in load_config().vessels.items()}
    assert guns["galley"] == {"port": 0, "starboard": 0, "turret": 0}
    assert guns["sailing_ship"] == {"port": 2, "starboard": 2, "turret": 0}
    assert guns["ironclad"] == {"port": 0, "starboard": 0, "turret": 1}


def test_glancing_damage_by_the_target_type():
    """'All rams to the bow of a galley or ironclad inflict d6 ... of a sailing vessel one-half normal damage.'"""
    vessels = load_config().vessels
    assert (vessels["galley"].glancing, vessels["ironclad"].glancing, vessels["sailing_ship"].glancing) == (
        "d6", "d6", "half")


def test_default_house_rules_hold_the_documents_numbers():
    rules = load_config().house_rules
    assert (rules.collision_damage_die, rules.collision_carry_die, rules.centre_zone, rules.t_push) == (4, 4, 1, 2)
    assert (rules.full_ram_above, rules.ram_die, rules.ram_sink_slowdown) == (45, 6, 3)
    assert (rules.sweeps_end_ramming_speed, rules.sweeps_end_battle_speed) == (1, 2)
    assert (rules.cannon_die, rules.cannon_damage_die, rules.rake_dice, rules.turret_dead_zone) == (20, 6, 2, 20)
    assert (rules.archer_die, rules.archer_bonus, rules.boarding_distance) == (20, 6, 1)
    assert (rules.marine_die, rules.hero_die, rules.crew_die) == (8, 10, 6)


def test_collateral_chart_covers_every_2d6_total():
    chart = load_config().collateral_chart
    assert sorted(chart) == list(range(2, 13))
    assert chart[2].effect == "hull" and str(chart[2].amount) == "2d6"


@pytest.mark.parametrize("text, count, sides", [("2d6", 2, 6), ("d3", 1, 3), ("1", 1, 0), ("12", 12, 0)])
def test_dice_expressions(text, count, sides):
    parsed = DiceExpr.parse(text)
    assert (parsed.count, parsed.sides) == (count, sides)


def test_shipped_scenarios():
    config = load_config()
    assert list(config.scenarios) == ["galley_vs_sailing_ship", "ironclad_vs_galleys", "fleet_with_iceberg",
                                      "sailing_duel"]
    assert config.default_scenario == "galley_vs_sailing_ship"
    duel = config.scenarios["sailing_duel"]
    assert [s.ships[0].vessel for s in duel.sides] == ["sailing_ship", "sailing_ship"]
    fleet = config.scenarios["fleet_with_iceberg"]
    assert len(fleet.icebergs) == 2
    assert [len(s.ships) for s in config.scenarios["ironclad_vs_galleys"].sides] == [1, 2]


@pytest.mark.parametrize("scenario", ["sailing_duel", "galley_vs_sailing_ship", "ironclad_vs_galleys",
                                      "fleet_with_iceberg"])
def test_every_shipped_scenario_sets_up_with_jitter_inside_the_board(scenario):
    config = load_config()
    for seed in range(5):
        game = RULESET.new_game(config, scenario, seed=seed)
        for s in game.state.ships.values():
            assert s.shape.inside_board(game.state.width, game.state.height)


def test_set_up_jitter_is_drawn_with_the_dice():
    """Each ship draws x, y and heading offsets: 2 inches each way in half inches (a d9), 15 degrees in fives (a d7)."""
    data = config_data(RED, BLUE)
    data["scenarios"]["test"].update(placement_jitter=2, heading_jitter=15)
    config = validate(BroadsideConfig, data, "test")
    from naval_env.core.dice import ScriptedDice

    game = RULESET.new_game(config, "test", dice=ScriptedDice([1, 9, 7, 5, 5, 4]))
    red, blue = game.state.ships["red_0"].shape, game.state.ships["blue_0"].shape
    assert (red.x, red.y, red.heading) == (8.0, 20.0, 105.0)
    assert (blue.x, blue.y, blue.heading) == (38.0, 18.0, 270.0)


def test_ships_start_with_their_complement_and_overrides():
    game = make_game([ship("galley", (10, 18), 90, heroes=3, marines=4)], BLUE)
    red = game.state.ships["red_0"].people
    assert (red.crew, red.archers, red.marines, red.lieutenants, red.heroes) == (6, 6, 4, 1, 3)


def test_unknown_vessel_is_refused():
    assert "unknown vessel 'frigate'" in refused(config_data([ship("frigate", (10, 18), 90)], BLUE))


def test_ships_too_close_or_off_the_table_are_refused():
    assert "too close to" in refused(config_data(RED, [ship("sailing_ship", (12, 18), 270)]))
    assert "too close to the edge" in refused(config_data([ship("galley", (2, 18), 90)], BLUE))


def test_bad_house_rules_are_named():
    assert "house_rules.casualty_order" in refused(config_data(RED, BLUE, house_rules={"casualty_order": ["crew"]}))
    assert "house_rules.turn_angles" in refused(config_data(RED, BLUE, house_rules={"turn_angles": [30, 15]}))
    assert "house_rules.legs_per_turn" in refused(config_data(RED, BLUE, house_rules={"legs_per_turn": 1}))
    message = refused(config_data(RED, BLUE, house_rules={"full_ram_angle": 40}))
    assert "house_rules.full_ram_angle" in message and "full_ram_above" in message


def test_collateral_chart_must_cover_two_to_twelve():
    data = config_data(RED, BLUE)
    del data["collateral_chart"][7]
    assert "collateral_chart" in refused(data)
    data = config_data(RED, BLUE)
    data["collateral_chart"][7]["amount"] = "lots"
    assert "not a dice expression" in refused(data)


def test_vessel_speeds_must_rise_and_rammers_need_dice():
    assert "speeds.battle" in refused(config_data(RED, BLUE, vessels={"galley": {"speeds": {"cruising": 9, "battle": 6}}}))
    assert "ram_dice" in refused(config_data(RED, BLUE, vessels={"galley": {"ram_dice": 0}}))


def test_too_many_ships_a_side_is_refused():
    many = [ship("sharkboat", (6, 6 + 8 * i), 90) for i in range(4)]
    assert "at most 3 a side" in refused(config_data(many, BLUE))


def test_unknown_scenario_is_refused_at_new_game():
    config = validate(BroadsideConfig, config_data(RED, BLUE), "test")
    with pytest.raises(ConfigError, match="unknown broadside scenario 'armada'"):
        RULESET.new_game(config, "armada")
