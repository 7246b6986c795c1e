"""``wpfprobe mcp``: the broker served over stdio, and the command's entry point."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mcp_types as types

from wpfprobe.broker.broker import Broker, BrokerTool
from wpfprobe.broker.registry import SCAN_INTERVAL

INSTRUCTIONS = (
    "wpfprobe's broker: one entry for every running wpfprobe app (WPF or WinForms under pythonnet). "
    "Call wpf_list_apps first. Every wpf_* tool takes an optional app argument (appId or name from "
    "wpf_list_apps), required when several apps run. An app's own tools are listed as <appId>__<tool>. "
    "wpf_launch_app starts a python script or a saved profile with the probe attached. wpf_list_apps also "
    "lists running pythonnet apps without a probe as attachable; wpf_attach_app {pid}, where offered, starts one."
)


def build_server(broker: Broker) -> Any:
    """The low-level MCP server whose tools/list and tools/call are the broker's."""
    from mcp.server.lowlevel.server import Server  # noqa: PLC0415
    from mcp.server.subscriptions import ListenHandler  # noqa: PLC0415
    from mcp.shared.jsonrpc_dispatcher import progress_token_from_params  # noqa: PLC0415

    from wpfprobe.core.version import __version__  # noqa: PLC0415

    async def on_list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=await broker.list_tools())

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        # A client that sent a progressToken hears progress while the call runs; the SDK
        # cancels this handler on notifications/cancelled, and the broker's call with it.
        asked = progress_token_from_params(ctx.params) is not None
        return await broker.call_tool(
            params.name, params.arguments, progress=ctx.session.report_progress if asked else None
        )

    async def remember_session(ctx: Any, call_next: Any) -> Any:
        # stdio has one client: its session is where list_changed notifications go.
        broker.session = ctx.session
        return await call_next(ctx)

    server: Any = Server(
        "wpfprobe-broker",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_subscriptions_listen=ListenHandler(broker.bus),
    )
    server.middleware.append(remember_session)
    return server


async def serve_stdio(
    *,
    directory: Path | None = None,
    scan_interval: float = SCAN_INTERVAL,
    record_dir: Path | None = None,
    extra_tools: Sequence[BrokerTool] = (),
) -> None:
    """Serve the broker on stdin/stdout until the client closes stdin."""
    from mcp.server.lowlevel.server import NotificationOptions  # noqa: PLC0415

    from wpfprobe.mcp import stdio_wire  # noqa: PLC0415 - a client's frame bounded, as in the app

    broker = Broker(directory=directory, scan_interval=scan_interval, record_dir=record_dir, extra_tools=extra_tools)
    server = build_server(broker)
    scanner = asyncio.ensure_future(broker.registry.scan_forever())
    try:
        async with stdio_wire.streams() as (read_stream, write_stream):
            await server.run(
                read_stream,
                write_stream,
                server.create_initialization_options(NotificationOptions(tools_changed=True)),
            )
    finally:
        scanner.cancel()
        with contextlib.suppress(BaseException):
            await scanner
        await broker.registry.close()
        broker.close_recorders()


def main(
    *,
    log_level: str | None = None,
    log_file: str | None = None,
    record_dir: Path | None = None,
    extra_tools: Sequence[BrokerTool] = (),
) -> int:
    """``wpfprobe mcp``: returns when the client disconnects."""
    from wpfprobe.core import logs as _logging  # noqa: PLC0415

    _logging.configure(level=log_level, file=log_file)
    # Nothing but MCP frames may reach stdout; the SDK's own loggers go to stderr (or the file).
    try:
        asyncio.run(serve_stdio(record_dir=record_dir, extra_tools=extra_tools))
    except KeyboardInterrupt:
        return 0
    return 0
