"""`pantheon` positions: the short form's defaults, every refusal, and loaded games playing by the rules.

The round trip over random games of every scenario is the generic contract (tests/core/test_positions.py).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from naval_env.core.dice import ScriptedDice
from naval_env.core.position import PositionError
from naval_env.rulesets.pantheon import RULESET
from naval_env.rulesets.pantheon.engine import PantheonGame, check_invariants
from naval_env.rulesets.pantheon.events import FairEscape
from naval_env.rulesets.pantheon.events import TestThrown as Thrown
from naval_env.rulesets.pantheon.state import Phase, Status
from naval_env.testing import allowed, allowed_labels, damage_list
from tests.helpers import loaded, position_refusal

from .helpers import act, of

CONFIG = RULESET.load_config()
DOC = Path(__file__).resolve().parents[2] / "docs" / "rules" / "pantheon.md"


def doc_example() -> dict[str, Any]:
    """The short-form example of the rules page's "Positions" section (its first JSON block)."""
    section = DOC.read_text(encoding="utf-8").split("## Positions", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None, "docs/rules/pantheon.md: no JSON example under ## Positions"
    return json.loads(block.group(1))


def load(data: dict[str, Any], dice: list[int] | tuple[int, ...] = ()) -> PantheonGame:
    return loaded(RULESET, PantheonGame, data, CONFIG, dice=ScriptedDice(list(dice)), check=check_invariants)


def duel(*ships: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A short-form `duel` position: red_0 at (4, 5) facing E and blue_0 at (6, 5) facing W, unless given."""
    given = list(ships) or [
        {"id": "red_0", "vessel": "trireme", "x": 4, "y": 5, "facing": "E"},
        {"id": "blue_0", "vessel": "trireme", "x": 6, "y": 5, "facing": "W"},
    ]
    return {"ruleset": "pantheon", "scenario": "duel", "order": ["red_0", "blue_0"], "ships": given, **fields}


def red(**kw: Any) -> dict[str, Any]:
    return {"id": "red_0", "vessel": "trireme", "x": 4, "y": 5, "facing": "E", **kw}


def blue(**kw: Any) -> dict[str, Any]:
    return {"id": "blue_0", "vessel": "trireme", "x": 6, "y": 5, "facing": "W", **kw}


def refused(data: dict[str, Any]) -> dict[str, str]:
    """path -> message of every problem of a refused position."""
    return dict(position_refusal(RULESET, data, CONFIG, dice=ScriptedDice([])))


# ------------------------------------------------------------------ short form
def test_the_docs_short_form_loads_with_every_default_exact():
    # Both duel captains have initiative Wits 3 + Seamanship 2 + Maneuverability 3 = 8: a d10 each, red first.
    game = load(doc_example(), dice=[7, 2])
    assert [(r.sides, r.values, r.reason) for r in game.dice.history] == [
        (10, (7,), "initiative tie: red_0"), (10, (2,), "initiative tie: blue_0")]
    state = game.state
    assert (state.width, state.height, state.wind, state.round) == (12, 12, 2, 1)      # duel's board, wind E
    assert state.order == ["red_0", "blue_0"] and state.turn == 0 and state.turn_counter == 1
    assert game.current_agent == "red_0" and state.phase is Phase.MOVE and not state.fair_escape_ok
    assert game.opening_events == [] and not state.ended
    red_0, blue_0 = state.ships["red_0"], state.ships["blue_0"]
    for ship in (red_0, blue_0):   # duel's captain sheet, the trireme's stats
        assert (ship.captain.wits, ship.captain.charisma, ship.captain.resolve, ship.captain.composure,
                ship.captain.seamanship) == (3, 2, 3, 2, 2)
        assert (ship.max_health, ship.speed, ship.damage, ship.maneuverability, ship.crew_slots) == (12, 4, 3, 3, 3)
        assert (ship.shipwright, ship.fire_range, ship.initiative, ship.retests) == (0, 3, 8, 2)
        assert (ship.buffs, ship.retest_on_failure, ship.retest_when_hit, ship.crew_repair_used) == ((), False, False,
                                                                                                      False)
        assert (ship.boarding, ship.targeted_at, ship.sinking_turns, ship.moved_forward) == (None, -1, 0, False)
    assert (red_0.x, red_0.y, red_0.facing, red_0.health, red_0.status) == (4, 5, 2, 12, Status.AFLOAT)
    assert (blue_0.x, blue_0.y, blue_0.facing, blue_0.health, blue_0.status) == (6, 5, 6, 5, Status.AFLOAT)
    assert red_0.speed_this_turn == 6          # speed 4, +2 running with the wind
    assert blue_0.speed_this_turn == 0         # not its turn
    assert (red_0.last_turn_start, blue_0.last_turn_start) == (1, -1)
    assert state.occupancy == {(4, 5): "red_0", (6, 5): "blue_0"}


def test_short_form_takes_the_scenarios_set_up_for_each_ship_id():
    position = {"ruleset": "pantheon", "scenario": "mixed_duel", "ships": [
        {"id": "red_0", "vessel": "quinquereme", "x": 1, "y": 5, "facing": "E"},
        {"id": "blue_0", "vessel": "hemiolia", "x": 10, "y": 5, "facing": "W"},
    ]}
    # quinquereme: initiative 3 + 2 + 1 = 6; hemiolia 3 + 3 + 5 = 11 (its captain's seamanship 3) moves first;
    # no tie, no dice.
    game = load(position)
    red_0, blue_0 = game.state.ships["red_0"], game.state.ships["blue_0"]
    assert (red_0.max_health, red_0.speed, red_0.crew_slots, red_0.shipwright, red_0.initiative) == (16, 3, 4, 2, 6)
    assert (blue_0.speed, blue_0.fire_range, blue_0.crew_slots, blue_0.initiative) == (6, 4, 1, 11)  # range, speed
    assert game.state.order == ["blue_0", "red_0"] and game.current_agent == "blue_0"
    assert blue_0.speed_this_turn == 6 + 0     # wind N, facing W: across the wind
    # Another vessel under the same id keeps the scenario's captain sheet but not its upgrades.
    position["ships"][1] = {"id": "blue_0", "vessel": "trireme", "x": 10, "y": 5, "facing": "W"}
    blue_0 = load(position).state.ships["blue_0"]
    assert (blue_0.speed, blue_0.fire_range, blue_0.crew_slots, blue_0.initiative) == (4, 3, 3, 9)   # 3 + 3 + 3
    # Upgrades given in the position replace the scenario's.
    position["ships"][1]["enhancements"] = ["armor", "initiative", "range"]
    blue_0 = load(position).state.ships["blue_0"]
    assert (blue_0.max_health, blue_0.health, blue_0.fire_range, blue_0.initiative) == (17, 17, 4, 12)


def test_status_defaults_from_health_and_wrecked_ships_begin_at_their_attack_step():
    game = load(duel(red(health=3), blue(health=0)), dice=[])
    assert game.state.ships["blue_0"].status is Status.WRECKED
    game = load(duel(red(), blue(health=-12), result={"winner": "red", "reason": "last side fighting"}))
    assert game.state.ships["blue_0"].status is Status.SINKING and game.is_over and game.winner == "red"
    game = load(duel(red(health=-2), blue(), to_move="red_0"))
    assert game.state.phase is Phase.ATTACK and allowed(game, "attack", "repair")


def test_a_dump_holds_what_was_loaded_and_loads_back_equal():
    position = duel(red(buffs=["damage+ram", "dodge+fire"], retests=1, crew_repair_used=True),
                    blue(health=-3, last_targeted=4), to_move="blue_0", round=3, turns_begun=6)
    game = load(position)
    dumped = game.position()
    ship = dumped["ships"][0]
    assert (ship["buffs"], ship["retests"], ship["crew_repair_used"]) == (["damage+ram", "dodge+fire"], 1, True)
    assert (dumped["round"], dumped["turns_begun"], dumped["phase"], dumped["turn"]) == (3, 6, "attack", 1)
    assert dumped["ships"][1]["last_turn_began"] == 6 and dumped["ships"][1]["status"] == "wrecked"
    assert "enhancements" not in dumped["ships"][0]
    again = load(dumped)
    assert again.position() == dumped and again.state_dict() == game.state_dict()


# ------------------------------------------------------------- loaded games play by the rules
@pytest.mark.parametrize(("attack_roll", "defense_roll", "result", "red_health", "blue_health", "blue_status"), [
    (9, 3, "exceptional", 12, 5 - 9, Status.WRECKED),   # margin 6: red takes nothing, blue 3 x 3
    (6, 3, "success", 12 - 3, 5 - 6, Status.WRECKED),   # red takes blue's rating, blue 2 x 3
    (3, 6, "failure", 12 - 6, 5 - 3, Status.AFLOAT),    # red takes 2 x 3, blue red's rating
])
def test_a_hand_built_position_plays_on_by_the_rules(attack_roll, defense_roll, result, red_health, blue_health,
                                                     blue_status):
    """Two triremes a square apart, blue damaged: red moves alongside and rams (document: Ram!)."""
    game = load(duel(red(), blue(health=5)))
    assert game.current_agent == "red_0" and allowed(game, "maneuver", "ahead 1")
    assert not allowed(game, "maneuver", "ahead 2")      # blue is in the way
    act(game, maneuver="ahead 1")
    assert game.state.phase is Phase.ATTACK and allowed(game, "attack", "ram@enemy0")
    game.dice.extend([attack_roll, defense_roll])
    events = act(game, attack="ram@enemy0")
    throw = of(events, Thrown)[0]
    assert (throw.attack_pool, throw.defense_pool, throw.result) == (8, 8, result)   # 3 + 2 + 3 each
    ships = game.state.ships
    assert ships["blue_0"].status is blue_status and game.current_agent == "blue_0"
    wreck = 5 if blue_status is Status.WRECKED else 0   # a wreck takes 5 as its turn begins, and skips its move
    assert (ships["red_0"].health, ships["blue_0"].health) == (red_health, blue_health - wreck)
    assert game.state.phase is (Phase.ATTACK if wreck else Phase.MOVE)
    assert damage_list(events)[-1] == (("blue_0", 5, None, "wrecked") if wreck else ("red_0", 6, "blue_0",
                                                                                      "ram recoil"))


def test_to_move_and_phase_are_respected():
    game = load(duel(red(x=3), blue(), to_move="blue_0", phase="attack"))
    assert game.current_agent == "blue_0" and game.state.turn == 1 and game.state.phase is Phase.ATTACK
    assert (game.legal_mask("red_0") == game.action_spec.noop_mask()).all()   # red holds no decision
    assert allowed_labels(game, "maneuver") == ["hold"]            # blue moves no more this turn
    assert allowed(game, "attack", "fire@enemy0") and not allowed(game, "attack", "ram@enemy0")
    game.dice.extend([10, 1])                                      # 8 + 10 against 8 + 1: exceptional
    events = act(game, attack="fire@enemy0")
    assert damage_list(events) == [("red_0", 4, "blue_0", "fire")]  # rating 3, +1 exceptional
    assert game.current_agent == "red_0" and game.state.round == 2  # blue was last in order


def test_fair_escape_can_be_given_and_declared():
    game = load(duel(red(), blue(x=11), to_move="blue_0", fair_escape=True))
    assert game.state.phase is Phase.START and allowed(game, "turn_order", "fair_escape")
    events = act(game, turn_order="fair_escape")
    assert of(events, FairEscape) and game.state.ships["blue_0"].status is Status.ESCAPED
    assert game.is_over and game.winner == "red"


def test_a_boarding_tie_is_loaded_from_the_boarder_and_its_exchange_follows():
    game = load(duel(red(x=5, boarding="blue_0"), blue()))
    assert game.state.ships["blue_0"].boarded_by == "red_0"
    assert game.state.phase is Phase.START and allowed(game, "turn_order", "release")
    act(game, turn_order="proceed")                                 # tied: no move, straight to attack
    assert game.state.phase is Phase.ATTACK
    game.dice.extend([1, 10])
    events = act(game, attack="board@enemy0")                       # press the advantage, and fail
    assert damage_list(events) == [("blue_0", 3, "red_0", "boarding melee"),
                                   ("red_0", 3, "blue_0", "boarding melee"),
                                   ("red_0", 3, "blue_0", "boarding repelled")]


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize(("change", "path", "words"), [
    ({"version": "0.9"}, "version", ["'0.9'", "'1.0'"]),
    ({"scenario": "armada"}, "scenario", ["'armada'", "duel", "fleet", "mixed_duel", "squadron"]),
    ({"ships": [red(), blue(x=12)]}, "ships.1.x", ["12", "12x12", "0 to 11"]),
    ({"ships": [red(), blue(y=-1)]}, "ships.1.y", ["-1 is out of range", "greater than or equal to 0"]),
    ({"ships": [red(), blue(x=4)]}, "ships.1", ["(4, 5)", "red_0", "share a square"]),
    ({"ships": [red(), blue(health=13)]}, "ships.1.health", ["13", "-12..12", "max_health (12)"]),
    ({"ships": [red(), blue(health=-13)]}, "ships.1.health", ["-13", "-12..12"]),
    ({"ships": [red(), blue(health=20, max_health=16)]}, "ships.1.health", ["-16..16"]),
    ({"ships": [red(), blue(vessel="galleon")]}, "ships.1.vessel",
     ["'galleon'", "bireme", "hemiolia", "merchantman", "penteconter", "quinquereme", "trireme"]),
    ({"ships": [red(), blue(id="green_0")]}, "ships.1.id", ["'green_0'", "'<side>_<i>'", "red", "blue"]),
    ({"ships": [red(), blue(id="blue_1")]}, "ships.1.id", ["expected 'blue_0'", "numbered from 0"]),
    ({"ships": [blue(), red()]}, "ships.0.id", ["expected 'red_0'", "red then blue"]),
    ({"ships": [red(), blue(side="red")]}, "ships.1.side", ["'red'", "'blue_0'"]),
    ({"ships": [red()]}, "ships", ["'blue' has 0 ships", "1 to", "max_ships_per_side = 5"]),
    ({"ships": [red(), blue(crew=4)]}, "ships.1.crew", ["4 PCs", "trireme carries at most 3"]),
    ({"ships": [red(), blue(retests=3)]}, "ships.1.retests", ["3", "Seamanship (2)"]),
    ({"ships": [red(), blue(status="afloat", health=0)]}, "ships.1.status", ["afloat", "wrecked"]),
    ({"ships": [red(), blue(status="sinking", health=-3)]}, "ships.1.status", ["-12"]),
    ({"ships": [red(), blue(enhancements=["range", "range"])]}, "ships.1.enhancements", ["'range' once"]),
    ({"ships": [red(), blue(health=-12)], "to_move": "blue_0",
      "result": None}, "result", ["['blue']", "give its result"]),
    ({"ships": [red(), blue(health=-12), ], "to_move": "blue_0",
      "result": {"winner": "red", "reason": "last side fighting"}}, "to_move", ["over", "null"]),
    ({"ships": [red(), blue(status="escaped")], "order": ["blue_0", "red_0"], "to_move": "blue_0",
      "result": None}, "result", ["['blue']"]),
    ({"ships": [red(), red(id="red_1", x=0), blue(status="sunk", health=-12)], "order": ["blue_0", "red_0", "red_1"],
      "to_move": "blue_0", "result": {"winner": "red", "reason": "last side fighting"}}, "to_move", ["null"]),
    ({"to_move": "blue_7"}, "to_move", ["'blue_7'", "red_0", "blue_0"]),
    ({"ships": [red(), red(id="red_1", x=0, health=-12), blue()], "order": ["red_1", "red_0", "blue_0"],
      "to_move": "red_1"}, "to_move", ["red_1 is sinking", "afloat or wrecked"]),
    ({"ships": [red(health=-1), blue()], "to_move": "red_0", "phase": "move"}, "phase",
     ["move", "afloat and untied", "wrecked"]),
    ({"to_move": "red_0", "phase": "start"}, "phase", ["start", "neither"]),
    ({"to_move": "red_0", "fair_escape": True}, "fair_escape", ["edge square"]),
    ({"ships": [red(moved_forward=True), blue()], "phase": "move"}, "ships.0.moved_forward", ["has not moved"]),
    ({"ships": [red(allowance=9), blue()], "phase": "move"}, "ships.0.allowance", ["9", "speed 4", ": 6"]),
    ({"ships": [red(boarding="blue_4"), blue()]}, "ships.0.boarding", ["'blue_4'", "red_0", "blue_0"]),
    ({"ships": [red(boarding="blue_0"), blue()]}, "ships.0.boarding", ["not in contact", "adjacent"]),
    ({"ships": [red(x=5, boarding="red_1"), red(id="red_1", x=5, y=6), blue()],
      "order": ["red_0", "red_1", "blue_0"]}, "ships.0.boarding", ["own side", "enemy"]),
    ({"order": ["red_0", "red_0"]}, "order", ["every ship id exactly once"]),
    ({"turn": 1, "to_move": "red_0"}, "turn", ["order[1] is blue_0", "red_0"]),
    ({"turn": 2}, "turn", ["past the end of order"]),
    ({"order": None, "turn": 0}, "turn", ["give order as well"]),
    ({"round": 41}, "round", ["41", "max_rounds = 40"]),
    ({"result": {"winner": "green", "reason": "last side fighting"}}, "result.winner", ["'green'", "red", "blue"]),
    ({"turns_begun": 2, "ships": [red(), blue(last_targeted=5)]}, "turns_begun", ["2", "(5)"]),
    ({"turns_begun": 4, "to_move": "red_0", "ships": [red(last_turn_began=2), blue()]},
     "ships.0.last_turn_began", ["2", "turns_begun = 4"]),
])
def test_a_bad_position_is_refused_naming_the_field_and_what_is_allowed(change, path, words):
    problems = refused({**duel(), **change})
    assert path in problems, problems
    for word in words:
        assert word in problems[path], problems[path]


@pytest.mark.parametrize(("data", "path"), [
    ({"ruleset": "pantheon", "ships": [{"id": "red_0", "vessel": "trireme", "y": 1, "facing": "E"}]}, "ships.0.x"),
    ({"ruleset": "pantheon"}, "ships"),
])
def test_a_missing_required_field_is_named(data, path):
    assert refused(data) == {path: "required field is missing"}


def test_enums_are_the_rules_words():
    problems = refused(duel(red(facing="east"), blue(status="drifting")))
    assert "'N', 'NE', 'E'" in problems["ships.0.facing"]
    assert "'afloat', 'wrecked', 'sinking', 'sunk' or 'escaped'" in problems["ships.1.status"]
    assert "'start', 'move', 'attack' or 'escape'" in refused({**duel(), "phase": "Move"})["phase"]
    assert "'damage+ram'" in refused(duel(red(buffs=["luck"]), blue()))["ships.0.buffs.0"]


def test_every_problem_is_reported_at_once_and_a_refusal_rolls_no_dice():
    data = {"ruleset": "pantheon", "version": "2.0", "ships": [red(x=40, health=99), blue(vessel="raft")]}
    dice = ScriptedDice([6, 2])
    with pytest.raises(PositionError) as caught:
        RULESET.load_position(data, CONFIG, dice=dice)
    assert [p.path for p in caught.value.problems] == ["version", "ships.0.x", "ships.0.health", "ships.1.vessel"]
    assert dice.remaining == 2 and dice.history == []
    # The same ships placed well but tied on initiative with no order: the order is rolled, and only then.
    data = {"ruleset": "pantheon", "ships": [red(), blue()]}
    game = RULESET.load_position(copy.deepcopy(data), CONFIG, dice=dice)
    assert dice.remaining == 0 and game.state.order == ["red_0", "blue_0"]   # initiative 8 each: 6 beats 2
    assert [r.reason for r in dice.history] == ["initiative tie: red_0", "initiative tie: blue_0"]


def test_a_null_to_move_while_the_battle_goes_on_is_left_to_its_default():
    """null is the schema's default of ``to_move``: a typed client that sends every field gets the default."""
    assert load(duel(to_move=None)).position() == load(duel()).position()
