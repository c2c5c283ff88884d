"""Search captains off the event loop: a bounded pool of worker processes.

Every name whose captain searches (:meth:`naval_agents.captains.registry.CaptainName.searches`: ``search``,
``search:N``, ``search:Nms``, ``expert:Nms``, a level that searches, and ``mixed:`` / ``tempered:``
names built on one) is answered here, its budget within the server's ``max_expert_ms`` and
``max_search_simulations``.

A search is pure Python that thinks for N ms by design. In the server's thread pool it held the
GIL against the event loop: with 8 clients asking ``expert:2000ms``, a plain ``decide``'s p50 went
from 2.1 to 17 ms (bench/server_latency.py, section 4). In worker processes, started at lower CPU
priority (``nice``), it takes only the cores the server leaves free.

Each request has a budget: at most ``max_searches`` searches are admitted at once (running or
waiting for a worker; past that, 503 ``server_busy`` with ``Retry-After``), and a search must answer
within ``decision_timeout_s`` of being admitted (else 503 ``decision_timeout``; the worker finishes
its bounded thinking time and is reused). A worker loads the game from its snapshot (:mod:`.snapshots`:
position and dice) and asks a fresh search captain seeded from the game's seed, seat and turn.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from naval_tactics.catalogue import Catalogue
from naval_tactics.decisions import Proposal, propose
from naval_tactics.server.errors import ApiError
from naval_tactics.server.settings import ServerSettings
from naval_tactics.server.snapshots import restored_dice, take
from naval_tactics.server.store import GameSession

#: Niceness of the search workers: the scheduler then gives the server's own process its core first.
WORKER_NICENESS = 10
#: Seconds a client is told to wait after a search process died: new ones load the captains first.
SEARCH_RESTART_S = 5


class SearchFailedError(Exception):
    """A search worker's failure, carried back as text (the worker's traceback is in its log)."""


class SearchPool:
    """``settings.search_workers`` processes, started on the first search (or by :meth:`warm`)."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.pending = 0
        self._executor: Executor | None = None

    def executor(self) -> Executor:
        if self._executor is None:
            s = self.settings
            self._executor = ProcessPoolExecutor(
                s.search_workers, mp_context=multiprocessing.get_context("spawn"), initializer=_start_worker,
                initargs=(os.getpid(), s.captains_dir, s.rulesets, s.max_expert_ms, s.max_search_simulations))
        return self._executor

    def warm(self) -> list[Future[bool]]:
        """Start the workers now (loading the captains takes seconds), not on the first search; the
        futures are done once each has started."""
        executor = self.executor()
        return [executor.submit(_ready) for _ in range(self.settings.search_workers)]

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def in_game(self, current: GameSession, captain: str, seat: str) -> Proposal:
        """``captain``'s move for ``seat`` in the kept game, searched in a worker."""
        snapshot = take(current)
        side_seed = current.seed * 2 + current.game.sides.index(current.game.side_of(seat))
        seed = (side_seed << 20) + current.version   # one seed per side and turn: replayable, never reused
        return await self._run(_search_in_game, current.entry.id, snapshot.position, snapshot.dice, current.seed,
                               seat, captain, seed)

    async def decide(self, ruleset_id: str, position: Mapping[str, Any], captain: str, seat: str, seed: int) -> Proposal:
        """``captain``'s move for ``seat`` in a position, searched in a worker (nothing kept)."""
        return await self._run(_search_in_position, ruleset_id, dict(position), captain, seat, seed)

    async def _run(self, function: Any, *arguments: Any) -> Proposal:
        s = self.settings
        if self.pending >= s.max_searches:
            retry = max(1, math.ceil(s.max_expert_ms / 1000))
            raise ApiError("server_busy", f"the server is already running {self.pending} searches, its limit "
                           f"(max_searches); retry in {retry} s, or ask a captain that does not search",
                           details={"max_searches": s.max_searches}, headers={"Retry-After": str(retry)})
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.executor(), function, *arguments)
        self.pending += 1
        future.add_done_callback(self._finished)
        try:
            result: Proposal = await asyncio.wait_for(asyncio.shield(future), s.decision_timeout_s)
        except TimeoutError:
            raise ApiError("decision_timeout", f"the search did not answer within {s.decision_timeout_s:g} s "
                           "(decision_timeout_s; the server is busy with other searches): retry later, or ask "
                           "for less thinking time", details={"decision_timeout_s": s.decision_timeout_s},
                           headers={"Retry-After": str(max(1, math.ceil(s.max_expert_ms / 1000)))}) from None
        except SearchFailedError as exc:
            raise RuntimeError(f"search worker failed: {exc}") from None
        except BrokenProcessPool:   # a worker died (killed, out of memory): start afresh on the next search
            self.close()
            raise ApiError("search_unavailable", "a search process died while thinking (killed, or out of memory); "
                           "the server starts new ones: retry in a few seconds, or ask a captain that does not "
                           "search", headers={"Retry-After": str(SEARCH_RESTART_S)}) from None
        return result

    def _finished(self, _future: asyncio.Future[Any]) -> None:
        self.pending -= 1


# ------------------------------------------------------------------ in the worker processes
_catalogue: Catalogue | None = None


def _start_worker(server: int, captains_dir: Path | None, rulesets: Sequence[str] | None,
                  max_expert_ms: float, max_search_simulations: int) -> None:
    global _catalogue
    exit_with_parent(server)   # its pid from the server itself: it may be gone before this worker has started
    try:
        os.nice(WORKER_NICENESS)
    except OSError:  # not permitted here: the searches then compete with the server on equal terms
        pass
    _catalogue = Catalogue.load(captains_dir, rulesets, max_expert_ms, max_search_simulations)


def exit_with_parent(parent: int, every_s: float = 1.0) -> None:
    """End this worker once the server that started it is gone: a pool's workers otherwise outlive a
    server killed with SIGKILL (or any exit without its shutdown), waiting for work that never comes."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _ready() -> bool:
    return _catalogue is not None


def _worker_catalogue() -> Catalogue:
    if _catalogue is None:
        raise SearchFailedError("the search worker was started without its catalogue")
    return _catalogue


def _search_in_game(ruleset_id: str, position: dict[str, Any], dice: bytes, game_seed: int, seat: str,
                    captain_name: str, seed: int) -> Proposal:
    try:
        catalogue = _worker_catalogue()
        entry = catalogue.ruleset(ruleset_id)
        game = entry.ruleset.load_position(position, entry.config, dice=restored_dice(game_seed, dice))
        return _ask(catalogue, game, ruleset_id, captain_name, seat, seed)
    except Exception as exc:  # noqa: BLE001 - sent back as text: exceptions with their own arguments do not pickle
        raise SearchFailedError(f"{type(exc).__name__}: {exc}") from None


def _search_in_position(ruleset_id: str, position: dict[str, Any], captain_name: str, seat: str,
                        seed: int) -> Proposal:
    try:
        catalogue = _worker_catalogue()
        entry = catalogue.ruleset(ruleset_id)
        game = entry.ruleset.load_position(position, entry.config, seed=seed)
        return _ask(catalogue, game, ruleset_id, captain_name, seat, seed)
    except Exception as exc:  # noqa: BLE001 - as above
        raise SearchFailedError(f"{type(exc).__name__}: {exc}") from None


def _ask(catalogue: Catalogue, game: Any, ruleset_id: str, captain_name: str, seat: str, seed: int) -> Proposal:
    captain = catalogue.captain(ruleset_id, captain_name).make(seed)
    captain.reset(seed)
    return propose(game, seat, captain)
