"""The atlas's games: one round robin per scenario, plus each captain against itself where the fleets mirror,
and elsewhere the seat-paired reference (the strongest scripted captain) against itself.

Everything goes through the tournament machinery (``agents/evaluation/tournament.py``): paired seeds,
each played from both sides, results sorted so that they do not depend on workers or backend.
:func:`run_games` is the one place that chooses the backend.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from itertools import combinations

from naval_agents.atlas.plan import AtlasSettings, ScenarioPlan
from naval_agents.evaluation import tournament as tournaments
from naval_agents.evaluation.seat_paired import reference_name
from naval_agents.evaluation.stats import GameResult
from naval_agents.evaluation.tournament import Tournament, build_tournament


@dataclass(frozen=True)
class ScenarioGames:
    """A scenario's played games: the round robin, and the mirror matches (empty where the fleets differ)."""

    plan: ScenarioPlan
    tournament: Tournament
    results: tuple[GameResult, ...]   # every pairing of two different captains, both sides of every seed
    mirror: tuple[GameResult, ...]    # captain against itself, one game per seed (swapped would replay it)
    #: Where the fleets differ: the reference against itself, both sides of every seed, for the seat-paired
    #: difference against it of each captain's games against it (in a mirror scenario ``mirror`` has them).
    reference_games: tuple[GameResult, ...] = ()

    @property
    def reference(self) -> str | None:
        """The captain every cell's seat-paired difference is taken against (None: it does not play here)."""
        name = reference_name(self.plan.ruleset)
        return name if name in self.plan.names else None


def scenario_tournament(plan: ScenarioPlan, settings: AtlasSettings) -> Tournament:
    """Round robin of the plan's captains, then (mirror scenarios) each captain against itself, else the
    seat-paired reference against itself."""
    names = plan.names
    pairs = [f"{a}:{b}" for a, b in combinations(names, 2)]
    reference = reference_name(plan.ruleset)
    if plan.mirror:
        pairs += [f"{name}:{name}" for name in names]
    elif reference in names:
        pairs.append(f"{reference}:{reference}")
    return build_tournament(plan.ruleset, list(names), settings.games, scenario=plan.scenario, pairings=pairs,
                            seed=settings.seed, check_captains=False)


def run_games(tournament: Tournament, settings: AtlasSettings, progress: bool) -> list[GameResult]:
    """Play a tournament on the settings' backend: the one call site that switches between local and Ray."""
    return tournaments.run_tournament(tournament, workers=settings.workers, progress=progress,
                                      backend=settings.backend, address=settings.address)


def backend_session(settings: AtlasSettings) -> AbstractContextManager[object]:
    """One Ray session for the whole atlas (every tournament joins it), or nothing for the local backend."""
    if settings.backend != "ray":
        return nullcontext()
    from naval_agents.distributed.ray_runtime import ray_session

    return ray_session(settings.address)


def play_scenario(plan: ScenarioPlan, settings: AtlasSettings, *, progress: bool = False,
                  runner: Callable[[Tournament, AtlasSettings, bool], list[GameResult]] = run_games) -> ScenarioGames:
    tournament = scenario_tournament(plan, settings)
    results = runner(tournament, settings, progress)
    pairs = [r for r in results if r.a != r.b]
    if plan.mirror:
        mirror, reference = [r for r in results if r.a == r.b and not r.swap], []
    else:
        mirror, reference = [], [r for r in results if r.a == r.b]
    return ScenarioGames(plan, tournament, tuple(pairs), tuple(mirror), tuple(reference))


def play_atlas(plans: list[ScenarioPlan], settings: AtlasSettings, *, progress: bool = False,
               on_scenario: Callable[[ScenarioGames], None] | None = None) -> list[ScenarioGames]:
    """Every scenario's games, in plan order, inside one backend session; ``on_scenario`` hears of each."""
    played = []
    with backend_session(settings):
        for plan in plans:
            played.append(play_scenario(plan, settings, progress=progress))
            if on_scenario is not None:
                on_scenario(played[-1])
    return played
