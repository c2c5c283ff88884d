"""Turn flow and the engine contract: phases, whose decision it is, illegal actions."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.core.errors import GameOverError, IllegalActionError, NotYourTurnError
from naval_env.rulesets.flotilla.events import Held
from naval_env.rulesets.flotilla.state import Phase
from naval_env.testing import allowed_labels

from .helpers import act, action, make_game, of, ship
from .test_rules_attack import duel


def game_at_move():
    game = make_game([ship("brig", (3, 7), "E")], [ship("brig", (9, 2), "W")], dice=[6, 1, 1, 1])
    assert game.current_agent == "red_0" and game.state.phase is Phase.MOVE
    return game


@pytest.mark.parametrize("bad, component", [
    ({"facing": "N"}, "facing"),                 # facings are chosen before the battle
    ({"maneuver": "ram@enemy0"}, "maneuver"),    # nothing straight ahead
    ({"maneuver": "board@enemy0"}, "maneuver"),  # not adjacent
    ({"maneuver": "break_free"}, "maneuver"),    # not grappled
    ({"target": "ship@enemy0"}, "target"),       # attacks wait for the attack phase
    ({"reaction": "counter"}, "reaction"),       # nothing to answer
])
def test_illegal_action_names_the_component_and_leaves_the_state_unchanged(bad, component):
    game = game_at_move()
    before = game.state_dict()
    history = len(game.dice.history)
    with pytest.raises(IllegalActionError, match=f"component '{component}'"):
        game.apply("red_0", action(game, **bad))
    assert game.state_dict() == before and len(game.dice.history) == history


def test_acting_out_of_turn_is_refused():
    game = game_at_move()
    with pytest.raises(NotYourTurnError, match="it is red_0's decision"):
        game.apply("blue_0", action(game, maneuver="ahead"))


def test_wrong_shape_is_refused():
    game = game_at_move()
    with pytest.raises(IllegalActionError, match="expected"):
        game.apply("red_0", np.zeros(2, dtype=np.int64))


def test_acting_after_the_end_is_refused():
    game = duel(dice=[6, 1, 1, 2, 2, 2])
    game.state.ships["blue_0"].cohesion = 1
    act(game, target="ship@enemy0")
    act(game, reaction="counter")
    assert game.is_over
    with pytest.raises(GameOverError):
        game.apply("red_0", action(game))
    assert np.array_equal(game.legal_mask("red_0"), game.action_spec.noop_mask())


def test_value_zero_of_every_component_is_always_allowed():
    game = game_at_move()
    mask = game.legal_mask("red_0")
    assert all(mask[offset] for offset in game.action_spec.offsets)
    assert np.array_equal(game.legal_mask("blue_0"), game.action_spec.noop_mask())


def test_decisions_with_nothing_to_choose_are_made_for_the_captain():
    """A ship with no captain holds; a ship with nothing in range does not get an attack decision."""
    game = make_game([ship("brig", (3, 7), "E")], [ship("brig", (9, 2), "W")], dice=[6, 1, 1, 1, 2, 1, 1, 1])
    game.state.ships["blue_0"].captain_alive = False
    game.state.ships["blue_0"].captain_dice = 0
    events = act(game, maneuver="ahead")
    assert of(events, Held) == [Held("blue_0", "no captain")]
    assert game.state.round == 2 and game.current_agent == "red_0"   # no one had a target: round 2


def test_a_round_is_movement_for_everyone_then_attacks_for_everyone():
    game = duel()
    assert game.state.phase is Phase.ATTACK and game.current_agent == "red_0"
    act(game, target="hold")
    assert game.state.phase is Phase.ATTACK and game.current_agent == "blue_0"
    assert allowed_labels(game, "target") == ["hold", "ship@enemy0"]
