"""OpenSkill ratings fitted from two-captain game results.

Each game is one :meth:`rate` call of a two-team match, in the order given (the
tournament passes games round by round: seed, then swap, then pairing, so no
pairing is rated wholly before another). A draw is a tie (equal ranks). Games of a
captain against itself (mirror pairings) carry no information and are skipped.
The ordinal is openskill's conservative estimate ``mu - 3 * sigma``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from openskill.models import PlackettLuce

Outcome = tuple[str, str, str | None]   # (captain_a, captain_b, winner or None for a draw)


@dataclass(frozen=True)
class Rating:
    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def fit_ratings(outcomes: Sequence[Outcome], captains: Iterable[str] = (), model: Any = None) -> list[Rating]:
    """Ratings of every captain named in ``outcomes`` (and ``captains``), best ordinal first.

    ``model`` is any openskill model; default ``PlackettLuce()`` with its default prior.
    Ties in the ordering are broken by name, so the output is fully deterministic.
    """
    model = model if model is not None else PlackettLuce()
    names = list(dict.fromkeys([*captains, *(name for a, b, _ in outcomes for name in (a, b))]))
    ratings = {name: model.rating(name=name) for name in names}
    played = dict.fromkeys(names, 0)
    for a, b, winner in outcomes:
        if winner not in (None, a, b):
            raise ValueError(f"winner {winner!r} of a game between {a!r} and {b!r} is neither of them")
        if a == b:
            continue
        ranks = [0, 0] if winner is None else ([0, 1] if winner == a else [1, 0])
        [[ratings[a]], [ratings[b]]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
        played[a] += 1
        played[b] += 1
    table = [Rating(name, r.mu, r.sigma, r.ordinal(), played[name]) for name, r in ratings.items()]
    return sorted(table, key=lambda r: (-r.ordinal, r.name))
