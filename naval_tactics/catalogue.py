"""What the server and the command line offer: every ruleset with its config, and the captains known by name.

Captains come only from names: ``random``, each ruleset's scripted captains, the shipped zoo captain
with its levels and the exported ``.onnx`` files found in a folder given at start-up are listed; the
parametric forms of :mod:`naval_agents.captains.registry`'s grammar (``search:N``, ``search:Nms``, ``expert:Nms``,
``mixed:BASE:SHARE``, ``tempered:BASE:T``) are made on demand, within the server's limits. A name a
client sends is parsed by that one grammar and looked up here: it is never opened as a path (model
paths are refused), and nothing is unpickled. Descriptions are the ones the registry and the
scripted captains declare. Each listed source is one function in :data:`CAPTAIN_SOURCES`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

from naval_agents.captains.base import Captain, RandomCaptain
from naval_agents.captains.registry import (
    NAME_FORMS,
    CaptainName,
    CaptainNameError,
    NameLimits,
    UnknownCaptainError,
    build_captain,
    describe,
    form_examples,
    level_play,
    parse_captain_name,
    scripted_captains,
)
from naval_env.core.ruleset import Ruleset, get_ruleset, ruleset_ids
from naval_env.core.spaces import ActionSpec

CaptainKind = Literal["random", "scripted", "zoo", "level", "exported", "search", "mixed", "tempered"]
#: Names an exported file may give its captain (its stem): no separators, no dots first.
CAPTAIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
#: The most simulations a decision a client may ask of ``search:N`` by default: one opening decision of
#: ``search:1024`` took 1.5 s (pantheon) to 6.1 s (flotilla) on 2 shared cores, well inside the server's
#: 30 s ``decision_timeout_s``.
DEFAULT_MAX_SEARCH_SIMULATIONS = 1024
#: Name kinds made on demand, as the listing's kinds name them (``expert:Nms`` is the top level).
#: How a level plays, in words (declared by the registry; the old name, which tests/captains/test_expert_level.py imports).
_level_play = level_play
_ON_DEMAND_KIND: dict[str, CaptainKind] = {"timed_expert": "level", "search": "search", "mixed": "mixed",
                                        "tempered": "tempered"}


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
class ServedForm:
    """A form of captain name a server makes on demand, as ``GET /v1/rulesets`` lists it."""

    form: str
    example: str
    description: str


@dataclass(frozen=True)
class CatalogueSettings:
    """What a captain source may read: the rulesets served and the folder of exports (if any)."""

    rulesets: dict[str, RulesetEntry]
    captains_dir: Path | None = None
    #: The longest thinking time a client may ask of ``expert:Nms`` and ``search:Nms``, in milliseconds.
    max_expert_ms: float = 2_000
    #: The most simulations a decision a client may ask of ``search:N``.
    max_search_simulations: int = DEFAULT_MAX_SEARCH_SIMULATIONS
    #: Load and check the shipped models now (a server: a stale one fails at start-up) or at a captain's first
    #: ``make`` (``naval-tactics list``, which names captains and plays none: 0.19 s of its start).
    load_models: bool = True

    @property
    def limits(self) -> NameLimits:
        return NameLimits(self.max_expert_ms, self.max_search_simulations)


def builtin_captains(settings: CatalogueSettings) -> Iterator[CaptainEntry]:
    """``random`` and the scripted captains of every ruleset (``agents/captains/scripted/<id>.py``), described as the
    registry and the captains' classes declare."""
    for ruleset_id, entry in settings.rulesets.items():
        spec = entry.action_spec
        yield CaptainEntry("random", ruleset_id, "random", describe(CaptainName("random", "random"), ruleset_id),
                           partial(_random, spec), has_probabilities=True)
        for name, factory in scripted_captains(ruleset_id).items():
            yield CaptainEntry(name, ruleset_id, "scripted", describe(CaptainName(name, "scripted"), ruleset_id),
                               partial(_scripted, factory))


def _random(spec: ActionSpec, seed: int | None) -> Captain:
    return RandomCaptain(spec, seed=seed)


def _scripted(factory: Callable[[], Captain], seed: int | None) -> Captain:
    return factory()


def _shared(captain: Captain, seed: int | None) -> Captain:
    return captain


def exported_captains(settings: CatalogueSettings) -> Iterator[CaptainEntry]:
    """Every ``<name>.onnx`` with its sidecar in ``captains_dir``, checked and loaded once at start-up
    (one onnxruntime session serves every game: the graph keeps no state between decisions)."""
    if settings.captains_dir is None:
        return
    from naval_agents.captains.learned import ModelLoadError
    from naval_agents.captains.onnx_captain import OnnxCaptain

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
    the same by :class:`~naval_agents.captains.onnx_captain.OnnxCaptain`."""
    inside = folder.resolve()
    for path in paths:
        if not path.resolve().is_relative_to(inside):
            raise CatalogueError(f"{path}: a link to {path.resolve()}, outside the captains folder {inside}; copy the "
                                 "export into the folder instead of linking to it")


def zoo_captains(settings: CatalogueSettings) -> Iterator[CaptainEntry]:
    """The trained captain shipped for each ruleset (``zoo``, loaded and checked once at start-up) and the
    difficulty levels built on it (``easy``, ``normal``, ``hard``, ``expert``; see ``agents/zoo``)."""
    from naval_agents.captains.zoo import LEVELS, has_zoo_captain, load_zoo_captain
    from naval_agents.captains.zoo.catalogue import load_zoo_value_leaf
    from naval_agents.captains.zoo.levels import TIMED_EXPERT_FORM, levels_of

    for ruleset_id, entry in settings.rulesets.items():
        if not has_zoo_captain(ruleset_id):
            continue
        models = _ZooModels(ruleset_id, entry.config, load_zoo_captain, load_zoo_value_leaf)
        if settings.load_models:
            models.get()
        yield CaptainEntry("zoo", ruleset_id, "zoo", describe(CaptainName("zoo", "zoo"), ruleset_id),
                           partial(_shared_zoo, models), has_probabilities=True)
        levels = levels_of(ruleset_id)
        for level in LEVELS:
            spec = getattr(levels, level)
            if spec.base != "zoo":
                continue  # a level built on a scripted captain needs no shipped file; not served here yet
            name = CaptainName(level, "level")
            timed = (f"; ask for {TIMED_EXPERT_FORM} (N from 1 to {settings.max_expert_ms:g}) to have it search "
                     "N milliseconds a decision instead") if level == "expert" else ""
            yield CaptainEntry(level, ruleset_id, "level", describe(name, ruleset_id) + timed,
                               partial(_level, models, spec, entry.action_spec, level), slow=name.searches(ruleset_id))


class _ZooModels:
    """A ruleset's zoo captain and value leaf, loaded once: at the first :meth:`get` (one session serves every
    game: the graph keeps no state between decisions)."""

    def __init__(self, ruleset_id: str, config: Any, load_captain: Callable[[str, Any], Captain],
                 load_value: Callable[[str, Any], Any]) -> None:
        self._load = partial(load_captain, ruleset_id, config), partial(load_value, ruleset_id, config)
        self._models: tuple[Captain, Any] | None = None

    def get(self) -> tuple[Captain, Any]:
        if self._models is None:
            self._models = (self._load[0](), self._load[1]())
        return self._models


def _shared_zoo(models: _ZooModels, seed: int | None) -> Captain:
    return models.get()[0]


def _level(models: _ZooModels, level: Any, spec: ActionSpec, name: str, seed: int | None) -> Captain:
    from naval_agents.captains.zoo.levels import level_captain

    zoo, value = models.get()
    return level_captain(zoo, level, spec, name=name, seed=seed, value=value if level.search else None)


def _on_demand(name: CaptainName, ruleset: RulesetEntry, listed: Mapping[str, CaptainEntry],
               seed: int | None) -> Captain:
    """A parametric name's captain, its plain parts (``zoo``, a scripted base) the catalogue's own."""
    return build_captain(name, ruleset.id, ruleset.action_spec, seed=seed, config=ruleset.config,
                         plain=lambda part: listed[part.text].make(seed))


#: Where captains come from, in order. A name may appear once per ruleset.
CAPTAIN_SOURCES: tuple[Callable[[CatalogueSettings], Iterable[CaptainEntry]], ...] = (
    builtin_captains,
    zoo_captains,
    exported_captains,
)


class Catalogue:
    """The rulesets and captains one server (or one ``naval-tactics list``) offers, looked up by name."""

    def __init__(self, rulesets: Iterable[RulesetEntry], captains: Iterable[CaptainEntry],
                 max_expert_ms: float = CatalogueSettings.max_expert_ms,
                 max_search_simulations: int = DEFAULT_MAX_SEARCH_SIMULATIONS) -> None:
        self.rulesets: dict[str, RulesetEntry] = {entry.id: entry for entry in rulesets}
        self.max_expert_ms = max_expert_ms
        self.max_search_simulations = max_search_simulations
        self.limits = NameLimits(max_expert_ms, max_search_simulations)
        self._captains: dict[str, dict[str, CaptainEntry]] = {rid: {} for rid in self.rulesets}
        for captain in captains:
            taken = self._captains[captain.ruleset]
            if captain.name in taken:
                raise CatalogueError(f"two {captain.ruleset} captains named {captain.name!r} "
                                     f"({taken[captain.name].description}; {captain.description})")
            taken[captain.name] = captain

    @classmethod
    def load(cls, captains_dir: Path | None = None, ruleset_filter: Iterable[str] | None = None,
             max_expert_ms: float = CatalogueSettings.max_expert_ms,
             max_search_simulations: int = DEFAULT_MAX_SEARCH_SIMULATIONS, *, load_models: bool = True) -> Catalogue:
        """``load_models=False``: the shipped models load at a captain's first ``make`` instead of now."""
        wanted = list(ruleset_filter) if ruleset_filter is not None else ruleset_ids()
        rulesets = {rid: RulesetEntry.load(rid) for rid in wanted}
        settings = CatalogueSettings(rulesets, Path(captains_dir) if captains_dir is not None else None,
                                     max_expert_ms, max_search_simulations, load_models)
        return cls(rulesets.values(), (c for source in CAPTAIN_SOURCES for c in source(settings)), max_expert_ms,
                   max_search_simulations)

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

    def served_forms(self, ruleset_id: str) -> list[ServedForm]:
        """The forms of name made on demand for ``ruleset_id`` (``expert:Nms`` where the zoo captain is served),
        each with an example and its description, ranges included."""
        listed = self._captains[self.ruleset(ruleset_id).id]
        examples = form_examples(ruleset_id)
        ranges = self._ranges()
        return [ServedForm(form.form, examples[form.form],
                           form.description + (f" ({ranges[form.form]})" if form.form in ranges else ""))
                for form in NAME_FORMS
                if form.kind in _ON_DEMAND_KIND and (form.kind != "timed_expert" or "zoo" in listed)]

    def _ranges(self) -> dict[str, str]:
        return {"expert:Nms": f"N from 1 to {self.max_expert_ms:g}",
                "search:N": f"N from 1 to {self.max_search_simulations}",
                "search:Nms": f"N from 1 to {self.max_expert_ms:g}"}

    def name_forms(self, ruleset_id: str) -> list[str]:
        """The forms served on demand, with this server's ranges (for refusals' ``allowed``)."""
        ranges = self._ranges()
        return [f"{form.form} ({ranges[form.form]})" if form.form in ranges else form.form
                for form in self.served_forms(ruleset_id)]

    def captain(self, ruleset_id: str, name: str) -> CaptainEntry:
        """The captain ``name`` gives: a listed one, or a parametric name of the registry's grammar made on
        demand from listed parts. A model path, or a name built on a captain not listed, is refused."""
        ruleset = self.ruleset(ruleset_id)
        listed = self._captains[ruleset.id]
        if name in listed:
            return listed[name]
        try:
            parsed = parse_captain_name(name, ruleset.id, self.limits, served=listed)
        except CaptainNameError as exc:
            if isinstance(exc, UnknownCaptainError) and exc.name == name:   # of no form: the listed names
                raise UnknownNameError("captain", name, list(listed), f" for {ruleset_id}") from None
            # a form written wrong, past this server's range, or built on an unknown name: say why, and every form
            raise UnknownNameError("captain", name, [*listed, *self.name_forms(ruleset.id)],
                                   f" for {ruleset_id} ({exc})") from None
        parts = parsed.names()
        unserved = next((part for part in parts if (part.kind not in _ON_DEMAND_KIND and part.text not in listed)
                         or (part.kind == "timed_expert" and "zoo" not in listed)), None)
        if unserved is not None:   # a model path, a captain this server does not list, expert:Nms without the zoo
            allowed = list(listed) if unserved is parsed and unserved.kind == "model" else \
                [*listed, *self.name_forms(ruleset.id)]
            raise UnknownNameError("captain", name, allowed, f" for {ruleset_id}")
        base = listed.get(parsed.base.text) if parsed.base is not None else None
        return CaptainEntry(name, ruleset.id, _ON_DEMAND_KIND[parsed.kind], describe(parsed, ruleset.id),
                            partial(_on_demand, parsed, ruleset, listed),
                            has_probabilities=base is not None and base.has_probabilities,
                            slow=parsed.searches(ruleset.id))
