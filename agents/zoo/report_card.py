"""The generalization report as the model card and the ruleset's rules page show it.

The card's facts keep the report (``facts["report"]``: :meth:`Report.to_dict` plus when, how long and
the command that rewrites it); the card's section and the rules page's block are both rendered from
those facts, and the card writer rewrites the block between :data:`BLOCK_START` and :data:`BLOCK_END`
whenever it writes the card, so the page and the card cannot disagree.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from naval_agents.captains.zoo.catalogue import ZooError
from naval_agents.page_blocks import PageBlockError, with_block
from naval_agents.zoo.report import Report, midgame_lines, scenario_lines

BLOCK_START, BLOCK_END = "<!-- zoo-report:start -->", "<!-- zoo-report:end -->"
#: The rules page's section the block goes at the end of, when the page has no block yet.
RULES_SECTION = "## Past every scripted captain"
#: The project's rule for a shipping claim: at least this many paired games a cell.
PAIRED_GAMES_RULE = 400


def card_command(ruleset_id: str, games: int, positions: int, seed: int) -> str:
    """The command that measures the report again and writes it onto the zoo card (and the rules page)."""
    return (f"naval-tactics zoo report --ruleset {ruleset_id} --games {games} --positions {positions} "
            f"--seed {seed} --card")


def _cores() -> int:
    """The CPU cores this process may run on (a container's or a pinned share, not the host's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def report_facts(report: Report, wall_seconds: float, workers: int, when: datetime | None = None) -> dict[str, Any]:
    """What the card keeps of a report: the report itself, the command that rewrites it, when, how long and on
    how many cores."""
    return {**report.to_dict(),
            "card_command": card_command(report.ruleset, report.games, report.positions, report.seed),
            "wall_seconds": round(wall_seconds, 1), "workers": workers, "cpus": _cores(),
            "date": (when or datetime.now(UTC)).date().isoformat()}


def _measured(facts: dict[str, Any]) -> str:
    return (f"Measured {facts['date']} in {facts['wall_seconds']:.0f} s of wall time on {facts['cpus']} CPU cores "
            f"({facts['workers']} worker{'s' if facts['workers'] != 1 else ''})")


def _short_of_the_rule(report: Report) -> list[str]:
    """A warning when a table has fewer paired games a cell than a shipping claim needs."""
    short = [f"{what} {2 * n} games a cell" for what, n in (("set-up:", report.games), ("mid-game:", report.positions))
             if 2 * n < PAIRED_GAMES_RULE]
    if not short:
        return []
    return [(f"> **Too few games for a claim** ({'; '.join(short)}; the project's rule is at least "
             f"{PAIRED_GAMES_RULE}): a first look, not a result."), ""]


def report_section(facts: dict[str, Any]) -> list[str]:
    """The card's section: how the captain holds up in every scenario and from mid-game positions."""
    report = Report.from_dict(facts)
    return [
        "## How it holds up in every scenario",
        "",
        *_short_of_the_rule(report),
        (f"The generalization report (`agents/zoo/report.py`): the captain against every scripted captain but "
         f"`random` in every scenario, and from mid-game positions paired with the strongest scripted captain from "
         f"the same positions and dice. {_measured(facts)}. Seeds: scenario games {report.seed}.."
         f"{report.seed + report.games - 1}, mid-game source games from {facts['seeds']['source_games']}, "
         f"their dice from {facts['seeds']['dice']}; no training uses them. Reproduce (and rewrite this section "
         f"and the table on the rules page) with:"),
        "",
        "```bash",
        facts["card_command"],
        "```",
        "",
        "### From each scenario's set-up",
        "",
        *scenario_lines(report),
        "",
        "### From mid-game positions",
        "",
        *midgame_lines(report),
        "",
    ]


def rules_block(ruleset_id: str, facts: dict[str, Any]) -> str:
    """The rules page's block, from the card's facts, markers included."""
    report = Report.from_dict(facts)
    lines = [
        BLOCK_START,
        (f"How the shipped captain holds up in every scenario: the generalization report from its "
         f"[model card](../../agents/captains/zoo/{ruleset_id}.md#how-it-holds-up-in-every-scenario) "
         f"(this block is written from the card's facts; do not edit it by hand). {_measured(facts)}; reproduce "
         f"with `{facts['card_command']}`."),
        "",
        *_short_of_the_rule(report),
        "**From each scenario's set-up.** " + scenario_lines(report)[0],
        *scenario_lines(report)[1:],
        "",
        "**From mid-game positions.** " + midgame_lines(report)[0],
        *midgame_lines(report)[1:],
        BLOCK_END,
    ]
    return "\n".join(lines)


class RulesPageError(ZooError):
    """A rules page whose zoo-report block is broken (a marker missing, repeated or out of order)."""


def with_rules_block(page: str, block: str) -> str:
    """``page`` with its block replaced by ``block``, or ``block`` added at the end of the strength section
    (else at the end of the page) when the page has none yet."""
    try:
        return with_block(page, block, BLOCK_START, BLOCK_END, RULES_SECTION)
    except PageBlockError as exc:
        raise RulesPageError(str(exc)) from None


def rewrite_rules_page(ruleset_id: str, facts: dict[str, Any], rules_dir: Path) -> Path | None:
    """Write the block from the card's report onto ``rules_dir/<ruleset>.md``; None when there is no page or
    no report (a page is never given a block for a report the card does not have)."""
    path = rules_dir / f"{ruleset_id}.md"
    if "report" not in facts or not path.is_file():
        return None
    page = path.read_text(encoding="utf-8")
    try:
        updated = with_rules_block(page, rules_block(ruleset_id, facts["report"]))
    except RulesPageError as exc:
        raise RulesPageError(f"{path}: {exc}") from None
    if updated != page:
        path.write_text(updated, encoding="utf-8")
    return path
