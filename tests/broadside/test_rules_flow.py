"""The turn, the end of the battle, and refusals (engine rules around the document's)."""

from __future__ import annotations

import numpy as np
import pytest

from naval_env.core.errors import GameOverError, IllegalActionError, NotYourTurnError
from naval_env.core.events import GameEnded
from naval_env.rulesets.broadside.events import BoardingAttempt, MeleeFought, RoundStarted, ShipLost
from naval_env.rulesets.broadside.state import Phase
from naval_env.testing import allowed_labels, script

from .helpers import act, action, decision, make_game, of, ship

FAR_RED = [ship("galley", (6, 6), 90), ship("galley", (6, 30), 90)]
FAR_BLUE = [ship("sailing_ship", (42, 30), 270)]


def test_sides_alternate_activations_and_who_goes_first():
    game = make_game(FAR_RED, FAR_BLUE)
    assert game.state.order == ["red_0", "blue_0", "red_1"]
    while game.state.round == 1:
        act(game)
    assert game.state.order == ["blue_0", "red_0", "red_1"]


def test_full_ram_grapples_and_boards_unopposed_straight_to_melee():
    """'A galley that successfully delivers a full ram automatically grapples the defending ship (skip to melee).'
    'In the event of a full ram, boarding is unopposed and the attacker chooses how many marines have successfully
    boarded.'"""
    blue = [ship("sailing_ship", (20, 20), 0, crew=0, archers=0, marines=1, lieutenants=0, heroes=1)]
    game = make_game([ship("galley", (10, 20), 90)], blue, dice=[1, 1, 1, 1, 1])
    act(game, speed="ramming")
    assert decision(game) == ("red_0", "COLLISION_BOARD")
    script(game, 4, 2, 5, 3)             # melee at once: hero 4, marine 2; boarders 5 > 4, 3 > 2
    events = act(game, board="board@enemy0", boarders="quarter")
    [attempt] = of(events, BoardingAttempt)
    assert (attempt.marines, attempt.boarded, attempt.unopposed) == (3, 3, True)
    [melee] = of(events, MeleeFought)
    assert (melee.defender_dice, melee.attacker_rolls) == ((4, 2), (5, 3))
    assert of(events, ShipLost) == [ShipLost("blue_0", "prize", "red")]
    assert of(events, GameEnded) == [GameEnded("red", "last side fighting")]


def test_a_declined_collision_boarding_passes_to_the_struck_ship_which_boards_at_once():
    game = make_game([ship("sailing_ship", (10, 20), 90)], [ship("galley", (20, 20), 0)], dice=[1, 1])
    act(game, speed="battle")
    act(game)                                          # red declines
    assert decision(game) == ("blue_0", "COLLISION_BOARD")
    script(game, 9, 1, 1, 1, 1, 1, 1,                  # red's hero 9, six marines' 1s ...
           *[1] * 10)                                  # ... and blue's ten marines all roll 1: thrown back
    events = act(game, board="board@enemy0", boarders="all")
    [attempt] = of(events, BoardingAttempt)
    assert (attempt.ship, attempt.boarded, attempt.thrown_back) == ("blue_0", 0, 10)


def test_last_side_afloat_wins():
    game = make_game([ship("galley", (10, 20), 90)], [ship("sailing_ship", (20, 20), 0)], dice=[4, 4, 4, 4, 4])
    game.state.ships["blue_0"].hull = 20
    events = act(game, speed="ramming")
    assert of(events, ShipLost) == [ShipLost("blue_0", "sunk", None)]
    assert of(events, GameEnded) == [GameEnded("red", "last side fighting")]
    assert game.is_over and game.winner == "red" and not game.truncated and game.current_agent is None


def test_the_round_limit_is_a_draw_and_truncates():
    game = make_game(FAR_RED, FAR_BLUE, house_rules={"max_rounds": 2})
    events = []
    while not game.is_over:
        events += act(game)
    assert of(events, GameEnded) == [GameEnded(None, "round_limit")]
    assert game.truncated and game.winner is None and game.round == 2
    assert [e.round for e in of(events, RoundStarted)] == [2]


def test_illegal_action_names_the_component_and_leaves_the_state_unchanged():
    game = make_game([ship("sailing_ship", (10, 20), 90)], FAR_BLUE)
    before = game.state_dict()
    with pytest.raises(IllegalActionError, match="component 'speed': value 3 \\(ramming\\) is not allowed"):
        game.apply("red_0", action(game, speed="ramming"))
    with pytest.raises(IllegalActionError, match="component 'port'"):
        game.apply("red_0", action(game, port="fire@enemy0"))
    assert game.state_dict() == before


def test_acting_out_of_turn_and_after_the_end_are_refused():
    game = make_game(FAR_RED, FAR_BLUE, house_rules={"max_rounds": 1})
    with pytest.raises(NotYourTurnError, match="it is red_0's decision"):
        game.apply("blue_0", game.action_spec.noop())
    while not game.is_over:
        act(game)
    with pytest.raises(GameOverError):
        game.apply("red_0", game.action_spec.noop())


def test_only_the_decider_has_a_mask_and_value_zero_is_always_legal():
    game = make_game(FAR_RED, FAR_BLUE)
    noop = game.action_spec.noop_mask()
    assert np.array_equal(game.legal_mask("blue_0"), noop)
    mask = game.legal_mask("red_0")
    assert all(part[0] for part in game.action_spec.split(mask))
    assert allowed_labels(game, "board") == ["none"]
    assert game.state.phase is Phase.MANEUVER
