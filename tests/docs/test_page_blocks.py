"""Generated blocks on hand-written pages (agents/page_blocks.py) and the scenario check's block on a rules page
(agents/evaluation/scenario_page.py, ``scenario check --rules-pages``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from naval_agents.evaluation import scenario_page
from naval_agents.evaluation.scenario_check import CheckCaptains, check_scenario
from naval_agents.page_blocks import PageBlockError, with_block
from naval_tactics.commands.scenario import main

START, END, SECTION = "<!-- x:start -->", "<!-- x:end -->", "## Numbers"
PAGE = "# Title\n\nProse.\n\n## Numbers\n\nold table\n\n## After\n\nmore prose\n"


def block(text: str) -> str:
    return f"{START}\n{text}\n{END}"


def test_a_block_goes_at_the_end_of_its_section_or_in_place_of_its_body() -> None:
    appended = with_block(PAGE, block("new"), START, END, SECTION)
    assert "old table\n\n<!-- x:start -->\nnew\n<!-- x:end -->\n\n## After\n\nmore prose\n" in appended
    replaced = with_block(PAGE, block("new"), START, END, SECTION, replace_section=True)
    assert "old table" not in replaced
    assert replaced == "# Title\n\nProse.\n\n## Numbers\n\n<!-- x:start -->\nnew\n<!-- x:end -->\n\n## After\n\nmore prose\n"


def test_a_marked_block_is_replaced_and_nothing_else_moves() -> None:
    once = with_block(PAGE, block("first"), START, END, SECTION, replace_section=True)
    twice = with_block(once, block("second"), START, END, SECTION, replace_section=True)
    assert twice == once.replace("first", "second")


def test_a_page_without_the_section_gets_it_at_the_end() -> None:
    assert with_block("# T\n", block("b"), START, END, SECTION) == f"# T\n\n{SECTION}\n\n{block('b')}\n"


@pytest.mark.parametrize("page", [f"{START}\n", f"{END}\n{START}\n", f"{START}{START}{END}"])
def test_broken_markers_are_refused(page: str) -> None:
    with pytest.raises(PageBlockError, match="it needs one of each, in that order, or none"):
        with_block(page, block("b"), START, END, SECTION)


def test_the_check_rewrites_its_section_on_the_rules_page(tmp_path: Path) -> None:
    (tmp_path / "pantheon.md").write_text("# pantheon\n\n## Scenario check\n\nhand-copied table\n\n## Next\n")
    checks = [check_scenario("pantheon", "duel", captains=CheckCaptains.of("gunner", ["rammer"]), seeds=3, seed=5,
                             luck=False)]
    path = scenario_page.write_rules_page("pantheon", checks, "naval-tactics scenario check --ruleset pantheon", 2.0,
                                          "2 CPU cores", tmp_path)
    assert path == tmp_path / "pantheon.md"
    page = path.read_text()
    assert "hand-copied table" not in page and page.endswith("<!-- scenario-check:end -->\n\n## Next\n")
    assert "with `naval-tactics scenario check --ruleset pantheon`" in page and "| duel |" in page
    assert scenario_page.write_rules_page("flotilla", checks, "c", 1.0, "m", tmp_path) is None   # no page


def test_the_command_writes_the_pages_it_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pantheon.md").write_text("# pantheon\n\n## Scenario check\n\nold\n")
    monkeypatch.setattr(scenario_page, "RULES_DIR", tmp_path)
    assert main(["check", "--ruleset", "pantheon", "--scenario", "duel", "--games", "2", "--strongest", "gunner",
                 "--sound", "rammer", "--no-luck-bound", "--workers", "1", "--no-progress", "--rules-pages"]) == 0
    page = (tmp_path / "pantheon.md").read_text()
    assert ("`naval-tactics scenario check --ruleset pantheon --games 2 --seed 30000000 --scenario duel --strongest "
            "gunner --sound rammer --no-luck-bound`") in page
    assert f"wrote {tmp_path / 'pantheon.md'}" in capsys.readouterr().err
