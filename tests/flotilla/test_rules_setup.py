"""Set-up (document: "El enfrentamiento se desarrolla sobre un mapa de 15 x 15 casillas ...") and
initiative ("Al inicio de la ronda cada capitán hará un tiro de dirección ...")."""

from __future__ import annotations

import pytest

from naval_env.core.dice import DiceExhaustedError
from naval_env.rulesets.flotilla import RULESET
from naval_env.rulesets.flotilla.config import load_config
from naval_env.rulesets.flotilla.events import (
    FacingChosen,
    Held,
    InitiativeRolled,
    Placed,
    RoundStarted,
    WindChanged,
)
from naval_env.rulesets.flotilla.geometry import footprint, gap
from naval_env.rulesets.flotilla.state import CALM, Phase
from naval_env.testing import allowed_labels

from .helpers import act, make_config, make_game, of, ship, ships

RED = [ship("brig", (2, 7), "E")]
BLUE = [ship("brig", (9, 7), "W")]


def test_the_map_is_fifteen_by_fifteen():
    """'un mapa de 15 x 15 casillas (75 x 75 a escala jugador)'"""
    game = RULESET.new_game(load_config(), "duel", seed=3)
    assert (game.state.width, game.state.height) == (15, 15)


def test_one_side_attacks_and_the_other_defends():
    """'Un bando se define como atacante y otro como defensor.'"""
    config = load_config()
    for scenario in config.scenarios.values():
        assert sorted(side.role for side in scenario.sides) == ["attacker", "defender"]
    game = RULESET.new_game(config, "duel", seed=0)
    assert game.state.attacker_side == "red"


def candidates(game_ships, size, facing, zone, forbidden=()):
    bows = []
    for y in range(zone[1][0], zone[1][1] + 1):
        for x in range(zone[0][0], zone[0][1] + 1):
            squares = footprint(x, y, facing, size)
            if all(0 <= sx < 15 and 0 <= sy < 15 for sx, sy in squares) and all(
                    gap(squares, other) >= 4 for other in forbidden):
                bows.append((x, y))
    return bows


def test_defender_starts_in_the_centre_and_attacker_at_least_four_squares_away():
    """'El defensor inicia en el centro del mapa mientras que el atacante se despliega a al menos 4 casillas
    de distancia.' Placement dice: one per ship, defender first, over the free bow squares row by row."""
    centre = ((5, 9), (5, 9))
    defender_bows = candidates([], 2, 6, centre)
    assert len(defender_bows) == 25 and defender_bows[12] == (7, 7)
    defender_squares = footprint(7, 7, 6, 2)
    attacker_bows = candidates([], 2, 2, ((0, 14), (0, 14)), [defender_squares])
    game = make_game([ship("brig")], [ship("brig")], dice=[13, 1, 4, 6, 1, 5, 1],
                     zones=(None, None), house_rules={"min_attacker_distance": 4})
    history = game.dice.history
    assert (history[0].sides, history[0].values, history[0].reason) == (25, (13,), "placement: blue_0")
    assert (history[1].sides, history[1].reason) == (len(attacker_bows), "placement: red_0")
    blue, red = ships(game)["blue_0"], ships(game)["red_0"]
    assert (blue.x, blue.y) == (7, 7)
    assert (red.x, red.y) == attacker_bows[0] == (1, 0)
    assert gap(red.squares, blue.squares) >= 4
    assert of(game.opening_events, Placed) == [Placed("blue_0", 7, 7, "W"), Placed("red_0", 1, 0, "E")]


@pytest.mark.parametrize("seed", range(20))
def test_shipped_scenarios_always_place_every_fleet(seed):
    config = load_config()
    for name in config.scenarios:
        game = RULESET.new_game(config, name, seed=seed)
        state = game.state
        attackers = [s for s in state.ships.values() if s.side == state.attacker_side]
        defenders = [s for s in state.ships.values() if s.side != state.attacker_side]
        assert attackers and defenders, name
        for d in defenders:
            assert max(abs(d.x - 7), abs(d.y - 7)) <= 2
            for a in attackers:
                assert gap(a.squares, d.squares) >= 4


def test_an_explicit_attacker_position_too_close_is_refused():
    from naval_env.core.errors import ConfigError

    with pytest.raises(ConfigError, match="starts 2 squares from a defender; the attacker deploys at least 4 away"):
        make_config([ship("brig", (5, 7), "E")], [ship("brig", (7, 7), "W")], zones=(None, None),
                    house_rules={"min_attacker_distance": 4})
    with pytest.raises(ConfigError, match="the defender starts in the centre"):
        make_config([ship("brig", (2, 2), "E")], [ship("brig", (12, 7), "W")], zones=(None, None))


def test_each_captain_chooses_its_facing_defender_first():
    """'La orientación inicial de cada barco es libre elección.' A DEPLOY decision per ship, before the wind."""
    game = make_game(RED, BLUE, dice=[2, 6, 1, 5, 1], house_rules={"captains_choose_facing": True},
                     situations={"wind": "random"})
    assert game.current_agent == "blue_0" and game.state.phase is Phase.DEPLOY
    assert game.dice.history == []                       # the wind waits for every facing
    events = act(game, facing="S")
    assert of(events, FacingChosen) == [FacingChosen("blue_0", "S")]
    assert ships(game)["blue_0"].squares == ((10, 8), (10, 7))   # turned on its stern square
    assert game.current_agent == "red_0"
    events = act(game, facing="keep")
    assert of(events, WindChanged) == [WindChanged(5, 2, "S")]
    assert of(events, RoundStarted) == [RoundStarted(1)]
    assert game.state.phase is Phase.MOVE


def test_a_facing_that_would_leave_the_map_is_not_offered():
    game = make_game([ship("brig", (0, 0), "N")], [ship("brig", (9, 7), "W")],
                     house_rules={"captains_choose_facing": True})
    act(game, facing="keep")                               # blue first
    assert game.current_agent == "red_0"
    # stern on (0, 1): the bow may swing to NE, E, SE or S, not to the west.
    assert allowed_labels(game, "facing") == ["keep", "NE", "E", "SE", "S"]


@pytest.mark.parametrize("roll, wind", [(1, "N"), (2, "S"), (3, "E"), (4, "W"), (5, "calm")])
def test_wind_is_rolled_on_1d5_after_placement(roll, wind):
    """'La dirección del viento se determina al azar mediante un tiro de 1d5 tras la colocación inicial.'
    1-4 as the sails trait reads its 1d4; 5 is a calm (ASSUMPTION: setup_wind_table)."""
    game = make_game(RED, BLUE, dice=[roll, 6, 1, 5, 1], situations={"wind": "random"})
    assert of(game.opening_events, WindChanged) == [WindChanged(5, roll, wind)]
    assert game.dice.history[0].reason == "wind"
    assert game.state.wind == {"N": 0, "S": 4, "E": 2, "W": 6, "calm": CALM}[wind]


def test_a_fixed_wind_is_a_scenario_option():
    game = make_game(RED, BLUE, dice=[6, 1, 5, 1], situations={"wind": "E"})
    assert of(game.opening_events, WindChanged) == [WindChanged(0, 0, "E")]


# ----------------------------------------------------------------------------------- initiative
def test_initiative_is_an_opposed_steering_roll_highest_die_first():
    """'cada capitán hará un tiro de dirección ... Se cogerá el número más alto de ambos tiros y ganará
    quien obtenga el mejor resultado'"""
    game = make_game(RED, BLUE, dice=[3, 4, 5, 1])
    assert of(game.opening_events, InitiativeRolled) == [InitiativeRolled(("blue_0", "red_0"), ((5, 1), (4, 3)))]
    assert game.state.order == ["blue_0", "red_0"] and game.current_agent == "blue_0"


def test_initiative_tie_goes_to_the_second_highest():
    """'En caso de empate se escoge el segundo más alto y así progresivamente.'"""
    game = make_game(RED, BLUE, dice=[5, 2, 1, 5])
    assert game.state.order == ["red_0", "blue_0"]


def test_initiative_full_tie_is_rerolled_by_the_tied_captains():
    """'En caso de empate se repetirá el tiro hasta que haya ganador.'"""
    game = make_game(RED + [ship("cutter", (2, 12), "E")], BLUE, dice=[5, 2, 1, 1, 2, 5, 3, 3, 6, 1])
    rolls = of(game.opening_events, InitiativeRolled)
    assert rolls[0] == InitiativeRolled(("red_0", "blue_0", "red_1"), ((5, 2), (5, 2), (1, 1)))
    assert rolls[1] == InitiativeRolled(("blue_0", "red_0"), ((6, 1), (3, 3)))
    assert game.state.order == ["blue_0", "red_0", "red_1"]


def test_initiative_is_rolled_every_round():
    """'Al inicio de la ronda': every round, so the order can change."""
    game = make_game([ship("cutter", (2, 2), "E")], [ship("cutter", (12, 12), "W")], dice=[6, 1, 1, 1, 2, 2, 3, 1])
    assert game.state.order == ["red_0", "blue_0"]
    act(game, maneuver="ahead")
    events = act(game, maneuver="ahead")                   # no one in range: round 2 starts
    assert of(events, RoundStarted) == [RoundStarted(2)]
    assert of(events, InitiativeRolled) == [InitiativeRolled(("blue_0", "red_0"), ((3, 1), (2, 2)))]
    assert game.current_agent == "blue_0"


def test_initiative_dice_without_a_script_fail_loudly():
    with pytest.raises(DiceExhaustedError):
        make_game(RED, BLUE, dice=[6, 1])


def test_captainless_ship_rolls_no_initiative_dice_and_acts_last():
    game = make_game([ship("cutter", (2, 2), "E")], [ship("cutter", (12, 12), "W")], dice=[6, 1, 1, 1, 1, 1])
    blue = ships(game)["blue_0"]
    blue.captain_alive, blue.captain_dice = False, 0
    events = act(game, maneuver="ahead")                   # blue has no captain: it holds; round 2
    assert of(events, Held) == [Held("blue_0", "no captain")]
    assert of(events, InitiativeRolled) == [InitiativeRolled(("red_0", "blue_0"), ((1, 1), ()))]
    assert [r.reason for r in game.dice.history[-1:]] == ["initiative: red_0"]
    assert game.current_agent == "red_0"
