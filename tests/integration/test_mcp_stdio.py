"""``wpfprobe.start(app, transport="stdio")``: a client launches the app and talks over its stdin/stdout.

The app (scripts/stdio_app.py) prints to stdout on purpose before and after
``start``. What it printed before is already on the pipe when the probe starts;
from ``start`` on, stdout carries MCP frames only, so the second print must land
on stderr. The app must exit by itself once the client closes stdin.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest
from PIL import Image

SCRIPT = Path(__file__).parent / "scripts" / "stdio_app.py"
sys.path.insert(0, str(SCRIPT.parent))
from stdio_app import AFTER, BEFORE  # noqa: E402

sys.path.remove(str(SCRIPT.parent))

READ_TOOLS = {
    "wpf_get_session_info",
    "wpf_get_windows",
    "wpf_get_visual_tree",
    "wpf_get_children",
    "wpf_get_ancestors",
    "wpf_find_elements",
    "wpf_inspect_element",
    "wpf_get_properties",
    "wpf_capture_screenshot",
    "wpf_get_binding_info",
    "wpf_run_diagnostics",
    "wpf_get_resources",
    "wpf_get_triggers",
    "wpf_get_behaviors",
    "wpf_get_app_events",
    "wpf_generate_locator",
}


def child_env(display: str | None) -> dict[str, str]:
    """What the app needs: the test's display (else it starts its own Xvfb) and the paths."""
    env = {
        k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "SYSTEMROOT", "TEMP", "TMP", "LANG", "XAUTHORITY")
    }
    if display:
        env["DISPLAY"] = display
    return env


def test_sdk_stdio_client_calls_tools_although_the_app_prints(display: str | None) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=[str(SCRIPT)], env=child_env(display))
    transport_faults: list[Exception] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            transport_faults.append(message)

    async def main(errlog: Any) -> dict[str, Any]:
        answers: dict[str, Any] = {}
        async with Client(stdio_client(params, errlog=errlog), message_handler=on_message) as client:
            answers["tools"] = {t.name for t in (await client.list_tools()).tools}
            for name, args in [
                ("wpf_get_session_info", {}),
                ("wpf_get_windows", {}),
                ("wpf_get_visual_tree", {"maxDepth": 10}),
                ("wpf_inspect_element", {"locator": "Button#saveButton"}),
                ("wpf_get_properties", {"locator": "#greetingLabel", "filter": "Text"}),
                ("wpf_capture_screenshot", {}),
                ("wpf_inspect_element", {"nodeId": "zz404"}),
            ]:
                answers[f"{name} {json.dumps(args)}"] = await client.call_tool(name, args)
        return answers

    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        started = time.monotonic()
        answers = asyncio.run(asyncio.wait_for(main(errlog), 60))
        elapsed = time.monotonic() - started
        errlog.seek(0)
        stderr = errlog.read()

    assert answers.pop("tools") == READ_TOOLS
    results = list(answers.values())
    for result in results[:-1]:
        assert not result.is_error, [b.text for b in result.content if b.type == "text"]
        assert isinstance(result.structured_content, dict)
    info, windows, tree, save, props, shot, missing = (r.structured_content for r in results)
    assert info["tier"] == "read" and info["appName"] == "stdio-tests" and info["toolkit"] == "winforms"
    assert info["pid"] != os.getpid(), "the tools ran in the app's process"
    assert windows["windows"][0]["name"] == "mainWindow"
    assert tree["returnedNodeCount"] > 10
    assert save["node"]["name"] == "saveButton"
    assert [p["value"] for p in props["items"] if p["name"] == "Text"] == ["Hello, Ada"]
    png = next(b for b in results[5].content if b.type == "image")
    assert Image.open(io.BytesIO(base64.b64decode(png.data))).size == (shot["width"], shot["height"])
    assert results[-1].is_error and missing["code"] == "NODE_NOT_FOUND"

    # The line printed before start is on the pipe ahead of every frame: the client may report
    # it once as a non-frame. Nothing else the client read may be anything but a valid frame.
    assert len(transport_faults) <= 1, transport_faults
    for fault in transport_faults:
        inputs = [e.get("input") for e in fault.errors()] if hasattr(fault, "errors") else []
        assert inputs == [BEFORE], f"the client read something that is not a frame: {fault!r}"
    assert AFTER in stderr, "the app's print after start went to stderr"
    assert elapsed < 60


class Pipe:
    """Lines from a subprocess stream, read on a thread, taken with a deadline."""

    def __init__(self, stream: Any) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        #: Cleared: the stream is left unread (after the line being read), as a stuck client leaves it.
        self.reading = threading.Event()
        self.reading.set()
        self._thread = threading.Thread(target=self._pump, args=(stream,), daemon=True)
        self._thread.start()

    def _pump(self, stream: Any) -> None:
        while self.reading.wait():
            line = stream.readline()
            if not line:
                break
            self.lines.put(line)
        self.lines.put(None)

    def next(self, timeout: float) -> str | None:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no line from the app within {timeout} s; so far: {self.seen[-5:]}")
        if line is not None:
            self.seen.append(line)
        return line

    def rest(self, timeout: float) -> list[str]:
        self._thread.join(timeout)
        out = []
        while not self.lines.empty():
            line = self.lines.get_nowait()
            if line is not None:
                out.append(line)
                self.seen.append(line)
        return out


class RawClient:
    """The app launched over pipes, spoken to in raw JSON-RPC lines, as a client would."""

    def __init__(self, display: str | None, *, allow: str = "read", late: bool = False) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), allow, *(["late"] if late else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            env=child_env(display),
        )
        self.out, self.err = Pipe(self.proc.stdout), Pipe(self.proc.stderr)

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(json.dumps(message))

    def send_line(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def response(self, request_id: int) -> dict[str, Any]:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.out.next(timeout=max(0.1, deadline - time.monotonic()))
            assert line is not None, f"stdout closed early; stderr: {''.join(self.err.seen)[-2000:]}"
            if line.rstrip("\n") == BEFORE and len(self.out.seen) == 1:
                continue  # printed before start: ahead of every frame
            frame = json.loads(line)  # anything else on stdout must be a frame
            assert frame.get("jsonrpc") == "2.0", frame
            if frame.get("id") == request_id:
                return frame
        pytest.fail(f"no response to request {request_id}")

    def initialize(self) -> dict[str, Any]:
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "1"},
                },
            }
        )
        init = self.response(1)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return init

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def _rss_mib(pid: int) -> float:
    return float(psutil.Process(pid).memory_info().rss) / (1 << 20)


def test_a_200_mib_frame_is_dropped_without_the_app_holding_it(display: str | None) -> None:
    """The SDK read a stdio frame whole, however long: a 400 MiB line with no newline took the app
    from 177 to 848 MiB, and a few GiB would have ended it. A frame over 4 MiB (HTTP's body limit)
    is now skipped in pieces and dropped as a line that is no message is; the next is answered."""
    client = RawClient(display)
    try:
        client.initialize()
        client.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
        assert client.response(2)["result"] == {}
        before = _rss_mib(client.proc.pid)
        frame = '{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"pad": "' + "a" * (200 << 20) + '"}}'
        client.send_line(frame)
        del frame
        client.send({"jsonrpc": "2.0", "id": 4, "method": "ping"})
        assert client.response(4)["result"] == {}, "the frame after the oversized one is answered"
        grew = _rss_mib(client.proc.pid) - before
        assert client.proc.stdin is not None
        client.proc.stdin.close()
        assert client.proc.wait(timeout=30) == 0
    finally:
        client.kill()
    assert grew < 40, f"the app grew by {grew:.0f} MiB reading a 200 MiB frame"
    assert not any('"id":3' in line for line in client.out.seen), "the oversized frame was answered"


def test_a_client_that_does_not_read_its_answers_does_not_grow_the_app(display: str | None) -> None:
    """The server started a task for every request it read, at once, and read on: a client that
    sent requests and did not read the answers grew the app without end (300,000 pings took it past
    1.2 GiB in a minute). Now stdin is not read while 64 requests are unanswered, and every request
    is still answered once the client reads."""
    client = RawClient(display)
    pings = 30_000
    try:
        client.initialize()
        before = _rss_mib(client.proc.pid)
        client.out.reading.clear()  # the client stops reading its answers
        sent = [0]

        def write() -> None:
            assert client.proc.stdin is not None
            for first in range(0, pings, 100):
                client.proc.stdin.write(
                    "".join(
                        json.dumps({"jsonrpc": "2.0", "id": 10 + i, "method": "ping"}) + "\n"
                        for i in range(first, first + 100)
                    )
                )
                client.proc.stdin.flush()
                sent[0] = first + 100

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        writer.join(5.0)  # the app reads 64 at most and waits; an unbounded one reads on
        taken = sent[0]  # what the app took in, give or take the pipe's buffer, while nothing was read
        peak = _rss_mib(client.proc.pid) - before
        client.out.reading.set()
        answered: set[int] = set()
        deadline = time.monotonic() + 90
        while len(answered) < pings and time.monotonic() < deadline:
            line = client.out.next(timeout=max(0.1, deadline - time.monotonic()))
            assert line is not None, "stdout closed early"
            answered.add(json.loads(line)["id"])  # answers may come in any order
        writer.join(30)
        assert not writer.is_alive(), "the app stopped reading for good"
        assert client.proc.stdin is not None
        client.proc.stdin.close()
        assert client.proc.wait(timeout=30) == 0
    finally:
        client.kill()
    assert len(answered) == pings, "every request was answered once the client read"
    assert taken <= 5_000, f"the app read {taken} requests while none of its answers was read"
    assert peak < 40, f"the app grew by {peak:.0f} MiB holding {pings} unread answers"


def test_stdout_carries_only_frames_after_start_and_the_app_exits_when_stdin_closes(display: str | None) -> None:
    client = RawClient(display)
    proc, out, err, send, response = client.proc, client.out, client.err, client.send, client.response
    try:
        assert proc.stdin is not None
        init = client.initialize()
        assert init["result"]["serverInfo"]["name"] == "wpfprobe"
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        assert {t["name"] for t in response(2)["result"]["tools"]} == READ_TOOLS
        send(
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "wpf_get_windows", "arguments": {}}}
        )
        windows = response(3)["result"]
        assert windows["isError"] is False and windows["structuredContent"]["windows"][0]["name"] == "mainWindow"
        send(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "wpf_capture_screenshot", "arguments": {}},
            }
        )
        shot = response(4)["result"]
        assert any(b["type"] == "image" for b in shot["content"]), "a large frame arrives whole, on one line"
        send(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "wpf_get_visual_tree", "arguments": {"maxDepth": "x"}},
            }
        )
        bad = response(5)["result"]
        assert bad["isError"] is True and bad["structuredContent"]["code"] == "INVALID_ARGUMENT"

        proc.stdin.close()  # the client goes away
        try:
            code = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail("the app did not exit within 30 s of its stdin closing")
        leftovers = out.rest(5)
        stderr = "".join(err.seen + err.rest(5))
    finally:
        client.kill()

    assert code == 0, stderr[-3000:]
    for line in leftovers:
        assert json.loads(line).get("jsonrpc") == "2.0", f"not a frame on stdout: {line!r}"
    assert out.seen[0].rstrip("\n") == BEFORE, out.seen[:1]
    assert not any(AFTER in line for line in out.seen), "the print after start reached the wire"
    assert AFTER in stderr
    assert "server ended=True" in stderr


def frames_until(client: RawClient, done: Callable[[list[dict[str, Any]]], bool]) -> list[dict[str, Any]]:
    """The frames the app writes, until ``done`` says they are enough."""
    frames: list[dict[str, Any]] = []
    deadline = time.monotonic() + 60
    while not done(frames):
        line = client.out.next(timeout=max(0.1, deadline - time.monotonic()))
        assert line is not None, f"stdout closed early; stderr: {''.join(client.err.seen)[-2000:]}"
        if line.rstrip("\n") == BEFORE and len(client.out.seen) == 1:
            continue
        frames.append(json.loads(line))
    return frames


def test_a_long_call_reports_progress_and_a_cancelled_one_is_never_answered(display: str | None) -> None:
    """Over stdio as over HTTP: a call with a progress token hears of its progress about every
    second; once the client cancels it, it is never answered, and the app answers the next call."""
    client = RawClient(display, allow="interact")
    try:
        client.initialize()
        wait = {"name": "wpf_wait_for", "arguments": {"locator": "#neverThere", "timeoutMs": 60000}}
        client.send(
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {**wait, "_meta": {"progressToken": "w"}}}
        )
        frames = frames_until(client, lambda seen: len(seen) >= 2)
        assert [f["method"] for f in frames] == ["notifications/progress"] * 2, frames
        assert [f["params"]["progressToken"] for f in frames] == ["w", "w"]
        assert frames[0]["params"]["progress"] < frames[1]["params"]["progress"]
        assert "#neverThere" in frames[0]["params"]["message"]
        client.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}})
        client.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "wpf_get_windows"}})
        later = frames_until(client, lambda seen: bool(seen) and seen[-1].get("id") == 3)
        assert [f for f in later if f.get("id") == 2] == [], "the cancelled call was answered"
        assert later[-1]["result"]["structuredContent"]["windows"][0]["name"] == "mainWindow"
    finally:
        client.kill()


def test_serving_over_stdio_imports_no_mcp_sdk(display: str | None) -> None:
    """The in-app stdio endpoint serves on wpfprobe's own MCP kernel: after a tool call and the end,
    neither ``mcp`` nor ``mcp_types`` was ever imported in the app (+33 MiB and ~0.5 s a start)."""
    client = RawClient(display)
    try:
        assert client.proc.stdin is not None
        client.initialize()
        client.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "wpf_get_windows"}})
        assert client.response(2)["result"]["isError"] is False
        client.proc.stdin.close()
        assert client.proc.wait(timeout=30) == 0
        stderr = "".join(client.err.seen + client.err.rest(5))
    finally:
        client.kill()
    assert "stdio_app: sdk modules=[]" in stderr, stderr[-3000:]


def test_a_tool_the_app_adds_while_serving_is_announced_listed_and_called(display: str | None) -> None:
    """A tool added to the running probe (``handle.tool``) reaches a stdio client: the
    list_changed notification, then tools/list has it, then it answers."""
    client = RawClient(display, late=True)
    try:
        client.initialize()
        client.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "stdio_add_tool"}})
        frames = frames_until(
            client,
            lambda seen: {"notifications/tools/list_changed", 2} <= {f.get("method", f.get("id")) for f in seen},
        )
        added = next(f for f in frames if f.get("id") == 2)
        assert added["result"]["isError"] is False, added
        client.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
        assert "stdio_late_echo" in {t["name"] for t in client.response(3)["result"]["tools"]}
        call = {"name": "stdio_late_echo", "arguments": {"text": "from the client"}}
        client.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": call})
        echoed = client.response(4)["result"]
        assert echoed["isError"] is False and echoed["structuredContent"] == {"result": "from the client"}, echoed
    finally:
        client.kill()
