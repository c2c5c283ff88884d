"""What an atlas plays: its settings, and per scenario the captains and whether it has a mirror match.

Captains are read from the registry (``random`` and the ruleset's scripted captains) and from the
zoo (``zoo`` where a trained captain ships for the ruleset), never from a hand-kept list, so a
captain that lands later joins the next atlas by itself.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from naval_agents.captains.registry import ZOO_CAPTAIN, scripted_names
from naval_agents.captains.zoo import has_zoo_captain, zoo_onnx_path
from naval_env.core.errors import NavalError
from naval_env.core.ruleset import get_ruleset, ruleset_ids

BACKENDS = ("local", "ray")
#: Seeds per pairing by default: 40,350 games, 1,101 s with 2 workers on a shared 2-core machine (README), measured
#: before the seat-paired reference games (the strongest scripted captain against itself in the 13 scenarios whose
#: fleets differ: 3,900 games more, not yet timed).
DEFAULT_GAMES = 150
DEFAULT_OUT = "docs/atlas.md"


class AtlasError(NavalError):
    """Bad atlas settings; the one-line message names what was wrong and what is allowed."""


@dataclass(frozen=True)
class AtlasSettings:
    """Everything that decides an atlas's numbers (rulesets, games, seed) and how it is played (the rest)."""

    rulesets: tuple[str, ...] = ()
    """rulesets to play; empty: every registered one"""
    games: int = DEFAULT_GAMES
    """seeds per pairing, each played twice with the sides swapped"""
    seed: int = 0
    """first seed: a pairing plays seeds seed .. seed+games-1"""
    workers: int = 2
    """worker processes of the local backend (results do not depend on it)"""
    backend: str = "local"
    """local: worker processes on this machine; ray: Ray tasks"""
    address: str | None = None
    """Ray cluster to join (backend ray); default a local Ray"""
    out: str = DEFAULT_OUT
    """the markdown file; figures go to the folder of the same name beside it"""

    @property
    def chosen_rulesets(self) -> tuple[str, ...]:
        return self.rulesets or tuple(ruleset_ids())

    @property
    def figures_dir(self) -> Path:
        out = Path(self.out)
        return out.parent / out.stem

    def command(self) -> str:
        """The command line that makes these numbers (workers and backend change only the speed)."""
        parts = ["naval-tactics atlas"]
        if self.rulesets:
            parts.append("--rulesets " + " ".join(self.rulesets))
        parts += [f"--games {self.games}", f"--seed {self.seed}", f"--out {self.out}"]
        return " ".join(parts)


def check_settings(settings: AtlasSettings) -> None:
    """Refuse bad settings before any game is played."""
    known = ruleset_ids()
    unknown = [r for r in settings.rulesets if r not in known]
    if unknown:
        raise AtlasError(f"unknown ruleset(s) {unknown}; allowed: {known}")
    repeated = sorted(r for r, n in Counter(settings.rulesets).items() if n > 1)
    if repeated:
        raise AtlasError(f"ruleset(s) {repeated} given more than once; list each once (allowed: {known})")
    if settings.games < 1:
        raise AtlasError(f"--games must be at least 1 seed per pairing, got {settings.games}; allowed: 1 or more")
    if settings.seed < 0:
        raise AtlasError(f"--seed must be 0 or more, got {settings.seed}")
    if settings.workers < 1:
        raise AtlasError(f"--workers must be at least 1, got {settings.workers}")
    if settings.backend not in BACKENDS:
        raise AtlasError(f"unknown backend {settings.backend!r}; allowed: {list(BACKENDS)}")
    if settings.address is not None and settings.backend != "ray":
        raise AtlasError("--address names a Ray cluster; it needs --backend ray")
    out = Path(settings.out)
    if out.suffix != ".md" or out.is_dir():
        raise AtlasError(f"--out must be a markdown file ending in .md, got {settings.out!r}")


@dataclass(frozen=True)
class Captain:
    name: str
    kind: str      # random, scripted or zoo
    origin: str    # where it comes from, with the zoo file's digest so the atlas names what was played


@dataclass(frozen=True)
class ScenarioPlan:
    ruleset: str
    version: str
    scenario: str
    sides: tuple[str, str]
    captains: tuple[Captain, ...]
    #: Both sides field the same ship classes, so a captain against itself isolates the side advantage.
    mirror: bool

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.captains)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def captains_of(ruleset: str) -> tuple[Captain, ...]:
    """``random``, every scripted captain and, where one ships, the trained ``zoo`` captain."""
    captains = [Captain(name, "random" if name == "random" else "scripted",
                        "uniformly random legal moves" if name == "random" else f"agents/captains/scripted/{ruleset}.py")
                for name in scripted_names(ruleset)]
    if has_zoo_captain(ruleset):
        path = zoo_onnx_path(ruleset)
        captains.append(Captain(ZOO_CAPTAIN, "zoo", f"agents/captains/zoo/{path.name}, sha256 {_digest(path)}…"))
    return tuple(captains)


def _ship_class(ship: dict[str, Any]) -> str:
    for key in ("vessel", "ship_class"):
        if key in ship:
            return str(ship[key])
    raise AtlasError(f"cannot tell the class of ship {ship.get('id')!r}: it has neither 'vessel' nor 'ship_class'")


def fleets(state: dict[str, Any], sides: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each side's ship classes, sorted, from a game's ``state_dict()``."""
    ships = state["ships"]
    ships = ships.values() if isinstance(ships, dict) else ships
    return {side: tuple(sorted(_ship_class(s) for s in ships if s["side"] == side)) for side in sides}


def plan_atlas(settings: AtlasSettings) -> list[ScenarioPlan]:
    """Every scenario of every chosen ruleset, in registry order, with its captains."""
    check_settings(settings)
    plans = []
    for ruleset_id in settings.chosen_rulesets:
        rules = get_ruleset(ruleset_id)
        config = rules.load_config()
        captains = captains_of(ruleset_id)
        for scenario in rules.scenarios(config):
            game = rules.new_game(config, scenario, seed=settings.seed)
            sides = tuple(game.sides)
            if len(sides) != 2:
                raise AtlasError(f"{ruleset_id} scenario {scenario!r} has {len(sides)} sides; the atlas needs 2")
            by_side = fleets(game.state_dict(), sides)
            plans.append(ScenarioPlan(ruleset_id, rules.version, scenario, (sides[0], sides[1]), captains,
                                      mirror=by_side[sides[0]] == by_side[sides[1]]))
    return plans
