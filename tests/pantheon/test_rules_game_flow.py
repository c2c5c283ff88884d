"""Turn flow, illegal actions and the end of the game (engine assumptions the document leaves open)."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.core.errors import GameOverError, IllegalActionError, NotYourTurnError
from naval_env.core.events import GameEnded
from naval_env.rulesets.pantheon.state import Status
from naval_env.testing import damage_list

from .helpers import act, action, make_game, of, ship

SLOOP = {"sloop": {"speed": 3, "health": 1, "damage": 2, "maneuverability": 1, "pc_capacity": 0}}


def duel(dice=(), **kw):
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (5, 5), "W", wits=0)], dice=dice, **kw)
    assert game.current_agent == "red_0"
    return game


@pytest.mark.parametrize("phase_steps, bad, component", [
    ([], {"maneuver": "ahead 5"}, "maneuver"),                          # beyond the allowance of 4
    ([], {"attack": "fire@enemy0"}, "attack"),                          # attacks wait for the attack step
    ([{"maneuver": "hold"}], {"attack": "ram@enemy0"}, "attack"),       # not moved, not in contact
    ([{"maneuver": "hold"}], {"attack": "board@enemy0"}, "attack"),     # not in contact
    ([{"maneuver": "hold"}], {"crew": ["none", "none", "none", "attack+fire"]}, "crew_3"),  # trireme: 3 PCs
    ([{"maneuver": "hold"}], {"crew": ["repair"]}, "crew_0"),           # no shipwright aboard
    ([], {"turn_order": "fair_escape"}, "turn_order"),
    ([{"maneuver": "hold"}], {"attack": "repair"}, "attack"),           # not wrecked
])
def test_illegal_action_names_the_component_and_leaves_the_state_unchanged(phase_steps, bad, component):
    game = duel()
    for step in phase_steps:
        act(game, **step)
    before = game.state_dict()
    history = len(game.dice.history)
    with pytest.raises(IllegalActionError, match=f"component '{component}'"):
        game.apply(game.current_agent, action(game, **bad))
    assert game.state_dict() == before
    assert len(game.dice.history) == history


def test_acting_out_of_turn_is_refused():
    game = duel()
    before = game.state_dict()
    with pytest.raises(NotYourTurnError, match="it is red_0's decision"):
        game.apply("blue_0", action(game, maneuver="hold"))
    assert game.state_dict() == before


def test_wrong_shape_is_refused():
    game = duel()
    with pytest.raises(IllegalActionError, match="expected"):
        game.apply("red_0", np.zeros(3, dtype=np.int64))


def test_last_side_fighting_wins():
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("sloop", (5, 5), "W", wits=0)], dice=[3, 3],
                     vessels=SLOOP)
    act(game, maneuver="hold")
    events = act(game, attack="fire@enemy0")              # 3 damage on 1 health: floored at -1, sinking
    assert game.state.ships["blue_0"].status is Status.SINKING
    assert of(events, GameEnded) == [GameEnded("red", "last side fighting")]
    assert game.is_over and game.winner == "red" and not game.truncated and game.current_agent is None
    with pytest.raises(GameOverError):
        game.apply("blue_0", action(game))


def test_both_sides_sinking_at_once_is_a_draw():
    game = make_game([ship("sloop", (2, 5), "E", wits=4)], [ship("sloop", (4, 5), "W", wits=0)], dice=[2, 2],
                     vessels=SLOOP)
    act(game, maneuver="ahead 1")
    events = act(game, attack="ram@enemy0")               # 9 vs 8: 4 (floored to 2) and 2 back
    assert damage_list(events) == [("blue_0", 2, "red_0", "ram"), ("red_0", 2, "blue_0", "ram recoil")]
    assert game.state.ships["red_0"].status is Status.SINKING and game.state.ships["blue_0"].status is Status.SINKING
    assert of(events, GameEnded) == [GameEnded(None, "no ship left fighting")]
    assert game.winner is None


def test_round_limit_ends_in_a_draw():
    game = duel(house_rules={"max_rounds": 2})
    for _ in range(3):
        act(game, maneuver="hold")
        act(game, attack="none")
    assert game.round == 2 and not game.is_over
    act(game, maneuver="hold")
    events = act(game, attack="none")                     # the last turn of round 2
    assert of(events, GameEnded) == [GameEnded(None, "round_limit")]
    assert game.is_over and game.truncated and game.winner is None
