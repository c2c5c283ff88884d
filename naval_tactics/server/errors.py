"""One JSON shape for every error the server answers, and the handlers that produce it.

    {"error": {"code": "illegal_move", "message": "...", "problems": [{"path": "move.attack", "message": "..."}],
               "details": {...} | null}}

``code`` is a stable word an app can branch on (:data:`CODES`), ``message`` a sentence a person can
act on, ``problems`` the fields at fault by their path in the request body (``position.ships.1.x``).
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import compile_path

from naval_env.core.position import PositionError, path_of
from naval_tactics.catalogue import UnknownNameError
from naval_tactics.protocol import ErrorBody, ErrorResponse, Problem

logger = logging.getLogger("uvicorn.error")


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these error statuses, each in the one JSON error shape."""
    return {code: {"model": ErrorResponse} for code in statuses}


#: Every code, with the status it comes with (the protocol page lists them with their meaning).
CODES: dict[str, int] = {
    "invalid_json": 400,
    "invalid_http": 400,
    "host_not_allowed": 403,
    "origin_not_allowed": 403,
    "not_found": 404,
    "game_not_found": 404,
    "game_expired": 404,
    "method_not_allowed": 405,
    "not_your_turn": 409,
    "game_over": 409,
    "game_changed": 409,
    "game_too_long": 409,
    "too_many_proposals": 409,
    "game_not_replayable": 410,
    "game_damaged": 410,
    "slow_request": 408,
    "body_too_large": 413,
    "unsupported_media_type": 415,
    "invalid_request": 422,
    "invalid_position": 422,
    "unknown_ruleset": 422,
    "unknown_scenario": 422,
    "unknown_captain": 422,
    "unknown_seat": 422,
    "illegal_move": 422,
    "too_many_games": 429,
    "too_many_client_games": 429,
    "too_many_requests": 429,
    "internal_error": 500,
    "server_busy": 503,
    "decision_timeout": 503,
    "request_timeout": 503,
    "store_failed": 503,
    "search_unavailable": 503,
}


class ApiError(Exception):
    """An error answered in the shared shape; raise it anywhere under a route."""

    def __init__(self, code: str, message: str, problems: Iterable[Problem] = (),
                 details: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = CODES[code]
        self.code, self.message = code, message
        self.problems = list(problems)
        self.details = dict(details) if details is not None else None
        self.headers = dict(headers) if headers is not None else None


def error_response(status: int, code: str, message: str, problems: Iterable[Problem] = (),
                   details: Mapping[str, Any] | None = None, headers: Mapping[str, str] | None = None) -> JSONResponse:
    body = ErrorResponse(error=ErrorBody(code=code, message=message, problems=list(problems),
                                         details=dict(details) if details is not None else None))
    return JSONResponse(_encodable(body.model_dump(mode="json")), status_code=status, headers=headers)


def _encodable(value: Any) -> Any:
    """``value`` with text that UTF-8 cannot hold (a lone surrogate quoted from a request) written with
    backslash escapes, so an error can always be sent."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_encodable(key): _encodable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_encodable(item) for item in value]
    return value


def position_problems(error: PositionError, prefix: str = "position") -> list[Problem]:
    """A position's problems with their paths in the request body (``position.ships.1.x``)."""
    return [Problem(path=".".join(p for p in (prefix, problem.path) if p), message=problem.message)
            for problem in error.problems]


def invalid_position(error: PositionError) -> ApiError:
    problems = position_problems(error)
    count = len(problems)
    return ApiError("invalid_position", f"the position cannot be loaded ({count} problem{'s' * (count != 1)}): "
                    + "; ".join(f"{p.path}: {p.message}" for p in problems), problems)


def unknown_name(error: UnknownNameError, path: str) -> ApiError:
    """``unknown_ruleset``, ``unknown_scenario`` or ``unknown_captain``, naming the field and the known names."""
    return ApiError(f"unknown_{error.what}", str(error), [Problem(path=path, message=str(error))],
                    {"name": error.name, "allowed": error.allowed})


def _body_fields(request: Request) -> list[str]:
    """The fields of the route's request model (to say what is allowed instead of an unknown field)."""
    field = getattr(request.scope.get("route"), "body_field", None)
    model = getattr(getattr(field, "field_info", None), "annotation", None)
    return list(model.model_fields) if isinstance(model, type) and issubclass(model, BaseModel) else []


def _validation_problems(request: Request, exc: RequestValidationError) -> list[Problem]:
    problems = []
    for err in exc.errors():
        loc = list(err.get("loc", ()))
        if loc and loc[0] in ("body", "query", "path"):
            loc = loc[1:] if loc[0] == "body" else loc  # body fields by their own path; query.x stays named
        message = err.get("msg", "invalid value")
        if err.get("type") == "missing":
            message = "required field is missing"
        elif err.get("type") == "extra_forbidden":
            allowed = _body_fields(request) if len(loc) == 1 else []
            message = "unknown field" + (f"; allowed here: {', '.join(allowed)}" if allowed else "")
        elif err.get("type") == "value_error":
            message = str((err.get("ctx") or {}).get("error", message))
        elif err.get("type") in ("model_attributes_type", "model_type", "dict_type"):
            message = "must be a JSON object"
        problems.append(Problem(path=path_of(loc), message=message))
    return problems


async def _on_api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.code, exc.message, exc.problems, exc.details, exc.headers)


async def _on_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    bad_json = next((e for e in errors if e.get("type") == "json_invalid"), None)
    if bad_json is not None:
        where = bad_json.get("loc", ("body", 0))[-1]
        reason = (bad_json.get("ctx") or {}).get("error", "JSON decode error")
        return error_response(400, "invalid_json", f"the request body is not valid JSON: {reason} at character {where}")
    if _not_json(request):
        return error_response(415, "unsupported_media_type", "send the request body as JSON, with the header "
                              "Content-Type: application/json")
    problems = _validation_problems(request, exc)
    listed = "; ".join(f"{p.path or '<body>'}: {p.message}" for p in problems)
    return error_response(422, "invalid_request", f"the request does not fit the route's model: {listed}", problems)


def _not_json(request: Request) -> bool:
    """A body sent without a JSON content type (FastAPI then does not parse it, and says only that
    the body is not an object)."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    has_body = request.headers.get("content-length", "0") != "0" or "transfer-encoding" in request.headers
    return has_body and not (content_type == "application/json" or content_type.endswith("+json"))


HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_HTTP_CODES = {400: "invalid_json", 404: "not_found", 405: "method_not_allowed", 413: "body_too_large", 415: "unsupported_media_type"}


async def _on_http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, f"http_{exc.status_code}")
    message, details = str(exc.detail), None
    if exc.status_code == 400:  # FastAPI's answer when the JSON parser itself fails (e.g. nesting too deep)
        message = "the request body could not be read as JSON (nested too deeply, or not text)"
    elif exc.status_code == 404:
        message = f"no route {request.method} {request.url.path}; the routes are listed at /docs"
    elif exc.status_code == 405:
        allowed = _allowed_methods(request, (exc.headers or {}).get("Allow", ""))
        message = f"{request.url.path} does not take {request.method}; it takes {allowed}"
        return error_response(405, code, message, headers={"Allow": allowed})
    elif exc.status_code == 413:  # a streamed body counted past the limit (limits.BodySizeLimit)
        details = {"max_body_bytes": getattr(exc, "max_bytes", None)}
    return error_response(exc.status_code, code, message, details=details, headers=getattr(exc, "headers", None))


def _allowed_methods(request: Request, named: str) -> str:
    """Every method the app takes at this path. Starlette's 405 names only the first matching route's
    (``OPTIONS /v1/games/{id}`` answered ``Allow: GET``, though DELETE is served there too), so the
    OpenAPI page's paths, which list every route, are matched as well."""
    methods = {m.strip() for m in named.split(",") if m.strip()}
    for template, operations in request.app.openapi().get("paths", {}).items():
        if compile_path(template)[0].match(request.url.path):
            methods |= {m.upper() for m in operations if m.upper() in HTTP_METHODS}
    return ", ".join(sorted(methods))


async def _on_store_error(request: Request, exc: Exception) -> JSONResponse:
    """The store file failed under a request (damaged on disk since start, the disk full): 503, the
    transaction rolled back, nothing half-written; the next request may succeed (a full disk freed)."""
    assert isinstance(exc, sqlite3.Error)
    logger.error("game store failed on %s %s: %s", request.method, request.url.path, exc)
    return error_response(503, "store_failed", f"the game store could not be read or written ({exc}); nothing "
                          "was changed; the server log says more", headers={"Retry-After": "60"})


async def _on_crash(request: Request, exc: Exception) -> JSONResponse:
    return error_response(500, "internal_error", f"the server failed on this request ({type(exc).__name__}); "
                          "the server log has the traceback")


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(ApiError, _on_api_error)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_error)
    app.add_exception_handler(sqlite3.Error, _on_store_error)
    app.add_exception_handler(Exception, _on_crash)
