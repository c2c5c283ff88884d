"""Calibrate and measure the difficulty ladder: each level should beat the one below it 60-80% of the time in the
default scenario, and at least half the time in every scenario.

Each level is the zoo captain sampling its moves at a temperature (``agents/captains/zoo/levels.py``). Calibration walks
down from ``expert`` (temperature 0): for each lower level it bisects the temperature (on a log scale) until the
level above beats it within ``target +- tolerance`` (kept inside the 0.60-0.80 band) over ``probe_seeds`` paired seeds (a win rate that rises with
the temperature, as a flatter policy only weakens a captain), then checks that step in the other scenarios
(``agents/zoo/monotone.py``). The ladder is then measured level against the level below it in every scenario,
the default one with OpenSkill ratings.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import yaml

from naval_agents.captains.zoo.catalogue import CAPTAINS_DIR
from naval_agents.captains.zoo.levels import (
    LEVELS,
    LEVELS_FILE,
    MAX_TEMPERATURE,
    Level,
    RulesetLevels,
    levels_of,
)
from naval_agents.evaluation.tournament import Evaluation, build_tournament, evaluate
from naval_agents.zoo.card import read_facts, write_card
from naval_agents.zoo.monotone import (
    BAND,
    ScenarioLadder,
    Step,
    Verdict,
    play_steps,
    scenario_ladder,
)

TARGET = 0.70
TOLERANCE = 0.05
LADDER_SEED = 5000
PROBE_SEED = 7000
#: The hottest temperature calibration tries: the policy is close to flat there (random play among the moves it
#: rates at all), so every step's answer lies below it. Temperature acts on a log scale (logits over T), so the
#: bisection halves the interval of log(1 + T), not of T.
CEILING = MAX_TEMPERATURE


@dataclass(frozen=True)
class Probe:
    level: str
    temperature: float
    win_rate: float  # of the level above against this candidate, in the scenario calibrated on


@dataclass(frozen=True)
class Check:
    """A candidate temperature of ``level`` checked in the other scenarios: the step in each."""

    level: str
    temperature: float
    steps: dict[str, Step]   # by scenario

    @property
    def broken(self) -> list[str]:
        return [scenario for scenario, step in self.steps.items() if step.verdict == Verdict.BROKEN]


@dataclass(frozen=True)
class Calibration:
    levels: RulesetLevels
    probes: tuple[Probe, ...]
    checks: tuple[Check, ...]   # every candidate checked in the other scenarios, the chosen ones among them

    def broken(self) -> dict[str, list[str]]:
        """Scenarios where a level's chosen step is broken, by level (none: every check passed)."""
        chosen = {check.level: check for check in self.checks
                  if getattr(self.levels, check.level).temperature == check.temperature}
        return {level: check.broken for level, check in chosen.items() if check.broken}


def tempered_spec(base: str, temperature: float) -> str:
    return f"tempered:{base}:{temperature:.4f}"


def probe(ruleset_id: str, scenario: str | None, upper: str, lower: str, seeds: int, workers: int) -> float:
    """Win rate of captain spec ``upper`` against ``lower`` over ``seeds`` paired seeds."""
    tournament = build_tournament(ruleset_id, [f"upper={upper}", f"lower={lower}"], seeds, scenario=scenario,
                                  pairings=["upper:lower"], seed=PROBE_SEED)
    return evaluate(tournament, workers=workers, progress=False).summaries[0].win_rate


def check_step(ruleset_id: str, scenario: str, upper: str, lower: str, seeds: int, workers: int) -> Step:
    """Captain spec ``upper`` against ``lower`` in ``scenario`` over ``seeds`` paired seeds, with its interval."""
    tournament = build_tournament(ruleset_id, [f"upper={upper}", f"lower={lower}"], seeds, scenario=scenario,
                                  pairings=["upper:lower"], seed=PROBE_SEED)
    return Step.of(evaluate(tournament, workers=workers, progress=False).summaries[0])


def step_target(full_range: float, steps: int = 3, target: float = TARGET) -> float:
    """``target``, or the step that ``steps`` equal logistic steps make when the whole range is narrower."""
    full_range = min(max(full_range, 0.5), 0.999)
    even = 1.0 / (1.0 + math.exp(-math.log(full_range / (1.0 - full_range)) / steps))
    return min(target, even)


def _log_midpoint(low: float, high: float) -> float:
    return math.expm1((math.log1p(low) + math.log1p(high)) / 2)


def calibrate(ruleset_id: str, scenario: str | None = None, *, probe_seeds: int = 100, iterations: int = 6,
              workers: int = 2, base: str = "zoo", target: float = TARGET, check_scenarios: Sequence[str] = (),
              check_seeds: int = 100, only: Sequence[str] = ("hard", "normal", "easy"),
              current: RulesetLevels | None = None, repairs: int = 2) -> Calibration:
    """Temperatures for ``hard``, ``normal`` and ``easy`` below an ``expert`` that plays ``base``'s own moves.

    Walking down from ``expert``, each level's temperature is bisected in ``scenario`` toward ``target``. With
    ``check_scenarios``, the step it makes is then checked there over ``check_seeds`` paired seeds; where it is
    broken somewhere, the other temperatures whose step lies in the band (0.60-0.80) in ``scenario`` are tried,
    hottest first (a hotter level is weaker, so the step grows everywhere), then up to ``repairs`` hotter ones
    still in the band. If none keeps every scenario monotone, the temperature closest to the target is kept and
    :meth:`Calibration.broken` names the scenarios. Levels not in ``only`` keep their ``current`` temperature."""
    current = current or levels_of(ruleset_id)
    temperatures = {"expert": 0.0}
    probes: list[Probe] = []
    checks: list[Check] = []
    # Where the whole range (expert against the ceiling) is too narrow for three steps of the target,
    # aim for three equal steps instead: on a logistic scale the steps add up to the range.
    full_range = probe(ruleset_id, scenario, tempered_spec(base, 0.0), tempered_spec(base, CEILING), probe_seeds,
                       workers)
    target = step_target(full_range, target=target)
    print(f"  expert vs temperature {CEILING:g}: {full_range:.3f}; aiming for steps of {target:.3f}",
          file=sys.stderr)
    upper_temperature = 0.0
    for level in ("hard", "normal", "easy"):
        if level not in only:
            temperatures[level] = upper_temperature = getattr(current, level).temperature
            print(f"  {level}: kept at temperature {upper_temperature:g}", file=sys.stderr)
            continue
        upper = tempered_spec(base, upper_temperature)
        rate_of = _prober(ruleset_id, scenario, level, upper, base, probe_seeds, workers, probes)
        chosen, high = _bisect(rate_of, upper_temperature, target, iterations)
        if check_scenarios:
            chosen = _keep_monotone(ruleset_id, level, upper, chosen, high, target, rate_of, probes, checks,
                                    check_scenarios, check_seeds, workers, base, repairs)
        temperatures[level] = upper_temperature = chosen
    # expert is kept as it is (the zoo captain's own moves, or searched over them: its search is not calibrated here).
    levels = RulesetLevels(**{name: current.expert if name == "expert" else Level(base=base, temperature=temperatures[name])
                              for name in LEVELS})
    return Calibration(levels, tuple(probes), tuple(checks))


def _prober(ruleset_id: str, scenario: str | None, level: str, upper: str, base: str, seeds: int, workers: int,
            probes: list[Probe]) -> Callable[[float], float]:
    """The win rate of ``upper`` against ``level`` at a temperature, each probe recorded in ``probes``."""

    def rate_of(temperature: float) -> float:
        rate = probe(ruleset_id, scenario, upper, tempered_spec(base, temperature), seeds, workers)
        probes.append(Probe(level, temperature, rate))
        print(f"  {level}: temperature {temperature:.3f} -> the level above wins {rate:.3f}", file=sys.stderr)
        return rate

    return rate_of


def tolerance(target: float) -> float:
    """How far from ``target`` a probe may land and stop the bisection: ``TOLERANCE``, narrowed so that the
    window stays inside the band (a narrow range aims near its edge: flotilla's three steps of 0.62)."""
    return max(0.0, min(TOLERANCE, target - BAND[0], BAND[1] - target))


def _bisect(rate_of: Callable[[float], float], floor: float, target: float, iterations: int) -> tuple[float, float]:
    """The temperature (rounded as written) whose step is closest to ``target``, and the hottest bound left."""
    low, high = floor, CEILING
    chosen, chosen_gap = CEILING, float("inf")
    window = tolerance(target)
    for _ in range(iterations):
        temperature = _log_midpoint(low, high)
        rate = rate_of(temperature)
        if abs(rate - target) < chosen_gap:
            chosen, chosen_gap = temperature, abs(rate - target)
        if rate < target - window:
            low = temperature
        elif rate > target + window:
            high = temperature
        else:
            break
    return round(chosen, 3), high


def _keep_monotone(ruleset_id: str, level: str, upper: str, chosen: float, high: float, target: float,
                   rate_of: Callable[[float], float], probes: list[Probe], checks: list[Check],
                   scenarios: Sequence[str], seeds: int, workers: int, base: str, repairs: int) -> float:
    """``chosen``, or the in-band temperature nearest to it that keeps the step unbroken in every scenario."""

    def check(temperature: float) -> Check:
        steps = {name: check_step(ruleset_id, name, upper, tempered_spec(base, temperature), seeds, workers)
                 for name in scenarios}
        checks.append(Check(level, temperature, steps))
        print(f"  {level}: temperature {temperature:g} elsewhere: "
              + ", ".join(f"{name} {step.win_rate:.3f} ({step.verdict})" for name, step in steps.items()),
              file=sys.stderr)
        return checks[-1]

    in_band = sorted({round(p.temperature, 3) for p in probes
                      if p.level == level and BAND[0] <= p.win_rate <= BAND[1]} - {chosen}, reverse=True)
    for temperature in (chosen, *in_band):
        if not check(temperature).broken:
            return temperature
    hotter = max((chosen, *in_band))
    for _ in range(repairs):
        temperature = round(_log_midpoint(hotter, high), 3)
        if not BAND[0] <= rate_of(temperature) <= BAND[1]:
            break
        if not check(temperature).broken:
            return temperature
        hotter = temperature
    print(f"  warning: no temperature of {level} in the band keeps every scenario monotone; keeping {chosen:g} "
          f"(closest to the target {target:.3f}), broken in {', '.join(checks[-1].broken)}", file=sys.stderr)
    return chosen


def write_levels(ruleset_id: str, levels: RulesetLevels, path: Path = LEVELS_FILE) -> None:
    """Replace one ruleset's entry in the levels file, keeping its header comment and the other rulesets."""
    text = path.read_text(encoding="utf-8")
    header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
    data = yaml.safe_load(text) or {}
    data[ruleset_id] = {name: {"base": getattr(levels, name).base, **level_settings(getattr(levels, name))}
                        for name in LEVELS}
    body = "".join(f"{rid}:\n" + "".join(f"  {name}: {_flow(entry)}\n" for name, entry in data[rid].items())
                   for rid in data)
    path.write_text(header + body, encoding="utf-8")
    from naval_agents.captains.zoo import levels as levels_module

    levels_module._all_levels.cache_clear()


def level_settings(level: Level) -> dict[str, float]:
    """How a level plays, as the levels file writes it: its search budget where it searches, else its temperature
    and its random share where it has one."""
    if level.search:
        return {"search": level.search}
    return {"temperature": level.temperature, **({"random_share": level.random_share} if level.random_share else {})}


def shipped_settings(ruleset_id: str) -> dict[str, dict[str, float]]:
    """Every level of the ruleset as the levels file sets it now, as a card records it."""
    levels = levels_of(ruleset_id)
    return {name: level_settings(getattr(levels, name)) for name in LEVELS}


def _flow(entry: dict[str, object]) -> str:
    """One level as the file writes it: ``{base: zoo, temperature: 1.2}`` (a random share only where set)."""
    return "{" + ", ".join(f"{key}: {value}" for key, value in entry.items()
                           if key == "base" or key == "temperature" or value) + "}"


#: Each level against the one below it: the steps the ladder promises and the levels are calibrated on.
STEPS = tuple(f"{upper}:{lower}" for lower, upper in pairwise(LEVELS))[::-1]


def ladder_command(ruleset_id: str, scenario: str, seeds: int) -> str:
    return (f"python evaluate.py --ruleset {ruleset_id} --scenario {scenario} --captains {' '.join(LEVELS)} "
            f"--pairings {' '.join(STEPS)} --games {seeds} --seed {LADDER_SEED}")


def everywhere_command(ruleset_id: str, seeds: int, other_seeds: int) -> str:
    """The command that measures (and writes) the ladder in every scenario."""
    other = f" --other-games {other_seeds}" if other_seeds != seeds else ""
    return f"naval-tactics zoo ladder --ruleset {ruleset_id} --games {seeds}{other}"


def measure_ladder(ruleset_id: str, scenario: str, seeds: int = 400, workers: int = 2) -> Evaluation:
    """The four levels as shipped, each against the level below it, over ``seeds`` paired seeds."""
    return play_steps(ruleset_id, scenario, STEPS, seeds, LADDER_SEED, workers)


def measure_elsewhere(ruleset_id: str, scenarios: Sequence[str], seeds: int, workers: int = 2,
                      specs: dict[str, str] | None = None) -> list[ScenarioLadder]:
    """The ladder in each of ``scenarios`` over ``seeds`` paired seeds (``specs``: see :func:`play_steps`)."""
    return [scenario_ladder(play_steps(ruleset_id, name, STEPS, seeds, LADDER_SEED, workers, specs))
            for name in scenarios]


def record_ladder(ruleset_id: str, scenario: str, seeds: int, evaluation: Evaluation,
                  directory: Path = CAPTAINS_DIR, elsewhere: Sequence[ScenarioLadder] = (),
                  anchors: Sequence[dict[str, object]] = ()) -> Path:
    """Write the measured ladder into the card: the default scenario's evaluation and, where measured, the
    ladder in every other scenario. The card's note on how the levels were found is kept while the levels are
    the ones it describes, and dropped when they changed (a calibration wrote new ones)."""
    facts = read_facts(ruleset_id, directory)
    settings = shipped_settings(ruleset_id)
    previous = facts.get("ladder", {})
    facts["ladder"] = {
        "scenario": scenario, "seeds": seeds, "seed": LADDER_SEED,
        "command": ladder_command(ruleset_id, scenario, seeds),
        "levels": settings,
        "pairings": [s.to_dict() for s in evaluation.summaries],
        "ratings": [r.to_dict() for r in evaluation.ratings],
    }
    if elsewhere:
        other_seeds = elsewhere[0].seeds
        facts["ladder"]["everywhere_command"] = everywhere_command(ruleset_id, seeds, other_seeds)
        facts["ladder"]["scenarios"] = [ladder.to_dict() for ladder in (scenario_ladder(evaluation), *elsewhere)]
    if anchors:
        facts["ladder"]["anchor_tables"] = list(anchors)
    if previous.get("note") and previous.get("levels") == settings:
        facts["ladder"]["note"] = previous["note"]
    return write_card(ruleset_id, facts, directory)


def record_anchor_tables(ruleset_id: str, tables: Sequence[dict[str, object]],
                         directory: Path = CAPTAINS_DIR) -> Path:
    """Write the levels as they are now and each scenario's anchor and stall table onto the card, without new
    steps (``zoo ladder --no-steps``). Where the levels changed since the steps were measured, the card says so:
    its steps and ratings were played by the levels it names as before."""
    facts = read_facts(ruleset_id, directory)
    settings = shipped_settings(ruleset_id)
    ladder = facts.setdefault("ladder", {})
    measured_with = ladder.get("levels")
    if measured_with is not None and measured_with != settings:
        ladder["stale"] = (
            "the steps and ratings below were measured with the levels before their last calibration ("
            + ", ".join(f"{name} {_flow(entry)}" for name, entry in measured_with.items())
            + f"); `naval-tactics zoo ladder --ruleset {ruleset_id}` measures them for the levels above")
        ladder.pop("note", None)
        ladder["levels"] = settings
    ladder["anchor_tables"] = list(tables)
    return write_card(ruleset_id, facts, directory)
