"""The games one server keeps: a bounded, idle-expiring store with one lock per game.

Each :class:`GameSession` has its own lock, held by the routes for the whole of a read or
a move, so a game's moves are applied one at a time and every answer sees a whole state.
The store's own lock guards only the table of games (it may be called from any thread);
no game is built or played under it.

A session also keeps what replays it exactly: its start (scenario or position, and seed) and every
:class:`Turn` (a move applied, or a captain consulted). :class:`GameStore` keeps sessions in this
process's memory (``--store memory``); :class:`~naval_tactics.server.sqlite_store.SqliteGameStore`
writes each turn to SQLite as it is made, so games survive a restart and any worker can serve them.
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from naval_agents.captains.base import Captain
from naval_env.core.dice import Dice
from naval_env.core.events import Event
from naval_env.core.game import Game
from naval_tactics.catalogue import CaptainEntry, RulesetEntry

Clock = Callable[[], float]
GoneReason = Literal["expired", "deleted"]
TurnKind = Literal["move", "captain", "proposal"]


@dataclass(frozen=True)
class Turn:
    """One step of a kept game's history: a client's ``move``, a ``captain``'s move applied, or a
    captain's ``proposal`` left unapplied (kept because asking a captain advances its generator)."""

    kind: TurnKind
    seat: str
    action: tuple[int, ...]
    captain: str | None = None

    @property
    def applied(self) -> bool:
        return self.kind != "proposal"


@dataclass(eq=False)
class GameSession:
    """One kept game: the engine game, every event it produced, and the captains asked to move in it."""

    id: str
    entry: RulesetEntry
    game: Game
    seed: int
    scenario: str
    events: list[Event]
    last_used: float
    #: The position the game was created from (None: from ``scenario`` and ``seed``).
    start: dict[str, Any] | None = None
    turns: list[Turn] = field(default_factory=list, repr=False)
    decisions: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    #: (side, captain name) -> the captain playing that side here, made on its first move and kept
    #: for the game (a random captain draws from one generator, as in the arena).
    captains: dict[tuple[str, str], Captain] = field(default_factory=dict, repr=False)
    #: Turns played before ``turns[0]``: 0 for a session built from the game's start; a session picked
    #: up from a snapshot (:mod:`.snapshots`) holds only the turns, and ``events``, since.
    base: int = 0
    _position: tuple[int, dict[str, Any]] | None = field(default=None, repr=False)
    #: (dice, rolls recorded, packed generator state) of the last snapshot: reused while no die is rolled.
    packed_dice: tuple[Dice, int, bytes] | None = field(default=None, repr=False)
    #: The address of the client that created it (per-client limits; None: not known).
    client: str | None = None
    #: The events of the last turn recorded (a store keeps them with the turn, so /events replays nothing).
    last_events: list[Event] = field(default_factory=list, repr=False)

    @property
    def version(self) -> int:
        """Turns kept so far (moves, captains' moves and proposals): the game's version in a store."""
        return self.base + len(self.turns)

    @property
    def whole(self) -> bool:
        """Whether ``turns`` and ``events`` go back to the game's start."""
        return self.base == 0

    def position(self) -> dict[str, Any]:
        """``game.position()``, made once per version (a move's answer and its snapshot share it); read-only."""
        if self._position is None or self._position[0] != self.version:
            self._position = (self.version, self.game.position())
        return self._position[1]

    def captain(self, entry: CaptainEntry, seat: str) -> Captain:
        """The game's captain ``entry`` for ``seat``'s side."""
        return self.side_captain(entry, self.game.side_of(seat))

    def side_captain(self, entry: CaptainEntry, side: str) -> Captain:
        """The game's captain ``entry`` for ``side``, reset with ``seed * 2 + side index`` as
        :func:`naval_agents.captains.arena.play_game` resets the captain of each side."""
        key = (side, entry.name)
        captain = self.captains.get(key)
        if captain is None:
            seed = self.seed * 2 + self.game.sides.index(side)
            captain = entry.make(seed)
            captain.reset(seed)
            self.captains[key] = captain
        return captain

    @property
    def proposals(self) -> int:
        """Captains' moves kept unapplied (``captain-moves?apply=false``) so far."""
        return self.version - self.decisions

    def record(self, turn: Turn, events: list[Event]) -> None:
        self.turns.append(turn)
        self.events.extend(events)
        self.decisions += turn.applied
        self.last_events = events


def written(events: list[Event]) -> tuple[list[dict[str, Any]], list[str]]:
    """The events written out (``Event.to_dict``, which the ruleset's catalog reads back) and their sentences."""
    return [e.to_dict() for e in events], [e.text() for e in events]


class StoreFullError(Exception):
    """No room for another game; ``retry_after`` is the seconds until the next kept game may expire."""

    def __init__(self, max_games: int, idle_seconds: float, retry_after: int) -> None:
        self.max_games, self.idle_seconds, self.retry_after = max_games, idle_seconds, retry_after
        super().__init__(
            f"the server keeps at most {max_games} games and none has been idle for {idle_seconds:g} s; "
            f"DELETE finished games, or retry in {retry_after} s")


class ClientFullError(StoreFullError):
    """The client already keeps its most games; ``retry_after`` is the seconds until one of them may expire."""

    def __init__(self, client: str, max_games: int, idle_seconds: float, retry_after: int) -> None:
        Exception.__init__(self, f"this client ({client}) already keeps {max_games} games, the most one client may "
                           f"keep (max_games_per_client); DELETE finished games, or retry in {retry_after} s")
        self.client, self.max_games, self.idle_seconds, self.retry_after = client, max_games, idle_seconds, retry_after


class GameChangedError(Exception):
    """Another worker changed the game between this request's read and its write; nothing was kept."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        super().__init__(f"game {game_id!r} was moved by another request at the same time; nothing was applied: "
                         "read the game again and send the move for its new position")


class GameGoneError(LookupError):
    """No such game: never created here, deleted, or dropped after ``idle_seconds`` without a request."""

    def __init__(self, game_id: str, reason: GoneReason | None, idle_seconds: float, durable: bool = False) -> None:
        self.game_id, self.reason = game_id, reason
        if reason == "expired":
            message = (f"game {game_id!r} was dropped after {idle_seconds:g} s without a request "
                       "(the server's idle limit); create a new game")
        elif reason == "deleted":
            message = f"game {game_id!r} was deleted"
        elif durable:
            message = f"no game {game_id!r} on this server (nor in its game store)"
        else:
            message = (f"no game {game_id!r} on this server (games live in its memory: a restart, "
                       "or a long idle time, forgets them)")
        super().__init__(message)


class Store(Protocol):
    """Where a server keeps its games: :class:`GameStore` (memory) or ``SqliteGameStore`` (a file)."""

    max_games: int
    idle_seconds: float

    def __len__(self) -> int: ...
    def add(self, build: Callable[[str, float], GameSession], client: str | None = None) -> GameSession: ...
    def get(self, game_id: str, whole: bool = False) -> GameSession: ...
    def commit(self, session: GameSession) -> None: ...
    def discard(self, game_id: str) -> None: ...
    def event_log(self, session: GameSession) -> tuple[list[dict[str, Any]], list[str]]: ...
    def sweep(self) -> int: ...
    def close(self) -> None: ...


class GameStore:
    """At most ``max_games`` sessions; a session idle longer than ``idle_seconds`` is dropped when next
    looked up or when room is needed, and its id remembered (up to ``remembered``) to say why."""

    def __init__(self, max_games: int, idle_seconds: float, remembered: int = 10_000,
                 clock: Clock | None = None, per_client: int | None = None) -> None:
        self.max_games, self.idle_seconds, self.remembered = max_games, idle_seconds, remembered
        self.per_client = per_client
        self.clock: Clock = clock or time.monotonic
        self._games: dict[str, GameSession] = {}
        self._gone: OrderedDict[str, GoneReason] = OrderedDict()
        self._lock = threading.Lock()
        self._next_sweep = self.clock() + idle_seconds / 10

    def __len__(self) -> int:
        return len(self._games)

    def add(self, build: Callable[[str, float], GameSession], client: str | None = None) -> GameSession:
        """Make room (dropping idle games), build a session with a new id outside the lock, then keep it.

        Raises :class:`StoreFullError` when every kept game is in use, :class:`ClientFullError` when ``client``
        keeps ``per_client`` games already; the built game is then discarded.
        """
        self._make_room()
        session = build(uuid.uuid4().hex, self.clock())
        session.client = client
        with self._lock:
            self._drop_idle(self.clock(), only_if_full=True)
            if len(self._games) >= self.max_games:
                raise self._full()
            if self.per_client is not None and client is not None:
                own = [s.last_used for s in self._games.values() if s.client == client]
                if len(own) >= self.per_client:
                    wait = max(1, math.ceil(min(own) + self.idle_seconds - self.clock()))
                    raise ClientFullError(client, self.per_client, self.idle_seconds, wait)
            self._games[session.id] = session
        return session

    def get(self, game_id: str, whole: bool = False) -> GameSession:
        """The session, its idle clock restarted; :class:`GameGoneError` if it is not kept (any more).
        (Sessions in memory are always ``whole``.)"""
        now = self.clock()
        with self._lock:
            session = self._games.get(game_id)
            if session is not None and now - session.last_used > self.idle_seconds:
                self._forget(game_id, "expired")
                raise GameGoneError(game_id, "expired", self.idle_seconds)
            if session is None:
                raise GameGoneError(game_id, self._gone.get(game_id), self.idle_seconds)
            session.last_used = now
            return session

    def commit(self, session: GameSession) -> None:
        """Keep the session's last turn (in memory there is nothing more to do)."""

    def close(self) -> None:
        """Release what the store holds (nothing, in memory)."""

    def event_log(self, session: GameSession) -> tuple[list[dict[str, Any]], list[str]]:
        """Every event of the game from its start, written out and as sentences (in memory: the session's own)."""
        return written(session.events)

    def discard(self, game_id: str) -> None:
        """Forget the game (if kept), remembering it was deleted."""
        with self._lock:
            if game_id in self._games:
                self._forget(game_id, "deleted")

    def sweep(self) -> int:
        """Drop every game idle past the limit now; returns how many."""
        with self._lock:
            return self._drop_idle(self.clock(), only_if_full=False)

    # ---------------------------------------------------------------- internals (callers hold no lock)
    def _make_room(self) -> None:
        now = self.clock()
        with self._lock:
            due = now >= self._next_sweep
            if due:
                self._next_sweep = now + self.idle_seconds / 10
            self._drop_idle(now, only_if_full=not due)
            if len(self._games) >= self.max_games:
                raise self._full()

    def _drop_idle(self, now: float, only_if_full: bool) -> int:
        if only_if_full and len(self._games) < self.max_games:
            return 0
        idle = [gid for gid, s in self._games.items() if now - s.last_used > self.idle_seconds]
        for gid in idle:
            self._forget(gid, "expired")
        return len(idle)

    def _forget(self, game_id: str, reason: GoneReason) -> None:
        del self._games[game_id]
        if self.remembered:
            self._gone[game_id] = reason
            while len(self._gone) > self.remembered:
                self._gone.popitem(last=False)

    def _full(self) -> StoreFullError:
        soonest = min((s.last_used for s in self._games.values()), default=self.clock())
        wait = max(1, math.ceil(soonest + self.idle_seconds - self.clock()))
        return StoreFullError(self.max_games, self.idle_seconds, wait)
