"""The in-app streamable-HTTP endpoint's 2026-07-28 era, served by the kernel without the SDK.

A request whose ``MCP-Protocol-Version`` header routes it to the 2026 era
(:func:`.protocol.era_of_header`: present and no handshake version) is one
self-contained POST, answered here by a :class:`.protocol.Session` of its own;
every other request (the handshake era, and the lifespan) goes on to the app
behind (handshake.py). The split is the SDK's own (its session manager routed
by the same header), so neither side sees the other's requests.

The wire is the SDK's (``mcp`` 2.3 ``server/_streamable_http_modern.py`` in SSE
mode, behind its ``RequestBodyLimitMiddleware`` and ``TransportSecurityMiddleware``),
byte for byte, pinned by tests/unit/test_httpserve.py against the SDK's app and
by the golden transcripts:

* a body over :data:`MAX_BODY` is 413 (read before anything else is judged);
  then a POST's Content-Type must start ``application/json`` (400), Host and
  Origin must be this server's (421/403; the guard in front refuses them first);
  a method other than POST is 405 ``Allow: POST``; an ``Accept`` without both
  JSON and SSE (wildcards count) is 406;
* bad JSON is 400 -32700, a body that is no single request or notification
  400 -32600, both ``id: null``; an id-less body is a notification: 202 and
  dropped (a 2026 client cancels by hanging up), unless its header names a
  version not served (400 -32022);
* a request's answer is ``application/json`` with the status of its error code
  (400 for envelope and params faults, 404 for an unknown method, else 200)
  when its handler ends within :data:`SSE_COMMIT_AFTER` without a message of
  its own; on its first progress (or listen frame), or after that long silent,
  the answer becomes ``text/event-stream``: those messages, ``: ping`` every
  :data:`SSE_COMMIT_AFTER`, and the answer as the last event;
* the client hanging up cancels the request, which is then never answered.

Messages are written as the SDK writes them (``json.dumps``, compact, ASCII):
what a client parses is the same, and a placeholder of :mod:`.spliced` in an
answer is found by ``written_in_pieces`` around this app as before, since the
request's task runs in the request's context.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from typing import Any, Final

from wpfprobe.mcp import jsonrpc
from wpfprobe.mcp.jsonrpc import RequestId
from wpfprobe.mcp.protocol import MODERN_VERSION, Kernel, envelope_error, era_of_header

__all__ = ["MAX_BODY", "SSE_COMMIT_AFTER", "EraRouter", "ModernEndpoint"]

log = logging.getLogger("wpfprobe.wire")

Message = dict[str, Any]
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

MAX_BODY: Final = 4 * 1024 * 1024
"""Bytes of a request body at most (the SDK's ``DEFAULT_MAX_REQUEST_BODY_SIZE``): beyond, 413."""

SSE_COMMIT_AFTER: Final = 15.0
"""Seconds a silent request is answered as plain JSON at most; then its answer becomes an event
stream, pinged this often, so a proxy's idle-read timeout cannot end it (the SDK's interval)."""

_VERSION_HEADER: Final = b"mcp-protocol-version"
#: -32021 (a required client capability is missing) is a client fault too; the kernel never raises it.
_STATUS_OF_CODE: Final = {
    jsonrpc.PARSE_ERROR: 400,
    jsonrpc.INVALID_REQUEST: 400,
    jsonrpc.INVALID_PARAMS: 400,
    jsonrpc.HEADER_MISMATCH: 400,
    -32021: 400,
    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION: 400,
    jsonrpc.METHOD_NOT_FOUND: 404,
}
_INVALID_BODY: Final = "Body must be a single JSON-RPC request or notification object"
_SSE_HEADERS: Final = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"connection", b"keep-alive"),
    (b"x-accel-buffering", b"no"),
]
_PING: Final = b": ping\r\n\r\n"


def _first_header(scope: Scope, name: bytes) -> str | None:
    return next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == name), None)


class EraRouter:
    """ASGI: a request routed to the 2026 era goes to ``modern``, anything else to ``handshake``."""

    def __init__(self, modern: App, handshake: App) -> None:
        self.modern = modern
        self.handshake = handshake

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and era_of_header(_first_header(scope, _VERSION_HEADER)) == MODERN_VERSION:
            await self.modern(scope, receive, send)
            return
        await self.handshake(scope, receive, send)


class ModernEndpoint:
    """ASGI: the 2026-07-28 era of one endpoint, each POST one request to ``kernel``."""

    def __init__(
        self, kernel: Kernel, *, hosts: Sequence[str], origins: Sequence[str], max_body: int = MAX_BODY
    ) -> None:
        self.kernel = kernel
        self._hosts = frozenset(hosts)
        self._origins = frozenset(origins)
        self._max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = await _body(scope, receive, self._max_body)
        if body is None:
            await _plain(send, 413, b"Request body too large")
            return
        if isinstance(body, _HungUp):
            return  # nobody to answer
        refusal = _refusal(scope, self._hosts, self._origins)
        if refusal is not None:
            await _plain(send, *refusal)
            return
        if scope["method"] != "POST":
            await _plain(send, 405, b"", [(b"allow", b"POST")])
            return
        accept = _first_header(scope, b"accept") or ""
        types = {part.strip().split(";")[0].strip().lower() for part in accept.split(",")}
        has_json = bool(types & {"*/*", "application/json", "application/*"})
        has_sse = bool(types & {"*/*", "text/event-stream", "text/*"})
        if not (has_json and has_sse):
            await _plain(send, 406, b"")
            return
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            await _json(send, jsonrpc.error(None, jsonrpc.PARSE_ERROR, "Parse error"))
            return
        decoded = jsonrpc.classify(value, strict_id=True)
        if isinstance(decoded, jsonrpc.Invalid):
            await _json(send, jsonrpc.error(None, jsonrpc.INVALID_REQUEST, _INVALID_BODY))
            return
        if decoded.kind == "notification":
            await self._acknowledge(scope, send)
            return
        rejection = envelope_error(decoded.message, headers=_header_pairs(scope))
        if rejection is not None:
            await _json(send, rejection)
            return
        await self._serve(decoded.message, receive, send)

    async def _acknowledge(self, scope: Scope, send: Send) -> None:
        requested = _first_header(scope, _VERSION_HEADER) or ""
        if requested != MODERN_VERSION:
            data = {"supported": [MODERN_VERSION], "requested": requested}
            error = jsonrpc.error(None, jsonrpc.UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", data)
            await _json(send, error)
            return
        await _plain(send, 202, b"")

    async def _serve(self, request: Message, receive: Receive, send: Send) -> None:
        exchange = _Exchange()
        session = self.kernel.connect(exchange, era=MODERN_VERSION)
        request_id: RequestId = request["id"]
        # The request's task is made in this context: the collector deferral and the spliced
        # writer around this app see its answer as theirs.
        await session.receive("request", request)
        hang_up = asyncio.ensure_future(_disconnected(receive))

        def cancel(task: asyncio.Future[None]) -> None:
            if task.cancelled():
                return
            if task.exception() is not None:
                log.debug("a 2026 request's receive failed; cancelling it", exc_info=task.exception())
            session.cancel(request_id)
            exchange.hung_up()

        hang_up.add_done_callback(cancel)
        try:
            await _write(exchange, send)
        finally:
            hang_up.cancel()


class _HungUp:
    """The client went away before its body was whole."""


async def _body(scope: Scope, receive: Receive, max_body: int) -> bytes | _HungUp | None:
    """The whole body, or None when it is over ``max_body`` (declared or sent), as the SDK's
    ``RequestBodyLimitMiddleware`` reads it: before anything else is looked at."""
    declared = _first_header(scope, b"content-length")
    if declared is not None:
        with contextlib.suppress(ValueError):
            if int(declared) > max_body:
                return None
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return _HungUp()
        chunk = bytes(message.get("body", b""))
        size += len(chunk)
        if size > max_body:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _refusal(scope: Scope, hosts: frozenset[str], origins: frozenset[str]) -> tuple[int, bytes] | None:
    """The SDK's transport security, on what the guard let through: exact Host and Origin."""
    if scope["method"] == "POST":
        content_type = _first_header(scope, b"content-type")
        if content_type is None or not content_type.lower().startswith("application/json"):
            return 400, b"Invalid Content-Type header"
    if _first_header(scope, b"host") not in hosts:
        return 421, b"Invalid Host header"
    origin = _first_header(scope, b"origin")
    if origin and origin not in origins:
        return 403, b"Invalid Origin header"
    return None


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


class _End:
    def __init__(self, answer: Message | None) -> None:
        self.answer = answer


class _Exchange:
    """One 2026 request's :class:`.protocol.Output`: its own messages, then its answer, in order. A
    message waits until the writer has taken the one before it (the SDK's stream has no buffer), so
    a client that stops reading holds its request up rather than filling memory."""

    def __init__(self) -> None:
        self.items: asyncio.Queue[Message | _End] = asyncio.Queue()
        self._room = asyncio.Semaphore(1)

    async def send(self, message: Message) -> None:
        """No connection channel in this era (the kernel tells listeners, not connections)."""

    async def send_to(self, request_id: RequestId, message: Message) -> None:
        await self._room.acquire()
        self.items.put_nowait(message)

    async def end(self, request_id: RequestId, answer: Message | None) -> None:
        self.items.put_nowait(_End(answer))

    def taken(self) -> None:
        self._room.release()

    def hung_up(self) -> None:
        self.items.put_nowait(_End(None))


async def _next(exchange: _Exchange) -> Message | _End | None:
    """The next item, or None after :data:`SSE_COMMIT_AFTER` without one."""
    try:
        item = await asyncio.wait_for(exchange.items.get(), SSE_COMMIT_AFTER)
    except TimeoutError:
        return None
    if not isinstance(item, _End):
        exchange.taken()
    return item


async def _write(exchange: _Exchange, send: Send) -> None:
    item = await _next(exchange)
    if isinstance(item, _End):
        if item.answer is not None:
            await _json(send, item.answer)
        return
    await send({"type": "http.response.start", "status": 200, "headers": list(_SSE_HEADERS)})
    while not isinstance(item, _End):
        await send({"type": "http.response.body", "body": _PING if item is None else _event(item), "more_body": True})
        item = await _next(exchange)
    last = _event(item.answer) if item.answer is not None else b""
    await send({"type": "http.response.body", "body": last, "more_body": False})


def _dumps(message: Message) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode()


def _event(message: Message) -> bytes:
    return b"event: message\r\ndata: " + _dumps(message) + b"\r\n\r\n"


def _header_pairs(scope: Scope) -> list[tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers", [])]


async def _json(send: Send, message: Message) -> None:
    error = message.get("error")
    status = _STATUS_OF_CODE.get(error["code"], 200) if isinstance(error, dict) else 200
    if isinstance(error, dict) and message.get("id") is None:
        # The SDK writes the refusal without its null id, then puts it back: last.
        message = {"jsonrpc": "2.0", "error": error, "id": None}
    body = _dumps(message)
    headers = [(b"content-length", str(len(body)).encode()), (b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _plain(send: Send, status: int, body: bytes, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """An answer as Starlette's bare ``Response`` writes one: no content type."""
    headers = [*(extra or []), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
