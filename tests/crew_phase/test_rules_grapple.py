"""Grapples: grappling weapons, a larger holder stops Navigate, towing at double cost unless two sizes
smaller, and escaping by destroying the source."""

from __future__ import annotations

from naval_env.rulesets.crew_phase.events import (
    AttackRolled,
    GrappleEnded,
    GrappleStarted,
    Moved,
    PartDamaged,
    TurnStarted,
)
from naval_env.testing import allowed, allowed_labels, damage_list

from .helpers import act, make_game, of, pass_crew, ship, where

SAIL3 = ["navigate@s0", "navigate@s1", "navigate@s2"]


def harpoon(red_vessel="sailing_ship", blue_vessel="sailing_ship", blue_at=(5, 10), blue_facing="N", dice=()):
    """Round 1: red's gunner 4 harpoons blue (hit: 10 + 5 vs AC, 1d8 damage). Returns the game in round 2."""
    game = make_game([ship(red_vessel, (3, 8), "E")], [ship(blue_vessel, blue_at, blue_facing)],
                     dice=[10, 3, *dice])
    while where(game) != ("red_0", "ATTACK"):
        act(game, crew={4: "operate@w2"}) if where(game) == ("red_0", "CREW") else act(game)
    events = act(game, weapons={2: "ship@e0"})
    assert of(events, GrappleStarted) == [GrappleStarted("red_0", "blue_0", 2)]
    assert game.round == 2
    return game


def test_a_grappling_weapon_that_hits_grapples_the_ship():
    """'Los barcos son capaces de apresarse entre sí utilizando ciertas armas.'"""
    game = harpoon()
    red = game.state.ships["red_0"]
    assert red.weapons[2].holding == "blue_0"
    assert not allowed(game, "crew_4", "operate@w2")        # its line is fast to blue
    assert damage_list(game.opening_events) == []


def test_a_ship_held_by_a_larger_one_gains_nothing_from_navigate():
    """'Un barco que es apresado por otro barco de una clase de tamaño más grande que la suya, no gana velocidad
    de movimiento de la acción de Navegar': the keelboat (medium) held by the sailing ship (large)."""
    game = harpoon(blue_vessel="keelboat")
    assert where(game) == ("blue_0", "CREW")              # the keelboat's initiative is 12
    assert not any(label.startswith("navigate") for label in allowed_labels(game, "crew_0"))


def test_speed_already_gained_is_lost_when_a_larger_ship_grapples_first():
    game = make_game([ship("sailing_ship", (3, 8), "E")], [ship("keelboat", (5, 10), "N")],
                     dice=[10, 7, 10, 3])
    act(game, crew=["navigate@s0"])                          # keelboat: +20 ft
    act(game, crew={4: "operate@w2", 5: "command"})         # command 7 + 3: red's 12 ties and goes first
    assert where(game) == ("red_0", "ATTACK")
    events = act(game, weapons={2: "ship@e0"})             # then the keelboat's turn: it cannot move
    assert of(events, Moved) == [] and where(game) == ("blue_0", "CREW") and game.round == 2
    assert (game.state.ships["blue_0"].x, game.state.ships["blue_0"].y) == (5, 10)


def test_towing_a_ship_costs_a_foot_per_foot_and_keeps_it_at_the_same_distance():
    """'Los barcos apresados deben permanecer a la misma distancia del punto de origen del agarre ... cada pie de
    movimiento cuesta un pie adicional de velocidad'."""
    game = harpoon(dice=[10, 10, 10])
    act(game, crew=[*SAIL3, "steer"])                      # round 2: red, then blue
    pass_crew(game)
    assert where(game) == ("red_0", "MOVE")
    assert allowed(game, "maneuver", "ahead 3") and not allowed(game, "maneuver", "ahead 4")
    events = act(game, maneuver="ahead 3")
    assert of(events, Moved) == [Moved("red_0", ((3, 8), (4, 8), (5, 8), (6, 8)), 2, 2, 60, ("blue_0",))]
    assert (game.state.ships["blue_0"].x, game.state.ships["blue_0"].y) == (8, 10)


def test_a_ship_two_sizes_smaller_is_towed_at_no_extra_cost():
    """'... a menos que la nave que apresada sea dos tamaños más pequeña que la que está realizando la presa.'"""
    game = harpoon(blue_vessel="rowboat", dice=[10, 10, 10])
    while where(game) != ("red_0", "MOVE"):
        act(game, crew=SAIL3) if where(game) == ("red_0", "CREW") else act(game)
    assert allowed(game, "maneuver", "ahead 6")
    events = act(game, maneuver="ahead 6")
    assert of(events, Moved)[0].towed == ("blue_0",) and (game.state.ships["blue_0"].x, game.state.ships["blue_0"].y) == (11, 10)


def test_cutting_the_grappling_line_ends_the_grapple_in_the_ship_phase():
    """'un agarre finaliza cuando se destruye el origen del efecto de la presa (por ejemplo, cortando el gancho de
    agarre de la nave enemiga)'."""
    game = harpoon()
    pass_crew(game)
    assert allowed(game, "crew_0", "cut_lines")
    events = act(game, crew=["cut_lines"])
    # A crew action: the lines are cut at the start of blue's turn in the Ship Phase.
    [ended] = of(events, GrappleEnded)
    assert ended == GrappleEnded("red_0", "blue_0", "grappling lines cut")
    assert events.index(ended) > events.index(TurnStarted("blue_0", 2))
    assert game.state.grapples == []
    assert game.state.ships["red_0"].weapons[2].holding is None


def test_destroying_the_grappling_weapon_ends_the_grapple():
    game = harpoon(dice=[15, 10, 10, 5])                      # blue's gunner 3 shoots red's harpoon (AC 15, 20 hp)
    pass_crew(game)
    act(game, crew={3: "operate@w0"})
    events = act(game, weapons={0: "part@e0.w2"})
    assert of(events, AttackRolled)[0].hit
    assert of(events, PartDamaged) == [PartDamaged("red_0", 2, 25, 0)]
    assert of(events, GrappleEnded) == [GrappleEnded("red_0", "blue_0", "grappling weapon destroyed")]
