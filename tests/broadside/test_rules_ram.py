"""Ramming (document: Ramming). The rammer is a galley heading east at Ramming Speed (12 inches: three legs of 4),
its bow at x = 13.5. Ram dice are rolled at once, then one re-roll for every 6, in order ('open-ended')."""

from __future__ import annotations

import pytest

from naval_env.rulesets.broadside.events import (
    Collided,
    Grappled,
    Moved,
    MovementForfeited,
    Rammed,
    ShipLost,
)
from naval_env.rulesets.broadside.state import Phase
from naval_env.testing import damage_list

from .helpers import act, decision, make_game, of, pass_until, pose, ship

approx = pytest.approx
GALLEY = [ship("galley", (10, 20), 90)]


def ram(blue, dice, rammer=GALLEY, **choices):
    game = make_game(rammer, blue, dice=dice)
    return game, act(game, **({"speed": "ramming"} | choices))


def test_full_ram_square_on_the_broadside_rolls_5d6_open_ended():
    """'A full ram occurs when the angle of incidence to the bow is greater than 45° ... roll a 5d6 ...
    on each and every roll of a '6' on Damage, the attacker may reroll the die and add it'."""
    game, events = ram([ship("sailing_ship", (20, 20), 0)], dice=[3, 4, 6, 2, 1, 5])
    [hit] = of(events, Collided)
    assert hit.leg == 1                                        # 5.5 inches: on the second leg
    assert of(events, Rammed) == [Rammed("red_0", "blue_0", True, 90.0, "port")]
    assert damage_list(events) == [("blue_0", 21, "red_0", "full ram")]
    assert game.state.ships["blue_0"].hull == 36 - 21
    assert game.state.ships["red_0"].hull == 30                 # the rammer takes nothing


def test_open_ended_rerolls_chain_on_every_six():
    _game, events = ram([ship("sailing_ship", (20, 20), 0)], dice=[6, 1, 1, 1, 1, 6, 6, 2])
    assert damage_list(events) == [("blue_0", 6 + 4 + 6 + 6 + 2, "red_0", "full ram")]


def test_both_ships_stop_dead_and_a_full_ram_grapples():
    """'On a successful ram, both ships come to a dead stop and all movement for both ships is ended for the
    remainder of the term.' 'In the event of a full ram, the ship is grappled.'"""
    game, events = ram([ship("sailing_ship", (20, 20), 0)], dice=[1, 1, 1, 1, 1])
    assert pose(game, "red_0") == approx((15.5, 20, 90))       # stopped at the impact, 6 inches short
    assert of(events, MovementForfeited) == [MovementForfeited("blue_0")]
    assert of(events, Grappled) == [Grappled("red_0", "blue_0", "full ram")]
    assert decision(game) == ("red_0", "COLLISION_BOARD")      # the grapple lets it board unopposed at once


def test_no_ram_on_the_first_leg():
    """'A vessel may not ram on the first leg of its movement': it is a collision."""
    _game, events = ram([ship("sailing_ship", (16, 20), 0)], dice=[1, 2])
    assert [e.leg for e in of(events, Collided)] == [0]
    assert not of(events, Rammed)
    assert damage_list(events) == [("red_0", 1, "blue_0", "collision"), ("blue_0", 2, "red_0", "collision")]


def test_no_ram_after_a_turn_between_the_first_and_second_legs():
    """'A vessel may not execute a turn between its first and second legs prior to a ram.'"""
    _game, events = ram([ship("sailing_ship", (20, 21), 0)], dice=[1, 1, 1], turn_1="port 15")
    [hit] = of(events, Collided)
    assert hit.leg == 1 and not of(events, Rammed)


def test_a_turn_between_the_second_and_third_legs_still_rams():
    _game, events = ram([ship("sailing_ship", (25, 21), 0)], dice=[1, 1, 1, 1, 1], turn_2="starboard 15")
    [hit] = of(events, Collided)
    assert hit.leg == 2
    assert of(events, Rammed) == [Rammed("red_0", "blue_0", True, 75.0, "port")]


@pytest.mark.parametrize("vessel, dice, damage", [
    ("galley", [1, 2, 3, 4, 5], 15),
    ("ironclad", [1, 2, 3, 4, 5], 15),
    ("sharkboat", [2, 2, 6, 3], 13),        # 'Sharkboats do 3d6 of Damage': 2 + 2 + 6, re-roll 3
])
def test_galleys_ironclads_and_sharkboats_ram(vessel, dice, damage):
    _game, events = ram([ship("sailing_ship", (20, 20), 0)], dice=dice, rammer=[ship(vessel, (10, 20), 90)])
    [rammed] = of(events, Rammed)
    assert rammed.full
    assert damage_list(events) == [("blue_0", damage, "red_0", "full ram")]


@pytest.mark.parametrize("vessel", ["sailing_ship", "longboat"])
def test_sailing_vessels_and_longboats_may_not_ram(vessel):
    game = make_game([ship(vessel, (10, 20), 90)], [ship("sailing_ship", (18, 20), 0)], dice=[1, 1])
    events = act(game, speed="battle")
    assert of(events, Collided) and not of(events, Rammed)


@pytest.mark.parametrize("keel, full, incidence", [(44, True, 46), (46, False, 44), (134, False, 44), (136, True, 46)])
def test_full_above_45_degrees_of_incidence_glancing_at_44_or_less(keel, full, incidence):
    """'A full ram occurs when the angle of incidence to the bow is greater than 45°' / 'A glancing ram occurs when
    the angle of incidence to the bow is 44° or less.'"""
    _game, events = ram([ship("galley", (21, 20), keel)], dice=[1, 1, 1, 1, 1])
    [rammed] = of(events, Rammed)
    assert (rammed.full, rammed.incidence) == (full, approx(incidence))


def test_every_ram_to_the_stern_is_full():
    """'(All rams to the stern are full rams.)' - even straight up the stern at 0 degrees."""
    _game, events = ram([ship("sailing_ship", (24, 20), 90)], dice=[1, 1, 1, 1, 1])
    assert of(events, Rammed) == [Rammed("red_0", "blue_0", True, 0.0, "stern")]
    assert damage_list(events) == [("blue_0", 5, "red_0", "full ram")]


@pytest.mark.parametrize("dice, damage", [([4], 4), ([6, 2], 8)])
def test_glancing_ram_on_a_galleys_bow_is_d6_open_ended(dice, damage):
    """'All rams to the bow of a galley or ironclad inflict d6 of damage ... reroll maximums on attacker.'"""
    game, events = ram([ship("galley", (24.5, 20), 270)], dice=dice)    # bow to bow
    assert of(events, Rammed) == [Rammed("red_0", "blue_0", False, 0.0, "bow")]
    assert damage_list(events) == [("blue_0", damage, "red_0", "glancing ram")]
    assert not of(events, Grappled)
    assert pose(game, "red_0") == approx((17.5, 20, 90))


def test_glancing_ram_on_an_ironclads_bow_is_d6():
    _game, events = ram([ship("ironclad", (23.5, 20), 270)], dice=[5])
    assert damage_list(events) == [("blue_0", 5, "red_0", "glancing ram")]


def test_glancing_ram_on_a_sailing_ships_bow_is_half_damage():
    """'All rams to the bow of a sailing vessel inflict one-half normal damage.'"""
    _game, events = ram([ship("sailing_ship", (24, 20), 270)], dice=[2, 3, 4, 5, 1])
    assert damage_list(events) == [("blue_0", 15 // 2, "red_0", "glancing ram")]


def test_full_ram_that_sinks_slows_the_rammer_three_inches_and_it_goes_on():
    """'If a full ram destroys an enemy vessel the attacker's movement is slowed by 3 inches'."""
    blue = [ship("sailing_ship", (20, 20), 0), ship("galley", (40, 8), 270)]
    game = make_game(GALLEY, blue, dice=[3, 4, 6, 2, 1, 5])
    game.state.ships["blue_0"].hull = 10
    events = act(game, speed="ramming")
    assert of(events, ShipLost) == [ShipLost("blue_0", "sunk", None)]
    assert damage_list(events) == [("blue_0", 10, "red_0", "full ram")]
    # 12 inches less the 3: from the bow at 13.5 to 22.5 in all.
    assert pose(game, "red_0") == approx((19.0, 20, 90))
    assert [m.distance for m in of(events, Moved)] == approx([5.5, 3.5])


def test_one_ram_a_turn_the_next_contact_is_a_collision():
    blue = [ship("sailing_ship", (20, 20), 0), ship("sailing_ship", (23, 20), 0)]
    game = make_game(GALLEY, blue, dice=[1, 1, 1, 4, 5, 2, 3])
    game.state.ships["blue_0"].hull = 10
    events = act(game, speed="ramming")      # sinks blue_0, goes on 3.5 inches and meets blue_1 3 inches on
    assert [(c.struck, c.leg) for c in of(events, Collided)] == [("blue_0", 1), ("blue_1", 2)]
    assert len(of(events, Rammed)) == 1
    assert damage_list(events)[1:] == [("red_0", 2, "blue_1", "collision"), ("blue_1", 3, "red_0", "collision")]


def test_friends_are_never_rammed():
    game = make_game([*GALLEY, ship("sailing_ship", (20, 20), 0)], [ship("galley", (40, 8), 270)], dice=[1, 1])
    events = act(game, speed="ramming")
    assert of(events, Collided) and not of(events, Rammed)


def test_struck_ship_forfeits_only_if_it_has_not_moved():
    game = make_game([ship("galley", (30, 20), 270)], [ship("sailing_ship", (20, 20), 0)], dice=[1, 1, 1, 1, 1])
    pass_until(game, "blue_0", Phase.MANEUVER)   # red holds (and holds its archers)
    act(game)                                    # blue holds
    pass_until(game, "red_0", Phase.MANEUVER)    # round 2: blue moved first (it held again)
    assert game.state.round == 2 and game.state.ships["blue_0"].activated
    events = act(game, speed="ramming")          # red rams a ship that already moved: nothing to forfeit
    assert of(events, Rammed) and not of(events, MovementForfeited)
    assert game.state.phase is Phase.COLLISION_BOARD
