"""The difficulty ladder: calibration toward a target, the levels file, the measured steps and their flags."""

from __future__ import annotations

import math
import shutil
from itertools import pairwise
from pathlib import Path

import pytest

from agents.zoo import ladder
from agents.zoo.levels import LEVELS_FILE, Level, levels_of
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
    levels, probes = ladder.calibrate("broadside", workers=1, target=target)
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
        "difficulty expert: the zoo captain playing its most likely moves; ")
    assert not any(catalogue.captain("pantheon", level).slow for level in ("easy", "normal", "hard", "expert"))
    assert catalogue.captain("pantheon", "expert:50ms").slow


def test_re_measuring_keeps_the_cards_note_only_while_the_levels_it_describes_are_unchanged(tmp_path: Path) -> None:
    import json

    from agents.zoo.card import read_facts
    from agents.zoo.catalogue import CAPTAINS_DIR

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
