"""Fleet building and ship statistics (document: "Coste", "Tiro de Dirección", "Tiro de Combate",
"Abordaje", "Tamaño", "Cohesión", "Movimiento", and the traits that are bought)."""

from __future__ import annotations

import pytest

from naval_env.rulesets.flotilla.config import FlotillaConfig, ShipSetup, load_config
from naval_env.rulesets.flotilla.fleet import FleetRefused, build_ship, check_fleet, require_fleet
from tests.helpers import config_refusal

from .helpers import config_data, make_game, ship, ships

CONFIG = load_config()


def setup(cls: str, **upgrades: int) -> ShipSetup:
    return ShipSetup(ship=cls, upgrades=upgrades)


def refused(data) -> str:
    return config_refusal(FlotillaConfig, data)


def test_the_catalogue_has_every_statistic_the_document_defines():
    """Cost, Steering Roll, Combat Roll and range, Boarding, Size, Cohesion, Movement (ships: ASSUMPTION)."""
    stats = {name: (c.cost, c.steering, c.combat, c.range, c.boarding, c.size, c.cohesion, c.movement, tuple(c.traits))
             for name, c in CONFIG.ship_classes.items()}
    assert stats == {
        "cutter": (10, 2, 1, 2, 1, 1, 2, 4, ("sails",)),
        "galley": (16, 2, 1, 2, 3, 2, 4, 3, ()),
        "brig": (20, 2, 2, 3, 2, 2, 4, 3, ("sails",)),
        "frigate": (30, 2, 3, 3, 2, 2, 5, 3, ("sails",)),
        "galleon": (45, 1, 4, 4, 3, 3, 7, 2, ("sails",)),
    }


def test_scenario_budgets_are_between_50_and_200_points():
    """'El Director de Juego (DJ) asignará un presupuesto base a cada bando ... (normalmente entre 50 y 200 puntos).'"""
    assert {name: s.budget for name, s in CONFIG.scenarios.items()} == {"duel": 50, "squadron": 100, "armada": 200}
    for scenario in CONFIG.scenarios.values():
        for side in scenario.sides:
            assert check_fleet(CONFIG, side.ships, scenario.budget, side.name).ok


def test_a_ship_costs_its_class_plus_every_upgrade():
    build = build_ship(CONFIG, setup("frigate", veteran_captain=1, broadside_guns=1, armour=1))
    assert [(line.item, line.points) for line in build.cost_lines] == [
        ("frigate", 30), ("veteran_captain x1", 5), ("broadside_guns", 6), ("armour", 8)]
    assert build.cost == 49


def test_a_better_captain_costs_more_and_rolls_more_dice():
    """'Un buen capitán añade un coste adicional al barco'; veteran: 'Añade 1d6 adicional al tiro de
    Dirección (+2d6 si aumenta el coste por 2)' (read as twice the price: ASSUMPTION)."""
    plain, one, two = (build_ship(CONFIG, setup("brig", veteran_captain=level)) for level in (0, 1, 2))
    assert (plain.steering, one.steering, two.steering) == (2, 3, 4)
    assert (plain.cost, one.cost, two.cost) == (20, 25, 30)


def test_better_artillery_adds_range_and_a_combat_die():
    """'Aumenta su alcance por 1 y su tiro de combate por 1d6.'"""
    plain, better = build_ship(CONFIG, setup("brig")), build_ship(CONFIG, setup("brig", better_artillery=1))
    assert (plain.combat, plain.range) == (2, 3)
    assert (better.combat, better.range, better.cost) == (3, 4, 28)


def test_elite_crew_adds_boarding_dice_up_to_five():
    """'Añade Xd6 adicional al tiro de Abordaje hasta un máximo de 5d6.'"""
    assert build_ship(CONFIG, setup("galley", elite_crew=2)).boarding == 5
    too_many = build_ship(CONFIG, setup("galley", elite_crew=3))
    assert too_many.problems == ("galley: elite crew would make the Boarding Roll 6d6; the most is 5d6",)


def test_mage_squad_is_a_second_unit_of_three_cohesion():
    """'Los magos son una unidad adicional con 3 cohesión'."""
    assert build_ship(CONFIG, setup("frigate", mage_squad=1)).mages == 3
    assert build_ship(CONFIG, setup("frigate")).mages == 0


def test_a_player_captain_steers_with_their_perception():
    """'por cada nivel de talento que tenga en Percepción si es jugador o en base a su habilidad'."""
    build = build_ship(CONFIG, ShipSetup(ship="brig", captain_perception=4))
    assert build.steering == 4 and build.cost == 20


def test_stats_reach_the_ship_in_the_game():
    game = make_game([ship("frigate", (2, 2), "E", upgrades={"veteran_captain": 1, "better_artillery": 1})],
                     [ship("galleon", (9, 9), "W", upgrades={"mage_squad": 1}, hero=True)], dice=[1, 1, 1, 1, 2])
    red, blue = ships(game)["red_0"], ships(game)["blue_0"]
    assert (red.captain_dice, red.combat, red.range, red.boarding, red.size, red.cohesion, red.movement) == (
        3, 4, 4, 2, 2, 5, 3)
    assert (blue.captain_dice, blue.combat, blue.range, blue.boarding, blue.size, blue.cohesion, blue.mages) == (
        1, 4, 4, 3, 3, 7, 3)
    assert red.sails and blue.sails and blue.hero


def test_size_is_the_number_of_squares_in_a_line_from_the_bow():
    """'Indica la cantidad de casillas que ocupa el barco en el mapa.'"""
    game = make_game([ship("galleon", (5, 5), "E"), ship("cutter", (0, 0), "S")],
                     [ship("frigate", (10, 10), "NE")], dice=[1, 1, 1, 1, 2])
    assert ships(game)["red_0"].squares == ((5, 5), (4, 5), (3, 5))
    assert ships(game)["red_1"].squares == ((0, 0),)
    assert ships(game)["blue_0"].squares == ((10, 10), (9, 11))
    assert game.state.occupancy[(4, 5)] == "red_0" and game.state.occupancy[(9, 11)] == "blue_0"


def test_the_fleet_builder_explains_every_refusal():
    report = check_fleet(CONFIG, [setup("frigate", veteran_captain=2, armour=1), setup("brig", sails=1)], 50, "red")
    assert not report.ok and report.total == 68
    assert report.problems == ("brig: already has sails built in; it cannot be bought again",
                               "costs 68 points, 18 over the budget of 50")
    assert report.explain().splitlines() == [
        "red: 68 of 50 points",
        "  ship 0 (frigate): 48 points = frigate 30, veteran_captain x2 10, armour 8",
        "  ship 1 (brig): 20 points = brig 20",
        "  refused: brig: already has sails built in; it cannot be bought again",
        "  refused: costs 68 points, 18 over the budget of 50",
    ]
    with pytest.raises(FleetRefused, match="18 over the budget of 50"):
        require_fleet(CONFIG, [setup("frigate", veteran_captain=2, armour=1), setup("brig")], 50)
    assert require_fleet(CONFIG, [setup("frigate", veteran_captain=2)], 50).total == 40


@pytest.mark.parametrize("ships_, problem", [
    ([setup("schooner")], "unknown ship class 'schooner'"),
    ([setup("brig", veteran_captain=3)], "brig: veteran_captain level 3 is not offered (levels 1..2)"),
    ([setup("brig", armour=2)], "brig: armour level 2 is not offered (levels 1..1)"),
    ([setup("cutter")] * 6, "6 ships; at most 5 a side"),
    ([], "a fleet needs at least one ship"),
])
def test_fleet_problems(ships_, problem):
    report = check_fleet(CONFIG, ships_, 1000)
    assert any(problem in p for p in report.problems), report.problems


def test_a_scenario_whose_fleet_breaks_its_budget_does_not_load():
    data = config_data([ship("galleon", (2, 2), "E", upgrades={"armour": 1})], [ship("brig", (9, 9), "W")], budget=50)
    message = refused(data)
    assert "scenarios.test.sides[red].ships" in message and "costs 53 points, 3 over the budget of 50" in message


def test_unknown_upgrade_is_refused_naming_the_field():
    data = config_data([ship("brig", (2, 2), "E", upgrades={"cannons": 1})], [ship("brig", (9, 9), "W")])
    assert "upgrades.cannons" in refused(data)
