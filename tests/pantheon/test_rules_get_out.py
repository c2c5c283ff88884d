"""Get Us Out Of Here! (document: Get Us Out Of Here!)."""

from __future__ import annotations

from naval_env.core.grid import Compass
from naval_env.rulesets.pantheon.events import AttackDeclared, Moved, TieBroken
from naval_env.rulesets.pantheon.events import TestThrown as Thrown
from naval_env.rulesets.pantheon.state import Phase
from naval_env.testing import allowed, allowed_labels, damage_list, script

from .helpers import act, make_game, of, ship


def free_game():
    game = make_game([ship("trireme", (2, 5), "E", wits=4)], [ship("trireme", (10, 10), "W", wits=0)])
    assert game.current_agent == "red_0"
    return game


def test_extra_move_of_two_spaces_and_one_more_turn_instead_of_attacking():
    """'This action allows the captain to get even more movement out of their ship by giving up the chance to
    attack. Upon choosing this action, the captain may move their ship up to another two spaces and make an
    additional turn to the left or the right at any point during their movement.'"""
    game = free_game()
    act(game, maneuver="ahead 4, starboard after 4")     # full allowance, turning SE at the end
    events = act(game, attack="get_us_out")
    assert of(events, AttackDeclared) == [AttackDeclared("red_0", "get_us_out", None)]
    assert game.state.phase is Phase.ESCAPE and game.current_agent == "red_0"
    events = act(game, escape="ahead 2, port after 1")
    moved = of(events, Moved)[0]
    assert moved.path == ((6, 5), (7, 6), (8, 6))
    assert (moved.facing_from, moved.facing_to, moved.allowance) == (int(Compass.SE), int(Compass.E), 2)
    assert game.current_agent == "blue_0"                 # no attack this turn


def test_no_test_when_not_boarded():
    """'This action does not require a test, unless they are engaged in a boarding action with another ship.'"""
    game = free_game()
    act(game, maneuver="hold")
    events = act(game, attack="get_us_out")
    assert of(events, Thrown) == [] and game.dice.history == []
    assert game.state.phase is Phase.ESCAPE


def test_extra_move_is_at_most_two_spaces_with_one_turn():
    game = free_game()
    act(game, maneuver="hold")
    act(game, attack="get_us_out")
    labels = allowed_labels(game, "escape_maneuver")
    assert "ahead 2" in labels and "ahead 2, starboard after 2" in labels and "turn port1" in labels
    table = game.actions.escape_maneuvers.maneuvers
    assert max(m.forward for m in table) == 2
    assert max(abs(m.turn) for m in table) == 1           # one extra turn of one point, even in place


def boarded_game():
    """Red (trireme, defense pool 8) has boarded blue (quinquereme, attack pool 3+2+1 = 6); blue's turn."""
    game = make_game([ship("trireme", (4, 5), "E", wits=4)], [ship("quinquereme", (5, 5), "W", wits=0)],
                     dice=[2, 4])
    act(game, maneuver="hold")
    act(game, attack="board@enemy0")
    assert game.current_agent == "blue_0" and game.state.ships["blue_0"].boarded_by == "red_0"
    return game


def test_boarded_captain_initiating_is_the_attacker_and_failure_keeps_it_in_place():
    """'the attacking captain (which in this case is the one initiating this action, even if they are the ones
    being boarded) must make a test against the defending captain ... If they fail, they remain where they are,
    unable to move.'"""
    game = boarded_game()
    script(game, 1, 5)
    events = act(game, attack="get_us_out")
    [t] = of(events, Thrown)
    assert (t.test, t.attacker, t.defender, t.attack_pool, t.defense_pool, t.result) == (
        "get us out", "blue_0", "red_0", 6, 8, "failure")
    assert damage_list(events) == []
    assert game.state.ships["blue_0"].boarded_by == "red_0"
    assert (game.state.ships["blue_0"].x, game.state.ships["blue_0"].y) == (5, 5)
    assert game.current_agent == "red_0"                  # blue's turn is over


def test_success_breaks_the_tie_moves_and_scrapes_one_damage():
    """'If they succeed, they are able to proceed with the move, but take 1 point of damage as they scrape against
    the enemy hull.' It also ends the tie: 'The defending captain succeeds in a 'Get Us Out Of Here!' action'."""
    game = boarded_game()
    script(game, 7, 1)                                    # 13 vs 9
    events = act(game, attack="get_us_out")
    assert of(events, Thrown)[0].result == "success"
    assert of(events, TieBroken) == [TieBroken("red_0", "blue_0", "got out")]
    assert damage_list(events) == [("blue_0", 1, "red_0", "scraped free")]
    assert game.state.ships["blue_0"].health == 15
    assert game.state.phase is Phase.ESCAPE
    assert not allowed(game, "escape_maneuver", "ahead 1")     # red is dead ahead
    events = act(game, escape="ahead 2, port after 0")
    assert of(events, Moved)[0].path == ((5, 5), (4, 6), (3, 7))
    assert game.state.ships["red_0"].boarding is None


def test_exceptional_success_gets_out_without_damage():
    """'If they exceptionally succeed, they are able to move as above, taking no damage in the process.'"""
    game = boarded_game()
    script(game, 10, 1)                                   # 16 vs 9
    events = act(game, attack="get_us_out")
    assert of(events, Thrown)[0].result == "exceptional"
    assert damage_list(events) == []
    assert game.state.ships["blue_0"].boarded_by is None
    assert game.state.phase is Phase.ESCAPE


def test_boarder_may_also_get_out_after_the_exchange():
    game = boarded_game()
    act(game, attack="none")
    act(game, turn_order="proceed")
    script(game, 2, 4)                                    # red 9+2 vs blue defense 6+4
    events = act(game, attack="get_us_out")
    [t] = of(events, Thrown)
    assert (t.attacker, t.defender, t.result) == ("red_0", "blue_0", "success")
    assert damage_list(events) == [
        ("blue_0", 3, "red_0", "boarding melee"), ("red_0", 4, "blue_0", "boarding melee"),
        ("red_0", 1, "blue_0", "scraped free"),
    ]
    assert game.state.phase is Phase.ESCAPE and game.state.ships["red_0"].boarding is None
