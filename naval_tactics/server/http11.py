"""The HTTP/1.1 layer, with its own refusals in the server's one JSON error shape.

uvicorn's h11 protocol answers a request it cannot parse (a malformed ``Content-Length``, a bad
request line, a header without a colon) itself, before the app sees anything, with a plain-text
400 "Invalid HTTP request received.". This subclass sends the same 400 and closes the connection,
but as ``{"error": {"code": "invalid_http", ...}}``, so an app parses every refusal the same way.
``serve`` runs uvicorn with it (``http=`` takes a protocol class); httptools, uvicorn's other
parser, is not installed and would need the same override.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from naval_tactics.protocol import ErrorBody, ErrorResponse

#: The import string uvicorn takes for ``http=`` (it reaches worker processes as text).
PROTOCOL = "naval_tactics.server.http11:JsonErrorH11Protocol"

MESSAGE = ("the request could not be read as HTTP/1.1 (a malformed request line or header, such as a "
           "Content-Length that is not a number); the connection is closed")


def invalid_http_body() -> bytes:
    body = ErrorResponse(error=ErrorBody(code="invalid_http", message=MESSAGE, problems=[], details=None))
    return body.model_dump_json().encode()


def slow_request_response(read_timeout_s: float) -> bytes:
    """The whole 408 answer, as bytes: sent whatever state the parser is in (no request line yet, half a body)."""
    message = (f"the request did not arrive whole within {read_timeout_s:g} s of its first byte (read_timeout_s); "
               "the connection is closed")
    body = ErrorResponse(error=ErrorBody(code="slow_request", message=message, problems=[],
                                         details={"read_timeout_s": read_timeout_s})).model_dump_json().encode()
    head = (f"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\n\r\n")
    return head.encode() + body


def protocol(read_timeout_s: float) -> type[JsonErrorH11Protocol]:
    """The protocol class for ``http=``, each request read within ``read_timeout_s``."""
    return type("JsonErrorH11Protocol", (JsonErrorH11Protocol,), {"read_timeout_s": read_timeout_s})


class JsonErrorH11Protocol(H11Protocol):
    """uvicorn's h11 protocol whose parse-failure 400 is JSON in the server's error shape, and which gives each
    request ``read_timeout_s`` to arrive whole, from the connection's start or the previous answer.

    uvicorn has no such limit: its keep-alive timer is cancelled by the first byte of a request, so a client
    that sends a request line, or headers and half a body, and then nothing, held its connection (and the
    request's memory) for ever; 200 such connections were all still open after 70 s (issue 43). Past the
    limit, before an answer has begun: 408 ``slow_request`` and the connection closed."""

    read_timeout_s: float = 30.0
    _read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_read_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_read_timer()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE and self.conn.their_state is not h11.SEND_BODY:
            self._disarm_read_timer()   # the request is read whole (or the connection is ending)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_read_timer()   # the next request on this connection has the same time to arrive

    def _arm_read_timer(self) -> None:
        self._disarm_read_timer()
        self._read_timer = self.loop.call_later(self.read_timeout_s, self._read_timed_out)

    def _disarm_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        if self.conn.their_state is h11.IDLE and not self.conn.trailing_data[0]:
            self.transport.close()   # an idle keep-alive connection: nothing was asked, nothing to answer
            return
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(slow_request_response(self.read_timeout_s))
        self.transport.close()

    def send_400_response(self, msg: str) -> None:
        body = invalid_http_body()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close")]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body),
                      h11.EndOfMessage()):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()
