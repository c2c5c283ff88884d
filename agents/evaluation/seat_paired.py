"""Seat-paired strength: a captain's score against an opponent minus a reference captain's score against the
same opponent, game for game on the same seeds and seats.

A win rate alone cannot tell strength from the seat: in a lopsided scenario two equal captains score 0.50
against each other and every captain looks "par". The reference here is the strongest scripted captain
(its ruleset's ``strongest_scripted`` hook, naval_env/core/hooks.py) unless a command is told another. For captain ``A``
against opponent ``B``, each of ``A``'s games (seed ``k``, ``A`` on side ``s``) is paired with the reference's
game against ``B`` on seed ``k`` with the reference on side ``s``; the difference of the two scores (draws
half) is averaged with a normal interval (:func:`naval_agents.evaluation.stats.paired_difference`). The seed fixes
the start and the dice, so pairing takes out what they give both games; above 0, ``A`` does better against
``B`` than the reference does from the same seats.

The reference's games against ``B`` may come from any pairing of the results, in either order (``S:B`` or
``B:S``) and, where ``B`` is the reference itself, from its mirror games ``S:S`` (one mirror game gives the
reference's score from both seats: the first side's score and one minus it). A row whose reference games are
not all there gets no difference, and says which are missing, rather than a difference over fewer games.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from naval_agents.evaluation.stats import GameResult, PairedDifference, paired_difference

#: (captain, opponent, seed, the captain's side) -> the captain's scores in those games (a mirror game
#: played twice, sides swapped, is the same game and gives the same score twice).
ScoreIndex = dict[tuple[str, str, int, str], list[float]]


def reference_name(ruleset: str) -> str:
    """The default reference: the ruleset's strongest scripted captain (``agents/captains/search/captain.py``)."""
    # the run-time layer's table, imported when asked (importing search loads its engines)
    from naval_agents.captains.search.captain import default_rollout

    return default_rollout(ruleset)


def score_index(results: Iterable[GameResult]) -> ScoreIndex:
    """Every captain's score in every game, seen from each of the two captains."""
    index: ScoreIndex = {}
    for r in results:
        index.setdefault((r.a, r.b, r.seed, r.a_side), []).append(r.a_score)
        index.setdefault((r.b, r.a, r.seed, r.b_side), []).append(1.0 - r.a_score)
    return index


@dataclass(frozen=True)
class SeatPaired:
    """``captain``'s score against ``opponent`` minus ``reference``'s, paired by seed and seat.

    ``difference`` is None when the reference's games are not all in the results (``missing`` says how
    many of the captain's games lack their pair) or when the captain is the reference (its difference is 0
    by construction; ``missing`` is 0 then).
    """

    captain: str
    opponent: str
    reference: str
    difference: PairedDifference | None
    missing: int = 0

    @property
    def is_reference(self) -> bool:
        return self.captain == self.reference

    def text(self) -> str:
        """``+0.12 [+0.03, +0.21]``, or why there is no number."""
        if self.is_reference:
            return "(reference)"
        if self.difference is None:
            return f"no {self.reference} games"
        d = self.difference
        return f"{d.mean:+.2f} [{d.ci_low:+.2f}, {d.ci_high:+.2f}]"

    def to_dict(self) -> dict[str, Any]:
        return {"captain": self.captain, "opponent": self.opponent, "reference": self.reference,
                "difference": None if self.difference is None else self.difference.to_dict(),
                "missing": self.missing}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeatPaired:
        difference = data.get("difference")
        return cls(data["captain"], data["opponent"], data["reference"],
                   None if difference is None else PairedDifference(**difference), int(data.get("missing", 0)))


def seat_paired(captain: str, opponent: str, reference: str, results: Sequence[GameResult],
                index: ScoreIndex | None = None) -> SeatPaired:
    """``captain`` vs ``opponent`` against ``reference`` vs ``opponent``, over ``captain``'s games in
    ``results``; ``index`` (:func:`score_index` of every game the reference may come from) defaults to
    ``results``'."""
    if captain == reference:
        return SeatPaired(captain, opponent, reference, None)
    index = score_index(results) if index is None else index
    differences: list[float] = []
    missing = 0
    for (who, against, seed, side), scores in sorted(index.items()):
        if (who, against) != (captain, opponent):
            continue
        theirs = index.get((reference, opponent, seed, side))
        if theirs is None:
            missing += len(scores)
            continue
        # several games on one key: a pairing listed twice, or a mirror played from both seats (the same game)
        reference_score = sum(theirs) / len(theirs)
        differences += [score - reference_score for score in scores]
    if missing or not differences:
        return SeatPaired(captain, opponent, reference, None, missing)
    return SeatPaired(captain, opponent, reference, paired_difference(differences))


def missing_opponents(pairings: Iterable[tuple[str, str]], reference: str) -> list[str]:
    """The opponents (second captain of each pairing whose first is not the reference) that ``pairings`` never
    pair with the reference, in either order, in order of first appearance. Where the opponent is the reference
    itself, that is the mirror ``reference:reference``."""
    listed = list(pairings)
    have = {tuple(pair) for pair in listed} | {(b, a) for a, b in listed}
    wanted = [b for a, b in listed if a != reference]
    return [b for b in dict.fromkeys(wanted) if (reference, b) not in have]
