"""What the server and the command line offer: every ruleset with its config, and the captains known by name.

Captains come only from names this module lists: ``random``, each ruleset's scripted captains
and the exported ``.onnx`` files found in a folder given at start-up. A name a client sends is
looked up here and nowhere else: it is never opened as a path, and nothing is unpickled.
Each source is one function in :data:`CAPTAIN_SOURCES`; adding one (the shipped zoo) is one line.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agents.base import Captain, RandomCaptain
from agents.registry import scripted_captains
from naval_env.core.ruleset import Ruleset, get_ruleset, ruleset_ids
from naval_env.core.spaces import ActionSpec

if TYPE_CHECKING:
    from agents.zoo.levels import Level

TIMED_EXPERT_FORM = "expert:Nms"
CaptainKind = Literal["random", "scripted", "zoo", "level", "exported"]
#: Names an exported file may give its captain (its stem): no separators, no dots first.
CAPTAIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class CatalogueError(ValueError):
    """A captains folder the catalogue cannot serve (a bad export, a name taken twice)."""


class UnknownNameError(LookupError):
    """A ruleset, scenario or captain name the catalogue does not know; ``allowed`` lists those it does."""

    def __init__(self, what: str, name: str, allowed: list[str], where: str = "") -> None:
        self.what, self.name, self.allowed = what, name, allowed
        super().__init__(f"unknown {what} {name!r}{where}; known: {allowed}")


@dataclass(frozen=True)
class RulesetEntry:
    """A ruleset as served: its default config (loaded once, read-only) and what is fixed by it."""

    ruleset: Ruleset
    config: Any
    scenarios: tuple[str, ...]
    default_scenario: str
    action_spec: ActionSpec

    @property
    def id(self) -> str:
        return self.ruleset.id

    @classmethod
    def load(cls, ruleset_id: str) -> RulesetEntry:
        ruleset = get_ruleset(ruleset_id)
        config = ruleset.load_config()
        return cls(ruleset, config, tuple(ruleset.scenarios(config)), config.default_scenario,
                   ruleset.action_spec(config))


@dataclass(frozen=True)
class CaptainEntry:
    """A captain by name on one ruleset. ``make(seed)`` gives one ready for a game."""

    name: str
    ruleset: str
    kind: CaptainKind
    description: str
    make: Callable[[int | None], Captain] = field(repr=False, compare=False)
    #: Whether its moves come with the policy's probabilities (:meth:`Captain.probabilities`).
    has_probabilities: bool = False
    #: Whether a move takes long enough (a search's time budget) to be computed off the server's event loop.
    slow: bool = False


@dataclass(frozen=True)
class CatalogueSettings:
    """What a captain source may read: the rulesets served and the folder of exports (if any)."""

    rulesets: dict[str, RulesetEntry]
    captains_dir: Path | None = None
    #: The longest thinking time a client may ask of ``expert:Nms``, in milliseconds.
    max_expert_ms: float = 2_000


def builtin_captains(settings: CatalogueSettings) -> Iterator[CaptainEntry]:
    """``random`` and the scripted captains of every ruleset (``agents/scripted/<id>.py``)."""
    for ruleset_id, entry in settings.rulesets.items():
        spec = entry.action_spec
        yield CaptainEntry("random", ruleset_id, "random", "a uniformly random legal value for every component",
                           partial(_random, spec), has_probabilities=True)
        for name, factory in scripted_captains(ruleset_id).items():
            yield CaptainEntry(name, ruleset_id, "scripted", _scripted_description(ruleset_id, name),
                               partial(_scripted, factory))


def _random(spec: ActionSpec, seed: int | None) -> Captain:
    return RandomCaptain(spec, seed=seed)


def _scripted(factory: Callable[[], Captain], seed: int | None) -> Captain:
    return factory()


def _shared(captain: Captain, seed: int | None) -> Captain:
    return captain


def _scripted_description(ruleset_id: str, name: str) -> str:
    """The captain's bullet in its module docstring (``- ``name``: what it does``), else a plain label."""
    doc = importlib.import_module(f"agents.scripted.{ruleset_id}").__doc__ or ""
    found = re.search(rf"^- ``{re.escape(name)}``: (.+?)(?=^- |^\s*$|\Z)", doc, re.MULTILINE | re.DOTALL)
    return " ".join(found.group(1).split()) if found else f"scripted {name}"


def exported_captains(settings: CatalogueSettings) -> Iterator[CaptainEntry]:
    """Every ``<name>.onnx`` with its sidecar in ``captains_dir``, checked and loaded once at start-up
    (one onnxruntime session serves every game: the graph keeps no state between decisions)."""
    if settings.captains_dir is None:
        return
    from agents.export.onnx_captain import OnnxCaptain
    from agents.learned import ModelLoadError

    folder = settings.captains_dir
    if not folder.is_dir():
        raise CatalogueError(f"captains folder {folder} does not exist or is not a folder")
    for path in sorted(folder.glob("*.onnx")):
        if not CAPTAIN_NAME.match(path.stem):
            raise CatalogueError(f"{path}: captain name {path.stem!r} must match {CAPTAIN_NAME.pattern}")
        _refuse_links_out(folder, path, path.with_suffix(".json"))
        try:
            captain = OnnxCaptain(path)
        except (ModelLoadError, ValueError, KeyError, TypeError) as exc:
            raise CatalogueError(f"{path}: cannot serve this export: {exc}") from None
        if captain.ruleset_id not in settings.rulesets:
            raise CatalogueError(f"{path}: exported for ruleset {captain.ruleset_id!r}, which is not served")
        run = (captain.sidecar.get("training_run") or {}).get("name")
        description = f"exported ONNX captain {path.name}" + (f" (training run {run})" if run else "")
        yield CaptainEntry(path.stem, captain.ruleset_id, "exported", description,
                           partial(_shared, captain), has_probabilities=True)


def _refuse_links_out(folder: Path, *paths: Path) -> None:
    """Every file an export is loaded from lies in the captains folder, symbolic links followed (a link
    to a model elsewhere would serve a file nobody put in the folder). External-data files are held to
    the same by :class:`~agents.export.onnx_captain.OnnxCaptain`."""
    inside = folder.resolve()
    for path in paths:
        if not path.resolve().is_relative_to(inside):
            raise CatalogueError(f"{path}: a link to {path.resolve()}, outside the captains folder {inside}; copy the "
                                 "export into the folder instead of linking to it")


def zoo_captains(settings: CatalogueSettings) -> Iterator[CaptainEntry]:
    """The trained captain shipped for each ruleset (``zoo``, loaded and checked once at start-up) and the
    difficulty levels built on it (``easy``, ``normal``, ``hard``, ``expert``; see ``agents/zoo``)."""
    from agents.zoo import LEVELS, has_zoo_captain, load_zoo_captain
    from agents.zoo.levels import levels_of

    for ruleset_id, entry in settings.rulesets.items():
        if not has_zoo_captain(ruleset_id):
            continue
        zoo = load_zoo_captain(ruleset_id, entry.config)
        yield CaptainEntry("zoo", ruleset_id, "zoo", f"the trained captain shipped with the package (model card: "
                           f"agents/zoo/captains/{ruleset_id}.md)", partial(_shared, zoo), has_probabilities=True)
        levels = levels_of(ruleset_id)
        for level in LEVELS:
            spec = getattr(levels, level)
            if spec.base != "zoo":
                continue  # a level built on a scripted captain needs no shipped file; not served here yet
            timed = (f"; ask for {TIMED_EXPERT_FORM} (N from 1 to {settings.max_expert_ms:g}) to have it search "
                     "N milliseconds a decision instead") if level == "expert" else ""
            yield CaptainEntry(level, ruleset_id, "level", f"difficulty {level}: {_level_play(spec)}" + timed,
                               partial(_level, zoo, spec, entry.action_spec, level), slow=spec.search > 0)


def _level_play(level: Level) -> str:
    """How a difficulty level plays, in words."""
    if level.search:
        return (f"the zoo captain's move, searched with {level.search} simulations a decision (its own rollouts); "
                "a challenger replaces it only where the rollouts prove it better")
    if level.random_share >= 1.0:
        return "uniformly random legal moves"
    tempered = (f" sampling its moves from its policy at temperature {level.temperature:g} (expert: 0; "
                "higher: a flatter choice, further from its favourite moves)") if level.temperature \
        else " playing its most likely moves"
    return "the zoo captain" + tempered + (f" playing {level.random_share:.0%} of its decisions at random"
                                           if level.random_share else "")


def _timed_expert(zoo: Captain, milliseconds: float, ruleset_id: str, seed: int | None) -> Captain:
    from agents.zoo.levels import make_timed_expert

    return make_timed_expert(milliseconds, ruleset_id, seed=seed, guide=zoo)


def _level(zoo: Captain, level: Level, spec: ActionSpec, name: str, seed: int | None) -> Captain:
    from agents.zoo.levels import level_captain

    return level_captain(zoo, level, spec, name=name, seed=seed)


#: Where captains come from, in order. A name may appear once per ruleset.
CAPTAIN_SOURCES: tuple[Callable[[CatalogueSettings], Iterable[CaptainEntry]], ...] = (
    builtin_captains,
    zoo_captains,
    exported_captains,
)


class Catalogue:
    """The rulesets and captains one server (or one ``naval-tactics list``) offers, looked up by name."""

    def __init__(self, rulesets: Iterable[RulesetEntry], captains: Iterable[CaptainEntry],
                 max_expert_ms: float = CatalogueSettings.max_expert_ms) -> None:
        self.rulesets: dict[str, RulesetEntry] = {entry.id: entry for entry in rulesets}
        self.max_expert_ms = max_expert_ms
        self._captains: dict[str, dict[str, CaptainEntry]] = {rid: {} for rid in self.rulesets}
        for captain in captains:
            taken = self._captains[captain.ruleset]
            if captain.name in taken:
                raise CatalogueError(f"two {captain.ruleset} captains named {captain.name!r} "
                                     f"({taken[captain.name].description}; {captain.description})")
            taken[captain.name] = captain

    @classmethod
    def load(cls, captains_dir: Path | None = None, ruleset_filter: Iterable[str] | None = None,
             max_expert_ms: float = CatalogueSettings.max_expert_ms) -> Catalogue:
        wanted = list(ruleset_filter) if ruleset_filter is not None else ruleset_ids()
        rulesets = {rid: RulesetEntry.load(rid) for rid in wanted}
        settings = CatalogueSettings(rulesets, Path(captains_dir) if captains_dir is not None else None,
                                     max_expert_ms)
        return cls(rulesets.values(), (c for source in CAPTAIN_SOURCES for c in source(settings)), max_expert_ms)

    def ruleset(self, ruleset_id: str) -> RulesetEntry:
        try:
            return self.rulesets[ruleset_id]
        except KeyError:
            raise UnknownNameError("ruleset", ruleset_id, sorted(self.rulesets)) from None

    def scenario(self, ruleset_id: str, scenario: str | None) -> str:
        entry = self.ruleset(ruleset_id)
        if scenario is None:
            return entry.default_scenario
        if scenario not in entry.scenarios:
            raise UnknownNameError("scenario", scenario, list(entry.scenarios), f" for {ruleset_id}")
        return scenario

    def captains(self, ruleset_id: str) -> list[CaptainEntry]:
        self.ruleset(ruleset_id)
        return list(self._captains[ruleset_id].values())

    def captain(self, ruleset_id: str, name: str) -> CaptainEntry:
        captains = self._captains[self.ruleset(ruleset_id).id]
        try:
            return captains[name]
        except KeyError:
            pass
        if name.startswith("expert:") and "zoo" in captains:
            return self._timed_expert(ruleset_id, name, captains)
        raise UnknownNameError("captain", name, list(captains), f" for {ruleset_id}")

    def _timed_expert(self, ruleset_id: str, name: str, captains: dict[str, CaptainEntry]) -> CaptainEntry:
        """``expert:Nms``, made on demand: the search for N ms a decision, guided by the served zoo captain."""
        from agents.zoo.levels import parse_timed_expert

        try:
            milliseconds = parse_timed_expert(name, self.max_expert_ms)
        except ValueError:
            allowed = [*captains, f"{TIMED_EXPERT_FORM} (N from 1 to {self.max_expert_ms:g})"]
            raise UnknownNameError("captain", name, allowed, f" for {ruleset_id}") from None
        zoo = captains["zoo"].make(None)
        return CaptainEntry(name, ruleset_id, "level", f"the expert searching {milliseconds:g} ms a decision",
                            partial(_timed_expert, zoo, milliseconds, ruleset_id), slow=True)
