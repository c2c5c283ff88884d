"""Calibrate and measure the difficulty ladder: each level should beat the one below it 60-80% of the time.

Each level is the zoo captain sampling its moves at a temperature (``agents/zoo/levels.py``). Calibration walks
down from ``expert`` (temperature 0): for each lower level it bisects the temperature (on a log scale) until the level above beats
it within ``target +- tolerance`` over ``probe_seeds`` paired seeds (a win rate that rises with the temperature,
as a flatter policy only weakens a captain). The ladder is then measured level against the level below it over
more seeds, with OpenSkill ratings.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import yaml

from agents.evaluation.tournament import Evaluation, build_tournament, evaluate
from agents.zoo.card import read_facts, write_card
from agents.zoo.catalogue import CAPTAINS_DIR
from agents.zoo.levels import LEVELS, LEVELS_FILE, MAX_TEMPERATURE, Level, RulesetLevels, levels_of

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
    win_rate: float  # of the level above against this candidate


def tempered_spec(base: str, temperature: float) -> str:
    return f"tempered:{base}:{temperature:.4f}"


def probe(ruleset_id: str, scenario: str | None, upper: str, lower: str, seeds: int, workers: int) -> float:
    """Win rate of captain spec ``upper`` against ``lower`` over ``seeds`` paired seeds."""
    tournament = build_tournament(ruleset_id, [f"upper={upper}", f"lower={lower}"], seeds, scenario=scenario,
                                  pairings=["upper:lower"], seed=PROBE_SEED)
    return evaluate(tournament, workers=workers, progress=False).summaries[0].win_rate


def step_target(full_range: float, steps: int = 3, target: float = TARGET) -> float:
    """``target``, or the step that ``steps`` equal logistic steps make when the whole range is narrower."""
    full_range = min(max(full_range, 0.5), 0.999)
    even = 1.0 / (1.0 + math.exp(-math.log(full_range / (1.0 - full_range)) / steps))
    return min(target, even)


def calibrate(ruleset_id: str, scenario: str | None = None, *, probe_seeds: int = 100, iterations: int = 6,
              workers: int = 2, base: str = "zoo", target: float = TARGET) -> tuple[RulesetLevels, list[Probe]]:
    """Temperatures for ``hard``, ``normal`` and ``easy`` below an ``expert`` that plays ``base``'s own moves."""
    temperatures = {"expert": 0.0}
    probes: list[Probe] = []
    upper_temperature = 0.0
    # Where the whole range (expert against the ceiling) is too narrow for three steps of the target,
    # aim for three equal steps instead: on a logistic scale the steps add up to the range.
    full_range = probe(ruleset_id, scenario, tempered_spec(base, 0.0), tempered_spec(base, CEILING), probe_seeds,
                       workers)
    target = step_target(full_range, target=target)
    print(f"  expert vs temperature {CEILING:g}: {full_range:.3f}; aiming for steps of {target:.3f}",
          file=sys.stderr)
    for level in ("hard", "normal", "easy"):
        upper = tempered_spec(base, upper_temperature)
        low, high = upper_temperature, CEILING
        chosen, chosen_gap = CEILING, float("inf")
        for _ in range(iterations):
            temperature = math.expm1((math.log1p(low) + math.log1p(high)) / 2)
            rate = probe(ruleset_id, scenario, upper, tempered_spec(base, temperature), probe_seeds, workers)
            probes.append(Probe(level, temperature, rate))
            print(f"  {level}: temperature {temperature:.3f} -> the level above wins {rate:.3f}", file=sys.stderr)
            if abs(rate - target) < chosen_gap:
                chosen, chosen_gap = temperature, abs(rate - target)
            if rate < target - TOLERANCE:
                low = temperature
            elif rate > target + TOLERANCE:
                high = temperature
            else:
                break
        temperatures[level] = round(chosen, 3)
        upper_temperature = temperatures[level]
    levels = RulesetLevels(**{name: Level(base=base, temperature=temperatures[name]) for name in LEVELS})
    return levels, probes


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
    from agents.zoo import levels as levels_module

    levels_module._all_levels.cache_clear()


def level_settings(level: Level) -> dict[str, float]:
    """How a level plays, as the levels file writes it: its temperature, and its random share where it has one."""
    return {"temperature": level.temperature, **({"random_share": level.random_share} if level.random_share else {})}


def _flow(entry: dict[str, object]) -> str:
    """One level as the file writes it: ``{base: zoo, temperature: 1.2}`` (a random share only where set)."""
    return "{" + ", ".join(f"{key}: {value}" for key, value in entry.items()
                           if key == "base" or key == "temperature" or value) + "}"


#: Each level against the one below it: the steps the ladder promises and the levels are calibrated on.
STEPS = tuple(f"{upper}:{lower}" for lower, upper in pairwise(LEVELS))[::-1]


def ladder_command(ruleset_id: str, scenario: str, seeds: int) -> str:
    return (f"python evaluate.py --ruleset {ruleset_id} --scenario {scenario} --captains {' '.join(LEVELS)} "
            f"--pairings {' '.join(STEPS)} --games {seeds} --seed {LADDER_SEED}")


def measure_ladder(ruleset_id: str, scenario: str, seeds: int = 400, workers: int = 2) -> Evaluation:
    """The four levels as shipped, each against the level below it, over ``seeds`` paired seeds."""
    tournament = build_tournament(ruleset_id, list(LEVELS), seeds, scenario=scenario, pairings=list(STEPS),
                                  seed=LADDER_SEED)
    return evaluate(tournament, workers=workers, progress=sys.stderr.isatty())


def record_ladder(ruleset_id: str, scenario: str, seeds: int, evaluation: Evaluation,
                  directory: Path = CAPTAINS_DIR) -> Path:
    """Write the measured ladder into the card. The card's note on how the shares were found is kept while
    the shares are the ones it describes, and dropped when they changed (a calibration wrote new ones)."""
    levels = levels_of(ruleset_id)
    facts = read_facts(ruleset_id, directory)
    settings = {name: level_settings(getattr(levels, name)) for name in LEVELS}
    previous = facts.get("ladder", {})
    facts["ladder"] = {
        "scenario": scenario, "seeds": seeds, "seed": LADDER_SEED,
        "command": ladder_command(ruleset_id, scenario, seeds),
        "levels": settings,
        "pairings": [s.to_dict() for s in evaluation.summaries],
        "ratings": [r.to_dict() for r in evaluation.ratings],
    }
    if previous.get("note") and previous.get("levels") == settings:
        facts["ladder"]["note"] = previous["note"]
    return write_card(ruleset_id, facts, directory)
