"""``docs/atlas.md``: the settings that made it, the reading, and per scenario its tables and figures.

The file holds only what the seeds decide (no dates, no timings, no worker counts), so the same command
writes the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from naval_agents.atlas.figures import GAME_LENGTHS, SIDE_ADVANTAGE, matrix_file
from naval_agents.atlas.measure import ScenarioNumbers
from naval_agents.atlas.plan import AtlasSettings, ScenarioPlan
from naval_agents.atlas.reading import Claim, ruleset_summary, scenario_claims


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right_from: int = 1) -> list[str]:
    align = ["---" if i < right_from else "--:" for i in range(len(header))]
    return ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |",
            *("| " + " | ".join(row) + " |" for row in rows)]


def _by_ruleset(scenarios: Sequence[ScenarioNumbers]) -> dict[str, list[ScenarioNumbers]]:
    grouped: dict[str, list[ScenarioNumbers]] = {}
    for numbers in scenarios:
        grouped.setdefault(numbers.ruleset, []).append(numbers)
    return grouped


def _settings_section(settings: AtlasSettings, plans: Sequence[ScenarioPlan],
                      scenarios: Sequence[ScenarioNumbers]) -> list[str]:
    first, last = settings.seed, settings.seed + settings.games - 1
    pairings = sum(len(n.matrix.cells) // 2 for n in scenarios)
    games = sum(len(n.games.results) for n in scenarios)
    mirror = sum(len(n.games.mirror) for n in scenarios)
    reference = sum(len(n.games.reference_games) for n in scenarios)
    lines = ["## How it was made", "",
             f"- command: `{settings.command()}` (`--workers` and `--backend` change only the speed, never a number)",
             (f"- seeds {first}..{last} for every pairing, each played twice with the sides swapped: "
             f"{settings.games} seeds × 2 sides = {2 * settings.games} games per pairing"),
             (f"- {len(scenarios)} scenarios, {pairings} pairings, {games} round-robin games; {mirror} mirror-match "
             "games (each captain against itself, one game per seed, where both sides field the same ship classes); "
             f"{reference} games of the strongest scripted captain against itself where the fleets differ (both "
             "sides of every seed; for the seat-paired differences, not rated)"),
             ("- win rates count a draw as ½; intervals are 95% Wilson score intervals; ratings are OpenSkill "
             "(Plackett-Luce) ordinals, mu − 3 sigma, fitted game by game in (seed, swap, pairing) order"),
             "", "Rulesets and captains:", ""]
    seen: set[str] = set()
    rows = []
    for plan in plans:
        if plan.ruleset in seen:
            continue
        seen.add(plan.ruleset)
        captains = "; ".join(f"{c.name} ({c.origin})" for c in plan.captains)
        scenario_names = ", ".join(p.scenario for p in plans if p.ruleset == plan.ruleset)
        rows.append([plan.ruleset, plan.version, scenario_names, captains])
    return lines + _table(["ruleset", "version", "scenarios", "captains"], rows, right_from=4) + [""]


def _reading_section(scenarios: Sequence[ScenarioNumbers], claims: Sequence[Claim]) -> list[str]:
    lines = ["## Reading", "",
             ("Generated from the numbers below: a captain *beats* another only where the 95% interval of its win "
             "rate lies above 0.5, and a side advantage is called significant only where its interval leaves 0.5 "
             "out. Each claim gives the win rate [interval] it rests on."), ""]
    for ruleset, group in _by_ruleset(scenarios).items():
        lines += [f"### {ruleset}", "", ruleset_summary(ruleset, group, claims), ""]
        for numbers in group:
            lines.append(f"- **{numbers.scenario}**:")
            lines += [f"  - {claim.text}." for claim in claims if claim.scenario == numbers.scenario
                      and claim.ruleset == ruleset]
        lines.append("")
    return lines


def _side_section(scenarios: Sequence[ScenarioNumbers], figures: str) -> list[str]:
    rows = []
    for n in scenarios:
        mirror = n.mirror_first_side
        rows.append([f"{n.ruleset} / {n.scenario}", f"{n.sides[0]} / {n.sides[1]}", str(n.first_side.games),
                     n.first_side.text(), "yes" if n.first_side.significant else "no",
                     "—" if mirror is None else f"{mirror.text()} ({mirror.games} games)",
                     "—" if mirror is None else ("yes" if mirror.significant else "no")])
    return ["## Side advantage", "",
            ("The first side's win rate over every round-robin game of the scenario (each pairing plays every seed "
            "from both sides, so the captains' strengths cancel), and over the mirror matches where both sides "
            "field the same ship classes. *Significant*: the interval leaves 0.5 out."), "",
            *_table(["scenario", "sides (first / second)", "games", "first side wins", "significant",
                     "mirror: first side wins", "significant"], rows, right_from=2),
            "", f"![side advantage]({figures}/{SIDE_ADVANTAGE})", ""]


def _lengths_section(scenarios: Sequence[ScenarioNumbers], figures: str) -> list[str]:
    rows = [[f"{n.ruleset} / {n.scenario}", str(n.lengths.games), f"{n.lengths.mean:.1f}", f"{n.lengths.median:g}",
             f"{n.lengths.q1:g}–{n.lengths.q3:g}", f"{n.lengths.shortest}–{n.lengths.longest}",
             f"{n.lengths.truncated} ({n.lengths.truncated / n.lengths.games:.0%})"] for n in scenarios]
    return ["## Game lengths", "", "Rounds per round-robin game.", "",
            *_table(["scenario", "games", "mean", "median", "quartiles", "range", "at the round limit (draws)"],
                    rows),
            "", f"![game lengths]({figures}/{GAME_LENGTHS})", ""]


def _scenario_section(n: ScenarioNumbers, figures: str) -> list[str]:
    header = ["row captain vs →", *n.captains]
    rows = [[f"**{row}**", *("—" if (row, col) not in n.matrix.cells else
                             f"{n.cell(row, col).text()}" for col in n.captains)] for row in n.captains]
    ratings = ", ".join(f"{r.name} {r.ordinal:.1f}" for r in n.ratings)
    return [f"### {n.ruleset} / {n.scenario}", "",
            (f"Win rate of the row captain against the column captain [95% interval], "
            f"{2 * n.games.tournament.games} games per cell. Ratings (ordinal, best first): {ratings}."), "",
            *_table(header, rows), "", *_paired_section(n),
            f"![{n.ruleset} {n.scenario} win rates]({figures}/{matrix_file(n)})", ""]


def _paired_section(n: ScenarioNumbers) -> list[str]:
    """Beside the win rates: each cell's seat-paired difference against the strongest scripted captain."""
    reference = n.reference
    if reference is None or not n.paired:
        return []
    rows = [[f"**{row}**", *("—" if (row, col) not in n.paired else n.paired[(row, col)].text()
                             for col in n.captains)] for row in n.captains]
    return [(f"Seat-paired against `{reference}` (the strongest scripted captain): the row captain's score against "
             f"the column captain minus `{reference}`'s against the same captain, on the same seeds and seats, with "
             f"its 95% interval (`{reference}` against itself from "
             f"{'the mirror matches' if n.games.mirror else 'its own games, both sides of every seed'}). Above 0, "
             f"the row captain does better against that captain than `{reference}` does; a 0.50 win rate in a "
             f"lopsided scenario shows here as what it is."), "",
            *_table(["row captain vs →", *n.captains], rows), ""]


def render(settings: AtlasSettings, plans: Sequence[ScenarioPlan], scenarios: Sequence[ScenarioNumbers]) -> str:
    claims = [claim for numbers in scenarios for claim in scenario_claims(numbers)]
    figures = Path(settings.out).stem
    lines = ["# Tactics atlas", "",
             ("Which tactic wins under which rules: every scripted captain and every shipped trained captain "
             "(`zoo`) against each other in every scenario of every ruleset. Written by `naval-tactics atlas`; "
             "do not edit by hand."), ""]
    lines += _settings_section(settings, plans, scenarios)
    lines += _reading_section(scenarios, claims)
    lines += _side_section(scenarios, figures)
    lines += _lengths_section(scenarios, figures)
    lines += ["## Win rates by scenario", ""]
    for numbers in scenarios:
        lines += _scenario_section(numbers, figures)
    return "\n".join(lines).rstrip("\n") + "\n"
