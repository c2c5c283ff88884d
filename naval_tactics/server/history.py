"""A kept game from what replays it: its start (scenario or position, and seed) and its turns.

:func:`start_session` makes a new game; :func:`replay` applies stored turns to a session, asking each
captain that was consulted again, so its own generator is where it was when the game was stored: a
game rebuilt after a restart (or in another worker) goes on exactly as it would have. A search
captain (``expert:Nms``) is not asked again: it thinks for a time, not a fixed amount, and each of its
decisions starts from its own seed (:mod:`naval_tactics.server.searches`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

import numpy as np

from naval_env.core.position import PositionError
from naval_tactics.catalogue import Catalogue, RulesetEntry, UnknownNameError
from naval_tactics.decisions import propose
from naval_tactics.server.store import GameSession, Turn


class NotReplayableError(Exception):
    """A stored game this server cannot rebuild (its ruleset, config or captains changed since)."""


def start_session(entry: RulesetEntry, game_id: str, scenario: str | None, position: Mapping[str, Any] | None,
                  seed: int, now: float) -> GameSession:
    """A new session: ``scenario`` (a known name) when ``position`` is None, else the position.
    Raises :class:`~naval_env.core.position.PositionError` for a position the ruleset refuses."""
    if position is None:
        assert scenario is not None
        game = entry.ruleset.new_game(entry.config, scenario, seed=seed)
        return GameSession(game_id, entry, game, seed, scenario, list(getattr(game, "opening_events", [])), now)
    start = dict(position)
    game = entry.ruleset.load_position(dict(start), entry.config, seed=seed)
    return GameSession(game_id, entry, game, seed, str(game.position()["scenario"]), [], now, start=start)


def config_digest(entry: RulesetEntry) -> str:
    """sha256 of the served config as JSON: a stored game replays only under the config it was played with."""
    return _digest(entry.id, entry.config.model_dump_json())


@cache
def _digest(ruleset_id: str, text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def restore(catalogue: Catalogue, game_id: str, ruleset_id: str, digest: str, scenario: str,
            position: Mapping[str, Any] | None, seed: int, turns: Iterable[Turn], now: float) -> GameSession:
    """The session a stored game was, rebuilt from its start and its turns."""
    entry = entry_for(catalogue, game_id, ruleset_id, digest)
    try:
        session = start_session(entry, game_id, scenario if position is None else None, position, seed, now)
    except PositionError as exc:
        raise NotReplayableError(f"game {game_id!r}: its start position no longer loads ({exc})") from None
    replay(catalogue, session, turns)
    return session


def entry_for(catalogue: Catalogue, game_id: str, ruleset_id: str, digest: str) -> RulesetEntry:
    """The served ruleset a stored game was played on, if served under the same config."""
    try:
        entry = catalogue.ruleset(ruleset_id)
    except UnknownNameError:
        raise NotReplayableError(f"game {game_id!r} is a {ruleset_id} game, which this server does not serve") from None
    if config_digest(entry) != digest:
        raise NotReplayableError(f"game {game_id!r} was played under another {ruleset_id} config than this server's")
    return entry


def replay(catalogue: Catalogue, session: GameSession, turns: Iterable[Turn]) -> None:
    """Apply ``turns`` after the session's own, consulting each (non-search) captain as it was consulted."""
    for turn in turns:
        if turn.captain is not None:
            _consult_again(catalogue, session, turn)
        events = session.game.apply(turn.seat, np.asarray(turn.action, dtype=np.int64)) if turn.applied else []
        session.record(turn, events)


def _consult_again(catalogue: Catalogue, session: GameSession, turn: Turn) -> None:
    assert turn.captain is not None
    try:
        entry = catalogue.captain(session.entry.id, turn.captain)
    except UnknownNameError:
        return  # not served any more: its moves stand, and it cannot be asked again
    if not entry.slow:
        propose(session.game, turn.seat, session.captain(entry, turn.seat))
