"""One line on what each option of a decision does, for people choosing moves by label.

The explanations are data each ruleset ships (its ``words.py``, read through its hooks:
:class:`naval_env.core.hooks.OptionWords`): rows of ``(component regex, label regex, text)``
matched in order (full matches); the first row that matches a component and a label
explains it. Named groups of the label regex fill the text: ``enemy`` and ``ally`` are
slots (the captain's enemies or own other ships, in side order) and become ship ids;
a group named in the ruleset's ``parts`` (``weapon``, ``member``, ``machine``) becomes
that part of the ship (the enemy's when the label names an enemy, else the deciding
ship's) with its name; any other group is inserted as written. A ruleset that ships no
words gets each component's own description.
"""

from __future__ import annotations

import re
from typing import Any

from naval_env.core.game import Game, ShipBattle
from naval_env.core.hooks import hooks_of
from naval_env.core.spaces import ActionComponent


def explain_label(ruleset_id: str, component: str, label: str) -> tuple[str, dict[str, str]] | None:
    """The first row's text for ``label`` of ``component`` with the label's groups, or None if no row matches."""
    for component_re, label_re, text in hooks_of(ruleset_id).option_words().compiled_rows:
        if component_re.fullmatch(component):
            found = label_re.fullmatch(label)
            if found:
                return text, found.groupdict()
    return None


class Explainer:
    """Explains the options of one decision: slots become ship ids, parts their names (state read once)."""

    def __init__(self, game: Game, agent: str) -> None:
        self.game = game
        self.agent = agent
        self._ships: dict[str, Any] | None = None

    def option(self, component: ActionComponent, label: str) -> str:
        """What choosing ``label`` for ``component`` does (the component's description if no row matches)."""
        found = explain_label(self.game.ruleset_id, component.name, label)
        if found is None:
            return component.description
        text, groups = found
        enemy = groups.get("enemy")
        return text.format(**{name: self._resolve(name, value, enemy) for name, value in groups.items()})

    def subject(self, component: ActionComponent) -> str | None:
        """The part of the deciding ship a component stands for (``crew member 2 (gunner)``), if any."""
        for pattern, group in hooks_of(self.game.ruleset_id).option_words().subjects:
            found = re.fullmatch(pattern, component.name)
            if found:
                return self._resolve(group, found.group(group), None)
        return None

    def _slot(self, kind: str, index: int) -> str:
        game = self.game
        if isinstance(game, ShipBattle):
            ship = game.state.ships[self.agent]
            ships = game.enemies_of(ship) if kind == "enemy" else game.allies_of(ship)
            if index < len(ships):
                return str(ships[index].id)
        return f"{kind} slot {index} (empty)"

    def _resolve(self, name: str, value: str | None, enemy: str | None) -> str:
        if value is None:
            return ""
        if name in ("enemy", "ally"):
            return self._slot(name, int(value))
        part = hooks_of(self.game.ruleset_id).option_words().parts.get(name)
        if part is None:
            return value
        key, field, noun = part
        owner = self._slot("enemy", int(enemy)) if enemy is not None else self.agent
        if self._ships is None:
            self._ships = self.game.state_dict()["ships"]
        items: Any = self._ships.get(owner, {}).get(key, [])
        index = int(value)
        if index < len(items):
            return f"{noun} {index} ({items[index][field]})"
        return f"{noun} {index}"
