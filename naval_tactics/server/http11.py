"""The HTTP/1.1 layer, with its own refusals in the server's one JSON error shape.

uvicorn's h11 protocol answers a request it cannot parse (a malformed ``Content-Length``, a bad
request line, a header without a colon) itself, before the app sees anything, with a plain-text
400 "Invalid HTTP request received.". This subclass sends the same 400 and closes the connection,
but as ``{"error": {"code": "invalid_http", ...}}``, so an app parses every refusal the same way.
``serve`` runs uvicorn with it (``http=`` takes a protocol class); httptools, uvicorn's other
parser, is not installed and would need the same override.
"""

from __future__ import annotations

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


class JsonErrorH11Protocol(H11Protocol):
    """uvicorn's h11 protocol whose parse-failure 400 is JSON in the server's error shape."""

    def send_400_response(self, msg: str) -> None:
        body = invalid_http_body()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close")]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body),
                      h11.EndOfMessage()):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()
