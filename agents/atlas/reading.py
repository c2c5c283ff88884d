"""The atlas's plain-language reading: claims generated from the numbers, each printed beside what it rests on.

A claim is made only where the numbers support it: "beats" and "loses to" need the 95% interval of every
head-to-head it names to leave 0.5 out on that side; a side advantage needs its interval to leave 0.5 out
(otherwise the reading says there is none to see); a cycle needs all three of its results significant.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import permutations

from naval_agents.atlas.measure import Rate, ScenarioNumbers


class ClaimKind(str, Enum):
    BEATS_ALL = "beats_all"              # X's interval against every other captain is above 0.5
    UNBEATEN = "unbeaten"                # no captain's interval against X is above 0.5 (X top-rated)
    LOSES_ALL = "loses_all"              # X's interval against every other captain is below 0.5
    SIDE = "side"                        # the first side's share leaves 0.5 out
    NO_SIDE = "no_side"                  # ... includes 0.5
    MIRROR_SIDE = "mirror_side"          # the same, in the mirror matches
    MIRROR_NO_SIDE = "mirror_no_side"
    CYCLE = "cycle"                      # A beats B, B beats C, C beats A, each significantly


@dataclass(frozen=True)
class Claim:
    kind: ClaimKind
    ruleset: str
    scenario: str
    text: str
    #: The numbers the claim rests on, each as (row captain or side, column captain or "", its rate).
    evidence: tuple[tuple[str, str, Rate], ...]


def _others(numbers: ScenarioNumbers, captain: str) -> list[str]:
    return [c for c in numbers.captains if c != captain and (captain, c) in numbers.matrix.cells]


def captain_claims(numbers: ScenarioNumbers) -> list[Claim]:
    """Who beats everyone, who is unbeaten, who loses to everyone, in the ratings' order."""
    claims = []
    where = (numbers.ruleset, numbers.scenario)
    for captain in numbers.captains:
        others = _others(numbers, captain)
        if not others:
            continue
        rates = [(captain, other, numbers.cell(captain, other)) for other in others]
        if all(rate.above_half for _, _, rate in rates):
            closest = min(rates, key=lambda e: e[2].low)
            claims.append(Claim(ClaimKind.BEATS_ALL, *where,
                                f"**{captain}** beats every other captain; its closest result is "
                                f"{closest[2].text()} against {closest[1]}", tuple(rates)))
        elif all(rate.below_half for _, _, rate in rates):
            best = max(rates, key=lambda e: e[2].high)
            claims.append(Claim(ClaimKind.LOSES_ALL, *where,
                                f"**{captain}** loses to every other captain; its best result is "
                                f"{best[2].text()} against {best[1]}", tuple(rates)))
    top = numbers.captains[0]
    if not any(c.kind is ClaimKind.BEATS_ALL for c in claims) and _others(numbers, top):
        against = [(other, top, numbers.cell(other, top)) for other in _others(numbers, top)]
        if not any(rate.above_half for _, _, rate in against):
            strongest = max(against, key=lambda e: e[2].rate)
            claims.insert(0, Claim(ClaimKind.UNBEATEN, *where,
                                   f"no captain is significantly better than **{top}** (rated first); its "
                                   f"strongest opponent, {strongest[0]}, scores {strongest[2].text()} against it",
                                   tuple(against)))
    return claims


def cycles(numbers: ScenarioNumbers) -> list[Claim]:
    """Every non-transitive triple (A beats B, B beats C, C beats A, each significant), listed once."""
    claims = []
    seen: set[frozenset[str]] = set()
    for a, b, c in permutations(numbers.captains, 3):
        trio = ((a, b), (b, c), (c, a))
        if frozenset((a, b, c)) in seen or not all(pair in numbers.matrix.cells for pair in trio):
            continue
        rates = [(x, y, numbers.cell(x, y)) for x, y in trio]
        if all(rate.above_half for _, _, rate in rates):
            seen.add(frozenset((a, b, c)))
            steps = "; ".join(f"{x} beats {y} {rate.text()}" for x, y, rate in rates)
            claims.append(Claim(ClaimKind.CYCLE, numbers.ruleset, numbers.scenario,
                                f"a non-transitive cycle: {steps}", tuple(rates)))
    return claims


def _side_claim(numbers: ScenarioNumbers, rate: Rate, mirror: bool) -> Claim:
    first, second = numbers.sides
    where = "in the mirror matches (each captain against itself), " if mirror else ""
    games = f"{rate.games} {'mirror ' if mirror else ''}games"
    if rate.significant:
        winner = first if rate.above_half else second
        shown = rate if rate.above_half else Rate.of(rate.games - rate.points, rate.games)
        text = (f"{where}side {winner} ({'first' if winner == first else 'second'}) wins {shown.text()} of "
                f"{games}: a significant side advantage")
        kind = ClaimKind.MIRROR_SIDE if mirror else ClaimKind.SIDE
    else:
        text = (f"{where}no significant side advantage: side {first} (first) wins {rate.text()} of {games}, "
                "an interval that includes 0.5")
        kind = ClaimKind.MIRROR_NO_SIDE if mirror else ClaimKind.NO_SIDE
    return Claim(kind, numbers.ruleset, numbers.scenario, text, ((first, "", rate),))


def side_claims(numbers: ScenarioNumbers) -> list[Claim]:
    claims = [_side_claim(numbers, numbers.first_side, mirror=False)]
    if numbers.mirror_first_side is not None:
        claims.append(_side_claim(numbers, numbers.mirror_first_side, mirror=True))
    return claims


def scenario_claims(numbers: ScenarioNumbers) -> list[Claim]:
    return [*captain_claims(numbers), *cycles(numbers), *side_claims(numbers)]


def ruleset_summary(ruleset: str, scenarios: Sequence[ScenarioNumbers], claims: Sequence[Claim]) -> str:
    """One sentence per ruleset: in how many of its scenarios each captain beats every other one."""
    wins: dict[str, list[str]] = {}
    for claim in claims:
        if claim.ruleset == ruleset and claim.kind is ClaimKind.BEATS_ALL:
            wins.setdefault(claim.evidence[0][0], []).append(claim.scenario)
    total = len(scenarios)
    if not wins:
        return f"Under **{ruleset}** no captain beats every other one in any of its {total} scenarios."
    parts = [f"**{captain}** in {len(found)} of {total} ({', '.join(found)})"
             for captain, found in sorted(wins.items(), key=lambda kv: (-len(kv[1]), kv[0]))]
    return f"Under **{ruleset}** a captain beats every other one in: {'; '.join(parts)}."
