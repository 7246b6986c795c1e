"""The wire the in-app server speaks today, pinned byte for byte (after a small, listed normalization).

Golden files (tests/integration/golden/*.json) record, from the real example app
(scripts/wire_app.py under Xvfb, custom tools included) over raw HTTP on its real socket
and from scripts/stdio_app.py over its pipes:

- ``tools_list_<tier>.json``: the whole ``tools/list`` result at each tier;
- ``initialize.json``: ``initialize`` at each handshake version and at an unknown one;
- ``modern.json``: the 2026-07-28 era: ``server/discover``, ``tools/list``, a ``tools/call``;
- ``errors_handshake.json`` / ``errors_modern.json``: status, content type and JSON-RPC
  messages for a matrix of bad inputs on each era;
- ``stdio.json``: the same over stdio: initialize, tools/list, an unparseable line, a request
  before initialize.

They exist so that a replacement of the SDK inside the app can be proven to speak the same wire.
A difference fails with pytest's diff of the two JSON values. When the wire changes on purpose,
rewrite them and read the diff before committing it:

    WPFPROBE_GOLDEN_UPDATE=1 ./run test tests/integration/test_mcp_golden.py

An exchange is recorded as ``{"status", "contentType" (no parameters), "sse", "messages",
"headers"}``: ``messages`` are the JSON-RPC messages of the body (each ``data:`` frame of an
event stream, or the JSON body), ``text`` stands for a body that is no JSON, ``headers`` keeps
only those in RECORDED_HEADERS.
"""

from __future__ import annotations

import difflib
import http.client
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_mcp_stdio import BEFORE, RawClient
from wire_harness import WireApp, initialize_body

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("WPFPROBE_GOLDEN_UPDATE") == "1"

HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MODERN = "2026-07-28"
RECORDED_HEADERS = ("allow", "mcp-session-id", "cache-control", "x-accel-buffering")
#: scripts/wire_app.py's tools (scripts/stdio_app.py has none).
CUSTOM_TOOLS = frozenset({"test_simple_text", "test_error_handling", "echo_optional"})
SESSION_ID = re.compile(r"[0-9a-f]{32}")


# -- normalization: the only things a golden file does not hold verbatim ------------------------------


def normalize(value: Any) -> Any:
    """``value`` with what differs between runs replaced, and nothing else:

    - wpfprobe's version string (serverInfo.version: a string equal to it, not one holding it):
      it changes with every release, not with the wire -> ``<wpfprobe version>``;
    - the value of an ``Mcp-Session-Id`` header in an answer (normalize_session): a fresh uuid4
      per session -> ``<the session sent>`` when it is the one the request carried, else
      ``<new session id>`` when it is 32 lower-case hex digits (any other value is kept as is).

    SSE ``: ping`` comments (they carry the time) never get here: only ``data:`` frames are read.
    Request ids are not replaced: the tests choose them, so the answers echo fixed values.
    """
    from wpfprobe import __version__

    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, list):
        return [normalize(v) for v in value]
    return "<wpfprobe version>" if value == __version__ else value


def normalize_session(header: str, sent: str | None) -> str:
    if header == sent:
        return "<the session sent>"
    return "<new session id>" if SESSION_ID.fullmatch(header) else header


# -- comparing with, or writing, a golden file ----------------------------------------------------------


def check_golden(name: str, actual: Any) -> None:
    path = GOLDEN / f"{name}.json"
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path.name}: run with WPFPROBE_GOLDEN_UPDATE=1 to write it"
    expected = json.loads(path.read_text(encoding="utf-8"))
    if expected != actual:
        diff = "".join(
            difflib.unified_diff(
                # Keys sorted on both sides: the diff shows what changed, not the order keys came in.
                json.dumps(expected, indent=2, ensure_ascii=False, sort_keys=True).splitlines(keepends=True),
                json.dumps(actual, indent=2, ensure_ascii=False, sort_keys=True).splitlines(keepends=True),
                f"golden/{path.name}",
                "today's wire",
            )
        )
        pytest.fail(f"the wire differs from golden/{path.name}:\n{diff}", pytrace=False)


# -- raw HTTP -------------------------------------------------------------------------------------------

Exchange = dict[str, Any]


def request(
    app: WireApp,
    method: str = "POST",
    *,
    body: Any = None,
    raw: bytes | None = None,
    headers: dict[str, str | None] | None = None,
) -> tuple[dict[str, str], http.client.HTTPResponse, bytes]:
    """One request on a fresh connection: the headers sent, the response and its body. ``headers``
    are added to the defaults (Host, the bearer token, JSON Content-Type, Accept of JSON and SSE);
    ``None`` removes one."""
    all_headers: dict[str, str | None] = {
        "Host": app.netloc,
        "Authorization": f"Bearer {app.token}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    all_headers.update(headers or {})
    sent = {k: v for k, v in all_headers.items() if v is not None}
    payload = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    conn = http.client.HTTPConnection(app.host, app.port, timeout=30)
    try:
        conn.request(method, app.path, body=payload, headers=sent)
        response = conn.getresponse()
        # A standalone event stream (GET) stays open: its head is the answer.
        data = b"" if method == "GET" and response.status == 200 else response.read()
        return sent, response, data
    finally:
        conn.close()


def exchange(
    app: WireApp,
    method: str = "POST",
    *,
    body: Any = None,
    raw: bytes | None = None,
    headers: dict[str, str | None] | None = None,
) -> Exchange:
    """One request, recorded as the module's docstring says."""
    sent, response, data = request(app, method, body=body, raw=raw, headers=headers)
    content_type = response.getheader("content-type")
    media_type = content_type.split(";")[0].strip() if content_type else None
    sse = media_type == "text/event-stream"
    recorded_headers = {
        name: response.getheader(name) for name in RECORDED_HEADERS if response.getheader(name) is not None
    }
    if "mcp-session-id" in recorded_headers:
        recorded_headers["mcp-session-id"] = normalize_session(
            recorded_headers["mcp-session-id"], sent.get("Mcp-Session-Id")
        )
    return {
        "status": response.status,
        "contentType": media_type,
        "sse": sse,
        **body_of(data, sse=sse),
        "headers": recorded_headers,
    }


def body_of(data: bytes, *, sse: bool) -> dict[str, Any]:
    text = data.decode("utf-8")
    if sse:
        frames = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
        return {"messages": normalize([json.loads(f) for f in frames if f])}
    if not text.strip():
        return {"messages": []}
    try:
        return {"messages": normalize([json.loads(text)])}
    except ValueError:
        return {"text": text}


def open_session(app: WireApp, version: str = "2025-06-18") -> str:
    """A handshake-era session, initialized the way a client does it (initialize, then initialized)."""
    _, response, _ = request(app, body=initialize_body(version))
    session = response.getheader("mcp-session-id")
    assert response.status == 200 and session, response.status
    done = exchange(
        app,
        body={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers=in_session(session, version),
    )
    assert done["status"] == 202, done
    return session


def in_session(session: str, version: str = "2025-06-18") -> dict[str, str | None]:
    return {"Mcp-Session-Id": session, "Mcp-Protocol-Version": version}


def envelope(version: str = MODERN) -> dict[str, Any]:
    """The 2026-07-28 request envelope: what every request of that era carries in ``params._meta``."""
    return {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": {"name": "golden", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }


def modern_request(
    request_id: int, method: str, params: dict[str, Any] | None = None, *, version: str = MODERN
) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": envelope(version)},
    }


def modern_headers(method: str, *, version: str = MODERN, name: str | None = None) -> dict[str, str | None]:
    headers: dict[str, str | None] = {"Mcp-Protocol-Version": version, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


# -- the apps ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireApp]:
    """scripts/wire_app.py at the interact tier: every test but the other tiers' tools/list."""
    app = WireApp(tmp_path_factory.mktemp("golden-interact"))
    try:
        yield app
    finally:
        app.close()


def printed_nothing(app: WireApp, before: str) -> None:
    # One more round trip first: what the server logs while answering is written by then.
    assert exchange(app, body=initialize_body())["status"] == 200
    after = app.printed()
    assert after == before, f"the app printed:\n{after[len(before) :][-4000:]}"


# -- 1. tools/list at each tier ------------------------------------------------------------------------------


@pytest.mark.parametrize("tier", ["read", "interact", "mutate"])
def test_tools_list_at_each_tier(tier: str, wire: WireApp, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every tool's name, title, description, inputSchema, outputSchema, annotations and _meta.
    The other tiers' apps live for this test only: one app at a time on a shared machine."""
    app = wire if tier == "interact" else WireApp(tmp_path_factory.mktemp(f"golden-{tier}"), tier=tier)
    try:
        session = open_session(app)
        listed = exchange(app, body={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=in_session(session))
    finally:
        if app is not wire:
            app.close()
    assert listed["status"] == 200 and len(listed["messages"]) == 1, listed
    check_golden(f"tools_list_{tier}", listed["messages"][0]["result"])


# -- 2. initialize at each handshake version ---------------------------------------------------------------


def test_initialize_at_each_handshake_version(wire: WireApp) -> None:
    answers = {}
    for version in [*HANDSHAKE_VERSIONS, "1999-01-01", MODERN]:
        answers[version] = exchange(wire, body=initialize_body(version))
    # An initialize that says its version in the header too, as clients after the first one do.
    answers["2025-11-25 with header"] = exchange(
        wire, body=initialize_body("2025-11-25"), headers={"Mcp-Protocol-Version": "2025-11-25"}
    )
    check_golden("initialize", answers)


# -- 3. the 2026-07-28 era -----------------------------------------------------------------------------------


def test_the_2026_era_discover_list_and_call(wire: WireApp) -> None:
    """Raw 2026-07-28 requests (no session, the envelope in params._meta, the routing headers)."""
    calls = [
        ("echo_optional", {"value": "[1]"}),  # a custom tool
        ("wpf_find_elements", {"name": "noSuchElement"}),  # a built-in whose answer is the same on every toolkit
        ("wpf_inspect_element", {"nodeId": "zz404"}),  # a built-in's error result
    ]
    answers = {
        "server/discover": exchange(
            wire, body=modern_request(1, "server/discover"), headers=modern_headers("server/discover")
        ),
        "tools/list": exchange(wire, body=modern_request(2, "tools/list"), headers=modern_headers("tools/list")),
    }
    for request_id, (name, arguments) in enumerate(calls, start=3):
        answers[f"tools/call {name}"] = exchange(
            wire,
            body=modern_request(request_id, "tools/call", {"name": name, "arguments": arguments}),
            headers=modern_headers("tools/call", name=name),
        )
    listed = answers["tools/list"]["messages"][0]["result"]
    listed["tools"] = same_tools(listed["tools"], "tools_list_interact")
    check_golden("modern", answers)


def same_tools(tools: list[Any], golden: str, *, leaving_out: frozenset[str] = frozenset()) -> str:
    """Checks ``tools`` against a tools/list golden file (less the tools named in ``leaving_out``)
    and returns what the golden file records in their place: the list is pinned once, not per file."""
    expected = [
        t for t in json.loads((GOLDEN / f"{golden}.json").read_text("utf-8"))["tools"] if t["name"] not in leaving_out
    ]
    if tools != expected:
        diff = difflib.unified_diff(
            json.dumps(expected, indent=2, sort_keys=True).splitlines(keepends=True),
            json.dumps(tools, indent=2, sort_keys=True).splitlines(keepends=True),
            f"golden/{golden}.json",
            "this list",
        )
        pytest.fail(f"the tools differ from golden/{golden}.json:\n{''.join(diff)}", pytrace=False)
    left_out = f" without {', '.join(sorted(leaving_out))}" if leaving_out else ""
    return f"<the tools of {golden}.json{left_out}>"


# -- 4. bad inputs on both eras -------------------------------------------------------------------------------

PING = {"jsonrpc": "2.0", "id": 5, "method": "ping"}
LIST = {"jsonrpc": "2.0", "id": 6, "method": "tools/list"}


def handshake_matrix(app: WireApp) -> dict[str, Any]:
    s = open_session(app)
    h = in_session(s)
    cases: dict[str, Any] = {
        "bad JSON": exchange(app, raw=b'{"jsonrpc": "2.0", "id": 5,', headers=h),
        "batch": exchange(app, body=[PING], headers=h),
        "empty batch": exchange(app, body=[], headers=h),
        "a string": exchange(app, body="x", headers=h),
        "a number": exchange(app, body=5, headers=h),
        "no method": exchange(app, body={"jsonrpc": "2.0", "id": 5}, headers=h),
        'jsonrpc "1.0"': exchange(app, body={**PING, "jsonrpc": "1.0"}, headers=h),
        "bad JSON without a session": exchange(app, raw=b"{", headers={}),
        "batch without a session": exchange(app, body=[PING], headers={}),
        "tools/list without a session": exchange(app, body=LIST),
        "tools/list without a session, version header": exchange(
            app, body=LIST, headers={"Mcp-Protocol-Version": "2025-06-18"}
        ),
        "ping without a session": exchange(app, body=PING),
        "unknown session id": exchange(app, body=LIST, headers=in_session("0" * 32)),
        "Content-Type text/plain": exchange(app, body=LIST, headers={**h, "Content-Type": "text/plain"}),
        "no Content-Type": exchange(app, body=LIST, headers={**h, "Content-Type": None}),
        "no Accept": exchange(app, body=LIST, headers={**h, "Accept": None}),
        "Accept JSON only": exchange(app, body=LIST, headers={**h, "Accept": "application/json"}),
        "Accept SSE only": exchange(app, body=LIST, headers={**h, "Accept": "text/event-stream"}),
        "Accept */*": exchange(app, body=PING, headers={**h, "Accept": "*/*"}),
        "GET without SSE Accept": exchange(app, "GET", headers={**h, "Accept": "application/json"}),
        "GET without a session": exchange(app, "GET", headers={"Accept": "text/event-stream"}),
        "PUT": exchange(app, "PUT", body=LIST, headers=h),
        "PATCH": exchange(app, "PATCH", body=LIST, headers=h),
        "OPTIONS": exchange(app, "OPTIONS", headers=h),
        "unknown method": exchange(app, body={"jsonrpc": "2.0", "id": 5, "method": "no/such"}, headers=h),
        "tools/call arguments not an object": exchange(
            app,
            body={
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "wpf_get_windows", "arguments": "x"},
            },
            headers=h,
        ),
        "tools/call unknown tool": exchange(
            app,
            body={
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "wpf_get_windowz", "arguments": {}},
            },
            headers=h,
        ),
        "tools/call arguments of a wrong type": exchange(
            app,
            body={
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "wpf_get_visual_tree", "arguments": {"maxDepth": "x"}},
            },
            headers=h,
        ),
        "tools/call a tool above the tier": exchange(
            app,
            body={
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "wpf_set_property", "arguments": {}},
            },
            headers=h,
        ),
        "a notification": exchange(
            app,
            body={"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1, "progress": 1}},
            headers=h,
        ),
        "an unknown notification": exchange(app, body={"jsonrpc": "2.0", "method": "no/such"}, headers=h),
        "a response": exchange(app, body={"jsonrpc": "2.0", "id": 99, "result": {}}, headers=h),
        "ping": exchange(app, body=PING, headers=h),
        "an enveloped request on a session": exchange(app, body=modern_request(5, "ping"), headers=h),
        "body over 4 MiB": exchange(app, body={**PING, "params": {"pad": "a" * (4 << 20)}}, headers=h),
    }
    cases["initialize again on a session"] = exchange(app, body=initialize_body(), headers=h)
    deleted = open_session(app)
    cases["DELETE a session"] = exchange(app, "DELETE", headers=in_session(deleted))
    cases["a request on the deleted session"] = exchange(app, body=LIST, headers=in_session(deleted))
    cases["DELETE it again"] = exchange(app, "DELETE", headers=in_session(deleted))
    exchange(app, "DELETE", headers=h)
    return cases


def modern_matrix(app: WireApp) -> dict[str, Any]:
    m = modern_headers("tools/list")
    listing = modern_request(6, "tools/list")
    no_envelope = {"jsonrpc": "2.0", "id": 6, "method": "tools/list", "params": {}}
    call = modern_request(7, "tools/call", {"name": "wpf_get_windows", "arguments": "x"})
    return {
        "bad JSON": exchange(app, raw=b'{"jsonrpc": "2.0", "id": 6,', headers=m),
        "batch": exchange(app, body=[listing], headers=m),
        "a string": exchange(app, body="x", headers=m),
        'jsonrpc "1.0"': exchange(app, body={**listing, "jsonrpc": "1.0"}, headers=m),
        "no method": exchange(app, body={"jsonrpc": "2.0", "id": 6, "params": {"_meta": envelope()}}, headers=m),
        "Content-Type text/plain": exchange(app, body=listing, headers={**m, "Content-Type": "text/plain"}),
        "no Accept": exchange(app, body=listing, headers={**m, "Accept": None}),
        "Accept JSON only": exchange(app, body=listing, headers={**m, "Accept": "application/json"}),
        "Accept SSE only": exchange(app, body=listing, headers={**m, "Accept": "text/event-stream"}),
        "GET": exchange(app, "GET", headers={**m, "Accept": "text/event-stream"}),
        "PUT": exchange(app, "PUT", body=listing, headers=m),
        "PATCH": exchange(app, "PATCH", body=listing, headers=m),
        "DELETE": exchange(app, "DELETE", headers=m),
        "unknown method": exchange(app, body=modern_request(6, "no/such"), headers=modern_headers("no/such")),
        "ping": exchange(app, body=modern_request(6, "ping"), headers=modern_headers("ping")),
        "initialize": exchange(
            app,
            body={**initialize_body(MODERN), "params": {**initialize_body(MODERN)["params"], "_meta": envelope()}},
            headers=modern_headers("initialize"),
        ),
        "tools/call arguments not an object": exchange(
            app, body=call, headers=modern_headers("tools/call", name="wpf_get_windows")
        ),
        "tools/call without Mcp-Name": exchange(
            app, body={**call, "params": {**call["params"], "arguments": {}}}, headers=modern_headers("tools/call")
        ),
        "tools/call Mcp-Name differs": exchange(
            app,
            body={**call, "params": {**call["params"], "arguments": {}}},
            headers=modern_headers("tools/call", name="wpf_get_children"),
        ),
        "a notification": exchange(
            app,
            body={
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": 1, "_meta": envelope()},
            },
            headers=modern_headers("notifications/cancelled"),
        ),
        "no envelope": exchange(app, body=no_envelope, headers=m),
        "no params": exchange(app, body={"jsonrpc": "2.0", "id": 6, "method": "tools/list"}, headers=m),
        "envelope without clientCapabilities": exchange(
            app,
            body={**no_envelope, "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}},
            headers=m,
        ),
        "Mcp-Method differs from the body": exchange(app, body=listing, headers=modern_headers("server/discover")),
        "no Mcp-Method": exchange(app, body=listing, headers={**m, "Mcp-Method": None}),
        "header version differs from the envelope": exchange(
            app, body=modern_request(6, "tools/list", version="2030-01-01"), headers=m
        ),
        "unsupported version": exchange(
            app,
            body=modern_request(6, "server/discover", version="2030-01-01"),
            headers=modern_headers("server/discover", version="2030-01-01"),
        ),
        "version header x": exchange(
            app, body=modern_request(6, "tools/list", version="x"), headers=modern_headers("tools/list", version="x")
        ),
        "an unknown session id": exchange(
            app,
            body=modern_request(6, "server/discover"),
            headers={**modern_headers("server/discover"), "Mcp-Session-Id": "0" * 32},
        ),
        "body over 4 MiB": exchange(app, body=modern_request(6, "tools/list", {"pad": "a" * (4 << 20)}), headers=m),
    }


@pytest.mark.parametrize("era", ["handshake", "modern"])
def test_bad_inputs(wire: WireApp, era: str) -> None:
    before = wire.printed()
    cases = handshake_matrix(wire) if era == "handshake" else modern_matrix(wire)
    printed_nothing(wire, before)
    check_golden(f"errors_{era}", cases)


# -- 5. stdio --------------------------------------------------------------------------------------------------


def test_stdio(display: str | None) -> None:
    """An unparseable line, a request before initialize, initialize, tools/list: every frame the app
    wrote, in order (each request waits for its answer; a ping after a line that gets none shows
    its absence: whatever came before the ping's answer is recorded)."""
    client = RawClient(display)
    frames: list[Any] = []

    def until_answer(request_id: int) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = client.out.next(timeout=max(0.1, deadline - time.monotonic()))
            assert line is not None, f"stdout closed early; stderr: {''.join(client.err.seen)[-2000:]}"
            if line.rstrip("\n") == BEFORE and len(client.out.seen) == 1:  # printed before start
                continue
            frame = json.loads(line)
            frames.append(normalize(frame))
            if frame.get("id") == request_id:
                return
        pytest.fail(f"no answer to {request_id}")

    try:
        steps: list[tuple[str, Any]] = [
            ("an unparseable line", "{not json"),
            ("a non-object", "5"),
            ("tools/list before initialize", LIST),
            ("ping before initialize", PING),
            ("initialize", {**initialize_body("2025-06-18"), "id": 1}),
            ("initialized", {"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ("tools/list", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
            ("an unknown method", {"jsonrpc": "2.0", "id": 3, "method": "no/such"}),
            ("an enveloped request", modern_request(4, "tools/list")),
        ]
        record: dict[str, Any] = {}
        probe_id = 100
        for name, message in steps:
            frames = []
            if isinstance(message, str):
                client.send_line(message)
            else:
                client.send(message)
            if isinstance(message, dict) and "id" in message:
                until_answer(message["id"])
            else:  # no answer expected: a ping after it shows whether one came
                probe_id += 1
                client.send({**PING, "id": probe_id})
                until_answer(probe_id)
            record[name] = frames
        assert client.proc.stdin is not None
        client.proc.stdin.close()
        assert client.proc.wait(timeout=30) == 0
    finally:
        client.kill()
    (listed,) = record["tools/list"]
    listed["result"]["tools"] = same_tools(listed["result"]["tools"], "tools_list_read", leaving_out=CUSTOM_TOOLS)
    check_golden("stdio", record)


# -- the era a Python SDK client in auto mode ends up in ----------------------------------------------------


def test_sdk_clients_in_auto_mode_connect_in_the_2026_era(wire: WireApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's Client (mode="auto") falls back to the handshake, silently, when server/discover
    fails or answers something its DiscoverResult does not accept: every test that connects through
    it would go on passing on the old era. This one fails instead."""
    import asyncio

    import mcp_types

    async def era(client: Any) -> tuple[str, bool, bool]:
        session = client.session
        return client.protocol_version, session.discover_result is not None, session.initialize_result is not None

    assert wire.session(era) == (MODERN, True, False), "the conftest-style client fell back to the handshake"

    from wpfprobe.mcp import manifest as manifests
    from wpfprobe.mcp.client import ProbeClient

    monkeypatch.setenv("WPFPROBE_HOME", str(wire.stderr_path.parent))
    found = [m for m in manifests.read_all() if m.url == wire.url]
    assert len(found) == 1, found

    async def probe_client_era() -> tuple[str, bool]:
        async with ProbeClient(found[0]) as client:
            return client.session.protocol_version, client.session.session.discover_result is not None

    assert asyncio.run(asyncio.wait_for(probe_client_era(), 60)) == (MODERN, True), "ProbeClient fell back"

    raw = exchange(wire, body=modern_request(1, "server/discover"), headers=modern_headers("server/discover"))
    assert raw["status"] == 200, raw
    result = mcp_types.DiscoverResult.model_validate(raw["messages"][0]["result"])
    assert MODERN in result.supported_versions
