"""The generalization report on the model card and the rules page: written from one set of facts."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest

from naval_agents.captains.zoo.catalogue import CAPTAINS_DIR, card_path, zoo_rulesets
from naval_agents.page_blocks import RULES_DIR
from naval_agents.zoo import card as card_module
from naval_agents.zoo.card import read_facts, record_report, render_card
from naval_agents.zoo.report import Report, generalization_report
from naval_agents.zoo.report_card import (
    BLOCK_END,
    BLOCK_START,
    RULES_SECTION,
    RulesPageError,
    report_facts,
    rewrite_rules_page,
    rules_block,
    with_rules_block,
)
from naval_tactics.commands.zoo import main as zoo_main

PURSUIT_SCENARIOS = ["duel", "chase", "uneven"]
PURSUIT_RIVALS = ["gunner", "hunter"]


@pytest.fixture(scope="module")
def report() -> Report:
    """The shipped pursuit captain's report with 2 seeds and 2 positions a scenario (real games, a few seconds)."""
    return generalization_report("pursuit", "zoo", games=2, positions=2, workers=1)


@pytest.fixture
def captains(tmp_path: Path) -> Path:
    """A copy of the shipped pursuit card (facts and markdown) to write onto, without the report it ships with."""
    folder = tmp_path / "captains"
    folder.mkdir()
    shutil.copy(CAPTAINS_DIR / "pursuit.md", folder / "pursuit.md")
    facts = json.loads((CAPTAINS_DIR / "pursuit.card.json").read_text(encoding="utf-8"))
    facts.pop("report", None)
    (folder / "pursuit.card.json").write_text(json.dumps(facts, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return folder


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    """A copy of the pursuit rules page without the report block it ships with."""
    folder = tmp_path / "rules"
    folder.mkdir()
    page = (RULES_DIR / "pursuit.md").read_text(encoding="utf-8")
    if BLOCK_START in page:
        head, rest = page.split(BLOCK_START, 1)
        page = head.rstrip("\n") + "\n\n" + rest.split(BLOCK_END, 1)[1].lstrip("\n")
    (folder / "pursuit.md").write_text(page, encoding="utf-8")
    return folder


def _facts(report: Report, day: int = 2) -> dict:
    return report_facts(report, 12.34, 1, datetime(2026, 12, day, 9, 0, tzinfo=UTC))


def test_the_report_round_trips_through_the_cards_json(report: Report, captains: Path) -> None:
    facts = _facts(report)
    assert Report.from_dict(json.loads(json.dumps(facts))) == report
    record_report("pursuit", facts, captains, rules_dir=None)
    stored = read_facts("pursuit", captains)["report"]
    assert stored == json.loads(json.dumps(facts))
    assert Report.from_dict(stored) == report
    assert list(Report.from_dict(stored).scenarios) == PURSUIT_SCENARIOS   # the ruleset's order, not sorted keys
    assert stored["card_command"] == ("naval-tactics zoo report --ruleset pursuit --games 2 --positions 2 "
                                      "--seed 20000000 --card")
    assert (stored["date"], stored["wall_seconds"], stored["workers"]) == ("2026-12-02", 12.3, 1)


def test_the_card_shows_a_row_for_every_scenario_and_scripted_captain(report: Report, captains: Path) -> None:
    before = read_facts("pursuit", captains)
    card = record_report("pursuit", _facts(report), captains, rules_dir=None).read_text(encoding="utf-8")
    assert card == render_card(read_facts("pursuit", captains))
    section = card.split("## How it holds up in every scenario", 1)[1].split("\n## ", 1)[0]
    assert "| scenario | vs gunner | vs hunter |" in section
    for scenario in PURSUIT_SCENARIOS:
        cells = {c.opponent: c for c in report.scenarios[scenario]}
        assert sorted(cells) == PURSUIT_RIVALS and all(c.games == 4 for c in cells.values())
        # each win rate with, after "; ", the seat-paired difference against hunter (the strongest scripted)
        assert all(c.paired is not None and c.paired.reference == "hunter" for c in cells.values())
        row = " | ".join(f"{cells[name].win_rate:.2f} [{cells[name].ci_low:.2f}, {cells[name].ci_high:.2f}]; "
                         f"{cells[name].paired.text()}" for name in PURSUIT_RIVALS)   # type: ignore[union-attr]
        assert f"| {scenario} | {row} |" in section
        table = next(t for t in report.midgame if t.scenario == scenario)
        for opponent in PURSUIT_RIVALS:
            assert f"| {scenario} | {table.reference} | {opponent} | 4 | " in section
        assert f"| {scenario} | {table.reference} | **all** | 8 | " in section
    assert "naval-tactics zoo report --ruleset pursuit --games 2 --positions 2 --seed 20000000 --card" in section
    assert f"Measured 2026-12-02 in 12 s of wall time on {len(os.sched_getaffinity(0))} CPU cores (1 worker)" \
        in section and "seeds: scenario games 20000000..20000001" in section.lower()
    assert "**Too few games for a claim** (set-up: 4 games a cell; mid-game: 4 games a cell" in section
    # The sections before it are the card's own, unchanged.
    assert card.index("## Strength against the scripted captains") < card.index("## How it holds up") \
        < card.index("## Difficulty ladder")
    assert {k: v for k, v in read_facts("pursuit", captains).items() if k != "report"} == before


def test_the_rules_page_block_is_written_from_the_facts_and_replaced_not_duplicated(
        report: Report, captains: Path, rules: Path) -> None:
    original = (rules / "pursuit.md").read_text(encoding="utf-8")
    assert BLOCK_START not in original
    for day in (2, 3):
        facts = _facts(report, day)
        record_report("pursuit", facts, captains, rules_dir=rules)
        page = (rules / "pursuit.md").read_text(encoding="utf-8")
        assert page.count(BLOCK_START) == 1 and page.count(BLOCK_END) == 1
        block = page[page.index(BLOCK_START):page.index(BLOCK_END) + len(BLOCK_END)]
        assert block == rules_block("pursuit", facts)
        assert f"Measured 2026-12-0{day}" in block
    # In the strength section, and nothing else of the page changed.
    section = page.split(RULES_SECTION, 1)[1].split("\n## ", 1)[0]
    assert BLOCK_START in section and BLOCK_END in section
    assert page.replace("\n\n" + block, "") == original
    for scenario in PURSUIT_SCENARIOS:
        assert f"| {scenario} | " in block


def test_a_page_with_a_broken_block_is_refused_naming_it(report: Report, rules: Path) -> None:
    page = rules / "pursuit.md"
    page.write_text(page.read_text(encoding="utf-8") + f"\n{BLOCK_START}\n{BLOCK_START}\n{BLOCK_END}\n")
    with pytest.raises(RulesPageError, match=r"pursuit\.md: the page has 2 <!-- zoo-report:start --> and 1"):
        rewrite_rules_page("pursuit", {"report": _facts(report)}, rules)


@pytest.mark.parametrize(("page", "expected"), [
    ("# R\n\n## Past every scripted captain\n\nText.\n\n## Speed\n\nFast.\n",
     "# R\n\n## Past every scripted captain\n\nText.\n\nBLOCK\n\n## Speed\n\nFast.\n"),
    ("# R\n\n## Past every scripted captain\n\nText.\n", "# R\n\n## Past every scripted captain\n\nText.\n\nBLOCK\n"),
    ("# R\n\nText.\n", "# R\n\nText.\n\n## Past every scripted captain\n\nBLOCK\n"),
    (f"a\n{BLOCK_START}\nold\n{BLOCK_END}\nb\n", "a\nBLOCK\nb\n"),
])
def test_the_block_goes_at_the_end_of_the_strength_section_or_replaces_the_old_one(page: str, expected: str) -> None:
    assert with_rules_block(page, "BLOCK") == expected


def test_facts_without_a_report_leave_the_rules_page_alone(rules: Path) -> None:
    before = (rules / "pursuit.md").read_text(encoding="utf-8")
    facts = {k: v for k, v in read_facts("pursuit", CAPTAINS_DIR).items() if k != "report"}
    assert rewrite_rules_page("pursuit", facts, rules) is None
    assert (rules / "pursuit.md").read_text(encoding="utf-8") == before


@pytest.mark.parametrize("ruleset_id", zoo_rulesets())
def test_each_rules_page_shows_the_report_its_card_has_and_no_other(ruleset_id: str) -> None:
    facts = read_facts(ruleset_id)
    page = (RULES_DIR / f"{ruleset_id}.md").read_text(encoding="utf-8")
    if "report" not in facts:
        assert BLOCK_START not in page and BLOCK_END not in page
        assert "## How it holds up in every scenario" not in card_path(ruleset_id).read_text(encoding="utf-8")
        return
    assert page.count(BLOCK_START) == 1
    assert page[page.index(BLOCK_START):page.index(BLOCK_END) + len(BLOCK_END)] == rules_block(ruleset_id,
                                                                                             facts["report"])


@pytest.mark.parametrize("captain", ["gunner", "expert", "runs/some-run"])
def test_card_refuses_a_captain_other_than_zoo_before_any_game(captain: str, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("naval_agents.zoo.report.generalization_report", lambda *a, **k: pytest.fail("played games"))
    assert zoo_main(["report", "--ruleset", "pursuit", "--captain", captain, "--card"]) == 2
    err = capsys.readouterr().err
    assert f"--card writes onto the zoo captain's model card, so it reports only --captain zoo (got --captain " \
           f"{captain})" in err


def test_card_measures_400_games_a_cell_by_default_and_writes_the_card(report: Report, captains: Path, rules: Path,
                                                                      capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    asked: dict = {}

    def measured(ruleset: str, captain: str, **kwargs):  # type: ignore[no-untyped-def]
        asked.update(kwargs, ruleset=ruleset, captain=captain)
        return report

    monkeypatch.setattr("naval_agents.zoo.report.generalization_report", measured)
    monkeypatch.setattr(card_module, "record_report", partial(record_report, directory=captains, rules_dir=rules))
    assert zoo_main(["report", "--ruleset", "pursuit", "--card", "--workers", "1"]) == 0, capsys.readouterr().err
    assert (asked["ruleset"], asked["captain"], asked["games"], asked["positions"]) == ("pursuit", "zoo", 200, None)
    assert capsys.readouterr().out.startswith(f"wrote {captains / 'pursuit.md'}")
    stored = read_facts("pursuit", captains)["report"]
    assert Report.from_dict(stored) == report and stored["workers"] == 1
    assert rules_block("pursuit", stored) in (rules / "pursuit.md").read_text(encoding="utf-8")



@pytest.mark.parametrize(("flag", "value"), [("--report-games", "0"), ("--report-positions", "100001")])
def test_build_refuses_bad_report_counts_before_training(flag: str, value: str, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("naval_agents.zoo.build.build_entry", lambda *a, **k: pytest.fail("started the build"))
    assert zoo_main(["build", "--ruleset", "pursuit", flag, value]) == 2
    assert f"{flag} {value}: give 1 to 100000" in capsys.readouterr().err
