"""The round order, a ship's three decisions, escaping, the end of the battle and illegal actions."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.core.errors import GameOverError, IllegalActionError, NotYourTurnError
from naval_env.core.events import GameEnded
from naval_env.rulesets.pursuit.events import Escaped, RoundEnded, TurnStarted
from naval_env.rulesets.pursuit.state import Status
from naval_env.testing import allowed_labels

from .helpers import act, action, make_game, of, ship, ships


def test_player_side_first_then_the_other_side_then_the_end_of_the_round():
    """'the player characters, along with the ship or ships they are on, go first. Then, creatures and ships you
    control go next. After that, you resolve the end of the round.' The first side of the scenario is the
    players' side; its ships act in order."""
    game = make_game([ship((0, 0)), ship((0, 30))], [ship((100, 0))])
    events = list(game.opening_events)
    while game.state.round == 1:
        events += act(game)
    order = [(e.kind, getattr(e, "ship", None)) for e in events if isinstance(e, (TurnStarted, RoundEnded))]
    assert order == [("turn", "red_0"), ("turn", "red_1"), ("turn", "blue_0"), ("round_end", None),
                     ("turn", "red_0")]


def test_a_turn_is_command_then_maneuver_then_guns():
    """Each captain orders the crew, chooses one maneuver, then gives its war machines their orders."""
    game = make_game([ship((0, 0), machines=["cannon"])], [ship((100, 0))], dice=[10])
    phases = []
    for step in ({"propulsion": "row"}, {"maneuver": "pursue@enemy0"}, {"machines": ["load"]}):
        phases.append((game.current_agent, game.state.phase.name))
        act(game, **step)
    assert phases == [("red_0", "COMMAND"), ("red_0", "MANEUVER"), ("red_0", "GUNS")]
    assert (game.current_agent, game.state.phase.name) == ("blue_0", "COMMAND")


def test_a_decision_without_a_choice_is_played_by_the_engine():
    """No machines: no GUNS decision; nobody rowing: no MANEUVER decision (only 'hold' would be allowed)."""
    game = make_game([ship((0, 0))], [ship((100, 0))])
    act(game)
    assert (game.current_agent, game.state.phase.name) == ("blue_0", "COMMAND")


def test_one_maneuver_per_round():
    game = make_game([ship((0, 0))], [ship((100, 0))], dice=[10])
    act(game, propulsion="row")
    act(game, maneuver="pursue@enemy0")
    assert game.current_agent == "blue_0"


def escape_game(result="win", sides=("red",), dice=(), red_at=(0.0, 0.0), blue_at=(150.0, 0.0)):
    return make_game([ship(red_at)], [ship(blue_at)], dice=dice,
                     escape={"distance": 155, "sides": list(sides), "result": result})


def test_a_ship_beyond_the_escape_distance_at_the_end_of_the_round_escapes():
    """(Scenario rule) A ship of an escaping side farther than the escape distance from every enemy at the end of a
    round leaves the battle; in a chase that is its victory."""
    game = escape_game(dice=[10])
    act(game, propulsion="row")
    act(game, maneuver="flee@enemy0")                   # 160 yards apart
    events = act(game)
    assert [(e.ship, e.distance) for e in of(events, Escaped)] == [("red_0", 160.0)]
    assert of(events, GameEnded)[0] == GameEnded("red", "escaped")
    assert ships(game)["red_0"].status is Status.ESCAPED


@pytest.mark.parametrize("result, winner, reason", [("draw", None, "escaped"), ("loss", "blue", "enemy escaped")])
def test_what_escaping_is_worth_is_set_per_scenario(result, winner, reason):
    game = escape_game(result=result, dice=[10])
    act(game, propulsion="row")
    act(game, maneuver="flee@enemy0")
    events = act(game)
    assert of(events, GameEnded)[0] == GameEnded(winner, reason)


def test_only_the_listed_sides_can_escape():
    """Red opens the distance, but only blue may escape: it is blue that gets away."""
    game = escape_game(sides=("blue",), dice=[10])
    act(game, propulsion="row")
    act(game, maneuver="flee@enemy0")
    events = act(game)
    assert [e.ship for e in of(events, Escaped)] == ["blue_0"]
    assert ships(game)["red_0"].status is Status.AFLOAT and game.winner == "blue"


def test_last_side_fighting_wins():
    game = make_game([ship((0, 0))], [ship((100, 0))])
    game.state.ships["blue_0"].status = Status.SINKING
    events = act(game)
    assert of(events, GameEnded)[0] == GameEnded("red", "last side fighting")
    assert game.is_over and game.winner == "red" and not game.truncated and game.current_agent is None


def test_round_limit_ends_in_a_draw_reported_as_truncated():
    game = make_game([ship((0, 0))], [ship((100, 0))], house_rules={"max_rounds": 2})
    events = []
    while not game.is_over:
        events += act(game)
    assert of(events, GameEnded) == [GameEnded(None, "round_limit")]
    assert game.truncated and game.round == 2


@pytest.mark.parametrize("steps, bad, component", [
    ([], {"propulsion": "tend_sails"}, "propulsion"),           # on oars
    ([], {"command": "inspire", "maneuver": "pursue@enemy0"}, "maneuver"),   # maneuvers wait for their phase
    ([{"propulsion": "row"}], {"maneuver": "ram@enemy0"}, "maneuver"),       # 90 yards of water: out of reach
    ([{"propulsion": "row"}, {"maneuver": "hold"}], {"machines": ["fire@enemy0"]}, "machine_0"),  # not loaded
    ([{"propulsion": "row"}, {"maneuver": "hold"}], {"machines": ["idle", "load"]}, "machine_1"),  # no 2nd machine
])
def test_illegal_action_names_the_component_and_leaves_the_state_unchanged(steps, bad, component):
    game = make_game([ship((0, 0), machines=["cannon"])], [ship((100, 0))])
    for step in steps:
        act(game, **step)
    before = game.state_dict()
    rolls = len(game.dice.history)
    with pytest.raises(IllegalActionError, match=f"component '{component}'"):
        game.apply(game.current_agent, action(game, **bad))
    assert game.state_dict() == before and len(game.dice.history) == rolls


def test_acting_out_of_turn_and_after_the_end_is_refused():
    game = make_game([ship((0, 0))], [ship((100, 0))], house_rules={"max_rounds": 1})
    with pytest.raises(NotYourTurnError, match="it is red_0's decision"):
        game.apply("blue_0", game.action_spec.noop())
    while not game.is_over:
        act(game)
    with pytest.raises(GameOverError):
        game.apply("red_0", game.action_spec.noop())


def test_wrong_shape_is_refused():
    game = make_game([ship((0, 0))], [ship((100, 0))])
    with pytest.raises(IllegalActionError, match="expected"):
        game.apply("red_0", np.zeros(2, dtype=np.int64))


def test_agents_not_deciding_get_the_noop_mask():
    game = make_game([ship((0, 0))], [ship((100, 0))])
    assert np.array_equal(game.legal_mask("blue_0"), game.action_spec.noop_mask())
    assert allowed_labels(game, "maneuver") == ["hold"]          # not the maneuver phase yet
