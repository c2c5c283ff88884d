"""The clone contract on every ruleset and scenario: ``Game.clone()`` is an independent copy that plays on
exactly as its original does, and it is cheap (at most three decisions' ``apply`` in
function calls: counted, not timed).

A search plays thousands of clones of one game: a clone that shares any mutable part with its original
would let a simulated line of play leak into the real game, and one that copies what never changes would
be too slow to search with.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import random
import sys
import types
from collections.abc import Callable, Iterator
from enum import Enum
from typing import Any

import numpy as np
import pytest

from naval_env.core.dice import Dice, DiceExhaustedError, ScriptedDice
from naval_env.core.game import Game, ShipBattle
from naval_env.core.ruleset import get_ruleset, ruleset_ids

RULESETS = ruleset_ids()
ALL_SCENARIOS = [(r, s) for r in RULESETS for s in get_ruleset(r).scenarios(get_ruleset(r).load_config())]

#: Per-game values each engine shares with its clones on purpose, by attribute path: set once per game (or
#: replaced whole, never written into) and pure functions of immutable inputs. Everything else a game holds
#: must be its own, apart from the config, action tables, observation spec and scenario of every game.
SHARED_BY_DESIGN: dict[str, tuple[str, ...]] = {
    "pantheon": ("_mask", "_masks"),
    "pursuit": ("_mask", "_reaches", "_command_choices", "_observer._facts"),
    "crew_phase": ("_mask", "observer_constants", "_enemy_slot"),
    "broadside": ("_mask", "_maneuver_masks", "_vessels"),
    "flotilla": ("_mask", "_noop", "observer_tables"),
}


# ----------------------------------------------------------------------------------------------- helpers
def random_action(game: Game, rng: np.random.Generator) -> tuple[str, np.ndarray]:
    agent = game.current_agent
    assert agent is not None
    return agent, game.action_spec.sample(game.legal_mask(agent), rng)


def snapshot(game: Game) -> dict[str, Any]:
    """Everything a caller can see of a game, dice included (the generator's state and the history)."""
    return {
        "state": game.state_dict(),
        "position": game.position(),
        "flow": (game.current_agent, game.is_over, game.winner, game.truncated, game.round),
        "health": [game.health(a) for a in game.agents],
        "active": [game.is_active(a) for a in game.agents],
        "masks": [game.legal_mask(a).tolist() for a in game.agents],
        "observations": [game.observe(a).tobytes() for a in game.agents],
        "dice": (game.dice._rng.getstate(), list(game.dice.history)),
    }


def assert_same(a: Game, b: Game) -> None:
    left, right = snapshot(a), snapshot(b)
    for key in left:
        assert right[key] == left[key], f"the clone differs from its original in {key}"


def random_points(ruleset_id: str, scenario: str, seed: int, points: int) -> Iterator[Game]:
    """A random legal game of ``scenario``, yielded at about ``points`` decisions spread over it, and at its end."""
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    length = _length(ruleset_id, scenario, seed)
    every = max(1, length // points)
    game = ruleset.new_game(config, scenario, seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while not game.is_over:
        if step % every == 0:
            yield game
        game.apply(*random_action(game, rng))
        step += 1
    yield game


def _length(ruleset_id: str, scenario: str, seed: int) -> int:
    ruleset = get_ruleset(ruleset_id)
    game = ruleset.new_game(ruleset.load_config(), scenario, seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    while not game.is_over:
        game.apply(*random_action(game, rng))
        steps += 1
    return steps


def play_in_lockstep(original: Game, clones: list[Game], rng: np.random.Generator, steps: int) -> None:
    """Play ``steps`` random legal decisions on ``original`` and the same on every clone: the same events
    and the same state after every decision, and everything the same (:func:`snapshot`) at the end."""
    for _ in range(steps):
        if original.is_over:
            break
        agent, action = random_action(original, rng)
        events = original.apply(agent, action)
        state = original.state_dict()
        for clone in clones:
            assert clone.apply(agent, action.copy()) == events
            assert clone.state_dict() == state
    for clone in clones:
        assert_same(original, clone)


# ------------------------------------------------------------------------------------------- the dice
def test_a_dice_clone_rolls_what_its_original_rolls_and_keeps_its_own_history() -> None:
    dice = Dice(12)
    dice.roll(6, 3, "before")
    twin = dice.clone()
    assert twin.history == dice.history and twin.history is not dice.history
    assert twin.seed == 12
    rolls = [(dice.roll(6, 2, "a"), dice.d(20, "b"), dice.choice_index(7, "c")) for _ in range(50)]
    assert len(dice.history) == 1 + 150 and len(twin.history) == 1  # the original's rolls left the clone alone
    assert [(twin.roll(6, 2, "a"), twin.d(20, "b"), twin.choice_index(7, "c")) for _ in range(50)] == rolls
    assert twin.history == dice.history
    assert type(twin) is Dice


def test_a_scripted_dice_clone_has_its_own_faces() -> None:
    dice = ScriptedDice([4, 2, 6, 1, 3])
    assert dice.roll(6, 2) == (4, 2)
    twin = dice.clone()
    assert type(twin) is ScriptedDice and twin.remaining == 3
    twin.extend([5, 5])
    assert (twin.remaining, dice.remaining) == (5, 3)
    assert twin.roll(6, 5) == (6, 1, 3, 5, 5)
    assert dice.remaining == 3 and dice.history == twin.history[:1]
    assert dice.roll(6, 3) == (6, 1, 3)
    with pytest.raises(DiceExhaustedError, match="ran out after 5 rolls"):
        dice.d(6)
    with pytest.raises(DiceExhaustedError, match="ran out after 7 rolls"):
        twin.d(6)


# ----------------------------------------------------------------------------------- the games: equal
@pytest.mark.parametrize(("ruleset_id", "scenario"), ALL_SCENARIOS)
def test_clones_play_on_exactly_as_their_original(ruleset_id: str, scenario: str) -> None:
    """Cloned at many points of a random game (and clones of clones), each clone given the same moves
    rolls the same dice and stays equal to the original to the end: events, state, position, masks,
    observations and dice."""
    ruleset = get_ruleset(ruleset_id)
    game = ruleset.new_game(ruleset.load_config(), scenario, seed=3)
    clones = [game.clone()]
    assert_same(game, clones[0])
    rng = np.random.default_rng(3)
    every = max(1, _length(ruleset_id, scenario, 3) // 8)
    made = 1
    while not game.is_over:
        play_in_lockstep(game, clones, rng, every)
        # Two new clones, one of them of a clone already played on; the oldest ones, checked, retire.
        clones = [*clones[-2:], game.clone(), clones[-1].clone()]
        made += 2
        assert_same(game, clones[-1])
    assert made >= 9


@pytest.mark.parametrize(("ruleset_id", "scenario"), ALL_SCENARIOS)
def test_playing_a_clone_never_touches_its_original_nor_the_other_way(ruleset_id: str, scenario: str) -> None:
    """At points of a random game: a clone played to its end (on other moves) leaves the original and a
    second clone as they were, dice included; then the original plays on, and leaves every clone as it
    was, while the second clones, given the original's moves, follow it to the end."""
    ruleset = get_ruleset(ruleset_id)
    game = ruleset.new_game(ruleset.load_config(), scenario, seed=5)
    length = _length(ruleset_id, scenario, 5)
    points = {length * k // 4 for k in range(4)}
    rng = np.random.default_rng(5)
    played: list[tuple[Game, dict[str, Any]]] = []
    followers: list[Game] = []
    step = 0
    while True:
        if step in points or game.is_over:
            before = snapshot(game)
            clone, sibling = game.clone(), game.clone()
            other_moves = np.random.default_rng(100 + step)
            while not clone.is_over:
                clone.apply(*random_action(clone, other_moves))
            assert snapshot(game) == before, "playing a clone changed its original"
            assert snapshot(sibling) == before, "playing a clone changed another clone"
            played.append((clone, snapshot(clone)))
            followers.append(sibling)
        if game.is_over:
            break
        agent, action = random_action(game, rng)
        events = game.apply(agent, action)
        for follower in followers:
            assert follower.apply(agent, action.copy()) == events
        step += 1
    for clone, after in played:
        assert snapshot(clone) == after, "playing the original changed a clone"
    for follower in followers:
        assert_same(game, follower)
    assert len(played) >= 4


@pytest.mark.parametrize(("ruleset_id", "scenario"), ALL_SCENARIOS)
def test_clones_of_loaded_positions_play_on_exactly_as_their_original(ruleset_id: str, scenario: str) -> None:
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    checked = 0
    for point, game in enumerate(random_points(ruleset_id, scenario, seed=7, points=3)):
        if game.is_over:
            continue
        loaded = ruleset.load_position(game.position(), config, seed=point)
        clone = loaded.clone()
        assert_same(loaded, clone)
        play_in_lockstep(loaded, [clone], np.random.default_rng(point), 10_000)
        assert loaded.is_over and clone.is_over
        checked += 1
    assert checked >= 3


def test_clones_of_scripted_dice_games_use_their_own_faces() -> None:
    """A game on scripted dice (its faces recorded from a seeded game): the clone consumes its own copy of
    the faces, and faces added to the clone's dice are not the original's."""
    for ruleset_id in RULESETS:
        ruleset = get_ruleset(ruleset_id)
        config = ruleset.load_config()
        recorded = ruleset.new_game(config, seed=9)
        rng = np.random.default_rng(9)
        moves = []
        while not recorded.is_over:
            moves.append(random_action(recorded, rng))
            recorded.apply(*moves[-1])
        faces = [face for roll in recorded.dice.history for face in roll.values]
        dice = ScriptedDice(faces)
        game = ruleset.new_game(config, dice=dice)
        half = len(moves) // 2
        for agent, action in moves[:half]:
            game.apply(agent, action)
        clone = game.clone()
        twin = clone.dice
        assert isinstance(twin, ScriptedDice) and twin is not dice
        left = dice.remaining
        twin.extend([1, 1, 1])
        assert (dice.remaining, twin.remaining) == (left, left + 3)
        for agent, action in moves[half:]:
            assert clone.apply(agent, action) == game.apply(agent, action)
        assert clone.state_dict() == game.state_dict() == recorded.state_dict()
        assert (dice.remaining, twin.remaining) == (0, 3), ruleset_id


# ------------------------------------------------------------------------- the games: nothing shared
def _reachable(root: Any, stop: set[int]) -> dict[int, tuple[Any, str]]:
    """Every mutable object reachable from ``root`` (not through ``stop``), by id, with the first path to it.

    Immutable values (numbers, strings, enums, tuples, frozen dataclasses) are walked through but not
    listed; lists, dicts, sets, writeable arrays, random generators and objects with mutable attributes
    are listed. Bound methods are walked to the object they are bound to.
    """
    found: dict[int, tuple[Any, str]] = {}
    seen: set[int] = set()
    stack: list[tuple[Any, str]] = [(root, "game")]
    while stack:
        obj, path = stack.pop()
        if id(obj) in seen or id(obj) in stop:
            continue
        seen.add(id(obj))
        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes, Enum, range)):
            continue
        if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType)):
            continue
        if isinstance(obj, types.MethodType):
            stack.append((obj.__self__, f"{path}.__self__"))
        elif isinstance(obj, (tuple, frozenset)):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(obj))
        elif isinstance(obj, (list, set)):
            found[id(obj)] = (obj, path)
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(obj))
        elif isinstance(obj, dict):
            found[id(obj)] = (obj, path)
            for key, value in obj.items():
                stack.append((key, f"{path}<key {key!r}>"))
                stack.append((value, f"{path}[{key!r}]"))
        elif isinstance(obj, np.ndarray):
            if obj.flags.writeable:
                found[id(obj)] = (obj, path)
        elif isinstance(obj, random.Random):
            found[id(obj)] = (obj, path)
        else:
            attributes = dict(vars(obj)) if hasattr(obj, "__dict__") else {}
            for cls in type(obj).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if hasattr(obj, name) and name not in ("__dict__", "__weakref__"):
                        attributes[name] = getattr(obj, name)
            if not attributes:
                continue  # an opaque built-in value (a struct.Struct, a compiled pattern): nothing to walk
            frozen = dataclasses.is_dataclass(obj) and type(obj).__dataclass_params__.frozen  # type: ignore[union-attr]
            if not frozen:
                found[id(obj)] = (obj, path)
            stack.extend((value, f"{path}.{name}") for name, value in attributes.items())
    return found


def _shared_roots(game: Any, ruleset_id: str) -> list[Any]:
    roots = [game.config, game.actions, game.action_spec, game.observation_spec, game.scenario]
    for path in SHARED_BY_DESIGN[ruleset_id]:
        value = game
        for name in path.split("."):
            value = getattr(value, name, None)
        roots.append(value)
    config_module = importlib.import_module(f"naval_env.rulesets.{ruleset_id}.config")
    if hasattr(config_module, "derived_tables"):  # tables built once per config, for all its games
        roots.append(config_module.derived_tables(game.config))
    return roots


@pytest.mark.parametrize(("ruleset_id", "scenario"), ALL_SCENARIOS)
def test_a_clone_shares_no_mutable_object_with_its_original(ruleset_id: str, scenario: str) -> None:
    """Walks both games object by object: apart from what is shared by design, nothing mutable that one
    game reaches is reached by the other (a new per-game cache that refers to the state fails here)."""
    for game in random_points(ruleset_id, scenario, seed=13, points=5):
        assert isinstance(game, ShipBattle)
        for agent in game.agents:
            game.observe(agent)  # observer caches exist from the first observation on
        game.legal_mask(game.current_agent or game.agents[0])
        clone: ShipBattle = game.clone()
        stop: set[int] = set()
        for root in _shared_roots(game, ruleset_id):
            stop |= {id(root)} | _reachable(root, set()).keys()
        mine, theirs = _reachable(game, stop), _reachable(clone, stop)
        shared = [path for key, (_, path) in theirs.items() if key in mine]
        assert not shared, f"the clone shares mutable objects with its original: {sorted(shared)[:5]}"
        assert clone.state.ships.keys() == game.state.ships.keys()
        for agent in clone.agents:  # the clone's indices point at its own ships
            ship = clone.state.ships[agent]
            assert all(clone.state.ships[s.id] is s for s in clone.enemies_of(ship) + clone.allies_of(ship))


# --------------------------------------------------------------------------------------- the cost
def _calls_per_apply(ruleset_id: str, decisions: int, copier: Callable[[Game], object]) -> float:
    """Function calls (Python and C) made by ``copier`` per call made by ``apply``, at the same random-legal
    positions. Counted with ``sys.setprofile``, so the number is the same on a quiet or a loaded machine (the
    seconds are ``bench/decision_costs.py``'s job)."""
    ruleset = get_ruleset(ruleset_id)
    config = ruleset.load_config()
    rng = np.random.default_rng(0)
    calls = {"copy": 0, "apply": 0}
    counting = ""

    def count(frame: object, event: str, arg: object) -> None:
        if counting and event in ("call", "c_call"):
            calls[counting] += 1

    done = seed = 0
    while done < decisions:
        game = ruleset.new_game(config, seed=seed)
        seed += 1
        while not game.is_over and done < decisions:
            agent, action = random_action(game, rng)
            sys.setprofile(count)
            try:
                counting = "copy"
                copier(game)
                counting = "apply"
                game.apply(agent, action)
            finally:
                counting = ""
                sys.setprofile(None)
            done += 1
    return calls["copy"] / calls["apply"]


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_a_clone_costs_at_most_three_decisions(ruleset_id: str) -> None:
    """A clone does at most three decisions' worth of calls (0.07-1.09 measured); the deep copy it replaced does 90-8,000, which this
    count catches. The copier calls each engine's own ``clone`` (``Game.clone`` is the abstract method, whose
    body is a docstring: counting it timed a call that returns None)."""
    ratio = _calls_per_apply(ruleset_id, 200, lambda game: game.clone())
    assert ratio <= 3.0, f"a clone makes {ratio:.2f}x the calls of an apply"
    deep = _calls_per_apply(ruleset_id, 10, copy.deepcopy)
    floor = _calls_per_apply(ruleset_id, 20, lambda game: None)   # the count of a copier that does nothing
    assert ratio > 4 * floor, f"the clone's count {ratio:.3f} is no more than a no-op's {floor:.3f}: not counted"
    assert deep > 3.0 > ratio, f"a deep copy makes {deep:.1f}x the calls of an apply, a clone {ratio:.2f}x"
