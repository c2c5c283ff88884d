"""Calibrate and measure the difficulty ladder: each level should beat the one below it about 70% of the time.

Calibration walks down from ``expert``: for each lower level it bisects the share of random moves
until the level above beats it within ``target +- tolerance`` over ``probe_seeds`` paired seeds
(a win rate that rises with the share, as more random moves only weaken a captain). The ladder is
then measured level against the level below it over more seeds, with OpenSkill ratings.
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
from agents.zoo.levels import LEVELS, LEVELS_FILE, Level, RulesetLevels, levels_of

TARGET = 0.70
TOLERANCE = 0.05
LADDER_SEED = 5000
PROBE_SEED = 7000


@dataclass(frozen=True)
class Probe:
    level: str
    share: float
    win_rate: float  # of the level above against this candidate


def mixed_spec(base: str, share: float) -> str:
    return f"mixed:{base}:{share:.4f}"


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
    """Shares of random moves for ``hard``, ``normal`` and ``easy`` below an ``expert`` that plays ``base`` as is."""
    shares = {"expert": 0.0}
    probes: list[Probe] = []
    upper_share = 0.0
    # Where the whole range (expert against pure random play) is too narrow for three steps of the target,
    # aim for three equal steps instead: on a logistic scale the steps add up to the range.
    full_range = probe(ruleset_id, scenario, mixed_spec(base, 0.0), mixed_spec(base, 1.0), probe_seeds, workers)
    target = step_target(full_range, target=target)
    print(f"  expert vs random play: {full_range:.3f}; aiming for steps of {target:.3f}", file=sys.stderr)
    for level in ("hard", "normal", "easy"):
        upper = mixed_spec(base, upper_share)
        low, high = upper_share, 1.0
        chosen, chosen_gap = 1.0, float("inf")
        for _ in range(iterations):
            share = (low + high) / 2
            rate = probe(ruleset_id, scenario, upper, mixed_spec(base, share), probe_seeds, workers)
            probes.append(Probe(level, share, rate))
            print(f"  {level}: share {share:.3f} -> the level above wins {rate:.3f}", file=sys.stderr)
            if abs(rate - target) < chosen_gap:
                chosen, chosen_gap = share, abs(rate - target)
            if rate < target - TOLERANCE:
                low = share
            elif rate > target + TOLERANCE:
                high = share
            else:
                break
        shares[level] = round(chosen, 4)
        upper_share = shares[level]
    levels = RulesetLevels(**{name: Level(base=base, random_share=shares[name]) for name in LEVELS})
    return levels, probes


def write_levels(ruleset_id: str, levels: RulesetLevels, path: Path = LEVELS_FILE) -> None:
    """Replace one ruleset's entry in the levels file, keeping its header comment and the other rulesets."""
    text = path.read_text(encoding="utf-8")
    header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
    data = yaml.safe_load(text) or {}
    data[ruleset_id] = {name: getattr(levels, name).model_dump() for name in LEVELS}
    body = "".join(
        f"{rid}:\n" + "".join(f"  {name}: {{base: {entry['base']}, random_share: {entry['random_share']}}}\n"
                              for name, entry in data[rid].items())
        for rid in data)
    path.write_text(header + body, encoding="utf-8")
    from agents.zoo import levels as levels_module

    levels_module._all_levels.cache_clear()


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
    shares = {name: getattr(levels, name).random_share for name in LEVELS}
    previous = facts.get("ladder", {})
    facts["ladder"] = {
        "scenario": scenario, "seeds": seeds, "seed": LADDER_SEED,
        "command": ladder_command(ruleset_id, scenario, seeds),
        "shares": shares,
        "pairings": [s.to_dict() for s in evaluation.summaries],
        "ratings": [r.to_dict() for r in evaluation.ratings],
    }
    if previous.get("note") and previous.get("shares") == shares:
        facts["ladder"]["note"] = previous["note"]
    return write_card(ruleset_id, facts, directory)
