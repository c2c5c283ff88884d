"""Damage: the crew near the struck spot, struck war machines, scuttled and destroyed ships, sinking, running
aground. Blows are dealt with ``hull.strike`` (what every war machine hit, mishap and grounding uses)."""

from __future__ import annotations

import pytest

from naval_env.rulesets.pursuit import hull
from naval_env.rulesets.pursuit.events import (
    CrewCasualties,
    Destroyed,
    MachineDamaged,
    Maneuvered,
    RanAground,
    RollMade,
    Sank,
    Scuttled,
)
from naval_env.rulesets.pursuit.state import Status
from naval_env.testing import allowed_labels, damage_list, script

from .helpers import act, make_game, of, ship, ships


def two_ships(red=None, blue=None, dice=(), **kw):
    return make_game([red or ship((0, 0))], [blue or ship((100, 0))], dice=dice, **kw)


def strike(game, agent, amount, source="blue_0"):
    events = []
    hull.strike(game.table, game.state.ships[agent], amount, source, "test", events)
    return events


@pytest.mark.parametrize("d6, crew, exposed", [(1, 20, [1]), (6, 20, [2]), (1, 10, [1]), (6, 4, []), (3, 40, [3])])
def test_five_to_ten_percent_of_the_crew_is_near_the_spot(d6, crew, exposed):
    """'assume that 5 to 10 percent of the crew is in the affected area': 1d6 + 4 percent, rounded half up
    (10% of 4 is nobody)."""
    game = two_ships(red=ship((0, 0), crew={"count": crew}), dice=[10, d6], classes={"hulk": {"crew": 40}})
    events = strike(game, "red_0", 4)
    assert [c.exposed for c in of(events, CrewCasualties)] == exposed


def test_crew_near_the_spot_agility_or_half_the_damage():
    """'any creature within 1 yard of the spot where the ship was struck must get a success on an Agility
    challenge roll or take half the damage.' 30 damage: 15 to a crew member who fails (Health 12: dies)."""
    game = two_ships(red=ship((0, 0), crew={"count": 20}), dice=[10, 6, 5, 15], classes={"hulk": {"crew": 20,
                                                                                                  "health": 101}})
    events = strike(game, "red_0", 30)
    assert [(c.exposed, c.killed) for c in of(events, CrewCasualties)] == [(2, 1)]
    assert ships(game)["red_0"].crew == 19


def test_a_blow_too_weak_to_kill_needs_no_crew_roll():
    """Crew members are not tracked one by one: half of 20 is below Health 12, so nobody dies and nobody rolls."""
    game = two_ships(dice=[10, 6], classes={"hulk": {"health": 101}})
    events = strike(game, "red_0", 20)
    assert [(c.exposed, c.killed) for c in of(events, CrewCasualties)] == [(1, 0)]
    assert game.dice.remaining == 0


def test_the_machine_on_the_struck_spot_takes_the_blow():
    """Where the shot strikes is a d<deck spots> roll; war machine i stands on spot i + 1."""
    game = two_ships(red=ship((0, 0), machines=["cannon", "ballista"]), dice=[2, 1],
                     classes={"hulk": {"health": 101}})
    events = strike(game, "red_0", 11)
    assert [(e.machine, e.amount, e.destroyed) for e in of(events, MachineDamaged)] == [(1, 11, False)]
    assert ships(game)["red_0"].machines[1].damaged          # 11 of 20: half its Health


def test_scuttled_at_half_health_halves_speed_and_adds_two_banes():
    """'A ship becomes scuttled when its damage total equals half its Health. A scuttled ship has its Speed halved
    and adds 2 banes to its seaworthiness and its maneuverability. If it is not repaired, the ship will sink in
    1d6 + 3 days.'"""
    game = two_ships(dice=[10, 1, 4])                        # 20 of 40: spot, crew, then 1d6 = 4 days
    events = strike(game, "red_0", 20)
    assert [(e.ship, e.sinks_in_days) for e in of(events, Scuttled)] == [("red_0", 7)]
    act(game, propulsion="row")
    script(game, 14, 3, 2)                                   # pursue: 14 + 0 - 3 (two banes: highest of 3, 2)
    events = act(game, maneuver="pursue@enemy0")
    roll = of(events, RollMade)[0]
    assert (roll.boons, roll.total, roll.result) == (-2, 11, "success")
    assert of(events, Maneuvered)[0].speed == 5              # 10 halved


def test_destroyed_ship_sinks_after_size_minutes_on_a_successful_intellect_challenge():
    """'If a ship's damage total equals its Health ... the ship begins to sink. The pilot or captain must make an
    Intellect challenge roll, applying boons or banes from the ship's seaworthiness to the roll. On a success, the
    ship sinks at the end of a number of minutes equal to its Size.' Seaworthiness +1 and the scuttled 2 banes:
    1 bane net."""
    game = two_ships(red=ship((0, 0), intellect=12), dice=[10, 1, 15, 4, 12, 2],   # the crew member near: 15
                     classes={"hulk": {"seaworthiness": 1}})
    events = strike(game, "red_0", 40)
    roll = of(events, RollMade)[0]
    assert (roll.roll, roll.boons, roll.total, roll.result) == ("keep afloat", -1, 12, "success")
    assert [(e.ship, e.minutes) for e in of(events, Destroyed)] == [("red_0", 4)]
    assert ships(game)["red_0"].status is Status.SINKING


def test_destroyed_ship_sinks_at_once_on_a_failure_and_the_crew_may_be_dragged_under():
    """'On a failure, the ship sinks immediately.' 'Any creature on the ship when it sinks must get a success on
    an Agility challenge roll with 2 banes or be dragged under' (3 crew: one escapes)."""
    game = two_ships(red=ship((0, 0), crew={"count": 3}), dice=[10, 1, 4, 3, 1, 1,    # keep afloat: 3 - 1: failure
                                                                  15, 2, 1, 9, 1, 1, 5, 6, 6])
    events = strike(game, "red_0", 40)
    assert [(e.ship, e.minutes) for e in of(events, Destroyed)] == [("red_0", 0)]
    assert [(e.crew_aboard, e.dragged_under) for e in of(events, Sank)] == [(3, 2)]
    assert ships(game)["red_0"].status is Status.SUNK and ships(game)["red_0"].crew == 1


def test_damage_never_exceeds_the_health_left():
    game = two_ships(dice=[10, 1, 15, 4, 20, 1, 1])
    events = strike(game, "red_0", 75)
    assert damage_list(events) == [("red_0", 40, "blue_0", "test")]


def test_sinking_ship_debris_each_minute_then_it_goes_down():
    """'At the end of each minute while a ship is sinking, each creature on the ship must make an Agility challenge
    roll, applying boons or banes from seaworthiness to the roll. On a failure, the creature takes 1d6 damage from
    sliding debris.' It sinks at the end of its Size (here 2) minutes. Red's second ship is hit during red_0's
    turn; red_0 fights on, so the battle goes on. Crew of 2 with Health 4; seaworthiness 0 and the scuttled 2
    banes."""
    red = [ship((0, 0)), ship((0, 50), "cog", crew={"count": 2, "health": 4})]
    game = make_game(red, [ship((100, 0))], classes={"cog": {"size": 2, "crew": 2, "rowers": 1, "sail_crew": 1}},
                     dice=[10, 1, 4, 20, 1, 1])
    events = strike(game, "red_1", 40)                      # sinking, 2 minutes to go
    assert [(e.ship, e.minutes) for e in of(events, Destroyed)] == [("red_1", 2)]
    act(game)                                               # red_0; red_1 has no more turns
    assert game.current_agent == "blue_0"
    script(game, 15, 1, 1, 3, 1, 1, 5)                      # end of round 1: one keeps its footing (14), the
    events = act(game)                                      # other falls (2) and takes 5: dies
    assert [(c.cause, c.exposed, c.killed) for c in of(events, CrewCasualties)] == [("sliding debris", 2, 1)]
    act(game)
    script(game, 15, 1, 1,                                  # end of round 2: debris for the last one
           20, 6, 6)                                        # it sinks: the survivor escapes the wreck (14)
    events = act(game)
    assert [(e.crew_aboard, e.dragged_under) for e in of(events, Sank)] == [(1, 0)]
    assert ships(game)["red_1"].status is Status.SUNK


def test_running_aground_in_shallows_3d6_and_no_more_sailing_or_rowing():
    """'A ship is at risk of running aground if it moves into water of a depth less than the ship's draft ...
    When a ship goes to ground for a reason beyond the control of its pilot or captain, the ship takes 3d6
    damage and cannot be sailed or rowed until it is moved back into deeper waters.' Draft 2, a shoal 1 yard
    deep whose edge is 4 yards ahead."""
    shoal = {"center": [14, 0], "radius": 10, "depth": 1}
    game = two_ships(shoals=[shoal], dice=[10, 2, 3, 4, 10, 1])
    act(game, propulsion="row")
    events = act(game, maneuver="pursue@enemy0")
    assert [(e.at, e.rocks) for e in of(events, RanAground)] == [((4.0, 0.0), False)]
    assert damage_list(events) == [("red_0", 9, None, "aground")]
    while game.current_agent == "blue_0":
        act(game)
    assert allowed_labels(game, "propulsion") == ["none"]
    act(game)
    assert game.current_agent == "blue_0"                   # no maneuver: it cannot move


def test_deep_enough_water_is_no_hazard():
    shoal = {"center": [14, 0], "radius": 10, "depth": 2}   # as deep as the draft
    game = two_ships(shoals=[shoal], dice=[10])
    act(game, propulsion="row")
    events = act(game, maneuver="pursue@enemy0")
    assert not of(events, RanAground) and ships(game)["red_0"].x == 10.0


def test_aground_on_rocks_1d6_each_hour():
    """'If a ship runs aground on rocks or a coral reef, the ship takes 1d6 damage each hour it remains there until
    it sinks.' One hour = 2 rounds here."""
    shoal = {"center": [14, 0], "radius": 10, "depth": 1, "rocks": True}
    game = two_ships(shoals=[shoal], dice=[10, 1, 1, 1, 10, 1], house_rules={"rounds_per_hour": 2})
    act(game, propulsion="row")
    act(game, maneuver="pursue@enemy0")                     # aground: 3 damage
    script(game, 6, 10, 1)                                  # end of round 2: 1d6 = 6 (then spot and crew)
    events = []
    while game.state.round < 3:
        events += act(game)
    assert [d for d in damage_list(events) if d[3] == "rocks"] == [("red_0", 6, None, "rocks")]
    assert ships(game)["red_0"].aground_rounds == 2
