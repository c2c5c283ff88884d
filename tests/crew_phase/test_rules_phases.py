"""The round: a Character Phase, then a Ship Phase in fixed ship initiative, raised by Command."""

from __future__ import annotations

from naval_env.rulesets.crew_phase.events import (
    CharacterPhaseStarted,
    CheckRolled,
    ShipPhaseStarted,
    TurnStarted,
)

from .helpers import act, duel, make_game, of, pass_crew, ship, where


def test_round_is_a_character_phase_then_a_ship_phase():
    """'El combate entre barcos se divide en dos fases, primero la Fase de Personajes y luego la Fase de Barcos.'"""
    game = duel()
    assert of(game.opening_events, CharacterPhaseStarted) == [CharacterPhaseStarted(1, ("red_0", "blue_0"))]
    assert where(game) == ("red_0", "CREW")
    pass_crew(game)
    assert where(game) == ("blue_0", "CREW")
    events = pass_crew(game)
    # Nobody navigated or operated a weapon: both ships' turns pass without a decision.
    assert of(events, ShipPhaseStarted) == [ShipPhaseStarted(1, ("red_0", "blue_0"), (10, 10))]
    assert of(events, TurnStarted) == [TurnStarted("red_0", 1), TurnStarted("blue_0", 1)]
    assert of(events, CharacterPhaseStarted) == [CharacterPhaseStarted(2, ("red_0", "blue_0"))]
    assert where(game) == ("red_0", "CREW") and game.round == 2


def test_ship_initiative_is_fixed_not_rolled():
    """'La iniciativa de los barcos es fija (no se tira)': the keelboat's 12 beats the sailing ship's 10,
    with no dice at all."""
    game = make_game([ship("sailing_ship", (3, 8), "E")], [ship("keelboat", (12, 8), "W")])
    assert where(game) == ("blue_0", "CREW")
    pass_crew(game)
    events = pass_crew(game)
    assert of(events, ShipPhaseStarted) == [ShipPhaseStarted(1, ("blue_0", "red_0"), (12, 10))]
    assert game.dice.history == []


def test_initiative_ties_go_to_the_ship_listed_first():
    game = duel()
    pass_crew(game)
    events = pass_crew(game)
    assert of(events, ShipPhaseStarted)[0].order == ("red_0", "blue_0")


def test_command_adds_two_initiative_per_success_and_stacks():
    """'Comandar: ... una tirada de Carisma (DC 10). En un éxito, se agrega un +2 a la iniciativa ...
    No hay límite a cuántas de estas acciones pueden tomarse ... y sus efectos se acumulan.'"""
    game = duel(dice=[7, 10, 9])
    pass_crew(game)
    events = act(game, crew={5: "command", 3: "command", 4: "command"})
    checks = of(events, CheckRolled)
    assert [(c.crew, c.modifier, c.total, c.success) for c in checks] == [
        (3, 0, 7, False), (4, 0, 10, True), (5, 3, 12, True)]   # slot order: gunners (Cha 0), then the officer
    assert of(events, ShipPhaseStarted) == [ShipPhaseStarted(1, ("blue_0", "red_0"), (14, 10))]


def test_command_bonus_lasts_for_the_next_ship_phase_only():
    game = duel(dice=[10])
    pass_crew(game)
    act(game, crew={5: "command"})                       # 13: blue goes first in round 1
    pass_crew(game)
    events = pass_crew(game)
    assert of(events, ShipPhaseStarted)[0].order == ("red_0", "blue_0")


def test_every_ship_decides_its_crew_in_fixed_initiative_order_even_after_command():
    game = duel(dice=[10])
    pass_crew(game)
    act(game, crew={5: "command"})
    assert where(game) == ("red_0", "CREW")                # round 2: the Character Phase uses the fixed order


def test_a_ship_with_no_conscious_crew_has_no_character_phase_decision():
    game = duel()
    for member in game.state.ships["red_0"].crew:
        member.hp = 0
    game._advance([])                                      # (re-enter the flow as if red's crew just fell)
    assert where(game) == ("blue_0", "CREW")
