"""Oars, sails, the wind table, the current, changing propulsion, forced rowing, inspiring, rowing endurance.

Red starts at (0, 0), blue 100 yards east at (100, 0); a straight pursuit of blue
heads east. Captains have Intellect 10, so a maneuver roll of 10 is a success.
"""

from __future__ import annotations

import pytest

from naval_env.rulesets.pursuit.events import (
    BoostEnded,
    CrewTired,
    Maneuvered,
    PropulsionChanged,
    RollMade,
    SpeedBoost,
)
from naval_env.rulesets.pursuit.geometry import unit
from naval_env.rulesets.pursuit.propulsion import speed_along
from naval_env.rulesets.pursuit.state import Drive
from naval_env.testing import allowed, allowed_labels, script

from .helpers import act, make_game, of, ship, ships


def duel(red=None, blue=None, dice=(), **kw):
    game = make_game([red or ship((0, 0))], [blue or ship((100, 0))], dice=dice, **kw)
    assert game.current_agent == "red_0" and game.state.phase.name == "COMMAND"
    return game


def moved(events) -> tuple[int, float]:
    m = of(events, Maneuvered)[0]
    return m.speed, round(m.distance, 6)


def end_round(game) -> None:
    """Blue does nothing for the rest of the round."""
    while game.current_agent == "blue_0":
        act(game)


def test_rowed_ship_moves_at_its_oar_speed():
    """'Ships that list oars in their Speed entries can move at the indicated Speed by being rowed.'"""
    game = duel(dice=[10])
    act(game, propulsion="row")
    events = act(game, maneuver="pursue@enemy0")
    assert moved(events) == (10, 10.0)
    assert (ships(game)["red_0"].x, ships(game)["red_0"].y) == (10.0, 0.0)


def test_a_ship_nobody_rows_makes_no_way_and_has_no_maneuver():
    """Rowing takes the crew's actions each round; without them the ship cannot move (its maneuvers are masked
    and the engine plays its hold)."""
    game = duel()
    act(game)                                   # propulsion none
    assert game.current_agent == "blue_0"       # MANEUVER (hold only) and GUNS (no machines) were skipped
    assert ships(game)["red_0"].x == 0.0


def test_fewer_rowers_than_needed_row_slower():
    """Larger vessels need each member of the crew at the oars: 6 of 8 rowers give 10 x 6 // 8 = 7."""
    game = duel(red=ship((0, 0), crew={"count": 6}), dice=[10])
    act(game, propulsion="row")
    assert moved(act(game, maneuver="pursue@enemy0")) == (7, 7.0)


@pytest.mark.parametrize("toward, speed", [("E", 15), ("W", 5), ("N", 10)])
def test_fast_current_speeds_rowing_by_half_or_halves_it(toward, speed):
    """'Rowing with a fast-flowing current can increase a ship's maximum Speed by half, while rowing against the
    current might reduce or even halve the ship's maximum Speed' (we halve it)."""
    game = duel(dice=[10], current={"toward": toward, "fast": True})
    act(game, propulsion="row")
    assert moved(act(game, maneuver="pursue@enemy0"))[0] == speed


def test_slow_current_changes_nothing():
    game = duel(dice=[10], current={"toward": "E", "fast": False})
    act(game, propulsion="row")
    assert moved(act(game, maneuver="pursue@enemy0"))[0] == 10


@pytest.mark.parametrize("toward, speed", [("W", 3), ("N", 12), ("E", 15)])
def test_galleon_example_against_across_with_a_moderate_wind(toward, speed):
    """'a galleon has Speed 9. If it sails against a moderate wind, its Speed is 3. If it sails with a moderate
    wind, its Speed becomes 15. If it sails across a moderate wind, its Speed is 12.'"""
    red = ship((0, 0), "galleon", propulsion="sails")
    game = duel(red=red, dice=[15, 1], wind=("moderate", toward))     # galleon: 1 bane of maneuverability
    act(game, propulsion="tend_sails")
    assert moved(act(game, maneuver="pursue@enemy0")) == (speed, float(speed))


@pytest.mark.parametrize("strength, against, across, with_", [
    ("light", 3, 9, 12), ("moderate", 3, 12, 15), ("strong", 0, 15, 18), ("gale", 0, 9, 15), ("calm", 0, 0, 0),
])
def test_sailing_speed_by_wind_table(strength, against, across, with_):
    """The assumed table (config ``wind_table``), for the galleon's Speed 9; Speed never goes below 0."""
    game = duel(red=ship((0, 0), "galleon", propulsion="sails"), wind=(strength, "E"))
    galleon = ships(game)["red_0"]
    got = [speed_along(game.table, galleon, *unit(d), Drive.SAILED) for d in (180.0, 90.0, 0.0)]
    assert got == [against, across, with_]


def test_wind_relation_uses_45_degree_arcs():
    """Within 45 degrees of downwind is 'with', of upwind 'against', between them 'across'."""
    game = duel(red=ship((0, 0), "galleon", propulsion="sails"), wind=("moderate", "E"))
    galleon = ships(game)["red_0"]
    assert [speed_along(game.table, galleon, *unit(d), Drive.SAILED) for d in (44.0, 46.0, 134.0, 136.0)] == \
        [15, 12, 12, 3]


def test_sails_need_tending_every_round():
    """'Controlling a sailing vessel requires ... the crew to use an action ... each round to tend to the vessel.'"""
    game = duel(red=ship((0, 0), propulsion="sails"), dice=[10])
    assert allowed(game, "propulsion", "tend_sails") and not allowed(game, "propulsion", "row")
    act(game)                                   # not tended: no way
    assert game.current_agent == "blue_0"
    end_round(game)
    act(game, propulsion="tend_sails")
    assert moved(act(game, maneuver="pursue@enemy0")) == (11, 11.0)   # 8 + 3 across a moderate wind


def test_zero_speed_under_sail_only_rowing_moves_the_ship():
    """'If a modifier would reduce the ship's Speed to 0, the ship can move only if it is rowed': straight into a
    strong wind the sails give 0, so that heading is masked; bearing off across it is not."""
    game = duel(red=ship((0, 0), propulsion="sails"), wind=("strong", "W"))
    act(game, propulsion="tend_sails")
    labels = allowed_labels(game, "maneuver")
    assert "pursue@enemy0" not in labels and "ram@enemy0" not in labels
    assert "pursue_port@enemy0" in labels and "flee@enemy0" in labels


def test_oars_and_sails_one_at_a_time_and_changing_takes_1d6_minutes():
    """'can use one or the other propulsion method, but not both ... Changing from one method to the other takes
    1d6 minutes.' One round is one minute (house rule): a d6 of 2 leaves the ship without way for rounds 1-2."""
    game = duel(dice=[2, 10])
    assert allowed(game, "propulsion", "row") and not allowed(game, "propulsion", "tend_sails")
    events = act(game, propulsion="switch")
    assert of(events, PropulsionChanged)[0].done_after_round == 2
    assert game.current_agent == "blue_0"       # no way this round
    end_round(game)
    assert allowed_labels(game, "propulsion") == ["none"]
    act(game)
    end_round(game)
    assert game.state.round == 3
    assert allowed_labels(game, "propulsion") == ["none", "tend_sails", "switch"]
    act(game, propulsion="tend_sails")
    assert moved(act(game, maneuver="pursue@enemy0"))[0] == 11


def test_a_ship_with_only_sails_cannot_switch():
    game = duel(red=ship((0, 0), "galleon", propulsion="sails"))
    assert not allowed(game, "propulsion", "switch")


def test_forced_rowing_adds_1d6_speed_for_an_hour_then_the_crew_rolls_with_a_bane():
    """'The captain must make a Will attack roll against the crew's Will. On a success, the captain increases the
    ship's Speed by 1d6 for 1 hour. At the end of that hour, members of the crew make challenge rolls to resist
    the effects of continuous rowing with 1 bane.' An hour is 2 rounds here (house rule); Strength 12 keeps the
    crew's own endurance (3 hours) out of the way."""
    red = ship((0, 0), will=12, crew={"strength": 12})
    game = duel(red=red, house_rules={"rounds_per_hour": 2},
                dice=[8, 4,      # Will 12 vs the crew's Will 10: 8 + 2 = 10, a success; +4 Speed
                      10])       # pursue: success
    events = act(game, propulsion="row", command="force_rowing")
    assert [(e.roll, e.total, e.target, e.result) for e in of(events, RollMade)] == [("forced rowing", 10, 10, "success")]
    assert of(events, SpeedBoost)[0].bonus == 4 and of(events, SpeedBoost)[0].until_round == 2
    assert moved(act(game, maneuver="pursue@enemy0")) == (14, 14.0)
    end_round(game)
    assert not allowed(game, "command", "force_rowing")          # already in force
    act(game, propulsion="row")
    act(game)                                                    # hold
    script(game, 5, 3)                                           # end of hour: Strength 12, 5 + 2 - 3 = 4: failure
    events = []
    while game.current_agent == "blue_0":
        events += act(game)
    assert of(events, BoostEnded)[0].source == "forced rowing"
    roll = next(e for e in of(events, RollMade) if e.roll == "after forced rowing")
    assert (roll.total, roll.boons, roll.result) == (4, -1, "failure")
    assert of(events, CrewTired)[0].fatigued and ships(game)["red_0"].fatigued
    assert ships(game)["red_0"].forced_bonus == 0


def test_failed_goading_cannot_be_tried_again_until_the_captain_rests():
    game = duel(red=ship((0, 0), will=12), dice=[5])             # 5 + 2 = 7 < 10
    events = act(game, propulsion="row", command="force_rowing")
    assert of(events, SpeedBoost)[0].bonus == 0
    act(game)
    end_round(game)
    assert not allowed(game, "command", "force_rowing")
    assert ships(game)["red_0"].forced_locked


def test_forced_rowing_needs_a_captain_and_oars():
    pilot = make_game([ship((0, 0), "rowboat", role="pilot", agility=12)], [ship((100, 0))])
    assert not allowed(pilot, "command", "force_rowing")
    sailing = duel(red=ship((0, 0), "galleon", propulsion="sails"))
    assert not allowed(sailing, "command", "force_rowing")


def test_inspiring_adds_1d6_to_base_speed_before_the_wind():
    """'If the captain gets a success on a Will challenge roll, increase the ship's base Speed by 1d6 for 1 hour.'
    Under sail the bonus is added to the base Speed, then the wind: 8 + 2 + 3 (across) = 13."""
    game = duel(red=ship((0, 0), will=11, propulsion="sails"), dice=[9, 2, 10])   # 9 + 1 = 10: success, +2
    events = act(game, propulsion="tend_sails", command="inspire")
    assert [(e.roll, e.total, e.result) for e in of(events, RollMade)] == [("inspire", 10, "success")]
    assert of(events, SpeedBoost)[0].until_round == 10            # one hour = 10 rounds by default
    assert moved(act(game, maneuver="pursue@enemy0"))[0] == 13


def test_failed_inspiring_waits_an_hour():
    """'On a failure, the captain cannot try again for 1 hour' (2 rounds here)."""
    game = duel(dice=[3], house_rules={"rounds_per_hour": 2})
    act(game, propulsion="row", command="inspire")
    act(game)
    end_round(game)
    assert not allowed(game, "command", "inspire")               # round 2: still within the hour
    act(game)
    end_round(game)
    assert allowed(game, "command", "inspire")                   # round 3


def test_pilots_do_not_inspire():
    game = make_game([ship((0, 0), "rowboat", role="pilot")], [ship((100, 0))])
    assert allowed_labels(game, "command") == ["none"]


def test_rowing_endurance_one_plus_strength_modifier_hours_then_a_challenge_each_hour():
    """'A creature can typically row for a number of consecutive hours equal to 1 + its Strength modifier
    (minimum 1 hour). At the end of that time, and again after each additional hour of continuous rowing, the
    creature must make a Strength challenge roll. On a failure, the creature becomes fatigued ... If the
    creature was already fatigued, it takes a -1d6 penalty to Health. A fatigued creature adds 1d6 to this
    penalty for each subsequent failure.' Strength 11 rows 2 hours; an hour is 1 round here."""
    game = duel(red=ship((0, 0), crew={"strength": 11}), house_rules={"rounds_per_hour": 1})
    rolls = []
    script(game, 2,          # end of round 2 (2 hours rowed): 2 + 1 = 3, failure: fatigued
           5, 1,             # end of round 3: fatigued, so 1 bane: 5 + 1 - 1 = 5, failure: penalty +1d6
           4,                # the 1d6 penalty
           15, 6)            # end of round 4: 15 + 1 - 6 = 10: success
    for _ in range(4):
        act(game, propulsion="row")
        act(game)                                               # hold
        events = []
        while game.current_agent == "blue_0":
            events += act(game)
        rolls += [(e.roll, e.total, e.result) for e in of(events, RollMade)]
    assert rolls == [("rowing endurance", 3, "failure"), ("rowing endurance", 5, "failure"),
                     ("rowing endurance", 10, "success")]
    red = ships(game)["red_0"]
    assert red.fatigued and red.health_penalty == 4 and red.rowed_rounds == 4


def test_a_round_without_rowing_ends_the_continuous_rowing():
    game = duel(red=ship((0, 0), crew={"strength": 10}), house_rules={"rounds_per_hour": 1})
    act(game)                                                   # round 1: not rowed
    end_round(game)
    assert ships(game)["red_0"].rowed_rounds == 0
