"""A crash answered 500 keeps its connection.

Starlette's ``ServerErrorMiddleware`` sends the app's 500 (``internal_error``) and then raises the exception
again, so that the server logs it; uvicorn, finding an exception after the answer was sent, closes the
connection, and a client's next request on it failed too (issue 43). :class:`AnsweredCrashes` sits outside
it: an exception raised after the whole answer was sent is logged here, with its traceback, and goes no
further, so uvicorn keeps the connection alive. One raised before the answer ended still reaches uvicorn,
which then has nothing complete to keep.
"""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger("uvicorn.error")


class AnsweredCrashes:
    """Log, not raise, an exception raised after its request's answer was sent in full."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        answered = False

        async def sending(message: Message) -> None:
            nonlocal answered
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                answered = True

        try:
            await self.app(scope, receive, sending)
        except Exception:
            if not answered:
                raise
            logger.exception("the server failed on %s %s (answered 500 internal_error)", scope.get("method"),
                             scope.get("path"))
