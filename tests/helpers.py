"""Helpers the suite's modules share: config and position refusals, a loaded position, scripted play, a replay.

A helper used by one module stays in that module; one a ruleset's tests share stays in ``tests/<id>/helpers.py``
and calls these. ``naval_env.testing`` holds what the package itself offers tests (events, labels)."""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest
import yaml

from naval_env.core.config import validate
from naval_env.core.errors import ConfigError
from naval_env.core.events import Event
from naval_env.core.game import Game
from naval_env.core.position import PositionError

G = TypeVar("G", bound=Game)


@cache
def _parsed(path: str, text: str) -> Any:
    return yaml.safe_load(text)


def yaml_copy(path: str | Path) -> dict[str, Any]:
    """The YAML file at ``path`` as plain data, a fresh copy each call (pure-Python YAML parsing is slow, so each
    text is parsed once)."""
    return copy.deepcopy(_parsed(str(path), Path(path).read_text(encoding="utf-8")))


def config_refusal(schema: type, data: dict[str, Any]) -> str:
    """The message of the :class:`ConfigError` that validating ``data`` against ``schema`` raises (the test fails
    when it validates)."""
    with pytest.raises(ConfigError) as error:
        validate(schema, data, "test")
    return str(error.value)


def position_refusal(ruleset: Any, data: Any, *args: Any, **kwargs: Any) -> list[tuple[str, str]]:
    """(path, message) of every problem of the :class:`PositionError` that ``ruleset.load_position(data, ...)``
    raises, in order (the test fails when the position loads)."""
    with pytest.raises(PositionError) as error:
        ruleset.load_position(data, *args, **kwargs)
    return [(problem.path, problem.message) for problem in error.value.problems]


def loaded(ruleset: Any, game_type: type[G], data: Any, *args: Any, check: Callable[[G], None] | None = None,
           **kwargs: Any) -> G:
    """``ruleset.load_position(data, ...)``, checked to be a ``game_type`` (and by ``check``, the ruleset's
    invariants, where given)."""
    game = ruleset.load_position(data, *args, **kwargs)
    assert isinstance(game, game_type), f"load_position gave a {type(game).__name__}, not a {game_type.__name__}"
    if check is not None:
        check(game)
    return game


def apply_checked(game: G, action: np.ndarray, check: Callable[[G], None]) -> list[Event]:
    """Apply ``action`` for the captain whose decision it is, then ``check`` the game (the ruleset's invariants)."""
    agent = game.current_agent
    assert agent is not None, "the game is over"
    events = game.apply(agent, action)
    check(game)
    return events


def played_replay(ruleset: str, folder: Path, seed: int = 3, scenario: str | None = None) -> Path:
    """A real game of ``ruleset`` between its scripted captains (not the random one), written as a replay."""
    # Imported here: the rules tests import this module, and need none of the captains' or evaluation's modules.
    from naval_agents.captains.arena import play_game
    from naval_agents.captains.registry import make_captain, scripted_names
    from naval_agents.evaluation.replay import write_replay
    from naval_env.envs.match import Match

    match = Match(ruleset, None, scenario)
    names = scripted_names(ruleset)[1:]
    captains = {side: make_captain(names[i % len(names)], ruleset, match.action_spec, seed=i)
                for i, side in enumerate(match.game.sides)}
    return write_replay(folder / f"{ruleset}.jsonl", play_game(match, captains, seed=seed), ruleset=ruleset,
                        scenario=scenario)


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of the JSON-like ``value`` with the item at ``path`` (keys and indices) set to ``new``."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    copied = list(value)
    copied[head] = replaced(copied[head], rest, new)
    return copied


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def assert_png(path: Path, min_size: tuple[int, int] = (500, 300), max_size: tuple[int, int] = (2500, 2000)) -> None:
    """A real PNG of a size a person can read: signature, decodable, and neither a thumbnail nor a poster."""
    from PIL import Image

    assert path.is_file(), path
    assert path.read_bytes()[:8] == PNG_SIGNATURE, path
    with Image.open(path) as image:
        image.verify()
    with Image.open(path) as image:
        width, height = image.size
        pixels = np.asarray(image.convert("L"))
    assert min_size[0] <= width <= max_size[0] and min_size[1] <= height <= max_size[1], (path, image.size)
    assert pixels.std() > 10, f"{path} is nearly blank"


def _parsers(parser: argparse.ArgumentParser, name: str) -> list[tuple[str, argparse.ArgumentParser]]:
    found = [(name, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                found += _parsers(sub, f"{name} {sub_name}")
    return found


def every_parser() -> list[tuple[str, argparse.ArgumentParser]]:
    """Every command's parser and each of its subcommands', named as typed (``naval-tactics zoo build``): the
    ``naval-tactics`` command and the scripts with parsers of their own."""
    from naval_agents.export.__main__ import _parser as export_parser
    from naval_tactics import cli
    from naval_tactics.commands import atlas, evaluate, league, train, zoo

    found = _parsers(cli.build_parser(), "naval-tactics")
    for name, parser in (("train", train.make_parser()), ("evaluate", evaluate.make_parser()),
                         ("zoo", zoo.make_parser()), ("league", league.make_parser()),
                         ("atlas", atlas.make_parser()), ("export", export_parser())):
        found += _parsers(parser, name)
    return found
