"""Sinking and the end of the battle (document, "Cohesión": "Al perder toda su cohesión la nave se hundirá
de inmediato. Si hay personajes importantes a bordo tienen un 50% de probabilidad de morir (o ser
capturados si fue durante un abordaje).")."""

from __future__ import annotations

import json

import pytest

from naval_env.core.events import GameEnded
from naval_env.rulesets.flotilla import RULESET
from naval_env.rulesets.flotilla.events import CharacterFate, HitLocation, Sunk
from naval_env.testing import damage_list

from .helpers import act, make_game, of, ship, ships
from .test_rules_attack import duel


def test_a_ship_at_zero_cohesion_sinks_at_once_and_leaves_the_map():
    game = duel(dice=[6, 1, 1, 2, 2, 2])
    ships(game)["blue_0"].cohesion = 1
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert damage_list(events) == [("blue_0", 1, "red_0", "gunfire")]
    assert of(events, Sunk) == [Sunk("blue_0", "gunfire")]
    assert of(events, HitLocation) == []                                   # no location roll for a wreck
    assert not ships(game)["blue_0"].afloat and "blue_0" not in game.state.occupancy.values()
    assert of(events, GameEnded) == [GameEnded("red", "last side afloat")]
    assert game.is_over and game.winner == "red" and not game.truncated and game.current_agent is None
    assert not game.is_active("blue_0") and game.health("blue_0") == (0, 4)


@pytest.mark.parametrize("fates, expected", [
    ([3, 4], [("captain", 3, "died"), ("hero", 4, "survived")]),
    ([6, 1], [("captain", 6, "survived"), ("hero", 1, "died")]),
])
def test_important_characters_aboard_die_on_a_fifty_percent_roll(fates, expected):
    """A d6 each, captain then hero: 1-3 dies (ASSUMPTION: fate_die, fate_threshold)."""
    game = duel(dice=[6, 1, 1, 2, 2, 2, *fates], blue_kw={"hero": True}, situations={"character_fate": True})
    ships(game)["blue_0"].cohesion = 1
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert [(e.character, e.roll, e.fate) for e in of(events, CharacterFate)] == expected
    assert game.dice.history[-1].sides == 6 and game.dice.history[-1].reason == "fate: blue_0 hero"


def test_a_dead_captain_has_no_fate_to_roll():
    game = duel(dice=[6, 1, 1, 2, 2, 2], situations={"character_fate": True})
    blue = ships(game)["blue_0"]
    blue.cohesion, blue.captain_alive, blue.captain_dice = 1, False, 0
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    assert of(events, CharacterFate) == []


def test_both_sides_sinking_at_once_is_a_draw():
    game = make_game([ship("brig", (3, 7), "E")], [ship("brig", (6, 7), "N")], dice=[6, 1, 1, 1, 5, 1, 3, 3])
    ships(game)["red_0"].cohesion = 1
    ships(game)["blue_0"].cohesion = 2
    events = act(game, maneuver="ram@enemy0")
    assert of(events, Sunk) == [Sunk("blue_0", "collision"), Sunk("red_0", "collision")]
    assert of(events, GameEnded) == [GameEnded(None, "no ship afloat")]
    assert game.winner is None and not game.truncated


def test_the_round_limit_ends_the_battle_in_a_draw():
    """ASSUMPTION: house_rules.max_rounds; reported as truncated."""
    game = make_game([ship("cutter", (0, 0), "N")], [ship("cutter", (14, 14), "S")], dice=[6, 1, 1, 1],
                     house_rules={"max_rounds": 1})
    act(game, maneuver="ahead")
    events = act(game, maneuver="ahead")
    assert of(events, GameEnded) == [GameEnded(None, "round_limit")]
    assert game.is_over and game.truncated and game.winner is None and game.round == 1


def test_state_dict_is_json_ready_and_events_round_trip():
    game = duel(dice=[6, 1, 1, 2, 2, 2, 5])
    act(game, target="ship@enemy0")
    events = act(game, reaction="counter")
    json.dumps(game.state_dict())
    assert events
    for event in events:
        assert RULESET.events.from_dict(json.loads(json.dumps(event.to_dict()))) == event
