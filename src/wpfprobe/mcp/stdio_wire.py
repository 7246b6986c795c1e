"""The SDK's stdio wire, bounded: each frame's size, and the requests a client has in flight.

The SDK's stdio transport reads stdin a line at a time with no limit, and goes
on reading while requests wait (a frame of 400 MiB took an app from 177 to 848
MiB; 300,000 unread pings past 1.2 GiB). The bounds are those of the SDK-free
stdio server, :mod:`.stdioserve` (its docstring says what they are); here they
are put under the SDK's own ``stdio_server``: its claims of fd 0 (pointed at the
null device while serving) and fd 1 (pointed at stderr), its read and write
loops. The broker's stdio (``wpfprobe mcp``) is served so; the app's own stdio
is served on wpfprobe's kernel, with no SDK (``stdioserve.serve``).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server import stdio as _sdk_stdio

from wpfprobe.mcp.stdioserve import MAX_FRAME, MAX_IN_FLIGHT, InFlight, read_line

__all__ = ["MAX_FRAME", "MAX_IN_FLIGHT", "streams"]

log = logging.getLogger("wpfprobe.wire")


class _BoundedLines(_sdk_stdio._UnownedTextWrapper):
    """stdin as UTF-8 lines of at most ``MAX_FRAME`` characters; a longer one reads as an empty
    line (no message), its rest skipped ``MAX_FRAME`` characters at a time. The next line is
    read only while fewer than ``MAX_IN_FLIGHT`` requests are unanswered."""

    in_flight: InFlight

    def readline(self, size: int = -1) -> str:  # type: ignore[override]
        line = read_line(super().readline)
        self.in_flight.read(line)
        return line


class _AnswerCounter(_sdk_stdio._UnownedTextWrapper):
    """stdout, telling ``in_flight`` of each answer written (one frame per write, as the SDK writes)."""

    in_flight: InFlight

    def write(self, text: str) -> int:
        written = super().write(text)
        self.in_flight.written(text)
        return written


@asynccontextmanager
async def streams() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's ``stdio_server`` streams (read, write), over stdin and stdout bounded as above."""
    in_flight = InFlight()
    stdin_buffer, release_stdin = _sdk_stdio._claim_fd(0, sys.stdin, "rb", _sdk_stdio._open_stdin_diversion)
    release_stdout = None
    try:
        stdout_buffer, release_stdout = _sdk_stdio._claim_fd(1, sys.stdout, "wb", _sdk_stdio._open_stdout_diversion)
        reader = _BoundedLines(stdin_buffer, encoding="utf-8", errors="replace")
        writer = _AnswerCounter(stdout_buffer, encoding="utf-8")
        reader.in_flight = writer.in_flight = in_flight
        async with _sdk_stdio.stdio_server(stdin=anyio.wrap_file(reader), stdout=anyio.wrap_file(writer)) as (
            read_stream,
            write_stream,
        ):
            yield read_stream, write_stream
    finally:
        # As the SDK releases its own claims: stdout first.
        if release_stdout is not None:
            release_stdout()
        if release_stdin is not None:
            release_stdin()
