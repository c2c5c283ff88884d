"""Navigate: one crew member per navigation section; Water Vehicles (Strength) DC 10; the speed unit, or half."""

from __future__ import annotations

import pytest

from naval_env.rulesets.crew_phase.events import CheckRolled, CrewActionWasted, Moved, SpeedGained
from naval_env.testing import allowed, allowed_labels

from .helpers import act, duel, of, pass_crew, where


@pytest.mark.parametrize("face, success, feet", [(6, True, 20), (5, False, 10), (20, True, 20), (1, False, 10)])
def test_navigate_gains_the_speed_unit_or_half(face, success, feet):
    """'De tener éxito, el barco gana velocidad igual a su Unidad de Velocidad durante la Fase de Barcos.
    En caso contrario, el barco gana la mitad de su Unidad de Velocidad en su lugar.'"""
    game = duel(dice=[face])
    events = act(game, crew=["navigate@s0"])
    [check] = of(events, CheckRolled)
    assert (check.check, check.rolls, check.modifier, check.total, check.dc, check.success) == (
        "navigate (Water Vehicles, Strength)", (face,), 4, face + 4, 10, success)
    assert of(events, SpeedGained) == [SpeedGained("red_0", 0, 0, feet)]
    assert game.state.ships["red_0"].speed_ft == feet


def test_navigate_modifier_is_strength_plus_water_vehicles_proficiency():
    """A sailor has Strength +2 and Water Vehicles (+2); a gunner has Strength 0 and no proficiency."""
    game = duel(dice=[9, 9])
    events = act(game, crew={0: "navigate@s0", 3: "navigate@s1"})
    assert [(c.crew, c.modifier, c.success) for c in of(events, CheckRolled)] == [(0, 4, True), (3, 0, False)]
    assert game.state.ships["red_0"].speed_ft == 20 + 10


def test_speed_gained_is_the_ships_allowance_in_the_ship_phase():
    """'... ganan una cantidad de velocidad cada Fase de Barcos en base a las acciones de Navegar': three
    sections, three successes: 60 ft, six squares of 10 ft."""
    game = duel(dice=[10, 10, 10])
    act(game, crew=["navigate@s0", "navigate@s1", "navigate@s2"])
    pass_crew(game)
    assert where(game) == ("red_0", "MOVE")
    assert allowed(game, "maneuver", "ahead 6")
    assert not allowed(game, "maneuver", "ahead 7")
    events = act(game, maneuver="ahead 6")
    assert of(events, Moved)[0].path[-1] == (9, 8) and of(events, Moved)[0].feet == 60


def test_each_section_takes_one_crew_member():
    """'Cada barco tiene una cantidad de Secciones de Navegación que pueden ser utilizadas por los miembros de la
    tripulación': one crew member per section. One sent to a manned section works the first free one; with all
    three manned, a fourth has nothing to do (no roll, no speed)."""
    game = duel(dice=[10, 10, 10])
    events = act(game, crew=["navigate@s1", "navigate@s1", "navigate@s1", "navigate@s0"])
    assert [(e.crew, e.section) for e in of(events, SpeedGained)] == [(0, 1), (1, 0), (2, 2)]
    assert len(of(events, CheckRolled)) == 3
    assert of(events, CrewActionWasted) == [CrewActionWasted("red_0", 3, "navigate@s0", "every section is manned")]
    assert game.state.ships["red_0"].speed_ft == 60


def test_sections_the_ship_does_not_have_are_not_offered():
    game = duel()
    labels = allowed_labels(game, "crew_0")
    assert {"navigate@s0", "navigate@s1", "navigate@s2"} <= set(labels)
    assert "navigate@s3" not in labels                     # a sailing ship has three sections


def test_no_navigate_no_movement():
    """'la mayoría de los barcos no tienen una velocidad base': without Navigate there is no MOVE decision."""
    game = duel()
    pass_crew(game)
    pass_crew(game)
    assert where(game) == ("red_0", "CREW") and game.round == 2


def test_half_a_speed_unit_below_a_square_is_lost():
    """A 10-ft speed unit failing its check gives 5 ft: less than a square, so no move (see Assumptions).
    The rowboat is Agile, so it may still turn in place."""
    game = duel(dice=[1], red="rowboat")
    events = act(game, crew=["navigate@s0"])
    assert of(events, SpeedGained) == [SpeedGained("red_0", 0, 0, 5)]
    pass_crew(game)
    assert where(game) == ("red_0", "MOVE")
    assert [label for label in allowed_labels(game, "maneuver") if label.startswith("ahead")] == []
