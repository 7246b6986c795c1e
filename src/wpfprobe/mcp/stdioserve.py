"""One stdio connection served on the SDK-free kernel: the process's stdin and stdout as the wire.

What the SDK's ``stdio_server`` did for us, without importing it (issue 22):

* **The claim of fd 0 and fd 1**, made as the SDK makes it (``mcp`` 2.3
  ``server/stdio.py``): each is duplicated to a private descriptor the wire is
  then served from, fd 1 is pointed at stderr (so the app's prints, and its
  children's, miss the wire) and fd 0 at the null device (so they read EOF, not
  the client's frames); both are restored when serving ends, so the app keeps
  running with its stdio as it was. A second claim while one is held is refused.
* **Lines in**: UTF-8 (bad bytes replaced), one message a line, decoded by
  :mod:`.jsonrpc`; a line that is no message is dropped without an answer, as the
  SDK drops it (it cannot say which request it was). Serving ends when stdin does.
* **Lines out**: each message one compact JSON line, flushed, written in order.

And the two bounds the SDK lacked (they were ``stdio_wire``'s; the broker's SDK
stdio keeps using them from here):

* a frame over :data:`MAX_FRAME` characters is skipped in pieces of that size, so
  memory stays bounded however long it is, and dropped like any line that is no
  message (the SDK read a 400 MiB line whole: 177 to 848 MiB);
* stdin is not read while :data:`MAX_IN_FLIGHT` requests are unanswered: a request
  counts from the line that carries it until the line that answers it is written,
  or until the client cancels it (``notifications/cancelled``, which stdio answers
  with nothing). A client that sends faster than it reads then waits, as a pipe's
  writer does (300,000 unread pings took the SDK's server past 1.2 GiB).

Reading and writing block, so each has its own daemon thread (a write to a client
that stopped reading must not hold the loop, nor the interpreter's exit). A reader
blocked on stdin when serving is stopped stays blocked on the private descriptor,
which is therefore never closed (the SDK's choice too): it may take one more line
from the restored stdin. Nothing here imports the SDK.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import io
import json
import logging
import os
import queue
import re
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, BinaryIO, Final, Literal, TextIO

from wpfprobe.mcp import jsonrpc
from wpfprobe.mcp.jsonrpc import RequestId
from wpfprobe.mcp.protocol import Kernel

__all__ = ["MAX_FRAME", "MAX_IN_FLIGHT", "InFlight", "claim_fd", "read_line", "serve"]

log = logging.getLogger("wpfprobe.wire")

Message = dict[str, Any]

#: Characters in one frame at most: the SDK's HTTP body limit (4 MiB), the same for both wires.
MAX_FRAME = 4 * 1024 * 1024
#: Requests read and not yet answered at most; stdin waits beyond it. An agent has a few at once.
MAX_IN_FLIGHT = 64
#: How long the end of serving waits for the requests in flight to end and their last lines to be
#: written (a cancelled tool call is given 3 s to stop; a client that stopped reading, none).
CLOSE_SECONDS: Final = 10.0


# --- the bounds ------------------------------------------------------------------------------------

# An answer as it is written (compact JSON: jsonrpc, then id, then result or error); for the
# SDK's writer, which hands over text (stdio_wire).
_ANSWER = re.compile(r'\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?),"(?:result|error)"')


class InFlight:
    """The ids of the requests read and not yet answered (as JSON text: 1 and "1" differ)."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._changed = threading.Condition()
        self._closed = False

    def read(self, line: str) -> jsonrpc.Decoded | jsonrpc.Invalid:
        """A line read, decoded: a request waits for room, then counts; a cancellation uncounts its
        request (a notification never waits, so a cancellation gets through while requests wait)."""
        decoded = jsonrpc.decode(line)
        if isinstance(decoded, jsonrpc.Invalid):
            return decoded  # no message: dropped, and answered with nothing
        message = decoded.message
        with self._changed:
            if decoded.kind == "request":
                while len(self._ids) >= MAX_IN_FLIGHT and not self._closed:
                    self._changed.wait()
                self._ids.add(json.dumps(message["id"]))
            elif decoded.kind == "notification" and message["method"] == "notifications/cancelled":
                params = message.get("params")
                if isinstance(params, dict) and "requestId" in params:
                    self._ids.discard(json.dumps(params["requestId"]))
                    self._changed.notify_all()
        return decoded

    def answered(self, message: Message) -> None:
        """A message written: if it is an answer, its request no longer counts."""
        if "id" in message and ("result" in message or "error" in message):
            self._discard(json.dumps(message["id"]))

    def written(self, text: str) -> None:
        """A frame written as text (the SDK's writer): if it is an answer, as :meth:`answered`."""
        answer = _ANSWER.match(text)
        if answer is not None:
            self._discard(json.dumps(json.loads(answer.group(1))))

    def close(self) -> None:
        """Serving ended: a reader waiting for room waits no more."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def _discard(self, key: str) -> None:
        with self._changed:
            self._ids.discard(key)
            self._changed.notify_all()


def read_line(readline: Callable[[int], str]) -> str:
    """The next line by ``readline`` (a text stream's), of at most ``MAX_FRAME`` characters: a
    longer one reads as an empty line (no message), its rest skipped ``MAX_FRAME`` characters at a
    time. "" only at the end of the input (also when it closed mid-frame)."""
    line = readline(MAX_FRAME + 1)
    if len(line) <= MAX_FRAME or line.endswith("\n"):
        return line
    skipped = len(line)
    while line and not line.endswith("\n"):
        line = readline(MAX_FRAME)
        skipped += len(line)
    log.debug("a stdio frame of %d characters was dropped (at most %d)", skipped, MAX_FRAME)
    return "\n" if line else ""


# --- the claim of fd 0 and fd 1 (the SDK's stream-claim contract) --------------------------------------
# The claims are the one authority on who owns fd 0/1. A private duplicate is recorded the moment
# it exists and never closed (a reader thread may still block on it); a claim is released only
# after the wire is restored, so a failed restore keeps it and refuses successors.


@dataclass
class _Claim:
    fd: int
    private_fd: int | None = None


_claims: dict[int, _Claim] = {}
_claims_lock = threading.Lock()


def _is_backed_by_fd(stream: TextIO, fd: int) -> bool:
    try:
        return stream.buffer.fileno() == fd
    except (AttributeError, OSError, ValueError):
        return False


def _dup_above_std(fd: int) -> int:
    """A duplicate of ``fd`` that cannot land in the standard range (and is not inherited)."""
    if sys.platform == "win32":
        duplicate = os.dup(fd)  # not inheritable, as every new descriptor
        if duplicate <= 2:
            os.close(duplicate)
            raise OSError(f"duplicate of fd {fd} landed in the standard range")
        return duplicate
    import fcntl  # noqa: PLC0415 - POSIX only

    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


def _open_stdin_diversion() -> int:
    return os.open(os.devnull, os.O_RDONLY)


def _open_stdout_diversion() -> int:
    try:
        return os.dup(2)
    except OSError:
        return os.open(os.devnull, os.O_WRONLY)


def _rebind_std_handle(fd: int) -> None:
    """Windows: point the Win32 standard-handle slot of ``fd`` at its current handle (``dup2``
    moves only the C runtime's table; a child process inherits the Win32 slot)."""
    if sys.platform == "win32":
        import ctypes  # noqa: PLC0415
        import msvcrt  # noqa: PLC0415
        from ctypes import wintypes  # noqa: PLC0415

        std_ids = {0: -10, 1: -11, 2: -12}  # STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE
        set_std_handle = ctypes.windll.kernel32.SetStdHandle
        set_std_handle.argtypes = (wintypes.DWORD, wintypes.HANDLE)
        set_std_handle.restype = wintypes.BOOL
        if not set_std_handle(std_ids[fd] & 0xFFFFFFFF, msvcrt.get_osfhandle(fd)):
            raise OSError(f"SetStdHandle failed for fd {fd}")


def _restore_fd(fd: int, private_fd: int) -> bool:
    try:
        os.dup2(private_fd, fd)
    except OSError:
        return False
    with contextlib.suppress(OSError):
        _rebind_std_handle(fd)
    return True


def claim_fd(
    fd: int, stream: TextIO, mode: Literal["rb", "wb"], open_diversion: Callable[[], int]
) -> tuple[BinaryIO, Callable[[], None] | None]:
    """Claim a standard stream: divert ``fd`` and serve the wire from a private duplicate; the
    binary stream to serve and the release (which restores ``fd``). Best effort, as the SDK's:
    where descriptors cannot be duplicated or diverted, ``stream``'s own buffer is served in place
    (still claimed). Raises RuntimeError while another claim of ``fd`` is held."""
    if not _is_backed_by_fd(stream, fd):
        return stream.buffer, None
    claim = _Claim(fd)
    with _claims_lock:
        if fd in _claims:
            raise RuntimeError(f"another stdio server in this process has already claimed fd {fd}")
        _claims[fd] = claim

    def release() -> None:
        if claim.private_fd is None or _restore_fd(fd, claim.private_fd):
            with _claims_lock:
                del _claims[fd]

    try:
        private_fd = _dup_above_std(fd)
    except OSError:
        return stream.buffer, release
    claim.private_fd = private_fd
    try:
        diversion_fd = open_diversion()
    except OSError:
        return stream.buffer, release
    try:
        os.dup2(diversion_fd, fd)
    except OSError:
        # The divert did not land: make sure fd carries the wire and serve it in place through the
        # shared buffer (two writers on one pipe would tear frames).
        with contextlib.suppress(OSError):
            os.close(diversion_fd)
        _restore_fd(fd, private_fd)
        return stream.buffer, release
    with contextlib.suppress(OSError):
        os.close(diversion_fd)
    with contextlib.suppress(OSError):
        _rebind_std_handle(fd)
    # closefd=False: a reader thread can still block on it after serving ends.
    binary: BinaryIO = os.fdopen(private_fd, mode, closefd=False)
    return binary, release


class _Unowned(io.TextIOWrapper):
    """A text layer whose close never closes the buffer under it (it may be ``sys.stdin``'s own)."""

    def close(self) -> None:
        with contextlib.suppress(ValueError):
            self.detach()


# --- serving ---------------------------------------------------------------------------------------


class _Reader:
    """stdin's lines, decoded on a daemon thread, one ahead of the loop (as the SDK's unbuffered
    stream was): None at the end of the input, or when serving stopped."""

    def __init__(self, text: TextIO, in_flight: InFlight, loop: asyncio.AbstractEventLoop) -> None:
        self.queue: asyncio.Queue[jsonrpc.Decoded | jsonrpc.Invalid | None] = asyncio.Queue()
        self._text = text
        self._in_flight = in_flight
        self._loop = loop
        self._room = threading.Semaphore(1)
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="wpfprobe-mcp-stdio-read", daemon=True)
        self._thread.start()

    async def get(self) -> jsonrpc.Decoded | jsonrpc.Invalid | None:
        item = await self.queue.get()
        self._room.release()
        return item

    def stop(self) -> None:
        self._stopped = True
        self._in_flight.close()
        self._room.release()

    def _run(self) -> None:
        item: jsonrpc.Decoded | jsonrpc.Invalid | None = None
        try:
            while True:
                self._room.acquire()
                if self._stopped:
                    return
                line = read_line(self._text.readline)
                if not line:
                    break
                item = self._in_flight.read(line)  # waits while too many requests are unanswered
                if self._stopped:
                    return
                self._loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except (OSError, ValueError):
            log.debug("stdin could not be read; the connection ends", exc_info=True)
        except RuntimeError:
            return  # the loop closed: serving is over
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self.queue.put_nowait, None)


class _Writer:
    """The kernel's Output for stdio: every message, in order, one line each, on a daemon thread."""

    def __init__(self, out: BinaryIO, in_flight: InFlight, on_broken: Callable[[], None]) -> None:
        self._out = out
        self._in_flight = in_flight
        self._on_broken = on_broken
        self._jobs: queue.SimpleQueue[tuple[Message, concurrent.futures.Future[None]] | None] = queue.SimpleQueue()
        self._broken: BaseException | None = None
        #: Done when the thread has written everything queued before :meth:`stop`.
        self.drained: concurrent.futures.Future[None] = concurrent.futures.Future()
        threading.Thread(target=self._run, name="wpfprobe-mcp-stdio-write", daemon=True).start()

    async def send(self, message: Message) -> None:
        await self._write(message)

    async def send_to(self, request_id: RequestId, message: Message) -> None:
        await self._write(message)

    async def end(self, request_id: RequestId, answer: Message | None) -> None:
        if answer is not None:  # a cancelled request: stdio writes nothing
            await self._write(answer)

    def stop(self) -> None:
        self._jobs.put(None)

    async def _write(self, message: Message) -> None:
        if self._broken is not None:
            raise BrokenPipeError("stdout is closed")
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._jobs.put((message, done))
        try:
            await asyncio.wrap_future(done)
        except (OSError, ValueError) as exc:
            if self._broken is None:
                self._broken = exc
                log.debug("stdout could not be written; the connection ends", exc_info=True)
                self._on_broken()
            raise

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            message, done = job
            if not done.set_running_or_notify_cancel():
                continue
            try:
                # Encoded here, not on the loop: an answer can be megabytes.
                self._out.write(jsonrpc.encode(message) + b"\n")
                self._out.flush()
            except Exception as exc:  # noqa: BLE001 - handed to the writing task, which judges it
                done.set_exception(exc)
                continue
            self._in_flight.answered(message)
            done.set_result(None)
        with contextlib.suppress(concurrent.futures.InvalidStateError):  # given up on: cancelled
            self.drained.set_result(None)


async def serve(kernel: Kernel, *, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Serve one connection on ``kernel`` until stdin ends, stdout breaks, or this is cancelled;
    then the requests in flight are cancelled and fd 0 and fd 1 restored. Without ``stdin`` and
    ``stdout`` the process's own are claimed (module docstring); given, they are served as they are."""
    release_stdin: Callable[[], None] | None = None
    release_stdout: Callable[[], None] | None = None
    try:
        if stdin is None:
            stdin, release_stdin = claim_fd(0, sys.stdin, "rb", _open_stdin_diversion)
        if stdout is None:
            stdout, release_stdout = claim_fd(1, sys.stdout, "wb", _open_stdout_diversion)
        await _serve(kernel, stdin, stdout)
    finally:
        # As the SDK releases its claims: stdout first.
        if release_stdout is not None:
            release_stdout()
        if release_stdin is not None:
            release_stdin()


async def _serve(kernel: Kernel, stdin: BinaryIO, stdout: BinaryIO) -> None:
    in_flight = InFlight()
    text = _Unowned(stdin, encoding="utf-8", errors="replace")
    reader = _Reader(text, in_flight, asyncio.get_running_loop())
    writer = _Writer(stdout, in_flight, lambda: reader.queue.put_nowait(None))
    session = kernel.connect(writer, era=None)
    try:
        while (item := await reader.get()) is not None:
            if isinstance(item, jsonrpc.Invalid):
                log.debug("a stdio line that is no JSON-RPC message was dropped (%s)", item.message)
                continue
            await session.receive(item.kind, item.message)
    finally:
        # The text layer is left to the collector: the reader may still be in it.
        reader.stop()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + CLOSE_SECONDS
        try:
            await asyncio.wait_for(session.close(), CLOSE_SECONDS)
        except TimeoutError:
            log.debug("requests in flight did not end within %s s of the connection's end", CLOSE_SECONDS)
        writer.stop()
        try:
            # Everything written before the descriptors are given back: after, it could follow
            # what the app prints to its restored stdout.
            await asyncio.wait_for(asyncio.wrap_future(writer.drained), max(0.0, deadline - loop.time()))
        except TimeoutError:
            log.debug("stdout took no more lines (a client that stopped reading); left unwritten")
