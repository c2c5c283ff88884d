"""The request-size limit, answered in the server's error shape.

One pure ASGI middleware: a body whose ``Content-Length`` is over the limit is answered at once
without being read; a streamed (chunked) body is counted as it arrives and stopped when it
passes the limit. (FastAPI's own ``max_body_size`` answers the first case with a plain-text
413 from inside its middleware, which would break the one JSON error shape.)
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from naval_tactics.server.errors import error_response


class BodyTooLargeError(HTTPException):
    """Raised from ``receive`` once a streamed body passes the limit. An HTTPException, so FastAPI's
    body parsing passes it on unchanged to the app's handler for the JSON 413."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, f"the request body is larger than this server accepts (at most {max_bytes} bytes)")
        self.max_bytes = max_bytes


class BodySizeLimit:
    """At most ``max_bytes`` of request body, declared or streamed; 413 ``body_too_large`` otherwise."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            response = error_response(
                413, "body_too_large",
                f"the request body is {int(declared)} bytes; this server accepts at most {self.max_bytes}",
                details={"max_body_bytes": self.max_bytes}, headers={"Connection": "close"})
            await response(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLargeError(self.max_bytes)
            return message

        await self.app(scope, counted, send)
