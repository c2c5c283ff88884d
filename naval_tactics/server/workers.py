"""Running the server: one process, or ``workers`` uvicorn servers in worker processes sharing the port
and one store file.

Each worker listens on its own socket bound to the same port with ``SO_REUSEPORT``, so the kernel
shares new connections among the workers (by a hash of the client's address and port). With one
listening socket shared by every worker (uvicorn's ``--workers``), whichever worker woke first
accepted every connection then waiting: 16 clients connecting at once sent over 90% of their
requests to one worker (bench/server_latency.py, section 5). That socket also left asyncio without
``TCP_NODELAY`` (see :func:`reuse_port_socket`; uvicorn issue #3149).

Workers are built by the app factory (:func:`app_from_environment`) from the settings the parent
wrote to :data:`SETTINGS_VARIABLE`; each opens the same SQLite store and answers any game from it
(:mod:`.sqlite_store`). The parent restarts a worker that dies, stops them all on SIGINT/SIGTERM, and
a worker ends itself when the parent is gone (killed with SIGKILL). ``POST /v1/decide`` keeps
nothing, so it scales further still: any number of servers, on any machines, behind any load balancer.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import time
from multiprocessing.context import SpawnProcess
from types import FrameType
from typing import Any

from fastapi import FastAPI

from naval_tactics.catalogue import Catalogue
from naval_tactics.server.app import check_captain_files, create_app, open_store
from naval_tactics.server.http11 import protocol
from naval_tactics.server.searches import exit_with_parent
from naval_tactics.server.settings import ServerSettings

SETTINGS_VARIABLE = "NAVAL_TACTICS_SERVER_SETTINGS"
#: A worker's exit code when it could not start (bad app, port refused): restarting it would fail again.
STARTUP_FAILURE = 3
#: Seconds the parent gives its workers to finish their requests once asked to stop.
STOP_SECONDS = 30.0

logger = logging.getLogger("uvicorn.error")


class ServeError(Exception):
    """The server could not start (the port is taken, or a worker failed before serving)."""


def app_from_environment() -> FastAPI:
    """The app of one worker process, from the settings its parent wrote to the environment."""
    return create_app(ServerSettings.model_validate_json(os.environ[SETTINGS_VARIABLE]))


def check(settings: ServerSettings) -> None:
    """Load the catalogue and open the store once in the parent, so a bad captains folder or store file
    is refused with its message before any worker starts (raises CatalogueError / StoreFileError)."""
    check_captain_files(settings.captains_dir, settings.max_captain_bytes)
    catalogue = Catalogue.load(settings.captains_dir, settings.rulesets, settings.max_expert_ms,
                               settings.max_search_simulations)
    open_store(settings, catalogue).close()


def serve(settings: ServerSettings, host: str, port: int, log_level: str = "info") -> None:
    """Run until interrupted: in this process, or in ``settings.workers`` worker processes."""
    import uvicorn

    if settings.workers == 1:
        uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level, **http_options(settings))
        return
    check(settings)
    os.environ[SETTINGS_VARIABLE] = settings.model_dump_json()
    try:
        reserved = reuse_port_socket(host, port)   # the port, held (not listened on) while the workers run
    except OSError as exc:
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    with reserved:
        Supervisor(settings.workers, host, reserved.getsockname()[1], log_level).run()


def http_options(settings: ServerSettings) -> dict[str, Any]:
    """uvicorn's HTTP options: the JSON-error h11 protocol with its read timeout, and the keep-alive timeout."""
    return {"http": protocol(settings.read_timeout_s), "timeout_keep_alive": settings.keep_alive_s,
            # uvicorn trusts X-Forwarded-For from 127.0.0.1 by default: any local client could then name itself
            # anyone, and slip past the per-client limits
            "proxy_headers": bool(settings.trusted_proxies),
            "forwarded_allow_ips": ",".join(settings.trusted_proxies) or None}


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to (host, port) with ``SO_REUSEPORT``: every worker binds its own, and the
    kernel shares incoming connections among those listening."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP said, not left 0: asyncio sets TCP_NODELAY only on connections of a socket that says so.
    # Without it, an answer's head and body (two writes) wait for the client's delayed ACK: 40 ms each.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def run_worker(host: str, port: int, log_level: str, parent: int) -> None:
    """One worker process: a uvicorn server on its own ``SO_REUSEPORT`` socket, until told to stop."""
    import uvicorn

    exit_with_parent(parent)
    settings = ServerSettings.model_validate_json(os.environ[SETTINGS_VARIABLE])
    config = uvicorn.Config("naval_tactics.server.workers:app_from_environment", factory=True, host=host, port=port,
                            log_level=log_level, **http_options(settings))
    try:
        sock = reuse_port_socket(host, port)
    except OSError as exc:
        logger.error("cannot listen on %s:%d: %s", host, port, exc)
        raise SystemExit(STARTUP_FAILURE) from None
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except SystemExit:   # uvicorn's own exit when the app cannot be loaded
        if server.started:
            raise
    if not server.started:
        raise SystemExit(STARTUP_FAILURE)


class Supervisor:
    """Starts ``count`` workers, replaces one that dies, and stops them all on SIGINT or SIGTERM."""

    def __init__(self, count: int, host: str, port: int, log_level: str) -> None:
        self.count, self.host, self.port, self.log_level = count, host, port, log_level
        self.processes: list[SpawnProcess] = []
        self.stopping = False

    def run(self) -> None:
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            self.processes = [self._start() for _ in range(self.count)]
            logger.info("serving on %s:%d with %d workers", self.host, self.port, self.count)
            while not self.stopping:
                time.sleep(0.2)
                self._replace_dead()
        finally:
            self._stop_all()
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _start(self) -> SpawnProcess:
        process = multiprocessing.get_context("spawn").Process(
            target=run_worker, args=(self.host, self.port, self.log_level, os.getpid()), name="naval-tactics-worker")
        process.start()
        return process

    def _replace_dead(self) -> None:
        for index, process in enumerate(self.processes):
            if process.is_alive() or self.stopping:
                continue
            if process.exitcode == STARTUP_FAILURE:
                raise ServeError("a server worker failed to start (its log says why)")
            logger.warning("worker %d exited (code %s); starting another", process.pid, process.exitcode)
            self.processes[index] = self._start()

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        self.stopping = True

    def _stop_all(self) -> None:
        for process in self.processes:
            if process.is_alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for process in self.processes:
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
