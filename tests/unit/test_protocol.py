"""The SDK-free MCP kernel (wpfprobe/mcp/protocol.py) speaks the wire the SDK speaks today.

Each rule is driven twice with the same messages: through the kernel (a fake catalog, a fake
output) and through the SDK's own stdio kernel (``Server.run``: the dual-era loop stdio uses)
fed the same raw messages; the two transcripts must be equal, dict for dict. The SDK runs either
today's ``ToolServer`` (identity, capabilities, errors, list_changed) or a bare low-level
``Server`` whose handlers call the same fake catalog (results, progress, cancellation). The SDK is
imported here only: the kernel itself must not (the last test checks).
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import json
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, Final

import anyio
import pytest
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp.shared.message import SessionMessage
from mcp_types import CallToolResult, ListToolsResult
from mcp_types.jsonrpc import jsonrpc_message_adapter
from pydantic import ValidationError

from wpfprobe.core.version import __version__
from wpfprobe.mcp import jsonrpc, protocol
from wpfprobe.mcp.protocol import Kernel, Progress
from wpfprobe.mcp.toolserver import INSTRUCTIONS, ToolServer

Message = dict[str, Any]
DEADLINE = 20.0
V2026: Final = "2026-07-28"
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": V2026,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
}
TOOLS: list[Message] = [
    {
        "name": "echo",
        "title": "Echo",
        "description": "What arrived.",
        "inputSchema": {"type": "object", "properties": {"value": {"default": None, "type": "string"}}},
        "outputSchema": {"type": "object", "properties": {"result": {"type": "object"}}, "required": ["result"]},
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
        "_meta": {"dev.wpfprobe/custom": True},
    },
    {"name": "slow", "inputSchema": {"type": "object"}},
]


class FakeCatalog:
    """Tools by name: echo answers its arguments, boom raises, tick reports progress, slow waits."""

    def __init__(self, tier: str = "read") -> None:
        self.tier = tier
        self.release = asyncio.Event()
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.progress_given: list[bool] = []
        self.kept: Progress | None = None
        self.seen: contextvars.ContextVar[str] | None = None
        self._listeners: list[Callable[[], None]] = []

    def list_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = json.loads(json.dumps(TOOLS))  # a fresh copy each time
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any] | None, *, progress: Progress | None) -> Message:
        self.progress_given.append(progress is not None)
        if name == "boom":
            raise RuntimeError("it broke")
        if name == "tick" and progress is not None:
            await progress(1, None, "first")
            await progress(2.5, 10, None)
        if name == "keep":
            self.kept = progress
        if name == "slow":
            self.started.set()
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        seen = self.seen.get() if self.seen is not None else None
        return {
            "content": [{"type": "text", "text": json.dumps(arguments)}],
            "structuredContent": {"result": {"arguments": arguments, "seen": seen}},
            "isError": False,
        }

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    def change(self) -> None:
        for callback in list(self._listeners):
            callback()


# --- the two drivers: the same script, the kernel's transcript and the SDK's ---------------------------


class Wire:
    """One connection as a client sees it: messages in, messages out in order."""

    def __init__(self) -> None:
        self.out: asyncio.Queue[Message] = asyncio.Queue()
        self.transcript: list[Message] = []

    async def post(self, message: Message) -> None:
        """The client sends ``message``."""
        raise NotImplementedError

    async def next(self) -> Message:
        message = await asyncio.wait_for(self.out.get(), DEADLINE)
        self.transcript.append(message)
        return message

    async def answer(self, request_id: Any) -> Message:
        """Everything up to and including the answer to ``request_id``; the answer."""
        while True:
            message = await self.next()
            if message.get("id") == request_id and ("result" in message or "error" in message):
                return message

    async def call(self, message: Message) -> Message:
        await self.post(message)
        return await self.answer(message["id"])


class KernelWire(Wire):
    def __init__(self, kernel: Kernel, era: protocol.Era | None = None) -> None:
        super().__init__()
        self.kernel = kernel
        self.session = kernel.connect(self, era=era)

    async def post(self, message: Message) -> None:
        decoded = jsonrpc.classify(message)
        assert isinstance(decoded, jsonrpc.Decoded), decoded
        await self.session.receive(decoded.kind, decoded.message)

    async def send(self, message: Message) -> None:  # the Output's side from here on
        self.out.put_nowait(message)

    async def send_to(self, request_id: Any, message: Message) -> None:
        self.out.put_nowait(message)

    async def end(self, request_id: Any, answer: Message | None) -> None:
        if answer is not None:
            self.out.put_nowait(answer)


class SdkWire(Wire):
    def __init__(self, write: Any) -> None:
        super().__init__()
        self.write = write

    async def post(self, message: Message) -> None:
        await self.write.send(SessionMessage(jsonrpc_message_adapter.validate_python(message)))


Script = Callable[[Wire], Awaitable[Any]]


async def run_sdk(server: Server[Any], options: Any, script: Script) -> list[Message]:
    to_server, server_in = anyio.create_memory_object_stream[Any](100)
    server_out, from_server = anyio.create_memory_object_stream[SessionMessage](100)
    wire = SdkWire(to_server)

    async def pump() -> None:
        async for item in from_server:
            wire.out.put_nowait(item.message.model_dump(by_alias=True, mode="json", exclude_unset=True))

    async with anyio.create_task_group() as tg:
        tg.start_soon(server.run, server_in, server_out, options)
        tg.start_soon(pump)
        await script(wire)
        tg.cancel_scope.cancel()
    return wire.transcript


def toolserver_reference() -> tuple[Server[Any], Any, ToolServer]:
    tools = ToolServer(None, tier="read")  # type: ignore[arg-type]  # the broker builds one so, for schemas
    lowlevel = tools.server._lowlevel_server
    return lowlevel, lowlevel.create_initialization_options(), tools


def catalog_reference(catalog: FakeCatalog) -> tuple[Server[Any], Any, InMemorySubscriptionBus]:
    """What step 2 of the plan builds: a bare low-level Server on the catalog's dicts."""
    bus = InMemorySubscriptionBus()

    async def on_list_tools(ctx: Any, params: Any) -> ListToolsResult:
        return ListToolsResult.model_validate({"tools": catalog.list_tools()})

    async def on_call_tool(ctx: Any, params: Any) -> CallToolResult:
        progress = ctx.session.report_progress if progress_token_from_params(ctx.params) is not None else None
        result = await catalog.call_tool(params.name, params.arguments, progress=progress)
        return CallToolResult.model_validate(result)

    server: Server[Any] = Server(
        "wpfprobe",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_subscriptions_listen=ListenHandler(bus),
    )
    server.extensions = {"dev.wpfprobe/gate": {"tier": catalog.tier}}

    def publish() -> None:
        asyncio.get_running_loop().create_task(bus.publish(ToolsListChanged()))

    catalog.on_change(publish)
    return server, server.create_initialization_options(NotificationOptions(tools_changed=True)), bus


def both(script: Script, *, reference: str = "toolserver", era: protocol.Era | None = None) -> list[Message]:
    """The script's transcript through the kernel, checked equal to the SDK's; returned."""

    async def through_sdk() -> list[Message]:
        if reference == "toolserver":
            server, options, tools = toolserver_reference()
            catalog = FakeCatalog()
            catalog.on_change(tools.tools_changed)
        else:
            catalog = FakeCatalog()
            server, options, _ = catalog_reference(catalog)
        return await run_sdk(server, options, lambda wire: script(with_catalog(wire, catalog)))

    async def through_kernel() -> list[Message]:
        catalog = FakeCatalog()
        wire = KernelWire(Kernel(catalog, version=__version__, instructions=INSTRUCTIONS), era=era)
        await script(with_catalog(wire, catalog))
        await wire.session.close()
        return wire.transcript

    sdk = asyncio.run(asyncio.wait_for(through_sdk(), 60))
    ours = asyncio.run(asyncio.wait_for(through_kernel(), 60))
    if reference == "toolserver":  # it lists the real tools, the kernel the fake catalog's
        sdk, ours = [_tools_elided(m) for m in sdk], [_tools_elided(m) for m in ours]
    assert ours == sdk
    return ours


def _tools_elided(message: Message) -> Message:
    result = message.get("result")
    if isinstance(result, dict) and "tools" in result:
        return {**message, "result": {**result, "tools": "<tools>"}}
    return message


def with_catalog(wire: Wire, catalog: FakeCatalog) -> Wire:
    wire.catalog = catalog  # type: ignore[attr-defined]
    return wire


def catalog_of(wire: Wire) -> FakeCatalog:
    catalog: FakeCatalog = wire.catalog  # type: ignore[attr-defined]
    return catalog


def request(request_id: Any, method: str, params: Message | None = None) -> Message:
    message: Message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def note(method: str, params: Message | None = None) -> Message:
    return jsonrpc.notification(method, params)


def modern(request_id: Any, method: str, params: Message | None = None, **meta: Any) -> Message:
    return request(request_id, method, {**(params or {}), "_meta": {**ENVELOPE, **meta}})


INIT = request(
    0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
)


async def handshake(wire: Wire) -> None:
    await wire.call(INIT)
    await wire.post(note("notifications/initialized"))


# --- the handshake era ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2030-01-01", "x"])
def test_initialize_echoes_a_handshake_version_and_answers_others_with_the_latest(version: str) -> None:
    async def script(wire: Wire) -> None:
        await wire.call(request(1, "initialize", {**INIT["params"], "protocolVersion": version}))

    [answer] = both(script)
    expected = version if version.startswith(("2024", "2025")) else "2025-11-25"
    assert answer["result"] == {
        "protocolVersion": expected,
        "capabilities": {"tools": {"listChanged": True}},
        "serverInfo": {"name": "wpfprobe", "version": __version__},
        "instructions": INSTRUCTIONS,
    }


def test_served_methods_other_than_ping_wait_for_initialize() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(request(1, "ping"))
        await wire.call(request(2, "tools/list"))
        await wire.call(request(3, "tools/call", {"name": "echo"}))
        await wire.call(INIT)
        await wire.call(request(4, "tools/list"))  # before notifications/initialized: the answer opened the gate

    ping, listed, called, _, after = both(script)
    assert ping["result"] == {}
    gated = {"code": -32602, "message": "Invalid request parameters", "data": ""}
    assert listed["error"] == gated and called["error"] == gated
    assert "tools" in after["result"]


def test_a_request_pipelined_behind_initialize_sees_the_gate_open() -> None:
    async def script(wire: Wire) -> None:
        await wire.post(INIT)  # not waited for: the next request follows at once
        await wire.post(request(1, "tools/list"))
        await wire.answer(1)

    transcript = both(script)
    assert [m["id"] for m in transcript] == [0, 1] and "result" in transcript[1]


@pytest.mark.parametrize(
    "method",
    [
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "completion/complete",
        "nope/nothing",
        "logging/setLevel",
        "server/discover",
        "subscriptions/listen",
    ],
)
def test_a_method_not_served_is_not_found_with_its_name_as_data(method: str) -> None:
    served_shape: dict[str, Message] = {
        "completion/complete": {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "b"}},
        "logging/setLevel": {"level": "debug"},
        "subscriptions/listen": {"notifications": {}},
    }
    params = served_shape.get(method)

    async def script(wire: Wire) -> None:
        await wire.call(request(1, method, params))  # before initialize too
        await handshake(wire)
        await wire.call(request(2, method, params))

    before, _, after = both(script)
    assert before["error"] == after["error"] == {"code": -32601, "message": "Method not found", "data": method}


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tools/list", {"cursor": 5}),
        ("tools/list", {"_meta": []}),
        ("tools/list", {"_meta": {"progressToken": 1.5}}),
        ("tools/call", None),
        ("tools/call", {}),
        ("tools/call", {"name": 5}),
        ("tools/call", {"name": "echo", "arguments": [1]}),
        ("tools/call", {"name": "echo", "task": {"ttl": "x"}}),
        ("ping", {"_meta": 3}),
        ("prompts/get", {}),  # a spec method we do not serve: its params are judged first
        ("resources/read", {"uri": 1}),
        ("logging/setLevel", {"level": "loud"}),
    ],
)
def test_params_the_schema_refuses_are_invalid_params_with_empty_data(method: str, params: Message | None) -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.call(request(1, method, params))

    answer = both(script)[-1]
    assert answer["error"] == {"code": -32602, "message": "Invalid request parameters", "data": ""}


@pytest.mark.parametrize(
    "params",
    [
        {"protocolVersion": "2025-06-18", "capabilities": {}},
        {"protocolVersion": 5, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        {"protocolVersion": "2025-06-18", "capabilities": {"roots": 5}, "clientInfo": {"name": "t", "version": "1"}},
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {"experimental": {"a": 1}},
            "clientInfo": {"name": "t", "version": "1"},
        },
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1", "icons": [{}]},
        },
    ],
)
def test_a_malformed_initialize_is_invalid_params_and_opens_nothing(params: Message) -> None:
    async def script(wire: Wire) -> None:
        await wire.call(request(1, "initialize", params))
        await wire.call(request(2, "tools/list"))

    refused, gated = both(script)
    assert refused["error"]["code"] == gated["error"]["code"] == -32602


def test_lax_params_the_schema_admits_are_served() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(request(1, "initialize", {**INIT["params"], "capabilities": {"roots": {"listChanged": "yes"}}}))
        await wire.call(request(2, "ping", {"_meta": {"progressToken": True}}))
        await wire.call(request(3, "tools/list", {"cursor": None, "extra": 1}))
        await wire.call(request(4, "tools/call", {"name": "echo", "arguments": None, "task": {"ttl": "5"}}))

    assert all("result" in m for m in both(script, reference="catalog"))


def test_tools_list_and_call_results_as_the_sdk_shapes_them_at_the_handshake() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.call(request(1, "tools/list"))
        await wire.call(request(2, "tools/call", {"name": "echo", "arguments": {"value": "[1]"}}))

    _, listed, called = both(script, reference="catalog")
    assert listed["result"] == {"tools": TOOLS}
    assert called["result"]["structuredContent"] == {"result": {"arguments": {"value": "[1]"}, "seen": None}}
    assert called["result"]["isError"] is False


def test_a_handler_exception_is_error_code_zero_with_its_text_at_the_handshake() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.call(request(1, "tools/call", {"name": "boom"}))

    assert both(script, reference="catalog")[-1]["error"] == {"code": 0, "message": "it broke"}


def test_progress_goes_on_the_request_only_when_it_carried_a_token() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.call(request(1, "tools/call", {"name": "tick"}))
        await wire.call(request(2, "tools/call", {"name": "tick", "_meta": {"progressToken": "p"}}))
        await wire.call(request(3, "tools/call", {"name": "tick", "_meta": {"progressToken": True}}))

    transcript = both(script, reference="catalog")
    progress = [m["params"] for m in transcript if m.get("method") == "notifications/progress"]
    assert progress == [
        {"progressToken": "p", "progress": 1, "message": "first"},
        {"progressToken": "p", "progress": 2.5, "total": 10},
    ]


def test_requests_run_concurrently_and_a_cancelled_one_is_never_answered() -> None:
    async def script(wire: Wire) -> None:
        catalog = catalog_of(wire)
        await handshake(wire)
        await wire.post(request(7, "tools/call", {"name": "slow"}))
        await asyncio.wait_for(catalog.started.wait(), DEADLINE)
        await wire.call(request(8, "tools/list"))  # answered while 7 waits
        await wire.post(note("notifications/cancelled", {"requestId": "7"}))  # "7" correlates with 7
        await asyncio.wait_for(catalog.cancelled.wait(), DEADLINE)
        await wire.call(request(9, "ping"))

    transcript = both(script, reference="catalog")
    assert [m.get("id") for m in transcript] == [0, 8, 9]


def test_an_id_cancelled_before_its_request_started_is_answered_when_reused() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.post(request(5, "tools/call", {"name": "slow"}))
        await wire.post(note("notifications/cancelled", {"requestId": 5}))  # before the request's task ran
        await wire.call(request(5, "ping"))

    assert [m.get("id") for m in both(script, reference="catalog")] == [0, 5]


def test_progress_reported_after_the_answer_is_dropped() -> None:
    async def script(wire: Wire) -> None:
        catalog = catalog_of(wire)
        await handshake(wire)
        await wire.call(request(1, "tools/call", {"name": "keep", "_meta": {"progressToken": 1}}))
        assert catalog.kept is not None
        await catalog.kept(1, None, None)
        await wire.call(request(2, "ping"))

    assert [m.get("id") for m in both(script, reference="catalog")] == [0, 1, 2]


def test_a_slow_call_answers_after_a_later_quick_one() -> None:
    async def script(wire: Wire) -> None:
        catalog = catalog_of(wire)
        await handshake(wire)
        await wire.post(request(1, "tools/call", {"name": "slow"}))
        await asyncio.wait_for(catalog.started.wait(), DEADLINE)
        await wire.call(request(2, "ping"))
        catalog.release.set()
        await wire.answer(1)

    assert [m.get("id") for m in both(script, reference="catalog")] == [0, 2, 1]


def test_tools_changed_reaches_an_initialized_handshake_connection() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        catalog_of(wire).change()
        await wire.next()

    assert both(script)[-1] == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


# --- the 2026-07-28 era -------------------------------------------------------------------------------


def test_discover_advertises_the_gate_and_the_cache_hints() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "server/discover"))

    [answer] = both(script)
    assert answer["result"] == {
        "supportedVersions": [V2026],
        "capabilities": {"tools": {"listChanged": True}, "extensions": {"dev.wpfprobe/gate": {"tier": "read"}}},
        "instructions": INSTRUCTIONS,
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "wpfprobe", "version": __version__}},
    }


def test_2026_results_carry_result_type_and_the_server_info_stamp() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "tools/list"))
        await wire.call(modern(2, "tools/call", {"name": "echo", "arguments": {"value": "v"}}))

    listed, called = both(script, reference="catalog")
    stamp = {"io.modelcontextprotocol/serverInfo": {"name": "wpfprobe", "version": __version__}}
    assert listed["result"] == {
        "tools": TOOLS,
        "ttlMs": 0,
        "cacheScope": "private",
        "resultType": "complete",
        "_meta": stamp,
    }
    assert called["result"]["resultType"] == "complete" and called["result"]["_meta"] == stamp


@pytest.mark.parametrize("method", ["ping", "logging/setLevel", "resources/subscribe", "nope"])
def test_methods_the_2026_table_lacks_are_not_found(method: str) -> None:
    params: Message | None = {"logging/setLevel": {"level": "debug"}, "resources/subscribe": {"uri": "x"}}.get(method)

    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "server/discover"))
        await wire.call(modern(2, method, params))

    assert both(script)[-1]["error"] == {"code": -32601, "message": "Method not found", "data": method}


@pytest.mark.parametrize(
    "meta",
    [
        {"io.modelcontextprotocol/clientCapabilities": {}},  # no version: no envelope, a handshake opening
        {"io.modelcontextprotocol/protocolVersion": V2026},
        {"io.modelcontextprotocol/protocolVersion": "2030-01-01", "io.modelcontextprotocol/clientCapabilities": {}},
        {"io.modelcontextprotocol/protocolVersion": 5, "io.modelcontextprotocol/clientCapabilities": {}},
        {**ENVELOPE, "io.modelcontextprotocol/clientCapabilities": {"roots": 5}},
        {**ENVELOPE, "io.modelcontextprotocol/clientInfo": {"name": "t"}},
        {**ENVELOPE, "io.modelcontextprotocol/logLevel": "loud"},
    ],
)
def test_the_envelope_ladder_on_a_2026_stdio_connection(meta: Message) -> None:
    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "server/discover"))
        await wire.call(request(2, "tools/list", {"_meta": meta}))

    answer = both(script)[-1]
    assert "error" in answer


def test_listen_acknowledges_then_forwards_list_changed_until_cancelled() -> None:
    async def script(wire: Wire) -> None:
        filters = {"toolsListChanged": True, "promptsListChanged": False, "resourceSubscriptions": ["a"]}
        await wire.post(modern("L", "subscriptions/listen", {"notifications": filters}))
        await wire.next()
        catalog_of(wire).change()
        await wire.next()
        await wire.post(note("notifications/cancelled", {"requestId": "L"}))
        await wire.call(modern(2, "tools/list"))

    transcript = both(script)
    subscription = {"io.modelcontextprotocol/subscriptionId": "L"}
    assert transcript[0] == note(
        "notifications/subscriptions/acknowledged",
        {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["a"]}, "_meta": subscription},
    )
    assert transcript[1] == note("notifications/tools/list_changed", {"_meta": subscription})
    assert transcript[2]["id"] == 2


def test_a_handler_exception_is_internal_error_in_2026() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "tools/call", {"name": "boom"}))

    assert both(script, reference="catalog")[-1]["error"] == {"code": -32603, "message": "Internal server error"}


def test_progress_and_cancellation_in_2026() -> None:
    async def script(wire: Wire) -> None:
        catalog = catalog_of(wire)
        await wire.call(modern(1, "tools/call", {"name": "tick"}, progressToken=5))
        await wire.post(modern(2, "tools/call", {"name": "slow"}))
        await asyncio.wait_for(catalog.started.wait(), DEADLINE)
        await wire.post(note("notifications/cancelled", {"requestId": 2}))
        await asyncio.wait_for(catalog.cancelled.wait(), DEADLINE)
        await wire.call(modern(3, "tools/list"))

    transcript = both(script, reference="catalog")
    assert [m.get("id", m.get("method")) for m in transcript] == ["notifications/progress"] * 2 + [1, 3]


# --- stdio: the first request decides the era -----------------------------------------------------------


def test_initialize_on_a_2026_stdio_connection_is_unsupported_version() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "server/discover"))
        await wire.call(INIT)

    assert both(script)[-1]["error"] == {
        "code": -32022,
        "message": "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
        "data": {"supported": [V2026], "requested": "2025-06-18"},
    }


def test_an_enveloped_request_on_a_handshake_stdio_connection_is_invalid() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.call(modern(1, "tools/list"))

    assert both(script)[-1]["error"]["code"] == -32600


def test_an_enveloped_initialize_opens_the_handshake() -> None:
    async def script(wire: Wire) -> None:
        await wire.post(note("notifications/initialized"))  # before any request: replayed after it
        await wire.call(request(1, "initialize", {**INIT["params"], "_meta": ENVELOPE}))
        await wire.call(request(2, "ping"))

    assert both(script)[-1]["result"] == {}


# --- kernel-only rules (no SDK counterpart to drive) ------------------------------------------------------


def run_kernel(
    script: Callable[[KernelWire, FakeCatalog], Awaitable[None]],
    era: protocol.Era | None = None,
    *,
    debug: bool = False,
) -> list[Message]:
    async def main() -> list[Message]:
        catalog = FakeCatalog()
        wire = KernelWire(Kernel(catalog, version="1", instructions=None), era=era)
        await script(wire, catalog)
        await wire.session.close()
        return wire.transcript

    return asyncio.run(asyncio.wait_for(main(), 60), debug=debug)


def test_a_request_runs_in_the_senders_context() -> None:
    seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen")

    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        catalog.seen = seen
        await handshake(wire)
        seen.set("caller")
        await wire.call(request(1, "tools/call", {"name": "echo"}))
        given = contextvars.copy_context()
        given.run(seen.set, "given")
        await wire.session.receive("request", request(2, "tools/call", {"name": "echo"}), context=given)
        await wire.answer(2)

    one, two = run_kernel(script)[-2:]
    assert one["result"]["structuredContent"]["result"]["seen"] == "caller"
    assert two["result"]["structuredContent"]["result"]["seen"] == "given"


def test_tools_changed_from_another_thread_hops_to_the_loop() -> None:
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await handshake(wire)
        thread = threading.Thread(target=catalog.change)
        thread.start()
        thread.join()
        assert await wire.next() == note("notifications/tools/list_changed")

    run_kernel(script, debug=True)


def test_an_http_handshake_session_serves_an_enveloped_request() -> None:
    # Over HTTP the header routed the request, so the SDK's HTTP loop has no era lock.
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await handshake(wire)
        assert "tools" in (await wire.call(modern(1, "tools/list")))["result"]

    run_kernel(script, era="handshake")


def test_an_http_2026_session_answers_initialize_not_found() -> None:
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        answer = await wire.call(modern(1, "initialize", INIT["params"]))
        assert answer["error"] == {"code": -32601, "message": "Method not found", "data": "initialize"}

    run_kernel(script, era=V2026)


def test_close_ends_listen_streams_with_their_result() -> None:
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await wire.post(modern("L", "subscriptions/listen", {"notifications": {"toolsListChanged": True}}))
        await wire.next()
        wire.kernel.close()
        answer = await wire.answer("L")
        meta = answer["result"]["_meta"]
        assert meta["io.modelcontextprotocol/subscriptionId"] == "L" and answer["result"]["resultType"] == "complete"

    run_kernel(script)


def test_close_from_another_thread_ends_listen_streams() -> None:
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await wire.post(modern("L", "subscriptions/listen", {"notifications": {"toolsListChanged": True}}))
        await wire.next()
        failed: list[BaseException] = []

        def close() -> None:
            try:
                wire.kernel.close()
            except BaseException as exc:  # asyncio's debug mode refuses a loop touched off its thread
                failed.append(exc)

        thread = threading.Thread(target=close)
        thread.start()
        thread.join()
        assert failed == []
        assert "result" in await wire.answer("L")

    run_kernel(script, debug=True)


def test_listen_streams_beyond_the_limit_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "MAX_LISTENERS", 1)

    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        listen = {"notifications": {"toolsListChanged": True}}
        await wire.post(modern("A", "subscriptions/listen", listen))
        await wire.next()
        refused = await wire.call(modern("B", "subscriptions/listen", listen))
        assert refused["error"] == {"code": -32603, "message": "Subscription limit reached"}

    run_kernel(script)


def test_a_listen_stream_not_read_ends_at_its_backlog_after_what_it_buffered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "MAX_BUFFERED_EVENTS", 2)

    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await wire.post(modern("L", "subscriptions/listen", {"notifications": {"toolsListChanged": True}}))
        await wire.next()
        for _ in range(5):  # on the loop, with no await between: the stream reads none of them meanwhile
            catalog.change()
        await wire.answer("L")
        catalog.change()  # the stream is gone: nothing more for it
        await wire.call(modern(1, "tools/list"))

    transcript = run_kernel(script)
    methods = [m.get("method", m.get("id")) for m in transcript]
    assert methods == ["notifications/subscriptions/acknowledged"] + ["notifications/tools/list_changed"] * 2 + ["L", 1]


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ([("MCP-Protocol-Version", V2026), ("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")], None),
        ([("MCP-Protocol-Version", V2026), ("Mcp-Method", "tools/call"), ("Mcp-Name", "=?base64?ZWNobw==?=")], None),
        ([("MCP-Protocol-Version", V2026), ("Mcp-Method", "tools/call"), ("Mcp-Name", "other")], -32020),
        ([("MCP-Protocol-Version", V2026), ("Mcp-Method", "tools/list"), ("Mcp-Name", "echo")], -32020),
        ([("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")], -32020),
        ([("MCP-Protocol-Version", "2030-01-01"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")], -32020),
        ([("MCP-Protocol-Version", V2026), ("mcp-protocol-version", V2026), ("Mcp-Method", "tools/call")], -32020),
    ],
)
def test_the_envelope_ladder_with_headers_as_the_sdk_judges_it(
    headers: list[tuple[str, str]], code: int | None
) -> None:
    from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request, find_duplicated_routing_header

    body = modern(1, "tools/call", {"name": "echo"})
    ours = protocol.envelope_error(body, headers=headers)
    duplicated = find_duplicated_routing_header(headers)
    verdict = classify_inbound_request(body, headers={k.lower(): v for k, v in headers})
    if duplicated is not None:
        expected: Message | None = jsonrpc.error(1, -32020, f"{duplicated} header appears more than once")
    elif isinstance(verdict, InboundLadderRejection):
        expected = jsonrpc.error(1, verdict.code, verdict.message, verdict.data)
    else:
        expected = None
    assert ours == expected
    assert (ours or {}).get("error", {}).get("code") == code


@pytest.mark.parametrize("version", [None, "2026-07-28", "2025-06-18", "2024-11-05", "x", "2030-01-01", ""])
def test_the_http_era_by_header(version: str | None) -> None:
    handshake_versions = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
    expected = "handshake" if version is None or version in handshake_versions else V2026
    assert protocol.era_of_header(version) == expected


def test_notifications_before_the_first_request_are_replayed_after_it() -> None:
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await wire.post(note("notifications/initialized"))
        assert not wire.session.initialized
        await wire.call(INIT)
        assert wire.session.initialized and wire.session.era == "handshake"

    run_kernel(script)


# --- params as the schemas judge them: every field of every spec method, one value at a time -------------

SURFACE_POOL: list[Any] = [
    None,
    1,
    1.0,
    1.5,
    True,
    "s",
    "5",
    "yes",
    [],
    ["s"],
    [1],
    {},
    {"a": 1},
    {"a": {}},
    {"a": "s"},
]
SURFACE_BASES: dict[str, Message] = {
    "ping": {},
    "tools/list": {"cursor": "c"},
    "tools/call": {"name": "n", "arguments": {}},
    "initialize": {
        "protocolVersion": "v",
        "capabilities": {
            "roots": {"listChanged": True},
            "sampling": {},
            "elicitation": {},
            "experimental": {},
            "tasks": {"requests": {"sampling": {}}},
        },
        "clientInfo": {"name": "n", "version": "1", "icons": [{"src": "s"}]},
    },
    "prompts/get": {"name": "n", "arguments": {"a": "b"}},
    "resources/read": {"uri": "u"},
    "logging/setLevel": {"level": "info"},
    "resources/subscribe": {"uri": "u"},
    "completion/complete": {
        "ref": {"type": "ref/prompt", "name": "p"},
        "argument": {"name": "a", "value": "v"},
        "context": {"arguments": {}},
    },
    "server/discover": {},
    "subscriptions/listen": {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["a"]}},
    "prompts/list": {},
    "resources/list": {},
    "resources/templates/list": {},
}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list) and value:
        found += _paths(value[0], (*prefix, 0))
    return found


def _edited(value: Any, path: tuple[Any, ...], new: Any = ..., *, delete: bool = False) -> Any:
    value = copy.deepcopy(value)
    node = value
    for step in path[:-1]:
        node = node[step]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = new
    return value


def surface_cases() -> list[tuple[str, str, Any]]:
    cases: list[tuple[str, str, Any]] = []
    for era in ("handshake", V2026):
        for method, params in SURFACE_BASES.items():
            base = copy.deepcopy(params)
            if era == V2026:
                base["_meta"] = {
                    **ENVELOPE,
                    "progressToken": "t",
                    "io.modelcontextprotocol/logLevel": "info",
                    "io.modelcontextprotocol/clientCapabilities": {
                        "roots": {},
                        "sampling": {"context": {}},
                        "elicitation": {"form": {}},
                        "experimental": {"x": {}},
                        "extensions": {"e": {"k": 1}},
                    },
                }
            else:
                base["_meta"] = {"progressToken": "t"}
            cases += [(era, method, None), (era, method, base)]
            for path in _paths(base)[1:]:
                if path[-1] == "io.modelcontextprotocol/protocolVersion":
                    continue  # the envelope ladder judges it first
                cases += [(era, method, _edited(base, path, new)) for new in SURFACE_POOL]
                if not isinstance(path[-1], int):
                    cases.append((era, method, _edited(base, path, delete=True)))
    return cases


def test_params_are_judged_as_the_sdks_schemas_judge_them() -> None:
    from mcp_types.methods import CLIENT_REQUESTS, validate_client_request

    differ = []
    cases = surface_cases()
    for era, method, params in cases:
        version = "2025-11-25" if era == "handshake" else V2026
        if (method, version) not in CLIENT_REQUESTS:
            continue
        try:
            validate_client_request(method, version, params)
            sdk = True
        except ValidationError:
            sdk = False
        if protocol._surface_ok(method, era, params) != sdk:  # type: ignore[arg-type]
            differ.append((era, method, params, sdk))
    assert len(cases) > 3000
    assert differ == []


# --- no SDK in the kernel ---------------------------------------------------------------------------------


def test_the_kernel_imports_no_sdk() -> None:
    code = (
        "import sys, wpfprobe.mcp.protocol, wpfprobe.mcp.jsonrpc\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('mcp', 'mcp_types', 'starlette', 'sse_starlette', 'anyio'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
