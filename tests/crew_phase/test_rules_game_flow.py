"""Turn flow, illegal actions and the end of the battle (engine choices the document leaves open)."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.core.errors import GameOverError, IllegalActionError, NotYourTurnError
from naval_env.core.events import GameEnded
from naval_env.rulesets.crew_phase.hull import damage_hull
from naval_env.rulesets.crew_phase.state import Status

from .helpers import act, action, duel, make_game, of, pass_crew, ship, where


@pytest.mark.parametrize("steps, bad, component", [
    ([], {"crew": ["navigate@s2"]}, "crew_0"),                     # the keelboat has two sections
    ([], {"crew": {5: "command"}}, "crew_5"),                      # and four crew members
    ([], {"maneuver": "ahead 1"}, "maneuver"),                     # movement waits for the Ship Phase
    ([], {"crew": ["repair_hull"]}, "crew_0"),                     # the hull is whole
    ([], {"crew": ["heal"]}, "crew_0"),                            # a sailor has no healing
    ([], {"crew": ["cut_lines"]}, "crew_0"),                       # nothing is grappled
    ([], {"weapons": ["ship@e0"]}, "weapon_0"),                    # targets wait for the Ship Phase
])
def test_illegal_action_names_the_component_and_leaves_the_state_unchanged(steps, bad, component):
    game = duel(red="keelboat")
    for step in steps:
        act(game, **step)
    before = game.state_dict()
    history = len(game.dice.history)
    with pytest.raises(IllegalActionError, match=f"component '{component}'"):
        game.apply(game.current_agent, action(game, **bad))
    assert game.state_dict() == before and len(game.dice.history) == history


def test_acting_out_of_turn_is_refused():
    game = duel()
    before = game.state_dict()
    with pytest.raises(NotYourTurnError, match="it is red_0's decision"):
        game.apply("blue_0", action(game))
    assert game.state_dict() == before


def test_wrong_shape_is_refused():
    game = duel()
    with pytest.raises(IllegalActionError, match="expected"):
        game.apply("red_0", np.zeros(3, dtype=np.int64))


def test_a_side_with_no_ship_afloat_after_its_crews_repairs_loses():
    """A ship at 0 or below may still be mended in the Character Phase; at its end a side with no ship afloat
    strikes (see Assumptions)."""
    game = duel()
    damage_hull(game.state, game.state.ships["blue_0"], 60, "red_0", "test", [])
    pass_crew(game)
    events = pass_crew(game)                              # blue's crew does not repair
    assert of(events, GameEnded) == [GameEnded("red", "the other side has no ship afloat")]
    assert game.is_over and game.winner == "red" and not game.truncated and game.current_agent is None
    with pytest.raises(GameOverError):
        game.apply("red_0", action(game))


def test_both_sides_without_a_ship_afloat_is_a_draw():
    game = duel()
    for name in ("red_0", "blue_0"):
        damage_hull(game.state, game.state.ships[name], 60, None, "test", [])
    pass_crew(game)
    events = pass_crew(game)
    assert of(events, GameEnded) == [GameEnded(None, "no ship afloat")] and game.winner is None


def test_round_limit_ends_in_a_draw():
    game = duel(house_rules={"max_rounds": 2})
    for _ in range(3):
        pass_crew(game)
    assert game.round == 2 and not game.is_over
    events = pass_crew(game)
    assert of(events, GameEnded) == [GameEnded(None, "round_limit")]
    assert game.is_over and game.truncated and game.winner is None and game.round == 2


def test_ships_and_agents_are_named_side_and_index():
    game = make_game([ship("keelboat", (3, 3), "E"), ship("keelboat", (3, 8), "E")], [ship("sailing_ship", (12, 8))])
    assert game.agents == ("red_0", "red_1", "blue_0") and game.sides == ("red", "blue")
    assert game.side_of("red_1") == "red" and game.health("blue_0") == (60, 60)
    assert game.state.ships["blue_0"].facing == 6             # the side's facing (W) when the ship gives none
    assert where(game) == ("red_0", "CREW")
    assert all(game.is_active(a) for a in game.agents)
    game.state.ships["red_1"].status = Status.SUNK
    assert not game.is_active("red_1")
