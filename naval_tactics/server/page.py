"""``GET /play``: a page where a person plays any ruleset against the server's captains, or watches two play.

The page is plain HTML, CSS and JavaScript shipped in the package (``static/``, no build step) and a client
of the public ``/v1`` routes only. It fetches nothing from any other host; the board script it shares with
the replay viewer (``naval_tactics/viewer/board.js``) is served beside it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib.resources import files

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, Response

#: Every file the page loads: URL name -> (package, file, media type). Nothing else is served from here.
ASSETS: dict[str, tuple[str, str, str]] = {
    "play.js": ("naval_tactics.server", "static/play.js", "text/javascript"),
    "play.css": ("naval_tactics.server", "static/play.css", "text/css"),
    "board.js": ("naval_tactics.viewer", "board.js", "text/javascript"),
}


def asset_text(package: str, name: str) -> str:
    return files(package).joinpath(name).read_text(encoding="utf-8")


def install_play_page(app: FastAPI) -> None:
    """Add ``/play`` and its files to ``app`` (left out of the OpenAPI page: it is a page, not the protocol)."""

    @app.get("/play", include_in_schema=False)
    async def play_page() -> HTMLResponse:
        return HTMLResponse(asset_text("naval_tactics.server", "static/play.html"))

    for name, (package, path, media_type) in ASSETS.items():
        app.add_api_route(f"/play/{name}", _asset_route(package, path, media_type), methods=["GET"],
                          include_in_schema=False)


def _asset_route(package: str, path: str, media_type: str) -> Callable[[], Awaitable[Response]]:
    async def asset() -> Response:
        return Response(asset_text(package, path), media_type=media_type,
                        headers={"Cache-Control": "no-cache"})
    return asset
