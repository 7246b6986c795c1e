"""The twin drivers of the SDK-free MCP kernel's tests (tests/unit/test_protocol_*.py).

Each rule is driven twice with the same messages: through the kernel (a fake catalog, a fake
output) and through the SDK's own stdio kernel (``Server.run``: the dual-era loop stdio uses)
fed the same raw messages; :func:`both` checks the two transcripts equal, dict for dict. The SDK
runs either the catalog as the app served it on the SDK (``ToolServer``, sdk_reference.py:
identity, capabilities, errors, list_changed) or a bare low-level ``Server`` whose handlers call
the same fake catalog (results, progress, cancellation).
:func:`run_kernel` drives the kernel alone, for rules the SDK's stdio kernel cannot show.
"""

import abc
import asyncio
import contextvars
import json
from collections.abc import Awaitable, Callable
from typing import Any, Final

import anyio
from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp.shared.message import SessionMessage
from mcp_types import CallToolResult, ListToolsResult
from mcp_types.jsonrpc import jsonrpc_message_adapter
from sdk_reference import ToolServer

from wpfprobe.core.version import __version__
from wpfprobe.mcp import jsonrpc, protocol
from wpfprobe.mcp.catalog import INSTRUCTIONS
from wpfprobe.mcp.protocol import Kernel, Progress

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


class Wire(abc.ABC):
    """One connection as a client sees it: messages in, messages out in order. KernelWire and
    SdkWire say how a message reaches their server."""

    def __init__(self) -> None:
        self.out: asyncio.Queue[Message] = asyncio.Queue()
        self.transcript: list[Message] = []

    @abc.abstractmethod
    async def post(self, message: Message) -> None:
        """The client sends ``message``."""

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
    lowlevel = tools.server
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
