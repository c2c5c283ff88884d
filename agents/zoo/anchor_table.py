"""The levels against their anchors, and their stalls, in one scenario: what ``zoo ladder`` writes on a card.

Each of ``hard``, ``normal`` and ``easy`` plays its reference captain (:mod:`naval_agents.zoo.anchors`: the
strongest scripted captain, the weakest, ``random``) over paired seeds, with its interval and whether it lands in
its band; then ``zoo`` and each level play the strongest scripted captain for the stall counts
(:mod:`naval_agents.zoo.stalls`), each level held to the zoo captain's own shares on the same seeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from naval_agents.captains.search.captain import default_rollout
from naval_agents.zoo.anchors import anchors
from naval_agents.zoo.monotone import play_steps
from naval_agents.zoo.stalls import count_stalls, stalled

#: The first seed of the anchor and stall games: apart from the ladder's steps (5000..) and the calibration's
#: probes (7000..), so a level is judged on seeds its temperature was not chosen on.
ANCHOR_SEED = 11000
#: The captains whose stalls are counted: the zoo captain (the yardstick) and the levels built on it.
STALL_CAPTAINS = ("zoo", "hard", "normal", "easy")


@dataclass(frozen=True)
class AnchorRow:
    level: str
    reference: str
    score: float
    ci_low: float
    ci_high: float
    band: tuple[float, float]

    @property
    def lands(self) -> bool:
        return self.band[0] <= self.score <= self.band[1]

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "reference": self.reference, "score": round(self.score, 4),
                "ci": [round(self.ci_low, 4), round(self.ci_high, 4)], "band": list(self.band), "lands": self.lands}


def measure_anchor_table(ruleset_id: str, scenario: str, seeds: int, weakest: str, workers: int = 1,
                         seed: int = ANCHOR_SEED) -> dict[str, Any]:
    """The scenario's anchor rows and stall counts over ``seeds`` paired seeds from ``seed`` (JSON-ready)."""
    strongest = default_rollout(ruleset_id)
    wanted = anchors(strongest, weakest)
    steps = [f"{anchor.level}:{anchor.reference}" for anchor in wanted]
    evaluation = play_steps(ruleset_id, scenario, steps, seeds, seed, workers)
    by_pair = {(s.a, s.b): s for s in evaluation.summaries}
    rows = []
    for anchor in wanted:
        played = by_pair[anchor.level, anchor.reference]
        rows.append(AnchorRow(anchor.level, anchor.reference, played.win_rate, played.ci_low, played.ci_high,
                              anchor.band))
    counts = [count_stalls(ruleset_id, scenario, name, seeds, seed) for name in STALL_CAPTAINS]
    zoo = counts[0]
    return {
        "scenario": scenario, "seeds": seeds, "seed": seed, "strongest": strongest, "weakest": weakest,
        "anchors": [row.to_dict() for row in rows],
        "stalls": [{**count.to_dict(), "stalled": stalled(count, zoo) if count is not zoo else []}
                   for count in counts],
    }
