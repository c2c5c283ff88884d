"""Crew Actions (document: Crew Actions).

Red: trireme (PC capacity 3, damage 3, attack pool 9) at (2, 5); blue: trireme (defense pool 8) at (5, 5).
"""

from __future__ import annotations

import pytest

from naval_env.rulesets.pantheon.events import CrewActed, Healed, StatusChanged
from naval_env.rulesets.pantheon.events import TestThrown as Thrown
from naval_env.rulesets.pantheon.state import Status
from naval_env.testing import allowed, damage_list, script

from .helpers import act, make_game, of, ship


def red_first(dice=(), red_vessel="trireme", blue_at=(5, 5), **red_kw):
    game = make_game([ship(red_vessel, (2, 5), "E", wits=4, **red_kw)], [ship("trireme", blue_at, "W", wits=0)],
                     dice=dice)
    assert game.current_agent == "red_0"
    return game


def blue_first(dice=(), **red_kw):
    game = make_game([ship("trireme", (2, 5), "E", wits=4, **red_kw)], [ship("trireme", (5, 5), "W", wits=6)],
                     dice=dice)
    assert game.current_agent == "blue_0"
    return game


def red_fires(game, crew=(), **kw):
    act(game, maneuver="hold")
    return act(game, attack="fire@enemy0", crew=list(crew), **kw)


# ------------------------------------------------------------------- buffs
def test_attack_buff_adds_two_to_the_pool_and_buffs_stack():
    """'Attack +2 (Choice of Ramming, Ranged, Boarding ...)'; 'multiple players may stack their buffs'."""
    game = red_first(dice=[1, 1])
    events = red_fires(game, crew=["attack+fire"])
    assert of(events, CrewActed) == [CrewActed("red_0", ("attack+fire",))]
    assert of(events, Thrown)[0].attack_pool == 11
    game = red_first(dice=[1, 1])
    events = red_fires(game, crew=["attack+fire", "attack+fire", "attack+ram"])
    assert of(events, Thrown)[0].attack_pool == 13        # the Ramming one does not apply to Fire!


def test_damage_buff_adds_one_to_the_damage_rating_of_its_attack():
    """'Damage +1 (Choice of Ramming, Ranged, Boarding ...)'."""
    game = red_first(dice=[3, 3])
    events = red_fires(game, crew=["damage+fire", "damage+ram"])
    assert damage_list(events) == [("blue_0", 4, "red_0", "fire")]
    game = red_first(dice=[5, 1])                         # exceptional: rating 4 plus one level
    events = red_fires(game, crew=["damage+fire"])
    assert damage_list(events) == [("blue_0", 5, "red_0", "fire")]


def test_damage_buff_for_ramming_doubles_with_the_ram():
    game = red_first(dice=[3, 3], blue_at=(6, 5))
    act(game, maneuver="ahead 3")
    events = act(game, attack="ram@enemy0", crew=["damage+ram"])
    assert damage_list(events) == [("blue_0", 8, "red_0", "ram"), ("red_0", 3, "blue_0", "ram recoil")]


def test_damage_buff_for_boarding_raises_the_automatic_exchange():
    game = red_first(dice=[3, 3], blue_at=(3, 5))
    act(game, maneuver="hold")
    act(game, attack="board@enemy0")
    act(game, attack="none")                              # blue, boarded
    act(game, turn_order="proceed")
    events = act(game, attack="none", crew=["damage+board"])
    assert damage_list(events) == [("blue_0", 4, "red_0", "boarding melee"), ("red_0", 3, "blue_0", "boarding melee")]


def test_dodge_buff_lasts_until_the_captains_next_attack_step():
    """'These Crew Actions give passive buffs to the captain's tests and last once chosen until the beginning of
    that captain's next attack step.'"""
    game = blue_first(dice=[1, 1])
    act(game, maneuver="hold")
    act(game, attack="none", crew=["dodge+fire", "dodge+ram"])
    events = red_fires(game)
    assert of(events, Thrown)[0].defense_pool == 8 + 2
    act(game, maneuver="hold")
    act(game, attack="none")                              # blue's next attack step: no crew action now
    assert game.state.ships["blue_0"].buffs == ()
    script(game, 1, 1)
    events = red_fires(game)
    assert of(events, Thrown)[0].defense_pool == 8


def test_exceptional_scope_attack_makes_exceptional_two_easier():
    """'+2 to Exceptional': with Attack (+2 to Exceptional) a margin of 3 is exceptional."""
    game = red_first(dice=[3, 1])                         # 12 vs 9
    events = red_fires(game, crew=["attack+exceptional"])
    [t] = of(events, Thrown)
    assert (t.attack_pool, t.result) == (9, "exceptional")
    assert damage_list(events) == [("blue_0", 4, "red_0", "fire")]
    game = red_first(dice=[3, 1])
    assert of(red_fires(game), Thrown)[0].result == "success"


def test_exceptional_scope_dodge_makes_exceptional_two_harder():
    game = blue_first(dice=[5, 1])                        # red 14 vs 9: margin 5
    act(game, maneuver="hold")
    act(game, attack="none", crew=["dodge+exceptional"])
    events = red_fires(game)
    [t] = of(events, Thrown)
    assert (t.defense_pool, t.result) == (8, "success")
    assert damage_list(events) == [("blue_0", 3, "red_0", "fire")]


def test_exceptional_scope_damage_adds_two_damage_on_an_exceptional_success_only():
    game = red_first(dice=[5, 1])
    events = red_fires(game, crew=["damage+exceptional"])
    assert damage_list(events) == [("blue_0", 3 + 1 + 2, "red_0", "fire")]
    game = red_first(dice=[3, 3])
    events = red_fires(game, crew=["damage+exceptional"])
    assert damage_list(events) == [("blue_0", 3, "red_0", "fire")]


# ------------------------------------------------------------- PC capacity
@pytest.mark.parametrize("vessel, crew, slots", [
    ("hemiolia", None, 1), ("bireme", None, 2), ("trireme", None, 3), ("quinquereme", None, 4),
    ("trireme", 1, 1), ("trireme", 0, 0), ("hemiolia", 4, 1),
])
def test_crew_actions_up_to_the_pc_capacity(vessel, crew, slots):
    """'A captain may benefit from a number of Crew Actions equal to the PC Capacity of their ship.'
    'Each player may only choose one': one crew component per PC aboard."""
    extra = {} if crew is None else {"crew": crew}
    game = red_first(red_vessel=vessel, **extra)
    act(game, maneuver="hold")
    for slot in range(4):
        assert allowed(game, f"crew_{slot}", "attack+fire") is (slot < slots)


# ------------------------------------------------------------------- Repair
def test_repair_restores_twice_the_shipwrights_crafts():
    """'Repair (Requires Crafts: Shipwright. Restores an amount of health equal to twice their Crafts rating.'"""
    game = red_first(shipwright=2)
    game.state.ships["red_0"].health = 6
    act(game, maneuver="hold")
    events = act(game, attack="none", crew=["repair"])
    assert of(events, Healed) == [Healed("red_0", 4, "crew repair")]
    assert game.state.ships["red_0"].health == 10


def test_repair_never_exceeds_the_maximum_health():
    game = red_first(shipwright=3)
    game.state.ships["red_0"].health = 10
    act(game, maneuver="hold")
    events = act(game, attack="none", crew=["repair"])
    assert of(events, Healed) == [Healed("red_0", 2, "crew repair")]
    assert game.state.ships["red_0"].health == 12


def test_repair_needs_a_shipwright():
    game = red_first(shipwright=0)
    act(game, maneuver="hold")
    assert not allowed(game, "crew_0", "repair")
    assert allowed(game, "crew_0", "damage+fire")


def test_repair_only_once_per_combat():
    """'Can only be used once per naval combat.'"""
    game = red_first(shipwright=1)
    game.state.ships["red_0"].health = 5
    act(game, maneuver="hold")
    assert allowed(game, "crew_0", "repair") and not allowed(game, "crew_1", "repair")
    act(game, attack="none", crew=["repair"])
    assert game.state.ships["red_0"].health == 7
    act(game, maneuver="hold")
    act(game, attack="none")
    act(game, maneuver="hold")                            # red, round 2
    assert not allowed(game, "crew_0", "repair")
    assert game.state.ships["red_0"].crew_repair_used is True


def test_crew_repair_can_lift_wrecked():
    game = blue_first(dice=[3, 3], shipwright=3)
    game.state.ships["red_0"].health = 3
    act(game, maneuver="hold")
    act(game, attack="fire@enemy0")                       # blue 9+3 vs red 8+3: 3 damage, red wrecked
    assert game.state.ships["red_0"].status is Status.WRECKED
    assert game.state.ships["red_0"].health == -5          # 0, then 5 at the start of its turn
    events = act(game, attack="none", crew=["repair"])
    assert of(events, Healed) == [Healed("red_0", 6, "crew repair")]
    assert StatusChanged("red_0", "afloat") in events
    assert game.state.ships["red_0"].status is Status.AFLOAT and game.state.ships["red_0"].health == 1
