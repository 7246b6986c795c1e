"""The stdio server's wire, with every frame's size bounded.

The SDK's stdio transport reads stdin a line at a time with no limit: one frame
of 400 MiB with no newline took an app from 177 to 848 MiB, and a few GiB would
end it. Over HTTP the SDK refuses a body over 4 MiB with 413 before parsing it;
here a frame over :data:`MAX_FRAME` characters is skipped in pieces of that size
(so memory stays bounded however long it is) and dropped as the SDK drops a line
that is no JSON-RPC message: the server answers nothing for it (its id is in the
part no one read) and goes on with the next line.

Serving is otherwise the SDK's own (``stdio_server``, as ``MCPServer.run_stdio_async``
uses it): its claim of fd 0 (pointed at the null device while serving, so the
app's children read EOF and not the wire) and of fd 1, and its read and write
loops. The broker's stdio (``wpfprobe mcp``) reads through the same streams.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server import stdio as _sdk_stdio

__all__ = ["MAX_FRAME", "serve", "streams"]

log = logging.getLogger("wpfprobe.wire")

#: Characters in one frame at most: the SDK's HTTP body limit (4 MiB), the same for both wires.
MAX_FRAME = 4 * 1024 * 1024


class _BoundedLines(_sdk_stdio._UnownedTextWrapper):
    """stdin as UTF-8 lines of at most ``MAX_FRAME`` characters; a longer one reads as an empty
    line (no message), its rest skipped ``MAX_FRAME`` characters at a time."""

    def readline(self, size: int = -1) -> str:  # type: ignore[override]
        line = super().readline(MAX_FRAME + 1)
        if len(line) <= MAX_FRAME or line.endswith("\n"):
            return line
        skipped = len(line)
        while line and not line.endswith("\n"):
            line = super().readline(MAX_FRAME)
            skipped += len(line)
        log.debug("a stdio frame of %d characters was dropped (at most %d)", skipped, MAX_FRAME)
        return "\n" if line else ""  # "" only at the end of the input: the wire closed mid-frame


@asynccontextmanager
async def streams() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's ``stdio_server`` streams (read, write), stdin read through :class:`_BoundedLines`."""
    buffer, release = _sdk_stdio._claim_fd(0, sys.stdin, "rb", _sdk_stdio._open_stdin_diversion)
    try:
        stdin = anyio.wrap_file(_BoundedLines(buffer, encoding="utf-8", errors="replace"))
        async with _sdk_stdio.stdio_server(stdin=stdin) as (read_stream, write_stream):
            yield read_stream, write_stream
    finally:
        if release is not None:
            release()


async def serve(server: Any) -> None:
    """Serve ``server`` (the SDK's MCPServer) over stdin and stdout, as ``run_stdio_async`` does."""
    async with streams() as (read_stream, write_stream):
        lowlevel = server._lowlevel_server
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
