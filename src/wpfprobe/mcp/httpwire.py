"""The in-app server's HTTP face, between the guard and the MCP endpoint (httpserve.py, handshake.py).

- One endpoint: ``/mcp`` and ``/mcp/`` are the same (a 307 redirect, as Starlette
  answered the second, may be followed by a client with another method); any
  other path is a 404 with a JSON body.
- Bounded sessions. A handshake-era session costs about 40 KiB, and a client
  may initialize and never delete (3,000 of them took an app from 184 to 304
  MiB under the SDK's own bounds, 10,000 sessions idle 30 minutes). At most
  :data:`MAX_SESSIONS` live here; when a new one would exceed that, the least
  recently used goes (ended as a client's DELETE would end it: its id answers
  404 from then on, and its client initializes again), preferring one with no
  request in flight (an open event stream counts as one).
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from typing import Any

MAX_SESSIONS = 32
"""Live sessions per app. The clients of one app are few: the broker (one session per
broker), an agent connected directly, the Inspector, a test or two; `wpfprobe call`
deletes its session when done. 32 leaves room for all of them several times over and
costs about 1.3 MiB at most."""

SESSION_IDLE_TIMEOUT = 300.0
"""Seconds without a request in flight after which the endpoint ends a session. A connected
SDK client keeps its event stream open (a request in flight), so this only ends
sessions whose client is gone, or one that holds no stream and stays silent for five
minutes; that client initializes again, which costs one round trip."""

SESSION_BACKSTOP = 2 * MAX_SESSIONS
"""The endpoint's own cap, a backstop only: it answers 503 beyond it (new sessions opened at
once, before the eviction that follows each of them has run)."""

_SESSION_HEADER = b"mcp-session-id"

MAX_CONNECTIONS = 256
"""Open connections to the server at most: beyond it, a new one is closed as soon as it is made.
Anyone on the machine can connect (the token is checked per request), and uvicorn holds a
connection that never sends a request for as long as its client keeps it: 19,992 of them held
19,992 of the app's 20,000 file descriptors, so the app's own files and sockets could not be
opened. The clients of one app hold a few each (a request, an event stream); 256 leaves room for
every session several times."""

FIRST_REQUEST_WAIT = 10.0
"""Seconds a new connection may stay silent before its first request; then it is closed, as
uvicorn closes one idle after a response (``KEEP_ALIVE``)."""

KEEP_ALIVE = 30.0
"""Seconds a connection may stay idle after a response before the server closes it. Longer than
the clients' own pools keep an idle connection (httpx, which the Python SDK's client uses: 5 s),
so the client always lets go first: with uvicorn's 5 s, equal to httpx's, a client that reused
its connection just as the server closed it got "connection reset" (1 POST in 25 here, idle
4.999 s), which the SDK's client reports as "Connection closed" for a call the app never saw.
Idle connections count toward ``MAX_CONNECTIONS``."""


def protocol_class() -> type:
    """uvicorn's h11 protocol, bounded by ``MAX_CONNECTIONS`` and ``FIRST_REQUEST_WAIT``. h11 always
    (not uvicorn's "auto", which takes httptools when the app has it installed): the wire's
    answers to malformed requests are the ones the tests pin."""
    from uvicorn.protocols.http.h11_impl import H11Protocol  # noqa: PLC0415 - on the server's thread

    class BoundedH11(H11Protocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > MAX_CONNECTIONS:
                self.transport.close()
                return
            if self.timeout_keep_alive_task is None:  # the first request's data cancels it
                self.timeout_keep_alive_task = self.loop.call_later(FIRST_REQUEST_WAIT, self.timeout_keep_alive_handler)

    return BoundedH11


class HttpWire:
    """ASGI middleware; ``app`` is the MCP endpoint serving ``path`` (both eras)."""

    def __init__(self, app: Any, *, path: str, max_sessions: int = MAX_SESSIONS) -> None:
        self.app = app
        self._path = path
        self._max = max_sessions
        #: session id -> [requests in flight, monotonic time of the last request's end], oldest use first
        self._sessions: OrderedDict[str, list[float]] = OrderedDict()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] not in (self._path, self._path + "/"):
            await json_response(send, 404, "NOT_FOUND", f"Nothing here: the MCP endpoint is {self._path}.")
            return
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        scope = {**scope, "path": self._path, "raw_path": self._path.encode()}
        session = next((v.decode("latin-1") for k, v in headers if k.lower() == _SESSION_HEADER), None)
        if session is None:
            await self._open(scope, receive, send)
        else:
            await self._use(session, scope, receive, send)

    async def _use(self, session: str, scope: dict[str, Any], receive: Any, send: Any) -> None:
        use = self._sessions.get(session)
        if use is None:  # not one of ours (ended, or never was): the endpoint answers 404
            await self.app(scope, receive, send)
            return
        self._sessions.move_to_end(session)
        use[0] += 1
        status = 0

        async def watch(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            use[0] -= 1
            use[1] = time.monotonic()
            if status == 404 or (scope["method"] == "DELETE" and 200 <= status < 300):
                self._sessions.pop(session, None)

    async def _open(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        opened: str | None = None

        async def watch(message: dict[str, Any]) -> None:
            nonlocal opened
            if message["type"] == "http.response.start" and message["status"] < 300:
                opened = next(
                    (v.decode("latin-1") for k, v in message.get("headers", []) if k.lower() == _SESSION_HEADER),
                    None,
                )
                if opened is not None:
                    self._sessions[opened] = [0, time.monotonic()]
            await send(message)

        await self.app(scope, receive, watch)
        if opened is not None:
            await self._evict(scope)

    async def _evict(self, scope: dict[str, Any]) -> None:
        now = time.monotonic()
        for session, (in_flight, last) in list(self._sessions.items()):
            if not in_flight and now - last > SESSION_IDLE_TIMEOUT:
                del self._sessions[session]  # the endpoint has ended it already
        while len(self._sessions) > self._max:
            victim = next((s for s, (in_flight, _) in self._sessions.items() if not in_flight), None)
            if victim is None:
                victim = next(iter(self._sessions))
            del self._sessions[victim]
            await self._end(victim, scope)

    async def _end(self, session: str, scope: dict[str, Any]) -> None:
        """End ``session`` the way its client would: a DELETE through the endpoint."""
        host = [(k, v) for k, v in scope.get("headers", []) if k.lower() == b"host"]
        delete = {
            **scope,
            "method": "DELETE",
            "query_string": b"",
            "headers": [*host, (_SESSION_HEADER, session.encode("latin-1"))],
        }
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if delivered:
                return {"type": "http.disconnect"}
            delivered = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: dict[str, Any]) -> None:
            return None

        await self.app(delete, receive, discard)


async def json_response(
    send: Any, status: int, code: str, message: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    """An HTTP answer of the probe's own (not a JSON-RPC one): ``{code, message}``."""
    body = json.dumps({"code": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *(extra or []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
