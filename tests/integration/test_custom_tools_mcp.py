"""Custom tools over MCP: an app's own functions beside the built-in tools.

The app runs in a process of its own (scripts/custom_tools_app.py: one start
per process) at the read tier; the official SDK client over streamable HTTP
is all the tests see, plus the probe's JSON-lines log file.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "custom_tools_app.py"
DISTINCT = "Zq9-distinct-value-7731"


class CustomApp:
    def __init__(self, home: Path) -> None:
        self.log = home / "probe.log"
        env = {**os.environ, "WPFPROBE_HOME": str(home)}
        env.pop("DISPLAY", None)
        self.stderr = home / "stderr.txt"
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), str(self.log)], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr.open("w"),
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(10)
            raise AssertionError(f"the app did not start:\n{self.stderr.read_text()[-3000:]}")
        started = json.loads(line)
        self.url, self.token = started["url"], started["token"]

    def session(self, body: Callable[[Any], Awaitable[Any]], deadline: float = 60.0) -> Any:
        async def converse() -> Any:
            import httpx2
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": f"Bearer {self.token}"}
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
                async with Client(streamable_http_client(self.url, http_client=http)) as client:
                    return await body(client)

        return asyncio.run(asyncio.wait_for(converse(), deadline))

    def call(self, tool: str, **arguments: Any) -> Any:
        return self.session(lambda c: c.call_tool(tool, arguments))

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        try:
            self.send("close")
            self.proc.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)


@pytest.fixture(scope="module")
def custom(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CustomApp]:
    app = CustomApp(tmp_path_factory.mktemp("custom"))
    try:
        yield app
    finally:
        app.close()


def test_custom_tools_are_listed_with_schemas_by_tier(custom: CustomApp) -> None:
    tools = {t.name: t for t in custom.session(lambda c: c.list_tools()).tools}
    assert {"echo_upper", "window_title", "off_ui_thread", "explode", "refuse", "summary-model"} <= set(tools)
    assert "wpf_get_windows" in tools
    assert "press_save" not in tools, "an interact tool must not be listed at the read tier"
    echo = tools["echo_upper"]
    assert echo.title == "Upper-case a text"
    assert "Repeats it" in (echo.description or "")
    assert echo.input_schema["required"] == ["text"]
    assert echo.input_schema["properties"]["times"]["default"] == 1
    assert set(tools["summary-model"].input_schema["properties"]) == {"count", "prefix"}
    assert tools["summary-model"].output_schema is not None
    assert set(tools["summary-model"].output_schema["properties"]) == {"count", "names"}
    assert (echo.meta or {}).get("dev.wpfprobe/custom") is True
    assert not (tools["wpf_get_windows"].meta or {}).get("dev.wpfprobe/custom")


def test_a_custom_tool_runs_with_its_arguments_and_answers_structured_and_text(custom: CustomApp) -> None:
    result = custom.call("echo_upper", text="ab", times=2)
    assert not result.is_error, result.content
    assert result.structured_content == {"result": "ABAB"}
    assert [b.text for b in result.content if b.type == "text"] == ["ABAB"]
    model = custom.call("summary-model", count=2, prefix="n")
    assert model.structured_content == {"count": 2, "names": ["n0", "n1"]}


def test_ui_thread_tools_run_on_the_ui_thread_and_others_off_it(custom: CustomApp) -> None:
    on_ui = custom.call("window_title")
    assert on_ui.structured_content == {"result": {"title": "wpfprobe demo", "onUiThread": True}}
    off_ui = custom.call("off_ui_thread")
    assert off_ui.structured_content == {"result": True}


def test_a_raising_tool_is_an_internal_error_without_its_values(custom: CustomApp) -> None:
    result = custom.call("explode", secretValue=DISTINCT)
    assert result.is_error
    err = result.structured_content
    assert err["code"] == "INTERNAL"
    assert "ValueError" in err["message"]
    assert DISTINCT not in json.dumps(err) and DISTINCT not in str(result.content)
    own = custom.call("refuse").structured_content
    assert own["code"] == "OPERATION_TIMED_OUT" and own["suggestion"] == "Wait and retry."
    # The server is still fine.
    assert custom.call("echo_upper", text="x").structured_content == {"result": "X"}


def test_bad_arguments_and_tools_above_the_tier_are_refused(custom: CustomApp) -> None:
    bad = custom.call("echo_upper", text="x", times="many")
    assert bad.is_error and bad.structured_content["code"] == "INVALID_ARGUMENT"
    snake = custom.call("summary-model", count=1, not_a_param=1)
    assert snake.is_error and snake.structured_content["code"] == "INVALID_ARGUMENT"
    above = custom.call("press_save")
    assert above.is_error and above.structured_content["code"] == "INPUT_DISABLED"


def test_the_log_has_one_record_per_call_and_never_an_argument_value(custom: CustomApp) -> None:
    custom.call("explode", secretValue=DISTINCT)
    custom.call("echo_upper", text=DISTINCT)
    records = [json.loads(line) for line in custom.log.read_text(encoding="utf-8").splitlines() if line.strip()]
    calls = [r for r in records if r.get("tool") in ("explode", "echo_upper")]
    assert {r["outcome"] for r in calls if r["tool"] == "explode"} == {"INTERNAL"}
    assert {r["outcome"] for r in calls if r["tool"] == "echo_upper"} >= {"ok"}
    for r in calls:
        assert r["app"].startswith("custom") and isinstance(r["durationMs"], float) and r["pid"] == custom.proc.pid
        assert r["level"] == "INFO" and r["logger"] == "wpfprobe.server" and r["time"].endswith("Z")
    text = custom.log.read_text(encoding="utf-8")
    assert DISTINCT not in text and custom.token not in text


def test_a_tool_added_while_running_is_announced_and_listed(custom: CustomApp) -> None:
    async def body(client: Any) -> tuple[set[str], set[str], Any]:
        from mcp.client.subscriptions import ToolsListChanged

        before = {t.name for t in (await client.list_tools()).tools}
        async with client.listen(tools_list_changed=True) as subscription:
            custom.send("add late_tool")
            event = await asyncio.wait_for(anext(aiter(subscription)), 20)
            assert isinstance(event, ToolsListChanged), event
        after = {t.name for t in (await client.list_tools()).tools}
        return before, after, await client.call_tool("late_tool", {"n": 41})

    before, after, result = custom.session(body)
    assert "late_tool" not in before and "late_tool" in after
    assert result.structured_content == {"result": 42}


def test_a_handshake_era_client_gets_the_list_changed_notification(custom: CustomApp) -> None:
    import mcp_types

    async def body() -> set[str]:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        changed = asyncio.Event()

        async def on_message(message: Any) -> None:
            if isinstance(message, mcp_types.ToolListChangedNotification):
                changed.set()

        headers = {"Authorization": f"Bearer {custom.token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            transport = streamable_http_client(custom.url, http_client=http)
            async with Client(transport, mode="legacy", message_handler=on_message) as client:
                await client.list_tools()
                custom.send("add legacy_tool")
                await asyncio.wait_for(changed.wait(), 20)
                return {t.name for t in (await client.list_tools()).tools}

    assert "legacy_tool" in asyncio.run(asyncio.wait_for(body(), 60))


def test_a_custom_tool_that_stops_the_probe_is_answered_and_the_probe_stops(tmp_path: Path) -> None:
    """stop() from a tool's own call: the server waits for that call before it stops, and the call
    waited for stop(), so the call was cut off unanswered after the server's 2 s grace. Now
    stop() there returns at once, the caller gets the tool's answer, and the probe stops after it."""
    app = CustomApp(tmp_path)
    try:
        answer = app.call("stop_probe")
        assert not answer.is_error, answer
        assert answer.structured_content["result"]["returnedAfter"] < 1.0, answer.structured_content
        assert app.proc.stdout is not None
        port = int(app.url.split(":")[2].split("/")[0])
        deadline = time.monotonic() + 30
        while _listening(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _listening(port), "the probe's server still listens after its stop"
    finally:
        app.close()
    assert app.proc.returncode == 0, app.stderr.read_text()[-3000:]


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            return True
    except OSError:
        return False
