"""The 2026-07-28 era over HTTP without the SDK (httpserve.py), driven in-process over ASGI.

The same raw requests go to the SDK's streamable HTTP app (as server.py mounted it) and to
``EraRouter(ModernEndpoint(kernel), sdk_app)``; the answers (status, headers, body bytes;
a result's JSON value, whose keys the SDK orders by its models' fields) must be the same. The kernel serves a fake catalog whose ``tools/list`` is the SDK server's
own, so listings compare too; tool calls, progress, cancellation and listen streams are
checked against the SDK's rules directly.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from wpfprobe.mcp import httpserve
from wpfprobe.mcp.httpserve import EraRouter, ModernEndpoint
from wpfprobe.mcp.protocol import Kernel, Progress

PORT = 8123
HOSTS = [f"127.0.0.1:{PORT}", f"localhost:{PORT}"]
ORIGINS = [f"http://{h}" for h in HOSTS]
MODERN = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}
Message = dict[str, Any]
Answer = tuple[int, list[tuple[bytes, bytes]], bytes]


class FakeCatalog:
    """The SDK server's tool list (its catalog's); ``echo`` answers its arguments, ``tick`` reports progress,
    ``slow`` waits for release (and notes its cancellation), ``seen`` answers a context variable."""

    def __init__(self, tools: list[Message], tier: str = "read") -> None:
        self.tier = tier
        self.tools = tools
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()
        self._listeners: list[Callable[[], None]] = []

    def list_tools(self) -> list[Message]:
        tools: list[Message] = json.loads(json.dumps(self.tools))
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any] | None, *, progress: Progress | None) -> Message:
        if name == "tick" and progress is not None:
            await progress(1, None, "first")
            await progress(2, None, "second")
        if name == "slow":
            self.started.set()
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        if name == "seen":
            return {"content": [{"type": "text", "text": SEEN.get()}], "structuredContent": {"seen": SEEN.get()}}
        text = json.dumps(arguments)
        return {"content": [{"type": "text", "text": text}], "structuredContent": {"arguments": arguments}}

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    def change(self) -> None:
        for callback in list(self._listeners):
            callback()


SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="unset")


class Apps:
    def __init__(self, sdk: Any, ours: Any, catalog: FakeCatalog, kernel: Kernel) -> None:
        self.sdk, self.ours, self.catalog, self.kernel = sdk, ours, catalog, kernel


def sdk_app() -> tuple[Any, Any]:
    """The SDK reference's ToolServer and the SDK's streamable HTTP app over it, as server.py mounted
    it before the kernel served HTTP: the reference both eras' endpoints are compared with."""
    from mcp.server.transport_security import TransportSecuritySettings
    from sdk_reference import ToolServer

    served = ToolServer(None, tier="read")
    sdk = served.server.streamable_http_app(
        streamable_http_path="/mcp",
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=HOSTS, allowed_origins=ORIGINS
        ),
        session_idle_timeout=300,
        max_sessions=64,
    )
    return served, sdk


@contextlib.asynccontextmanager
async def apps() -> AsyncIterator[Apps]:
    from wpfprobe.core.version import __version__
    from wpfprobe.mcp.catalog import INSTRUCTIONS

    served, sdk = sdk_app()
    server = served.server
    catalog = FakeCatalog(served.catalog.list_tools())
    kernel = Kernel(catalog, version=__version__, instructions=INSTRUCTIONS)
    ours = EraRouter(ModernEndpoint(kernel, hosts=HOSTS, origins=ORIGINS), sdk)
    async with server.session_manager.run():
        yield Apps(sdk, ours, catalog, kernel)


def headers_for(method: str | None, *, name: str | None = None, version: str = MODERN) -> list[tuple[bytes, bytes]]:
    pairs = [
        (b"host", HOSTS[0].encode()),
        (b"content-type", b"application/json"),
        (b"accept", b"application/json, text/event-stream"),
        (b"mcp-protocol-version", version.encode()),
    ]
    if method is not None:
        pairs.append((b"mcp-method", method.encode()))
    if name is not None:
        pairs.append((b"mcp-name", name.encode()))
    return pairs


def request(request_id: Any, method: str, params: Message | None = None, *, meta: Message | None = None) -> Message:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": {**ENVELOPE, **(meta or {})}},
    }


class Client:
    """One ASGI exchange: the body in one piece, then (once told, or once answered) a hang-up."""

    def __init__(self) -> None:
        self.hang_up = asyncio.Event()
        self.messages: list[Message] = []
        self.first_event = asyncio.Event()

    async def run(
        self, app: Any, method: str, body: bytes, headers: list[tuple[bytes, bytes]], *, chunks: int = 1
    ) -> Answer:
        pieces = [body[i * len(body) // chunks : (i + 1) * len(body) // chunks] for i in range(chunks)]
        sent = 0

        async def receive() -> Message:
            nonlocal sent
            if sent < len(pieces):
                sent += 1
                return {"type": "http.request", "body": pieces[sent - 1], "more_body": sent < len(pieces)}
            await self.hang_up.wait()
            return {"type": "http.disconnect"}

        async def send(message: Message) -> None:
            self.messages.append(message)
            if message["type"] == "http.response.body" and message.get("body", b"").startswith(b"event:"):
                self.first_event.set()
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self.hang_up.set()

        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": "/mcp",
            "raw_path": b"/mcp",
            "root_path": "",
            "query_string": b"",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", PORT),
        }
        await asyncio.wait_for(app(scope, receive, send), 60)
        starts = [m for m in self.messages if m["type"] == "http.response.start"]
        status, response_headers = (starts[0]["status"], list(starts[0]["headers"])) if starts else (0, [])
        body = b"".join(m.get("body", b"") for m in self.messages if m["type"] == "http.response.body")
        return status, response_headers, body


async def call(app: Any, method: str, body: Any, headers: list[tuple[bytes, bytes]], *, chunks: int = 1) -> Answer:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return await Client().run(app, method, raw, headers, chunks=chunks)


def events(body: bytes) -> list[Message]:
    return [json.loads(line[len(b"data: ") :]) for line in body.split(b"\r\n") if line.startswith(b"data: ")]


# --- the same answers as the SDK's app ----------------------------------------------------------------------

LISTING = request(6, "tools/list")
CALL = request(7, "tools/call", {"name": "wpf_get_windows", "arguments": "x"})
NO_ENVELOPE = {"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {}}
M = headers_for("tools/list")


def with_header(headers: list[tuple[bytes, bytes]], name: bytes, value: bytes | None) -> list[tuple[bytes, bytes]]:
    kept = [(k, v) for k, v in headers if k != name]
    return kept if value is None else [*kept, (name, value)]


MATRIX: dict[str, tuple[str, Any, list[tuple[bytes, bytes]]]] = {
    "bad JSON": ("POST", b'{"jsonrpc": "2.0", "id": 6,', M),
    "not UTF-8": ("POST", b'{"a": "\xff"}', M),
    "deep nesting": ("POST", b"[" * 100_000, M),
    "batch": ("POST", [LISTING], M),
    "a string": ("POST", "x", M),
    "a number": ("POST", 5, M),
    "empty object": ("POST", {}, M),
    'jsonrpc "1.0"': ("POST", {**LISTING, "jsonrpc": "1.0"}, M),
    "no method": ("POST", {"jsonrpc": "2.0", "id": 6, "params": {"_meta": ENVELOPE}}, M),
    "id true": ("POST", {**LISTING, "id": True}, M),
    "id null": ("POST", {**LISTING, "id": None}, M),
    "id 1.0": ("POST", {**LISTING, "id": 1.0}, M),
    "params a list": ("POST", {**LISTING, "params": []}, M),
    "a response": ("POST", {"jsonrpc": "2.0", "id": 6, "result": {}}, M),
    "an error response": ("POST", {"jsonrpc": "2.0", "id": 6, "error": {"code": 1, "message": "x"}}, M),
    "Content-Type text/plain": ("POST", LISTING, with_header(M, b"content-type", b"text/plain")),
    "no Content-Type": ("POST", LISTING, with_header(M, b"content-type", None)),
    "Content-Type upper case": ("POST", LISTING, with_header(M, b"content-type", b"APPLICATION/JSON; x")),
    "Host in capitals": ("POST", LISTING, with_header(M, b"host", f"LOCALHOST:{PORT}".encode())),
    "Host other": ("POST", LISTING, with_header(M, b"host", b"evil:1")),
    "Origin other": ("POST", LISTING, [*M, (b"origin", b"http://evil")]),
    "Origin ours": ("POST", LISTING, [*M, (b"origin", ORIGINS[1].encode())]),
    "Origin empty": ("POST", LISTING, [*M, (b"origin", b"")]),
    "no Accept": ("POST", LISTING, with_header(M, b"accept", None)),
    "Accept JSON only": ("POST", LISTING, with_header(M, b"accept", b"application/json")),
    "Accept SSE only": ("POST", LISTING, with_header(M, b"accept", b"text/event-stream")),
    "Accept wildcard": ("POST", LISTING, with_header(M, b"accept", b"*/*")),
    "Accept halves": ("POST", LISTING, with_header(M, b"accept", b"application/*;q=0.5 , TEXT/*")),
    "GET": ("GET", b"", with_header(M, b"accept", b"text/event-stream")),
    "PUT": ("PUT", LISTING, M),
    "DELETE": ("DELETE", b"", M),
    "OPTIONS": ("OPTIONS", b"", M),
    "GET with a big declared body": ("GET", b"", [*M, (b"content-length", str(5 << 20).encode())]),
    "unknown method": ("POST", request(6, "no/such"), headers_for("no/such")),
    "ping": ("POST", request(6, "ping"), headers_for("ping")),
    "initialize": ("POST", request(1, "initialize", {"protocolVersion": MODERN}), headers_for("initialize")),
    "logging/setLevel": ("POST", request(1, "logging/setLevel", {"level": "info"}), headers_for("logging/setLevel")),
    "prompts/list": ("POST", request(1, "prompts/list"), headers_for("prompts/list")),
    "tools/call arguments not an object": ("POST", CALL, headers_for("tools/call", name="wpf_get_windows")),
    "tools/call without Mcp-Name": (
        "POST",
        {**CALL, "params": {**CALL["params"], "arguments": {}}},
        headers_for("tools/call"),
    ),
    "tools/call Mcp-Name differs": (
        "POST",
        {**CALL, "params": {**CALL["params"], "arguments": {}}},
        headers_for("tools/call", name="wpf_get_children"),
    ),
    "tools/call Mcp-Name base64": (
        "POST",
        {**CALL, "params": {**CALL["params"], "name": "nope", "arguments": 1}},
        headers_for("tools/call", name="=?base64?bm9wZQ==?="),
    ),
    "a notification": (
        "POST",
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "_meta": ENVELOPE}},
        headers_for("notifications/cancelled"),
    ),
    "a notification at version x": (
        "POST",
        {"jsonrpc": "2.0", "method": "notifications/cancelled"},
        headers_for("notifications/cancelled", version="x"),
    ),
    "a notification at an empty version": ("POST", {"jsonrpc": "2.0", "method": "x"}, headers_for("x", version="")),
    "no envelope": ("POST", NO_ENVELOPE, M),
    "no params": ("POST", {"jsonrpc": "2.0", "id": 6, "method": "tools/list"}, M),
    "envelope without clientCapabilities": (
        "POST",
        {**NO_ENVELOPE, "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}},
        M,
    ),
    "Mcp-Method differs from the body": ("POST", LISTING, headers_for("server/discover")),
    "no Mcp-Method": ("POST", LISTING, headers_for(None)),
    "Mcp-Method twice": ("POST", LISTING, [*M, (b"mcp-method", b"tools/list")]),
    "version header twice": ("POST", LISTING, [*M, (b"mcp-protocol-version", MODERN.encode())]),
    "header version differs from the envelope": (
        "POST",
        request(6, "tools/list", meta={"io.modelcontextprotocol/protocolVersion": "2030-01-01"}),
        M,
    ),
    "unsupported version": (
        "POST",
        request(6, "server/discover", meta={"io.modelcontextprotocol/protocolVersion": "2030-01-01"}),
        headers_for("server/discover", version="2030-01-01"),
    ),
    "version not a string": (
        "POST",
        request(6, "server/discover", meta={"io.modelcontextprotocol/protocolVersion": 5}),
        headers_for("server/discover", version="5"),
    ),
    "bad capabilities": (
        "POST",
        request(6, "server/discover", meta={"io.modelcontextprotocol/clientCapabilities": 5}),
        headers_for("server/discover"),
    ),
    "an unknown session id": (
        "POST",
        request(6, "server/discover"),
        [*headers_for("server/discover"), (b"mcp-session-id", b"0" * 32)],
    ),
    "server/discover": ("POST", request("d", "server/discover"), headers_for("server/discover")),
    "tools/list": ("POST", request(6, "tools/list"), M),
    "tools/list bad cursor": ("POST", request(6, "tools/list", {"cursor": 5}), M),
    "non-ASCII id": ("POST", request("é\u2028", "server/discover"), headers_for("server/discover")),
    "body over 4 MiB": ("POST", request(6, "tools/list", {"pad": "a" * (4 << 20)}), M),
    "body over 4 MiB in pieces, none declared": ("POST", request(6, "tools/list", {"pad": "a" * (4 << 20)}), M),
}


@pytest.mark.parametrize("case", list(MATRIX))
def test_the_2026_answers_are_the_sdks_byte_for_byte(case: str) -> None:
    method, body, headers = MATRIX[case]
    chunks = 7 if "in pieces" in case else 1
    if "declared" not in case and "over 4 MiB" in case:
        raw = json.dumps(body).encode()
        headers = [*headers, (b"content-length", str(len(raw)).encode())]

    async def run() -> tuple[Answer, Answer]:
        async with apps() as both:
            theirs = await call(both.sdk, method, body, headers, chunks=chunks)
            ours = await call(both.ours, method, body, headers, chunks=chunks)
            return theirs, ours

    theirs, ours = asyncio.run(run())
    assert ours[:2] == theirs[:2]
    if b'"result"' in theirs[2]:
        # Results are the same JSON; their keys' order is pydantic's field order in the SDK.
        assert json.loads(ours[2]) == json.loads(theirs[2])
    else:
        assert ours[2] == theirs[2]
    assert ours[0] != 0


def test_handshake_requests_and_the_lifespan_go_to_the_app_behind() -> None:
    seen: list[tuple[str, str | None]] = []

    async def behind(scope: Any, receive: Any, send: Any) -> None:
        version = dict(scope.get("headers", [])).get(b"mcp-protocol-version")
        seen.append((scope["type"], version.decode() if version is not None else None))

    async def modern(scope: Any, receive: Any, send: Any) -> None:
        seen.append(("modern", None))

    router = EraRouter(modern, behind)

    async def run() -> None:
        for version in [None, "2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN, "x", ""]:
            headers = [] if version is None else [(b"mcp-protocol-version", version.encode())]
            await router({"type": "http", "headers": headers}, None, None)  # type: ignore[arg-type]
        await router({"type": "lifespan"}, None, None)  # type: ignore[arg-type]
        # The first of two headers decides, as the SDK's manager reads it.
        await router(
            {"type": "http", "headers": [(b"mcp-protocol-version", b"2025-06-18"), (b"mcp-protocol-version", b"x")]},
            None,  # type: ignore[arg-type]
            None,  # type: ignore[arg-type]
        )

    asyncio.run(run())
    assert seen == [
        ("http", None),
        ("http", "2024-11-05"),
        ("http", "2025-03-26"),
        ("http", "2025-06-18"),
        ("http", "2025-11-25"),
        ("modern", None),
        ("modern", None),
        ("modern", None),
        ("lifespan", None),
        ("http", "x"),
    ]


# --- calls: JSON, or an event stream from the first progress; hang-up cancels ---------------------------


def call_request(request_id: Any, name: str, arguments: Message | None = None, *, token: Any = None) -> Message:
    meta = {"progressToken": token} if token is not None else None
    return request(request_id, "tools/call", {"name": name, "arguments": arguments or {}}, meta=meta)


def test_a_quick_call_is_answered_as_json() -> None:
    async def run() -> Answer:
        async with apps() as both:
            return await call(
                both.ours, "POST", call_request(3, "echo", {"a": "é"}), headers_for("tools/call", name="echo")
            )

    status, headers, body = asyncio.run(run())
    assert status == 200
    assert headers == [(b"content-length", str(len(body)).encode()), (b"content-type", b"application/json")]
    answer = json.loads(body)
    assert answer["id"] == 3
    assert answer["result"]["structuredContent"] == {"arguments": {"a": "é"}}
    assert answer["result"]["resultType"] == "complete"
    assert b"\\u00e9" in body, "written as the SDK writes: ASCII"


def test_progress_turns_the_answer_into_an_event_stream_ending_with_the_answer() -> None:
    async def run() -> Answer:
        async with apps() as both:
            return await call(
                both.ours, "POST", call_request(3, "tick", token="p"), headers_for("tools/call", name="tick")
            )

    status, headers, body = asyncio.run(run())
    assert status == 200
    assert headers == [
        (b"content-type", b"text/event-stream"),
        (b"cache-control", b"no-cache, no-transform"),
        (b"connection", b"keep-alive"),
        (b"x-accel-buffering", b"no"),
    ]
    frames = events(body)
    assert [f.get("method") for f in frames] == ["notifications/progress", "notifications/progress", None]
    assert frames[0]["params"] == {"progressToken": "p", "progress": 1, "message": "first"}
    assert frames[2]["id"] == 3 and "result" in frames[2]
    assert body.startswith(b'event: message\r\ndata: {"jsonrpc":"2.0","method":"notifications/progress"')
    assert body.endswith(b"\r\n\r\n")


def test_without_a_progress_token_no_progress_is_sent() -> None:
    async def run() -> Answer:
        async with apps() as both:
            return await call(both.ours, "POST", call_request(3, "tick"), headers_for("tools/call", name="tick"))

    status, headers, body = asyncio.run(run())
    assert (status, json.loads(body)["id"]) == (200, 3)
    assert (b"content-type", b"application/json") in headers


def test_a_silent_call_commits_to_an_event_stream_and_pings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(httpserve, "SSE_COMMIT_AFTER", 0.05)

    async def run() -> Answer:
        async with apps() as both:
            client = Client()
            task = asyncio.ensure_future(
                client.run(
                    both.ours,
                    "POST",
                    json.dumps(call_request(3, "slow")).encode(),
                    headers_for("tools/call", name="slow"),
                )
            )
            await both.catalog.started.wait()
            while sum(1 for m in client.messages if m.get("body") == b": ping\r\n\r\n") < 2:
                await asyncio.sleep(0.01)
            both.catalog.release.set()
            return await task

    status, headers, body = asyncio.run(run())
    assert status == 200 and (b"content-type", b"text/event-stream") in headers
    assert body.startswith(b": ping\r\n\r\n: ping\r\n\r\n")
    assert [f["id"] for f in events(body)] == [3]


def test_hanging_up_cancels_the_call_and_nothing_more_is_written() -> None:
    async def run() -> tuple[Client, bool]:
        async with apps() as both:
            client = Client()
            task = asyncio.ensure_future(
                client.run(
                    both.ours,
                    "POST",
                    json.dumps(call_request(3, "slow")).encode(),
                    headers_for("tools/call", name="slow"),
                )
            )
            await both.catalog.started.wait()
            client.hang_up.set()
            await task
            await asyncio.wait_for(both.catalog.cancelled.wait(), 30)
            return client, both.catalog.cancelled.is_set()

    client, cancelled = asyncio.run(run())
    assert cancelled
    assert client.messages == []


def test_the_call_runs_in_the_requests_context() -> None:
    """What spliced.py and the collector deferral rely on: a context variable set around the app
    (as ``written_in_pieces`` sets its own) is the call's."""

    async def run() -> Answer:
        async with apps() as both:

            async def around(scope: Any, receive: Any, send: Any) -> None:
                SEEN.set("the request's")
                await both.ours(scope, receive, send)

            return await call(around, "POST", call_request(3, "seen"), headers_for("tools/call", name="seen"))

    _, _, body = asyncio.run(run())
    assert json.loads(body)["result"]["structuredContent"] == {"seen": "the request's"}


def test_a_listen_stream_acknowledges_then_carries_each_tools_change() -> None:
    async def run() -> tuple[Client, Answer]:
        async with apps() as both:
            client = Client()
            listen = request(9, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
            task = asyncio.ensure_future(
                client.run(both.ours, "POST", json.dumps(listen).encode(), headers_for("subscriptions/listen"))
            )
            await asyncio.wait_for(client.first_event.wait(), 30)
            both.catalog.change()
            while len(events(b"".join(m.get("body", b"") for m in client.messages))) < 2:
                await asyncio.sleep(0.01)
            both.kernel.close()  # the server stops: the stream ends with its result
            return client, await task

    _, (status, headers, body) = asyncio.run(run())
    assert status == 200 and (b"content-type", b"text/event-stream") in headers
    frames = events(body)
    sub = {"io.modelcontextprotocol/subscriptionId": 9}
    assert frames[0] == {
        "jsonrpc": "2.0",
        "method": "notifications/subscriptions/acknowledged",
        "params": {"notifications": {"toolsListChanged": True}, "_meta": sub},
    }
    assert frames[1] == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": sub}}
    assert frames[2]["id"] == 9 and frames[2]["result"]["resultType"] == "complete"


def test_a_listener_that_hangs_up_is_forgotten() -> None:
    async def run() -> int:
        async with apps() as both:
            client = Client()
            listen = request(9, "subscriptions/listen", {"notifications": {"toolsListChanged": True}})
            task = asyncio.ensure_future(
                client.run(both.ours, "POST", json.dumps(listen).encode(), headers_for("subscriptions/listen"))
            )
            await asyncio.wait_for(client.first_event.wait(), 30)
            client.hang_up.set()
            await task
            for _ in range(100):
                if not both.kernel._listeners:
                    break
                await asyncio.sleep(0.01)
            return len(both.kernel._listeners)

    assert asyncio.run(run()) == 0


# --- the handshake era's app, made on its first request ------------------------------------------------
