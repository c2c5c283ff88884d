"""A tournament's input and schedule: captains as labelled specs, pairings, and every game as a task.

:mod:`naval_agents.evaluation.tournament` plays the schedule (here or in a process pool), :mod:`.workers`
holds what plays one game, :mod:`.ray_backend` plays it on Ray; all of them import this module.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, overload

from naval_agents.captains.base import Captain
from naval_agents.captains.registry import make_captain, scripted_names
from naval_agents.evaluation.stats import GameResult
from naval_env.core.errors import NavalError
from naval_env.core.ruleset import get_ruleset, ruleset_ids

LABEL = re.compile(r"^[A-Za-z0-9_.\-]+$")


class EvaluationInputError(NavalError):
    """Bad tournament input; the one-line message names what was wrong and what is allowed."""


@dataclass(frozen=True)
class Entrant:
    label: str   # name in tables, pairings and ratings
    spec: str    # what make_captain gets


@dataclass(frozen=True)
class Tournament:
    ruleset: str
    scenario: str | None
    config: str | None
    entrants: tuple[Entrant, ...]
    pairings: tuple[tuple[str, str], ...]   # (a, b) by label
    games: int                              # seeds per pairing; each is played twice, sides swapped
    seed: int = 0

    @property
    def specs(self) -> dict[str, str]:
        return {entrant.label: entrant.spec for entrant in self.entrants}


@dataclass(frozen=True, order=True)
class GameTask:
    pairing: int
    seed: int
    swap: bool


# ------------------------------------------------------------------------------------- input
def _label_of(spec: str) -> str:
    path = Path(spec)
    if path.suffix in (".onnx", ".zip"):
        return path.parent.name if path.stem == "final_model" and path.parent.name else path.stem
    # A captain name such as search:64 or mixed:zoo:0.3 is labelled search-64: ':' separates pairings.
    return (path.name or spec).replace(":", "-")


def parse_entrant(text: str) -> Entrant:
    """``NAME=SPEC`` or a bare spec (labelled by its name, or its file/folder name for paths)."""
    label, sep, spec = text.partition("=")
    if not sep:
        label, spec = _label_of(text), text
    if not spec or not LABEL.match(label):
        raise EvaluationInputError(
            f"bad captain {text!r}: give a spec (random, a scripted name, a run folder, a .zip or an .onnx) "
            "or NAME=SPEC with NAME made of letters, digits, '_', '-' and '.'")
    return Entrant(label, spec)


def parse_pairings(texts: Sequence[str], entrants: Sequence[Entrant]) -> tuple[list[tuple[str, str]], list[Entrant]]:
    """Pairings ``A:B`` by label (or by spec, which adds that captain); returns (pairings, all entrants)."""
    known = list(entrants)
    pairings: list[tuple[str, str]] = []
    for text in texts:
        parts = text.split(":")
        if len(parts) != 2 or not all(parts):
            raise EvaluationInputError(
                f"bad pairing {text!r}: expected A:B where A and B are captains "
                f"{[e.label for e in known] or '(labels or specs)'}")
        pair = []
        for token in parts:
            match = next((e for e in known if token in (e.label, e.spec)), None)
            if match is None:
                match = parse_entrant(token)
                known.append(match)
            pair.append(match.label)
        pairings.append((pair[0], pair[1]))
    return pairings, known


def round_robin(labels: Sequence[str]) -> list[tuple[str, str]]:
    """Every unordered pair once, in the order the captains were given."""
    return list(combinations(labels, 2))


def build_tournament(ruleset: str, captains: Sequence[str], games: int, *, scenario: str | None = None,
                     pairings: Sequence[str] = (), seed: int = 0, config: str | None = None,
                     check_captains: bool = True) -> Tournament:
    """Validate everything up front; raises :class:`EvaluationInputError` with a one-line message."""
    if ruleset not in ruleset_ids():
        raise EvaluationInputError(f"unknown ruleset {ruleset!r}; choose one of {ruleset_ids()}")
    if games < 1:
        raise EvaluationInputError(f"games per pairing must be at least 1, got {games}")
    if seed < 0:
        raise EvaluationInputError(f"the first seed must be 0 or more, got {seed}")
    rules = get_ruleset(ruleset)
    try:
        loaded = rules.load_config(config)
    except (OSError, NavalError) as exc:
        raise EvaluationInputError(_one_line(f"bad config {config!r}: {exc}")) from None
    scenarios = rules.scenarios(loaded)
    if scenario is not None and scenario not in scenarios:
        raise EvaluationInputError(f"unknown {ruleset} scenario {scenario!r}; choose one of {scenarios}")
    entrants = [parse_entrant(text) for text in captains]
    if pairings:
        pairs, entrants = parse_pairings(pairings, entrants)
    else:
        if len(entrants) < 2:
            raise EvaluationInputError(
                f"a round robin needs at least two captains, got {[e.label for e in entrants]}; "
                f"add captains (e.g. {scripted_names(ruleset)}) or give pairings A:B")
        pairs = round_robin([e.label for e in entrants])
    _check_unique(entrants)
    sides = rules.new_game(loaded, scenario, seed=0).sides
    if len(sides) != 2:
        raise EvaluationInputError(f"{ruleset} scenario {scenario!r} has {len(sides)} sides; tournaments need 2")
    if check_captains:
        action_spec = rules.action_spec(loaded)
        for entrant in entrants:
            load_captain(entrant, ruleset, action_spec, config=loaded)
    return Tournament(ruleset, scenario, config, tuple(entrants), tuple(pairs), games, seed)


def _check_unique(entrants: Sequence[Entrant]) -> None:
    seen: dict[str, str] = {}
    for entrant in entrants:
        if seen.get(entrant.label) == entrant.spec:
            raise EvaluationInputError(f"captain {entrant.spec!r} is listed twice; list each captain once")
        if entrant.label in seen:
            raise EvaluationInputError(
                f"two captains are labelled {entrant.label!r} ({seen[entrant.label]!r} and {entrant.spec!r}); "
                "list each once, or label them NAME=SPEC")
        seen[entrant.label] = entrant.spec


def load_captain(entrant: Entrant, ruleset: str, action_spec: Any, seed: int = 0, config: Any = None) -> Captain:
    """make_captain with input errors turned into one-line :class:`EvaluationInputError`."""
    spec = entrant.spec
    looks_like_path = Path(spec).suffix in (".onnx", ".zip") or os.sep in spec or "/" in spec
    if looks_like_path and not Path(spec).exists():
        raise EvaluationInputError(
            f"captain {spec!r}: no such file or folder; use one of {scripted_names(ruleset)}, "
            "a training run folder, a model .zip inside one, or an .onnx export")
    try:
        return make_captain(spec, ruleset, action_spec, seed=seed, config=config)
    except (ValueError, OSError, ImportError) as exc:
        raise EvaluationInputError(_one_line(str(exc) if not looks_like_path
                                             else f"cannot load captain {spec!r}: {exc}")) from None


def _one_line(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------------------------- schedule
@dataclass(frozen=True)
class Schedule(Sequence[GameTask]):
    """Every game of a tournament, made on demand: per pairing, per seed, unswapped then swapped.

    Length and indexing are arithmetic, so a schedule of a billion seeds costs no memory
    and no time until its games are played.
    """

    pairings: int
    first_seed: int
    seeds: int

    def __len__(self) -> int:
        return self.pairings * self.seeds * 2

    def _task(self, index: int) -> GameTask:
        pairing, rest = divmod(index, self.seeds * 2)
        return GameTask(pairing, self.first_seed + rest // 2, bool(rest % 2))

    @overload
    def __getitem__(self, index: int) -> GameTask: ...
    @overload
    def __getitem__(self, index: slice) -> list[GameTask]: ...
    def __getitem__(self, index: int | slice) -> GameTask | list[GameTask]:
        if isinstance(index, slice):
            return [self._task(i) for i in range(len(self))[index]]
        return self._task(range(len(self))[index])   # range does the bounds and negative indices

    def __iter__(self) -> Iterator[GameTask]:
        for pairing in range(self.pairings):
            for seed in range(self.first_seed, self.first_seed + self.seeds):
                yield GameTask(pairing, seed, False)
                yield GameTask(pairing, seed, True)


def schedule(tournament: Tournament) -> Schedule:
    """Every game of the tournament: per pairing, per seed, unswapped then swapped."""
    return Schedule(len(tournament.pairings), tournament.seed, tournament.games)


def rating_order(results: Sequence[GameResult]) -> list[GameResult]:
    """Games round by round (seed, swap, pairing): the order ratings are fitted in."""
    return sorted(results, key=lambda r: (r.seed, r.swap, r.pairing))
