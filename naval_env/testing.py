"""Helpers for rules tests with scripted dice, shared by every ruleset's test suite.

A rules test builds a game on :class:`naval_env.core.dice.ScriptedDice`, scripts the
faces the next rolls will show, applies actions built from component labels, and
checks the exact events. These helpers read only the contract (``Game``,
``ActionSpec``, events), so a new ruleset's tests can use them unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from naval_env.core.dice import ScriptedDice
from naval_env.core.events import DamageDealt, Event
from naval_env.core.game import Game


def script(game: Game, *faces: int) -> None:
    """Append ``faces`` to the game's scripted dice, for rolls made later in the game."""
    dice = getattr(game, "dice", None)
    if not isinstance(dice, ScriptedDice):
        raise TypeError(f"the game rolls {type(dice).__name__}, not ScriptedDice; build it with scripted dice")
    dice.extend(faces)


def label_index(game: Game, component: str, label: str) -> int:
    """The value of ``label`` in action component ``component``."""
    spec = game.action_spec
    labels = spec.components[spec.index(component)].labels
    if label not in labels:
        raise KeyError(f"{component!r} has no value {label!r}; values: {labels[:20]}")
    return labels.index(label)


def allowed(game: Game, component: str, label: str) -> bool:
    """Whether the captain holding the decision may choose ``label`` for ``component`` now."""
    agent = _deciding(game)
    spec = game.action_spec
    return bool(game.legal_mask(agent)[spec.offsets[spec.index(component)] + label_index(game, component, label)])


def allowed_labels(game: Game, component: str) -> list[str]:
    """Every label of ``component`` the captain holding the decision may choose now."""
    agent = _deciding(game)
    spec = game.action_spec
    i = spec.index(component)
    part = spec.split(game.legal_mask(agent))[i]
    return [spec.components[i].labels[k] for k in np.flatnonzero(part)]


def events_of(events: list[Event], cls: type) -> list[Any]:
    return [e for e in events if isinstance(e, cls)]


def damage_list(events: list[Event]) -> list[tuple[str, int, str | None, str]]:
    """(target, amount, source, cause) of every DamageDealt, in order."""
    return [(e.target, e.amount, e.source, e.cause) for e in events if isinstance(e, DamageDealt)]


def random_legal_positions(ruleset_id: str, scenarios: tuple[str, ...], seeds: range) -> Iterator[Game]:
    """The game at every decision of random-legal games (seeded dice; actions drawn from a generator of
    the same seed), for tests that check a shortcut against the plain rules wherever games go."""
    from naval_env.core.ruleset import get_ruleset

    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    for scenario in scenarios:
        for seed in seeds:
            game = ruleset.new_game(config, scenario, seed=seed)
            rng = np.random.default_rng(seed)
            while not game.is_over:
                yield game
                agent = _deciding(game)
                game.apply(agent, game.action_spec.sample(game.legal_mask(agent), rng))


def _deciding(game: Game) -> str:
    agent = game.current_agent
    if agent is None:
        raise AssertionError("no captain holds a decision: the game is over")
    return agent
