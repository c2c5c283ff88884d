"""The generalization report: every scenario against every scripted captain, and paired play from mid-game positions."""

from __future__ import annotations

import json

import pytest

from naval_agents.evaluation.stats import paired_difference
from naval_agents.evaluation.tournament import EvaluationInputError
from naval_agents.zoo.report import (
    DICE_OFFSET,
    SOURCE_OFFSET,
    generalization_report,
    midgame_table,
    to_markdown,
)
from naval_tactics.commands.zoo import main as zoo_main


def test_the_reference_against_itself_differs_by_exactly_zero(monkeypatch):
    # Same positions, same dice, the same captain on the same seat: the pairing leaves nothing to differ.
    monkeypatch.setattr("naval_agents.zoo.report.rivals", lambda ruleset: ["gunner"])
    table = midgame_table("pantheon", "copy=gunner", "squadron", positions=3, seed=40)
    assert table.reference == "gunner" and table.sources == ("gunner",)
    assert [(row.difference.mean, row.difference.n) for row in table.rows] == [(0.0, 2 * table.positions)]


def test_the_captain_judged_plays_none_of_the_source_games():
    table = midgame_table("pantheon", "gunner", "duel", positions=2, seed=40)
    assert table.sources == ("rammer",) and [row.opponent for row in table.rows] == ["gunner", "rammer"]
    assert set(table.reference_scores) == {"gunner", "rammer"}
    assert table.reference == max(table.reference_scores, key=table.reference_scores.get)


def test_the_report_covers_every_scenario_and_scripted_captain():
    report = generalization_report("pantheon", "zoo", games=1, positions=1, scenarios=["duel", "squadron"])
    assert list(report.scenarios) == ["duel", "squadron"]
    assert all([c.opponent for c in cells] == ["gunner", "rammer"] and all(c.games == 2 for c in cells)
               for cells in report.scenarios.values())
    assert [t.scenario for t in report.midgame] == ["duel", "squadron"]
    markdown = to_markdown(report)
    assert "| duel | " in markdown and "| squadron | " in markdown and "**all**" in markdown
    assert f"seeds from {report.seed + SOURCE_OFFSET}" in markdown and f"seeds from {report.seed + DICE_OFFSET}" in markdown


def test_the_command_writes_markdown_and_json_with_its_seeds(tmp_path, capsys):
    out = tmp_path / "report" / "pursuit.md"
    status = zoo_main(["report", "--ruleset", "pursuit", "--captain", "hunter", "--games", "1", "--positions", "1",
                       "--seed", "123", "--out", str(out), "--workers", "1"])
    assert status == 0, capsys.readouterr().err
    data = json.loads(out.with_suffix(".json").read_text())
    assert data["seeds"] == {"scenario_games": [123, 123], "source_games": 123 + SOURCE_OFFSET,
                             "dice": 123 + DICE_OFFSET}
    assert data["command"].endswith("--captain hunter --games 1 --positions 1 --seed 123")
    assert set(data["scenarios"]) == {"duel", "chase", "uneven"}
    assert "(itself)" in out.read_text()   # hunter is not paired with itself


@pytest.mark.parametrize(("argv", "message"), [
    (["--games", "0"], "--games and --workers must be at least 1"),
    (["--positions", "0"], "--positions 0: give 1 to"),
    (["--seed", "-1"], "--seed -1: give 0 or more"),
    (["--captain", "nobody"], "unknown captain 'nobody' for ruleset 'pantheon'"),
    (["--captain", "missing/run"], "captain 'missing/run': no such file or folder"),
])
def test_bad_report_input_is_named(argv, message, capsys):
    assert zoo_main(["report", "--ruleset", "pantheon", *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_paired_difference_interval_narrows_with_more_pairs():
    few = paired_difference([1, 0, 0, 1, 0.5, 0])
    many = paired_difference([1, 0, 0, 1, 0.5, 0] * 10)
    assert few.mean == pytest.approx(many.mean) and (many.ci_high - many.ci_low) < (few.ci_high - few.ci_low)
    with pytest.raises(ValueError, match="no paired differences"):
        paired_difference([])


def test_an_unknown_ruleset_is_refused():
    with pytest.raises(EvaluationInputError, match="unknown ruleset 'chess'"):
        generalization_report("chess")
