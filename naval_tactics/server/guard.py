"""Who may talk to the server: the ``Host`` a request names, the page (``Origin``) a browser sends it from,
and how fast one client asks. Each refusal is in the server's one JSON error shape.

- **Host** against ``allowed_hosts`` (localhost names by default, and the address ``serve`` binds): a web
  page that rebinds its own name to 127.0.0.1 (DNS rebinding) still sends its own name as ``Host``, so it
  is refused with 403 ``host_not_allowed``, as Jupyter does. Starlette's ``TrustedHostMiddleware`` checks
  the same way, but answers in plain text.
- **Origin**, sent by browsers with every cross-origin request and every same-origin POST: allowed when it
  is a ``cors_origins`` entry or a page of an allowed host (``/play`` itself); otherwise 403
  ``origin_not_allowed``, before the route runs. (CORS only stops a page *reading* an answer: a simple
  cross-origin POST would otherwise still create games.)
- **Rate**: at most ``max_requests_per_second`` on average per client address, in bursts of twice as
  many (a token bucket per address, in each worker); past it, 429 ``too_many_requests`` with Retry-After.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from naval_tactics.server.errors import error_response
from naval_tactics.server.settings import ServerSettings

#: Client addresses whose request buckets are kept (the least recent are forgotten first).
KEPT_CLIENTS = 10_000


def host_of(value: str) -> str:
    """The host name of a ``Host`` header value (``[::1]:8765`` -> ``::1``, ``Example.COM:80`` -> ``example.com``)."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.split(":")[0] if value.count(":") == 1 else value


def allowed(host: str, patterns: Iterable[str]) -> bool:
    """``host`` matches a pattern: the name itself, ``*.example.com`` (its subdomains) or ``*`` (any)."""
    for pattern in patterns:
        pattern = host_of(pattern) if not pattern.startswith("*") else pattern.lower()
        if pattern == "*" or host == pattern or (pattern.startswith("*.") and host.endswith(pattern[1:])):
            return True
    return False


def client_of(scope: Scope) -> str:
    """The client's address (behind a trusted proxy, the one it forwarded; see ``trusted_proxies``)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class RequestGuard:
    """Host and Origin checked, and each client's request rate held, before anything else runs."""

    def __init__(self, app: ASGIApp, settings: ServerSettings) -> None:
        self.app = app
        self.hosts = tuple(settings.allowed_hosts)
        self.origins = tuple(settings.cors_origins)
        self.rate = settings.max_requests_per_second
        self.burst = 2 * self.rate if self.rate is not None else 0.0
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()   # client -> (tokens, at)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        refusal = self._refusal(headers, client_of(scope))
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _refusal(self, headers: Headers, client: str) -> JSONResponse | None:
        host = host_of(headers.get("host", ""))
        if not allowed(host, self.hosts):
            return error_response(403, "host_not_allowed", f"this server does not answer to the host name {host!r} "
                                  f"(the Host header); it answers to {list(self.hosts)}: start it with "
                                  "--allowed-host NAME to add one", details={"host": host, "allowed": list(self.hosts)})
        origin = headers.get("origin")
        if origin is not None and not self._origin_allowed(origin):
            return error_response(403, "origin_not_allowed", f"requests from pages of {origin!r} are not accepted; "
                                  "start the server with --cors-origin ORIGIN to let that site's pages call it",
                                  details={"origin": origin, "allowed": list(self.origins)})
        wait = self._take(client)
        if wait:
            return error_response(429, "too_many_requests", f"this client sent more than {self.rate:g} requests a "
                                  f"second (max_requests_per_second, in bursts of {self.burst:g}); retry in {wait} s",
                                  details={"max_requests_per_second": self.rate}, headers={"Retry-After": str(wait)})
        return None

    def _origin_allowed(self, origin: str) -> bool:
        if "*" in self.origins or origin in self.origins:
            return True
        parts = urlsplit(origin)
        return parts.scheme in ("http", "https") and parts.hostname is not None and allowed(parts.hostname, self.hosts)

    def _take(self, client: str) -> int:
        """Take one request from the client's bucket: 0 when allowed, else the whole seconds to wait."""
        if self.rate is None:
            return 0
        now = time.monotonic()
        tokens, at = self._buckets.pop(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        self._buckets[client] = (tokens - 1 if tokens >= 1 else tokens, now)
        while len(self._buckets) > KEPT_CLIENTS:
            self._buckets.popitem(last=False)
        return 0 if tokens >= 1 else max(1, math.ceil((1 - tokens) / self.rate))
