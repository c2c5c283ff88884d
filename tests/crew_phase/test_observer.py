"""The observation: named slices from the captain's own point of view, and the MOVE preview."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.testing import label_index

from .helpers import act, duel, pass_crew, where


def field(game, agent, name):
    spec = game.observation_spec
    return game.observe(agent)[spec.slice(name)] / next(f.scale for f in spec.fields if f.name == name)


def test_own_ship_and_enemy_are_seen_from_the_captains_side():
    game = duel(red_at=(3, 8), blue_at=(12, 5))
    assert field(game, "red_0", "self.position").tolist() == [3, 8]
    assert field(game, "red_0", "self.phase").tolist() == [1, 0, 0]            # red holds CREW
    assert field(game, "blue_0", "self.phase").tolist() == [0, 0, 0]
    assert field(game, "red_0", "enemy0.offset").tolist() == [9, -3]
    assert field(game, "red_0", "enemy0.ahead_starboard").tolist() == pytest.approx([9, -3])   # facing east
    assert field(game, "blue_0", "enemy0.ahead_starboard").tolist() == pytest.approx([9, -3])  # facing west
    assert field(game, "red_0", "ally0.present").tolist() == [0]


def test_crew_slots_show_casualties_and_this_rounds_actions():
    game = duel(dice=[10])
    game.state.ships["red_0"].crew[4].hp = 0
    act(game, crew=["navigate@s0"])
    assert field(game, "red_0", "crew0.action")[1] == 1                          # navigate
    assert field(game, "red_0", "crew4.conscious").tolist() == [0]
    assert field(game, "blue_0", "enemy0.crew")[3 * 4] == 0                       # blue sees red's crew 4 down


def test_the_move_preview_describes_each_maneuver_only_while_moving():
    game = duel(red_at=(3, 8), blue_at=(6, 8), blue_facing="N", dice=[10, 10, 10])
    act(game, crew={0: "navigate@s0", 1: "navigate@s1", 2: "navigate@s2", 5: "steer", 3: "operate@w1"})
    assert not field(game, "blue_0", "move.distance").any()
    pass_crew(game)
    assert where(game) == ("red_0", "MOVE")
    ahead_1, ahead_2, ahead_3 = (label_index(game, "maneuver", f"ahead {n}") for n in (1, 2, 3))
    distance = field(game, "red_0", "move.distance")
    ram = field(game, "red_0", "move.ram")
    assert (distance[ahead_1], distance[ahead_2], distance[ahead_3]) == (2, 1, 0)  # ahead 3 runs into blue
    assert (ram[ahead_1], ram[ahead_2]) == (0, 1) and ram.sum() == 1              # (5, 8): blue dead ahead
    cover = field(game, "red_0", "move.cover")
    turn = label_index(game, "maneuver", "ahead 2, port 1 early")                # ends at (5, 7) facing NE
    assert cover[turn] == pytest.approx(1.0)                                     # starboard ballista bears
    assert np.count_nonzero(field(game, "red_0", "move.exposed")) > 0
