"""A search captain written once against the engine contract: open-loop MCTS over the engine's clones.

``SearchCaptain`` (``agents/captains/search/captain.py``) is what ``make_captain("search")`` and
``make_captain("search:N")`` build; ``docs/search.md`` describes the design and its numbers.
"""

from naval_agents.captains.search.captain import SearchCaptain, default_rollout
from naval_agents.captains.search.names import (
    NAME_FORMS,
    SearchBudget,
    SearchNameError,
    is_search_name,
    parse_search_name,
)
from naval_agents.captains.search.tree import SearchResult, TreeSettings

__all__ = [
    "NAME_FORMS",
    "SearchBudget",
    "SearchCaptain",
    "SearchNameError",
    "SearchResult",
    "TreeSettings",
    "default_rollout",
    "is_search_name",
    "make_search_captain",
    "parse_search_name",
]


def make_search_captain(name: str, seed: int | None = 0) -> SearchCaptain:
    """The search captain a name gives (``search``, ``search:N``, ``search:Nms``); :class:`SearchNameError`
    names the allowed forms."""
    budget = parse_search_name(name)
    return SearchCaptain(budget.simulations, budget.time_budget_ms, seed=seed, name=name)
