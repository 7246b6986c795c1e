"""The tool catalog (src/wpfprobe/mcp/catalog.py) served by the official SDK's low-level ``Server``:
the tests' SDK reference, not part of wpfprobe.

The app serves its catalog on wpfprobe's own kernel (protocol.py, over httpserve.py, handshake.py
and stdioserve.py), with no SDK. This is how the app served it before, on the SDK, kept as the
reference the kernel's twin tests and the wire comparisons run against (kernel_twin.py,
test_httpserve.py, test_handshake.py); test_sdk_reference.py pins it against the installed SDK.

Everything about tools lives in ``ToolCatalog``, which knows no SDK; this module is the boundary:
two handlers turn the catalog's dicts into the SDK's types (tools/list, tools/call with progress
from the request's context), a ``subscriptions/listen`` handler on a subscription bus carries
tool-list changes to 2026-07-28 clients, and a middleware remembers the handshake-era
connections, the only ones told of a change outside a listen stream.

What is declared is what is served: tools, whose list changes. The low-level server derives the
capabilities from the handlers routed, so prompts and resources are neither declared nor answered
(-32601), and ``tools.listChanged`` is declared on the handshake era because this server asks for
it (``create_initialization_options``); the gate's tier is advertised as the extension
``dev.wpfprobe/gate`` (the 2025 era's result schema drops ``extensions``, so only 2026-07-28
discovery shows it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Callable
from typing import Any

from mcp.server.lowlevel.server import NotificationOptions, Server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
from mcp_types import CallToolResult, ListToolsResult, Tool
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Engine, Tier
from wpfprobe.mcp.catalog import INSTRUCTIONS, Progress, ToolCatalog
from wpfprobe.mcp.protocol import GATE_EXTENSION
from wpfprobe.mcp.tools import ToolSpec

__all__ = ["ToolServer"]

log = logging.getLogger("wpfprobe.server")


class _ToolsServer(Server[Any]):
    """The low-level server, declaring ``tools.listChanged`` wherever its options are made
    (its HTTP and stdio runners ask with no NotificationOptions)."""

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> Any:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), experimental_capabilities, extensions
        )


class ToolServer:
    """A ToolCatalog behind the SDK's low-level server (``server``); a tool may be added while it serves.

    Clients learn about a tool added later through ``notifications/tools/list_changed``:
    on 2026-07-28 connections through ``subscriptions/listen`` streams (the SDK's
    subscription bus), on handshake-era connections through each session's
    notification channel (the standalone SSE stream over HTTP).
    """

    def __init__(
        self,
        engine: Engine | Callable[[], Engine] | None,
        *,
        tier: Tier,
        settings: ProbeSettings | None = None,
        app_id: str | None = None,
        catalog: ToolCatalog | None = None,
    ) -> None:
        """``engine``, ``settings``, ``app_id``: as ``ToolCatalog`` takes them; or the ``catalog``
        itself, made before (the HTTP server makes this one on its first handshake-era request)."""
        from wpfprobe.core.version import __version__

        if catalog is None:
            catalog = ToolCatalog(engine, tier=tier, settings=settings, app_id=app_id)
        self.catalog = catalog
        #: Records the agent's actions as replayable steps when the settings ask (``record_dir``).
        self.recorder = self.catalog.recorder
        self._bus = InMemorySubscriptionBus()
        self._sessions = _Sessions()
        self._listed: ListToolsResult | None = None
        self.server = _ToolsServer(
            "wpfprobe",
            version=__version__,
            instructions=INSTRUCTIONS,
            get_tool_input_schema=self._input_schema,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_subscriptions_listen=ListenHandler(self._bus),
        )
        self.server.extensions[GATE_EXTENSION] = {"tier": tier}
        self.server.middleware.append(self._sessions)
        self.catalog.on_change(self._changed)

    @property
    def names(self) -> set[str]:
        """Every tool name taken on this server, listed or above the tier."""
        return self.catalog.names

    def has_custom(self, source: object) -> bool:
        return self.catalog.has_custom(source)

    def add(self, spec: ToolSpec, *, custom: bool = False, source: object = None) -> bool:
        """Serve ``spec`` (``ToolCatalog.add``); call ``tools_changed`` after, while serving."""
        self._listed = None
        return self.catalog.add(spec, custom=custom, source=source)

    def tools_changed(self) -> None:
        """Tell connected clients to list the tools again. Safe from any thread; it
        does not wait, and with no client connected yet there is nobody to tell."""
        self.catalog.tools_changed()

    def _changed(self) -> None:
        self._listed = None
        loop = self._sessions.loop
        if loop is None or loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the server stopped
            asyncio.run_coroutine_threadsafe(self._notify(), loop)

    async def _notify(self) -> None:
        await self._bus.publish(ToolsListChanged())
        for connection in self._sessions.handshake_connections():
            try:
                await connection.send_tool_list_changed()
            except Exception:
                log.debug("could not notify a client of the tool list change", exc_info=True)

    # -- the SDK's handlers: the catalog's dicts as the SDK's types --------------------------

    async def _list_tools(self, ctx: Any, params: Any) -> ListToolsResult:
        listed = self._listed
        if listed is None:
            listed = self._listed = ListToolsResult(tools=[Tool.model_validate(t) for t in self.catalog.list_tools()])
        return listed

    def _input_schema(self, name: str) -> dict[str, Any] | None:
        """For the SDK's ``Mcp-Param`` header checks (2026 HTTP), without listing every tool."""
        return self.catalog.input_schema(name)

    async def _call_tool(self, ctx: Any, params: Any) -> CallToolResult:
        progress: Progress | None = None
        if progress_token_from_params(ctx.params) is not None:
            session = ctx.session

            async def progress(value: float, total: float | None, message: str | None) -> None:
                await session.report_progress(value, total, message)

        result = await self.catalog.call_tool(params.name, params.arguments, progress=progress)
        return CallToolResult.model_validate(result)


class _Sessions:
    """Server middleware that remembers the event loop and the handshake-era connections,
    the only ones that take a list_changed notification outside a listen stream.

    The SDK hands middleware a per-request ServerSession; the connection behind it
    (which outlives the request) is only reachable through its private ``_connection``.
    Without it (another SDK version), handshake-era clients are not notified.
    """

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self._connections: weakref.WeakSet[Any] = weakref.WeakSet()

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        self.loop = asyncio.get_running_loop()
        connection = getattr(ctx.session, "_connection", None)
        # From initialize on (only the handshake era initializes), so a client that connects
        # and lists nothing yet still hears of a tool added meanwhile.
        handshake = ctx.method == "initialize" or ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS
        if handshake and hasattr(connection, "send_tool_list_changed"):
            with contextlib.suppress(TypeError):  # a type that takes no weak reference
                self._connections.add(connection)
        return await call_next(ctx)

    def handshake_connections(self) -> list[Any]:
        return list(self._connections)
