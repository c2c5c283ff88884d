"""The difficulty ladder: calibration toward a target, the levels file, the measured steps and their flags."""

from __future__ import annotations

import json
import math
import shutil
from itertools import pairwise
from pathlib import Path

import pytest

from naval_agents.captains.zoo.catalogue import CAPTAINS_DIR
from naval_agents.captains.zoo.levels import LEVELS_FILE, Level, levels_of
from naval_agents.evaluation.stats import wilson_interval
from naval_agents.zoo import ladder
from naval_agents.zoo.card import render_card
from naval_agents.zoo.monotone import (
    ScenarioLadder,
    Step,
    Verdict,
    step_verdict,
    summary_lines,
    to_markdown,
)
from naval_tactics.catalogue import Catalogue
from naval_tactics.commands import zoo as zoo_command


@pytest.fixture
def levels_file(tmp_path: Path) -> Path:
    path = tmp_path / "levels.yaml"
    shutil.copyfile(LEVELS_FILE, path)
    return path


def test_levels_are_written_in_place_keeping_the_header_and_the_other_rulesets(levels_file: Path) -> None:
    before = levels_file.read_text(encoding="utf-8")
    levels = levels_of("flotilla", levels_file)
    changed = levels.model_copy(update={"hard": Level(base="zoo", temperature=1.5),
                                        "normal": Level(base="zoo", temperature=2.5, random_share=0.1)})
    ladder.write_levels("flotilla", changed, levels_file)
    text = levels_file.read_text(encoding="utf-8")
    assert "  hard: {base: zoo, temperature: 1.5}\n" in text
    assert "  normal: {base: zoo, temperature: 2.5, random_share: 0.1}\n" in text
    assert levels_of("flotilla", levels_file) == changed
    assert levels_of("pantheon", levels_file) == levels_of("pantheon")
    ladder.write_levels("flotilla", levels, levels_file)
    assert levels_file.read_text(encoding="utf-8") == before


def _strength(temperature: float) -> float:
    """A model captain whose logit strength falls with the temperature, fast at first, then slower."""
    return -2.0 * math.log1p(temperature)


def _fake_probe(calls: list[tuple[str, str]]):
    """Win rates of the model captain: a logistic of the strength gap."""

    def strength(spec: str) -> float:
        assert spec.startswith("tempered:zoo:")
        return _strength(float(spec.rsplit(":", 1)[1]))

    def probe(ruleset_id: str, scenario: str | None, upper: str, lower: str, seeds: int, workers: int) -> float:
        calls.append((upper, lower))
        return 1.0 / (1.0 + math.exp(strength(lower) - strength(upper)))

    return probe


@pytest.mark.parametrize("target", [0.66, 0.70, 0.72])
def test_calibration_walks_down_from_expert_and_lands_each_step_within_the_tolerance_of_its_target(
        target: float, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(ladder, "probe", _fake_probe(calls))
    calibration = ladder.calibrate("broadside", workers=1, target=target)
    levels, probes = calibration.levels, calibration.probes
    assert calls[0] == ("tempered:zoo:0.0000", f"tempered:zoo:{ladder.CEILING:.4f}")   # the whole range first
    temperatures = [levels.expert.temperature, levels.hard.temperature, levels.normal.temperature,
                    levels.easy.temperature]
    assert temperatures[0] == 0.0 and temperatures == sorted(temperatures) and temperatures[1] > 0
    assert all(getattr(levels, name).random_share == 0.0 for name in ladder.LEVELS)
    for upper, lower in pairwise(temperatures):
        rate = 1.0 / (1.0 + math.exp(_strength(lower) - _strength(upper)))
        assert abs(rate - target) <= ladder.TOLERANCE + 0.005   # the temperatures are written rounded
    assert probes[0].level == "hard" and probes[-1].level == "easy"


def test_a_range_too_narrow_for_the_target_aims_for_three_equal_steps() -> None:
    assert ladder.step_target(0.99, target=0.66) == 0.66
    assert ladder.step_target(0.85, target=0.74) == ladder.step_target(0.85)   # 0.6407: the range decides


def test_the_ladder_measures_each_level_against_the_one_below_it() -> None:
    assert ladder.STEPS == ("expert:hard", "hard:normal", "normal:easy")
    assert "--pairings expert:hard hard:normal normal:easy" in ladder.ladder_command("broadside", "duel", 400)


def test_calibration_flags_are_checked_before_anything_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert zoo_command.TARGET == ladder.TARGET
    cases = {
        ("--target", "0.66"): "--target: needs --calibrate",
        ("--probe-games", "50"): "--probe-games: needs --calibrate",
        ("--calibrate", "--target", "0.9"): "--target 0.9: aim for a win rate from 0.6 to 0.8",
        ("--calibrate", "--probe-games", "0"): "--probe-games must be at least 1",
        ("--check-games", "50"): "--check-games: needs --calibrate",
        ("--levels", "hard"): "--levels: needs --calibrate",
        ("--calibrate", "--check-games", "-1"): "--check-games must be 0 (no checks) or more",
        ("--other-games", "0",): "--other-games must be at least 1",
    }
    for flags, message in cases.items():
        assert zoo_command.main(["ladder", "--ruleset", "broadside", *flags]) == 2
        assert message in capsys.readouterr().err


def test_level_descriptions_say_how_each_level_plays_and_only_searches_are_computed_off_the_event_loop() -> None:
    catalogue = Catalogue.load(ruleset_filter=["crew_phase", "pantheon"])
    for level in ("easy", "normal", "hard"):
        temperature = getattr(levels_of("crew_phase"), level).temperature
        assert catalogue.captain("crew_phase", level).description == (
            f"difficulty {level}: the zoo captain sampling its moves from its policy at temperature "
            f"{temperature:g} (expert: 0; higher: a flatter choice, further from its favourite moves)")
    assert catalogue.captain("pantheon", "expert").description.startswith(
        "difficulty expert: the zoo captain's move, searched with 256 simulations a decision")
    assert not any(catalogue.captain("pantheon", level).slow for level in ("easy", "normal", "hard"))
    assert catalogue.captain("pantheon", "expert").slow     # a search: the server runs it in its search pool
    assert catalogue.captain("pantheon", "expert:50ms").slow


@pytest.mark.slow
def test_re_measuring_keeps_the_cards_note_only_while_the_levels_it_describes_are_unchanged(tmp_path: Path) -> None:
    import json

    from naval_agents.captains.zoo.catalogue import CAPTAINS_DIR
    from naval_agents.zoo.card import read_facts

    card = tmp_path / "pantheon.card.json"
    facts = json.loads((CAPTAINS_DIR / "pantheon.card.json").read_text())
    levels = levels_of("pantheon")
    facts["ladder"] = {"levels": {name: ladder.level_settings(getattr(levels, name)) for name in ladder.LEVELS},
                       "note": "found by hand"}
    card.write_text(json.dumps(facts))
    evaluation = ladder.measure_ladder("pantheon", "duel", seeds=1, workers=1)
    ladder.record_ladder("pantheon", "duel", 1, evaluation, directory=tmp_path)
    kept = read_facts("pantheon", tmp_path)["ladder"]
    assert kept["note"] == "found by hand" and [p["a"] for p in kept["pairings"]] == ["expert", "hard", "normal"]
    assert "found by hand" in (tmp_path / "pantheon.md").read_text()
    facts["ladder"]["levels"]["hard"] = {"temperature": 9.0}     # the note described other levels
    card.write_text(json.dumps(facts))
    ladder.record_ladder("pantheon", "duel", 1, evaluation, directory=tmp_path)
    assert "note" not in read_facts("pantheon", tmp_path)["ladder"]


@pytest.mark.parametrize(("interval", "verdict"), [
    ((0.55, 0.75), Verdict.SHOWN), ((0.50, 0.60), Verdict.SHOWN), ((0.45, 0.60), Verdict.NOT_SHOWN),
    ((0.30, 0.50), Verdict.NOT_SHOWN), ((0.30, 0.49), Verdict.BROKEN)])
def test_a_step_is_shown_not_shown_or_broken_by_where_its_interval_lies_from_one_half(
        interval: tuple[float, float], verdict: Verdict) -> None:
    assert step_verdict(*interval) == verdict


def _step(upper: str, lower: str, rate: float, games: int = 200) -> Step:
    return Step(upper, lower, games, rate, *wilson_interval(rate * games, games))


def test_a_scenarios_ladder_is_broken_by_any_broken_step_and_monotone_only_when_every_step_is_shown() -> None:
    def ladder(name: str, *rates: float) -> ScenarioLadder:
        return ScenarioLadder(name, 100, 5000, tuple(_step(u, l, r) for (u, l), r in
                                                     zip([("expert", "hard"), ("hard", "normal"), ("normal", "easy")],
                                                         rates)))

    ladders = [ladder("duel", 0.58, 0.66, 0.65), ladder("chase", 0.7, 0.52, 0.7), ladder("uneven", 0.7, 0.3, 0.52)]
    assert [x.verdict for x in ladders] == ["monotone", "not shown", "broken"]
    assert ScenarioLadder.from_dict(ladders[2].to_dict()) == ladders[2]
    table = "\n".join(to_markdown(ladders, "duel"))
    assert "| duel (default) | 200 | 0.58 [0.51, 0.65] |" in table
    assert "0.52 [0.45, 0.59] (not shown)" in table and "**0.30 [0.24, 0.37] broken**" in table
    assert summary_lines(ladders, "duel") == [
        "Default scenario `duel`: outside 0.60-0.80: expert vs hard 0.58.",
        "Monotone (every step's interval at or above 0.5) in 1 of 3 scenarios: duel.",
        "Steps not shown (interval straddles 0.5): chase (hard vs normal); uneven (normal vs easy).",
        "Steps broken (the lower level is the stronger one): uneven (hard vs normal).",
    ]


@pytest.mark.slow
def test_the_every_scenario_ladder_flags_a_broken_step_it_is_given_and_the_card_shows_it(tmp_path: Path) -> None:
    """Real games: ``hard`` played as the flattest policy and ``normal`` as the zoo captain itself, so expert
    beats that hard one and the hard-normal step is broken; the card shows the table and its command."""
    specs = {"hard": f"tempered:zoo:{ladder.CEILING:g}", "normal": "zoo"}
    (played,) = ladder.measure_elsewhere("pursuit", ["duel"], seeds=8, workers=1, specs=specs)
    expert_hard, hard_normal, _ = played.steps
    assert (expert_hard.upper, expert_hard.lower, expert_hard.games) == ("expert", "hard", 16)
    assert expert_hard.verdict == Verdict.SHOWN          # the sharpest policy beats the flattest
    assert hard_normal.verdict == Verdict.BROKEN and played.verdict == "broken"
    facts = json.loads((CAPTAINS_DIR / "pursuit.card.json").read_text())
    facts["ladder"].update(scenarios=[played.to_dict()], everywhere_command=ladder.everywhere_command("pursuit", 8, 8))
    card = render_card(facts)
    assert "naval-tactics zoo ladder --ruleset pursuit --games 8\n" in card
    assert f"| duel (default) | 16 | {expert_hard.cell()} | **{hard_normal.win_rate:.2f}" in card
    assert "Steps broken (the lower level is the stronger one): duel (hard vs normal)." in card


def _fake_check(shift: float, calls: list[tuple[str, str, str]]):
    """The model captain's step in scenario ``other``: the gap counts ``shift`` less there (2000 games)."""

    def check(ruleset_id: str, scenario: str, upper: str, lower: str, seeds: int, workers: int) -> Step:
        calls.append((scenario, upper, lower))
        gap = _strength(float(upper.rsplit(":", 1)[1])) - _strength(float(lower.rsplit(":", 1)[1]))
        return _step("upper", "lower", 1.0 / (1.0 + math.exp(shift - gap)), games=2000)

    return check


def test_calibration_moves_a_step_that_breaks_elsewhere_to_a_hotter_temperature_still_in_the_band(
        monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[tuple[str, str, str]] = []
    monkeypatch.setattr(ladder, "probe", _fake_probe([]))
    monkeypatch.setattr(ladder, "check_step", _fake_check(1.0, checked))
    calibration = ladder.calibrate("broadside", workers=1, check_scenarios=["other"], check_seeds=1000)
    assert {scenario for scenario, _, _ in checked} == {"other"}
    hard = [check for check in calibration.checks if check.level == "hard"]
    assert hard[0].broken == ["other"] and not hard[-1].broken       # the bisection's pick broke, a hotter one did not
    assert calibration.levels.hard.temperature == hard[-1].temperature > hard[0].temperature
    rate = 1.0 / (1.0 + math.exp(_strength(calibration.levels.hard.temperature) - _strength(0.0)))
    assert ladder.BAND[0] <= rate <= ladder.BAND[1]
    assert calibration.broken() == {}


def test_calibration_keeps_the_step_nearest_the_target_and_names_where_it_breaks_when_nothing_in_the_band_helps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ladder, "probe", _fake_probe([]))
    monkeypatch.setattr(ladder, "check_step", _fake_check(3.0, []))
    plain = ladder.calibrate("broadside", workers=1)
    checked = ladder.calibrate("broadside", workers=1, check_scenarios=["other"])
    assert checked.levels == plain.levels
    assert checked.broken() == {"hard": ["other"], "normal": ["other"], "easy": ["other"]}


def test_calibration_of_some_levels_keeps_the_others_temperatures(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(ladder, "probe", _fake_probe(calls))
    current = levels_of("flotilla")
    calibration = ladder.calibrate("flotilla", workers=1, only=["normal"])
    assert calibration.levels.hard == current.hard and calibration.levels.easy == current.easy
    assert {upper for upper, _ in calls[1:]} == {ladder.tempered_spec("zoo", current.hard.temperature)}
    assert {probe.level for probe in calibration.probes} == {"normal"}


def test_the_bisection_stops_only_inside_the_band_when_the_target_lies_near_its_edge() -> None:
    assert ladder.tolerance(0.70) == ladder.TOLERANCE
    assert ladder.tolerance(0.618) == pytest.approx(0.018)   # flotilla's three equal steps: 0.600..0.636
    assert ladder.tolerance(0.60) == 0.0
