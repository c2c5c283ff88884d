"""What the routes do, apart from HTTP: make games, read them, apply moves by label, ask captains.

Every function here raises :class:`~naval_tactics.server.errors.ApiError` for a request it
refuses, before changing anything: a refused move leaves the game as it was.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from typing import Any

import numpy as np

from naval_env.core.errors import IllegalActionError
from naval_env.core.events import Event
from naval_env.core.game import Game
from naval_env.core.moves import MoveError, decode, encode, legal_options
from naval_env.core.position import PositionError
from naval_tactics.catalogue import CaptainEntry, Catalogue, RulesetEntry, UnknownNameError
from naval_tactics.decisions import Proposal, propose
from naval_tactics.protocol import GameView, Problem, Seat
from naval_tactics.server.errors import ApiError, invalid_position, unknown_name
from naval_tactics.server.history import NotReplayableError, start_session
from naval_tactics.server.store import (
    GameChangedError,
    GameGoneError,
    GameSession,
    Store,
    Turn,
    written,
)
from naval_tactics.server.store_checks import GameDamagedError

SEED_LIMIT = 2**53


def ruleset_entry(catalogue: Catalogue, ruleset_id: str, path: str = "ruleset") -> RulesetEntry:
    try:
        return catalogue.ruleset(ruleset_id)
    except UnknownNameError as exc:
        raise unknown_name(exc, path) from None


def captain_entry(catalogue: Catalogue, ruleset_id: str, name: str, path: str = "captain") -> CaptainEntry:
    try:
        return catalogue.captain(ruleset_id, name)
    except UnknownNameError as exc:
        raise unknown_name(exc, path) from None


def load_position(entry: RulesetEntry, position: Any, seed: int) -> Game:
    try:
        return entry.ruleset.load_position(position, entry.config, seed=seed)
    except PositionError as exc:
        raise invalid_position(exc) from None


def new_game(catalogue: Catalogue, store: Store, ruleset_id: str, scenario: str | None,
             position: Mapping[str, Any] | None, seed: int | None, client: str | None = None) -> GameSession:
    """A kept game from a scenario or a position; the seed is drawn (and reported) when not given."""
    entry = ruleset_entry(catalogue, ruleset_id)
    if position is None:
        try:
            scenario = catalogue.scenario(entry.id, scenario)
        except UnknownNameError as exc:
            raise unknown_name(exc, "scenario") from None
    seed = seed if seed is not None else secrets.randbelow(SEED_LIMIT)

    def build(game_id: str, now: float) -> GameSession:
        try:
            return start_session(entry, game_id, scenario, position, seed, now)
        except PositionError as exc:
            raise invalid_position(exc) from None

    return store.add(build, client)


def session(store: Store, game_id: str, whole: bool = False) -> GameSession:
    """The kept game (``whole``: with every turn and event from its start); 404/409 when it cannot be served."""
    try:
        return store.get(game_id, whole)
    except GameGoneError as exc:
        code = "game_expired" if exc.reason == "expired" else "game_not_found"
        raise ApiError(code, str(exc), details={"game_id": game_id}) from None
    except GameDamagedError as exc:
        raise ApiError("game_damaged", str(exc), details={"game_id": game_id, "field": exc.field}) from None
    except NotReplayableError as exc:
        raise ApiError("game_not_replayable", str(exc), details={"game_id": game_id}) from None


def seat_to_move(game: Game, seat: str | None, path: str = "seat") -> str:
    """``seat`` if it holds the decision now (default: whoever does); 422/409 otherwise."""
    if seat is not None and seat not in game.agents:
        message = f"no seat {seat!r} in this game; seats: {list(game.agents)}"
        raise ApiError("unknown_seat", message, [Problem(path=path, message=message)],
                       {"seat": seat, "allowed": list(game.agents)})
    if game.is_over:
        result = f"{game.winner} won" if game.winner else "a draw"
        raise ApiError("game_over", f"the game is over ({result}); it takes no more moves",
                       details={"winner": game.winner, "truncated": game.truncated})
    to_move = game.current_agent
    assert to_move is not None
    if seat is not None and seat != to_move:
        raise ApiError("not_your_turn", f"it is {to_move}'s decision, not {seat}'s",
                       details={"seat": seat, "to_move": to_move})
    return to_move


def game_view(current: GameSession) -> GameView:
    game = current.game
    to_move = None if game.is_over else game.current_agent
    return GameView(
        id=current.id, ruleset=current.entry.id, version=current.entry.ruleset.version, scenario=current.scenario,
        seed=current.seed, round=game.round, decisions=current.decisions, to_move=to_move, over=game.is_over,
        winner=game.winner, truncated=game.truncated, sides=list(game.sides),
        seats=[Seat(id=a, side=game.side_of(a), active=game.is_active(a)) for a in game.agents],
        legal=legal_options(game, to_move) if to_move is not None else {},
        position=current.position(),
    )


def apply_labels(store: Store, current: GameSession, seat: str,
                 move: Mapping[str, str]) -> tuple[np.ndarray, list[Event]]:
    """Apply ``seat``'s move given by label; refusals name the component, the label and the allowed labels."""
    game = current.game
    seat = seat_to_move(game, seat)
    try:
        action = encode(game.action_spec, move, game.legal_mask(seat))
    except MoveError as exc:
        path = f"move.{exc.component}" if exc.component is not None else "move"
        raise ApiError("illegal_move", str(exc), [Problem(path=path, message=str(exc))], exc.to_json()) from None
    return action, _apply(store, current, Turn("move", seat, tuple(int(v) for v in action)))


def ask_captain(store: Store, current: GameSession, entry: CaptainEntry, seat: str | None,
                apply: bool) -> tuple[Proposal, list[Event]]:
    """The captain's move for ``seat`` (default: whoever is to move), applied when ``apply``."""
    seat = seat_to_move(current.game, seat)
    return keep_proposal(store, current, entry, propose(current.game, seat, current.captain(entry, seat)), apply)


def keep_proposal(store: Store, current: GameSession, entry: CaptainEntry, proposal: Proposal,
                  apply: bool) -> tuple[Proposal, list[Event]]:
    """Apply (or only record) a captain's proposal as the game's next turn."""
    turn = Turn("captain" if apply else "proposal", proposal.seat, tuple(proposal.action), entry.name)
    return proposal, _apply(store, current, turn)


def decide(catalogue: Catalogue, ruleset_id: str, position: Mapping[str, Any], captain_name: str,
           seat: str | None, seed: int | None) -> Proposal:
    """A captain's move in a position, nothing kept: the same request always gets the same answer."""
    entry = ruleset_entry(catalogue, ruleset_id)
    captain = captain_entry(catalogue, entry.id, captain_name)
    seed = seed if seed is not None else 0
    game = load_position(entry, dict(position), seed)
    seat = seat_to_move(game, seat)
    player = captain.make(seed)
    player.reset(seed)
    return propose(game, seat, player)


def labels_of(entry: RulesetEntry, action: np.ndarray) -> dict[str, str]:
    return decode(entry.action_spec, action)


def events_json(events: list[Event]) -> tuple[list[dict[str, Any]], list[str]]:
    """The events written out (``Event.to_dict``, which the ruleset's catalog reads back) and their sentences."""
    return written(events)


def check_room(current: GameSession, max_turns: int, max_proposals: int, proposal: bool) -> None:
    """409 when the game keeps ``max_turns`` turns already, or (for a ``proposal``) ``max_proposals`` unapplied
    captains' moves: a game's history, and what any request reads of it, stays bounded."""
    if current.version >= max_turns:
        raise ApiError("game_too_long", f"game {current.id!r} keeps {current.version} turns, this server's most a "
                       f"game may keep (max_turns); start a new game (from this one's position, if you like)",
                       details={"game_id": current.id, "turns": current.version, "max_turns": max_turns})
    if proposal and current.proposals >= max_proposals:
        raise ApiError("too_many_proposals", f"game {current.id!r} keeps {current.proposals} captains' moves not "
                       "applied (apply=false), this server's most a game may keep (max_proposals); apply a move, "
                       "or ask POST /v1/decide with the game's position, which keeps nothing",
                       details={"game_id": current.id, "proposals": current.proposals, "max_proposals": max_proposals})


def _apply(store: Store, current: GameSession, turn: Turn) -> list[Event]:
    """Play the turn and keep it (a proposal is kept too: asking a captain advances its generator)."""
    events: list[Event] = []
    if turn.applied:
        try:
            events = current.game.apply(turn.seat, np.asarray(turn.action, dtype=np.int64))
        except IllegalActionError as exc:  # the mask allowed each label; the rules refused the whole move
            raise ApiError("illegal_move", str(exc), [Problem(path="move", message=str(exc))]) from None
    current.record(turn, events)
    try:
        store.commit(current)
    except GameChangedError as exc:
        raise ApiError("game_changed", str(exc), details={"game_id": current.id}) from None
    return events
