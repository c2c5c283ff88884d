"""`broadside` positions: the short form's exact defaults, every refusal with its path, and hand-built
positions that play on by the rules with scripted dice (the contract itself: tests/core/test_positions.py)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from naval_env.core.dice import ScriptedDice
from naval_env.rulesets.broadside import RULESET
from naval_env.rulesets.broadside.engine import BroadsideGame
from naval_env.rulesets.broadside.events import RoundStarted, Volley
from naval_env.rulesets.broadside.state import Phase, Status
from naval_env.testing import allowed_labels, damage_list
from tests.helpers import loaded, position_refusal

from .helpers import SCENARIO, act, decision, make_config, of, ship

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules" / "broadside.md"
SCENE = "galley_vs_sailing_ship"


def documented_example() -> dict[str, Any]:
    """The short form shown under "Positions" in docs/rules/broadside.md."""
    section = DOC.read_text(encoding="utf-8").split("## Positions", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the Positions section has no JSON example"
    data: dict[str, Any] = json.loads(block[1])
    return data


def alongside(red: dict[str, Any] | None = None, blue: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    """The galley (red) 0.75 inch off the sailing ship's (blue) starboard side, both heading north:
    within boarding distance, hulls clear of each other."""
    return {
        "ruleset": "broadside", "scenario": SCENE,
        "ships": [{"id": "red_0", "vessel": "galley", "x": 22.5, "y": 20, "heading": 0, **(red or {})},
                  {"id": "blue_0", "vessel": "sailing_ship", "x": 20, "y": 20, "heading": 0, **(blue or {})}],
        **top,
    }


def load(data: dict[str, Any], config: Any = None, dice: ScriptedDice | None = None) -> BroadsideGame:
    return loaded(RULESET, BroadsideGame, data, config, dice=dice)


def refused(data: dict[str, Any], config: Any = None) -> list[tuple[str, str]]:
    return position_refusal(RULESET, data, config)


def only_problem(data: dict[str, Any], config: Any = None) -> tuple[str, str]:
    problems = refused(data, config)
    assert len(problems) == 1, problems
    return problems[0]


# ------------------------------------------------------------------ short forms
def test_the_documented_short_form_loads_with_exact_defaults() -> None:
    game = load(documented_example())
    assert game.opening_events == []
    assert decision(game) == ("blue_0", "GUNNERY")
    position = game.position()
    assert (position["version"], position["scenario"], position["board"], position["wind"], position["icebergs"]) == (
        "1.0", SCENE, [48.0, 36.0], 0.0, [])
    assert (position["round"], position["stage"], position["phase"], position["order"], position["activation"]) == (
        1, "activations", "gunnery", ["red_0", "blue_0"], 1)
    assert (position["pending"], position["collision"], position["boarding_orders"], position["ended"]) == (
        [], None, [], False)
    red, blue = position["ships"]
    assert (red["hull"], red["max_hull"], red["status"], red["activated"]) == (12, 30, "afloat", True)
    assert (blue["hull"], blue["max_hull"], blue["activated"]) == (36, 36, True)
    # the galley's archers are the scenario's (12, a double complement), the rest its vessel's
    assert [red[who] for who in ("crew", "archers", "marines", "lieutenants", "heroes")] == [6, 12, 10, 1, 1]
    assert [blue[who] for who in ("crew", "archers", "marines", "lieutenants", "heroes")] == [10, 4, 6, 2, 1]
    assert (red["guns"], blue["guns"]) == ({"port": 0, "starboard": 0, "turret": 0},
                                           {"port": 2, "starboard": 2, "turret": 0})
    shape = game.state.ships["red_0"].shape
    assert (shape.x, shape.y, shape.heading, shape.length, shape.beam) == (28.0, 20.0, 0.0, 7.0, 1.5)
    assert allowed_labels(game, "starboard") == ["hold", "fire@enemy0"]


def test_a_turn_begins_with_the_first_sides_ship_in_odd_turns_and_the_seconds_in_even() -> None:
    data = alongside(red={"x": 30})
    del data["ships"][1]["heading"]                       # the scenario sets blue_0 up heading 90
    game = load(data)
    assert game.state.ships["blue_0"].shape.heading == 90.0
    assert decision(game) == ("red_0", "MANEUVER") and game.state.pending == [("red_0", 0), ("red_0", 1)]
    assert (game.state.ships["red_0"].activated, game.state.ships["blue_0"].activated) == (True, False)
    game = load(alongside(red={"x": 30}, round=2))
    assert game.state.order == ["blue_0", "red_0"] and decision(game) == ("blue_0", "MANEUVER")


def test_people_come_from_the_scenarios_set_up_for_that_ship_id_and_vessel() -> None:
    config = make_config([ship("galley", (10, 18), 90, marines=3)], [ship("sailing_ship", (38, 18), 270)])
    base = {"ruleset": "broadside", "scenario": SCENARIO}
    red = {"id": "red_0", "vessel": "galley", "x": 10, "y": 18}
    blue = {"id": "blue_0", "vessel": "sailing_ship", "x": 38, "y": 18, "heading": 270}
    game = load({**base, "ships": [red, blue]}, config)
    assert (game.state.ships["red_0"].people.marines, game.state.ships["red_0"].shape.heading) == (3, 90.0)
    game = load({**base, "ships": [{**red, "vessel": "sharkboat"}, blue]}, config)
    assert game.state.ships["red_0"].people.marines == 2                  # the sharkboat's own complement


def test_wind_and_icebergs_default_to_the_scenarios_and_may_be_given() -> None:
    data = {"ruleset": "broadside", "scenario": "fleet_with_iceberg",
            "ships": [{"id": "red_0", "vessel": "galley", "x": 9, "y": 9},
                      {"id": "blue_0", "vessel": "ironclad", "x": 51, "y": 9}]}
    game = load(data)
    assert game.state.wind == 45.0 and (game.state.width, game.state.height) == (60.0, 42.0)
    assert [(b.id, b.shape.x, b.shape.y, b.shape.length) for b in game.state.icebergs] == [
        ("iceberg_0", 30.0, 21.0, 5.0), ("iceberg_1", 27.0, 33.0, 2.5)]
    game = load({**data, "wind": 180, "icebergs": []})
    assert game.state.wind == 180.0 and game.state.icebergs == []


def test_the_boarding_stage_goes_to_the_first_ship_with_something_to_do() -> None:
    game = load(alongside(phase="boarding"))
    assert decision(game) == ("red_0", "BOARDING") and game.state.cursor == 1
    assert allowed_labels(game, "board") == ["none", "board@enemy0"]
    game = load(alongside(red={"marines": 0, "heroes": 0, "archers_fired": True}, phase="boarding"))
    assert decision(game) == ("blue_0", "BOARDING") and game.state.pending == [("blue_0", 3)]


def test_a_melee_and_a_collision_are_held_as_given() -> None:
    game = load(alongside(red={"grappled": ["blue_0"]}, blue={"boarders": [{"owner": "red_0", "marines": 3}]},
                          phase="melee"))
    assert decision(game) == ("red_0", "MELEE") and allowed_labels(game, "melee") == ["fight", "withdraw"]
    assert game.state.ships["blue_0"].grappled == ["red_0"]             # a grapple binds both ships
    game = load(alongside(phase="collision_board", collision={"activated": "red_0", "struck": "blue_0"}))
    assert decision(game) == ("red_0", "COLLISION_BOARD")
    assert game.state.pending == [("red_0", 2), ("blue_0", 2), ("red_0", 1)] and game.state.cursor == 0


# --------------------------------------------------------- playing on by the rules
def test_a_loaded_position_plays_on_by_the_rules_with_exact_dice() -> None:
    """The documented position: blue's starboard battery (two cannons, from (21, 20)) fires at the galley's
    centre 7 inches off: d20s 7 and 7 both hit; d6 damage 3 and 4 take the galley from 12 to 5. Every ship has
    moved, so the boarding stage opens: nobody within an inch, but red's archers (8 + 6 = 14) have a shot."""
    game = load(documented_example(), dice=ScriptedDice([7, 7, 3, 4]))
    events = act(game, starboard="fire@enemy0")
    [volley] = of(events, Volley)
    assert (volley.battery, volley.distance, volley.rolls, volley.hits, volley.rake) == (
        "starboard", 7.0, (7, 7), 2, False)
    assert damage_list(events) == [("red_0", 3, "blue_0", "cannon"), ("red_0", 4, "blue_0", "cannon")]
    assert game.state.ships["red_0"].hull == 5
    assert decision(game) == ("red_0", "BOARDING") and allowed_labels(game, "archers") == ["hold", "shoot@enemy0"]


def test_a_sinking_shot_ends_the_battle() -> None:
    data = documented_example()
    data["ships"][0]["hull"] = 3
    game = load(data, dice=ScriptedDice([7, 1, 3]))
    events = act(game, starboard="fire@enemy0")
    assert damage_list(events) == [("red_0", 3, "blue_0", "cannon")]
    assert game.state.ships["red_0"].status is Status.SUNK
    assert (game.is_over, game.winner) == (True, "blue")
    assert game.position()["to_move"] is None


def test_to_move_and_the_phase_are_respected() -> None:
    """Blue holds its turn-1 maneuver; red has had its activation. Blue holds still and fires nothing: every
    ship has moved, and in the boarding stage red (first in order) has its marines alongside to send."""
    game = load(alongside(to_move="blue_0"))
    assert decision(game) == ("blue_0", "MANEUVER") and game.state.cursor == 1
    assert game.state.ships["red_0"].activated
    act(game)                                          # hold
    assert decision(game) == ("blue_0", "GUNNERY")
    act(game)
    assert decision(game) == ("red_0", "BOARDING") and game.state.stage == "boarding"
    events = act(game)
    events += act(game)                                # blue declines too; no melee: turn 2, blue first
    assert [e.round for e in of(events, RoundStarted)] == [2]
    assert decision(game) == ("blue_0", "MANEUVER")


def test_loading_rolls_no_dice_and_leaves_the_data_alone() -> None:
    dice = ScriptedDice([])
    data = documented_example()
    kept = copy.deepcopy(data)
    load(data, dice=dice)
    assert dice.history == [] and data == kept


def test_positions_with_other_ships_than_their_scenario_are_observed_as_they_are() -> None:
    """The observer's per-fleet constants (vessel traits, empty slots) must follow the ships of the position,
    not the scenario's name: a new game of the scenario first, then a position fielding an ironclad there,
    sees the same as the position loaded on a config that never played the scenario."""
    data = alongside(red={"vessel": "ironclad", "x": 24}, phase="gunnery", to_move="blue_0")
    played = RULESET.load_config()
    RULESET.new_game(played, SCENE, seed=0).observe("red_0")
    fresh = RULESET.load_config()
    for agent in ("red_0", "blue_0"):
        np.testing.assert_array_equal(load(data, played).observe(agent), load(data, fresh).observe(agent))
    # ... and the scenario's own games are not disturbed by such a position loaded first.
    first = RULESET.load_config()
    load(data, first).observe("red_0")
    np.testing.assert_array_equal(RULESET.new_game(first, SCENE, seed=0).observe("red_0"),
                                  RULESET.new_game(RULESET.load_config(), SCENE, seed=0).observe("red_0"))


# ------------------------------------------------------------------ refusals
def test_a_version_other_than_the_engines_is_refused() -> None:
    path, message = only_problem(alongside(version="0.9"))
    assert path == "version" and "'0.9'" in message and "'1.0'" in message


def test_an_unknown_scenario_is_refused_with_the_list() -> None:
    path, message = only_problem(alongside(scenario="armada"))
    assert path == "scenario"
    assert "['fleet_with_iceberg', 'galley_vs_sailing_ship', 'ironclad_vs_galleys', 'sailing_duel']" in message


@pytest.mark.parametrize(("place", "path", "bounds"), [
    ({"x": 47.5}, "ships.1.x", "0 <= x <= 48"),          # the beam's half (1 inch) crosses the east edge
    ({"y": 2, "heading": 0}, "ships.1.y", "0 <= y <= 36"),  # half the length (3 inches) crosses the south edge
])
def test_a_hull_across_the_table_edge_is_refused(place: dict[str, float], path: str, bounds: str) -> None:
    got, message = only_problem(alongside(blue=place, red={"x": 30}))
    assert got == path and bounds in message and "48 x 36-inch table" in message


def test_overlapping_hulls_are_refused_unless_one_is_out_of_the_battle() -> None:
    path, message = only_problem(alongside(red={"x": 21.5}))
    assert path == "ships.1" and "overlaps red_0's" in message
    game = load(alongside(red={"x": 21.5, "status": "fled"}, blue={"x": 20}, ended=True, winner="blue",
                          end_reason="last side fighting"))
    assert game.is_over and game.current_agent is None
    data = alongside(icebergs=[{"x": 20, "y": 10}, {"x": 21, "y": 11}])
    assert only_problem(data) == ("icebergs.1", "overlaps iceberg_0; icebergs never overlap")


def test_a_hull_above_its_maximum_and_a_status_the_hull_contradicts_are_refused() -> None:
    assert only_problem(alongside(blue={"hull": 37}))[0] == "ships.1.hull"
    assert "the maximum 36" in only_problem(alongside(blue={"hull": 37}))[1]
    path, message = refused(alongside(blue={"status": "sunk"}))[0]
    assert path == "ships.1.status" and "sunk exactly when its hull is 0" in message


def test_more_cannons_than_the_vessel_mounts_are_refused() -> None:
    path, message = only_problem(alongside(red={"guns": {"port": 1}}))
    assert path == "ships.0.guns.port" and "galley's port battery mounts 0" in message


def test_an_unknown_vessel_is_refused_with_the_known_ones() -> None:
    path, message = only_problem(alongside(red={"vessel": "trireme"}))
    assert path == "ships.0.vessel"
    assert "['galley', 'ironclad', 'longboat', 'sailing_ship', 'sharkboat']" in message


@pytest.mark.parametrize(("ids", "path", "words"), [
    (["red_1", "blue_0"], "ships.0.id", "expected 'red_0'"),
    (["blue_0", "red_0"], "ships.1.id", "every red ship before the blue ones"),
    (["green_0", "blue_0"], "ships.0.id", "sides ['red', 'blue']"),
])
def test_ship_ids_must_be_numbered_per_side_in_agent_order(ids: list[str], path: str, words: str) -> None:
    data = alongside()
    for given, ship_id in zip(data["ships"], ids):
        given["id"] = ship_id
    problems = refused(data)
    assert problems[0][0] == path and words in problems[0][1]


def test_a_heading_is_needed_where_the_scenario_sets_up_no_such_ship() -> None:
    data = alongside()
    data["ships"].append({"id": "blue_1", "vessel": "longboat", "x": 40, "y": 30})
    path, message = only_problem(data)
    assert path == "ships.2.heading" and "blue_1" in message


@pytest.mark.parametrize(("top", "red", "words"), [
    ({"to_move": "blue_7"}, {}, "no ship 'blue_7'"),
    ({"to_move": "red_0"}, {"status": "fled"}, "red_0 is out of the battle (fled)"),
    ({"to_move": "red_0"}, {"grappled": ["blue_0"]}, "red_0 has no maneuver decision now"),
    ({"to_move": "red_0", "phase": "melee"}, {}, "red_0 has no melee decision now"),
    ({"to_move": "blue_0", "phase": "collision_board", "collision": {"activated": "red_0", "struck": "red_0"}}, {},
     "not in the collision"),
    ({"to_move": "red_0", "ended": True, "winner": "red", "end_reason": "test"}, {}, "the battle is over"),
])
def test_to_move_must_name_a_ship_holding_that_decision(top: dict[str, Any], red: dict[str, Any], words: str) -> None:
    data = alongside(red=red, **top)
    if red.get("status") == "fled":
        data["ships"].insert(1, {"id": "red_1", "vessel": "sharkboat", "x": 30, "y": 30, "heading": 0})
    path, message = only_problem(data)
    assert path == "to_move" and words in message


def test_the_activation_and_the_stage_must_agree_with_the_decision() -> None:
    path, message = only_problem(alongside(to_move="blue_0", activation=0))
    assert path == "activation" and "(1)" in message
    path, message = only_problem(alongside(phase="melee", stage="activations"))
    assert path == "stage" and "melee stage" in message
    path, message = only_problem(alongside(phase="collision_board"))
    assert path == "collision" and "{activated, struck}" in message


@pytest.mark.parametrize(("blue", "path", "words"), [
    ({"boarders": [{"owner": "red_5", "marines": 2}]}, "ships.1.boarders.0.owner", "no ship 'red_5'"),
    ({"boarders": [{"owner": "red_0"}]}, "ships.1.boarders.0", "an empty party"),
    ({"boarders": [{"owner": "blue_1", "marines": 2}]}, "ships.1.boarders.0.owner", "blue_1 is a friend"),
    ({"grappled": ["red_9"]}, "ships.1.grappled.0", "no ship 'red_9'"),
    ({"grappled": ["blue_0"]}, "ships.1.grappled.0", "not grappled to itself"),
    ({"boarders": [{"owner": "red_0", "marines": 1}], "grappled": ["blue_1"]}, "ships.1.grappled.0",
     "blue_1 is a friend"),
])
def test_boarders_and_grapples_must_name_enemies_in_the_battle(blue: dict[str, Any], path: str, words: str) -> None:
    data = alongside(blue=blue)
    data["ships"].append({"id": "blue_1", "vessel": "longboat", "x": 40, "y": 30, "heading": 0})
    got, message = only_problem(data)
    assert got == path and words in message


def test_references_in_the_turns_bookkeeping_must_exist() -> None:
    problems = refused(alongside(order=["red_0", "blue_0", "red_4"], pending=[{"ship": "blue_2", "phase": "gunnery"}],
                                 boarding_orders=[{"ship": "red_0", "target": "blue_3"}]))
    assert problems == [
        ("order.2", "no ship 'red_4'; ships: ['red_0', 'blue_0']"),
        ("boarding_orders.0.target", "no ship 'blue_3'; ships: ['red_0', 'blue_0']"),
        ("pending.0.ship", "no ship 'blue_2'; ships: ['red_0', 'blue_0']"),
    ]


def test_a_side_with_no_ship_fighting_has_lost() -> None:
    path, message = only_problem(alongside(blue={"status": "prize"}))
    assert path == "ended" and "no blue ship is left fighting" in message


def test_a_missing_field_and_a_bad_value_are_pydantics_with_the_path() -> None:
    data = alongside()
    del data["ships"][0]["x"]
    data["ships"][1]["heading"] = 360.5  # (exactly 360 is north, which turning can reach in floating point)
    problems = refused(data)
    assert [p for p, _ in problems] == ["ships.0.x", "ships.1.heading"]
    assert problems[0][1] == "required field is missing" and "less than or equal to 360" in problems[1][1]


def test_every_problem_is_reported_at_once() -> None:
    problems = refused(alongside(version="2.0", red={"x": 60, "hull": 99}, blue={"vessel": "trireme"}, round=31,
                                 winner="blue"))
    assert [p for p, _ in problems] == ["version", "ships.0.hull", "ships.0.x", "ships.1.vessel", "round", "winner"]


def test_the_schema_documents_every_field() -> None:
    schema = RULESET.position_schema()
    undocumented = []
    for name, model in [("BroadsidePosition", schema), *schema["$defs"].items()]:
        undocumented += [f"{name}.{field}" for field, spec in model["properties"].items() if not spec.get("description")]
    assert undocumented == []


def test_phase_names_are_the_engines() -> None:
    assert [p.name.lower() for p in Phase] == ["maneuver", "gunnery", "collision_board", "boarding", "melee"]
