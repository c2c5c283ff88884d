"""`pursuit` positions: the short form's defaults, every refusal, and loaded games playing by the rules.

The round trip over random games of every scenario is the generic contract (tests/core/test_positions.py).
Duel galleys: oars 12, Health 80, radius 8, 30 crew (24 rowers), cannon (2 gunners) and ballista (1);
both captains Intellect 12, so a maneuver is d20 + 2 against 12.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from naval_env.core.dice import ScriptedDice
from naval_env.core.position import PositionError
from naval_env.rulesets.pursuit import RULESET
from naval_env.rulesets.pursuit.engine import PursuitGame, check_invariants
from naval_env.rulesets.pursuit.events import Maneuvered, RollMade
from naval_env.rulesets.pursuit.state import Drive, Phase, Propulsion, Status
from naval_env.testing import allowed, allowed_labels, damage_list
from tests.helpers import loaded, position_refusal

from .helpers import act, of

CONFIG = RULESET.load_config()
DOC = Path(__file__).resolve().parents[2] / "docs" / "rules" / "pursuit.md"


def doc_example() -> dict[str, Any]:
    """The short-form example of the rules page's "Positions" section (its first JSON block)."""
    section = DOC.read_text(encoding="utf-8").split("## Positions", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None, "docs/rules/pursuit.md: no JSON example under ## Positions"
    return json.loads(block.group(1))


def load(data: dict[str, Any], dice: list[int] | tuple[int, ...] = ()) -> PursuitGame:
    return loaded(RULESET, PursuitGame, data, CONFIG, dice=ScriptedDice(list(dice)), check=check_invariants)


def red(**kw: Any) -> dict[str, Any]:
    return {"id": "red_0", "ship_class": "galley", "x": 0, "y": 0, **kw}


def blue(**kw: Any) -> dict[str, Any]:
    return {"id": "blue_0", "ship_class": "galley", "x": 60, "y": 0, **kw}


def duel(*ships: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"ruleset": "pursuit", "scenario": "duel", "ships": list(ships) or [red(), blue()], **fields}


def refused(data: dict[str, Any]) -> dict[str, str]:
    """path -> message of every problem of a refused position."""
    return dict(position_refusal(RULESET, data, CONFIG, dice=ScriptedDice([])))


# ------------------------------------------------------------------ short form
def test_the_docs_short_form_loads_with_every_default_exact():
    game = load(doc_example())
    state = game.state
    assert game.dice.history == [] and game.opening_events == []
    assert (state.wind_strength, state.wind_toward, state.current_toward, state.current_fast) == ("moderate", 90.0,
                                                                                                  None, False)
    assert (state.round, state.phase, state.turn, game.current_agent, state.ended) == (1, Phase.COMMAND, 0, "red_0",
                                                                                       False)
    assert (state.order, state.shots, state.casualties) == (["red_0", "blue_0"], 0, {})
    red_0, blue_0 = state.ships["red_0"], state.ships["blue_0"]
    assert (red_0.controller.role, red_0.controller.profession, red_0.controller.agility,
            red_0.controller.intellect, red_0.controller.will) == ("captain", "pirate", 10, 12, 11)
    assert blue_0.controller.profession == "sailor"
    for ship in (red_0, blue_0):   # the galley's stat block and the duel's set-up
        assert (ship.health, ship.size, ship.radius, ship.oars, ship.sails, ship.rowers, ship.deck_spots) == (
            80, 8, 8.0, 12, 6, 24, 10)
        assert (ship.crew, ship.crew_max, ship.crew_agility, ship.crew_strength, ship.crew_will,
                ship.crew_health) == (30, 30, 10, 11, 10, 12)
        assert (ship.propulsion, ship.drive, ship.status, ship.grounded) == (Propulsion.OARS, Drive.NONE,
                                                                             Status.AFLOAT, False)
        assert (ship.switching_until, ship.forced_until, ship.inspire_until, ship.motion) == (-1, -1, -1, (0.0, 0.0))
        assert [(m.kind, m.spot, m.gunners, m.gunner_intellect, m.stone, m.health, m.loaded) for m in ship.machines] \
            == [("cannon", 0, 2, 10, False, 40, False), ("ballista", 1, 1, 10, False, 20, False)]
    assert (red_0.x, red_0.y, red_0.damage, red_0.scuttled) == (0.0, 0.0, 0, False)
    assert (blue_0.x, blue_0.y, blue_0.damage, blue_0.scuttled) == (60.0, 0.0, 40, True)   # half its Health
    assert allowed_labels(game, "propulsion") == ["none", "row", "switch"]


def test_short_form_takes_the_scenarios_set_up_for_each_ship_id():
    position = {"ruleset": "pursuit", "scenario": "chase", "ships": [
        {"id": "red_0", "ship_class": "caravel", "x": 120, "y": 20},
        {"id": "blue_0", "ship_class": "galley", "x": 10, "y": 20},
    ]}
    game = load(position)
    red_0, blue_0 = game.state.ships["red_0"], game.state.ships["blue_0"]
    # the chase's set-up (configs/rulesets/pursuit.yaml; rebalanced in issue 41): three gunners on each cannon
    assert [(m.kind, m.gunners) for m in red_0.machines] == [("cannon", 3), ("swivel_gun", 1)]
    assert [(m.kind, m.gunners) for m in blue_0.machines] == [("cannon", 3), ("ballista", 1)]
    assert (red_0.propulsion, blue_0.propulsion) == (Propulsion.SAILS, Propulsion.OARS)
    assert (blue_0.controller.profession, blue_0.controller.intellect, blue_0.controller.will) == ("pirate", 11, 18)
    # Another class under the id keeps the scenario's captain but takes the class's armament and crew.
    position["ships"][1] = {"id": "blue_0", "ship_class": "longship", "x": 10, "y": 20}
    blue_0 = load(position).state.ships["blue_0"]
    assert [(m.kind, m.gunners) for m in blue_0.machines] == [("ballista", 1), ("swivel_gun", 1)]
    assert (blue_0.crew, blue_0.propulsion, blue_0.controller.will) == (24, Propulsion.SAILS, 18)
    # Machines, crew and the controller given in the position replace the defaults field by field.
    position["ships"][1] = {"id": "blue_0", "ship_class": "galley", "x": 10, "y": 20, "crew": {"aboard": 20},
                            "machines": [{"kind": "bombard", "ammunition": "stone", "loaded": True}]}
    blue_0 = load(position).state.ships["blue_0"]
    assert (blue_0.crew, blue_0.crew_max, blue_0.crew_strength) == (20, 30, 11)
    assert [(m.kind, m.gunners, m.stone, m.loaded) for m in blue_0.machines] == [("bombard", 2, True, True)]


def test_the_ship_to_move_past_its_command_works_what_its_crew_can():
    game = load(duel(red(), blue(), phase="maneuver"))
    assert game.state.ships["red_0"].drive is Drive.ROWED and game.state.ships["red_0"].rowed_this_round
    assert game.state.ships["blue_0"].drive is Drive.NONE
    game = load(duel(red(forced_bonus=4, inspire_bonus=2), blue(), round=3))
    assert (game.state.ships["red_0"].forced_until, game.state.ships["red_0"].inspire_until) == (12, 12)  # an hour


def test_a_dump_holds_what_was_loaded_and_loads_back_equal():
    position = duel(red(damage=41, machines=[{"kind": "cannon", "loaded": True, "aim_target": "blue_0",
                                              "aim_progress": 1, "aim_point": [60, 0]}], slowed=True),
                    blue(status="sinking", damage=80, sinking_rounds=2, motion=[3.5, -1], crew={"aboard": 26}),
                    result={"winner": "red", "reason": "last side fighting"}, casualties={"blue_0": 4}, shots=7)
    game = load(position)
    assert game.is_over and game.winner == "red" and game.state.ships["red_0"].scuttled
    dumped = game.position()
    assert dumped["ships"][0]["machines"][0]["aim_point"] == [60.0, 0.0]
    assert dumped["ships"][1]["motion"] == [3.5, -1.0] and dumped["casualties"] == {"blue_0": 4}
    assert (dumped["to_move"], dumped["shots"], dumped["result"]["reason"]) == (None, 7, "last side fighting")
    again = load(dumped)
    assert again.position() == dumped and again.state_dict() == game.state_dict()


# ------------------------------------------------------------- loaded games play by the rules
@pytest.mark.parametrize(("die", "band", "moved"), [
    (18, "20 or higher", 12 + 3),   # Speed + 3
    (10, "success", 12),            # its Speed
    (5, "failure", 6),              # half its Speed
])
def test_a_hand_built_position_plays_on_by_the_rules(die, band, moved):
    """A galley 60 yards behind a damaged one, already rowing, pursues it (document: Pursuing)."""
    game = load(duel(red(), blue(damage=30), phase="maneuver"), dice=[die])
    assert allowed(game, "maneuver", "pursue@enemy0") and allowed(game, "maneuver", "ram@enemy0") is False
    events = act(game, maneuver="pursue@enemy0")
    roll = of(events, RollMade)[0]
    assert (roll.die, roll.modifier, roll.total, roll.target, roll.result) == (die, 2, die + 2, 12, band)
    assert of(events, Maneuvered)[0].speed == 12
    assert (game.state.ships["red_0"].x, game.state.ships["red_0"].y) == (float(moved), 0.0)
    assert game.current_agent == "red_0" and game.state.phase is Phase.GUNS
    assert allowed_labels(game, "machine_0") == ["idle", "load", "aim@enemy0"]


def test_a_scuttled_ship_loaded_from_its_damage_has_half_speed_and_two_banes():
    """'A scuttled ship has its Speed halved and adds 2 banes to its ... maneuverability.'"""
    game = load(duel(red(), blue(damage=40), to_move="blue_0", phase="maneuver"), dice=[15, 3, 5])
    events = act(game, maneuver="pursue@enemy0")
    roll = of(events, RollMade)[0]
    assert (roll.boons, roll.boon_die, roll.total, roll.result) == (-2, -5, 15 + 2 - 5, "success")
    assert of(events, Maneuvered)[0].speed == 6 and game.state.ships["blue_0"].x == 60.0 - 6


def test_the_positions_current_replaces_the_scenarios():
    """'Rowing with a fast-flowing current can increase a ship's maximum Speed by half.'"""
    game = load(duel(red(), blue(), phase="maneuver", current={"toward": "E"}), dice=[10])
    events = act(game, maneuver="pursue@enemy0")
    assert of(events, Maneuvered)[0].speed == 18 and game.state.ships["red_0"].x == 18.0
    assert (game.state.current_toward, game.scenario.current.toward) == (0.0, "E")


def test_to_move_and_phase_are_respected():
    cannon = {"kind": "cannon", "loaded": True}
    game = load(duel(red(), blue(machines=[cannon]), to_move="blue_0", phase="guns"))
    assert game.current_agent == "blue_0" and game.state.turn == 1
    assert (game.legal_mask("red_0") == game.action_spec.noop_mask()).all()
    assert allowed_labels(game, "machine_0") == ["idle", "aim@enemy0", "fire@enemy0"]
    # red dodges (Agility 12 // 2 = 6, 2 banes): d20 1, banes 1 and 1; 6d6 of 3; spot 10; 1d6 + 4 % of 30 crew
    game.dice.extend([1, 1, 1, 3, 3, 3, 3, 3, 3, 10, 1])
    events = act(game, machines=["fire@enemy0"])
    assert damage_list(events) == [("red_0", 18, "blue_0", "cannon")]
    assert game.state.casualties == {"red_0": 0} and game.state.shots == 1
    assert game.current_agent == "red_0" and game.state.round == 2 and game.state.phase is Phase.COMMAND


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize(("change", "path", "words"), [
    ({"version": "0.9"}, "version", ["'0.9'", "'1.0'"]),
    ({"scenario": "armada"}, "scenario", ["'armada'", "chase", "duel", "uneven"]),
    ({"ships": [red(), blue(x=0)]}, "ships.1", ["(0.0, 0.0)", "red_0", "centres may not"]),
    ({"ships": [red(), blue(damage=81)]}, "ships.1.damage", ["81", "Health 80", "0 to 80"]),
    ({"ships": [red(), blue(damage=80, status="afloat")]}, "ships.1.status", ["afloat", "sinking or sunk"]),
    ({"ships": [red(), blue(damage=70, status="sunk")], "result": {"winner": "red", "reason": "last side fighting"}},
     "ships.1.status", ["sunk with damage 70", "(80)"]),
    ({"ships": [red(), blue(ship_class="trireme")]}, "ships.1.ship_class",
     ["'trireme'", "caravel", "galleon", "galley", "longship", "rowboat", "sailboat"]),
    ({"ships": [red(), blue(id="green_0")]}, "ships.1.id", ["'green_0'", "red", "blue"]),
    ({"ships": [red(), blue(id="blue_1")]}, "ships.1.id", ["expected 'blue_0'", "numbered from 0"]),
    ({"ships": [blue(), red()]}, "ships.0.id", ["expected 'red_0'", "red then blue"]),
    ({"ships": [red(), blue(side="red")]}, "ships.1.side", ["'red'", "'blue_0'"]),
    ({"ships": [red(), red(id="red_1", y=50), red(id="red_2", y=90), blue()]}, "ships",
     ["'red' has 3 ships", "max_ships_per_side = 2"]),
    ({"ships": [red()]}, "ships", ["'blue' has 0 ships"]),
    ({"ships": [red(), blue(crew={"aboard": 31})]}, "ships.1.crew.aboard", ["31", "30"]),
    ({"ships": [red(), blue(crew={"at_start": 40})]}, "ships.1.crew.at_start", ["40", "at most 30"]),
    ({"ships": [red(), blue(controller={"role": "pilot", "profession": "sailor", "agility": 10, "intellect": 10,
                                        "will": 10})]}, "ships.1.controller.role", ["needs a captain"]),
    ({"ships": [red(), blue(controller={"role": "captain", "profession": "baker", "agility": 10, "intellect": 10,
                                        "will": 10})]}, "ships.1.controller.profession", ["'baker'", "sailor"]),
    ({"ships": [red(), {"id": "blue_0", "ship_class": "caravel", "x": 60, "y": 0, "propulsion": "oars"}]},
     "ships.1.propulsion", ["no oars", "sails only"]),
    ({"ships": [red(machines=[{"kind": "trebuchet"}]), blue()]}, "ships.0.machines.0.kind",
     ["'trebuchet'", "ballista", "swivel_gun"]),
    ({"ships": [red(machines=[{"kind": "ballista", "ammunition": "stone"}]), blue()]},
     "ships.0.machines.0.ammunition", ["ballista cannot fire a round stone"]),
    ({"ships": [red(machines=[{"kind": "cannon"}] * 5), blue()]}, "ships.0.machines", ["5", "at most 4"]),
    ({"ships": [red(machines=[{"kind": "cannon", "damage": 40, "loaded": True}]), blue()]},
     "ships.0.machines.0.loaded", ["destroyed"]),
    ({"ships": [red(machines=[{"kind": "cannon", "damage": 41}]), blue()]}, "ships.0.machines.0.damage",
     ["41", "Health 40"]),
    ({"ships": [red(machines=[{"kind": "cannon", "load_progress": 3}]), blue()]},
     "ships.0.machines.0.load_progress", ["0 to 2"]),
    ({"ships": [red(machines=[{"kind": "cannon", "misfired": True}]), blue()]}, "ships.0.machines.0.misfired",
     ["never misfires"]),
    ({"ships": [red(machines=[{"kind": "cannon", "aim_target": "blue_3"}]), blue()]},
     "ships.0.machines.0.aim_target", ["'blue_3'", "['blue_0']"]),
    ({"ships": [red(machines=[{"kind": "cannon", "aim_target": "red_0"}]), blue()]},
     "ships.0.machines.0.aim_target", ["not an enemy"]),
    ({"ships": [red(on_rocks=True), blue()]}, "ships.0.on_rocks", ["aground"]),
    ({"casualties": {"blue_9": 1}}, "casualties.blue_9", ["not a ship", "red_0"]),
    ({"ships": [red(), blue(damage=80)]}, "result", ["['blue']", "give its result"]),
    ({"result": {"winner": "red", "reason": "escaped"}, "to_move": "red_0"}, "to_move", ["over", "null"]),
    ({"result": {"winner": "green", "reason": "escaped"}}, "result.winner", ["'green'"]),
    ({"to_move": "blue_4"}, "to_move", ["'blue_4'", "red_0"]),
    ({"ships": [red(), red(id="red_1", y=50, status="escaped"), blue()], "to_move": "red_1"}, "to_move",
     ["red_1 is escaped", "afloat"]),
    ({"ships": [red(), red(id="red_1", y=50, status="escaped"), blue()], "turn": 1}, "turn", ["red_1", "escaped"]),
    ({"turn": 0, "to_move": "blue_0"}, "turn", ["red_0", "not to_move blue_0"]),
    ({"turn": 2}, "turn", ["past the last ship", "0 to 1"]),
    ({"round": 61}, "round", ["61", "max_rounds = 60"]),
    ({"ships": [red(helm_jammed=True), blue()], "phase": "maneuver"}, "phase", ["nothing to choose", "maneuver"]),
])
def test_a_bad_position_is_refused_naming_the_field_and_what_is_allowed(change, path, words):
    problems = refused({**duel(), **change})
    assert path in problems, problems
    for word in words:
        assert word in problems[path], problems[path]


@pytest.mark.parametrize(("data", "path"), [
    ({"ruleset": "pursuit", "ships": [{"id": "red_0", "ship_class": "galley", "x": 1}]}, "ships.0.y"),
    ({"ruleset": "pursuit", "ships": [red(machines=[{"loaded": True}])]}, "ships.0.machines.0.kind"),
    ({"ruleset": "pursuit"}, "ships"),
])
def test_a_missing_required_field_is_named(data, path):
    assert refused(data) == {path: "required field is missing"}


def test_enums_and_numbers_are_checked_by_the_schema():
    assert "finite" in refused(duel(red(x=float("inf")), blue()))["ships.0.x"]
    problems = refused(duel(red(status="drifting", drive="towed"), blue(), phase="fire",
                            wind={"strength": "breezy", "toward": "N"}))
    assert "'afloat', 'sinking', 'sunk' or 'escaped'" in problems["ships.0.status"]
    assert "'none', 'rowed', 'sailed', 'switching' or 'aground'" in problems["ships.0.drive"]
    assert "'command', 'maneuver' or 'guns'" in problems["phase"]
    assert "'calm', 'light', 'moderate', 'strong' or 'gale'" in problems["wind.strength"]


def test_every_problem_is_reported_at_once():
    data = {"ruleset": "pursuit", "version": "2.0", "ships": [red(damage=99), blue(ship_class="raft")]}
    with pytest.raises(PositionError) as caught:
        RULESET.load_position(data, CONFIG, dice=ScriptedDice([]))
    assert [p.path for p in caught.value.problems] == ["version", "ships.0.damage", "ships.1.ship_class"]


def test_a_null_to_move_while_the_battle_goes_on_is_left_to_its_default():
    """null is the schema's default of ``to_move``: a typed client that sends every field gets the default."""
    assert load(duel(to_move=None)).position() == load(duel()).position()
