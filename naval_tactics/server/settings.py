"""The server's settings: one pydantic model, so a test builds a throwaway server with its own limits."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from naval_agents.captains.search.names import MAX_SIMULATIONS
from naval_tactics.catalogue import DEFAULT_MAX_SEARCH_SIMULATIONS

MEMORY: Literal["memory"] = "memory"
#: The names of this machine a local client's ``Host`` header gives.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


def default_search_workers() -> int:
    """Half the cores (at least one): the other half stays with the server's own workers."""
    return max(1, (os.cpu_count() or 2) // 2)


class ServerSettings(BaseModel):
    """What one captain server offers and how much it keeps. Every limit answers with a clear 4xx."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    captains_dir: Path | None = None
    """Folder of exported captains (``<name>.onnx`` + ``<name>.json``), loaded and checked at start-up;
    each is served under its file stem. Clients only ever name captains, never paths."""
    rulesets: tuple[str, ...] | None = None
    """Rulesets to serve; default: every registered one."""
    max_games: int = Field(default=1000, ge=1)
    """Games kept at once. When full, games idle past ``idle_seconds`` are dropped first; if none is,
    creating one answers 429 (``too_many_games``)."""
    idle_seconds: float = Field(default=900.0, gt=0)
    """A game with no request for this long is dropped; asking for it then answers 404 (``game_expired``)."""
    max_body_bytes: int = Field(default=262_144, ge=1024)
    """Largest request body accepted; a larger one answers 413 (``body_too_large``)."""
    cors_origins: tuple[str, ...] = ()
    """Browser origins allowed to call the server (``https://my-tabletop.example``; ``*`` for any), for
    web apps served from another origin; default none (browsers then refuse cross-origin calls)."""
    max_expert_ms: float = Field(default=2_000, ge=1, le=600_000)
    """The longest thinking time a client may ask as ``expert:Nms`` (the top level: the search captain with N
    milliseconds a decision) or ``search:Nms``, computed off the event loop; a longer one answers 422
    ``unknown_captain`` naming the range."""
    max_search_simulations: int = Field(default=DEFAULT_MAX_SEARCH_SIMULATIONS, ge=1, le=MAX_SIMULATIONS)
    """The most simulations a decision a client may ask as ``search:N`` (computed off the event loop); more
    answers 422 ``unknown_captain`` naming the range."""
    remembered_ids: int = Field(default=10_000, ge=0)
    """How many dropped game ids are remembered, so a late request hears *why* its game is gone."""
    store: Path | Literal["memory"] = MEMORY
    """Where games are kept: ``memory`` (this process only; lost on restart) or an SQLite file, created
    when new, that keeps every game turn by turn so it survives a restart and every worker serves it."""
    workers: int = Field(default=1, ge=1, le=64)
    """Server processes (uvicorn workers) sharing the port; more than one needs a store file."""
    search_workers: int = Field(default_factory=default_search_workers, ge=1, le=64)
    """Processes that run search captains (``search``, ``search:N``, ``search:Nms``, ``expert:Nms``), at low CPU
    priority, per server worker."""
    max_searches: int = Field(default=16, ge=1, le=10_000)
    """Searches admitted at once per server worker (running or waiting for a search process); one more
    answers 503 (``server_busy``) with ``Retry-After``."""
    warm_searches: bool = False
    """Start the search processes with the server (``serve`` does) instead of on the first search."""
    decision_timeout_s: float = Field(default=30.0, gt=0, le=3600)
    """The longest a search request may take, waiting included; past it, 503 (``decision_timeout``)."""

    quarantine_damaged: bool = False
    """A store file SQLite finds damaged at start: False stops the server with a line saying how to recover;
    True moves the file aside (``<name>.damaged-<UTC time>``) and starts on a new one holding every game that
    still reads."""
    max_turns: int = Field(default=10_000, ge=1, le=1_000_000)
    """Turns one game may keep (moves, captains' moves and proposals); one more answers 409 ``game_too_long``.
    The longest shipped game takes about 5,000 decisions."""
    max_proposals: int = Field(default=1_000, ge=0, le=1_000_000)
    """Captains' moves one game may keep unapplied (``captain-moves?apply=false``, each a turn, as asking a
    captain advances its generator); one more answers 409 ``too_many_proposals``."""
    request_budget_s: float = Field(default=20.0, gt=0, le=3600)
    """The longest a heavy request (a replay, a replay page, a game's events, a picture, a preview) may take,
    waiting included; past it, 503 ``request_timeout``. Heavy requests run off the event loop."""
    max_heavy_requests: int = Field(default=2, ge=1, le=1000)
    """Heavy requests run at once per server worker; one more waits its turn within its budget."""
    allowed_hosts: tuple[str, ...] = (*LOCAL_HOSTS, "testserver")
    """Names a request's ``Host`` header may give (against DNS rebinding; ``*`` for any, behind a proxy that
    checks it). ``testserver`` is Starlette's test client's name (a single-label name no public DNS serves),
    so an app made in a test answers it; ``serve`` answers :data:`LOCAL_HOSTS`, its address and
    ``--allowed-host`` names only."""
    max_games_per_client: int | None = Field(default=None, ge=1)
    """Live games one client address may keep (default: ``max_games``); one more answers 429
    ``too_many_client_games``. Every local user shares 127.0.0.1: behind a proxy, see docs/server.md."""
    max_requests_per_second: float | None = Field(default=None, gt=0, le=1_000_000)
    """Requests one client address may send a second on average, in bursts of twice as many (default: no
    limit); past it, 429 ``too_many_requests`` with ``Retry-After``."""

    trusted_proxies: tuple[str, ...] = ()
    """Addresses of reverse proxies whose ``X-Forwarded-For`` names the client (uvicorn's
    ``forwarded_allow_ips``); default none: the client is the connection's own address, which no client
    can forge."""
    max_captain_bytes: int = Field(default=512 * 2**20, ge=1)
    """Largest file the captains folder may hold (checked by its size before any is read; a sparse 3 GB file
    raised the server's memory to 3.2 GB before being refused)."""
    read_timeout_s: float = Field(default=30.0, gt=0, le=3600)
    """Time a request has to arrive whole (request line, headers and body) from the connection's start or the
    previous answer; past it, 408 ``slow_request`` and the connection closed."""
    keep_alive_s: float = Field(default=5.0, gt=0, le=3600)
    """An idle keep-alive connection is closed after this long (uvicorn's ``timeout_keep_alive``)."""

    @model_validator(mode="after")
    def _workers_share_a_store(self) -> ServerSettings:
        if self.workers > 1 and self.store == MEMORY:
            raise ValueError("workers > 1 needs a store file (--store PATH): games in one worker's memory "
                             "are not seen by the others")
        return self
