"""The in-app server's HTTP face, between the guard and the MCP endpoint (httpserve.py, handshake.py).

One endpoint: ``/mcp`` and ``/mcp/`` are the same (Starlette answered the second with
a 307 redirect, which a client may follow with another method); any other path is a
404 with a JSON body. And uvicorn's connections bounded (:func:`protocol_class`).
"""

from __future__ import annotations

import json
from typing import Any

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

REQUEST_WAIT = 10.0
"""Seconds a request may take to arrive, head and body, from its first byte; then its connection
is closed. uvicorn's waits are reset by every byte, so a client that sent one byte every few
seconds (a slowloris) held its connection, and 256 of them held every connection the server
allows: no agent could reach the app. A real client sends a request in milliseconds."""

KEEP_ALIVE = 30.0
"""Seconds a connection may stay idle after a response before the server closes it. Longer than
the clients' own pools keep an idle connection (httpx, which the Python SDK's client uses: 5 s),
so the client always lets go first: with uvicorn's 5 s, equal to httpx's, a client that reused
its connection just as the server closed it got "connection reset" (1 POST in 25 here, idle
4.999 s), which the SDK's client reports as "Connection closed" for a call the app never saw.
Idle connections count toward ``MAX_CONNECTIONS``."""


def protocol_class() -> type:
    """uvicorn's h11 protocol, bounded by ``MAX_CONNECTIONS``, ``FIRST_REQUEST_WAIT`` and
    ``REQUEST_WAIT``. h11 always
    (not uvicorn's "auto", which takes httptools when the app has it installed): the wire's
    answers to malformed requests are the ones the tests pin."""
    import h11  # noqa: PLC0415 - on the server's thread, as uvicorn's own import of it
    from uvicorn.protocols.http.h11_impl import H11Protocol  # noqa: PLC0415

    arriving = (h11.IDLE, h11.SEND_BODY)  # the client's side of a request not yet all received

    class BoundedH11(H11Protocol):
        _request_deadline: Any = None

        def data_received(self, data: bytes) -> None:
            if self._request_deadline is None:  # a request's first byte: it has REQUEST_WAIT to arrive
                self._request_deadline = self.loop.call_later(REQUEST_WAIT, self._request_too_slow)
            super().data_received(data)
            if self.conn.their_state not in arriving:  # all of it came (or the connection failed)
                self._end_request_wait()

        def connection_lost(self, exc: Exception | None) -> None:
            self._end_request_wait()
            super().connection_lost(exc)

        def _end_request_wait(self) -> None:
            if self._request_deadline is not None:
                self._request_deadline.cancel()
                self._request_deadline = None

        def _request_too_slow(self) -> None:
            self._request_deadline = None
            if self.conn.their_state in arriving and not self.transport.is_closing():
                self.transport.close()

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

    def __init__(self, app: Any, *, path: str) -> None:
        self.app = app
        self._path = path

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] not in (self._path, self._path + "/"):
            await json_response(send, 404, "NOT_FOUND", f"Nothing here: the MCP endpoint is {self._path}.")
            return
        await self.app({**scope, "path": self._path, "raw_path": self._path.encode()}, receive, send)


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
