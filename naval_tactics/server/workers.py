"""Running the server: one process, or ``workers`` uvicorn worker processes sharing the port and one store file.

Workers are started by uvicorn with an app factory (:func:`app_from_environment`) that reads the
settings the parent wrote to :data:`SETTINGS_VARIABLE`; each worker opens the same SQLite store and
answers any game from it (:mod:`.sqlite_store`). ``POST /v1/decide`` keeps nothing, so it scales
further still: any number of servers, on any machines, behind any load balancer.
"""

from __future__ import annotations

import os

from fastapi import FastAPI

from naval_tactics.catalogue import Catalogue
from naval_tactics.server.app import create_app, open_store
from naval_tactics.server.http11 import PROTOCOL
from naval_tactics.server.settings import ServerSettings

SETTINGS_VARIABLE = "NAVAL_TACTICS_SERVER_SETTINGS"


def app_from_environment() -> FastAPI:
    """The app of one worker process, from the settings its parent wrote to the environment."""
    return create_app(ServerSettings.model_validate_json(os.environ[SETTINGS_VARIABLE]))


def check(settings: ServerSettings) -> None:
    """Load the catalogue and open the store once in the parent, so a bad captains folder or store file
    is refused with its message before any worker starts (raises CatalogueError / StoreFileError)."""
    catalogue = Catalogue.load(settings.captains_dir, settings.rulesets, settings.max_expert_ms)
    open_store(settings, catalogue).close()


def serve(settings: ServerSettings, host: str, port: int, log_level: str = "info") -> None:
    """Run until interrupted: in this process, or in ``settings.workers`` worker processes."""
    import uvicorn

    if settings.workers == 1:
        uvicorn.run(create_app(settings), host=host, port=port, log_level=log_level, http=PROTOCOL)
        return
    check(settings)
    os.environ[SETTINGS_VARIABLE] = settings.model_dump_json()
    uvicorn.run("naval_tactics.server.workers:app_from_environment", factory=True, workers=settings.workers,
                host=host, port=port, log_level=log_level, http=PROTOCOL)
