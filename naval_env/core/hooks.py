"""What the floors above the rules read from a ruleset, declared by the ruleset itself.

The text renderer, the board picture, the words a person reads about an option, a ship's crew and the
observation, and the name of the ruleset's strongest scripted captain are facts of one ruleset. They
live in its package and are found through its descriptor (:attr:`naval_env.core.ruleset.Ruleset.hooks`),
so a new ruleset is one folder: nothing outside it keeps a table by ruleset name (python-chess keeps a
variant's facts in the variant's class the same way).

A package laid out as the built-in ones are (``rulesets/<id>/``) gets every hook from its modules by
convention (:meth:`RulesetHooks.of_package`):

- text rendering: ``<package>.render:render_ansi``, read by ``Game.render_ansi`` and the terminal ``play``;
- board picture: ``<package>.picture:picture``, read by ``Game.render_rgb``, the replay viewer and ``/play``;
- option words: ``<package>.words:LABELS``, read by ``naval_tactics.explain`` (moves by label);
- crew in one line: ``<package>.words:crew_summary``, read by ``naval_tactics.cards`` (ship cards);
- observation notes: ``<package>.words:OBSERVATION``, read by an export's sidecar (``observation.derivation``);
- scripted captains: ``<package>.captains:CAPTAINS``, read by the captain registry for a ruleset whose captains
  are not in ``agents/captains/scripted/``;
- placement and board edge: ``<package>.placement:place`` and ``:at_board_edge``, read by the difficulty ladder's
  stall count (pursuit, an open plane, has no edge);
- strongest scripted captain: a name given to the descriptor, read by the search's rollouts, seat-paired
  reports, the scenario check and the ladder's anchors.

Modules are imported on first use, never when the ruleset registers (the picture code is not needed to
play), and a module a ruleset does not ship means the hook is absent: the floors above fall back
(component descriptions for words, an empty crew line, the first scripted captain) or, where a missing
hook would ship something wrong (an undescribed observation in an export), refuse with what is missing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from naval_env.core.events import Event
    from naval_env.core.game import Game
    from naval_env.core.scene import Scene

#: One explanation row: (component regex, label regex, text); see :class:`OptionWords`.
Row = tuple[str, str, str]
Ship = dict[str, Any]   # one ship of ``game.state_dict()["ships"]``


@dataclass(frozen=True)
class OptionWords:
    """One line on what each option of a decision does, as data (``naval_tactics.explain`` reads it).

    ``rows`` are matched in order (full matches of the component and the label); the first that matches
    explains the option. Named groups of the label regex fill the text: ``enemy`` and ``ally`` are target
    slots and become ship ids; a group named in ``parts`` becomes that part of the ship (the enemy's when
    the label names an enemy, else the deciding ship's) with its name; any other group is inserted as
    written. ``subjects`` name the components that stand for one part of the deciding ship.
    """

    rows: tuple[Row, ...] = ()
    #: group -> (state list of a ship, name field of an item, noun): ``{"weapon": ("weapons", "name", "weapon")}``.
    parts: Mapping[str, tuple[str, str, str]] = field(default_factory=dict)
    #: (component regex with the group, group): ``(r"crew_(?P<member>\d+)", "member")``.
    subjects: tuple[tuple[str, str], ...] = ()

    @cached_property
    def compiled_rows(self) -> tuple[tuple[re.Pattern[str], re.Pattern[str], str], ...]:
        """``rows`` with both regexes compiled, once per words object (a label is explained on every prompt)."""
        return tuple((re.compile(component), re.compile(label), text) for component, label, text in self.rows)


#: A label group naming a side of a ship (``port 2``, ``turn to starboard``), for option words' label regexes.
SIDE_PATTERN = r"(?P<side>port|starboard)"

#: The words of a ruleset that ships none: every option is explained by its component's own description.
NO_WORDS = OptionWords()

#: What the slot groups every ruleset's observation has mean, for its :class:`ObservationNotes` to build on.
SELF_GROUP = "the seat's own ship (one block)"
ALLY_GROUP = ("one block per other ship of the seat's side, in position order; all zeros for an empty slot "
              "or a ship no longer on the board")
ENEMY_GROUP = ("one block per enemy ship, in position order = target slot order of the actions; all zeros for "
               "an empty slot or a ship no longer on the board")


@dataclass(frozen=True)
class ObservationNotes:
    """What the observation's field table cannot say field by field: one paragraph on the ruleset's
    view and what each group of fields (``self``, ``enemyK``, ``machineK``, ...) means."""

    paragraph: str
    groups: Mapping[str, str] = field(default_factory=dict)


@cache
def _attribute(module_name: str, attribute: str) -> Any:
    """``module_name.attribute``, or None when the module is not there (the hook is absent); an import
    error inside a module that is there is raised, never taken for an absent hook. Kept once found: the stall
    count asks for a ship's place every round, and an absent module would be searched for on the path each time."""
    try:
        module = import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        return None
    return getattr(module, attribute, None)


@dataclass(frozen=True)
class RulesetHooks:
    """A ruleset's hooks (module docstring): modules found under ``package`` by convention."""

    #: The ruleset's package (``naval_env.rulesets.pantheon``); None: a ruleset with no hooks at all.
    package: str | None = None
    #: Its strongest scripted captain by its rules page's measurements (the search's rollout captain and
    #: the reference of seat-paired reports); None: the first scripted captain it lists.
    strongest_scripted: str | None = None

    @classmethod
    def of_package(cls, package: str, *, strongest_scripted: str | None = None) -> RulesetHooks:
        return cls(package=package, strongest_scripted=strongest_scripted)

    def _find(self, module: str, attribute: str) -> Any:
        return None if self.package is None else _attribute(f"{self.package}.{module}", attribute)

    def _required(self, module: str, attribute: str, what: str) -> Any:
        found = self._find(module, attribute)
        if found is None:
            raise NotImplementedError(f"this ruleset ships no {what} ({self.package}.{module}:{attribute}; "
                                      "naval_env/core/hooks.py lists the hooks)")
        return found

    def render_ansi(self, game: Game, events: list[Event]) -> str:
        text: str = self._required("render", "render_ansi", "text renderer")(game, events)
        return text

    def picture(self, game: Game) -> Scene:
        scene: Scene = self._required("picture", "picture", "board picture")(game)
        return scene

    def option_words(self) -> OptionWords:
        words: OptionWords | None = self._find("words", "LABELS")
        return words if words is not None else NO_WORDS

    def crew_summary(self) -> Callable[[Ship], str] | None:
        summary: Callable[[Ship], str] | None = self._find("words", "crew_summary")
        return summary

    def observation_notes(self) -> ObservationNotes | None:
        notes: ObservationNotes | None = self._find("words", "OBSERVATION")
        return notes

    def place(self, game: Game, agent: str) -> tuple[float, ...] | None:
        """Where ``agent``'s ship stands (position and heading, in the ruleset's units); None without the hook."""
        where: Callable[[Game, str], tuple[float, ...]] | None = self._find("placement", "place")
        return None if where is None else tuple(where(game, agent))

    def at_board_edge(self, game: Game, agent: str) -> bool | None:
        """Whether ``agent``'s ship stands at the board's edge; None for a ruleset whose board has none."""
        test: Callable[[Game, str], bool] | None = self._find("placement", "at_board_edge")
        return None if test is None else bool(test(game, agent))

    def scripted_captains(self) -> Mapping[str, Callable[[], Any]]:
        """Scripted captains shipped beside the rules (``<package>.captains:CAPTAINS``): name -> factory."""
        captains: Mapping[str, Callable[[], Any]] | None = self._find("captains", "CAPTAINS")
        return captains or {}


#: Each registered ruleset's hooks, by ruleset id: filled by :func:`naval_env.core.ruleset.register`, so the game
#: contract and the picture find them while importing neither the registry nor the rules above them.
_HOOKS: dict[str, RulesetHooks] = {}


def register_hooks(ruleset_id: str, hooks: RulesetHooks | None) -> None:
    """Keep ``hooks`` for ``ruleset_id``; None forgets them (the ruleset is unregistered)."""
    if hooks is None:
        _HOOKS.pop(ruleset_id, None)
    else:
        _HOOKS[ruleset_id] = hooks


def hooks_of(ruleset_id: str) -> RulesetHooks:
    """The registered ruleset's hooks (KeyError, naming the registered ones, for an unknown id)."""
    try:
        return _HOOKS[ruleset_id]
    except KeyError:
        raise KeyError(f"unknown ruleset {ruleset_id!r}; registered: {sorted(_HOOKS)}") from None
