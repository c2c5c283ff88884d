"""Is the difficulty ladder monotone in every scenario? Each step, each level against the one below it, judged
from its 95% Wilson interval.

The ladder promises ``easy < normal < hard < expert``: each level scores at least 0.5 against the level below
it (draws half). A step is **shown** where its interval lies at or above 0.5, **not shown** where the interval
straddles 0.5 (these games cannot tell), and **broken** where the whole interval lies below 0.5 (the lower level
is the stronger one). A scenario's ladder is *monotone* when every step is shown, *broken* when any step is,
and *not shown* otherwise. The default scenario's steps are also held to the calibration band (0.60-0.80).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from naval_agents.evaluation.stats import PairingSummary

if TYPE_CHECKING:   # the cards render these tables without the evaluation stack
    from naval_agents.evaluation.tournament import Evaluation

#: The calibration band of the default scenario's steps.
BAND = (0.60, 0.80)
EVEN = 0.5


class Verdict(StrEnum):
    SHOWN = "shown"
    NOT_SHOWN = "not shown"
    BROKEN = "broken"


def step_verdict(ci_low: float, ci_high: float) -> Verdict:
    """A step from its interval on the upper level's score: above 0.5, straddling it, or below."""
    if ci_high < EVEN:
        return Verdict.BROKEN
    return Verdict.SHOWN if ci_low >= EVEN else Verdict.NOT_SHOWN


@dataclass(frozen=True)
class Step:
    """One level (``upper``) against the level below it (``lower``) in one scenario."""

    upper: str
    lower: str
    games: int
    win_rate: float   # of ``upper``, draws half
    ci_low: float
    ci_high: float

    @property
    def verdict(self) -> Verdict:
        return step_verdict(self.ci_low, self.ci_high)

    @property
    def in_band(self) -> bool:
        return BAND[0] <= self.win_rate <= BAND[1]

    @classmethod
    def of(cls, summary: PairingSummary) -> Step:
        return cls(summary.a, summary.b, summary.games, summary.win_rate, summary.ci_low, summary.ci_high)

    def cell(self) -> str:
        """``0.65 [0.60, 0.70]``, flagged where the step is not shown or broken."""
        text = f"{self.win_rate:.2f} [{self.ci_low:.2f}, {self.ci_high:.2f}]"
        return {Verdict.SHOWN: text, Verdict.NOT_SHOWN: f"{text} (not shown)",
                Verdict.BROKEN: f"**{text} broken**"}[self.verdict]


@dataclass(frozen=True)
class ScenarioLadder:
    """Every step of the ladder in one scenario, over ``seeds`` paired seeds from ``seed``."""

    scenario: str
    seeds: int
    seed: int
    steps: tuple[Step, ...]

    @property
    def verdict(self) -> str:
        verdicts = {step.verdict for step in self.steps}
        if Verdict.BROKEN in verdicts:
            return Verdict.BROKEN.value
        return "monotone" if verdicts == {Verdict.SHOWN} else Verdict.NOT_SHOWN.value

    def to_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "seeds": self.seeds, "seed": self.seed, "verdict": self.verdict,
                "steps": [{**asdict(step), "verdict": step.verdict.value} for step in self.steps]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ScenarioLadder:
        steps = tuple(Step(s["upper"], s["lower"], s["games"], s["win_rate"], s["ci_low"], s["ci_high"])
                      for s in data["steps"])
        return cls(data["scenario"], data["seeds"], data["seed"], steps)


def scenario_ladder(evaluation: Evaluation) -> ScenarioLadder:
    """The steps of a played ladder tournament (its pairings are the steps)."""
    tournament = evaluation.tournament
    return ScenarioLadder(str(tournament.scenario), tournament.games, tournament.seed,
                          tuple(Step.of(summary) for summary in evaluation.summaries))


def play_steps(ruleset_id: str, scenario: str, steps: Sequence[str], seeds: int, seed: int, workers: int,
               specs: Mapping[str, str] | None = None) -> Evaluation:
    """Play ``steps`` (``upper:lower`` pairings of level names) over ``seeds`` paired seeds from ``seed``.

    ``specs`` plays a level as another captain (``{"hard": "tempered:zoo:2.5"}``), keeping its name: how a
    calibration checks a candidate temperature, and how a test builds a ladder it knows to be broken."""
    from naval_agents.evaluation.tournament import build_tournament, evaluate

    names = list(dict.fromkeys(name for step in steps for name in step.split(":")))
    entrants = [f"{name}={specs[name]}" if specs and name in specs else name for name in names]
    tournament = build_tournament(ruleset_id, entrants, seeds, scenario=scenario, pairings=list(steps), seed=seed)
    return evaluate(tournament, workers=workers, progress=sys.stderr.isatty())


def to_markdown(ladders: Sequence[ScenarioLadder], default_scenario: str) -> list[str]:
    """The every-scenario table: one row per scenario, a cell per step, the scenario's verdict last."""
    if not ladders:
        return []
    steps = [f"{step.upper} vs {step.lower}" for step in ladders[0].steps]
    rows = ["| scenario | games a step | " + " | ".join(steps) + " | ladder |",
            "|---|---|" + "---|" * len(steps) + "---|"]
    for ladder in ladders:
        name = f"{ladder.scenario} (default)" if ladder.scenario == default_scenario else ladder.scenario
        rows.append(f"| {name} | {2 * ladder.seeds} | " + " | ".join(step.cell() for step in ladder.steps)
                    + f" | {ladder.verdict} |")
    return rows


def summary_lines(ladders: Sequence[ScenarioLadder], default_scenario: str) -> list[str]:
    """One sentence each: the default scenario's steps against the band, and where the ladder is not monotone."""
    lines = []
    default = next((ladder for ladder in ladders if ladder.scenario == default_scenario), None)
    if default is not None:
        outside = [f"{step.upper} vs {step.lower} {step.win_rate:.2f}" for step in default.steps if not step.in_band]
        lines.append(f"Default scenario `{default_scenario}`: " + (
            f"every step within {BAND[0]:.2f}-{BAND[1]:.2f}." if not outside
            else f"outside {BAND[0]:.2f}-{BAND[1]:.2f}: {', '.join(outside)}."))
    monotone = [ladder.scenario for ladder in ladders if ladder.verdict == "monotone"]
    lines.append(f"Monotone (every step's interval at or above 0.5) in {len(monotone)} of {len(ladders)} scenarios"
                 + (f": {', '.join(monotone)}." if monotone else "."))
    for verdict in (Verdict.NOT_SHOWN, Verdict.BROKEN):
        flagged = [f"{ladder.scenario} ({', '.join(f'{s.upper} vs {s.lower}' for s in ladder.steps if s.verdict == verdict)})"
                   for ladder in ladders if any(s.verdict == verdict for s in ladder.steps)]
        if flagged:
            meaning = ("interval straddles 0.5" if verdict == Verdict.NOT_SHOWN
                       else "the lower level is the stronger one")
            lines.append(f"Steps {verdict.value} ({meaning}): {'; '.join(flagged)}.")
    return lines
