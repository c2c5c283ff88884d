"""Levels anchored to reference captains: the bisection toward each anchor's aim, the order it keeps, the levels
it cannot reach, the weakest scripted captain measured, and the wiring through real games."""

from __future__ import annotations

import math

import pytest

from naval_agents.zoo.anchors import (
    EASY_BAND,
    LEVEL_BAND,
    AnchoredCalibration,
    calibrate_anchored,
    describe,
    weakest_scripted,
)
from naval_agents.zoo.ladder import CEILING


def _model(at_zero: dict[str, float], slope: float = 0.12) -> tuple[list[tuple[str, str]], object]:
    """A prober whose level at temperature T scores ``at_zero[reference] - slope * log(1 + T)`` (clipped)."""
    asked: list[tuple[str, str]] = []

    def prober(ruleset: str, scenario: str | None, upper: str, lower: str, seeds: int, workers: int) -> float:
        asked.append((upper, lower))
        temperature = float(upper.rsplit(":", 1)[1])
        return min(1.0, max(0.0, at_zero[lower] - slope * math.log1p(temperature)))

    return asked, prober


def test_each_level_lands_at_its_anchors_aim_and_the_order_holds() -> None:
    asked, prober = _model({"gunner": 0.62, "rammer": 0.75, "random": 1.0}, slope=0.1)
    calibration = calibrate_anchored("pantheon", probe_seeds=10, weakest="rammer", prober=prober)
    scores, levels = calibration.scores, calibration.levels
    assert scores["hard"] == pytest.approx(0.50, abs=0.02) and scores["normal"] == pytest.approx(0.50, abs=0.02)
    assert scores["easy"] == pytest.approx(0.70, abs=0.02)
    assert 0 < levels.hard.temperature < levels.normal.temperature < levels.easy.temperature < CEILING
    assert {lower for _, lower in asked} == {"gunner", "rammer", "random"}   # gunner: pantheon's strongest
    assert calibration.out_of_reach == () and levels.expert == calibration.levels.expert
    # the model's own inverses: 0.62 - 0.1 log(1 + T) = 0.5 at T = e^1.2 - 1; 0.75 - ... at e^2.5 - 1; 1.0 - ...
    # = 0.7 at e^3 - 1
    assert levels.hard.temperature == pytest.approx(math.exp(1.2) - 1, rel=0.05)
    assert levels.normal.temperature == pytest.approx(math.exp(2.5) - 1, rel=0.05)
    assert levels.easy.temperature == pytest.approx(math.exp(3.0) - 1, rel=0.05)


def test_a_reference_the_zoo_captain_cannot_match_leaves_the_level_at_its_own_moves_and_says_so() -> None:
    _, prober = _model({"gunner": 0.30, "rammer": 0.45, "random": 0.97})
    calibration = calibrate_anchored("pantheon", probe_seeds=10, weakest="rammer", prober=prober)
    assert calibration.levels.hard.temperature == 0.0 and calibration.out_of_reach == ("hard",)
    assert calibration.levels.normal.temperature == 0.0   # 0.45 at T=0: in its band, nothing sharper exists
    assert calibration.scores["normal"] == pytest.approx(0.45)
    lines = describe(calibration)
    assert "hard: temperature 0, 0.300 against gunner" in lines[0] and "out of reach" in lines[0]
    assert "out of reach" not in lines[1] and "outside the band" not in lines[1]


def test_the_weakest_scripted_captain_is_the_lowest_scorer_against_the_strongest() -> None:
    scores = {"rammer": 0.31, "boarder": 0.42}

    def prober(ruleset: str, scenario: str | None, upper: str, lower: str, seeds: int, workers: int) -> float:
        assert lower == "gunner"
        return scores.get(upper, 0.45)

    assert weakest_scripted("pantheon", None, "gunner", 10, 1, prober) == "rammer"


def test_anchored_calibration_plays_real_games() -> None:
    calibration = calibrate_anchored("pursuit", probe_seeds=1, iterations=1, workers=1)
    assert isinstance(calibration, AnchoredCalibration)
    assert [a.level for a in calibration.anchors] == ["hard", "normal", "easy"]
    assert calibration.anchors[0].reference == "hunter" and calibration.anchors[2].reference == "random"
    assert calibration.anchors[0].band == LEVEL_BAND and calibration.anchors[2].band == EASY_BAND
    assert all(0.0 <= p.score <= 1.0 for p in calibration.probes) and len(calibration.probes) >= 3
    t = calibration.levels
    assert t.hard.temperature <= t.normal.temperature <= t.easy.temperature


def test_the_ladder_command_takes_anchored_only_with_calibrate_and_without_step_flags(
        capsys: pytest.CaptureFixture[str]) -> None:
    from naval_tactics.commands.zoo import main

    assert main(["ladder", "--ruleset", "pursuit", "--anchored"]) == 2
    assert "--anchored: needs --calibrate" in capsys.readouterr().err
    assert main(["ladder", "--ruleset", "pursuit", "--calibrate", "--anchored", "--target", "0.65"]) == 2
    assert "--target: calibrates the steps between levels" in capsys.readouterr().err
