"""Who controls a ship: pilot or captain, who may captain, the ship's Agility and Defense."""

from __future__ import annotations

import pytest

from naval_env.core.errors import ConfigError
from naval_env.rulesets.pursuit.events import RollMade

from .helpers import act, make_game, of, ship, ships


@pytest.mark.parametrize("role, agility, intellect, will, ship_agility, defense", [
    ("pilot", 14, 10, 10, 7, 7),       # half the pilot's Agility
    ("pilot", 9, 18, 18, 4, 5),        # Intellect and Will do not count for a pilot; Defense at least 5
    ("captain", 18, 12, 15, 7, 7),     # half the captain's Intellect or Will (the better one)
    ("captain", 18, 13, 9, 6, 6),
    ("captain", 10, 8, 8, 4, 5),       # minimum Defense 5
])
def test_controller_sets_the_ships_agility_and_defense(role, agility, intellect, will, ship_agility, defense):
    """'A ship controlled by a pilot replaces its Agility with half the pilot's Agility score. A ship controlled by
    a captain replaces its Agility with half the captain's Intellect score or Will score. In both cases, the
    ship's Defense when it is piloted equals its Agility score (minimum 5).'"""
    cls = "rowboat" if role == "pilot" else "hulk"
    game = make_game([ship((0, 0), cls, role=role, agility=agility, intellect=intellect, will=will)],
                     [ship((100, 0))])
    red = ships(game)["red_0"]
    assert (red.agility, red.defense) == (ship_agility, defense)


def test_the_ships_agility_is_what_dodges_war_machines():
    """A pilot with Agility 16 gives the boat Agility 8: its dodge against a ballista is d20 - 2 with 1 bane.
    (Then 3d6 damage, the struck spot on a rowboat's 2, and 5% of its 1 crew: nobody.)"""
    game = make_game([ship((0, 0), machines=[{"machine": "ballista", "gunners": 2}])],
                     [ship((50, 0), "rowboat", role="pilot", agility=16)], dice=[11, 1, 1, 1, 1, 2, 1])
    game.state.ships["red_0"].machines[0].loaded = True
    act(game)
    events = act(game, machines=["fire@enemy0"])
    assert [(e.ship, e.modifier, e.total, e.result) for e in of(events, RollMade)] == [("blue_0", -2, 8, "failure")]


def test_larger_vessels_need_a_captain():
    """'Smaller vessels such as rowboats need only a pilot, while larger vessels such as triremes and galleons
    require a captain.'"""
    with pytest.raises(ConfigError, match="a galleon needs a captain, not a pilot"):
        make_game([ship((0, 0), "galleon", role="pilot", propulsion="sails")], [ship((100, 0))])
    make_game([ship((0, 0), "rowboat", role="pilot")], [ship((100, 0))])          # a pilot suffices
    make_game([ship((0, 0), "rowboat", role="captain")], [ship((100, 0))])        # a captain may take it too


def test_a_captain_needs_a_seafaring_profession():
    """'To captain a ship, a character must have an appropriate profession (sailor, boatman, ferryman, pirate,
    fisher, whaler, or something similar).'"""
    data = ship((0, 0))
    data["controller"]["profession"] = "baker"
    with pytest.raises(ConfigError, match="'baker' cannot captain a ship"):
        make_game([data], [ship((100, 0))])
    for profession in ("sailor", "boatman", "ferryman", "pirate", "fisher", "whaler"):
        data["controller"]["profession"] = profession
        make_game([data], [ship((100, 0))])


def test_the_profession_list_is_a_house_rule():
    data = ship((0, 0))
    data["controller"]["profession"] = "smuggler"
    with pytest.raises(ConfigError, match="'smuggler' cannot captain a ship"):   # not on the default list
        make_game([data], [ship((100, 0))])
    game = make_game([data], [ship((100, 0))], house_rules={"captain_professions": ["smuggler", "sailor"]})
    assert ships(game)["red_0"].controller.profession == "smuggler"


def test_pilots_roll_their_maneuvers_with_their_intellect():
    """Each captain or pilot makes the maneuver roll with its Intellect (a rowboat has 1 boon of maneuverability)."""
    game = make_game([ship((0, 0), "rowboat", role="pilot", intellect=14)], [ship((100, 0), intellect=13)],
                     dice=[8, 1])
    act(game, propulsion="row")
    events = act(game, maneuver="pursue@enemy0")
    roll = of(events, RollMade)[0]
    assert (roll.modifier, roll.boon_die, roll.total, roll.target, roll.result) == (4, 1, 13, 13, "success")
