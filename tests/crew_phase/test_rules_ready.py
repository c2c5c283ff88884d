"""Ready: a held attack fires in the Ship Phase when its trigger comes; as many as the ship's weapons allow,
in the declared (weapon) order; lost at the end of the round; no opportunity attacks."""

from __future__ import annotations

import pytest

from naval_env.core.errors import IllegalActionError
from naval_env.rulesets.crew_phase.events import (
    AttackLost,
    AttackRolled,
    GrappleStarted,
    Moved,
    StationManned,
)
from naval_env.testing import damage_list

from .helpers import act, duel, of, pass_crew, where

SAIL3 = ["navigate@s0", "navigate@s1", "navigate@s2"]


def test_a_readied_weapon_fires_when_an_enemy_ends_its_move_in_range_and_arc():
    """'Esto es particularmente útil para esperar que las naves enemigas lleguen al alcance antes de lanzarles un
    ataque.' Blue sails from (8, 12), ahead of red's bow, into red's starboard arc at (5, 12), 40 ft away."""
    game = duel(blue_at=(8, 12), dice=[10, 10, 4, 4, 4])
    events = act(game, crew={3: "ready@w1"})
    assert of(events, StationManned) == [StationManned("red_0", 3, "ready weapon 1")]
    act(game, crew=["navigate@s0"])                        # blue: 10 + 4 = 14, +20 ft
    # Ship Phase: red has no movement and its only weapon is readied, so red's turn passes.
    assert where(game) == ("blue_0", "MOVE")
    events = act(game, maneuver="ahead 2")
    [moved] = of(events, Moved)
    [attack] = of(events, AttackRolled)
    assert moved.path[-1] == (6, 12)
    assert (attack.ship, attack.weapon, attack.crew, attack.target_ship, attack.readied) == (
        "red_0", 1, 3, "blue_0", True)
    assert (attack.rolls, attack.total, attack.hit) == ((10,), 15, True)
    assert damage_list(events) == [("blue_0", 12, "red_0", "ballista")]
    assert events.index(moved) < events.index(attack)


def test_a_readied_attack_is_not_made_on_the_ships_own_turn():
    game = duel(blue_at=(3, 12))
    act(game, crew={3: "ready@w1"})
    pass_crew(game)
    assert where(game) == ("red_0", "CREW") and game.round == 2   # blue in arc all along, but it never moved


def test_an_unused_readied_action_is_lost_at_the_end_of_the_round():
    """'Como siempre, una acción preparada no utilizada se pierde al final de la ronda.'"""
    game = duel(blue_at=(8, 12), dice=[10])
    act(game, crew={3: "ready@w1"})
    pass_crew(game)
    assert game.state.ships["red_0"].weapons[1].readied_by is None   # round 2 began
    act(game)                                               # red readies nothing this time
    act(game, crew=["navigate@s0"])
    events = act(game, maneuver="ahead 2")
    assert of(events, AttackRolled) == []


def test_a_ship_readies_as_many_attacks_as_it_has_weapons_in_the_declared_order():
    """'un barco puede preparar tantas acciones como tengan disponibles en su economía de acción ... también debe
    declarar en qué orden tomará sus acciones': readied weapons fire in weapon order. Blue ends at (5, 10): on the
    45-degree line between red's bow and starboard, 20 ft away, so the starboard ballista and the bow harpoon
    both bear; the harpoon's hit grapples blue."""
    game = duel(blue_at=(8, 10), dice=[10, 10, 10, 4, 4, 4, 10, 2])
    act(game, crew={4: "ready@w2", 3: "ready@w1"})
    act(game, crew=["navigate@s0", "navigate@s1"])
    events = act(game, maneuver="ahead 3")
    attacks = of(events, AttackRolled)
    assert [(a.weapon, a.crew, a.hit) for a in attacks] == [(1, 3, True), (2, 4, True)]
    assert damage_list(events) == [("blue_0", 12, "red_0", "ballista"), ("blue_0", 2, "red_0", "harpoon")]
    assert of(events, GrappleStarted) == [GrappleStarted("red_0", "blue_0", 2)]


def test_ships_make_no_opportunity_attacks():
    """'Los barcos no pueden usar ataques de oportunidad': sailing past an enemy with operated (not readied)
    weapons provokes nothing."""
    game = duel(red_at=(3, 8), blue_at=(9, 9), dice=[10, 10, 10, 10])
    act(game, crew={3: "operate@w1", 4: "operate@w0"})
    act(game, crew=[*SAIL3, "steer"])
    assert where(game) == ("blue_0", "MOVE")
    events = act(game, maneuver="ahead 6")                 # along red's starboard side, to (3, 9)
    assert of(events, Moved)[0].path[-1] == (3, 9)
    assert of(events, AttackRolled) == []


def _empty_the_starboard_ballista():
    """Red's starboard ballista, loaded with one bolt (``ammo: 1``), is readied and fires it at blue as blue sails
    into its arc (d20 10 + 5 = 15 against AC 15, 3d10 = 4 + 4 + 4)."""
    game = duel(blue_at=(8, 12), dice=[10, 10, 4, 4, 4], weapons={"ballista": {"ammo": 1}})
    act(game, crew={3: "ready@w1"})
    act(game, crew=["navigate@s0"])
    events = act(game, maneuver="ahead 2")
    [attack] = of(events, AttackRolled)
    assert (attack.weapon, attack.readied, attack.hit) == (1, True, True)
    assert damage_list(events) == [("blue_0", 12, "red_0", "ballista")]
    return game


def test_a_weapon_out_of_ammunition_can_be_neither_readied_nor_operated():
    """'Para Operar un arma o equipamiento, el personaje debe tener acceso a todos los materiales necesarios
    (munición)', and a readied action keeps 'todas las reglas habituales': the shot spends the last bolt (1 -> 0),
    and in round 2 neither Operate nor Ready is offered for that weapon (the other weapons still are)."""
    game = _empty_the_starboard_ballista()
    assert where(game) == ("red_0", "CREW") and game.round == 2
    ballista = game.state.ships["red_0"].weapons[1]
    assert ballista.ammo == 0
    for label in ("ready@w1", "operate@w1"):
        with pytest.raises(IllegalActionError, match=f"value \\d+ \\({label}\\) is not allowed"):
            act(game, crew={3: label})
    events = act(game, crew={3: "ready@w0"})
    assert of(events, StationManned) == [StationManned("red_0", 3, "ready weapon 0")]
    assert ballista.readied_by is None and ballista.ammo == 0


def test_a_readied_weapon_with_no_ammunition_loses_its_attack_and_never_goes_below_zero():
    """The same rule where the trigger comes: a weapon readied with no ammunition left fires nothing (the attack is
    lost, rolling no dice). Ready is refused for an empty weapon and a position refuses one readied, so the state
    is set here by hand; the engine still refuses to fire it, so ``ammo`` can never reach -1."""
    game = duel(blue_at=(8, 12), dice=[10])
    act(game, crew={3: "ready@w1"})
    ballista = game.state.ships["red_0"].weapons[1]
    ballista.ammo = 0
    act(game, crew=["navigate@s0"])                        # blue: 10 + 4 = 14, +20 ft
    events = act(game, maneuver="ahead 2")                 # into the readied ballista's arc, 40 ft away
    assert of(events, AttackRolled) == []
    assert of(events, AttackLost) == [AttackLost("red_0", 1, "the weapon has no ammunition")]
    assert (ballista.ammo, ballista.readied_by) == (0, None)
    assert [roll.values for roll in game.dice.history] == [(10,)]   # blue's Navigate only: no attack die
