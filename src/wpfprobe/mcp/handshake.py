"""The in-app streamable-HTTP endpoint's handshake era (2024-11-05 … 2025-11-25), served by the kernel.

Every request :class:`.httpserve.EraRouter` does not route to the 2026 era
comes here: no ``MCP-Protocol-Version`` header, or a handshake version. The
wire is the one the SDK's streamable HTTP app (``mcp`` 2.3, SSE mode, behind its
body limit and transport security) gave behind ``httpwire.HttpWire``; pinned
by tests/unit/test_handshake.py against that app and by the golden transcripts:

* a body over :data:`.httpserve.MAX_BODY` is 413; a POST's Content-Type must
  start ``application/json`` (400), Host and Origin must be this server's
  (421/403; the guard in front refuses them first);
* **sessions.** A request without ``Mcp-Session-Id`` opens one, which lives only
  if the request was answered below 400: only an ``initialize`` can be, any
  other request is 400 "Bad Request: Missing session ID". An unknown (ended,
  expired) id is 404 -32600 "Session not found". DELETE ends one (200, empty);
  a session with nothing in flight (an open GET stream counts) for
  :data:`IDLE_TIMEOUT` ends too. At most :data:`MAX_SESSIONS` live: when a new
  one would exceed that, the least recently used goes (as a DELETE would end
  it), preferring one with no request in flight;
* **POST.** ``Accept`` must name JSON and SSE (wildcards count), else 406; bad
  JSON is 400 -32700 with the parser's account; a body that is no single
  JSON-RPC message is 400 -32600; a notification or a response 202, empty. A
  request is answered ``200 text/event-stream``: its progress, then its answer
  (``event: message``, ``\\r\\n`` framing), a ``: ping - <time>`` comment every
  :data:`PING_INTERVAL`. A request its client cancelled is answered -32800
  "Request cancelled", so its stream ends. Requests of a session run
  concurrently; an ``initialize`` is answered before the next message is taken;
* **GET** opens the session's own stream (``Accept`` must name SSE: 406), which
  carries ``notifications/tools/list_changed``; a second one at once is 409;
* any other method is 405 ``Allow: GET, POST, DELETE``.

Answers name their session (``Mcp-Session-Id``) except a refusal of a request
that opened none. Messages are written as :func:`.jsonrpc.sse_event` writes
them (compact UTF-8, as the SDK's pydantic did); a placeholder of :mod:`.spliced`
is found by ``written_in_pieces`` around this app, and the collector deferral
of ``collections_after_response`` ends once the answer is written, since each
request's task runs in its POST's context.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import json
import logging
import uuid
from collections.abc import MutableMapping, Sequence
from typing import Any, Final

import pydantic_core

from wpfprobe.mcp import jsonrpc
from wpfprobe.mcp.httpserve import Message, Receive, Scope, Send, _body, _HungUp, _plain, _refusal
from wpfprobe.mcp.jsonrpc import RequestId, correlation_key
from wpfprobe.mcp.protocol import Kernel, Session

__all__ = ["IDLE_TIMEOUT", "MAX_SESSIONS", "PING_INTERVAL", "HandshakeEndpoint"]

log = logging.getLogger("wpfprobe.wire")

Headers = list[tuple[bytes, bytes]]

IDLE_TIMEOUT: Final = 300.0
"""Seconds without a request in flight after which a session ends. A connected client keeps its
event stream open (a request in flight), so this only ends sessions whose client is gone, or one
that holds no stream and stays silent for five minutes; that client initializes again, which
costs one round trip."""
MAX_SESSIONS: Final = 32
"""Live sessions per app. A session costs about 40 KiB, and a client may initialize and never
delete (3,000 such took an app from 184 to 304 MiB under the SDK's bounds: 10,000 sessions, idle
30 minutes). The clients of one app are few: the broker (one session per broker), an agent
connected directly, the Inspector, a test or two; `wpfprobe call` deletes its session when done.
32 leaves room for all of them several times over and costs about 1.3 MiB at most."""
PING_INTERVAL: Final = 15.0
"""Seconds between ``: ping`` comments on an event stream (sse-starlette's default, which the SDK used)."""

_SESSION_HEADER: Final = b"mcp-session-id"
_INVALID_BODY: Final = "Invalid Request: the body must be one JSON-RPC 2.0 request, notification or response object."
_SSE_HEADERS: Final = [
    (b"cache-control", b"no-cache, no-transform"),
    (b"connection", b"keep-alive"),
    (b"content-type", b"text/event-stream"),
]
#: What the SSE response adds after the session's header (sse-starlette's own).
_SSE_TRAILING_HEADERS: Final = [(b"x-accel-buffering", b"no")]


def _first_header(scope: Scope, name: bytes) -> str | None:
    return next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == name), None)


def _accepts(scope: Scope) -> tuple[bool, bool]:
    """(JSON, SSE): what the ``Accept`` header admits, wildcards counted (the SDK's rule)."""
    accept = _first_header(scope, b"accept") or ""
    types = [part.strip().split(";")[0].strip().lower() for part in accept.split(",")]
    wildcard = "*/*" in types
    return (
        wildcard or any(t in ("application/json", "application/*") for t in types),
        wildcard or any(t in ("text/event-stream", "text/*") for t in types),
    )


class _Stream:
    """One event stream's messages, in order; None ends it."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Message | None] = asyncio.Queue()

    def put(self, message: Message | None) -> None:
        self.queue.put_nowait(message)


class _HttpSession:
    """One session: its kernel session, its open streams, its use for the idle timeout."""

    def __init__(self, endpoint: HandshakeEndpoint, session_id: str) -> None:
        self.endpoint = endpoint
        self.id = session_id
        self.kernel_session: Session = endpoint.kernel.connect(self, era="handshake")
        self.requests: dict[RequestId, _Stream] = {}
        self.standalone: _Stream | None = None
        self.in_flight = 0
        self.terminated = False
        self._idle: asyncio.TimerHandle | None = None

    # -- protocol.Output -------------------------------------------------------------------------------

    async def send(self, message: Message) -> None:
        if self.standalone is not None:
            self.standalone.put(message)
        # else: nobody listens (the SDK drops it too: there is no event store to keep it in)

    async def send_to(self, request_id: RequestId, message: Message) -> None:
        stream = self.requests.get(correlation_key(request_id))
        if stream is not None:
            stream.put(message)

    async def end(self, request_id: RequestId, answer: Message | None) -> None:
        stream = self.requests.pop(correlation_key(request_id), None)
        if stream is None:
            return
        if answer is None:
            answer = jsonrpc.error(request_id, jsonrpc.REQUEST_CANCELLED, "Request cancelled")
        stream.put(answer)
        stream.put(None)

    # -- use -------------------------------------------------------------------------------------------

    def begin(self) -> None:
        self.in_flight += 1
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None

    def done(self) -> None:
        self.in_flight -= 1
        if not self.in_flight and not self.terminated:
            loop = asyncio.get_running_loop()
            self._idle = loop.call_later(self.endpoint.idle_timeout, self.endpoint.expire, self)

    async def terminate(self) -> None:
        """End the session: its streams end unanswered, its requests are cancelled."""
        if self.terminated:
            return
        self.terminated = True
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        streams = [*self.requests.values(), *([self.standalone] if self.standalone is not None else [])]
        self.requests.clear()
        for stream in streams:
            stream.put(None)
        await self.kernel_session.close()


class HandshakeEndpoint:
    """ASGI: the handshake era of one endpoint, its sessions served by ``kernel``."""

    def __init__(
        self,
        kernel: Kernel,
        *,
        hosts: Sequence[str],
        origins: Sequence[str],
        max_body: int,
        idle_timeout: float = IDLE_TIMEOUT,
        max_sessions: int = MAX_SESSIONS,
    ) -> None:
        self.kernel = kernel
        self._hosts = frozenset(hosts)
        self._origins = frozenset(origins)
        self._max_body = max_body
        self.idle_timeout = idle_timeout
        self._max_sessions = max_sessions
        self.sessions: dict[str, _HttpSession] = {}
        self._ending: set[asyncio.Task[None]] = set()
        kernel.when_closed(self.close)  # at stop open GET streams end, not at the server's cut-off

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        # The SDK's app, outside in: its body limit, its transport security, its session manager.
        body = await _body(scope, receive, self._max_body)
        if body is None:
            await _plain(send, 413, b"Request body too large")
            return
        if isinstance(body, _HungUp):
            return
        refusal = _refusal(scope, self._hosts, self._origins)
        if refusal is not None:
            await _plain(send, *refusal)
            return
        session_id = _first_header(scope, _SESSION_HEADER)
        if session_id is not None:
            session = self.sessions.get(session_id)
            if session is None or session.terminated:
                await _refused(send, 404, "Session not found")
                return
            self.sessions[session_id] = self.sessions.pop(session_id)  # the most recently used
            await self._use(session, scope, body, receive, send, opened=False)
            return
        session = _HttpSession(self, uuid.uuid4().hex)
        self.sessions[session.id] = session
        status = 0

        async def watch(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self._use(session, scope, body, receive, watch, opened=True)
        finally:
            if not 0 < status < 400:
                self.sessions.pop(session.id, None)
                await asyncio.shield(session.terminate())
        if 0 < status < 400:
            await self._evict()

    async def _evict(self) -> None:
        """The least recently used sessions beyond :data:`MAX_SESSIONS`, idle ones first, end."""
        while len(self.sessions) > self._max_sessions:
            victim = next((s for s in self.sessions.values() if not s.in_flight), None)
            if victim is None:
                victim = next(iter(self.sessions.values()))
            log.debug("session %s ended: more than %d sessions", victim.id, self._max_sessions)
            await self._end(victim)

    async def _use(
        self, session: _HttpSession, scope: Scope, body: bytes, receive: Receive, send: Send, *, opened: bool
    ) -> None:
        # A refusal of the request that opened the session names none: the session is gone with it.
        named = None if opened else session.id
        session.begin()
        try:
            method = scope["method"]
            if method == "POST":
                await self._post(session, scope, body, receive, send, named)
            elif method == "GET":
                await self._get(session, scope, receive, send, named, opened)
            elif method == "DELETE":
                if opened:
                    await _error(send, 400, "Bad Request: Missing session ID", None)
                    return
                await self._end(session)
                await _respond(send, 200, b"", _json_headers(session.id))
            else:
                extra = [(b"allow", b"GET, POST, DELETE")]
                await _error(send, 405, "Method Not Allowed", named, extra=extra)
        finally:
            session.done()

    async def _post(
        self, session: _HttpSession, scope: Scope, body: bytes, receive: Receive, send: Send, named: str | None
    ) -> None:
        has_json, has_sse = _accepts(scope)
        if not (has_json and has_sse):
            message = "Not Acceptable: Client must accept both application/json and text/event-stream"
            await _error(send, 406, message, named)
            return
        try:
            value = pydantic_core.from_json(body)
        except ValueError as exc:
            await _error(send, 400, f"Parse error: {exc}", named, code=jsonrpc.PARSE_ERROR)
            return
        decoded = jsonrpc.classify(value)
        if isinstance(decoded, jsonrpc.Invalid):
            # Spelled as httpwire spelled its rewrite of the SDK's -32602 (json.dumps' spacing).
            invalid = {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": jsonrpc.INVALID_REQUEST, "message": _INVALID_BODY},
            }
            await _respond(send, 400, json.dumps(invalid).encode(), _json_headers(named))
            return
        initializing = decoded.kind == "request" and decoded.message["method"] == "initialize"
        if named is None and not initializing:
            await _error(send, 400, "Bad Request: Missing session ID", None)
            return
        if decoded.kind != "request":
            await _respond(send, 202, b"", _json_headers(session.id))
            await session.kernel_session.receive(decoded.kind, decoded.message)
            return
        request = decoded.message
        stream = _Stream()
        session.requests[correlation_key(request["id"])] = stream
        headers = [*_SSE_HEADERS, (_SESSION_HEADER, session.id.encode()), *_SSE_TRAILING_HEADERS]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        # The request's task is made in this context (collector deferral, spliced writer); an
        # initialize is answered (into ``stream``) before this returns.
        await session.kernel_session.receive("request", request)
        await _stream(stream, receive, send)

    async def _get(
        self, session: _HttpSession, scope: Scope, receive: Receive, send: Send, named: str | None, opened: bool
    ) -> None:
        if not _accepts(scope)[1]:
            await _error(send, 406, "Not Acceptable: Client must accept text/event-stream", named)
            return
        if opened:
            await _error(send, 400, "Bad Request: Missing session ID", None)
            return
        if session.standalone is not None:
            await _error(send, 409, "Conflict: Only one SSE stream is allowed per session", named)
            return
        stream = session.standalone = _Stream()
        headers = [*_SSE_HEADERS, (_SESSION_HEADER, session.id.encode()), *_SSE_TRAILING_HEADERS]
        try:
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await _stream(stream, receive, send)
        finally:
            if session.standalone is stream:
                session.standalone = None

    async def _end(self, session: _HttpSession) -> None:
        self.sessions.pop(session.id, None)
        await session.terminate()

    def expire(self, session: _HttpSession) -> None:
        """The idle timeout ran out (with nothing in flight: the timer is cancelled by any use)."""
        log.debug("session %s idle for %.0f s; ending it", session.id, self.idle_timeout)
        task = asyncio.ensure_future(self._end(session))
        self._ending.add(task)
        task.add_done_callback(self._ending.discard)

    def close(self) -> None:
        """End every session's streams (the server stops); on the serving loop."""
        for session in list(self.sessions.values()):
            self.expire(session)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                for session in list(self.sessions.values()):
                    with contextlib.suppress(Exception):
                        await self._end(session)
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _stream(stream: _Stream, receive: Receive, send: Send) -> None:
    """Write ``stream``'s messages as events until it ends or the client hangs up; ping meanwhile.
    A hang-up leaves the request running (the SDK's session serves it on, its answer dropped)."""
    hang_up = asyncio.ensure_future(_disconnected(receive))
    try:
        while True:
            taking = asyncio.ensure_future(stream.queue.get())
            done, _ = await asyncio.wait({taking, hang_up}, timeout=PING_INTERVAL, return_when=asyncio.FIRST_COMPLETED)
            if taking not in done:
                taking.cancel()
                if hang_up in done:
                    return
                await send({"type": "http.response.body", "body": _ping(), "more_body": True})
                continue
            item = taking.result()
            if item is None:
                break
            await send({"type": "http.response.body", "body": jsonrpc.sse_event(item), "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except OSError:
        log.debug("an event stream's client went away", exc_info=True)
    finally:
        hang_up.cancel()


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _ping() -> bytes:
    return f": ping - {_dt.datetime.now(_dt.timezone.utc)}\r\n\r\n".encode()


def _json_headers(session_id: str | None) -> Headers:
    headers: Headers = [(b"content-type", b"application/json")]
    if session_id is not None:
        headers.append((_SESSION_HEADER, session_id.encode()))
    return headers


async def _error(
    send: Send,
    status: int,
    message: str,
    session_id: str | None,
    *,
    code: int = jsonrpc.INVALID_REQUEST,
    extra: Headers | None = None,
) -> None:
    """An error without a request id, as the SDK's transport writes one."""
    body = jsonrpc.encode({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})
    headers = _json_headers(None)
    headers += extra or []
    if session_id is not None:
        headers.append((_SESSION_HEADER, session_id.encode()))
    await _respond(send, status, body, headers)


async def _refused(send: Send, status: int, message: str, *, code: int = jsonrpc.INVALID_REQUEST) -> None:
    """A refusal before any session (the SDK's session manager's: its headers in another order)."""
    body = jsonrpc.encode({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}})
    headers = [(b"content-length", str(len(body)).encode()), (b"content-type", b"application/json")]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _respond(send: Send, status: int, body: bytes, headers: Headers) -> None:
    headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
