"""`flotilla` positions: the short form's defaults, every refusal, and loaded games playing by the rules.

The round trip over random games of every scenario is the generic contract (tests/core/test_positions.py).
Duel ships (the scenario's set-up of each id): the red frigate, veteran captain (steering 3d6), combat
3d6 range 3, broadside guns, armour, size 2, cohesion 5; the blue brig, two veteran levels (4d6), better
artillery (combat 3d6, range 4), ram, elite crew (boarding 4d6), size 2, cohesion 4. Both under sails.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from naval_env.core.dice import ScriptedDice
from naval_env.core.position import PositionError
from naval_env.rulesets.flotilla import RULESET
from naval_env.rulesets.flotilla.engine import FlotillaGame, check_invariants
from naval_env.rulesets.flotilla.events import BreakFree, HitLocation, Reacted
from naval_env.rulesets.flotilla.state import CALM, Phase
from naval_env.testing import allowed, allowed_labels, damage_list
from tests.helpers import loaded, position_refusal

from .helpers import act, contests, of

CONFIG = RULESET.load_config()
DOC = Path(__file__).resolve().parents[2] / "docs" / "rules" / "flotilla.md"
N, E, W = 0, 2, 6  # Compass values


def doc_example() -> dict[str, Any]:
    """The short-form example of the rules page's "Positions" section (its first JSON block)."""
    section = DOC.read_text(encoding="utf-8").split("## Positions", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None, "docs/rules/flotilla.md: no JSON example under ## Positions"
    return json.loads(block.group(1))


def load(data: dict[str, Any], dice: list[int] | tuple[int, ...] = ()) -> FlotillaGame:
    return loaded(RULESET, FlotillaGame, data, CONFIG, dice=ScriptedDice(list(dice)), check=check_invariants)


def red(**kw: Any) -> dict[str, Any]:
    return {"id": "red_0", "ship_class": "frigate", "x": 5, "y": 7, **kw}


def blue(**kw: Any) -> dict[str, Any]:
    return {"id": "blue_0", "ship_class": "brig", "x": 9, "y": 7, **kw}


def duel(*ships: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A short-form `duel` position with the wind and the order given (so no die is rolled at load):
    red_0 on (5, 7)-(4, 7) facing E, blue_0 on (9, 7)-(10, 7) facing W, unless given."""
    return {"ruleset": "flotilla", "scenario": "duel", "wind": "N", "order": ["red_0", "blue_0"],
            "ships": list(ships) or [red(), blue()], **fields}


def abeam(**fields: Any) -> dict[str, Any]:
    """Both facing N, two squares apart: each has the other abeam; blue damaged (cohesion 3 of 4)."""
    return duel(red(facing="N"), blue(x=7, facing="N", cohesion=3), **fields)


def refused(data: dict[str, Any]) -> dict[str, str]:
    """path -> message of every problem of a refused position."""
    return dict(position_refusal(RULESET, data, CONFIG, dice=ScriptedDice([6, 1, 1, 1, 1, 1, 1, 1])))


# ------------------------------------------------------------------ short form
def test_the_docs_short_form_loads_with_every_default_exact():
    # No order: round 1's initiative is rolled, red's 3d6 then blue's 4d6; red's 6 beats blue's 5s.
    game = load(doc_example(), dice=[6, 2, 1, 5, 5, 5, 5])
    assert [(r.sides, r.values, r.reason) for r in game.dice.history] == [
        (6, (6, 2, 1), "initiative: red_0"), (6, (5, 5, 5, 5), "initiative: blue_0")]
    state = game.state
    assert (state.width, state.height, state.wind, state.round, state.attacker_side) == (15, 15, N, 1, "red")
    assert state.order == ["red_0", "blue_0"] and state.cursor == 0 and state.deploy_order == ["blue_0", "red_0"]
    assert game.current_agent == "red_0" and state.phase is Phase.MOVE and game.opening_events == []
    assert (state.pending, state.attack_queue, state.ended) == (None, [], False)
    red_0, blue_0 = state.ships["red_0"], state.ships["blue_0"]
    assert (red_0.facing, red_0.squares, red_0.size) == (E, ((5, 7), (4, 7)), 2)
    assert (red_0.captain_dice, red_0.combat, red_0.range, red_0.boarding, red_0.base_movement) == (3, 3, 3, 2, 3)
    assert (red_0.max_cohesion, red_0.cohesion, red_0.mages, red_0.max_mages, red_0.hero) == (5, 5, 0, 0, False)
    assert (red_0.armour, red_0.broadside_guns, red_0.sails, red_0.ram, red_0.bow_guns) == (True, True, True,
                                                                                           False, False)
    assert (blue_0.facing, blue_0.squares) == (W, ((9, 7), (10, 7)))
    assert (blue_0.captain_dice, blue_0.combat, blue_0.range, blue_0.boarding, blue_0.base_movement) == (4, 3, 4, 4, 3)
    assert (blue_0.max_cohesion, blue_0.cohesion, blue_0.ram, blue_0.sails, blue_0.armour) == (4, 2, True, True, False)
    for ship in (red_0, blue_0):
        assert ship.afloat and ship.captain_alive and (ship.crew_hits, ship.propulsion_hits) == (0, 0)
        assert (ship.grappled_with, ship.grappled_round, ship.break_failures) == (None, 0, 0)
        assert not (ship.stuck or ship.moved or ship.attacked or ship.tried_break_free)
    assert state.occupancy == {(4, 7): "red_0", (5, 7): "red_0", (9, 7): "blue_0", (10, 7): "blue_0"}
    # Wind N across both: the base move is 3; red's stops short of blue's bow.
    act(game, maneuver="ahead")
    assert red_0.squares == ((8, 7), (7, 7)) and game.current_agent == "blue_0"


def test_the_wind_is_rolled_when_not_given_on_the_table_of_the_round():
    position = {k: v for k, v in duel().items() if k != "wind"}
    game = load(position, dice=[3])                                  # the set-up 1d5: 3 is E
    assert game.state.wind == E and [(r.sides, r.reason) for r in game.dice.history] == [(5, "wind")]
    game = load({**position, "round": 3}, dice=[4])                  # later rounds: the round table 1d4, 4 is W
    assert game.state.wind == W and game.dice.history[0].sides == 4
    game = load({**position, "scenario": "armada"} | {"ships": [red(), blue()]}, dice=[5])
    assert game.state.wind == CALM                                   # armada's wind is rolled too; 5 is calm


def test_short_form_takes_the_scenarios_set_up_for_each_ship_id():
    ships = [{"id": f"red_{i}", "ship_class": cls, "x": 1 + 3 * i, "y": 1} for i, cls in
             enumerate(("frigate", "brig", "galley"))]
    ships += [{"id": "blue_0", "ship_class": "galleon", "x": 9, "y": 12},
              {"id": "blue_1", "ship_class": "brig", "x": 13, "y": 12}]
    order = ["red_0", "red_1", "red_2", "blue_0", "blue_1"]
    game = load({"ruleset": "flotilla", "scenario": "squadron", "wind": "S", "order": order, "ships": ships})
    red_2, blue_0, blue_1 = (game.state.ships[ship] for ship in ("red_2", "blue_0", "blue_1"))
    assert (red_2.hero, red_2.ram, red_2.boarding, red_2.facing) == (True, True, 3 + 2, E)   # elite crew x2
    assert (blue_0.mages, blue_0.max_mages, blue_0.broadside_guns, blue_0.facing) == (0, 0, False, W)  # bare
    assert (blue_1.armour, blue_1.captain_dice, blue_1.facing) == (True, 2 + 1, W)   # armour, veteran captain
    assert blue_0.squares == ((9, 12), (10, 12), (11, 12))
    # Another class under the same id keeps the hero but not the upgrades.
    ships[2] = {"id": "red_2", "ship_class": "brig", "x": 7, "y": 1}
    red_2 = load({"ruleset": "flotilla", "scenario": "squadron", "wind": "S", "order": order,
                  "ships": ships}).state.ships["red_2"]
    assert (red_2.hero, red_2.ram, red_2.boarding, red_2.combat, red_2.range) == (True, False, 2, 2, 3)
    # Upgrades and a player captain given in the position replace the scenario's.
    ships[2] |= {"upgrades": {"better_artillery": 1, "veteran_captain": 2}, "captain_perception": 4}
    red_2 = load({"ruleset": "flotilla", "scenario": "squadron", "wind": "S", "order": order,
                  "ships": ships}).state.ships["red_2"]
    assert (red_2.combat, red_2.range, red_2.captain_dice) == (3, 4, 4 + 2)


def test_status_and_captain_default_from_cohesion_and_steering():
    game = load(duel(red(), red(id="red_1", ship_class="cutter", x=1, y=1, cohesion=0),
                     blue(steering=0), order=["red_0", "blue_0"]))
    red_1, blue_0 = game.state.ships["red_1"], game.state.ships["blue_0"]
    assert not red_1.afloat and red_1.squares == ((1, 1),) and (1, 1) not in game.state.occupancy
    assert not blue_0.captain_alive
    game = load(duel(red(), blue(cohesion=0), result={"winner": "red", "reason": "last side afloat"}))
    assert game.is_over and game.winner == "red" and game.current_agent is None


def test_a_dump_holds_what_was_loaded_and_loads_back_equal():
    position = duel(red(facing="N", crew_hits=1, cohesion=4, stuck=True), blue(x=6, facing="N", upgrades={"ram": 1},
                                                                    grappled_round=2, break_failures=1),
                    round=3, to_move="blue_0")
    position["ships"][0]["grappled_with"] = "blue_0"
    position["ships"][0]["grappled_round"] = 2
    game = load(position)
    dumped = game.position()
    assert (dumped["round"], dumped["phase"], dumped["turn"], dumped["to_move"]) == (3, "move", 1, "blue_0")
    ship = dumped["ships"][0]
    assert (ship["crew_hits"], ship["stuck"], ship["grappled_with"], ship["moved"]) == (1, True, "blue_0", True)
    ship = dumped["ships"][1]
    assert (ship["grappled_with"], ship["break_failures"], ship["traits"]) == ("red_0", 1, ["ram", "sails"])
    assert "upgrades" not in ship and "captain_perception" not in ship
    again = load(dumped)
    assert again.position() == dumped and again.state_dict() == game.state_dict()


# ------------------------------------------------------------- loaded games play by the rules
@pytest.mark.parametrize(("reaction", "dice", "result", "damage", "location"), [
    # red 3d6 abeam with broadside guns: a win costs the difference; blue dodges with 4 - size 2 = 2d6.
    ("dodge", [6, 3, 1, 4, 2, 5], "won", [("blue_0", 2, "red_0", "gunfire")], ("blue_0", 5, "hull")),
    # blue counters with its 3d6 abeam (no difference): red loses 1, armour keeps it at 1.
    ("counter", [3, 2, 1, 5, 4, 1, 2], "lost", [("red_0", 1, "blue_0", "counter-attack")], ("red_0", 2, "crew")),
])
def test_a_hand_built_reaction_plays_on_by_the_rules(reaction, dice, result, damage, location):
    game = load(abeam(pending={"attacker": "red_0", "unit": "ship", "target": "blue_0", "target_unit": "ship"}),
                dice=dice)
    state = game.state
    assert state.phase is Phase.REACTION and game.current_agent == "blue_0" and state.cursor == 0
    assert [(s.moved, s.attacked) for s in state.ships.values()] == [(True, True), (True, False)]
    assert allowed_labels(game, "reaction") == ["dodge", "counter"]
    events = act(game, reaction=reaction)
    assert of(events, Reacted) == [Reacted("blue_0", reaction, "red_0")]
    assert [(c[0], c[3]) for c in contests(events)] == [(f"gunfire / {reaction}", result)]
    assert damage_list(events) == damage and [(h.ship, h.roll, h.part) for h in of(events, HitLocation)] == [location]
    ships = state.ships
    assert (ships["red_0"].cohesion, ships["blue_0"].cohesion) == ((5, 1) if reaction == "dodge" else (4, 3))
    assert ships["red_0"].crew_hits == (reaction == "counter")
    assert state.phase is Phase.ATTACK and game.current_agent == "blue_0" and state.cursor == 1
    assert game.dice.remaining == 0


def test_to_move_and_phase_are_respected():
    game = load(duel(red(), blue(), to_move="blue_0"))
    state = game.state
    assert game.current_agent == "blue_0" and state.cursor == 1 and state.phase is Phase.MOVE
    assert (state.ships["red_0"].moved, state.ships["blue_0"].moved) == (True, False)
    assert (game.legal_mask("red_0") == game.action_spec.noop_mask()).all()   # red holds no decision
    act(game, maneuver="ahead")                        # W across the wind N: 3 squares, to red's bow
    assert state.ships["blue_0"].squares == ((6, 7), (7, 7))
    assert state.phase is Phase.ATTACK and game.current_agent == "red_0"     # the attack phase, red first
    assert allowed_labels(game, "target") == ["hold", "ship@enemy0"]
    game = load(duel(red(), blue(), phase="attack", to_move="blue_0"))   # red 4 squares off: in blue's range
    assert game.current_agent == "blue_0" and game.state.ships["red_0"].attacked
    assert allowed_labels(game, "target") == ["hold", "ship@enemy0"] and allowed_labels(game, "maneuver") == ["ahead"]


def test_a_grapple_given_on_one_ship_binds_both_and_breaking_free_follows_the_rules():
    """Blue's movement step while grappled: only breaking free, its 4d6 against red's 3d6 (no penalty the
    first time); a failure adds a penalty die to the next attempt and the attack phase follows."""
    game = load(duel(red(facing="N", grappled_with="blue_0"), blue(x=6, facing="N"), to_move="blue_0"),
                dice=[2, 2, 1, 1, 6, 1, 1])
    ships = game.state.ships
    assert ships["blue_0"].grappled_with == "red_0" and ships["blue_0"].grappled_round == 0
    assert allowed_labels(game, "maneuver") == ["ahead", "break_free"]
    events = act(game, maneuver="break_free")
    assert contests(events) == [("break free", (2, 2, 1, 1), (6, 1, 1), "lost")]
    assert of(events, BreakFree) == [BreakFree("blue_0", "red_0", 0, False)]
    assert (ships["blue_0"].break_failures, ships["blue_0"].tried_break_free) == (1, True)
    assert game.state.phase is Phase.ATTACK and game.current_agent == "red_0" and allowed(game, "boarding", "fight")


def test_the_deploy_phase_loads_and_the_battle_starts_after_it():
    game = load({"ruleset": "flotilla", "scenario": "duel", "phase": "deploy", "ships": [red(), blue()]},
                dice=[1, 6, 1, 1, 5, 5, 5, 5])
    state = game.state
    assert (state.round, state.wind, state.order, state.cursor) == (0, CALM, [], 0)
    assert game.current_agent == "blue_0" and allowed(game, "facing", "N")      # the defender first
    act(game, facing="N")                                  # on its stern (10, 7): bow to (10, 6)
    assert state.ships["blue_0"].squares == ((10, 6), (10, 7)) and game.current_agent == "red_0"
    act(game, facing="keep")
    assert [(r.sides, r.reason) for r in game.dice.history] == [
        (5, "wind"), (6, "initiative: red_0"), (6, "initiative: blue_0")]
    assert (state.wind, state.round, state.order, game.current_agent) == (N, 1, ["red_0", "blue_0"], "red_0")


# ------------------------------------------------------------------ refusals
PENDING = {"attacker": "red_0", "unit": "ship", "target": "blue_0", "target_unit": "ship"}


@pytest.mark.parametrize(("change", "path", "words"), [
    ({"version": "0.9"}, "version", ["'0.9'", repr(RULESET.version)]),
    ({"scenario": "fleet"}, "scenario", ["'fleet'", "armada", "duel", "squadron"]),
    ({"map_size": 20}, "map_size", ["20", "map_size = 15"]),
    ({"attacker": "green"}, "attacker", ["'green'", "red", "blue"]),
    ({"ships": [red(), blue(x=15)]}, "ships.1.x", ["15", "15x15", "0 to 14"]),
    ({"ships": [red(), blue(y=-1)]}, "ships.1.y", ["-1 is out of range", "greater than or equal to 0"]),
    ({"ships": [red(), blue(y=15)]}, "ships.1.y", ["15", "0 to 14"]),
    ({"ships": [red(), blue(x=14)]}, "ships.1", ["(15, 7)", "run off the 15x15 map"]),
    ({"ships": [red(), blue(x=4)]}, "ships.1", ["(4, 7)", "red_0", "share a square"]),
    ({"ships": [red(), blue(cohesion=5)]}, "ships.1.cohesion", ["5", "max_cohesion 4", "0 to 4"]),
    ({"ships": [red(), blue(cohesion=-1)]}, "ships.1.cohesion", ["greater than or equal to 0"]),
    ({"ships": [red(), blue(ship_class="raft")]}, "ships.1.ship_class",
     ["'raft'", "brig", "cutter", "frigate", "galleon", "galley"]),
    ({"ships": [red(), blue(id="green_0")]}, "ships.1.id", ["'green_0'", "'<side>_<i>'", "red", "blue"]),
    ({"ships": [red(), blue(id="blue_1")]}, "ships.1.id", ["expected 'blue_0'", "numbered from 0"]),
    ({"ships": [blue(), red()]}, "ships.0.id", ["expected 'red_0'", "red then blue"]),
    ({"ships": [red(), blue(side="red")]}, "ships.1.side", ["'red'", "'blue_0'"]),
    ({"ships": [red()]}, "ships", ["'blue' has 0 ships", "max_ships_per_side = 5"]),
    ({"ships": [red(), blue(status="afloat", cohesion=0)]}, "ships.1.status", ["afloat at cohesion 0"]),
    ({"ships": [red(), blue(status="sunk")]}, "ships.1.status", ["sunk at cohesion 4"]),
    ({"ships": [red(), blue(mages=1)]}, "ships.1.mages", ["no mage squad"]),
    ({"ships": [red(), blue(traits=["mage_squad"], mages=4)]}, "ships.1.mages", ["mage_cohesion = 3"]),
    ({"ships": [red(), blue(boarding=6)]}, "ships.1.boarding", ["6", "max_boarding_dice = 5"]),
    ({"ships": [red(), blue(upgrades={"elite_crew": 4})]}, "ships.1.upgrades", ["5d6"]),
    ({"ships": [red(), blue(upgrades={"ram": 2})]}, "ships.1.upgrades", ["level 2", "levels 1..1"]),
    ({"ships": [red(), blue(captain_alive=False)]}, "ships.1.steering", ["a dead captain rolls no dice"]),
    ({"ships": [red(), blue(steering=0, captain_alive=True)]}, "ships.1.captain_alive", ["steering 0"]),
    ({"ships": [red(grappled_with="blue_4"), blue()]}, "ships.0.grappled_with", ["'blue_4'", "red_0", "blue_0"]),
    ({"ships": [red(grappled_with="blue_0"), blue()]}, "ships.0.grappled_with", ["not alongside"]),
    ({"ships": [red(facing="N", grappled_with="red_1"), red(id="red_1", x=6, facing="N"), blue()],
      "order": ["red_0", "red_1", "blue_0"]}, "ships.0.grappled_with", ["own side"]),
    ({"ships": [red(facing="N", grappled_with="blue_0", grappled_round=1),
                blue(x=6, facing="N", grappled_with="red_0")]}, "ships.0.grappled_round", ["one grapple, one round"]),
    ({"ships": [red(grappled_round=2), blue()]}, "ships.0.grappled_round", ["after this round (1)"]),
    ({"ships": [red(), blue(cohesion=0)], "to_move": "blue_0"}, "result", ["['blue']", "give its result"]),
    ({"ships": [red(), blue(cohesion=0)], "result": {"winner": "red", "reason": "last side afloat"},
      "to_move": "red_0"}, "to_move", ["over", "null"]),
    ({"result": {"winner": "green", "reason": "round_limit"}}, "result.winner", ["'green'", "red", "blue"]),
    ({"ships": [red(), red(id="red_1", ship_class="cutter", x=1, y=1, cohesion=0), blue()],
      "to_move": "red_1"}, "to_move", ["red_1 is sunk", "afloat"]),
    ({"to_move": "blue_7"}, "to_move", ["'blue_7'", "red_0", "blue_0"]),
    ({"round": 41}, "round", ["41", "max_rounds = 40"]),
    ({"order": ["red_0", "red_0"]}, "order", ["at most once", "every ship afloat"]),
    ({"order": ["red_0"]}, "order", ["every ship afloat", "['red_0', 'blue_0']"]),
    ({"order": None, "turn": 0}, "turn", ["give order as well"]),
    ({"turn": 2}, "turn", ["past the end of order (0 to 1)"]),
    ({"turn": 1, "to_move": "red_0"}, "turn", ["order[1] is blue_0", "red_0"]),
    ({"phase": "deploy", "round": 1}, "round", ["deploy", "0"]),
    ({"phase": "deploy", "round": 0, "order": [], "wind": "N"}, "wind", ["rolled after deployment"]),
    ({"phase": "deploy", "round": 0}, "order", ["empty in the deploy phase"]),
    ({"round": 0}, "round", ["rounds count from 1"]),
    ({"phase": "reaction"}, "pending", ["required in the reaction phase"]),
    ({"pending": PENDING, "phase": "move"}, "pending", ["only in the reaction phase"]),
    ({"queue": [PENDING]}, "queue", ["empty otherwise"]),
    ({"pending": {**PENDING, "attacker": "red_3"}}, "pending.attacker", ["'red_3'", "red_0", "blue_0"]),
    ({"pending": {**PENDING, "target": "red_0"}}, "pending.target", ["own side"]),
    ({"pending": {**PENDING, "target_unit": "mages"}}, "pending.target_unit", ["without a decision"]),
    ({"pending": PENDING, "queue": [{**PENDING, "attacker": "blue_0", "target": "red_0"}]}, "queue.0.attacker",
     ["one attack step", "red_0's"]),
    ({"pending": PENDING, "to_move": "red_0"}, "to_move", ["attacked captain's", "blue_0"]),
    ({"pending": PENDING, "ships": [red(x=1), blue()]}, "pending", ["out of blue_0's gun range",
                                                                    "cannot counter-attack"]),
    ({"ships": [red(stuck=True), blue()]}, "ships.0.stuck", ["stuck after a collision", "without a decision"]),
    ({"ships": [red(steering=0), blue()]}, "ships.0.captain_alive", ["no captain", "drifts"]),
    ({"ships": [red(moved=True), blue()]}, "ships.0.moved", ["still to come"]),
    ({"ships": [red(facing="N", grappled_with="blue_0", grappled_round=1), blue(x=6, facing="N")]},
     "ships.0.grappled_with", ["grappled this round", "from the round after"]),
    ({"ships": [red(facing="N", grappled_with="blue_0", tried_break_free=True), blue(x=6, facing="N")]},
     "ships.0.grappled_with", ["has tried to break free this round"]),
    ({"phase": "attack", "ships": [red(attacked=True), blue()]}, "ships.0.attacked", ["still to come"]),
    ({"phase": "attack", "ships": [red(x=1), blue()]}, "phase", ["nothing to choose", "attack"]),
])
def test_a_bad_position_is_refused_naming_the_field_and_what_is_allowed(change, path, words):
    problems = refused({**duel(), **change})
    assert path in problems, problems
    for word in words:
        assert word in problems[path], problems[path]


@pytest.mark.parametrize(("data", "path"), [
    ({"ruleset": "flotilla", "ships": [{"id": "red_0", "ship_class": "brig", "y": 1}]}, "ships.0.x"),
    ({"ruleset": "flotilla", "ships": [{"id": "red_0", "x": 1, "y": 1}]}, "ships.0.ship_class"),
    ({"ruleset": "flotilla", "pending": {"attacker": "red_0", "unit": "ship", "target": "blue_0"},
      "ships": [red(), blue()]}, "pending.target_unit"),
    ({"ruleset": "flotilla"}, "ships"),
])
def test_a_missing_required_field_is_named(data, path):
    assert refused(data) == {path: "required field is missing"}


def test_enums_are_the_rules_words():
    problems = refused(duel(red(facing="east"), blue(status="drifting", traits=["cannons"])))
    assert "'N', 'NE', 'E'" in problems["ships.0.facing"]
    assert "'afloat' or 'sunk'" in problems["ships.1.status"]
    assert "'armour', 'ram', 'bow_guns', 'broadside_guns', 'mage_squad' or 'sails'" in problems["ships.1.traits.0"]
    assert "'deploy', 'move', 'attack' or 'reaction'" in refused({**duel(), "phase": "Move"})["phase"]
    assert "'N', 'S', 'E', 'W' or 'calm'" in refused({**duel(), "wind": "NE"})["wind"]
    assert "'ship' or 'mages'" in refused({**duel(), "pending": {**PENDING, "unit": "guns"}})["pending.unit"]


def test_an_unknown_side_before_the_others_is_the_only_id_refused():
    """The shared id check (core ``check_ship_ids``) matches the ids after an unknown one without it
    (it used to index past the expected ids and raise IndexError)."""
    problems = refused(duel(red(id="green_0", x=1), red(), blue()))
    assert list(problems) == ["ships.0.id"] and "'green_0'" in problems["ships.0.id"]


def test_every_problem_is_reported_at_once_and_a_refusal_rolls_no_dice():
    data = {"ruleset": "flotilla", "version": "2.0", "scenario": "duel",
            "ships": [red(x=20, cohesion=9), blue(ship_class="raft")]}
    dice = ScriptedDice([3, 6, 2, 1, 5, 5, 5, 5])
    with pytest.raises(PositionError) as caught:
        RULESET.load_position(data, CONFIG, dice=dice)
    assert [p.path for p in caught.value.problems] == ["version", "ships.0.x", "ships.0.cohesion",
                                                       "ships.1.ship_class"]
    assert dice.remaining == 8 and dice.history == []
    # The same ships placed well, with no wind and no order: the wind, then the initiative, are rolled.
    data = {"ruleset": "flotilla", "scenario": "duel", "ships": [red(), blue()]}
    game = RULESET.load_position(data, CONFIG, dice=dice)
    assert dice.remaining == 0 and game.state.wind == E and game.state.order == ["red_0", "blue_0"]
    assert [r.reason for r in dice.history] == ["wind", "initiative: red_0", "initiative: blue_0"]


def test_a_null_to_move_while_the_battle_goes_on_is_left_to_its_default():
    """null is the schema's default of ``to_move``: a typed client that sends every field gets the default."""
    assert load(duel(to_move=None)).position() == load(duel()).position()
