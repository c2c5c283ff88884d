"""The generalization report: a captain against every scripted captain in every scenario, and from mid-game positions.

Two tables per ruleset, on seeds of their own (recorded in the output):

1. **From each scenario's set-up.** The captain plays every scripted captain (``random`` left out)
   in every scenario: ``games`` seeds a pairing, each played from both sides (the tournament's
   paired games), win rates with Wilson intervals (``agents/evaluation``). Beside each, the seat-paired
   difference against the ruleset's strongest scripted captain (:mod:`naval_agents.evaluation.seat_paired`): it
   plays every opponent on the same seeds and seats (itself as a mirror), and the cell gives the captain's
   score minus its score, paired, with its interval, so a lopsided scenario no longer reads as "0.50, par".
2. **From mid-game positions.** ``positions`` positions per scenario are drawn from seeded games
   between the other scripted captains (:mod:`naval_agents.evaluation.midgame`). From each position, the
   captain plays on from either seat against each scripted opponent, and so does the reference:
   the strongest scripted captain from the same positions (the best mean score in a round robin of
   the scripted captains played on from them), with the same dice. The table gives both scores and
   the paired difference (captain minus reference) with its interval: above 0, the captain plays
   those positions better than the best scripted captain does.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from itertools import permutations
from pathlib import Path
from typing import Any

from naval_agents.captains.base import Captain
from naval_agents.captains.registry import scripted_names
from naval_agents.evaluation.midgame import StartPosition, play_from, sample_positions, side_score
from naval_agents.evaluation.seat_paired import SeatPaired, reference_name
from naval_agents.evaluation.stats import PairedDifference, paired_difference
from naval_agents.evaluation.tournament import (
    Evaluation,
    EvaluationInputError,
    build_tournament,
    evaluate,
    load_captain,
    parse_entrant,
)
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match

#: First seed of the scenario games; far from every training (0.., 3e6, 5e6, 7e6) and quick-evaluation (1e7) seed.
REPORT_SEED = 20_000_000
#: Offsets from ``seed`` of the mid-game source games and of the dice played on from their positions.
SOURCE_OFFSET, DICE_OFFSET = 1_000_000, 2_000_000
MAX_GAMES = 100_000


@dataclass(frozen=True)
class ScenarioCell:
    opponent: str
    games: int
    win_rate: float
    ci_low: float
    ci_high: float
    paired: SeatPaired | None = None   # against the strongest scripted captain; None in reports made before it

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScenarioCell:
        paired = data.get("paired")
        return cls(data["opponent"], data["games"], data["win_rate"], data["ci_low"], data["ci_high"],
                   None if paired is None else SeatPaired.from_dict(paired))


@dataclass(frozen=True)
class MidgameRow:
    opponent: str
    captain_score: float
    reference_score: float
    difference: PairedDifference


@dataclass(frozen=True)
class MidgameTable:
    scenario: str
    reference: str                       # the strongest scripted captain from these positions
    reference_scores: dict[str, float]   # each scripted captain's mean score in their round robin
    sources: tuple[str, ...]             # who played the games the positions come from
    positions: int
    rows: tuple[MidgameRow, ...]
    pooled: PairedDifference             # every opponent together


@dataclass(frozen=True)
class Report:
    ruleset: str
    captain: str
    label: str
    games: int
    positions: int
    seed: int
    scenarios: dict[str, tuple[ScenarioCell, ...]]
    midgame: tuple[MidgameTable, ...]

    @property
    def command(self) -> str:
        return (f"naval-tactics zoo report --ruleset {self.ruleset} --captain {self.captain} --games {self.games} "
                f"--positions {self.positions} --seed {self.seed}")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "command": self.command,
                "seeds": {"scenario_games": [self.seed, self.seed + self.games - 1],
                          "source_games": self.seed + SOURCE_OFFSET, "dice": self.seed + DICE_OFFSET}}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """The report :meth:`to_dict` wrote (its derived ``command`` and ``seeds`` are recomputed, not read).
        Scenarios come back in the ruleset's order, whatever order the JSON keeps its keys in."""
        order = scenario_order(data["ruleset"])
        scenarios = sorted(data["scenarios"].items(), key=lambda item: order.index(item[0])
                           if item[0] in order else len(order))
        return cls(
            data["ruleset"], data["captain"], data["label"], data["games"], data["positions"], data["seed"],
            {scenario: tuple(ScenarioCell.from_dict(cell) for cell in cells) for scenario, cells in scenarios},
            tuple(MidgameTable(
                table["scenario"], table["reference"], dict(table["reference_scores"]), tuple(table["sources"]),
                table["positions"],
                tuple(MidgameRow(row["opponent"], row["captain_score"], row["reference_score"],
                                 PairedDifference(**row["difference"])) for row in table["rows"]),
                PairedDifference(**table["pooled"])) for table in data["midgame"]))


def scenario_order(ruleset: str) -> list[str]:
    """The ruleset's scenarios in the order it lists them (none for a ruleset this toolkit lacks)."""
    if ruleset not in ruleset_ids():
        return []
    rules = get_ruleset(ruleset)
    return list(rules.scenarios(rules.load_config()))


def rivals(ruleset: str) -> list[str]:
    """The scripted captains a captain is judged against (``random`` is no test)."""
    return [name for name in scripted_names(ruleset) if name != "random"] or ["random"]


def check_report(ruleset: str, captain: str, games: int, positions: int, seed: int) -> str:
    """Refuse bad input before any game; returns the captain's label."""
    if ruleset not in ruleset_ids():
        raise EvaluationInputError(f"unknown ruleset {ruleset!r}; choose one of {ruleset_ids()}")
    for name, value in (("--games", games), ("--positions", positions)):
        if not 1 <= value <= MAX_GAMES:
            raise EvaluationInputError(f"{name} {value}: give 1 to {MAX_GAMES}")
    if seed < 0:
        raise EvaluationInputError(f"--seed {seed}: give 0 or more")
    entrant = parse_entrant(captain)
    rules = get_ruleset(ruleset)
    config = rules.load_config()
    load_captain(entrant, ruleset, rules.action_spec(config), config=config)
    return entrant.label


def scenario_games(ruleset: str, captain: str, scenario: str, games: int, seed: int, workers: int) -> Evaluation:
    opponents = rivals(ruleset)
    label = parse_entrant(captain).label
    entrants = [captain, *(name for name in opponents if name != label)]
    pairings = [f"{label}:{name}" for name in opponents if name != label]
    tournament = build_tournament(ruleset, entrants, games, scenario=scenario, pairings=pairings, seed=seed)
    return evaluate(tournament, workers=workers, progress=sys.stderr.isatty(), reference=reference_name(ruleset),
                    play_reference=True)


class _Seats:
    """Captains by name, one instance per (name, seat), so a mirror game keeps two separate states."""

    def __init__(self, ruleset: str, match: Match, specs: dict[str, str]) -> None:
        self.ruleset, self.match, self.specs = ruleset, match, specs
        self._loaded: dict[tuple[str, int], Captain] = {}

    def get(self, name: str, seat: int) -> Captain:
        if (name, seat) not in self._loaded:
            self._loaded[(name, seat)] = load_captain(parse_entrant(f"{name}={self.specs.get(name, name)}"),
                                                      self.ruleset, self.match.action_spec, config=self.match.config)
        return self._loaded[(name, seat)]


def _play_on(match: Match, seats: _Seats, start: StartPosition, who: str, opponent: str, seat: str,
             dice: int) -> float:
    """``who`` on ``seat`` against ``opponent`` from ``start``, rolling ``Dice(dice)``: ``who``'s score."""
    other = next(side for side in match.game.sides if side != seat)
    captains = {seat: seats.get(who, 0), other: seats.get(opponent, 1)}
    return side_score(play_from(match, start.position, captains, dice), seat)


def midgame_table(ruleset: str, captain: str, scenario: str, positions: int, seed: int) -> MidgameTable:
    label = parse_entrant(captain).label
    scripted = rivals(ruleset)
    sources = [name for name in scripted if name != label] or scripted
    found = sample_positions(ruleset, scenario, sources, positions, seed + SOURCE_OFFSET)
    match = Match(ruleset, None, scenario, illegal_action="raise")
    seats = _Seats(ruleset, match, {label: parse_entrant(captain).spec})
    sides = match.game.sides

    def each(who: str, opponent: str) -> list[float]:
        """``who``'s score against ``opponent`` from every position and seat, with those positions' dice."""
        return [_play_on(match, seats, start, who, opponent, seat, seed + DICE_OFFSET + 2 * i + j)
                for i, start in enumerate(found) for j, seat in enumerate(sides)]

    reference_scores = {name: 0.0 for name in scripted}
    if len(scripted) > 1:
        for a, b in permutations(scripted, 2):
            scores = each(a, b)
            reference_scores[a] += sum(scores) / len(scores) / (len(scripted) - 1)
    reference = max(scripted, key=lambda name: (reference_scores[name], -scripted.index(name)))
    rows, pooled = [], []
    for opponent in scripted:
        mine, theirs = each(label, opponent), each(reference, opponent)
        differences = [x - r for x, r in zip(mine, theirs)]
        pooled += differences
        rows.append(MidgameRow(opponent, sum(mine) / len(mine), sum(theirs) / len(theirs),
                               paired_difference(differences)))
    return MidgameTable(scenario, reference, {k: round(v, 4) for k, v in reference_scores.items()},
                        tuple(sources), len(found), tuple(rows), paired_difference(pooled))


def generalization_report(ruleset: str, captain: str = "zoo", *, games: int = 100, positions: int | None = None,
                          seed: int = REPORT_SEED, workers: int = 1, scenarios: Sequence[str] | None = None,
                          on_scenario: Callable[[str], Any] | None = None) -> Report:
    """Play the report's games; ``positions`` defaults to ``games`` (per scenario)."""
    positions = games if positions is None else positions
    label = check_report(ruleset, captain, games, positions, seed)
    rules = get_ruleset(ruleset)
    names = list(scenarios) if scenarios is not None else rules.scenarios(rules.load_config())
    table: dict[str, tuple[ScenarioCell, ...]] = {}
    midgame: list[MidgameTable] = []
    for scenario in names:
        if on_scenario is not None:
            on_scenario(scenario)
        evaluation = scenario_games(ruleset, captain, scenario, games, seed, workers)
        table[scenario] = tuple(ScenarioCell(s.b, s.games, s.win_rate, s.ci_low, s.ci_high, paired)
                                for s, paired in zip(evaluation.summaries, evaluation.paired))
        midgame.append(midgame_table(ruleset, captain, scenario, positions, seed))
    return Report(ruleset, captain, label, games, positions, seed, table, tuple(midgame))


def _cell(cell: ScenarioCell) -> str:
    rate = f"{cell.win_rate:.2f} [{cell.ci_low:.2f}, {cell.ci_high:.2f}]"
    return rate if cell.paired is None else f"{rate}; {cell.paired.text()}"


def _reference(report: Report) -> str | None:
    """The seat-paired reference of the report's cells, None for a report made before it was measured."""
    return next((c.paired.reference for cells in report.scenarios.values() for c in cells if c.paired), None)


def _difference(d: PairedDifference) -> str:
    return f"{d.mean:+.2f} [{d.ci_low:+.2f}, {d.ci_high:+.2f}]"


def scenario_lines(report: Report) -> list[str]:
    """What the set-up table measures, and the table: a row per scenario, a column per scripted captain."""
    opponents = rivals(report.ruleset)
    reference = _reference(report)
    paired = (f" After the `;`: the seat-paired difference, `{report.label}`'s score minus `{reference}`'s (the "
              f"strongest scripted captain) against the same opponent on the same seeds and seats, with its 95% "
              f"interval; above 0, `{report.label}` does better there than `{reference}` does."
              if reference is not None else
              " (No seat-paired difference against the strongest scripted captain: this report was made before "
              "it was measured; rerun it.)")
    lines = [(f"Win rate of `{report.label}` (draws half) with its 95% Wilson interval; seeds {report.seed}.."
              f"{report.seed + report.games - 1}, each played from both sides: {2 * report.games} games a cell."
              + paired), "",
             "| scenario | " + " | ".join(f"vs {name}" for name in opponents) + " |",
             "|---|" + "---|" * len(opponents)]
    for scenario, cells in report.scenarios.items():
        by = {cell.opponent: _cell(cell) for cell in cells}
        lines.append(f"| {scenario} | " + " | ".join(by.get(name, "(itself)") for name in opponents) + " |")
    return lines


def midgame_lines(report: Report) -> list[str]:
    """What the mid-game table measures, and the table: a row per scenario and opponent, and one pooled."""
    lines = [(f"Per scenario, {report.positions} source games (seeds from {report.seed + SOURCE_OFFSET}) between the "
              "scripted captains give one position each (a random decision between 15% and 85% of the game); "
              f"from each, `{report.label}` and the reference (the strongest scripted captain from the same "
              "positions) play on from both seats against each opponent with the same dice (seeds from "
              f"{report.seed + DICE_OFFSET}). Difference: `{report.label}`'s score minus the reference's, paired, "
              "with its 95% interval."), "",
             "| scenario | reference | opponent | positions x seats | captain | reference | difference |",
             "|---|---|---|---|---|---|---|"]
    for table in report.midgame:
        for row in table.rows:
            lines.append(f"| {table.scenario} | {table.reference} | {row.opponent} | {row.difference.n} | "
                         f"{row.captain_score:.2f} | {row.reference_score:.2f} | {_difference(row.difference)} |")
        lines.append(f"| {table.scenario} | {table.reference} | **all** | {table.pooled.n} | | | "
                     f"**{_difference(table.pooled)}** |")
    return lines


def to_markdown(report: Report) -> str:
    lines = [f"# Generalization report: `{report.ruleset}`, captain `{report.label}`", "",
             f"Reproduce: `{report.command}`", "",
             "## From each scenario's set-up", "", *scenario_lines(report), "",
             "## From mid-game positions", "", *midgame_lines(report)]
    return "\n".join(lines) + "\n"


def write_report(report: Report, out: Path) -> tuple[Path, Path]:
    """``out`` (markdown) and ``out`` with the suffix ``.json`` beside it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(to_markdown(report), encoding="utf-8")
    data = out.with_suffix(".json")
    data.write_text(json.dumps(report.to_dict(), indent=1), encoding="utf-8")
    return out, data
