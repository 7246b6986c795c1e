"""One stdio connection served on the SDK-free kernel (``wpfprobe.mcp.stdioserve``), over real pipes:
a fake catalog in this process for the line rules and the bounds, a child process where fd 0 and
fd 1 themselves are claimed and given back."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from typing import Any

import pytest

from wpfprobe.mcp import stdioserve
from wpfprobe.mcp.protocol import Kernel, Progress

Message = dict[str, Any]
DEADLINE = 30.0
INIT: Message = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


class Catalog:
    """echo answers its arguments; tick reports progress; slow waits for release() or its cancellation."""

    tier = "read"

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.released = asyncio.Event()
        self.cancelled = threading.Event()
        self.changed: Callable[[], None] | None = None

    def list_tools(self) -> list[Message]:
        return [{"name": name, "inputSchema": {"type": "object"}} for name in ("echo", "tick", "slow")]

    async def call_tool(self, name: str, arguments: Message | None, *, progress: Progress | None) -> Message:
        self.loop = asyncio.get_running_loop()
        if name == "tick" and progress is not None:
            await progress(1, None, "first")
        if name == "slow":
            try:
                await self.released.wait()
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        return {"content": [{"type": "text", "text": json.dumps(arguments)}], "isError": False}

    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        self.changed = callback
        return lambda: None

    def release(self) -> None:
        assert self.loop is not None
        self.loop.call_soon_threadsafe(self.released.set)


class Served:
    """``serve`` on its own thread and loop over two pipes; this side is the client."""

    def __init__(self, catalog: Catalog, *, reading: bool = True) -> None:
        self.catalog = catalog
        server_in, client_out = os.pipe()
        client_in, server_out = os.pipe()
        self._to_server = os.fdopen(client_out, "wb")
        self._from_server = os.fdopen(client_in, "rb")
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.error: BaseException | None = None
        self.kernel = Kernel(catalog, version="1", instructions=None)
        self._server_stdin = os.fdopen(server_in, "rb")

        def run() -> None:
            # stdin is not closed here: serve's reader may still be blocked on it, holding its lock.
            stdout = os.fdopen(server_out, "wb")
            try:
                asyncio.run(stdioserve.serve(self.kernel, stdin=self._server_stdin, stdout=stdout))
            except BaseException as exc:
                self.error = exc
            with contextlib.suppress(OSError):  # what a broken pipe left in its buffer
                stdout.close()

        def read() -> None:
            while line := self._from_server.readline():
                self.lines.put(line)
            self.lines.put(b"")

        self.server = threading.Thread(target=run, daemon=True)
        self.server.start()
        self._reading = reading
        if reading:  # else next() reads itself, with no deadline (a reader thread would hold the pipe open)
            threading.Thread(target=read, daemon=True).start()

    def send_line(self, line: bytes) -> None:
        self._to_server.write(line + b"\n")
        self._to_server.flush()

    def send(self, message: Message) -> None:
        self.send_line(json.dumps(message).encode())

    def next(self, timeout: float = DEADLINE) -> Message:
        line = self.lines.get(timeout=timeout) if self._reading else self._from_server.readline()
        assert line.endswith(b"\n") and line.count(b"\n") == 1, line[:200]
        message: Message = json.loads(line)
        return message

    def answer(self, request_id: Any) -> list[Message]:
        """What the server wrote up to and including the answer to ``request_id``."""
        seen = [self.next()]
        while seen[-1].get("id") != request_id or not ("result" in seen[-1] or "error" in seen[-1]):
            seen.append(self.next())
        return seen

    def call(self, message: Message) -> list[Message]:
        self.send(message)
        return self.answer(message["id"])

    def close_stdin(self) -> None:
        self._to_server.close()

    def ended(self) -> bool:
        self.server.join(DEADLINE)
        return not self.server.is_alive()

    def close(self) -> None:
        if not self._to_server.closed:
            self._to_server.close()
        self.server.join(DEADLINE)
        self._from_server.close()


@pytest.fixture
def served() -> Any:
    catalog = Catalog()
    served = Served(catalog)
    yield served
    if catalog.loop is not None and not catalog.loop.is_closed():
        catalog.release()
    served.close()
    assert served.error is None


def request(request_id: Any, method: str, params: Message | None = None) -> Message:
    message: Message = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def test_each_message_is_one_line_and_a_line_that_is_no_message_gets_nothing(served: Served) -> None:
    for line in (b"{not json", b"5", b"[]", b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', b"", b"\xff\xfe"):
        served.send_line(line)
    assert served.call(request(1, "ping")) == [{"jsonrpc": "2.0", "id": 1, "result": {}}]
    served.call(INIT)
    served.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    listed = served.call(request(2, "tools/list"))
    assert [tool["name"] for tool in listed[0]["result"]["tools"]] == ["echo", "tick", "slow"]
    ticked = served.call(request(3, "tools/call", {"name": "tick", "_meta": {"progressToken": "p"}}))
    assert ticked[0] == {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": "p", "progress": 1, "message": "first"},
    }
    assert ticked[1]["id"] == 3 and "result" in ticked[1]
    assert served.catalog.changed is not None
    served.catalog.changed()  # from this thread: the kernel hops to the loop
    assert served.next() == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    echoed = served.call(request(4, "tools/call", {"name": "echo", "arguments": {"text": "é\n\u2028"}}))
    assert json.loads(echoed[0]["result"]["content"][0]["text"]) == {"text": "é\n\u2028"}


def test_serving_ends_when_stdin_closes_and_cancels_what_is_in_flight(served: Served) -> None:
    served.call(INIT)
    served.send(request(1, "tools/call", {"name": "slow"}))
    served.call(request(2, "ping"))  # the slow call is running by now
    served.close_stdin()
    assert served.ended(), "serving went on after stdin closed"
    assert served.catalog.cancelled.is_set()


def test_a_frame_over_the_bound_is_skipped_and_the_next_line_served(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stdioserve, "MAX_FRAME", 1000)
    served.call(INIT)
    padded = request(1, "tools/call", {"name": "echo", "arguments": {"pad": "x" * 5000}})
    served.send(padded)  # five pieces and more of the bound: dropped, answered with nothing
    just = request(2, "tools/call", {"name": "echo", "arguments": {"pad": ""}})
    just["params"]["arguments"]["pad"] = "x" * (999 - len(json.dumps(just)))
    served.send(just)  # 999 characters and its newline: within the bound
    assert [m.get("id") for m in served.answer(2)] == [2]
    assert served.call(request(3, "ping")) == [{"jsonrpc": "2.0", "id": 3, "result": {}}]


def test_stdin_is_not_read_while_max_in_flight_requests_are_unanswered(
    served: Served, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stdioserve, "MAX_IN_FLIGHT", 2)
    served.call(INIT)
    served.send(request(1, "tools/call", {"name": "slow"}))
    served.send(request(2, "tools/call", {"name": "slow"}))
    served.send(request(3, "ping"))
    with pytest.raises(queue.Empty):
        served.next(timeout=1.0)  # unbounded, the ping would be answered in milliseconds
    served.catalog.release()
    answered = [served.next()["id"] for _ in range(3)]
    assert answered[0] in (1, 2) and sorted(answered) == [1, 2, 3], "the ping was read before room was made"


def test_a_client_that_closed_stdout_ends_the_connection() -> None:
    catalog = Catalog()
    served = Served(catalog, reading=False)
    try:
        served.call(INIT)
        served._from_server.close()  # the client is gone: the next write breaks the pipe
        served.send(request(1, "ping"))
        assert served.ended(), "serving went on with nobody to write to"
        assert served.error is None
    finally:
        served.close()


# --- fd 0 and fd 1 of a process --------------------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import asyncio, json, os, sys
    from wpfprobe.mcp import stdioserve
    from wpfprobe.mcp.protocol import Kernel

    class Catalog:
        tier = "read"

        def list_tools(self):
            return [{"name": "look", "inputSchema": {"type": "object"}}]

        async def call_tool(self, name, arguments, *, progress):
            print("printed by a tool", flush=True)
            os.write(1, b"written to fd 1 by a tool\\n")
            try:
                stdioserve.claim_fd(1, sys.stdout, "wb", lambda: os.dup(2))
                second = "claimed twice"
            except RuntimeError:
                second = "refused"
            if arguments and arguments.get("stop"):
                SERVING.cancel()
            seen = {"stdin": os.read(0, 100).decode(), "second claim": second}
            return {"content": [{"type": "text", "text": json.dumps(seen)}]}

        def on_change(self, callback):
            return lambda: None

    def fds():
        return [(os.fstat(fd).st_dev, os.fstat(fd).st_ino) for fd in (0, 1)]

    async def main():
        global SERVING
        SERVING = asyncio.ensure_future(stdioserve.serve(Kernel(Catalog(), version="1", instructions=None)))
        try:
            await SERVING
        except asyncio.CancelledError:
            print("stopped", flush=True)

    print("before", flush=True)
    claimed = fds()
    asyncio.run(main())
    restored = fds() == claimed
    sdk = sorted(m for m in sys.modules if m.split(".")[0] in ("mcp", "mcp_types", "anyio"))
    print(json.dumps({"restored": restored, "sdk": sdk}), flush=True)
    """
)


def child() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def exchange(proc: subprocess.Popen[bytes], message: Message) -> Message:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    answer: Message = json.loads(proc.stdout.readline())
    return answer


@pytest.mark.parametrize("ending", ["stdin closes", "serving is cancelled"])
def test_serving_claims_fd_0_and_fd_1_and_gives_them_back(ending: str) -> None:
    """While serving, the app's prints (and writes to fd 1) go to stderr and fd 0 reads EOF; a
    second claim is refused; afterwards both are the wire again, and the process goes on."""
    proc = child()
    try:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline() == b"before\n"
        assert exchange(proc, INIT)["result"]["serverInfo"] == {"name": "wpfprobe", "version": "1"}
        called = exchange(proc, request(1, "tools/call", {"name": "look"}))
        assert json.loads(called["result"]["content"][0]["text"]) == {"stdin": "", "second claim": "refused"}
        if ending == "serving is cancelled":  # by a tool, as a stop() from the app's side would
            proc.stdin.write(
                json.dumps(request(2, "tools/call", {"name": "look", "arguments": {"stop": True}})).encode()
            )
            proc.stdin.write(b"\n")
            proc.stdin.flush()
            while (line := proc.stdout.readline()) != b"stopped\n":  # fd 1 is stdout again, stdin still open
                assert json.loads(line)["id"] == 2, line  # its answer or its cancellation, before
        proc.stdin.close()
        assert json.loads(proc.stdout.readline()) == {"restored": True, "sdk": []}
        assert proc.stdout.read() == b""
        assert proc.wait(DEADLINE) == 0
        stderr = proc.stderr.read().decode()
        assert "printed by a tool" in stderr and "written to fd 1 by a tool" in stderr, stderr
    finally:
        proc.kill()
        proc.wait(DEADLINE)
