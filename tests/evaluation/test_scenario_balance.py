"""The scenario balancer (agents/evaluation/balance.py, ``naval-tactics scenario balance``): variations and the
config they write, the point cache, and a pantheon duel made lopsided on purpose that the command balances
(scripted captains, 40 seeds a point: a few seconds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from naval_agents.evaluation.balance import (
    BalanceError,
    Balancer,
    Point,
    PointCache,
    apply_values,
    balance_scenario,
    parse_variation,
)
from naval_agents.evaluation.scenario_check import CheckCaptains, Rate, check_scenario
from naval_env.core.config import BUNDLED_CONFIGS
from naval_tactics.commands.scenario import main

pytestmark = pytest.mark.slow   # the balancer plays its games

SCRIPTED = CheckCaptains.of("gunner", ["rammer"])
BLUE_SEAMANSHIP = "sides.1.ships.0.captain.seamanship"


def shipped() -> dict:
    return yaml.safe_load((BUNDLED_CONFIGS / "rulesets" / "pantheon.yaml").read_text())


def lopsided_duel(tmp_path: Path) -> str:
    """pantheon's duel with red's captain a fine seaman (4) and blue's a novice (0): red wins every game of the
    gunner mirror on the test's seeds; blue at 4 again gives 0.57 there, at 5 0.17."""
    raw = shipped()
    sides = raw["scenarios"]["duel"]["sides"]
    sides[0]["ships"][0]["captain"]["seamanship"] = 4
    sides[1]["ships"][0]["captain"]["seamanship"] = 0
    path = tmp_path / "lopsided.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return str(path)


def point(score: float, decisive: float) -> Point:
    return Point((score,), Rate(score, 10, 0.0, 1.0), Rate(score, 10, 0.0, 1.0), decisive, 10)


# ------------------------------------------------------------------ variations
def test_variations_read_the_scenario_or_the_root_and_shift_lists() -> None:
    raw = shipped()
    wits = parse_variation("sides.0.ships.0.captain.wits=0..10", raw, "duel")
    zone = parse_variation("sides.1.zone.x=-3..0", raw, "duel")
    health = parse_variation("/vessels.trireme.health=8..16", raw, "duel")
    assert (wits.integer, wits.offset, zone.offset, health.path) == (True, False, True, "/vessels.trireme.health")
    changed = apply_values(raw, "duel", (wits, zone, health), (7, -2, 9))
    duel = changed["scenarios"]["duel"]
    assert duel["sides"][0]["ships"][0]["captain"]["wits"] == 7
    assert duel["sides"][1]["zone"]["x"] == [7, 9]                 # shipped [9, 11], shifted by -2
    assert changed["vessels"]["trireme"]["health"] == 9
    assert raw["vessels"]["trireme"]["health"] == 12                # the source is left alone


@pytest.mark.parametrize(("text", "message"), [
    ("sides.0.ships.0.captain.wit=0..10", "no 'wit' there (it has keys wits, charisma"),
    ("sides.5.zone.x=0..2", "no '5' there (it has list items 0..1)"),
    ("description=0..1", "holds 'Two triremes meet on open water (1v1)', not a number"),
    ("sides.0.ships.0.captain.wits=0.5..3", "holds a whole number (3); give whole-number bounds"),
    ("sides.0.ships.0.captain.wits=5..2", "LOW must be below HIGH"),
    ("sides.0.ships.0.captain.wits", "write PATH=LOW..HIGH"),
])
def test_bad_variations_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(BalanceError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_variation(text, shipped(), "duel")


def test_a_point_whose_config_is_invalid_names_the_values(tmp_path: Path) -> None:
    with pytest.raises(BalanceError, match=r"the config with sides.0.ships.0.captain.wits=11 is not valid: .*"
                                           r"narrow the --vary range"):
        balance_scenario("pantheon", "duel", ["sides.0.ships.0.captain.wits=9..11"], tmp_path / "out.yaml",
                         captains=SCRIPTED, seeds=2)


def test_the_point_kept_is_balanced_first_then_decisive_then_nearest(tmp_path: Path) -> None:
    balancer = Balancer("pantheon", "duel", shipped(), (), SCRIPTED, 1, 0,
                        PointCache(tmp_path / "c.json", {}, resume=False), min_decisiveness=0.3)
    near_but_seat_decided, decisive = point(0.50, 0.1), point(0.62, 0.4)
    assert balancer.better(near_but_seat_decided, decisive) is decisive
    assert balancer.better(point(0.60, 0.4), decisive).balance.score == 0.60
    # A decisive point outside the band (0.35..0.65) is lopsided: a balanced one is kept over it.
    decisive_but_lopsided = point(0.10, 0.55)
    assert balancer.better(decisive_but_lopsided, near_but_seat_decided) is near_but_seat_decided
    assert balancer.better(decisive_but_lopsided, point(0.70, 0.1)).balance.score == 0.70


# ------------------------------------------------------------------ balancing a lopsided duel
def test_balance_fixes_a_duel_made_lopsided_on_purpose(tmp_path: Path) -> None:
    config = lopsided_duel(tmp_path)
    before = check_scenario("pantheon", "duel", config=config, captains=SCRIPTED, seeds=40, seed=500, luck=False)
    assert before.verdict == "lopsided" and before.side_balance.score > 0.9
    out = tmp_path / "balanced.yaml"
    result = balance_scenario("pantheon", "duel", [f"{BLUE_SEAMANSHIP}=0..5"], out, config=config,
                              captains=SCRIPTED, seeds=40, seed=500)
    assert result.start.balance.score > 0.9
    [bracket] = result.brackets
    assert bracket is not None and bracket[0] <= result.best.values[0] <= bracket[1] and bracket[1] - bracket[0] <= 1
    assert 0.35 <= result.best.balance.score <= 0.65 and result.decisive
    written = yaml.safe_load(out.read_text())
    assert written["scenarios"]["duel"]["sides"][1]["ships"][0]["captain"]["seamanship"] == result.best.values[0]
    assert out.read_text().startswith("# Balanced by naval-tactics scenario balance from lopsided.yaml")
    # Checked again on other seeds, the balanced duel is no longer lopsided.
    after = check_scenario("pantheon", "duel", config=str(out), captains=SCRIPTED, seeds=40, seed=900, luck=False)
    assert after.verdict != "lopsided", after.reasons


def test_balance_resumes_from_its_cache(tmp_path: Path) -> None:
    config, out = lopsided_duel(tmp_path), tmp_path / "balanced.yaml"
    first = balance_scenario("pantheon", "duel", [f"{BLUE_SEAMANSHIP}=0..5"], out, config=config,
                             captains=SCRIPTED, seeds=10, seed=500)
    cache = out.with_name("balanced.yaml.points.json")
    assert len(json.loads(cache.read_text())["points"]) == first.evaluated >= 3
    with pytest.raises(BalanceError, match="pass --resume to go on from it"):
        balance_scenario("pantheon", "duel", [f"{BLUE_SEAMANSHIP}=0..5"], out, config=config, captains=SCRIPTED,
                         seeds=10, seed=500)
    again = balance_scenario("pantheon", "duel", [f"{BLUE_SEAMANSHIP}=0..5"], out, config=config,
                             captains=SCRIPTED, seeds=10, seed=500, resume=True)
    assert again.evaluated == 0 and again.best == first.best
    # a cache of mirror points, made before the seat meta-game was the objective, is another search's
    old = json.loads(cache.read_text())
    del old["key"]["objective"]
    cache.write_text(json.dumps(old))
    with pytest.raises(BalanceError, match=r"made by another search \(it differs in objective\)"):
        balance_scenario("pantheon", "duel", [f"{BLUE_SEAMANSHIP}=0..5"], out, config=config, captains=SCRIPTED,
                         seeds=10, seed=500, resume=True)
    cache.write_text(json.dumps({**old, "key": {**old["key"], "objective": "seat meta-game"}}))
    with pytest.raises(BalanceError, match=r"made by another search \(it differs in seeds\)"):
        balance_scenario("pantheon", "duel", [f"{BLUE_SEAMANSHIP}=0..5"], out, config=config, captains=SCRIPTED,
                         seeds=11, seed=500, resume=True)


def test_coordinate_search_over_two_parameters(tmp_path: Path) -> None:
    out = tmp_path / "balanced.yaml"
    result = balance_scenario("pantheon", "duel", [f"{BLUE_SEAMANSHIP}=0..5", "sides.1.ships.0.captain.wits=0..10"],
                              out, config=lopsided_duel(tmp_path), captains=SCRIPTED, seeds=30, seed=500)
    assert len(result.best.values) == 2 and 0.35 <= result.best.balance.score <= 0.65
    captain = yaml.safe_load(out.read_text())["scenarios"]["duel"]["sides"][1]["ships"][0]["captain"]
    assert (captain["seamanship"], captain["wits"]) == result.best.values


def test_command_balances_and_prints_the_points(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "balanced.yaml"
    status = main(["balance", "--ruleset", "pantheon", "--scenario", "duel", "--config", lopsided_duel(tmp_path),
                   "--vary", f"{BLUE_SEAMANSHIP}=0..5", "--games-per-point", "40", "--seed", "500",
                   "--captain", "gunner", "--captains", "rammer", "--out", str(out), "--workers", "1"])
    assert status == 0
    printed = capsys.readouterr().out
    assert "160 games a point" in printed and "0.50 crossed between" in printed and "chosen:" in printed
    assert out.is_file()
    assert main(["balance", "--ruleset", "pantheon", "--vary", "nope=1..2", "--out", str(out),
                 "--captain", "gunner"]) == 2
    assert "--vary nope: no 'nope' there" in capsys.readouterr().err
