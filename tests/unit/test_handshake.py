"""The handshake era over HTTP without the SDK (handshake.py), driven in-process over ASGI.

The same raw requests go to the SDK's streamable HTTP app and to ``EraRouter(ModernEndpoint,
HandshakeEndpoint)``, each behind ``httpwire.HttpWire`` as server.py mounts them; the answers
(status, headers, body bytes, with each side's session id read as one placeholder; a result's
JSON value, whose keys the SDK orders by its models' fields) must be the same. Sessions,
streams, progress and cancellation are then checked on ours against the SDK's rules directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from test_httpserve import HOSTS, ORIGINS, Answer, Client, FakeCatalog, call, events, sdk_app, with_header

from wpfprobe.mcp import httpwire
from wpfprobe.mcp.handshake import HandshakeEndpoint
from wpfprobe.mcp.httpserve import MAX_BODY, EraRouter, ModernEndpoint
from wpfprobe.mcp.protocol import Kernel

Message = dict[str, Any]
VERSION = "2025-06-18"
H: list[tuple[bytes, bytes]] = [
    (b"host", HOSTS[0].encode()),
    (b"content-type", b"application/json"),
    (b"accept", b"application/json, text/event-stream"),
]


class Pair:
    def __init__(self, sdk: Any, ours: Any, catalog: FakeCatalog, endpoint: HandshakeEndpoint) -> None:
        self.sdk, self.ours, self.catalog, self.endpoint = sdk, ours, catalog, endpoint


@contextlib.asynccontextmanager
async def pair() -> AsyncIterator[Pair]:
    from wpfprobe.core.version import __version__
    from wpfprobe.mcp.catalog import INSTRUCTIONS

    served, sdk = sdk_app()
    server = served.server
    catalog = FakeCatalog(served.catalog.list_tools())
    kernel = Kernel(catalog, version=__version__, instructions=INSTRUCTIONS)
    endpoint = HandshakeEndpoint(kernel, hosts=HOSTS, origins=ORIGINS, max_body=MAX_BODY)
    ours = EraRouter(ModernEndpoint(kernel, hosts=HOSTS, origins=ORIGINS), endpoint)
    async with server.session_manager.run():
        yield Pair(
            httpwire.HttpWire(as_it_was_mounted(sdk), path="/mcp"),
            httpwire.HttpWire(ours, path="/mcp"),
            catalog,
            endpoint,
        )


_INVALID_REQUEST = {
    "jsonrpc": "2.0",
    "id": None,
    "error": {
        "code": -32600,
        "message": "Invalid Request: the body must be one JSON-RPC 2.0 request, notification or response object.",
    },
}


def as_it_was_mounted(app: Any) -> Any:
    """The SDK's app with the corrections ``httpwire.HttpWire`` made to it while it served the
    handshake era (the wire clients saw, which handshake.py speaks directly): a GET's
    ``Last-Event-ID`` ignored (no event store: the SDK answered nothing, a 500); a body that is no
    JSON-RPC message -32600 (the SDK: -32602 with pydantic's text); a refused request that
    opened no session names none (the SDK named the session it threw away)."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        headers = scope.get("headers", [])
        if scope["type"] == "http" and scope["method"] == "GET":
            scope = {**scope, "headers": [(k, v) for k, v in headers if k.lower() != b"last-event-id"]}
        opening = not any(k.lower() == b"mcp-session-id" for k, _ in headers)
        held: dict[str, Any] | None = None
        chunks: list[bytes] = []

        async def rewrite(message: Any) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and message["status"] >= 300 and opening:
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"mcp-session-id"]
                message = {**message, "headers": kept}
            if message["type"] == "http.response.start" and message["status"] == 400:
                held = message
                return
            if held is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(chunks)
            with contextlib.suppress(ValueError, AttributeError):
                error = json.loads(body).get("error") or {}
                if error.get("code") == -32602 and str(error.get("message", "")).startswith("Validation error:"):
                    body = json.dumps(_INVALID_REQUEST).encode()
            kept = [(k, v) for k, v in held.get("headers", []) if k.lower() != b"content-length"]
            await send({**held, "headers": [*kept, (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})

        await app(scope, receive, rewrite)

    return wrapped


def initialize(request_id: Any = 1, version: str = VERSION) -> Message:
    params = {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}


def session_of(answer: Answer) -> str:
    return next(v.decode() for k, v in answer[1] if k == b"mcp-session-id")


async def until(condition: Callable[[], bool], what: str, *, deadline: float = 30) -> None:
    """Waits for ``condition``, checked on the loop between its other tasks' steps."""
    ends = time.monotonic() + deadline
    while not condition():
        assert time.monotonic() < ends, f"no {what} within {deadline} s"
        await asyncio.sleep(0.01)


async def open_session(app: Any) -> str:
    answer = await call(app, "POST", initialize(), H)
    assert answer[0] == 200, answer
    session = session_of(answer)
    done = await call(app, "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, in_session(session))
    assert done[0] == 202, done
    return session


def in_session(session: str, headers: list[tuple[bytes, bytes]] = H) -> list[tuple[bytes, bytes]]:
    return [*headers, (b"mcp-session-id", session.encode())]


def normal(answer: Answer, session: str | None) -> tuple[int, list[tuple[bytes, bytes]], Any]:
    """The answer with its session id (and any fresh one) as placeholders, a body of events or
    a result as JSON values, the SSE ping comments gone."""
    status, headers, body = answer
    sid = session.encode() if session else b"\0"
    kept = []
    for k, v in headers:
        if k == b"mcp-session-id":
            v = b"<sent>" if v == sid else b"<new>"
        kept.append((k, v))
    value: Any = body
    if body.startswith(b"event:"):
        value = events(body)
    elif b'"result"' in body:
        value = json.loads(body)
    return status, kept, value


LIST = {"jsonrpc": "2.0", "id": 6, "method": "tools/list"}
PING = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
S = "session"  # in a case's headers: this side's session id

CASES: dict[str, tuple[str, Any, list[tuple[bytes, bytes]], bool]] = {
    # name: (method, body, headers, with the session)
    "initialize": ("POST", initialize(), H, False),
    "initialize at 2024-11-05": ("POST", initialize(version="2024-11-05"), H, False),
    "initialize at an unknown version": ("POST", initialize(version="1999-01-01"), H, False),
    "initialize with bad params": ("POST", {**initialize(), "params": {"x": 1}}, H, False),
    "initialize again": ("POST", initialize(), H, True),
    "tools/list": ("POST", LIST, H, True),
    "ping": ("POST", PING, H, True),
    "unknown method": ("POST", {"jsonrpc": "2.0", "id": 5, "method": "no/such"}, H, True),
    "bad JSON": ("POST", b'{"jsonrpc": "2.0", "id": 5,', H, True),
    "bad JSON without a session": ("POST", b"{", H, False),
    "not UTF-8": ("POST", b'{"a": "\xff"}', H, True),
    "deep nesting": ("POST", b"[" * 100_000, H, True),
    "empty body": ("POST", b"", H, True),
    "an id-less request with a bad id": ("POST", {**PING, "id": 1.5}, H, True),
    "batch": ("POST", [PING], H, True),
    "batch without a session": ("POST", [PING], H, False),
    "a string": ("POST", "x", H, True),
    "no method": ("POST", {"jsonrpc": "2.0", "id": 5}, H, True),
    "id true": ("POST", {**PING, "id": True}, H, True),
    "tools/list without a session": ("POST", LIST, H, False),
    "ping without a session": ("POST", PING, H, False),
    "a notification without a session": ("POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, H, False),
    "a notification": ("POST", {"jsonrpc": "2.0", "method": "notifications/progress"}, H, True),
    "a response": ("POST", {"jsonrpc": "2.0", "id": 99, "result": {}}, H, True),
    "Content-Type text/plain": ("POST", LIST, with_header(H, b"content-type", b"text/plain"), True),
    "no Content-Type": ("POST", LIST, with_header(H, b"content-type", None), True),
    "Host other": ("POST", LIST, with_header(H, b"host", b"evil:1"), True),
    "Origin other": ("POST", LIST, [*H, (b"origin", b"http://evil")], True),
    "no Accept": ("POST", LIST, with_header(H, b"accept", None), True),
    "no Accept without a session": ("POST", initialize(), with_header(H, b"accept", None), False),
    "Accept JSON only": ("POST", LIST, with_header(H, b"accept", b"application/json"), True),
    "Accept */*": ("POST", PING, with_header(H, b"accept", b"*/*"), True),
    "Accept halves": ("POST", PING, with_header(H, b"accept", b"application/*;q=0.5 , TEXT/*"), True),
    "GET without SSE Accept": ("GET", b"", with_header(H, b"accept", b"application/json"), True),
    "GET without a session": ("GET", b"", with_header(H, b"accept", b"text/event-stream"), False),
    "GET with Last-Event-ID, no session": (
        "GET",
        b"",
        [*with_header(H, b"accept", b"text/event-stream"), (b"last-event-id", b"x")],
        False,
    ),
    "DELETE without a session": ("DELETE", b"", H, False),
    "PUT": ("PUT", LIST, H, True),
    "PUT without a session": ("PUT", LIST, H, False),
    "OPTIONS": ("OPTIONS", b"", H, True),
    "unknown session id": ("POST", LIST, [*H, (b"mcp-session-id", b"0" * 32)], False),
    "DELETE an unknown session": ("DELETE", b"", [*H, (b"mcp-session-id", b"0" * 32)], False),
    "tools/call arguments not an object": (
        "POST",
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "x", "arguments": "x"}},
        H,
        True,
    ),
    "body over 4 MiB": ("POST", {**PING, "params": {"pad": "a" * (4 << 20)}}, H, True),
    "DELETE": ("DELETE", b"", H, True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_handshake_answers_are_the_sdks(case: str) -> None:
    method, body, headers, with_session = CASES[case]

    async def one(app: Any) -> tuple[int, list[tuple[bytes, bytes]], Any]:
        session = await open_session(app) if with_session else None
        sent = in_session(session, headers) if session else headers
        return normal(await call(app, method, body, sent), session)

    async def run() -> tuple[Any, Any]:
        async with pair() as both:
            return await one(both.sdk), await one(both.ours)

    theirs, ours = asyncio.run(run())
    assert ours == theirs


def test_a_deleted_session_is_not_found_and_an_unestablished_one_is_never_kept() -> None:
    async def run() -> None:
        async with pair() as both:
            for app in (both.sdk, both.ours):
                session = await open_session(app)
                assert (await call(app, "DELETE", b"", in_session(session)))[0] == 200
                gone = await call(app, "POST", LIST, in_session(session))
                assert gone[0] == 404 and b"Session not found" in gone[2]
            refused = await call(both.ours, "POST", LIST, H)
            assert refused[0] == 400 and not both.endpoint.sessions

    asyncio.run(run())


def call_request(request_id: Any, name: str, *, token: Any = None) -> Message:
    params: Message = {"name": name, "arguments": {}}
    if token is not None:
        params["_meta"] = {"progressToken": token}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def test_progress_rides_the_requests_stream_before_its_answer() -> None:
    async def run() -> list[Message]:
        async with pair() as both:
            session = await open_session(both.ours)
            answer = await call(both.ours, "POST", call_request(7, "tick", token="t"), in_session(session))
            return events(answer[2])

    sent = asyncio.run(run())
    assert [m.get("method") for m in sent] == ["notifications/progress", "notifications/progress", None]
    assert sent[0]["params"] == {"progressToken": "t", "progress": 1, "message": "first"}
    assert sent[2]["id"] == 7 and "result" in sent[2]


def test_a_cancelled_request_ends_its_stream_with_request_cancelled_and_the_session_serves_on() -> None:
    async def run() -> tuple[list[Message], Answer]:
        async with pair() as both:
            session = await open_session(both.ours)
            slow = asyncio.ensure_future(call(both.ours, "POST", call_request(8, "slow"), in_session(session)))
            await asyncio.wait_for(both.catalog.started.wait(), 30)
            cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 8}}
            assert (await call(both.ours, "POST", cancel, in_session(session)))[0] == 202
            await asyncio.wait_for(both.catalog.cancelled.wait(), 30)
            answered = await asyncio.wait_for(slow, 30)
            return events(answered[2]), await call(both.ours, "POST", PING, in_session(session))

    cancelled, after = asyncio.run(run())
    assert cancelled == [{"jsonrpc": "2.0", "id": 8, "error": {"code": -32800, "message": "Request cancelled"}}]
    assert events(after[2]) == [{"jsonrpc": "2.0", "id": 5, "result": {}}]


def test_requests_of_one_session_run_concurrently() -> None:
    async def run() -> list[Message]:
        async with pair() as both:
            session = await open_session(both.ours)
            slow = asyncio.ensure_future(call(both.ours, "POST", call_request(8, "slow"), in_session(session)))
            await asyncio.wait_for(both.catalog.started.wait(), 30)
            quick = await asyncio.wait_for(call(both.ours, "POST", PING, in_session(session)), 30)
            both.catalog.release.set()
            return [*events(quick[2]), *events((await asyncio.wait_for(slow, 30))[2])]

    quick, slow = asyncio.run(run())
    assert quick["id"] == 5 and slow["id"] == 8 and "result" in slow


def test_the_get_stream_carries_list_changed_and_a_second_get_is_a_conflict() -> None:
    async def run() -> tuple[list[Message], int]:
        async with pair() as both:
            session = await open_session(both.ours)
            get_headers = in_session(session, with_header(H, b"accept", b"text/event-stream"))
            client = Client()
            stream = asyncio.ensure_future(client.run(both.ours, "GET", b"", get_headers))
            for _ in range(200):
                if both.endpoint.sessions[session].standalone is not None:
                    break
                await asyncio.sleep(0.01)
            second = await call(both.ours, "GET", b"", get_headers)
            both.catalog.change()
            await asyncio.wait_for(client.first_event.wait(), 30)
            client.hang_up.set()
            answer = await asyncio.wait_for(stream, 30)
            return events(answer[2]), second[0]

    sent, second = asyncio.run(run())
    assert sent == [{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}]
    assert second == 409


def test_an_idle_session_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    async def run() -> Answer:
        async with pair() as both:
            both.endpoint.idle_timeout = 0.05
            session = await open_session(both.ours)
            for _ in range(500):
                if session not in both.endpoint.sessions:
                    break
                await asyncio.sleep(0.01)
            return await call(both.ours, "POST", PING, in_session(session))

    assert asyncio.run(run())[0] == 404


def test_a_silent_request_is_pinged_as_sse_starlette_pinged(monkeypatch: pytest.MonkeyPatch) -> None:
    from wpfprobe.mcp import handshake

    monkeypatch.setattr(handshake, "PING_INTERVAL", 0.05)

    async def run() -> bytes:
        async with pair() as both:
            session = await open_session(both.ours)
            client = Client()
            body = json.dumps(call_request(8, "slow")).encode()
            slow = asyncio.ensure_future(client.run(both.ours, "POST", body, in_session(session)))
            await asyncio.wait_for(both.catalog.started.wait(), 30)

            def pinged() -> bool:
                bodies = [m.get("body", b"") for m in client.messages if m["type"] == "http.response.body"]
                return any(b": ping - " in body for body in bodies)

            # The call is held until its stream has carried a ping.
            await until(pinged, "a ping")
            both.catalog.release.set()
            return (await asyncio.wait_for(slow, 30))[2]

    body = asyncio.run(run())
    pings = [part for part in body.split(b"\r\n\r\n") if part.startswith(b": ping - ")]
    assert pings, body
    assert all(re.fullmatch(rb": ping - \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00:00", p) for p in pings), pings
    assert events(body)[-1]["id"] == 8
    assert body.endswith(b"\r\n\r\n")


def test_closing_the_kernel_ends_open_get_streams_and_their_sessions() -> None:
    """At stop (``Kernel.close``) an open GET stream ends at once, not at the server's cut-off."""

    async def run() -> tuple[Answer, Answer]:
        async with pair() as both:
            session = await open_session(both.ours)
            get_headers = in_session(session, with_header(H, b"accept", b"text/event-stream"))
            stream = asyncio.ensure_future(Client().run(both.ours, "GET", b"", get_headers))
            for _ in range(500):
                if both.endpoint.sessions[session].standalone is not None:
                    break
                await asyncio.sleep(0.01)
            both.catalog.change()  # the kernel has its loop now
            both.endpoint.kernel.close()
            ended = await asyncio.wait_for(stream, 30)
            return ended, await call(both.ours, "POST", PING, in_session(session))

    ended, after = asyncio.run(run())
    assert ended[0] == 200
    assert after[0] == 404


def test_beyond_max_sessions_the_least_recently_used_idle_one_ends() -> None:
    async def run() -> dict[str, int]:
        async with pair() as both:
            both.endpoint._max_sessions = 3
            first, second, third = [await open_session(both.ours) for _ in range(3)]
            await call(both.ours, "POST", PING, in_session(first))  # first is now the most recently used
            slow = asyncio.ensure_future(call(both.ours, "POST", call_request(8, "slow"), in_session(second)))
            await asyncio.wait_for(both.catalog.started.wait(), 30)
            fourth = await open_session(both.ours)  # third is the least recently used with nothing in flight
            statuses = {}
            for name, session in (("first", first), ("third", third), ("fourth", fourth)):
                statuses[name] = (await call(both.ours, "POST", PING, in_session(session)))[0]
            both.catalog.release.set()
            statuses["second"] = (await asyncio.wait_for(slow, 30))[0]
            return statuses

    assert asyncio.run(run()) == {"first": 200, "third": 404, "fourth": 200, "second": 200}
