"""`crew_phase` positions: the short form's exact defaults, every refusal with its path, and hand-built
positions that play on by the rules with scripted dice (the contract itself: tests/core/test_positions.py)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from naval_env.core.dice import ScriptedDice
from naval_env.rulesets.crew_phase import RULESET
from naval_env.rulesets.crew_phase.engine import CrewPhaseGame
from naval_env.rulesets.crew_phase.events import (
    AttackRolled,
    CharacterPhaseStarted,
    ShipPhaseStarted,
)
from naval_env.rulesets.crew_phase.state import Status
from naval_env.testing import allowed, allowed_labels, damage_list
from tests.helpers import loaded, position_refusal

from .helpers import SCENARIO, act, make_config, of, pass_crew, ship, where

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules" / "crew_phase.md"


def documented_example() -> dict[str, Any]:
    """The short form shown under "Positions" in docs/rules/crew_phase.md."""
    section = DOC.read_text(encoding="utf-8").split("## Positions", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the Positions section has no JSON example"
    data: dict[str, Any] = json.loads(block[1])
    return data


def two_ships(red: dict[str, Any] | None = None, blue: dict[str, Any] | None = None,
              **top: Any) -> dict[str, Any]:
    """A short-form duel: red at (10, 12) and blue at (11, 12), both facing north, ``red``/``blue`` merged in."""
    return {
        "ruleset": "crew_phase", "scenario": "duel",
        "ships": [{"id": "red_0", "vessel": "sailing_ship", "x": 10, "y": 12, "facing": "N", **(red or {})},
                  {"id": "blue_0", "vessel": "sailing_ship", "x": 11, "y": 12, "facing": "N", **(blue or {})}],
        **top,
    }


def load(data: dict[str, Any], config: Any = None, dice: ScriptedDice | None = None) -> CrewPhaseGame:
    return loaded(RULESET, CrewPhaseGame, data, config, dice=dice)


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
    assert where(game) == ("red_0", "ATTACK")
    position = game.position()
    assert (position["version"], position["scenario"], position["board"], position["weather"]) == (
        "1.0", "duel", [24, 24], "calm")
    assert (position["round"], position["phase"], position["ship_phase"], position["turn"]) == (1, "attack", True, 0)
    assert position["order"] == ["red_0", "blue_0"]                   # initiative 10 each: the first listed first
    assert position["initiative"] == {"red_0": 10, "blue_0": 10}
    assert (position["grapples"], position["ended"], position["winner"]) == ([], False, None)
    red, blue = position["ships"]
    assert (red["side"], red["status"], red["hull"], red["max_hull"], red["hull_dice_left"]) == (
        "red", "afloat", 60, 60, 4)
    assert (blue["hull"], blue["max_hull"], blue["status"], blue["facing"]) == (20, 60, "afloat", "N")
    assert (red["size"], red["speed_unit"], red["sections"], red["ac"], red["initiative"], red["hull_die"]) == (
        "large", 20, 3, 15, 10, 10)
    assert [m["role"] for m in red["crew"]] == ["sailor"] * 3 + ["gunner"] * 2 + ["officer"]
    gunner, officer = red["crew"][3], red["crew"][5]
    assert (gunner["hp"], gunner["dexterity"], gunner["siege_weapons"], gunner["dex_save"], gunner["action"]) == (
        11, 3, True, 3, "none")
    assert (officer["hp"], officer["charisma"], officer["heals_left"]) == (16, 3, 2)
    assert [(w["weapon"], w["arc"], w["operator"]) for w in red["weapons"]] == [
        ("ballista", "port", None), ("ballista", "starboard", 3), ("harpoon", "bow", None)]
    assert (red["weapons"][1]["damage"], red["weapons"][1]["range"], red["weapons"][1]["ammo"]) == ("3d10", 60, 20)
    assert (red["movement_left"], red["speed_gained"], red["helmsman"], red["helm_working"]) == (0, 0, None, False)
    assert blue["weapons"][1]["operator"] is None


def test_left_out_facing_comes_from_the_side_and_the_round_from_the_start() -> None:
    data = two_ships()
    del data["ships"][1]["facing"]
    game = load(data)
    assert game.position()["ships"][1]["facing"] == "W"             # duel: blue enters facing west
    assert where(game) == ("red_0", "CREW") and game.round == 1
    assert game.state.initiative == {} and game.state.order == ["red_0", "blue_0"]


def test_movement_left_defaults_to_the_whole_allowance_of_the_ship_to_move() -> None:
    """60 ft gained, but at 25 of 60 hull points the maximum speed (3 sections x 20 ft) is halved: 30 ft,
    three squares; the helm is manned in calm weather, so it works and the ship may turn."""
    game = load(two_ships(
        red={"hull": 25, "speed_gained": 60, "sections_navigated": [0, 1, 2], "helmsman": 5},
        blue={"x": 20}, phase="move"))
    red = game.state.ships["red_0"]
    assert (red.movement_left, red.sections_manned, red.steer_ok) == (30, 0b111, True)
    assert game.state.ships["blue_0"].movement_left == 0
    labels = allowed_labels(game, "maneuver")
    assert "ahead 3, starboard 1 late" in labels and not any(label.startswith("ahead 4") for label in labels)


def test_a_helmsman_in_rough_weather_has_passed_no_check_unless_told() -> None:
    game = load(two_ships(red={"helmsman": 5}, weather="rough"))
    assert (game.state.rough, game.state.ships["red_0"].steer_ok) == (True, False)
    game = load(two_ships(red={"helmsman": 5, "helm_working": True}, weather="rough"))
    assert game.state.ships["red_0"].steer_ok is True


def test_the_scenarios_crew_sheet_counts_for_the_vessel_it_was_written_for() -> None:
    config = make_config([ship("sailing_ship", (2, 2), "S", crew=["officer", "gunner"])], [ship("keelboat", (9, 9))])
    base = {"ruleset": "crew_phase", "scenario": SCENARIO}
    game = load({**base, "ships": [{"id": "red_0", "vessel": "sailing_ship", "x": 2, "y": 2},
                                                    {"id": "blue_0", "vessel": "keelboat", "x": 9, "y": 9}]}, config)
    red = game.position()["ships"][0]
    assert ([m["role"] for m in red["crew"]], red["facing"]) == (["officer", "gunner"], "S")
    game = load({**base, "ships": [{"id": "red_0", "vessel": "galley", "x": 2, "y": 2},
                                                    {"id": "blue_0", "vessel": "keelboat", "x": 9, "y": 9}]}, config)
    assert [m["role"] for m in game.position()["ships"][0]["crew"]] == ["sailor"] * 4 + ["gunner", "officer"]


def test_a_grapple_holds_the_harpoons_line_offers_cut_lines_and_tows() -> None:
    """Red's harpoon holds blue (both large): blue may cut the line; red, 20 ft gained, tows blue, so
    each square costs twice 10 ft: one square ahead, not two."""
    game = load(two_ships(red={"speed_gained": 20, "sections_navigated": [0]},
                                           grapples=[{"holder": "red_0", "held": "blue_0", "weapon": 2}],
                                           to_move="blue_0"))
    assert game.state.ships["red_0"].weapons[2].holding == "blue_0"
    assert where(game) == ("blue_0", "CREW")
    assert allowed(game, "crew_0", "cut_lines")
    pass_crew(game)
    assert where(game) == ("red_0", "MOVE")
    assert game.state.ships["red_0"].movement_left == 20
    assert allowed_labels(game, "maneuver") == ["hold", "ahead 1"]
    game = load(two_ships(grapples=[{"holder": "red_0", "held": "blue_0", "weapon": 2}]))
    assert not allowed(game, "crew_3", "operate@w2")            # its line holds blue: the harpoon cannot fire
    assert allowed(game, "crew_3", "operate@w1")


# --------------------------------------------------------- playing on by the rules
def test_a_loaded_position_plays_on_by_the_rules_with_exact_dice() -> None:
    """The documented position: red's gunner (Dexterity +3, siege weapons +2) fires the starboard ballista
    at blue alongside: d20 12 + 5 = 17 against AC 15 hits, 3d10 = 4 + 6 + 5 = 15, blue 20 -> 5. Blue has
    no speed and no gun manned: its turn is skipped, and round 2's Character Phase begins with red."""
    game = load(documented_example(), dice=ScriptedDice([12, 4, 6, 5]))
    events = act(game, weapons={1: "ship@e0"})
    [attack] = of(events, AttackRolled)
    assert (attack.rolls, attack.modifier, attack.total, attack.ac, attack.hit) == ((12,), 5, 17, 15, True)
    assert damage_list(events) == [("blue_0", 15, "red_0", "ballista")]
    assert game.state.ships["blue_0"].hp == 5
    assert game.state.ships["red_0"].weapons[1].ammo == 19
    assert [e.round for e in of(events, CharacterPhaseStarted)] == [2]
    assert where(game) == ("red_0", "CREW") and game.round == 2


def test_a_sinking_ship_is_shot_at_with_advantage_and_sinks_at_minus_half() -> None:
    """Blue at -25 of 60 is sinking (status from the hull); the shot has advantage (12 and 3, keeps 12):
    15 damage takes it to the floor, -30: sunk, and red wins at once."""
    data = documented_example()
    data["ships"][1]["hull"] = -25
    game = load(data, dice=ScriptedDice([12, 3, 4, 6, 5]))
    assert game.state.ships["blue_0"].status is Status.SINKING
    events = act(game, weapons={1: "ship@e0"})
    [attack] = of(events, AttackRolled)
    assert (attack.rolls, attack.total) == ((12, 3), 17)
    assert damage_list(events) == [("blue_0", 5, "red_0", "ballista")]    # only 5 of 15 left to the floor
    assert (game.state.ships["blue_0"].hp, game.state.ships["blue_0"].status) == (-30, Status.SUNK)
    assert (game.is_over, game.winner) == (True, "red")
    assert game.position()["to_move"] is None


def test_to_move_and_the_phase_are_respected() -> None:
    """Red has given its crew orders (its officer's Command succeeded); blue gives its own, then the Ship
    Phase orders both by initiative, red's Command success (+2) putting it first. Neither ship has speed or
    a gun manned, so both Ship Phase turns are skipped and round 2 begins."""
    # Blue's fixed initiative is higher, so red (after blue in the Character Phase order) has not acted yet.
    game = load(two_ships(red={"crew": [{"role": "officer"}]}, blue={"x": 15, "initiative": 11}, to_move="blue_0"))
    assert where(game) == ("blue_0", "CREW")
    assert game.state.order == ["blue_0", "red_0"] and game.state.turn == 0   # blue's fixed initiative is higher
    game = load(two_ships(
        red={"command_successes": 1, "crew": [{"role": "officer", "action": "command"}]},
        blue={"x": 15}, to_move="blue_0"))
    assert game.state.turn == 1 and where(game) == ("blue_0", "CREW")
    events = pass_crew(game)
    [started] = of(events, ShipPhaseStarted)
    assert (started.order, started.initiative) == (("red_0", "blue_0"), (12, 10))
    assert where(game) == ("red_0", "CREW") and game.round == 2
    assert game.state.ships["red_0"].crew[0].action == 0           # the new round's orders are still to give


def test_loading_rolls_no_dice_and_shares_nothing_with_the_data() -> None:
    dice = ScriptedDice([])
    data = documented_example()
    kept = copy.deepcopy(data)
    game = load(data, dice=dice)
    assert dice.history == [] and data == kept
    game.state.ships["red_0"].crew[0].hp = 1
    assert load(data).state.ships["red_0"].crew[0].hp == 11


# ------------------------------------------------------------------ refusals
def test_a_version_other_than_the_engines_is_refused() -> None:
    path, message = only_problem(two_ships(version="0.9"))
    assert path == "version" and "'0.9'" in message and "'1.0'" in message


def test_an_unknown_scenario_is_refused_with_the_list() -> None:
    path, message = only_problem(two_ships(scenario="armada"))
    assert path == "scenario" and "'armada'" in message
    assert "['duel', 'nimble_vs_heavy', 'two_vs_one']" in message


@pytest.mark.parametrize(("place", "path", "bounds"), [
    ({"x": 24}, "ships.1.x", "x runs from 0 to 23"),
    ({"y": 24}, "ships.1.y", "y runs from 0 to 23"),
])
def test_a_ship_off_the_board_is_refused_with_the_bounds(place: dict[str, int], path: str, bounds: str) -> None:
    got, message = only_problem(two_ships(blue=place))
    assert got == path and bounds in message and "24x24 board" in message


def test_two_ships_on_one_square_are_refused_unless_one_is_sunk() -> None:
    path, message = only_problem(two_ships(blue={"x": 10}))
    assert path == "ships.1" and "(10, 12) with red_0" in message and "share a square" in message
    # A sunk ship is gone from the board (red wins), so its last square is free.
    game = load(two_ships(blue={"x": 10, "hull": -30}, ended=True, winner="red",
                                           end_reason="the other side's ships are sunk"))
    assert game.state.occupancy == {(10, 12): "red_0"} and game.current_agent is None


@pytest.mark.parametrize(("hull", "allowed_text"), [(61, "to the maximum 60"), (-31, "from -30")])
def test_a_hull_outside_the_rules_is_refused(hull: int, allowed_text: str) -> None:
    problems = refused(two_ships(blue={"hull": hull}))
    assert problems[0][0] == "ships.1.hull" and allowed_text in problems[0][1]


def test_a_status_the_hull_does_not_give_is_refused() -> None:
    path, message = only_problem(two_ships(blue={"hull": -3, "status": "afloat"}))
    assert path == "ships.1.status" and "'sinking'" in message and "sunk at -30" in message


@pytest.mark.parametrize(("field", "value", "path", "names"), [
    ("vessel", "frigate", "ships.1.vessel", "['galley', 'keelboat', 'rowboat', 'sailing_ship', 'warship']"),
    ("crew", [{"role": "cook"}], "ships.1.crew.0.role", "['gunner', 'officer', 'sailor']"),
    ("weapons", [{"weapon": "catapult", "arc": "bow"}], "ships.1.weapons.0.weapon", "['ballista', 'cannon', 'harpoon']"),
    ("crew", [{"role": "sailor", "action": "swab"}], "ships.1.crew.0.action", "'navigate@s0'"),
])
def test_unknown_names_are_refused_with_the_known_ones(field: str, value: Any, path: str, names: str) -> None:
    got, message = only_problem(two_ships(blue={field: value}))
    assert got == path and names in message


@pytest.mark.parametrize(("ids", "path", "words"), [
    (["red_1", "blue_0"], "ships.0.id", "expected 'red_0'"),
    (["blue_0", "red_0"], "ships.1.id", "every red ship before the blue ones"),
    (["green_0", "blue_0"], "ships.0.id", "sides ['red', 'blue']"),
    (["red_0", "blue"], "ships.1.id", "'<side>_<number>'"),
])
def test_ship_ids_must_be_numbered_per_side_in_agent_order(ids: list[str], path: str, words: str) -> None:
    data = two_ships()
    for given, ship_id in zip(data["ships"], ids):
        given["id"] = ship_id
    problems = refused(data)
    assert problems[0][0] == path and words in problems[0][1]


def test_a_side_field_that_contradicts_the_id_and_a_missing_side_are_refused() -> None:
    data = two_ships(blue={"side": "red"})
    assert only_problem(data)[0] == "ships.1.side"
    data = two_ships()
    data["ships"].pop()
    path, message = only_problem(data)
    assert path == "ships" and "no blue ship" in message


def test_the_configs_maxima_are_enforced() -> None:
    crew = [{"role": "sailor"}] * 7
    path, message = only_problem(two_ships(blue={"crew": crew}))
    assert path == "ships.1.crew" and "house_rules.max_crew = 6" in message
    data = two_ships()
    data["ships"] += [{"id": f"blue_{i}", "vessel": "rowboat", "x": 2 + i, "y": 2} for i in (1, 2)]
    path, message = only_problem(data)
    assert path == "ships" and "3 blue ships" in message and "max_ships_per_side = 2" in message


def test_slots_that_do_not_exist_are_refused() -> None:
    problems = refused(two_ships(red={"helmsman": 6, "sections_navigated": [3],
                                      "weapons": [{"weapon": "ballista", "arc": "port", "operator": 9}]}))
    assert problems == [
        ("ships.0.weapons.0.operator", "crew slot 9; the ship has crew slots 0 to 5"),
        ("ships.0.sections_navigated.0", "section 3; each once, from 0 to 2 (3 sections)"),
        ("ships.0.helmsman", "crew slot 6; the ship has crew slots 0 to 5"),
    ]


@pytest.mark.parametrize(("top", "red", "words"), [
    ({"to_move": "blue_0"}, {}, None),                                                  # allowed: red has acted
    ({"to_move": "blue_3"}, {}, "no ship 'blue_3'"),
    ({"to_move": "red_0"}, {"crew": [{"role": "sailor", "hp": 0}]}, "all incapacitated"),
    ({"to_move": "red_0", "ended": True, "winner": "red", "end_reason": "test"}, {}, "the battle is over"),
])
def test_to_move_must_name_a_ship_that_can_decide_now(top: dict[str, Any], red: dict[str, Any],
                                                      words: str | None) -> None:
    data = two_ships(red=red, **top)
    if words is None:
        assert load(data).current_agent == top["to_move"]
        return
    path, message = only_problem(data)
    assert path == "to_move" and words in message


def test_a_sunk_ship_holds_no_decision_and_a_side_all_sunk_has_lost() -> None:
    data = two_ships(blue={"hull": -30}, to_move="blue_0")
    data["ships"].append({"id": "blue_1", "vessel": "keelboat", "x": 5, "y": 5})
    path, message = only_problem(data)
    assert path == "to_move" and "blue_0 is sunk" in message and "ships that can: ['blue_1', 'red_0']" in message  # the keelboat first
    path, message = only_problem(two_ships(blue={"hull": -30}))
    assert path == "ended" and "every blue ship is sunk" in message


@pytest.mark.parametrize(("top", "red", "words"), [
    ({"phase": "move"}, {}, "no square of movement to spend"),
    ({"phase": "attack"}, {}, "no operated weapon bearing on an enemy"),
])
def test_a_decision_with_nothing_to_choose_is_refused(top: dict[str, Any], red: dict[str, Any], words: str) -> None:
    """The engine skips such a decision, so no position rests on one. Red's sailing ship has gained no speed
    (a MOVE of hold only) and has nobody at its guns (an ATTACK of no-ops)."""
    path, message = only_problem(two_ships(red=red, **top))
    assert path == "to_move" and message.startswith(f"red_0 has nothing to choose in its {top['phase']} decision")
    assert words in message


def test_an_agile_ship_at_the_helm_may_turn_in_place_without_speed() -> None:
    game = load(two_ships(red={"vessel": "galley", "helmsman": 5}, phase="move"))
    assert where(game) == ("red_0", "MOVE") and game.state.ships["red_0"].movement_left == 0
    assert allowed_labels(game, "maneuver") == ["hold", *(f"pivot {side} {k}" for k in range(1, 5)
                                                         for side in ("port", "starboard"))]


def test_a_turn_that_is_not_to_moves_is_refused() -> None:
    path, message = only_problem(two_ships(to_move="blue_0", turn=0))
    assert path == "turn" and "order (1)" in message


def test_order_and_initiative_must_name_the_ships_on_the_board() -> None:
    problems = refused(two_ships(order=["red_0", "red_0"], initiative={"blue_7": 3}, phase="move"))
    assert problems == [
        ("initiative.blue_7", "no ship 'blue_7'; ships: ['red_0', 'blue_0']"),
        ("order.1", "red_0 is listed twice; each ship acts once a phase"),
        ("order", "['blue_0'] on the board but not in the order; every ship on the board acts in each phase"),
    ]


@pytest.mark.parametrize(("grapple", "path", "words"), [
    ({"holder": "red_0", "held": "blue_4", "weapon": 2}, "grapples.0.held", "no ship 'blue_4'"),
    ({"holder": "red_0", "held": "blue_0", "weapon": 0}, "grapples.0.weapon", "its grappling weapons: [2]"),
    ({"holder": "red_0", "held": "red_0"}, "grapples.0", "only enemies grapple"),
])
def test_grapples_must_join_existing_enemies_by_a_grappling_weapon(grapple: dict[str, Any], path: str,
                                                                   words: str) -> None:
    got, message = only_problem(two_ships(grapples=[grapple]))
    assert got == path and words in message


def test_a_missing_field_and_a_bad_value_are_pydantics_with_the_path() -> None:
    data = two_ships()
    del data["ships"][0]["x"]
    data["ships"][1]["facing"] = "NNE"
    problems = refused(data)
    assert [p for p, _ in problems] == ["ships.0.x", "ships.1.facing"]
    assert problems[0][1] == "required field is missing" and "'NE'" in problems[1][1]


def test_every_problem_is_reported_at_once() -> None:
    problems = refused(two_ships(version="2.0", red={"x": 30, "hull": 99}, blue={"vessel": "frigate"},
                                 round=31, winner="blue"))
    assert [p for p, _ in problems] == ["version", "ships.0.x", "ships.0.hull", "ships.1.vessel", "round", "winner"]
    assert "house_rules.max_rounds = 30" in problems[4][1] and "set ended to true" in problems[5][1]


def test_the_schema_documents_every_field() -> None:
    schema = RULESET.position_schema()
    undocumented = []
    for name, model in [("CrewPhasePosition", schema), *schema["$defs"].items()]:
        undocumented += [f"{name}.{field}" for field, spec in model["properties"].items() if not spec.get("description")]
    assert undocumented == []
