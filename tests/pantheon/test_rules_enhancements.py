"""Ship Enhancements (document: Ship Enhancements)."""

from __future__ import annotations

import pytest

from naval_env.core.errors import ConfigError
from naval_env.rulesets.pantheon.events import InitiativeRolled
from naval_env.testing import allowed

from .helpers import act, make_config, make_game, of, ship


def one_ship(enhancements, **kw):
    return make_game([ship("trireme", (2, 5), "E", wits=4, enhancements=enhancements, **kw)],
                     [ship("trireme", (11, 0), "W", wits=0)])


def test_initiative_enhancement_adds_three():
    """'Initiative: Add +3 to your Initiative rating.'"""
    game = make_game([ship("trireme", (2, 5), "E", wits=1, enhancements=["initiative"])],   # 1+2+3+3 = 9
                     [ship("trireme", (11, 0), "W", wits=3)])                              # 8
    assert game.state.order == ["red_0", "blue_0"]
    assert of(game.opening_events, InitiativeRolled)[0].scores == (9, 8)


def test_speed_enhancement_adds_one_speed():
    """'Speed: Add +1 Speed to your ship's speed rating.'"""
    game = one_ship(["speed"])
    assert game.state.ships["red_0"].speed == 5
    assert game.state.ships["red_0"].speed_this_turn == 5           # wind across
    assert allowed(game, "maneuver", "ahead 5") and not allowed(game, "maneuver", "ahead 6")


def test_armor_enhancement_adds_five_health():
    """'Armor: Increase your ship's Health rating by 5.'"""
    game = one_ship(["armor"])
    red = game.state.ships["red_0"]
    assert (red.health, red.max_health) == (17, 17)


def test_range_enhancement_lets_fire_reach_four_spaces():
    """'Range: Your 'Fire!' attacks may target ships up to four spaces away instead of the normal three.'"""
    for enhancements, reach in (([], 3), (["range"], 4)):
        for distance in (3, 4, 5):
            game = make_game([ship("trireme", (2, 5), "E", wits=4, enhancements=enhancements)],
                             [ship("trireme", (2 + distance, 5), "W", wits=0)])
            act(game, maneuver="hold")
            assert allowed(game, "attack", "fire@enemy0") is (distance <= reach)


def test_enhancements_stack():
    """'These benefits stack with the exception of Range'."""
    game = make_game([ship("trireme", (2, 5), "E", wits=0, enhancements=["speed", "speed", "armor", "initiative"])],
                     [ship("trireme", (11, 0), "W", wits=0, enhancements=["initiative", "initiative"])])
    red, blue = game.state.ships["red_0"], game.state.ships["blue_0"]
    assert (red.speed, red.max_health, red.initiative) == (6, 17, 0 + 2 + 3 + 3)
    assert blue.initiative == 0 + 2 + 3 + 6
    assert game.state.order == ["blue_0", "red_0"]


def test_four_enhancements_are_allowed_a_fifth_is_refused():
    """'Any ship may only ever have a total of four of these upgrades to it'."""
    make_config([ship("trireme", (2, 5), enhancements=["speed", "armor", "armor", "range"])], [ship("trireme", (11, 0))])
    with pytest.raises(ConfigError, match=r"5 upgrades; at most 4"):
        make_config([ship("trireme", (2, 5), enhancements=["speed", "armor", "armor", "range", "initiative"])],
                    [ship("trireme", (11, 0))])


def test_range_only_once():
    """'... with the exception of Range which can only ever be added once to a ship.'"""
    with pytest.raises(ConfigError, match="'range' can be added to a ship only once"):
        make_config([ship("trireme", (2, 5), enhancements=["range", "range"])], [ship("trireme", (11, 0))])


def test_unknown_enhancement_is_refused():
    with pytest.raises(ConfigError, match="enhancements"):
        make_config([ship("trireme", (2, 5), enhancements=["cannons"])], [ship("trireme", (11, 0))])
