"""``league add``: start a league for one ruleset and scenario, and add captains to it.

Every captain is checked (it must load for the league's ruleset, scenario and config) before the file
is created or anything is written, so a refused ``add`` leaves the file as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from naval_agents.evaluation.tournament import EvaluationInputError, load_captain, parse_entrant
from naval_agents.league.db import League, LeagueError, LeagueInfo, create, now, open_league
from naval_agents.league.identity import content_hash, file_hash, is_path_spec
from naval_env.core.errors import NavalError
from naval_env.core.ruleset import get_ruleset, ruleset_ids
from naval_env.envs.match import Match


@dataclass(frozen=True)
class NewCaptain:
    name: str
    spec: str
    source: str
    sha256: str | None


def league_info(ruleset: str, scenario: str | None, config: str | None, first_seed: int) -> LeagueInfo:
    """The settings of a new league, checked; the scenario defaults to the config's default."""
    if ruleset not in ruleset_ids():
        raise LeagueError(f"unknown ruleset {ruleset!r}; allowed: {ruleset_ids()}")
    if first_seed < 0:
        raise LeagueError(f"--seed must be 0 or more, got {first_seed}")
    rules = get_ruleset(ruleset)
    config_path = str(Path(config).resolve()) if config else None
    try:
        loaded = rules.load_config(config_path)
    except (OSError, NavalError) as exc:
        raise LeagueError(" ".join(f"bad --config {config!r}: {exc}".split())) from None
    scenarios = rules.scenarios(loaded)
    if scenario is not None and scenario not in scenarios:
        raise LeagueError(f"unknown {ruleset} scenario {scenario!r}; allowed: {scenarios}")
    chosen = scenario or loaded.default_scenario
    if len(rules.new_game(loaded, chosen, seed=0).sides) != 2:
        raise LeagueError(f"{ruleset} scenario {chosen!r} does not have two sides; a league needs two; "
                          f"allowed: {scenarios}")
    return LeagueInfo(ruleset, rules.version, chosen, config_path, file_hash(config_path) if config_path else None,
                      first_seed, now())


def check_captains(info: LeagueInfo, texts: Sequence[str], existing: Sequence[tuple[str, str, str | None]] = ()
                   ) -> list[NewCaptain]:
    """The captains of ``texts`` not yet in the league (``existing``: (name, source, sha256)), checked."""
    match = Match(info.ruleset, info.config, info.scenario)
    known = {name: (source, sha) for name, source, sha in existing}
    fresh: list[NewCaptain] = []
    for text in texts:
        try:
            entrant = parse_entrant(text)
            load_captain(entrant, info.ruleset, match.action_spec, config=match.config)
        except EvaluationInputError as exc:
            raise LeagueError(str(exc)) from None
        source = str(Path(entrant.spec).resolve()) if is_path_spec(entrant.spec) else entrant.spec
        captain = NewCaptain(entrant.label, entrant.spec, source, content_hash(entrant.spec, info.ruleset))
        if captain.name in known:
            if known[captain.name] != (captain.source, captain.sha256):
                raise LeagueError(f"captain name {captain.name!r} is taken by another captain (or an earlier version "
                                  f"of these files); give this one a new name: NEWNAME={entrant.spec}")
            continue   # already in the league: adding it again changes nothing
        if any(c.name == captain.name for c in fresh):
            raise LeagueError(f"captain name {captain.name!r} is given twice; name them NAME=SPEC")
        fresh.append(captain)
    return fresh


def add(path: str | Path, captains: Sequence[str], *, ruleset: str | None = None, scenario: str | None = None,
        config: str | None = None, first_seed: int = 0) -> tuple[League, list[NewCaptain]]:
    """Create the league (when ``path`` does not exist; ``ruleset`` is then needed) and add ``captains``."""
    path = Path(path)
    if not path.exists():
        if ruleset is None:
            raise LeagueError(f"{path} does not exist; to create a league give its ruleset: --ruleset, one of "
                              f"{ruleset_ids()} (and optionally --scenario)")
        info = league_info(ruleset, scenario, config, first_seed)
        fresh = check_captains(info, captains)
        league = create(path, info)
    else:
        league = open_league(path)
        try:
            _check_same_league(league.info, ruleset, scenario, config)
            fresh = check_captains(league.info, captains,
                                   [(c.name, c.source, c.sha256) for c in league.captains()])
        except BaseException:
            league.close()
            raise
    for captain in fresh:
        league.add_captain(captain.name, captain.spec, captain.source, captain.sha256)
    return league, fresh


def _check_same_league(info: LeagueInfo, ruleset: str | None, scenario: str | None, config: str | None) -> None:
    given = {"ruleset": ruleset, "scenario": scenario, "config": str(Path(config).resolve()) if config else None}
    held = {"ruleset": info.ruleset, "scenario": info.scenario, "config": info.config}
    for key, value in given.items():
        if value is not None and value != held[key]:
            raise LeagueError(f"this league is for {info.ruleset} / {info.scenario}"
                              f"{f' with config {info.config}' if info.config else ''}, not --{key} {value}; "
                              "a league holds one ruleset and scenario: use another --db file for it")
