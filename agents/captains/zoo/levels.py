"""Difficulty levels ``easy`` < ``normal`` < ``hard`` < ``expert``: a base captain (the zoo captain) sampling its
moves from its own policy at a temperature, so a weaker level plays like a less sure captain, not like one that
sometimes moves uniformly at random (a level may still set a share of random moves; none ships so).

Each ruleset's levels are data (``levels.yaml`` beside this file), calibrated by measurement
(``naval-tactics zoo ladder --calibrate --anchored``) against captains a player knows: ``hard`` level with the
ruleset's strongest scripted captain, ``normal`` with its weakest, ``easy`` 0.70 against ``random``
(``agents/zoo/anchors.py``).

``expert:Nms`` (N milliseconds a decision) is the top level with a thinking time an app sets: the
search captain (``agents/search``) with that time budget, trying the zoo captain's move first
where the ruleset ships one (so it refines what ``expert`` would play). ``expert`` itself stays
the calibrated captain: the ladder measured for it is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import Field, model_validator

from naval_agents.captains.base import Captain, Decision
from naval_agents.captains.search.evaluators import Evaluator
from naval_env.core.config import StrictModel, read_yaml, validate
from naval_env.core.errors import ConfigError
from naval_env.core.spaces import ActionSpec

#: The difficulty levels, easiest first.
LEVELS = ("easy", "normal", "hard", "expert")
LEVELS_FILE = Path(str(files("naval_agents.captains.zoo") / "levels.yaml"))
TIMED_EXPERT_FORM = "expert:Nms"
_TIMED_EXPERT = re.compile(r"^expert:(?P<ms>[0-9]+)ms$")


#: The highest sampling temperature a level may have (far past it the policy is as flat as random play).
MAX_TEMPERATURE = 100.0


#: The most root-search simulations a level may spend a decision (``expert``'s budget is far below it).
MAX_LEVEL_SIMULATIONS = 4096


class Level(StrictModel):
    base: str = Field(description="the captain it is built on: zoo or a scripted captain's name")
    search: int = Field(default=0, ge=0, le=MAX_LEVEL_SIMULATIONS, description=(
        "simulations a decision of the root search over the base captain (agents/captains/search/root.py): the base "
        "proposes, plays every rollout, and its move is kept unless a challenger proves better; 0: no search"))
    random_share: float = Field(default=0.0, ge=0.0, le=1.0,
                                description="share of decisions played uniformly at random")
    temperature: float = Field(default=0.0, ge=0.0, le=MAX_TEMPERATURE, description=(
        "0: the base captain's own (most likely) moves; above 0: each move sampled from the base policy's "
        "masked probabilities sharpened or flattened by 1 / temperature, so a weaker level still prefers "
        "the moves its policy rates, only less surely (the base must give probabilities: zoo, an ONNX export)"))


    @model_validator(mode="after")
    def _search_plays_the_base_as_it_is(self) -> Level:
        if self.search and (self.temperature or self.random_share):
            raise ValueError(f"a level that searches ({self.search} simulations) plays its base captain's own moves; "
                             "give it temperature 0 and random_share 0")
        return self


class RulesetLevels(StrictModel):
    easy: Level
    normal: Level
    hard: Level
    expert: Level


def is_level(name: str) -> bool:
    return name in LEVELS


def is_timed_expert(name: str) -> bool:
    """Whether ``name`` is meant as ``expert:Nms`` (``expert:`` and anything after it), valid or not."""
    return name.startswith("expert:")


def parse_timed_expert(name: str, max_ms: float | None = None) -> float:
    """The milliseconds a decision of ``expert:Nms``; a ValueError names the form and the allowed range."""
    from naval_agents.captains.search.names import MAX_TIME_BUDGET_MS

    most = MAX_TIME_BUDGET_MS if max_ms is None else max_ms
    found = _TIMED_EXPERT.match(name)
    if found is None or not 1 <= int(found["ms"]) <= most:
        raise ValueError(f"bad level {name!r}: write expert:Nms with N the milliseconds a decision, 1 to {most:g} "
                         "(e.g. expert:500ms), or plain expert")
    return float(found["ms"])


def make_timed_expert(milliseconds: float, ruleset_id: str, seed: int | None = None, config: Any = None,
                      guide: Captain | None = None) -> Captain:
    """``expert:Nms``: search for ``milliseconds`` a decision, trying ``guide``'s move first (default: the
    shipped zoo captain where there is one, else the search's rollout captain)."""
    from naval_agents.captains.zoo.catalogue import (
        has_zoo_captain,
        load_zoo_captain,
        load_zoo_value_leaf,
    )

    if guide is None and has_zoo_captain(ruleset_id):
        guide = load_zoo_captain(ruleset_id, config)
    return searching_captain(guide, None, milliseconds, seed, f"expert:{milliseconds:g}ms",
                             load_zoo_value_leaf(ruleset_id, config))


def searching_captain(base: Captain | None, simulations: int | None, milliseconds: float | None,
                      seed: int | None, name: str, value: Evaluator | None = None) -> Captain:
    """The root search over ``base``: its prior and its rollout captain (a numpy copy of an ONNX policy, the
    same moves faster); without a base, the search's own default rollout captain. With ``value`` (the ruleset's
    value network) rollouts stop after a few decisions and it judges the position; else hull fractions after
    more decisions do."""
    from naval_agents.captains.search import SearchCaptain
    from naval_agents.captains.search.captain import DEFAULT_ROLLOUT_DEPTH, VALUE_ROLLOUT_DEPTH
    from naval_agents.captains.search.evaluators import hull_values
    from naval_agents.captains.search.fast_policy import fast_copy

    player = None if base is None else fast_copy(base)
    depth = DEFAULT_ROLLOUT_DEPTH if value is None else VALUE_ROLLOUT_DEPTH
    return SearchCaptain(simulations, milliseconds, seed=0 if seed is None else seed, proposer=player,
                         rollout=player, name=name, leaf=value or hull_values, rollout_depth=depth)


@cache
def _all_levels(path: Path) -> dict[str, RulesetLevels]:
    data = read_yaml(path)
    return {ruleset: validate(RulesetLevels, levels, f"{path}: {ruleset}") for ruleset, levels in data.items()}


def levels_of(ruleset_id: str, path: Path = LEVELS_FILE) -> RulesetLevels:
    levels = _all_levels(path)
    if ruleset_id not in levels:
        raise ConfigError(f"{path}: no difficulty levels for ruleset {ruleset_id!r} (have {sorted(levels)}): levels "
                          f"are built on a shipped zoo captain; build one with: naval-tactics zoo build --ruleset "
                          f"{ruleset_id}, then calibrate them with: naval-tactics zoo ladder --ruleset {ruleset_id} "
                          "--calibrate --anchored")
    return levels[ruleset_id]


class MixedCaptain(Captain):
    """Plays ``random_share`` of its decisions uniformly among the legal actions, the rest as ``base``.

    The coin and the random moves come from its own generator, re-seeded by :meth:`reset`, so a game
    replays exactly from its seed.
    """

    def __init__(self, base: Captain, random_share: float, action_spec: ActionSpec, name: str,
                 seed: int | None = None) -> None:
        if not 0.0 <= random_share <= 1.0:
            raise ValueError(f"random_share {random_share} is not within 0..1")
        self.base = base
        self.random_share = random_share
        self.spec = action_spec
        self.name = name
        self.needs_observation = base.needs_observation
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.base.reset(seed)
        if seed is not None:
            # A stream of its own, not the base captain's: the same seed must not couple the two.
            self._rng = np.random.default_rng([seed, 0x5EED])

    def act(self, decision: Decision) -> np.ndarray:
        if self.random_share > 0.0 and self._rng.random() < self.random_share:
            return self.spec.sample(decision.action_mask, self._rng)
        return self.base.act(decision)


class TemperatureCaptain(Captain):
    """Samples each action component from the base policy's masked probabilities at ``temperature``
    (``p ** (1 / T)``, renormalised: softmax of the logits over T). Low temperatures play the policy's
    favourite moves; high ones spread over the moves it rates lower, never onto a masked one.

    The draws come from its own generator, re-seeded by :meth:`reset`, so a game replays from its seed.
    """

    def __init__(self, base: Captain, temperature: float, name: str, seed: int | None = None) -> None:
        if not 0.0 < temperature <= MAX_TEMPERATURE:
            raise ValueError(f"temperature {temperature} is not within (0, {MAX_TEMPERATURE:g}]")
        if type(base).probabilities is Captain.probabilities:   # the protocol's default: no distribution
            raise ConfigError(f"captain {base.name!r} gives no move probabilities, so it cannot play at a "
                              "temperature; build the level on zoo or an ONNX export")
        self.base = base
        self.temperature = temperature
        self.name = name
        self.needs_observation = True
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.base.reset(seed)
        if seed is not None:
            self._rng = np.random.default_rng([seed, 0x7E4])

    def act(self, decision: Decision) -> np.ndarray:
        choices = []
        for probabilities in self.base.probabilities(decision) or []:
            tempered = np.where(probabilities > 0, probabilities, 0.0) ** (1.0 / self.temperature)
            total = tempered.sum()
            if not total > 0:   # underflow at a very low temperature: the favourite move
                choices.append(int(np.argmax(probabilities)))
                continue
            choices.append(int(self._rng.choice(len(tempered), p=tempered / total)))
        return np.asarray(choices, dtype=np.int64)


def level_captain(base: Captain, level: Level, action_spec: ActionSpec, name: str,
                  seed: int | None = None, value: Evaluator | None = None) -> Captain:
    """``base`` as ``level`` plays it: searching over it (if the level searches; ``value``: the ruleset's value
    leaf, see :func:`searching_captain`), else at its temperature (if any), then with its share of random moves."""
    if level.search:
        return searching_captain(base, level.search, None, seed, name, value)
    played = TemperatureCaptain(base, level.temperature, name, seed) if level.temperature > 0 else base
    return MixedCaptain(played, level.random_share, action_spec, name=name, seed=seed)


def make_level_captain(level: str, ruleset_id: str, action_spec: ActionSpec, base_captain: Callable[[str], Captain],
                       seed: int | None = None, levels: RulesetLevels | None = None, config: Any = None) -> Captain:
    """The captain of difficulty ``level`` in ``ruleset_id`` (``levels``: override the shipped table).

    ``base_captain`` makes the level's base captain from its name (``zoo`` or a scripted captain's):
    the name registry above passes its own ``make_captain``, so this module never imports it back.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown difficulty level {level!r}; levels: {', '.join(LEVELS)}")
    spec: Level = getattr(levels or levels_of(ruleset_id), level)
    if spec.base in LEVELS:
        raise ConfigError(f"difficulty level {level!r} of {ruleset_id} is built on another level ({spec.base!r})")
    base = base_captain(spec.base)
    value = None
    if spec.search:
        from naval_agents.captains.zoo.catalogue import load_zoo_value_leaf

        value = load_zoo_value_leaf(ruleset_id, config)
    return level_captain(base, spec, action_spec, name=level, seed=seed, value=value)
