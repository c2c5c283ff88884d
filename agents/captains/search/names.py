"""Search captain names: ``search`` (the default budget), ``search:N`` (N simulations), ``search:Nms``."""

from __future__ import annotations

import re
from dataclasses import dataclass

SEARCH = "search"
#: The forms a search captain's name takes, for help texts and error messages.
NAME_FORMS = ("search", "search:N", "search:Nms")
#: Simulations a decision of plain ``search`` gets: about 0.2 s a decision on pantheon's duel (docs/search.md).
DEFAULT_SIMULATIONS = 64
MAX_SIMULATIONS = 1_000_000
MAX_TIME_BUDGET_MS = 600_000

_FORM = re.compile(r"^search:(?P<count>[0-9]+)(?P<ms>ms)?$")


class SearchNameError(ValueError):
    """A captain name that starts like a search captain's but is not one of :data:`NAME_FORMS`."""


@dataclass(frozen=True)
class SearchBudget:
    """Simulations per decision, or milliseconds per decision (then not reproducible run to run)."""

    simulations: int | None = DEFAULT_SIMULATIONS
    time_budget_ms: float | None = None


def is_search_name(name: str) -> bool:
    """Whether ``name`` is meant as a search captain (``search`` or ``search:...``), valid or not."""
    return name == SEARCH or name.startswith(SEARCH + ":")


def parse_search_name(name: str) -> SearchBudget:
    """The budget a search captain's name gives; :class:`SearchNameError` names the allowed forms."""
    if name == SEARCH:
        return SearchBudget()
    found = _FORM.match(name)
    if found is not None:
        count = int(found["count"])
        if found["ms"]:
            if 1 <= count <= MAX_TIME_BUDGET_MS:
                return SearchBudget(simulations=None, time_budget_ms=float(count))
        elif 1 <= count <= MAX_SIMULATIONS:
            return SearchBudget(simulations=count)
    raise SearchNameError(
        f"bad search captain {name!r}: use 'search' ({DEFAULT_SIMULATIONS} simulations a decision), "
        f"'search:N' (N simulations, 1 to {MAX_SIMULATIONS}, e.g. search:64) or 'search:Nms' "
        f"(N milliseconds a decision, 1 to {MAX_TIME_BUDGET_MS}, e.g. search:500ms)"
    )
