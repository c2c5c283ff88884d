"""Difficulty levels anchored to captains a player knows, the way Stockfish's ``UCI_LimitStrength`` anchors its
levels to reference strengths rather than to each other.

- ``easy``: at least 0.65 against ``random`` (aim 0.70): a first opponent that still plays the game;
- ``normal``: about level with the weakest scripted captain (0.40-0.60, aim 0.50);
- ``hard``: about level with the strongest scripted captain (0.40-0.60, aim 0.50);
- ``expert``: above ``zoo`` (a search; not calibrated here, see docs/search.md).

The old rule, each level beating the one below it 60-80% of the time, forced ``easy`` down to random play where
the range from the zoo captain to random is narrow (flotilla, broadside, crew_phase); an anchor never does.

``easy``, ``normal`` and ``hard`` are the zoo captain sampling at a temperature. A reference's score against it
rises with the temperature (a flatter policy only weakens it), so each temperature is bisected on a log scale
toward its aim, walking down from ``hard``: ``normal`` never plays sharper than ``hard`` nor ``easy`` than
``normal``, so the order holds by construction. Where the zoo captain's own moves (temperature 0) already score
below a reference's band, the level plays them and the calibration names it as out of reach.

The weakest scripted captain is measured, not declared: every scripted captain but ``random`` against the
strongest (the search's rollout captain, ``agents/captains/search/captain.py``) over the probe seeds, the lowest score.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass

from naval_agents.captains.scripted import scripted_names
from naval_agents.captains.search.captain import default_rollout
from naval_agents.captains.zoo.levels import Level, RulesetLevels, levels_of
from naval_agents.zoo.ladder import CEILING, _log_midpoint, probe, tempered_spec

#: A probe: (ruleset, scenario, upper captain spec, lower captain spec, seeds, workers) -> upper's score.
Prober = Callable[[str, "str | None", str, str, int, int], float]


@dataclass(frozen=True)
class Anchor:
    """A level's reference captain and the level's score aimed for against it, with the band it must land in."""

    level: str
    reference: str
    aim: float
    band: tuple[float, float]

    def describe(self) -> str:
        return f"{self.level} vs {self.reference}: aim {self.aim:.2f}, band {self.band[0]:.2f}-{self.band[1]:.2f}"


#: The levels in the order calibration walks them (sharpest first) and what each is anchored to.
EASY_AIM, EASY_BAND = 0.70, (0.65, 1.0)
LEVEL_AIM, LEVEL_BAND = 0.50, (0.40, 0.60)
ANCHORED = ("hard", "normal", "easy")


def anchors(strongest: str, weakest: str) -> tuple[Anchor, ...]:
    return (Anchor("hard", strongest, LEVEL_AIM, LEVEL_BAND), Anchor("normal", weakest, LEVEL_AIM, LEVEL_BAND),
            Anchor("easy", "random", EASY_AIM, EASY_BAND))


@dataclass(frozen=True)
class AnchorProbe:
    level: str
    temperature: float
    score: float   # the level's score against its reference


@dataclass(frozen=True)
class AnchoredCalibration:
    levels: RulesetLevels
    anchors: tuple[Anchor, ...]
    probes: tuple[AnchorProbe, ...]
    scores: dict[str, float]          # each level's probe score at its chosen temperature
    out_of_reach: tuple[str, ...]     # levels whose band even the zoo captain's own moves miss from above


def weakest_scripted(ruleset_id: str, scenario: str | None, strongest: str, seeds: int, workers: int,
                     prober: Prober = probe) -> str:
    """The scripted captain (not ``random``, not ``strongest``) scoring lowest against ``strongest``."""
    candidates = [name for name in scripted_names(ruleset_id) if name not in ("random", strongest)]
    if not candidates:
        return strongest
    scores = {name: prober(ruleset_id, scenario, name, strongest, seeds, workers) for name in candidates}
    for name, score in scores.items():
        print(f"  {name} vs {strongest}: {score:.3f}", file=sys.stderr)
    return min(candidates, key=lambda name: scores[name])


def calibrate_anchored(ruleset_id: str, scenario: str | None = None, *, probe_seeds: int = 100, iterations: int = 7,
                       workers: int = 2, base: str = "zoo", weakest: str | None = None,
                       prober: Prober = probe, current: RulesetLevels | None = None) -> AnchoredCalibration:
    """Temperatures of ``hard``, ``normal`` and ``easy`` that put each at its anchor's aim (see the module doc).

    ``weakest``: the weakest scripted captain, else measured by :func:`weakest_scripted`. ``prober`` plays the
    games (the tournament's, by default; tests give a model of it). ``expert`` keeps its ``current`` setting."""
    current = current or levels_of(ruleset_id)
    strongest = default_rollout(ruleset_id)
    weakest = weakest or weakest_scripted(ruleset_id, scenario, strongest, probe_seeds, workers, prober)
    chosen: dict[str, float] = {}
    scores: dict[str, float] = {}
    probes: list[AnchorProbe] = []
    out_of_reach: list[str] = []
    floor = 0.0
    for anchor in anchors(strongest, weakest):

        def score_at(temperature: float, anchor: Anchor = anchor) -> float:
            score = prober(ruleset_id, scenario, tempered_spec(base, temperature), anchor.reference, probe_seeds,
                           workers)
            probes.append(AnchorProbe(anchor.level, temperature, score))
            print(f"  {anchor.level}: temperature {temperature:.3f} scores {score:.3f} against {anchor.reference}",
                  file=sys.stderr)
            return score

        temperature, score = _bisect_down(score_at, floor, anchor, iterations)
        if score < anchor.band[0] and temperature == floor:
            out_of_reach.append(anchor.level)
        chosen[anchor.level], scores[anchor.level] = temperature, score
        floor = temperature
    levels = RulesetLevels(expert=current.expert, **{level: Level(base=base, temperature=chosen[level])
                                                     for level in ANCHORED})
    return AnchoredCalibration(levels, anchors(strongest, weakest), tuple(probes), scores, tuple(out_of_reach))


def _bisect_down(score_at: Callable[[float], float], floor: float, anchor: Anchor,
                 iterations: int) -> tuple[float, float]:
    """The temperature at or above ``floor`` whose score is nearest the aim (the score falls as it rises), and
    its score. Starts at ``floor``: if that already scores below the band, nothing hotter can reach it."""
    at_floor = score_at(floor)
    if at_floor <= anchor.aim:
        return round(floor, 3), at_floor
    best, best_gap, best_score = floor, abs(at_floor - anchor.aim), at_floor
    low, high = floor, CEILING
    for _ in range(iterations):
        temperature = _log_midpoint(low, high)
        score = score_at(temperature)
        if abs(score - anchor.aim) < best_gap:
            best, best_gap, best_score = temperature, abs(score - anchor.aim), score
        if score > anchor.aim:
            low = temperature
        else:
            high = temperature
    return round(best, 3), best_score


def describe(calibration: AnchoredCalibration) -> list[str]:
    """Lines for a terminal: each level's temperature, its score against its reference and whether it lands."""
    lines = []
    for anchor in calibration.anchors:
        level = getattr(calibration.levels, anchor.level)
        score = calibration.scores[anchor.level]
        lands = anchor.band[0] <= score <= anchor.band[1]
        sharpest = ("the zoo captain's own moves" if level.temperature == 0 else
                    f"temperature {level.temperature:g}, the level above's and the sharpest it may play")
        note = "" if lands else (f" (out of reach: even {sharpest} score below the band)"
                                 if anchor.level in calibration.out_of_reach else " (outside the band)")
        lines.append(f"{anchor.level}: temperature {level.temperature:g}, {score:.3f} against {anchor.reference} "
                     f"[{anchor.describe()}]{note}")
    return lines
