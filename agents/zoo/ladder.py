"""Calibrate and measure the difficulty ladder: each level should beat the one below it about 70% of the time.

Calibration walks down from ``expert``: for each lower level it bisects the share of random moves
until the level above beats it within ``target +- tolerance`` over ``probe_seeds`` paired seeds
(a win rate that rises with the share, as more random moves only weaken a captain). Below an
``expert`` that searches (``--expert-search N``), ``hard`` may be the base captain itself, so its
share is tried at 0 first. The ladder is then measured level against the level below it over more
seeds, with OpenSkill ratings.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
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
              workers: int = 2, base: str = "zoo", expert_search: int | None = None,
              target: float = TARGET, path: Path = LEVELS_FILE) -> tuple[RulesetLevels, list[Probe]]:
    """Shares of random moves for ``hard``, ``normal`` and ``easy`` below an ``expert`` that plays ``base`` as
    is or, with ``expert_search``, searches that many simulations a decision guided by ``base``.

    The expert entry is written to ``path`` first: the probes' worker processes build ``expert`` from it.
    """
    expert = Level(base=base, random_share=0.0, search=expert_search)
    write_levels(ruleset_id, levels_of(ruleset_id, path).model_copy(update={"expert": expert}), path)
    shares = {"expert": 0.0}
    probes: list[Probe] = []
    upper_share = 0.0
    # Where the whole range (expert against pure random play) is too narrow for three steps of TARGET,
    # aim for three equal steps instead: on a logistic scale the steps add up to the range.
    full_range = probe(ruleset_id, scenario, "expert", mixed_spec(base, 1.0), probe_seeds, workers)
    target = step_target(full_range, target=target)
    print(f"  expert vs random play: {full_range:.3f}; aiming for steps of {target:.3f}", file=sys.stderr)
    for level in ("hard", "normal", "easy"):
        searched_upper = level == "hard" and expert_search is not None
        upper = "expert" if level == "hard" else mixed_spec(base, upper_share)
        low, high = upper_share, 1.0
        chosen, chosen_gap = 1.0, float("inf")
        for attempt in range(iterations):
            # Below a searching expert the base as is may already be a step down: try share 0 first.
            share = low if searched_upper and attempt == 0 else (low + high) / 2
            rate = probe(ruleset_id, scenario, upper, mixed_spec(base, share), probe_seeds, workers)
            probes.append(Probe(level, share, rate))
            print(f"  {level}: share {share:.3f} -> the level above wins {rate:.3f}", file=sys.stderr)
            if abs(rate - target) < chosen_gap:
                chosen, chosen_gap = share, abs(rate - target)
            if searched_upper and attempt == 0 and rate >= target - TOLERANCE:
                break   # no share below 0: the base as is is the closest step there is
            if rate < target - TOLERANCE:
                low = share
            elif rate > target + TOLERANCE:
                high = share
            else:
                break
        shares[level] = round(chosen, 4)
        upper_share = shares[level]
    levels = RulesetLevels(**{name: Level(base=base, random_share=shares[name]) for name in LEVELS[:-1]},
                           expert=expert)
    return levels, probes


def write_levels(ruleset_id: str, levels: RulesetLevels, path: Path = LEVELS_FILE) -> None:
    """Replace one ruleset's entry in the levels file, keeping its header comment and the other rulesets."""
    text = path.read_text(encoding="utf-8")
    header = "".join(line for line in text.splitlines(keepends=True) if line.startswith("#"))
    data = yaml.safe_load(text) or {}
    data[ruleset_id] = {name: getattr(levels, name).model_dump(exclude_none=True) for name in LEVELS}
    body = "".join(
        f"{rid}:\n" + "".join(f"  {name}: {{{', '.join(f'{key}: {value}' for key, value in entry.items())}}}\n"
                              for name, entry in data[rid].items())
        for rid in data)
    path.write_text(header + body, encoding="utf-8")
    from agents.zoo import levels as levels_module

    levels_module._all_levels.cache_clear()


#: Each level against the one below it: the steps the ladder promises (a searching expert makes a full
#: round robin several times dearer, and the steps are what the levels are calibrated on).
STEPS = tuple(f"{upper}:{lower}" for lower, upper in zip(LEVELS, LEVELS[1:]))[::-1]


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
    levels = levels_of(ruleset_id)
    facts = read_facts(ruleset_id, directory)
    facts["ladder"] = {
        "scenario": scenario, "seeds": seeds, "seed": LADDER_SEED,
        "command": ladder_command(ruleset_id, scenario, seeds),
        "shares": {name: getattr(levels, name).random_share for name in LEVELS},
        "searches": {name: getattr(levels, name).search for name in LEVELS if getattr(levels, name).search},
        "pairings": [s.to_dict() for s in evaluation.summaries],
        "ratings": [r.to_dict() for r in evaluation.ratings],
    }
    return write_card(ruleset_id, facts, directory)
