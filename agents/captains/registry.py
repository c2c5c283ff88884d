"""Make captains from names or paths: the one grammar of captain names, and the captains it makes.

Every entry point (``evaluate``, the envs' ``opponent=``, training's opponents, the server and its
``/play`` page) parses a name with :func:`parse_captain_name` and nowhere else. The forms
(:data:`NAME_FORMS`, one concrete example each in :func:`form_examples`):

- ``random`` and the ruleset's scripted captains (``gunner``, ...);
- ``zoo``, the trained captain shipped for the ruleset, and its difficulty levels ``easy``,
  ``normal``, ``hard``, ``expert`` (``agents/captains/zoo/levels.yaml``);
- ``expert:Nms``: the search thinking N milliseconds a decision, trying the zoo captain's move first;
- ``search``, ``search:N`` (N simulations a decision), ``search:Nms`` (N milliseconds);
- ``mixed:BASE:SHARE``: captain BASE playing SHARE (0..1) of its decisions at random;
- ``tempered:BASE:T``: captain BASE sampling its moves at temperature T;
- a model path: a training run's folder, a model ``.zip`` / RLlib ``.pth`` in it, or an ``.onnx`` export
  (never taken from a client: the server serves only names its catalogue lists).

It knows the scripted captains, the search, the zoo and its levels, and none of them imports it back
(a level gets its base captain through the ``base_captain`` it is handed). Registered as the
environments' captain resolver (:mod:`naval_env.envs.opponents`): through the ``naval_env.captains``
entry point in pyproject.toml, and on import here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Literal

from naval_agents.captains.base import Captain
from naval_agents.captains.scripted import (
    ScriptedFactory,
    default_opponent,
    make_scripted_captain,
    scripted_captains,
    scripted_names,
)
from naval_agents.captains.search import NAME_FORMS as SEARCH_FORMS
from naval_agents.captains.search import (
    SearchNameError,
    is_search_name,
    make_search_captain,
    parse_search_name,
)
from naval_agents.captains.search.names import (
    DEFAULT_SIMULATIONS,
    MAX_SIMULATIONS,
    MAX_TIME_BUDGET_MS,
)
from naval_agents.captains.zoo.catalogue import ZOO_CAPTAIN, has_zoo_captain, load_zoo_captain
from naval_agents.captains.zoo.levels import (
    LEVELS,
    MAX_TEMPERATURE,
    TIMED_EXPERT_FORM,
    Level,
    MixedCaptain,
    TemperatureCaptain,
    is_timed_expert,
    levels_of,
    make_level_captain,
    make_timed_expert,
    parse_timed_expert,
)
from naval_env.core.errors import ConfigError
from naval_env.core.spaces import ActionSpec
from naval_env.envs.opponents import register_resolver

__all__ = [
    "LEVELS",
    "MIXED_PREFIX",
    "NAME_FORMS",
    "TEMPERED_PREFIX",
    "ZOO_CAPTAIN",
    "CaptainName",
    "CaptainNameError",
    "NameForm",
    "NameLimits",
    "ScriptedFactory",
    "SearchCaptainNameError",
    "UnknownCaptainError",
    "build_captain",
    "captain_names",
    "default_opponent",
    "describe",
    "form_examples",
    "make_captain",
    "parse_captain_name",
    "scripted_captains",
    "scripted_names",
    "search_names",
]

MIXED_PREFIX = "mixed:"
TEMPERED_PREFIX = "tempered:"
MODEL_SUFFIXES = (".onnx", ".zip", ".pth")

#: What a name makes: the kinds of :class:`CaptainName`.
NameKind = Literal["random", "scripted", "zoo", "level", "timed_expert", "search", "mixed", "tempered", "model",
                   "served"]


class CaptainNameError(ValueError):
    """A captain name no form of the grammar takes, or one past its allowed range; the message names
    what was wrong and the forms (or the range) allowed."""

    def __init__(self, name: str, message: str) -> None:
        self.name = name
        super().__init__(message)


class UnknownCaptainError(CaptainNameError):
    """A name of no form at all (not a misspelt budget or share of a known form)."""


class SearchCaptainNameError(CaptainNameError, SearchNameError):
    """A bad ``search``-form name: caught as either (the search's callers catch :class:`SearchNameError`)."""


@dataclass(frozen=True)
class NameLimits:
    """The largest budgets a search-type name may ask for (the server sets its own, lower ones)."""

    #: Milliseconds a decision of ``search:Nms`` and ``expert:Nms``.
    max_milliseconds: float = MAX_TIME_BUDGET_MS
    #: Simulations a decision of ``search:N``.
    max_simulations: int = MAX_SIMULATIONS


@dataclass(frozen=True)
class NameForm:
    """One form a captain name takes, as the docs and help texts write it."""

    form: str
    kind: NameKind
    description: str


#: Every form a captain name takes, in the order the docs list them.
NAME_FORMS: tuple[NameForm, ...] = (
    NameForm("random", "random", "a uniformly random legal value for every component"),
    NameForm("SCRIPTED", "scripted", "a hand-written captain of the ruleset (agents/captains/scripted/<ruleset>.py)"),
    NameForm(ZOO_CAPTAIN, "zoo", "the trained captain shipped with the package"),
    *(NameForm(level, "level", f"difficulty {level}, built on the zoo captain") for level in LEVELS),
    NameForm(TIMED_EXPERT_FORM, "timed_expert", "the search thinking N milliseconds a decision, trying the "
             "zoo captain's move first"),
    NameForm("search", "search", "Monte Carlo tree search over the engine's own game copies, "
             f"{DEFAULT_SIMULATIONS} simulations a decision"),
    NameForm("search:N", "search", "the search with N simulations a decision"),
    NameForm("search:Nms", "search", "the search thinking N milliseconds a decision"),
    NameForm("mixed:BASE:SHARE", "mixed", "captain BASE playing SHARE (0 to 1) of its decisions at random"),
    NameForm("tempered:BASE:T", "tempered", f"captain BASE sampling its moves at temperature T (0 to "
             f"{MAX_TEMPERATURE:g}; 0: its own most likely moves)"),
    NameForm("PATH", "model", "a training run's folder, a model .zip / RLlib .pth inside it, or an .onnx "
             "export (not served by the server, which makes captains from names only)"),
)


@dataclass(frozen=True)
class CaptainName:
    """A parsed captain name: what it makes (``kind``), on what (``base``) and with which parameters."""

    text: str
    kind: NameKind
    #: The captain a ``mixed:`` or ``tempered:`` name is built on.
    base: CaptainName | None = None
    #: ``search:N``'s simulations a decision (``search``: the default budget).
    simulations: int | None = None
    #: ``search:Nms`` and ``expert:Nms``: milliseconds a decision.
    milliseconds: float | None = None
    #: ``mixed:``'s share of random decisions.
    share: float | None = None
    #: ``tempered:``'s sampling temperature.
    temperature: float | None = None

    def __str__(self) -> str:
        return self.text

    @property
    def path(self) -> Path | None:
        """The file or folder a model name points at (None for every other kind)."""
        return Path(self.text) if self.kind == "model" else None

    def searches(self, ruleset_id: str) -> bool:
        """Whether a decision runs a search (thinking for its budget: a server runs it off its event loop):
        the search forms, ``expert:Nms``, a level whose ``search`` is above 0, and any name built on one."""
        if self.kind in ("search", "timed_expert"):
            return True
        if self.kind == "level":
            level = _level_spec(ruleset_id, self.text)
            return level is not None and level.search > 0
        return self.base is not None and self.base.searches(ruleset_id)

    def names(self) -> list[CaptainName]:
        """This name and the names it is built on, outermost first."""
        return [self, *(self.base.names() if self.base is not None else [])]


def _level_spec(ruleset_id: str, level: str) -> Level | None:
    try:
        found: Level = getattr(levels_of(ruleset_id), level)
    except ConfigError:   # a ruleset without levels: making the level says so
        return None
    return found


def search_names() -> list[str]:
    """The forms a search captain's name takes (``search``, ``search:N``, ``search:Nms``); every ruleset has it."""
    return list(SEARCH_FORMS)


def captain_names(ruleset_id: str) -> list[str]:
    """Every captain name this ruleset takes without a path: scripted, the zoo with its levels where one ships,
    and the search forms."""
    shipped = [ZOO_CAPTAIN, *LEVELS, TIMED_EXPERT_FORM] if has_zoo_captain(ruleset_id) else []
    return [*scripted_names(ruleset_id), *shipped, *search_names()]


def form_examples(ruleset_id: str) -> dict[str, str]:
    """One concrete name for every form in :data:`NAME_FORMS` (the model path: the ruleset's shipped export)."""
    from naval_agents.captains.zoo.catalogue import zoo_onnx_path

    scripted = default_opponent(ruleset_id)
    examples = {"random": "random", "SCRIPTED": scripted, ZOO_CAPTAIN: ZOO_CAPTAIN,
                **{level: level for level in LEVELS}, TIMED_EXPERT_FORM: "expert:20ms", "search": "search",
                "search:N": "search:4", "search:Nms": "search:20ms", "mixed:BASE:SHARE": f"mixed:{scripted}:0.3",
                "tempered:BASE:T": "tempered:zoo:1.5", "PATH": str(zoo_onnx_path(ruleset_id))}
    return {form.form: examples[form.form] for form in NAME_FORMS}


def _unknown(text: str, ruleset_id: str) -> UnknownCaptainError:
    return UnknownCaptainError(text, (
        f"unknown captain {text!r} for ruleset {ruleset_id!r}; use one of {captain_names(ruleset_id)}, "
        f"{MIXED_PREFIX}BASE:SHARE, {TEMPERED_PREFIX}BASE:T, a trained run's model (its folder, or a .zip / "
        "RLlib .pth inside it) or an exported .onnx file"))


def parse_captain_name(text: str, ruleset_id: str, limits: NameLimits | None = None,
                       served: Collection[str] = ()) -> CaptainName:
    """The captain ``text`` names in ``ruleset_id``; :class:`CaptainNameError` says what is wrong and what is
    allowed. ``limits``: the largest search budgets (default: the search's own). ``served``: names the caller
    serves beyond the grammar's own (a server's exported captains), kind ``served`` where no form claims them,
    so ``mixed:`` and ``tempered:`` may build on them. Nothing is opened: a model path is recognised by its
    suffix (or a run folder's ``run.json``)."""
    limits = limits or NameLimits()
    if text == "random":
        return CaptainName(text, "random")
    if text in scripted_captains(ruleset_id):
        return CaptainName(text, "scripted")
    if is_search_name(text):
        return _search_name(text, limits)
    if text == ZOO_CAPTAIN:
        return CaptainName(text, "zoo")
    if is_timed_expert(text):   # expert:Nms, the top level thinking N ms a decision (agents/captains/zoo/levels.py)
        try:
            return CaptainName(text, "timed_expert", milliseconds=parse_timed_expert(text, limits.max_milliseconds))
        except ValueError as exc:
            raise CaptainNameError(text, str(exc)) from None
    if text in LEVELS:
        return CaptainName(text, "level")
    if text.startswith(MIXED_PREFIX):
        base, share = _built_on(text, MIXED_PREFIX, 1.0, ruleset_id, limits, served,
                                "write mixed:BASE:SHARE with SHARE from 0 to 1, e.g. mixed:zoo:0.3")
        return CaptainName(text, "mixed", base=base, share=share)
    if text.startswith(TEMPERED_PREFIX):
        base, temperature = _built_on(text, TEMPERED_PREFIX, MAX_TEMPERATURE, ruleset_id, limits, served,
                                      f"write tempered:BASE:T with T from 0 to {MAX_TEMPERATURE:g}, "
                                      "e.g. tempered:zoo:1.5")
        return CaptainName(text, "tempered", base=base, temperature=temperature)
    if text in served:
        return CaptainName(text, "served")
    path = Path(text)
    if path.suffix in MODEL_SUFFIXES or (path.is_dir() and (path / "run.json").is_file()):
        return CaptainName(text, "model")
    raise _unknown(text, ruleset_id)


def _search_name(text: str, limits: NameLimits) -> CaptainName:
    """``search``, ``search:N`` or ``search:Nms`` within ``limits``; else the forms with their ranges."""
    try:
        budget = parse_search_name(text)
    except SearchNameError:
        budget = None
    within = budget is not None and (budget.simulations or 0) <= limits.max_simulations \
        and (budget.time_budget_ms or 0) <= limits.max_milliseconds
    if budget is None or not within:
        most_n, most_ms = limits.max_simulations, limits.max_milliseconds
        raise SearchCaptainNameError(text, (
            f"bad search captain {text!r}: use 'search' ({DEFAULT_SIMULATIONS} simulations a decision), "
            f"'search:N' (N simulations, 1 to {most_n}, e.g. search:{min(64, most_n)}) or 'search:Nms' "
            f"(N milliseconds a decision, 1 to {most_ms:g}, e.g. search:{min(500, most_ms):g}ms)"))
    return CaptainName(text, "search", simulations=budget.simulations, milliseconds=budget.time_budget_ms)


def _built_on(text: str, prefix: str, most: float, ruleset_id: str, limits: NameLimits, served: Collection[str],
              how: str) -> tuple[CaptainName, float]:
    """``PREFIX BASE:X``'s base name (parsed by the same grammar) and its number X, from 0 to ``most``."""
    base, _, number = text[len(prefix):].rpartition(":")
    try:
        value = float(number)
    except ValueError:
        value = -1.0
    if not base or not 0.0 <= value <= most:
        raise CaptainNameError(text, f"captain {text!r}: {how}")
    return parse_captain_name(base, ruleset_id, limits, served), value


def describe(name: CaptainName, ruleset_id: str) -> str:
    """What the named captain does, in one line (``naval-tactics list`` and the server show it)."""
    if name.kind == "scripted":
        factory = scripted_captains(ruleset_id)[name.text]
        return str(getattr(factory, "description", f"scripted {name.text}"))
    if name.kind == "zoo":
        return f"the trained captain shipped with the package (model card: agents/captains/zoo/{ruleset_id}.md)"
    if name.kind == "level":
        level = _level_spec(ruleset_id, name.text)
        return f"difficulty {name.text}" + (f": {level_play(level)}" if level is not None else "")
    if name.kind == "timed_expert":
        return f"the expert searching {name.milliseconds:g} ms a decision"
    if name.kind == "search":
        budget = (f"{name.milliseconds:g} ms" if name.milliseconds is not None
                  else f"{name.simulations} simulations")
        return f"Monte Carlo tree search over the engine's own game copies, {budget} a decision"
    if name.kind == "mixed" and name.base is not None:
        return f"{name.base} playing {name.share:.0%} of its decisions at random"
    if name.kind == "tempered" and name.base is not None:
        return f"{name.base} sampling its moves at temperature {name.temperature:g}"
    if name.kind == "served":
        return f"{name.text}, a captain its caller serves"
    return next(form.description for form in NAME_FORMS if form.kind == name.kind)


def level_play(level: Level) -> str:
    """How a difficulty level plays, in words."""
    if level.search:
        return (f"the zoo captain's move, searched with {level.search} simulations a decision (its own rollouts, "
                "judged by the ruleset's value network where one ships); a challenger replaces it only where the "
                "rollouts prove it better")
    if level.random_share >= 1.0:
        return "uniformly random legal moves"
    tempered = (f" sampling its moves from its policy at temperature {level.temperature:g} (expert: 0; "
                "higher: a flatter choice, further from its favourite moves)") if level.temperature \
        else " playing its most likely moves"
    return "the zoo captain" + tempered + (f" playing {level.random_share:.0%} of its decisions at random"
                                           if level.random_share else "")


#: Makes the captain of a plain name (not ``search``, ``expert:Nms``, ``mixed:`` or ``tempered:``).
PlainMaker = Callable[[CaptainName], Captain]


def build_captain(name: CaptainName, ruleset_id: str, action_spec: ActionSpec, seed: int | None = None,
                  config: Any = None, plain: PlainMaker | None = None) -> Captain:
    """The captain a parsed name gives. ``plain`` makes the captains of plain names (random, scripted, zoo,
    a level, a model): the server passes its catalogue's, so a client's name never opens a file; by
    default they are made here (a model path loaded)."""
    made = plain or partial(_plain_captain, ruleset_id=ruleset_id, action_spec=action_spec, seed=seed,
                            config=config)
    if name.kind == "search":
        return make_search_captain(name.text, seed=0 if seed is None else seed)
    if name.kind == "timed_expert" and name.milliseconds is not None:
        guide = made(CaptainName(ZOO_CAPTAIN, "zoo")) if has_zoo_captain(ruleset_id) else None
        return make_timed_expert(name.milliseconds, ruleset_id, seed=seed, config=config, guide=guide)
    if name.kind in ("mixed", "tempered") and name.base is not None:
        base = build_captain(name.base, ruleset_id, action_spec, seed, config, plain)
        if name.kind == "mixed":
            return MixedCaptain(base, name.share or 0.0, action_spec, name=name.text, seed=seed)
        temperature = name.temperature or 0.0
        return TemperatureCaptain(base, temperature, name=name.text, seed=seed) if temperature > 0 else base
    return made(name)


def _plain_captain(name: CaptainName, ruleset_id: str, action_spec: ActionSpec, seed: int | None,
                   config: Any) -> Captain:
    if name.kind in ("random", "scripted"):
        return make_scripted_captain(name.text, ruleset_id, action_spec, seed=seed)
    if name.kind == "zoo":
        return load_zoo_captain(ruleset_id, config)
    if name.kind == "level":
        base_captain = partial(make_captain, ruleset_id=ruleset_id, action_spec=action_spec, seed=seed, config=config)
        return make_level_captain(name.text, ruleset_id, action_spec, base_captain, seed=seed, config=config)
    if name.kind == "model":
        from naval_agents.captains.loading import load_model_captain

        return load_model_captain(Path(name.text), ruleset_id, config)
    raise ValueError(f"captain {name.text!r} ({name.kind}) is not a plain name")


def make_captain(spec: str | Captain, ruleset_id: str, action_spec: ActionSpec,
                 seed: int | None = None, config: Any = None) -> Captain:
    """A captain from a name (``random``, ``rammer``, ``search:64``, ...), a model path or an existing Captain object.

    ``config``: the ruleset config of the games, checked against an ONNX export's layouts.
    """
    if isinstance(spec, Captain):
        return spec
    return build_captain(parse_captain_name(spec, ruleset_id), ruleset_id, action_spec, seed=seed, config=config)


# The environments resolve captain names through this module (the entry point names it too).
register_resolver("naval_agents", sys.modules[__name__])  # type: ignore[arg-type]
