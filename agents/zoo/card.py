"""Model cards: the facts of a zoo captain kept as JSON (``<ruleset>.card.json``) and shown as Markdown.

The JSON is what the build and ladder commands write; the Markdown is rendered from it, so the two never
disagree and a reader can rerun the command the card gives to reproduce its numbers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from naval_agents.captains.zoo.catalogue import CAPTAINS_DIR, card_path, facts_path, read_facts
from naval_agents.captains.zoo.levels import LEVELS
from naval_agents.page_blocks import RULES_DIR
from naval_agents.zoo.monotone import ScenarioLadder, summary_lines, to_markdown
from naval_agents.zoo.report_card import report_section, rewrite_rules_page
from naval_agents.zoo.stalls import SHARES, STALL_FACTOR, STALL_FLOOR, stall_limit

__all__ = ["facts_path", "read_facts", "render_card", "write_card"]


def write_card(ruleset_id: str, facts: dict[str, Any], directory: Path = CAPTAINS_DIR,
               rules_dir: Path | None = None) -> Path:
    """Write the facts and the Markdown card rendered from them, and the rules page's report block from the
    same facts; returns the card's path. ``rules_dir`` defaults to the checkout's ``docs/rules`` for the
    shipped cards and to no rules page for cards written elsewhere (a test's folder)."""
    facts_path(ruleset_id, directory).write_text(json.dumps(facts, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    path = card_path(ruleset_id, directory)
    path.write_text(render_card(facts), encoding="utf-8")
    if rules_dir is None and directory.resolve() == CAPTAINS_DIR.resolve():
        rules_dir = RULES_DIR
    if rules_dir is not None:
        rewrite_rules_page(ruleset_id, facts, rules_dir)
    return path


def record_report(ruleset_id: str, report: dict[str, Any], directory: Path = CAPTAINS_DIR,
                  rules_dir: Path | None = None) -> Path:
    """Put a generalization report (:func:`naval_agents.zoo.report_card.report_facts`) onto the card."""
    facts = read_facts(ruleset_id, directory)
    facts["report"] = report
    return write_card(ruleset_id, facts, directory, rules_dir)


def _pct(x: float) -> str:
    return f"{x:.2f}"


def _pairing_rows(pairings: list[dict[str, Any]]) -> list[str]:
    rows = ["| pairing | W/D/L | win rate [95% Wilson CI] | mean rounds |", "|---|---|---|---|"]
    for p in pairings:
        rows.append(f"| {p['a']} vs {p['b']} | {p['wins']}/{p['draws']}/{p['losses']} | "
                    f"**{_pct(p['win_rate'])}** [{_pct(p['ci_low'])}, {_pct(p['ci_high'])}] | {p['mean_rounds']:.1f} |")
    return rows


def _ladder_how(ladder: dict[str, Any]) -> list[str]:
    """How the levels play and were calibrated; cards measured before the temperature ladder kept random shares."""
    if "shares" in ladder:
        return [("Each level is the zoo captain playing a share of its decisions uniformly at random "
                 "(`agents/captains/zoo/levels.yaml`). ")]
    return [("Each level is the zoo captain sampling its moves from its own policy at a temperature "
            "(`agents/captains/zoo/levels.yaml`): 0 plays its most likely move, a higher one spreads its choice over the "
            "moves the policy rates lower, never onto an illegal one, so a weaker level plays like a less sure "
            "captain rather than one that sometimes moves at random. "
            + ("`naval-tactics zoo ladder --calibrate --anchored` bisects each temperature toward its anchor: `hard` "
               "level with the strongest scripted captain, `normal` with the weakest, `easy` 0.70 against `random` "
               "(`agents/zoo/anchors.py`; the table under *Anchors and stalls*). "
               if ladder.get("anchor_tables") else
               "`naval-tactics zoo ladder --calibrate` bisects each temperature so that each level beats the one "
               "below it at the target (0.60-0.80; `agents/zoo/ladder.py`). "))]


def _level_rows(ladder: dict[str, Any]) -> list[str]:
    if "shares" in ladder:
        return ["| level | random share |", "|---|---|",
                *[f"| `{name}` | {ladder['shares'][name]:.3f} |" for name in LEVELS if name in ladder["shares"]]]
    rows = ["| level | temperature | random share | search |", "|---|---|---|---|"]
    for name in LEVELS:
        level = ladder["levels"].get(name)
        if level is not None:
            search = f"{level['search']} simulations" if level.get("search") else "none"
            rows.append(f"| `{name}` | {level.get('temperature', 0.0):g} | {level.get('random_share', 0.0):g} "
                        f"| {search} |")
    return rows


def _trained_on(training: dict[str, Any]) -> str:
    """The scenarios the captain trained on, with their draw weights where the run drew from several."""
    weights = training.get("scenarios") or {}
    if len(weights) > 1:
        heaviest = sorted(weights.items(), key=lambda item: (-item[1], item[0]))
        listed = ", ".join(f"`{name}` ({weight:.2f})" for name, weight in heaviest)
        return (f"- **Scenarios trained on** (drawn per game, weight): {listed}; plays every scenario of the "
                "ruleset (its spaces are fixed per config).")
    return (f"- **Scenario trained on:** `{training.get('scenario', '?')}`; plays every scenario of the ruleset "
            "(its spaces are fixed per config).")


def _resumable(training: dict[str, Any]) -> str:
    """How a rebuild survives an interruption: the run's checkpoint interval and, where it was resumed, where."""
    config = yaml.safe_load(training.get("config_yaml") or "{}") or {}
    every = config.get("checkpoint_every")
    when = f"every {every:,} timesteps and " if isinstance(every, int) else ""
    resumed = training.get("resumed_from")
    sittings = (f" This run was stopped and resumed; its last resume went on from {resumed:,} timesteps, and the "
                "training time above adds up every sitting." if isinstance(resumed, int) else "")
    return (f"- **Resumable:** the training writes a checkpoint {when}when stopped by Ctrl-C or SIGTERM; "
            f"`naval-tactics train --resume RUN_FOLDER` goes on from the newest one.{sittings}")


def _everywhere_rows(ladder: dict[str, Any]) -> list[str]:
    """The ladder in every scenario, where it was measured there (cards measured before had the default only)."""
    if not ladder.get("scenarios"):
        return []
    ladders = [ScenarioLadder.from_dict(data) for data in ladder["scenarios"]]
    return [
        "### In every scenario",
        "",
        (f"Each step in each scenario, seeds from {ladder['seed']} each played from both sides; win rate of the "
          "upper level (draws half) with its 95% Wilson interval. A step is *not shown* where the interval "
          "straddles 0.5 and *broken* where it lies below 0.5; a scenario's ladder is *monotone* when every step "
          "is shown (`agents/zoo/monotone.py`). Reproduce with:"),
        "",
        "```bash",
        ladder["everywhere_command"],
        "```",
        "",
        *to_markdown(ladders, ladder["scenario"]),
        "",
        *summary_lines(ladders, ladder["scenario"]),
        "",
    ]


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def anchor_markdown(table: dict[str, Any]) -> list[str]:
    """A card's rows for one scenario's anchor table."""
    seeds, seed = table["seeds"], table["seed"]
    lines = [
        f"**`{table['scenario']}`** (seeds {seed}..{seed + seeds - 1}, both sides: {2 * seeds} games a row)",
        "",
        "| level | against | score [95% CI] | band | lands |",
        "|---|---|---|---|---|",
        *[f"| `{row['level']}` | `{row['reference']}` | {row['score']:.2f} [{row['ci'][0]:.2f}, {row['ci'][1]:.2f}] | "
          f"{row['band'][0]:.2f}-{row['band'][1]:.2f} | {'yes' if row['lands'] else '**no**'} |"
          for row in table["anchors"]],
        "",
        f"| captain (vs `{table['strongest']}`) | score | " + " | ".join(f"{name.replace('_', '-')} share"
                                                                   for name in SHARES) + " | stalls |",
        "|---|---|" + "---|" * len(SHARES) + "---|",
    ]
    zoo = table["stalls"][0]
    for count in table["stalls"]:
        shares = count["shares"]
        cells = []
        for name in SHARES:
            cell = _share(shares[name])
            if count is not zoo and shares[name] is not None and zoo["shares"][name] is not None:
                cell += f" (max {stall_limit(zoo['shares'][name]):.3f})"
            cells.append(cell)
        verdict = "" if count is zoo else (", ".join(count["stalled"]) if count["stalled"] else "none")
        lines.append(f"| `{count['captain']}` | {count['score']:.2f} | " + " | ".join(cells) + f" | {verdict} |")
    return [*lines, ""]


def _anchor_rows(ladder: dict[str, Any]) -> list[str]:
    """Each level against its anchor and the stall counts, in every scenario measured (none on older cards)."""
    tables = ladder.get("anchor_tables")
    if not tables:
        return []
    return [
        "### Anchors and stalls",
        "",
        (f"`hard` against the strongest scripted captain (`{tables[0]['strongest']}`), `normal` against the weakest "
         f"(`{tables[0]['weakest']}`), `easy` against `random`, each with its band (`agents/zoo/anchors.py`). Then "
         "the zoo captain and each level against the strongest scripted captain, counting stalls "
         "(`agents/zoo/stalls.py`): the share of its ships' rounds after which the ship stands where it stood and "
         "no enemy lost hull (idle), the share it begins at the board's edge (edge), and the share of games "
         f"ending at the round limit. A level stalls where a share passes {STALL_FACTOR:g} times the zoo "
         f"captain's (at least {STALL_FLOOR:g})."),
        "",
        *[line for table in tables for line in anchor_markdown(table)],
    ]


def render_card(facts: dict[str, Any]) -> str:
    training = facts.get("training", {})
    evaluation = facts.get("evaluation")
    ladder = facts.get("ladder")
    lines = [
        f"# Zoo captain: `{facts['ruleset']}`",
        "",
        (f"The trained captain that ships with naval-tactics for the `{facts['ruleset']}` ruleset "
         f"(version {facts['ruleset_version']}), loaded by the captain name `zoo` "
         f"(`evaluate.py --ruleset {facts['ruleset']} --captains zoo gunner`, `opponent=\"zoo\"`, the server). "
         f"Rules: [docs/rules/{facts['ruleset']}.md](../../../docs/rules/{facts['ruleset']}.md)."),
        "",
        "## How it was made",
        "",
        f"- **Rebuild end to end:** `{facts['rebuild_command']}`",
        f"- **Training command:** `{training.get('command', '?')}`",
        _trained_on(training),
        f"- **Seed:** {training.get('seed', '?')}",
        f"- **Training time:** {training.get('wall_seconds', 0):.0f} s of wall time on 2 CPU cores"
        + (f" ({training['machine_note']})" if training.get("machine_note") else ""),
        _resumable(training),
        "- **Library versions:** " + ", ".join(f"{k} {v}" for k, v in sorted(training.get("versions", {}).items())),
        (f"- **Files:** `{facts['ruleset']}.onnx` (policy), `{facts['ruleset']}.json` (sidecar: observation and "
         f"action layouts), `{facts['ruleset']}.conformance.json` (positions with their observations and masks)"),
        "",
        "Training config (resolved):",
        "",
        "```yaml",
        training.get("config_yaml", "").rstrip(),
        "```",
        "",
    ]
    if evaluation:
        lines += [
            "## Strength against the scripted captains",
            "",
            (f"Scenario `{evaluation['scenario']}`; seeds {evaluation['seed']}..{evaluation['seed'] + evaluation['seeds'] - 1},"
             f" each played from both sides: {2 * evaluation['seeds']} games a pairing. Reproduce with:"),
            "",
            "```bash",
            evaluation["command"],
            "```",
            "",
            *_pairing_rows(evaluation["pairings"]),
            "",
        ]
    if facts.get("report"):
        lines += report_section(facts["report"])
    if ladder:
        lines += [
            "## Difficulty ladder",
            "",
            *([f"> **Stale:** {ladder['stale']}.", ""] if ladder.get("stale") else []),
            *_ladder_how(ladder),
            (f"Scenario `{ladder['scenario']}`; seeds {ladder['seed']}..{ladder['seed'] + ladder['seeds'] - 1}, "
              f"both sides: {2 * ladder['seeds']} games a pairing. Reproduce with:"),
            "",
            "```bash",
            ladder["command"],
            "```",
            "",
            *_level_rows(ladder),
            "",
            *_pairing_rows(ladder["pairings"]),
            "",
            *([ladder["note"], ""] if ladder.get("note") else []),
            "| level | OpenSkill mu | sigma | ordinal (mu - 3 sigma) |",
            "|---|---|---|---|",
            *[f"| `{r['name']}` | {r['mu']:.1f} | {r['sigma']:.2f} | {r['ordinal']:.1f} |" for r in ladder["ratings"]],
            "",
            *_everywhere_rows(ladder),
            *_anchor_rows(ladder),
        ]
    return "\n".join(lines)
