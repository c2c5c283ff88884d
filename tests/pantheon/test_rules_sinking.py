"""Complication - Sinking! (document: Complication - Sinking!).

Blue (trireme, attack pool 7+2+3 = 12) acts first; red has a trireme and a 'raft' (health 2) that blue sinks.
Order: blue_0, red_0, red_1.
"""

from __future__ import annotations

from naval_env.core.events import DamageDealt
from naval_env.rulesets.pantheon.events import SinkingProgress, StatusChanged, TurnStarted
from naval_env.rulesets.pantheon.state import Status
from naval_env.testing import allowed, damage_list

from .helpers import act, make_game, of, ship

RAFT = {"raft": {"speed": 3, "health": 2, "damage": 1, "maneuverability": 1, "pc_capacity": 0}}


def sink_game(dice, crew=()):
    game = make_game(
        [ship("trireme", (2, 2), "E", wits=4), ship("raft", (5, 8), "E")],
        [ship("trireme", (5, 5), "W", wits=7)],
        dice=dice, vessels=RAFT,
    )
    assert game.state.order == ["blue_0", "red_0", "red_1"]
    act(game, maneuver="hold")
    events = act(game, attack="fire@enemy1", crew=list(crew))
    return game, events


def hold_round(game, *agents):
    for agent in agents:
        assert game.current_agent == agent
        act(game, maneuver="hold")
        act(game, attack="none")


def test_ship_that_lost_twice_its_health_is_sinking():
    """'A ship that has lost twice its health levels is Destroyed and begins to take on water'."""
    game, events = sink_game([5, 1])                      # exceptional: 3 + 1 = 4 = twice the raft's health
    assert damage_list(events)[0] == ("red_1", 4, "blue_0", "fire")
    assert StatusChanged("red_1", "sinking") in events
    assert game.state.ships["red_1"].status is Status.SINKING and game.state.ships["red_1"].health == -2


def test_health_never_goes_below_minus_its_maximum():
    game, events = sink_game([5, 1], crew=["damage+fire", "damage+fire"])   # 6 damage on a 2-health raft
    assert damage_list(events)[0] == ("red_1", 4, "blue_0", "fire")
    assert game.state.ships["red_1"].health == -2


def test_wrecked_damage_can_start_the_sinking():
    game, _ = sink_game([1, 5])                           # 13 vs 11, success: 3 -> health -1, wrecked
    assert game.state.ships["red_1"].status is Status.WRECKED
    hold_round(game, "red_0")
    # red_1's turn: 5 wrecked damage, only 1 of it to the floor; it sinks and has no decision
    assert game.state.ships["red_1"].status is Status.SINKING
    assert game.current_agent == "blue_0"


def test_sinking_ship_is_removed_after_three_of_its_turns():
    """'all those on board have three turns to get off the ship before it fully sinks'; 'the ship is removed from
    the board after three turns as it has fully sunk beneath the waves.'"""
    game, events = sink_game([5, 1])
    progress = []
    seen = list(events)
    for agent in ("red_0", "blue_0", "red_0", "blue_0", "red_0"):
        assert game.state.ships["red_1"].status is Status.SINKING
        assert game.state.occupancy[(5, 8)] == "red_1"        # still on the board, in the way
        assert game.current_agent == agent                    # red_1 never holds a decision
        act(game, maneuver="hold")
        step = act(game, attack="none")
        seen += step
        progress += [e.turns for e in of(step, SinkingProgress)]
    assert progress == [1, 2, 3]
    assert game.state.ships["red_1"].status is Status.SUNK
    assert (5, 8) not in game.state.occupancy
    i = seen.index(SinkingProgress("red_1", 3))
    assert seen[i - 1] == TurnStarted("red_1", 3) and seen[i + 1] == StatusChanged("red_1", "sunk")
    assert game.current_agent == "blue_0" and game.round == 4 and not game.is_over


def test_sinking_ship_cannot_be_targeted():
    game = make_game(
        [ship("trireme", (2, 2), "E", wits=4), ship("raft", (5, 7), "E")],
        [ship("trireme", (5, 5), "W", wits=7)],
        dice=[5, 1], vessels=RAFT,
    )
    act(game, maneuver="hold")
    assert allowed(game, "attack", "fire@enemy1")
    act(game, attack="fire@enemy1")
    hold_round(game, "red_0")
    act(game, maneuver="hold")                            # blue, round 2
    assert not allowed(game, "attack", "fire@enemy1")
    assert not any(isinstance(e, DamageDealt) for e in act(game, attack="none"))


def test_side_whose_last_ship_is_sinking_loses_at_once():
    game = make_game([ship("raft", (4, 5), "E")], [ship("trireme", (5, 5), "W", wits=7)], dice=[5, 1], vessels=RAFT)
    act(game, maneuver="hold")
    act(game, attack="fire@enemy0")
    assert game.state.ships["red_0"].status is Status.SINKING
    assert game.is_over and game.winner == "blue" and game.state.end_reason == "last side fighting"
