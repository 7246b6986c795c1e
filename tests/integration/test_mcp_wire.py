"""What the in-app server says on the wire, and that the app hears none of it.

One app in a process of its own (scripts/wire_app.py: the example app at the interact
tier, with custom tools, and no logging configured, so whatever reached Python's
last-resort log handler would land on its stderr). Requests go over real sockets: raw
HTTP where the exact bytes matter, the official SDK client elsewhere. After every test
the app's stderr must not have grown: a client's request, however malformed, never
makes the app print.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from wire_harness import HANDSHAKE, WireApp, initialize_body

ERROR_KEYS = {"code", "message", "suggestion", "detail"}


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireApp]:
    app = WireApp(tmp_path_factory.mktemp("wire"))
    try:
        yield app
    finally:
        app.close()


@pytest.fixture(autouse=True)
def prints_nothing(wire: WireApp) -> Iterator[None]:
    """Whatever a test sends, the app's stderr does not grow (checked after one more round trip,
    so anything the server would log while answering the test's requests is written by then)."""
    before = wire.printed()
    yield
    assert wire.send(body={"jsonrpc": "2.0", "id": 1, "method": "ping"}).status in (200, 400)
    after = wire.printed()
    assert after == before, f"the app printed:\n{after[len(before) :][-4000:]}"


def tool_error(result: Any, code: str) -> dict[str, Any]:
    assert result.is_error, result
    err = result.structured_content
    assert isinstance(err, dict) and set(err) == ERROR_KEYS, result
    assert err["code"] == code, err
    assert err["message"] and err["suggestion"], err
    return err


# -- capabilities: exactly what is served ---------------------------------------------------------


def test_the_probe_configures_no_logging_of_the_apps(wire: WireApp) -> None:
    """Regression: the SDK's MCPServer called logging.basicConfig, giving the app's root logger a
    stderr handler (every library's warning then printed, and the app's own basicConfig did nothing)."""
    assert wire.started["rootHandlers"] == 0


def test_the_declared_capabilities_are_exactly_what_is_served(wire: WireApp) -> None:
    """Regression: prompts and resources were declared (the SDK's defaults) though none is served,
    and tools.listChanged was false although the server sends list_changed when a tool is added."""
    _, result = wire.initialize()
    capabilities = result["capabilities"]
    assert capabilities.get("tools") == {"listChanged": True}, capabilities
    assert set(capabilities) <= {"tools", "extensions"}, capabilities

    # A 2026-07-28 client asks server/discover instead: the same answer.
    discover = wire.send(
        body={
            "jsonrpc": "2.0",
            "id": 3,
            "method": "server/discover",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {},
                }
            },
        },
        headers={"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"},
    )
    assert discover.status == 200, discover
    modern = discover.messages()[0]["result"]["capabilities"]
    assert modern.get("tools") == {"listChanged": True}, modern
    assert set(modern) <= {"tools", "extensions"}, modern


def test_list_changed_is_declared_and_sent_when_a_tool_is_added(wire: WireApp) -> None:
    import mcp_types

    async def body(client: Any) -> tuple[Any, set[str]]:
        changed = asyncio.Event()
        seen.append(changed)
        declared = client.server_capabilities.tools
        # Listing first, as clients do, also lets the client's event stream open: a notification
        # sent before a client listens anywhere has nowhere to go.
        await client.list_tools()
        wire.command("add wire_late")
        await asyncio.wait_for(changed.wait(), 20)
        return declared, {t.name for t in (await client.list_tools()).tools}

    seen: list[asyncio.Event] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification) and seen:
            seen[0].set()

    async def converse() -> tuple[Any, set[str]]:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {wire.token}"}, timeout=30) as http:
            transport = streamable_http_client(wire.url, http_client=http)
            async with Client(transport, mode="legacy", message_handler=on_message) as client:
                return await body(client)

    declared, names = asyncio.run(asyncio.wait_for(converse(), 60))
    assert declared is not None and declared.list_changed is True
    assert "wire_late" in names


# -- every method the SDK routes -------------------------------------------------------------------


NOT_SERVED = [
    ("prompts/list", {}),
    ("prompts/get", {"name": "nope"}),
    ("prompts/get", {"name": "nope", "arguments": {"a": "b"}}),
    ("resources/list", {}),
    ("resources/templates/list", {}),
    ("resources/read", {"uri": "file:///etc/passwd"}),
    ("resources/subscribe", {"uri": "file:///x"}),
    ("resources/unsubscribe", {"uri": "file:///x"}),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": "b"}}),
    ("logging/setLevel", {"level": "debug"}),
    ("sampling/createMessage", {"messages": [], "maxTokens": 1}),
    ("no/such/method", {}),
    ("tools/nope", None),
]


@pytest.mark.parametrize(("method", "params"), NOT_SERVED, ids=[f"{m}-{i}" for i, (m, _) in enumerate(NOT_SERVED)])
def test_a_method_the_server_does_not_serve_is_method_not_found(
    wire: WireApp, method: str, params: dict[str, Any] | None
) -> None:
    """Regression: prompts/get of an unknown name answered JSON-RPC error code 0 and printed two
    tracebacks on the app's stderr; prompts/list and resources/list answered empty lists of
    features the server never declared."""
    session, _ = wire.initialize()
    answer = wire.rpc(session, method, params)
    assert "result" not in answer, answer
    assert answer["error"]["code"] == -32601, answer


def test_served_methods_with_bad_params_are_invalid_params(wire: WireApp) -> None:
    session, _ = wire.initialize()
    for method, params in (
        ("tools/call", {}),
        ("tools/call", {"name": 42}),
        ("tools/call", {"name": "wpf_get_windows", "arguments": "x"}),
        ("tools/list", {"cursor": 5}),
    ):
        answer = wire.rpc(session, method, params)
        assert answer.get("error", {}).get("code") == -32602, (method, params, answer)
    assert wire.rpc(session, "ping")["result"] == {}


@pytest.mark.parametrize(
    "body",
    [
        {"jsonrpc": "2.0", "id": 1},
        [],
        [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        "x",
        5,
    ],
    ids=["no method", "empty batch", "batch", "jsonrpc 1.0", "a string", "a number"],
)
def test_a_body_that_is_no_json_rpc_message_is_invalid_request(wire: WireApp, body: Any) -> None:
    """Regression: the SDK answered -32602 Invalid params with pydantic's account of the body
    (JSON-RPC 2.0: a body that is not a valid Request object is -32600 Invalid Request)."""
    session, _ = wire.initialize()
    for with_session in (session, None):
        reply = wire.send(body=body, session=with_session)
        assert reply.status == 400, reply
        error = reply.messages()[0]["error"]
        assert error["code"] == -32600, reply
        assert "validation error" not in error["message"].lower()


def test_a_refused_request_without_a_session_names_no_session(wire: WireApp) -> None:
    """Regression (found by the golden wire tests): a request without a session that the server
    refused (400 "Missing session ID", a body that is no message, a batch) came back with a new Mcp-Session-Id
    header, for a session the server had already thrown away: a client that used it got 404."""
    refusals = {
        "no session": wire.send(body={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        "not a message": wire.send(body="tools/list"),
        "a batch": wire.send(body=[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
    }
    for case, reply in refusals.items():
        assert reply.status == 400, (case, reply)
        assert reply.header("mcp-session-id") is None, (case, reply.headers)
    # An initialize, which does open one, still names it.
    session, _ = wire.initialize()
    assert session


def test_a_connection_idle_longer_than_a_clients_pool_keeps_it_is_still_served(wire: WireApp) -> None:
    """Regression (the fuzz run of a full suite: two calls ended "Connection closed" in an app
    that went on answering): the server closed a connection idle for 5 s, exactly when httpx's
    pool lets go of one, so a client that reused its connection at that moment had it reset
    under its request. The server now keeps an idle connection longer than clients do; here one
    idle 6 s (past the old 5 s) still answers on the same socket."""
    session, _ = wire.initialize()
    conn = http.client.HTTPConnection(wire.host, wire.port, timeout=30)
    headers = {
        "Host": wire.netloc, "Authorization": f"Bearer {wire.token}", "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream", "Mcp-Session-Id": session,
        "Mcp-Protocol-Version": HANDSHAKE,
    }  # fmt: skip
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    try:
        conn.request("POST", wire.path, body=ping, headers=headers)
        first = conn.getresponse()
        first.read()
        assert first.status == 200
        time.sleep(6.0)  # the input itself: a connection left idle past the old 5 s
        conn.request("POST", wire.path, body=ping, headers=headers)
        second = conn.getresponse()  # RemoteDisconnected when the server had closed it
        second.read()
        assert second.status == 200
    finally:
        conn.close()


# -- arguments arrive as they were sent -----------------------------------------------------------


@pytest.mark.parametrize("value", ["[1]", "{}", "[]", "null", "true", "1", '"quoted"', '{"a": [1, 2]}'])
def test_a_string_that_looks_like_json_stays_that_string(wire: WireApp, value: str) -> None:
    """Regression: the SDK parsed JSON-looking strings in optional string arguments before the
    probe saw them: "[1]" became a list (a validation error without {code, message}) and
    "null" silently became None."""
    result = wire.call("echo_optional", {"value": value})
    assert not result.is_error, result
    assert result.structured_content == {"result": {"value": value, "type": "str"}}


def test_json_looking_strings_reach_the_built_in_tools_as_strings(wire: WireApp) -> None:
    for tool, arguments in (
        ("wpf_find_elements", {"name": "[]"}),
        ("wpf_find_elements", {"text": "{}"}),
        ("wpf_find_elements", {"automationId": "null"}),
        ("wpf_get_resources", {"resourceKey": "{}"}),
    ):
        result = wire.call(tool, arguments)
        assert not result.is_error, (tool, arguments, result)
    # "null" is a filter like any other: it matches no property name, so nothing is listed.
    unfiltered = wire.call("wpf_get_properties", {"locator": "#nameBox"})
    filtered = wire.call("wpf_get_properties", {"locator": "#nameBox", "filter": "null"})
    assert unfiltered.structured_content["totalCount"] > 0
    assert filtered.structured_content["totalCount"] == 0, filtered.structured_content
    # Tools whose strings mean something still refuse them with a structured error, not the SDK's text.
    waited = wire.call(
        "wpf_wait_for",
        {"locator": "#nameBox", "condition": "propertyEquals", "property": "Text", "value": "[1]", "timeoutMs": 50},
    )
    tool_error(waited, "OPERATION_TIMED_OUT")
    picked = wire.call("wpf_select", {"locator": "#sizeCombo", "item": "[1]"})
    assert picked.is_error and isinstance(picked.structured_content, dict), picked
    assert set(picked.structured_content) == ERROR_KEYS, picked


# -- unknown tools ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["wpf_get_windowz", "wpf_get_windows ", "wpf_get_windows\x00", "WPF_GET_WINDOWS"])
def test_an_unknown_tool_is_a_structured_error_naming_close_matches(wire: WireApp, name: str) -> None:
    """Regression: a typo, a trailing space or a NUL got the SDK's text-only "Unknown tool"."""
    err = tool_error(wire.call(name, {}), "INVALID_ARGUMENT")
    assert err["detail"]["closeMatches"][0] == "wpf_get_windows", err
    assert "wpf_get_windows" in err["suggestion"] and "tools/list" in err["suggestion"]


def test_an_unknown_tool_far_from_any_name_suggests_tools_list(wire: WireApp) -> None:
    err = tool_error(wire.call("x" * 5000, {}), "INVALID_ARGUMENT")
    assert err["detail"]["closeMatches"] == []
    assert len(err["message"]) < 400, "the unknown name is not echoed whole"
    assert "tools/list" in err["suggestion"]


# -- HTTP ---------------------------------------------------------------------------------------------


def test_get_with_last_event_id_is_not_a_server_error(wire: WireApp) -> None:
    """Regression: with no event store, a GET carrying Last-Event-ID got HTTP 500 (the SDK returned
    without answering) and uvicorn printed "ASGI callable returned without starting response"."""
    session, _ = wire.initialize()
    for event_id in ("0", "x", "abc_123", "9" * 200):
        reply = wire.send("GET", session=session, headers={"Accept": "text/event-stream", "Last-Event-ID": event_id})
        assert reply.status < 500, (event_id, reply)
        assert reply.status in (200, 409), (event_id, reply)


def raw_exchange(wire: WireApp, request: bytes, *, wait: float = 20.0) -> bytes:
    """Send bytes, read until the server closes or answers a complete response head."""
    with socket.create_connection((wire.host, wire.port), timeout=wait) as sock:
        sock.sendall(request)
        data = b""
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except (TimeoutError, ConnectionResetError):
                break
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data and data.startswith(b"HTTP/1.1 4"):
                break
        return data


def test_a_request_with_both_content_length_and_transfer_encoding_gets_400_and_prints_nothing(
    wire: WireApp,
) -> None:
    """Regression: h11's 400 for an ambiguous body length came with "Invalid HTTP request received."
    and a traceback on the app's stderr."""
    init = json.dumps(initialize_body()).encode()
    head = (
        f"POST {wire.path} HTTP/1.1\r\nHost: {wire.netloc}\r\nAuthorization: Bearer {wire.token}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
    ).encode()
    # h11 reads the body as chunked (the JSON is no chunk size): the request is malformed.
    ambiguous = head + f"Transfer-Encoding: chunked\r\nContent-Length: {len(init)}\r\n\r\n".encode() + init + b"\r\n"
    assert raw_exchange(wire, ambiguous).startswith(b"HTTP/1.1 400"), "the 400 stays"
    assert raw_exchange(wire, b"GARBAGE\r\n\r\n").startswith(b"HTTP/1.1 400")
    assert raw_exchange(wire, b"POST /mcp HTTP/1.1\r\nHost: \x00\x01\r\n\r\n").startswith(b"HTTP/1.1 4")


def test_a_client_that_hangs_up_mid_body_leaves_no_trace(wire: WireApp) -> None:
    """Regression: the SDK logged "Error handling POST request" with a ClientDisconnect traceback."""
    head = (
        f"POST {wire.path} HTTP/1.1\r\nHost: {wire.netloc}\r\nAuthorization: Bearer {wire.token}\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
        'Content-Length: 500\r\n\r\n{"jsonrpc":'
    ).encode()
    with socket.create_connection((wire.host, wire.port), timeout=10) as sock:
        sock.sendall(head)
        # The server has the head and is reading the body when the client goes.
        assert wire.send(body={"jsonrpc": "2.0", "id": 1, "method": "ping"}).status in (200, 400)


def test_a_trailing_slash_serves_the_same_endpoint(wire: WireApp) -> None:
    """Regression: POST /mcp/ answered 307 (a redirect a client may follow with another method)."""
    reply = wire.send(path=wire.path + "/", body=initialize_body())
    assert reply.status == 200, reply
    assert reply.messages()[0]["result"]["serverInfo"]["name"] == "wpfprobe"


def test_other_paths_get_a_json_404(wire: WireApp) -> None:
    for path in ("/", "/elsewhere", wire.path + "/x", wire.path + "//"):
        reply = wire.send(path=path, body=initialize_body())
        assert reply.status == 404, (path, reply)
        assert (reply.header("content-type") or "").startswith("application/json"), reply
        assert set(json.loads(reply.body)) == {"code", "message"}


def test_sessions_beyond_the_cap_evict_the_least_recently_used(wire: WireApp) -> None:
    """Regression: every initialize kept a session for 30 minutes (up to 10,000): 3,000 abandoned ones
    took an app from 184 to 304 MiB. Now at most MAX_SESSIONS live; the least recently used goes,
    its id answers 404, and its client can initialize again."""
    from wpfprobe.mcp.handshake import MAX_SESSIONS

    oldest, _ = wire.initialize()
    kept, _ = wire.initialize()
    fresh = [wire.initialize()[0] for _ in range(MAX_SESSIONS - 2)]
    # Using a session makes it recent: "kept" must outlive the evictions below, "oldest" not.
    assert "result" in wire.rpc(kept, "ping")
    for _ in range(2):
        fresh.append(wire.initialize()[0])
    evicted = wire.send(body={"jsonrpc": "2.0", "id": 7, "method": "ping"}, session=oldest)
    assert evicted.status == 404, evicted
    assert "result" in wire.rpc(kept, "ping"), "a recently used session survives"
    assert "result" in wire.rpc(fresh[-1], "ping")
    again, _ = wire.initialize()
    assert "result" in wire.rpc(again, "ping"), "the evicted client can start over"
    for session in (*fresh, kept, again):
        wire.send("DELETE", session=session)


def test_a_deleted_session_is_gone_and_frees_its_place(wire: WireApp) -> None:
    session, _ = wire.initialize()
    assert wire.send("DELETE", session=session).status == 200
    assert wire.send(body={"jsonrpc": "2.0", "id": 7, "method": "ping"}, session=session).status == 404


# -- a big answer is written in pieces (mcp/spliced.py), and arrives whole --------------------------


def _trees(wire: WireApp, arguments: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """The same tree asked for three ways: a handshake-era session over raw HTTP (its answer as
    plain JSON), the same with a progress token (its answer an event stream), and the SDK's client."""
    session, _ = wire.initialize()
    plain = wire.rpc(session, "tools/call", {"name": "wpf_get_visual_tree", "arguments": arguments})
    streamed = wire.rpc(
        session, "tools/call", {"name": "wpf_get_visual_tree", "arguments": arguments, "_meta": {"progressToken": 5}}
    )
    return plain["result"], streamed["result"], wire.call("wpf_get_visual_tree", arguments)


def _same_tree(result: dict[str, Any], client_result: Any, *, as_json: bool) -> dict[str, Any]:
    tree = result["structuredContent"]
    assert not result.get("isError"), result
    assert "$wpfprobeRaw" not in json.dumps(tree) and "wpfprobe-raw-" not in json.dumps(result)
    assert tree["root"]["type"] == "Form" and tree["returnedNodeCount"] >= 10, tree
    assert client_result.structured_content == tree
    text = result["content"][0]["text"]
    assert client_result.content[0].text == text
    if as_json:
        assert json.loads(text) == tree
    else:
        assert text.splitlines()[0].startswith(tree["root"]["nodeId"] + " Form#")
    return tree


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_tree_arrives_whole_on_either_protocol_and_either_body(wire: WireApp, fmt: str) -> None:
    """The tree's JSON goes into the body in pieces, past the SDK's encoders: handshake-era sessions
    (whose calls run in the session's task) and 2026 requests, JSON bodies and event streams alike."""
    plain, streamed, client = _trees(wire, {"maxDepth": 10, "format": fmt})
    tree = _same_tree(plain, client, as_json=fmt == "json")
    assert _same_tree(streamed, client, as_json=fmt == "json") == tree


def test_a_tree_bigger_than_a_piece_arrives_whole(wire: WireApp) -> None:
    """A list of 3,000 rows, with quotes and characters beyond ASCII in each: its JSON text (over
    a megabyte) is escaped and written a piece at a time, and the body's length is what is written."""
    assert wire.proc.stdout is not None
    wire.call("wpf_get_windows", {})  # the probe attached before the UI thread is kept busy
    wire.command("items 3000")
    _said(wire, "items")
    try:
        plain, streamed, client = _trees(wire, {"maxDepth": 10, "format": "json"})
        for result in (plain, streamed):
            tree = _same_tree(result, client, as_json=True)
            assert len(result["content"][0]["text"]) > 65_536
            rows = [n.get("text") for n in _nodes(tree["root"])]
            assert 'row 2999 "quoted" ünï 😀' in rows
    finally:
        wire.command("items 0")
        _said(wire, "items")


def _said(wire: WireApp, key: str) -> dict[str, Any]:
    """The app's next line about ``key`` (an earlier test's "added" line may still be unread)."""
    assert wire.proc.stdout is not None
    while True:
        line = json.loads(wire.proc.stdout.readline())
        if key in line:
            return line


def _nodes(root: dict[str, Any]) -> Iterator[dict[str, Any]]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.get("children") or ())
