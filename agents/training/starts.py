"""Training over many starts: several scenarios, mid-game positions, and prioritized (scenario, opponent) draws.

The game-by-game draws live in :mod:`naval_agents.training.start_draws`. A run config's ``scenario`` may name one scenario, a list (drawn uniformly), a mapping of
scenario to weight, or ``all``; ``starts.midgame.share`` of games begin from mid-game positions
drawn from seeded games between scripted captains (:mod:`naval_agents.evaluation.midgame`), so a
captain learns the states an app sends. Each game's (scenario, opponent) cell is drawn by
the env's seeded generator; with ``starts.prioritized`` on, cells where the learner scored
worst over its recent games are drawn more often (PFSP's ``(1 - p) ** power``, as in
AlphaStar's league), mixed with the configured weights so no cell is starved.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from naval_env.core.config import StrictModel
from naval_env.core.errors import ConfigError
from naval_env.core.ruleset import get_ruleset

#: ``scenario:`` in a run config: one name, a list, a mapping name -> weight, ``all``, or unset (the default).
ScenarioChoice = str | list[str] | dict[str, float] | None
ALL = "all"


class MidgameSettings(StrictModel):
    """Games that begin from mid-game positions instead of the scenario's set-up."""

    share: float = Field(default=0.0, ge=0, le=1, description="share of games that start mid-game; 0 turns it off")
    games: int = Field(default=40, ge=1, le=10_000, description="source games per scenario; one position each")
    captains: list[str] | None = Field(default=None, min_length=1, description=(
        "who plays the source games (their ordered pairs in turn); default every scripted captain but random"))
    seed: int = Field(default=3_000_000, ge=0, description="first source game's seed (kept apart from training "
                                                             "and evaluation seeds)")


class PrioritySettings(StrictModel):
    """PFSP-style draws: a cell's weight is its configured weight times ``(floor + (1 - score)) ** power``."""

    enabled: bool = False
    window: int = Field(default=100, ge=1, description="recent games per (scenario, opponent) cell that count")
    power: float = Field(default=2.0, ge=0, description="how hard draws lean toward the weakest cells")
    floor: float = Field(default=0.1, gt=0, le=1, description="added to every cell's 1 - score, so won cells are "
                                                              "still drawn")


class StartsSettings(StrictModel):
    midgame: MidgameSettings = MidgameSettings()
    prioritized: PrioritySettings = PrioritySettings()


def check_scenario_shape(choice: ScenarioChoice) -> ScenarioChoice:
    """Refuse an empty list, a repeated name or a weight that is not positive (names are checked per ruleset)."""
    if isinstance(choice, list):
        if not choice:
            raise ValueError("an empty scenario list; name at least one scenario, or write all")
        repeated = sorted({name for name in choice if choice.count(name) > 1})
        if repeated:
            raise ValueError(f"scenario(s) {repeated} listed twice; list each once, or give weights as a mapping")
    if isinstance(choice, dict):
        if not choice:
            raise ValueError("an empty scenario mapping; give scenario: weight pairs, or write all")
        bad = {name: weight for name, weight in choice.items() if not weight > 0}
        if bad:
            raise ValueError(f"scenario weights must be above 0, got {bad}; leave a scenario out to skip it")
    return choice


def scenario_weights(ruleset: str, ruleset_config: Any, choice: ScenarioChoice) -> dict[str | None, float]:
    """Each scenario the run draws from with its weight (summing to 1); a ConfigError names the allowed ones."""
    if choice is None:
        return {None: 1.0}
    rules = get_ruleset(ruleset)
    allowed = rules.scenarios(rules.load_config(ruleset_config))
    if choice == ALL:
        weights = dict.fromkeys(allowed, 1.0)
    elif isinstance(choice, str):
        weights = {choice: 1.0}
    elif isinstance(choice, list):
        weights = dict.fromkeys(choice, 1.0)
    else:
        weights = dict(choice)
    unknown = [name for name in weights if name not in allowed]
    if unknown:
        raise ConfigError(f"scenario {', '.join(map(repr, unknown))}: not a {ruleset} scenario; allowed: "
                          f"{', '.join(allowed)} (or all, a list of them, or a mapping of them to weights)")
    total = sum(weights.values())
    return {name: weight / total for name, weight in weights.items()}


def home_scenario(ruleset: str, ruleset_config: Any, choice: ScenarioChoice) -> str | None:
    """The one scenario a single-scenario tool (quick evaluation, imitation checks) uses: the first listed."""
    return next(iter(scenario_weights(ruleset, ruleset_config, choice)))
