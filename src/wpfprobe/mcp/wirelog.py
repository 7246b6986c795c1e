"""The log records of the layers under the in-app server, kept out of the app's sight.

The app's MCP endpoint is wpfprobe's own kernel under uvicorn (server.py's ``_http_app``;
stdio needs no library at all), so uvicorn is the one library under it that logs, to loggers
of its own (``uvicorn.*``). The broker (``wpfprobe mcp``), which serves with the MCP SDK, is a
process of its own and does not route its records so. What a client does wrong (a malformed
request, a body cut short, a dropped connection) becomes a WARNING or an ERROR with a traceback
there, and in an app that configured no logging Python's last-resort handler prints those on
the app's stderr (in one that did, they land in the app's own log). Every input from a client
is the probe's business, so a record the library makes on one of the probe's server threads
(named ``wpfprobe-mcp-*``), or on its start-up's thread, which makes the HTTP server
(``wpfprobe-start``, mcp/starting.py), is filed as a DEBUG record of ``wpfprobe.wire``
instead: seen with WPFPROBE_LOG_LEVEL=DEBUG, in wpfprobe's JSON lines, which keep
an exception's type and stack but never its message. uvicorn's access records
are dropped (wpfprobe logs each tool call itself).

A record the same library makes on any other thread (an app that uses it
itself) goes to the root logger's handlers exactly as it would have. What this
cannot reach: handlers an app attaches to the library's own loggers.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

SERVER_THREAD_PREFIX = "wpfprobe-mcp"
"""The probe's server threads are named ``wpfprobe-mcp-http`` and ``wpfprobe-mcp-stdio``."""
#: The threads whose records of these libraries are the probe's: its servers', and its start-up's
#: (``starting.THREAD_NAME``: it imports uvicorn and makes the HTTP server).
PROBE_THREADS = (SERVER_THREAD_PREFIX, "wpfprobe-start")
#: What serving imports that logs (test_structured_logging checks it against a serving process).
LIBRARIES = ("uvicorn",)
WIRE_LOGGER = "wpfprobe.wire"

_lock = threading.Lock()


class _Route(logging.Handler):
    """On a library's top logger (which then stops propagating): the probe's records to
    ``wpfprobe.wire`` at DEBUG, everyone else's on to the root logger as before."""

    def __init__(self, library: logging.Logger, *, propagated: bool) -> None:
        super().__init__(logging.NOTSET)
        self._library = library
        self._propagated = propagated
        self._wire = logging.getLogger(WIRE_LOGGER)

    def handle(self, record: logging.LogRecord) -> bool:
        # No handler lock: routing only hands the record on, and a lock here would
        # serialize every thread that logs through these libraries.
        self.emit(record)
        return True

    def emit(self, record: logging.LogRecord) -> None:
        if threading.current_thread().name.startswith(PROBE_THREADS):
            if record.name.startswith("uvicorn.access") or not self._wire.isEnabledFor(logging.DEBUG):
                return
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            self._wire.handle(record)
        elif self._propagated and self._library.parent is not None:
            self._library.parent.callHandlers(record)


def install() -> None:
    """Route the libraries' records as described above (once per process; idempotent)."""
    with _lock:
        for name in LIBRARIES:
            library = logging.getLogger(name)
            if any(isinstance(h, _Route) for h in library.handlers):
                continue
            library.addHandler(_Route(library, propagated=library.propagate))
            library.propagate = False


def loop_exception(loop: Any, context: dict[str, Any]) -> None:
    """The exception handler of the probe's own event loops.

    asyncio's default handler logs to the ``asyncio`` logger, which in an app that
    configured no logging reaches Python's last-resort handler: the app's stderr. A
    client can get there on purpose: a HEAD request whose chunked body overflows
    h11's buffer makes uvicorn's 400 answer raise inside ``data_received`` (uvicorn
    0.54 writes a body to a HEAD response), and asyncio reports that as a fatal
    protocol error. The transport is closed either way (the client sees the
    connection drop); the report is the probe's business, so it goes where the
    libraries' own records go.
    """
    wire = logging.getLogger(WIRE_LOGGER)
    if not wire.isEnabledFor(logging.DEBUG):
        return
    exc = context.get("exception")
    wire.debug(
        "event loop: %s",
        context.get("message", "unhandled exception"),
        exc_info=(type(exc), exc, exc.__traceback__) if isinstance(exc, BaseException) else None,
    )
