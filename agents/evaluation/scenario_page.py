"""The scenario check on a ruleset's rules page: ``naval-tactics scenario check --rules-pages`` writes its
table between :data:`BLOCK_START` and :data:`BLOCK_END` in the page's "Scenario check" section, with when,
where and how it was measured, so the page's numbers are the command's and can be rewritten by it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from naval_agents.evaluation.scenario_check import ScenarioCheck, to_markdown
from naval_agents.page_blocks import RULES_DIR, with_block

BLOCK_START, BLOCK_END = "<!-- scenario-check:start -->", "<!-- scenario-check:end -->"
SECTION = "## Scenario check"


def page_block(checks: Sequence[ScenarioCheck], command: str, seconds: float, machine: str) -> str:
    """The block: what was run, when, on what, then the check's own markdown; markers included."""
    when = datetime.now(UTC).strftime("%Y-%m-%d")
    head = checks[0]
    return "\n".join([
        BLOCK_START,
        (f"Whether each scenario's result depends on its captains (issue 41; what every column means: "
         f"[scenarios.md](../scenarios.md#scenario-check)). Measured on {when} on {machine} in {seconds:.0f} s "
         f"with `{command}`. With {head.seeds} seeds a side balance's 95% interval is about "
         f"±{0.98 / head.seeds ** 0.5:.2f}, so a scenario near a threshold needs more seeds before it is called "
         "either way."),
        "",
        to_markdown(checks).rstrip("\n"),
        BLOCK_END,
    ])


def write_rules_page(ruleset_id: str, checks: Sequence[ScenarioCheck], command: str, seconds: float,
                     machine: str, rules_dir: Path | None = None) -> Path | None:
    """Rewrite the block on ``rules_dir/<ruleset>.md`` (default: the checkout's pages; the section's old body the
    first time); None where the ruleset has no page."""
    path = (rules_dir or RULES_DIR) / f"{ruleset_id}.md"
    if not checks or not path.is_file():
        return None
    page = path.read_text(encoding="utf-8")
    updated = with_block(page, page_block(checks, command, seconds, machine), BLOCK_START, BLOCK_END, SECTION,
                         replace_section=True)
    if updated != page:
        path.write_text(updated, encoding="utf-8")
    return path
