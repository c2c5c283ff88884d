"""The captain server: a FastAPI app that offers the toolkit's captains to apps in any language.

``create_app(ServerSettings(...))`` builds it; :func:`serve` runs it with uvicorn. The protocol
is documented at ``/docs`` (OpenAPI) and in docs/apps.md.
"""

from __future__ import annotations

from naval_tactics.server.app import create_app
from naval_tactics.server.settings import ServerSettings

__all__ = ["ServerSettings", "create_app", "serve"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def serve(settings: ServerSettings, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, log_level: str = "info") -> None:
    """Run a server until interrupted, with ``settings.workers`` processes over ``settings.store``."""
    from naval_tactics.server.workers import serve as run

    run(settings, host, port, log_level)
