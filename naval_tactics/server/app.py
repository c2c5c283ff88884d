"""The app factory: ``create_app(settings)`` builds one server; tests call it with throwaway settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi_offline import FastAPIOffline

from naval_tactics import __version__
from naval_tactics.catalogue import Catalogue, CatalogueError
from naval_tactics.server.crashes import AnsweredCrashes
from naval_tactics.server.errors import install_error_handlers
from naval_tactics.server.guard import RequestGuard
from naval_tactics.server.heavy import HeavyPool
from naval_tactics.server.insight import router as insight_router
from naval_tactics.server.limits import BodySizeLimit
from naval_tactics.server.openapi import openapi_with_positions, operation_id
from naval_tactics.server.page import install_play_page
from naval_tactics.server.routes import Services, router
from naval_tactics.server.searches import SearchPool
from naval_tactics.server.settings import ServerSettings
from naval_tactics.server.sqlite_store import SqliteGameStore
from naval_tactics.server.store import Clock, GameStore, Store

DESCRIPTION = """
Opponents for other apps. Create a game from a scenario or from your own position, read whose turn
it is and the legal moves **by label**, apply your move by label, ask a named captain for its move
(applied, or only proposed with `?apply=false`), or ask `POST /v1/decide` for a move in any position
without keeping anything here.

* Positions are each ruleset's position JSON: `GET /v1/rulesets/{id}/position-schema`.
* Moves are `{component: label}`; the labels of every component are in `GET /v1/rulesets`.
* Every error has one shape: `{"error": {"code", "message", "problems": [{"path", "message"}], "details"}}`.

The protocol page: docs/apps.md in the repository.
"""

TAGS = [
    {"name": "rulesets", "description": "What can be played: rulesets, scenarios, captains, action labels, position schemas."},
    {"name": "games", "description": "Games kept by the server (bounded in number and idle time)."},
    {"name": "decide", "description": "A captain's move in a position, with nothing kept."},
    {"name": "server", "description": "Liveness and limits."},
]


def create_app(settings: ServerSettings | None = None, *, clock: Clock | None = None,
               catalogue: Catalogue | None = None) -> FastAPI:
    """A captain server. ``clock`` (monotonic seconds) drives idle expiry; ``catalogue`` defaults to
    every ruleset with ``random``, the scripted captains and the exports in ``settings.captains_dir``."""
    settings = settings or ServerSettings()
    if catalogue is None:
        check_captain_files(settings.captains_dir, settings.max_captain_bytes)
        catalogue = Catalogue.load(settings.captains_dir, settings.rulesets, settings.max_expert_ms,
                                   settings.max_search_simulations)
    services = Services(settings, catalogue, open_store(settings, catalogue, clock), SearchPool(settings),
                        HeavyPool(settings))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if settings.warm_searches:
            services.searches.warm()
        try:
            yield
        finally:
            services.searches.close()
            services.heavy.close()
            services.store.close()

    app = FastAPIOffline(title="naval-tactics captain server", version=__version__, description=DESCRIPTION,
                         openapi_tags=TAGS, swagger_ui_parameters={"validatorUrl": None},  # /docs from the package
                         generate_unique_id_function=operation_id, lifespan=lifespan)
    app.state.settings = settings
    app.state.services = services
    app.add_middleware(BodySizeLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(RequestGuard, settings=settings)   # Host, Origin and rate: before the body is read
    if settings.cors_origins:  # added last, so outermost: refusals (413 included) carry the CORS headers too
        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins), allow_methods=["*"],
                           allow_headers=["*"], expose_headers=["Location", "Retry-After"])
    install_error_handlers(app)
    stack = app.build_middleware_stack   # outside Starlette's own error middleware, which raises after its 500
    app.build_middleware_stack = lambda: AnsweredCrashes(stack())  # type: ignore[method-assign]
    app.include_router(router, prefix="/v1")
    app.include_router(insight_router, prefix="/v1")
    install_play_page(app)
    app.openapi = lambda: openapi_with_positions(app, catalogue)  # type: ignore[method-assign]
    return app


def open_store(settings: ServerSettings, catalogue: Catalogue, clock: Clock | None = None) -> Store:
    """The games' store the settings name: this process's memory, or an SQLite file."""
    if not isinstance(settings.store, Path):
        return GameStore(settings.max_games, settings.idle_seconds, settings.remembered_ids, clock,
                         per_client=settings.max_games_per_client)
    return SqliteGameStore(settings.store, catalogue, settings.max_games, settings.idle_seconds,
                           settings.remembered_ids, clock, quarantine_damaged=settings.quarantine_damaged,
                           per_client=settings.max_games_per_client)


def check_captain_files(folder: Path | None, max_bytes: int) -> None:
    """Refuse a captains folder holding a file over ``max_bytes`` before any of its files is read (a file's
    size is what ``stat`` says: a sparse file counts its whole length)."""
    if folder is None or not folder.is_dir():
        return   # the catalogue says what is wrong with a folder that is not one
    for path in sorted(folder.iterdir()):
        size = path.stat().st_size if path.is_file() else 0
        if size > max_bytes:
            raise CatalogueError(f"{path}: {size:,} bytes, over the {max_bytes:,} a captain file may have "
                                 "(--max-captain-bytes); remove it from the captains folder")
