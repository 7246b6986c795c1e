"""The stdio server's wire, bounded: each frame's size, and the requests a client has in flight.

The SDK's stdio transport reads stdin a line at a time with no limit: one frame
of 400 MiB with no newline took an app from 177 to 848 MiB, and a few GiB would
end it. Over HTTP the SDK refuses a body over 4 MiB with 413 before parsing it;
here a frame over :data:`MAX_FRAME` characters is skipped in pieces of that size
(so memory stays bounded however long it is) and dropped as the SDK drops a line
that is no JSON-RPC message: the server answers nothing for it (its id is in the
part no one read) and goes on with the next line.

Nor did it stop reading while requests waited: the server starts a task for each
request it reads, at once, so a client that sends requests faster than it reads
the answers (or has stopped reading them) grew the app without end: 300,000
pings sent, none of the answers read, took an app from 177 MiB past 1.2 GiB in
a minute. HTTP is bounded by its connections (one request at a time on each).
Here stdin is not read while :data:`MAX_IN_FLIGHT` requests are unanswered: a
request counts from the line that carries it until the line that answers it is
written, or until the client cancels it (``notifications/cancelled``, which
stdio answers with nothing). The client's own writes then wait, as a pipe's do.

Serving is otherwise the SDK's own (``stdio_server`` and the low-level ``Server.run``, as MCPServer
used them): its claims of fd 0 (pointed at the null device while serving, so the
app's children read EOF and not the wire) and of fd 1 (pointed at stderr, so
the app's prints miss the wire), made here the way it makes them, and its read
and write loops. The broker's stdio (``wpfprobe mcp``) uses the same streams.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp.server import stdio as _sdk_stdio

__all__ = ["MAX_FRAME", "MAX_IN_FLIGHT", "serve", "streams"]

log = logging.getLogger("wpfprobe.wire")

#: Characters in one frame at most: the SDK's HTTP body limit (4 MiB), the same for both wires.
MAX_FRAME = 4 * 1024 * 1024
#: Requests read and not yet answered at most; stdin waits beyond it. An agent has a few at once.
MAX_IN_FLIGHT = 64

# An answer as the SDK writes it (model_dump_json: jsonrpc, then id, then result or error).
_ANSWER = re.compile(r'\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?),"(?:result|error)"')


def _is_request(message: dict[str, Any]) -> bool:
    request_id = message["id"]
    return (isinstance(request_id, str) or (isinstance(request_id, int) and not isinstance(request_id, bool))) and (
        isinstance(message.get("params", {}), dict)
    )


class _InFlight:
    """The ids of the requests read and not yet answered (as JSON text: 1 and "1" differ)."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._changed = threading.Condition()

    def read(self, line: str) -> None:
        """A line read: a request waits for room, then counts; a cancellation uncounts its request
        (a notification never waits, so a cancellation gets through while requests wait)."""
        try:
            message = json.loads(line)
        except ValueError:
            return  # the SDK drops it
        if (
            not isinstance(message, dict)
            or message.get("jsonrpc") != "2.0"
            or not isinstance(message.get("method"), str)
        ):
            return  # no message the SDK serves: it drops it, and answers nothing
        with self._changed:
            if "id" in message:
                if not _is_request(message):
                    return  # dropped by the SDK as well (an id that is no str or int, params no object)
                while len(self._ids) >= MAX_IN_FLIGHT:
                    self._changed.wait()
                self._ids.add(json.dumps(message["id"]))
            elif message["method"] == "notifications/cancelled":
                params = message.get("params")
                if isinstance(params, dict) and "requestId" in params:
                    self._ids.discard(json.dumps(params["requestId"]))
                    self._changed.notify_all()

    def written(self, text: str) -> None:
        answer = _ANSWER.match(text)
        if answer is None:
            return
        with self._changed:
            self._ids.discard(json.dumps(json.loads(answer.group(1))))
            self._changed.notify_all()


class _BoundedLines(_sdk_stdio._UnownedTextWrapper):
    """stdin as UTF-8 lines of at most ``MAX_FRAME`` characters; a longer one reads as an empty
    line (no message), its rest skipped ``MAX_FRAME`` characters at a time. The next line is
    read only while fewer than ``MAX_IN_FLIGHT`` requests are unanswered."""

    in_flight: _InFlight

    def readline(self, size: int = -1) -> str:  # type: ignore[override]
        line = super().readline(MAX_FRAME + 1)
        if len(line) <= MAX_FRAME or line.endswith("\n"):
            self.in_flight.read(line)
            return line
        skipped = len(line)
        while line and not line.endswith("\n"):
            line = super().readline(MAX_FRAME)
            skipped += len(line)
        log.debug("a stdio frame of %d characters was dropped (at most %d)", skipped, MAX_FRAME)
        return "\n" if line else ""  # "" only at the end of the input: the wire closed mid-frame


class _AnswerCounter(_sdk_stdio._UnownedTextWrapper):
    """stdout, telling ``in_flight`` of each answer written (one frame per write, as the SDK writes)."""

    in_flight: _InFlight

    def write(self, text: str) -> int:
        written = super().write(text)
        self.in_flight.written(text)
        return written


@asynccontextmanager
async def streams() -> AsyncIterator[tuple[Any, Any]]:
    """The SDK's ``stdio_server`` streams (read, write), over stdin and stdout bounded as above."""
    in_flight = _InFlight()
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


async def serve(server: Any) -> None:
    """Serve ``server`` (the SDK's low-level Server) over stdin and stdout, as ``stdio_server`` does."""
    async with streams() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
