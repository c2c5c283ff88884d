"""Collisions (document: "Esto ocurrirá cuando un barco se mueva directamente a la posición de otro. Ambos
capitanes harán un tiro y en caso de éxito ambos barcos chocarán ...") and the ram trait.

Red brig (steering 2d6, movement 3) on (3, 7)-(2, 7) facing E; blue brig on (6, 7)-(6, 8) facing N.
Initiative [6, 1] red, [1, 1] blue: red moves first.
"""

from __future__ import annotations

import pytest

from naval_env.rulesets.flotilla.events import Held, HitLocation, Moved, Rammed
from naval_env.rulesets.flotilla.state import Phase
from naval_env.testing import allowed, damage_list, script

from .helpers import act, contests, make_game, of, ship, ships

RED_FIRST = [6, 1, 1, 1]


def ram_game(blue_at=(6, 7), blue_facing="N", dice=(), red_kw=None, blue_kw=None, **kw):
    game = make_game([ship("brig", (3, 7), "E", **(red_kw or {}))], [ship("brig", blue_at, blue_facing, **(blue_kw or {}))],
                     dice=[*RED_FIRST, *dice], **kw)
    assert game.current_agent == "red_0"
    return game


@pytest.mark.parametrize("blue_at, blue_facing, legal", [
    ((6, 7), "N", True),     # dead ahead, three squares: within the move
    ((4, 7), "N", True),     # already touching the bow
    ((7, 7), "N", False),    # four squares: beyond the move
    ((6, 8), "N", False),    # not on the bow line
    ((7, 7), "E", True),     # its stern square (6, 7) is within reach: any square of the ship will do
])
def test_a_ram_needs_the_enemy_straight_ahead_within_the_move(blue_at, blue_facing, legal):
    """'cuando un barco se mueva directamente a la posición de otro'"""
    assert allowed(ram_game(blue_at, blue_facing), "maneuver", "ram@enemy0") is legal


def test_a_ship_in_the_way_blocks_the_ram():
    game = make_game([ship("brig", (3, 7), "E"), ship("cutter", (4, 7), "S")], [ship("brig", (6, 7), "N")],
                     dice=[6, 1, 1, 1, 3, 1])
    assert game.current_agent == "red_0"
    assert not allowed(game, "maneuver", "ram@enemy0")


def test_a_successful_ram_costs_the_target_two_and_the_rammer_one_and_neither_moves_again():
    """'... provocando que el barco atacado reduzca su cohesión por 2 además que el atacante reducirá su
    cohesión por 1. Una vez realizado el choque ninguno de los dos será capaz de moverse.'"""
    game = ram_game(dice=[5, 1, 3, 3, 6, 7])
    events = act(game, maneuver="ram@enemy0")
    assert of(events, Moved)[0] == Moved("red_0", "ram", ((3, 7), (4, 7), (5, 7)), 2, 2)
    assert contests(events) == [("ram", (5, 1), (3, 3), "won")]
    assert of(events, Rammed) == [Rammed("red_0", "blue_0", True)]
    assert damage_list(events) == [("blue_0", 2, "red_0", "collision"), ("red_0", 1, "blue_0", "collision")]
    assert of(events, HitLocation) == [HitLocation("blue_0", 6, "hull"), HitLocation("red_0", 7, "hull")]
    # blue had not moved yet: it loses this round's movement; red loses next round's.
    assert of(events, Held) == [Held("blue_0", "stuck after a collision")]
    assert game.state.phase is Phase.ATTACK
    act(game, target="hold")
    script(game, 2, 1, 1, 1)
    events = act(game, target="hold")                                     # round 2
    assert of(events, Held) == [Held("red_0", "stuck after a collision")]
    assert game.current_agent == "blue_0" and game.state.phase is Phase.MOVE


def test_a_failed_ram_ends_alongside_the_target():
    """'un barco que fracase en su maniobra de choque se moverá a una posición adyacente al barco con el que
    intentó chocar.'"""
    game = ram_game(dice=[3, 3, 5, 1])
    events = act(game, maneuver="ram@enemy0")
    assert of(events, Rammed) == [Rammed("red_0", "blue_0", False)]
    assert damage_list(events) == []
    assert ships(game)["red_0"].squares == ((5, 7), (4, 7))
    assert game.current_agent == "blue_0" and not ships(game)["blue_0"].stuck


def test_a_ram_trait_deals_the_difference_and_spares_the_rammer():
    """'provocará daño igual a la diferencia del tiro entre ambos en lugar de un valor fijo además que no
    sufrirá daño obligatorio por realizar embestidas.'"""
    game = ram_game(dice=[6, 1, 2, 2, 5], red_kw={"upgrades": {"ram": 1}})
    events = act(game, maneuver="ram@enemy0")
    assert damage_list(events) == [("blue_0", 4, "red_0", "collision")]
    assert ships(game)["red_0"].cohesion == 4


def test_armour_reduces_the_collision():
    """Armour: 'Reduce toda la pérdida de cohesión que reciba por 1 hasta un mínimo de 1.'"""
    game = ram_game(dice=[5, 1, 3, 3, 6, 7], blue_kw={"upgrades": {"armour": 1}},
                    red_kw={"upgrades": {"armour": 1}})
    events = act(game, maneuver="ram@enemy0")
    assert damage_list(events) == [("blue_0", 1, "red_0", "collision"), ("red_0", 1, "blue_0", "collision")]
