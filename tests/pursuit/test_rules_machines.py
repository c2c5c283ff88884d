"""War machines: the six stat blocks; load, aim and fire shared by several gunners; direct and indirect fire;
the damaged-machine bane and boon; misfires; the swivel gun's cone; round stones.

Red sits at (0, 0) and orders no propulsion, so its turn goes straight to the GUNS phase. Hulls have Health 101
(no scuttling on the way), radius 5 and Agility 5 (captains with Intellect and Will 10): a dodge is d20 - 5.
Every strike then rolls the struck spot (d10: 10 holds no machine here) and 1d6 + 4 percent of the crew near
it (a 1: 5% of 10 = 1 crew member, unhurt unless half the damage reaches its Health 12).
"""

from __future__ import annotations

import pytest

from naval_env.rulesets.pursuit.config import load_config
from naval_env.rulesets.pursuit.events import (
    CrewCasualties,
    Fired,
    MachineDamaged,
    MachineOrdered,
    Misfired,
    RollMade,
)
from naval_env.testing import allowed, allowed_labels, damage_list, script

from .helpers import act, make_game, of, ship, ships

STOUT = {"hulk": {"health": 101}}
SPOT_AND_CREW = [10, 1]     # struck spot 10 (empty), 5% of the crew near it


def gunnery(machines, blue_at=(100.0, 0.0), blue=None, red_extra=(), blue_extra=(), dice=(), loaded=(),
            **kwargs):
    """Red (machines given) at (0, 0) in its GUNS phase; ``loaded`` lists machine indices to start loaded."""
    kwargs.setdefault("classes", STOUT)
    red = [ship((0, 0), machines=machines), *red_extra]
    game = make_game(red, [blue or ship(blue_at), *blue_extra], dice=dice, **kwargs)
    for i in loaded:
        game.state.ships["red_0"].machines[i].loaded = True
    act(game)                                          # COMMAND: nobody rows, so no maneuver either
    assert game.current_agent == "red_0" and game.state.phase.name == "GUNS"
    return game


def machine(game, i=0, agent="red_0"):
    return ships(game)[agent].machines[i]


def test_six_war_machines_with_the_documents_numbers():
    """The six stat blocks (the ballista's 'long range' is an assumption: 100 yards)."""
    table = {
        name: (m.size, m.health, m.space, m.crew, m.fire, m.load, m.aim, m.range, m.min_range, m.damage_dice,
               m.area, m.splash, m.dodge, m.dodge_banes, tuple(m.misfire_faces), m.stone)
        for name, m in load_config().war_machines.items()
    }
    assert table == {
        "ballista": (2, 20, 2, 1, "direct", 1, 1, 100, 0, 3, 1, 0, "no_damage", 1, (), False),
        "bombard": (3, 60, 3, 2, "indirect", 3, 1, 250, 50, 8, 3, 1, "half_damage", 0, (1, 2), True),
        "cannon": (2, 40, 2, 2, "direct", 3, 1, 200, 0, 6, 1, 0, "no_damage", 2, (), True),
        "large_cannon": (3, 60, 3, 3, "direct", 3, 1, 250, 0, 10, 2, 0, "no_damage", 3, (), True),
        "catapult": (3, 30, 3, 3, "indirect", 3, 2, 300, 40, 6, 1, 0, "half_damage", 0, (), False),
        "swivel_gun": (1, 10, 1, 1, "cone", 3, 1, 10, 0, 5, 1, 0, "half_or_none_at_20", 0, (), False),
    }


def test_loading_takes_the_load_number_in_actions_shared_by_the_gunners():
    """'Loading a war machine takes one or more actions ... multiple people can use actions in the same round to
    load the weapon more quickly.' A cannon (load 3) with its 2 gunners: 2 actions, then loaded next round."""
    game = gunnery(["cannon"])
    events = act(game, machines=["load"])
    assert of(events, MachineOrdered)[0].progress == "load 2/3, not aimed"
    assert machine(game).load_progress == 2 and not machine(game).loaded
    while game.current_agent == "blue_0":
        act(game)
    act(game)
    act(game, machines=["load"])
    assert machine(game).loaded


def test_three_gunners_load_a_cannon_in_one_round():
    game = gunnery([{"machine": "cannon", "gunners": 3}])
    act(game, machines=["load"])
    assert machine(game).loaded


def test_aiming_takes_the_aim_number_and_fixes_the_target_space():
    """'When a crew aims a weapon, the crew must designate a 1-yard cube within the weapon's range.' A catapult
    (aim 2) with 1 gunner needs two rounds; the aim point is the target's space when the aim is done."""
    game = gunnery([{"machine": "catapult", "gunners": 1}])
    act(game, machines=["aim@enemy0"])
    assert machine(game).aim_progress == 1 and machine(game).aim_point is None
    while game.current_agent == "blue_0":
        act(game)
    act(game)
    act(game, machines=["aim@enemy0"])
    assert machine(game).aim_point == (100.0, 0.0)


def test_aim_and_fire_in_one_round_needs_aim_plus_one_gunners():
    """A ballista (aim 1) with its single gunner cannot aim and fire in one round; with two it can."""
    game = gunnery(["ballista"], loaded=[0])
    assert allowed(game, "machine_0", "aim@enemy0") and not allowed(game, "machine_0", "fire@enemy0")
    game = gunnery([{"machine": "ballista", "gunners": 2}], loaded=[0])
    assert allowed(game, "machine_0", "fire@enemy0")


def test_only_a_loaded_machine_fires_and_fire_without_an_aim_needs_an_earlier_shot():
    game = gunnery(["cannon"])
    assert allowed_labels(game, "machine_0") == ["idle", "load", "aim@enemy0"]
    game = gunnery(["cannon"], loaded=[0])
    assert allowed_labels(game, "machine_0") == ["idle", "aim@enemy0", "fire@enemy0"]


@pytest.mark.parametrize("weapon, banes, dice_count", [("ballista", 1, 3), ("cannon", 2, 6), ("large_cannon", 3, 10)])
def test_direct_fire_target_dodges_with_the_weapons_banes_or_takes_its_damage(weapon, banes, dice_count):
    """'dealing 3d6 [6d6, 10d6] damage to anything in the area. A targeted creature can make an Agility challenge
    roll with 1 bane [2, 3] and takes no damage on a success.' The dodge fails: 15 - 5 - 1 = 9."""
    faces = [15] + [1] * banes + [2] * dice_count + SPOT_AND_CREW
    game = gunnery([{"machine": weapon, "gunners": 4}], loaded=[0], dice=faces)
    events = act(game, machines=["fire@enemy0"])
    roll = of(events, RollMade)[0]
    assert (roll.ship, roll.roll, roll.boons, roll.total, roll.result) == ("blue_0", "dodge", -banes, 9, "failure")
    assert damage_list(events) == [("blue_0", 2 * dice_count, "red_0", weapon)]
    assert of(events, Fired)[0].in_path == ("blue_0",)


def test_direct_fire_dodged_does_no_damage():
    game = gunnery([{"machine": "cannon", "gunners": 2}], loaded=[0], dice=[20, 1, 1])   # 20 - 5 - 1 = 14
    events = act(game, machines=["fire@enemy0"])
    assert of(events, RollMade)[0].result == "success" and damage_list(events) == []
    assert not machine(game).loaded


def test_direct_fire_hits_what_stands_in_its_path_first():
    """'If something solid lies in the projectile's path, the projectile hits it instead' (a friend here)."""
    friend = ship((50, 2))
    game = gunnery([{"machine": "cannon", "gunners": 2}], red_extra=[friend], loaded=[0],
                   dice=[5, 1, 1] + [1] * 6 + SPOT_AND_CREW)
    events = act(game, machines=["fire@enemy0"])
    assert of(events, Fired)[0].in_path == ("red_1", "blue_0")
    assert damage_list(events) == [("red_1", 6, "red_0", "cannon")]


def test_a_dodged_projectile_travels_on_to_the_next_hull_on_its_line():
    """'Any creature in the cannonball's path when it travels toward or beyond the target space can avoid the
    cannonball by getting a success on an Agility challenge roll with 2 banes' (and it flies on)."""
    game = gunnery([{"machine": "cannon", "gunners": 2}], blue_extra=[ship((150, 0))], loaded=[0],
                   dice=[20, 1, 1,            # blue_0 dodges: 14
                         5, 1, 1] + [3] * 6 + SPOT_AND_CREW)   # blue_1 behind it does not
    events = act(game, machines=["fire@enemy0"])
    assert [e.ship for e in of(events, RollMade)] == ["blue_0", "blue_1"]
    assert damage_list(events) == [("blue_1", 18, "red_0", "cannon")]


def test_a_miss_travels_on_to_its_maximum_distance():
    """Fired at the last shot's space after the target sailed away: the ball flies on along that line and strikes
    a hull beyond it, within its 200 yards; one beyond the range is safe."""
    game = gunnery([{"machine": "cannon", "gunners": 2}], blue_at=(100, 40), blue_extra=[ship((180, 0))],
                   loaded=[0])
    machine(game).last_point = (100.0, 0.0)
    game._mask = None                                  # the state was edited after the mask was built
    script(game, 5, 1, 1, *([2] * 6), *SPOT_AND_CREW)
    events = act(game, machines=["fire"])
    assert damage_list(events) == [("blue_1", 12, "red_0", "cannon")]
    game = gunnery([{"machine": "cannon", "gunners": 2}], blue_at=(100, 40), blue_extra=[ship((210, 0))],
                   loaded=[0])
    machine(game).last_point = (100.0, 0.0)
    game._mask = None
    events = act(game, machines=["fire"])
    assert of(events, Fired)[0].in_path == () and damage_list(events) == []


def test_leftover_damage_of_a_destroyed_hull_flies_on():
    """'If the projectile destroys the object struck, it might continue moving, dealing any leftover damage when
    it strikes another obstacle or hits its target.' A 5-Health boat in the path takes 5 of 36; 31 fly on."""
    skiff = {"health": 5, "radius": 2.0, "deck_spots": 1, "crew": 1, "rowers": 1, "sail_crew": 1}
    game = gunnery([{"machine": "cannon", "gunners": 2}], blue_extra=[ship((150, 0))],
                   red_extra=[ship((50, 0), "skiff", crew={"health": 100})], loaded=[0],
                   classes={**STOUT, "skiff": skiff},
                   dice=[5, 1, 1] + [6] * 6 + [1, 1,   # the skiff fails to dodge, takes 5 of 36: spot, crew
                         1,                            # scuttled: 1d6 + 3 days
                         20, 1, 1,                     # destroyed: keeps afloat (20 - 1 = 19)
                         5, 1, 1,                      # blue_0 fails to dodge the leftover 31
                         10, 1, 10])                   # spot, 5% of its crew: 1, whose Agility saves it
    events = act(game, machines=["fire@enemy0"])
    assert damage_list(events) == [("red_1", 5, "red_0", "cannon"), ("blue_0", 31, "red_0", "cannon")]


def test_direct_fire_range_counts_to_the_nearest_part_of_the_hull():
    """A cannon reaches 200 yards: a hull whose near side is 200 yards off can be aimed at, 201 not."""
    assert allowed(gunnery(["cannon"], blue_at=(205, 0)), "machine_0", "aim@enemy0")
    assert not allowed(gunnery(["cannon"], blue_at=(206, 0)), "machine_0", "aim@enemy0")


def test_spare_gunner_actions_after_firing_start_the_next_load():
    """A large cannon's 3 gunners aim (1) and fire (1) and put the third action into loading."""
    game = gunnery(["large_cannon"], loaded=[0], dice=[20, 1, 1, 1])
    act(game, machines=["fire@enemy0"])
    assert machine(game).load_progress == 1 and not machine(game).loaded


def test_indirect_fire_success_lands_on_the_point():
    """'one member of the crew involved in aiming the weapon must make an Intellect challenge roll ... On a
    success, the projectile lands at the desired location.' Catapult, 6d6 to everything in the cube; 'A
    targeted creature can make an Agility challenge roll and takes half the damage on a success.'"""
    game = gunnery(["catapult"], loaded=[0], dice=[12] + [4] * 6 + [20] + SPOT_AND_CREW)
    events = act(game, machines=["fire@enemy0"])
    rolls = [(e.ship, e.roll, e.result) for e in of(events, RollMade)]
    assert rolls == [("red_0", "indirect fire", "success"), ("blue_0", "dodge", "success")]
    assert of(events, Fired)[0].lands_at == (100.0, 0.0)
    assert damage_list(events) == [("blue_0", 12, "red_0", "catapult")]


def test_indirect_fire_failure_scatters_1d6_yards_in_a_random_direction():
    """'On a failure, the projectile lands 1d6 yards away from that location in a random direction' (1d8 compass
    points, 1 = east). 6 yards east of the point still lands on the 5-yard hull plus the half-yard cube; 6 yards
    north... also. A 12-yard scatter is impossible, so use a smaller target: radius 1."""
    tiny = {"radius": 1.0}
    game = gunnery(["catapult"], blue=ship((100, 0), "dinghy"), classes={**STOUT, "dinghy": tiny}, loaded=[0],
                   dice=[3, 6, 3])                          # failure; 6 yards; direction 3 = north
    events = act(game, machines=["fire@enemy0"])
    fired = of(events, Fired)[0]
    assert (round(fired.lands_at[0], 6), round(fired.lands_at[1], 6)) == (100.0, 6.0)
    assert fired.in_path == () and damage_list(events) == []


def test_indirect_fire_has_a_minimum_range():
    """'The target space must be within 250 yards, but at least 50 yards away' (bombard); catapult 40-300."""
    assert not allowed(gunnery(["bombard"], blue_at=(49, 0)), "machine_0", "aim@enemy0")
    assert allowed(gunnery(["bombard"], blue_at=(50, 0)), "machine_0", "aim@enemy0")
    assert not allowed(gunnery(["catapult"], blue_at=(301, 0)), "machine_0", "aim@enemy0")
    assert allowed(gunnery(["catapult"], blue_at=(40, 0)), "machine_0", "aim@enemy0")


def test_bombard_splash_deals_half_within_a_yard_of_the_cube():
    """'dealing 8d6 damage to everything in the space and half the damage to everything within 1 yard of it.'
    Fired at open water (the last shot's space): the 3-yard cube reaches 1.5 yards from the point, so a 1-yard
    dinghy 2 yards off is in it (24), one 3 yards off is within a yard of it (12)."""
    dinghy = {"radius": 1.0, "health": 101}
    game = gunnery(["bombard"], blue=ship((100, -2), "dinghy"), blue_extra=[ship((100, 3), "dinghy")],
                   classes={**STOUT, "dinghy": dinghy}, loaded=[0],
                   dice=[15] + [3] * 8 + [5, 10, 1, 15] + [5, 10, 1])   # the crew member near the 24 dodges
    machine(game).last_point = (100.0, 0.0)
    game._mask = None
    events = act(game, machines=["fire"])
    assert of(events, Fired)[0].in_path == ("blue_0", "blue_1")
    assert damage_list(events) == [("blue_0", 24, "red_0", "bombard"), ("blue_1", 12, "red_0", "bombard")]


def test_a_damaged_machine_has_a_bane_to_operate_and_its_targets_a_boon_to_resist():
    """'If a war machine takes damage equal to half its Health or more, the damage imposes 1 bane on Intellect
    challenge rolls made to operate an indirect fire weapon and grants 1 boon on rolls made to resist attacks by
    such weapons.'"""
    game = gunnery(["catapult"], loaded=[0], dice=[12, 2] + [1] * 6 + [5, 6] + SPOT_AND_CREW)
    machine(game).damage = 15                             # half of its Health 30
    events = act(game, machines=["fire@enemy0"])
    rolls = [(e.roll, e.boons, e.total, e.result) for e in of(events, RollMade)]
    assert rolls == [("indirect fire", -1, 10, "success"), ("dodge", 1, 6, "failure")]


def test_misfire_even_needs_repair_for_twice_the_load_time():
    """'If the number on the die for the challenge roll is a 1 or 2, the bombard misfires.' 'On an even number,
    the weapon simply misfired and can be fired again after it is repaired. Repairing a war machine takes twice
    as long as it takes to load the weapon': 6 actions, 3 rounds for 2 gunners. It keeps its load."""
    game = gunnery(["bombard"], loaded=[0], dice=[2, 4])
    events = act(game, machines=["fire@enemy0"])
    assert [(e.d6, e.exploded) for e in of(events, Misfired)] == [(4, False)]
    assert machine(game).misfired and machine(game).loaded
    for round_ in range(3):
        while game.current_agent == "blue_0":
            act(game)
        act(game)
        assert allowed_labels(game, "machine_0") == ["idle", "repair", "aim@enemy0"]
        act(game, machines=["repair"])
    assert not machine(game).misfired and allowed(game.clone(), "machine_0", "idle")
    while game.current_agent == "blue_0":
        act(game)
    act(game)
    assert allowed(game, "machine_0", "fire@enemy0")


def test_misfire_odd_explodes():
    """'On an odd number, the weapon explodes, taking damage equal to its Health and dealing damage equal to its
    Health to everything within 5 yards of it. A creature in the area ... takes half the damage on a success.'
    A bombard (60) on spot 0 also wrecks the ballista on spot 1; 1d6 + 4 = 10% of 10 crew is 1 crew member near
    it, who dies even on a success (30 >= its Health 12), so no roll; then red is scuttled (1d6 + 3 days)."""
    game = gunnery(["bombard", "ballista"], loaded=[0], dice=[1, 3, 6, 2])
    events = act(game, machines=["fire@enemy0"])
    assert [(e.machine, e.amount, e.destroyed) for e in of(events, MachineDamaged)] == [(0, 60, True), (1, 20, True)]
    assert damage_list(events) == [("red_0", 60, None, "explosion")]
    assert [(c.exposed, c.killed) for c in of(events, CrewCasualties)] == [(1, 1)]


def test_explosion_reaches_a_hull_within_five_yards():
    """Blue_1 lies 4 yards of water from red's side: it takes the bombard's 60 too (blue_0 at 60 yards does not)."""
    game = gunnery(["bombard"], blue_at=(60, 0), blue_extra=[ship((14, 0))], loaded=[0],
                   dice=[1, 5,          # misfire, odd: explodes
                         1,             # red's crew near it: 5% of 10 = 1, dies without a roll
                         1,             # blue_1's crew near the blast: 1, dies without a roll
                         1, 1])         # both scuttled: 1d6 + 3 days each
    events = act(game, machines=["fire@enemy0"])
    assert damage_list(events) == [("red_0", 60, None, "explosion"), ("blue_1", 60, "red_0", "explosion")]


def test_swivel_gun_cone():
    """'The swivel gun blasts lead pellets into a 10-yard cone ... 5d6 damage to everything in the area. A targeted
    creature can make an Agility challenge roll and takes half the damage on a success. If the total of the roll
    was 20 or higher, the creature instead takes no damage.' Two boats in the cone: one fails (full), one
    succeeds (half); a third rolls 25 (none)."""
    game = gunnery([{"machine": "swivel_gun", "gunners": 2}], blue_at=(14, 0),
                   blue_extra=[ship((14, 3)), ship((13, -3))], loaded=[0],
                   house_rules={"max_ships_per_side": 3}, red_extra=[],
                   dice=[4] * 5 + [5] + SPOT_AND_CREW + [15] + SPOT_AND_CREW + [20])
    from naval_env.rulesets.pursuit.state import Controller
    game.state.ships["blue_2"].controller = Controller("captain", "sailor", 10, 30, 10)   # Agility 15: 20 + 5
    events = act(game, machines=["fire@enemy0"])
    assert damage_list(events) == [("blue_0", 20, "red_0", "swivel_gun"), ("blue_1", 10, "red_0", "swivel_gun")]
    assert [e.total for e in of(events, RollMade)] == [0, 10, 25]


def test_swivel_gun_reaches_only_ten_yards_past_its_own_side():
    assert allowed(gunnery(["swivel_gun"], blue_at=(20, 0)), "machine_0", "aim@enemy0")
    assert not allowed(gunnery(["swivel_gun"], blue_at=(21, 0)), "machine_0", "aim@enemy0")


def test_round_stone_halves_range_and_damage():
    """'a round stone (free, but halves the range and damage)'."""
    assert not allowed(gunnery([{"machine": "cannon", "ammunition": "stone"}], blue_at=(106, 0)),
                       "machine_0", "aim@enemy0")
    game = gunnery([{"machine": "cannon", "ammunition": "stone"}], loaded=[0],
                   dice=[5, 1, 1] + [5] * 6 + SPOT_AND_CREW)
    events = act(game, machines=["fire@enemy0"])
    assert damage_list(events) == [("blue_0", 15, "red_0", "cannon")]


def test_stone_only_where_the_stat_block_allows_it():
    from naval_env.core.errors import ConfigError
    with pytest.raises(ConfigError, match="cannot fire a round stone"):
        make_game([ship((0, 0), machines=[{"machine": "ballista", "ammunition": "stone"}])], [ship((100, 0))])


def test_war_machines_are_cargo_with_their_own_crews():
    """Each machine has its own gunners (default: the stat block's crew), apart from the ship's crew."""
    game = gunnery(["cannon", {"machine": "ballista", "gunners": 3}])
    red = ships(game)["red_0"]
    assert [(m.kind, m.gunners) for m in red.machines] == [("cannon", 2), ("ballista", 3)]
    assert red.crew == 10


def test_indirect_fire_arcs_over_whatever_lies_between():
    """'enabling its crew to launch projectiles up and over intervening obstacles ... regardless of obstacles':
    a friend between the catapult and its target is not struck."""
    game = gunnery(["catapult"], red_extra=[ship((50, 0))], loaded=[0], dice=[12] + [2] * 6 + [5] + SPOT_AND_CREW)
    events = act(game, machines=["fire@enemy0"])
    assert of(events, Fired)[0].in_path == ("blue_0",)
    assert damage_list(events) == [("blue_0", 12, "red_0", "catapult")]


def test_fired_without_being_aimed_it_flies_at_the_last_shots_space():
    """'If a weapon is fired without being aimed, it launches its projectile at the same space that was targeted
    the last time it was fired.'"""
    game = gunnery([{"machine": "cannon", "gunners": 3}], loaded=[0], dice=[20, 1, 1])   # dodged
    act(game, machines=["fire@enemy0"])
    assert machine(game).last_point == (100.0, 0.0) and machine(game).aim_point is None
    while game.current_agent == "blue_0":
        act(game)
    act(game)
    act(game, machines=["load"])
    while game.current_agent == "blue_0":
        act(game)
    act(game)
    assert allowed(game, "machine_0", "fire")
    script(game, 20, 1, 1)
    events = act(game, machines=["fire"])
    assert of(events, Fired)[0].aimed_at == (100.0, 0.0)
