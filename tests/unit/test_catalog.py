"""The tool catalog (catalog.py): what tools/list sends and how tools/call runs, with no MCP SDK.

The catalog is driven directly, as a server drives it, on the fake toolkit's engine; the wire
shapes it must keep are pinned end to end by tests/integration/test_mcp_golden.py.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fake_toolkit import harness

from wpfprobe.core import calls
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.mcp import catalog as _catalog
from wpfprobe.mcp.catalog import CUSTOM_META_KEY, ToolCatalog
from wpfprobe.mcp.custom import define

UNIT = Path(__file__).parent
SDK_MODULES = ("mcp", "mcp_types", "starlette", "sse_starlette", "anyio")


def echo(value: str | None = None, items: list[int] | None = None) -> dict[str, object]:
    """What arrived."""
    return {"value": value, "type": type(value).__name__, "items": items}


def call(tools: ToolCatalog, name: str, arguments: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    return asyncio.run(asyncio.wait_for(tools.call_tool(name, arguments, **options), 30))


def test_listing_and_calling_a_tool_imports_no_sdk() -> None:
    """The point of the catalog: the app's endpoint can serve tools without the SDK's import cost."""
    code = f"""
import asyncio, json, sys
sys.path.insert(0, {str(UNIT)!r})
from fake_toolkit import harness
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.mcp.catalog import ToolCatalog
with harness(settings=ProbeSettings(audit=False)) as h:
    tools = ToolCatalog(h.engine, tier="mutate")
    listed = tools.list_tools()
    heard = []
    async def progress(value, total, message):
        heard.append(value)
    windows = asyncio.run(tools.call_tool("wpf_get_windows", {{}}, progress=progress))
    refused = asyncio.run(tools.call_tool("wpf_get_windowz", {{}}, progress=None))
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {SDK_MODULES!r})
print(json.dumps([len(listed), windows["isError"], refused["structuredContent"]["code"], loaded]))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    count, failed, refused, loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert count > 20 and failed is False and refused == "INVALID_ARGUMENT"
    assert loaded == []


def test_the_tools_listed_carry_annotations_and_the_custom_mark() -> None:
    tools = ToolCatalog(None, tier="mutate")
    tools.add(define(echo).spec(), custom=True)
    listed = {t["name"]: t for t in tools.list_tools()}
    assert listed["wpf_get_windows"]["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    assert listed["wpf_click"]["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": False,
        "openWorldHint": False,
    }
    assert listed["wpf_set_property"]["annotations"]["destructiveHint"] is True
    assert "_meta" not in listed["wpf_click"] and listed["echo"]["_meta"] == {CUSTOM_META_KEY: True}
    tree = listed["wpf_get_visual_tree"]["inputSchema"]
    assert tree["title"] == "wpf_get_visual_treeArguments" and tree["properties"]["maxDepth"]["title"] == "Maxdepth"
    # Made once: each listing is a new list of the same objects, as JSON as they are sent.
    again = tools.list_tools()
    assert again is not tools.list_tools() and [t["name"] for t in again] == list(listed)
    assert json.loads(json.dumps(again)) == again
    assert tools.input_schema("wpf_get_visual_tree") == tree and tools.input_schema("nope") is None


def test_the_gate_refuses_tools_above_the_tier_and_names_close_matches() -> None:
    with harness(settings=ProbeSettings(audit=False)) as h:
        tools = ToolCatalog(h.engine, tier="read")
        # An app's own tool above the tier is not listed, and refused by name like a built-in one.
        assert not tools.add(define(echo, tier="mutate").spec(), custom=True)
        assert "echo" not in {t["name"] for t in tools.list_tools()} and "echo" in tools.names
        codes = {
            name: call(tools, name, {})["structuredContent"]["code"]
            for name in ("wpf_click", "wpf_set_property", "echo", "wpf_get_windowz")
        }
        assert codes == {
            "wpf_click": "INPUT_DISABLED",
            "wpf_set_property": "MUTATION_DISABLED",
            "echo": "MUTATION_DISABLED",
            "wpf_get_windowz": "INVALID_ARGUMENT",
        }
        unknown = call(tools, "wpf_get_windowz", {})
        assert (
            unknown["isError"] is True
            and unknown["structuredContent"]["detail"]["closeMatches"][0] == "wpf_get_windows"
        )
        assert unknown["content"][0]["text"].startswith("INVALID_ARGUMENT: Unknown tool")


def test_close_matches() -> None:
    known = ["wpf_get_windows", "wpf_get_visual_tree", "wpf_click"]
    assert _catalog.close_matches("wpf_get_windows ", known) == ["wpf_get_windows"]
    assert _catalog.close_matches("wpf_get_windows\x00", known) == ["wpf_get_windows"]
    assert _catalog.close_matches("WPF_CLICK", known) == ["wpf_click"]
    assert _catalog.close_matches("wpf_get_windowz", known)[0] == "wpf_get_windows"
    assert _catalog.close_matches("zzz", known) == []
    assert _catalog.close_matches("w" * 1_000_000, known) == []
    err = _catalog.unknown_tool("q" * 1000, known)
    assert err.code == "INVALID_ARGUMENT" and len(err.message) < 200 and "tools/list" in err.suggestion


@pytest.mark.parametrize("value", ["[1]", "{}", "null", "true", "3", '"x"'])
def test_a_string_argument_arrives_as_the_string_sent(value: str) -> None:
    with harness(settings=ProbeSettings(audit=False)) as h:
        tools = ToolCatalog(h.engine, tier="read")
        tools.add(define(echo).spec(), custom=True)
        result = call(tools, "echo", {"value": value})
    assert result["isError"] is False, result
    assert result["structuredContent"] == {"result": {"value": value, "type": "str", "items": None}}


def test_bad_arguments_are_a_structured_error_and_snake_case_is_refused() -> None:
    with harness(settings=ProbeSettings(audit=False)) as h:
        tools = ToolCatalog(h.engine, tier="read")
        tools.add(define(echo).spec(), custom=True)
        as_text = call(tools, "echo", {"items": "[1, 2]"})
        snake = call(tools, "wpf_get_visual_tree", {"max_depth": 3})
    assert as_text["isError"] and as_text["structuredContent"]["code"] == "INVALID_ARGUMENT"
    assert snake["isError"] and snake["structuredContent"]["code"] == "INVALID_ARGUMENT"
    assert "max_depth" in snake["structuredContent"]["message"]


def slow(seconds: float) -> str:
    """Sleeps under the call's control, noting what it does."""
    control = calls.current()
    assert control is not None
    control.note("sleeping")
    control.sleep(seconds)
    return "slept"


def test_a_long_call_reports_progress_while_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_catalog, "PROGRESS_INTERVAL", 0.05)
    heard: list[tuple[float, float | None, str | None]] = []

    async def progress(value: float, total: float | None, message: str | None) -> None:
        heard.append((value, total, message))

    with harness(settings=ProbeSettings(audit=False)) as h:
        tools = ToolCatalog(h.engine, tier="read")
        tools.add(define(slow).spec(), custom=True)
        result = call(tools, "slow", {"seconds": 0.5}, progress=progress)
        quiet = call(tools, "slow", {"seconds": 0.2}, progress=None)
    assert result["structuredContent"] == {"result": "slept"} and quiet["isError"] is False
    assert len(heard) >= 2
    values = [v for v, _, _ in heard]
    assert values == sorted(values) and all(t is None and m == "sleeping" for _, t, m in heard)


def test_cancelling_the_call_s_task_cancels_its_control_and_waits_for_the_thread() -> None:
    running, stopped = threading.Event(), threading.Event()

    def hold() -> str:
        """Waits until cancelled."""
        control = calls.current()
        assert control is not None
        running.set()
        try:
            control.sleep(30)
        finally:
            stopped.set()
        return "never"

    async def run(tools: ToolCatalog) -> float:
        task = asyncio.ensure_future(tools.call_tool("hold", {}, progress=None))
        # Cancelled once the call runs on its worker thread, not before it got there.
        assert await asyncio.to_thread(running.wait, 30), "the call never reached its thread"
        began = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - began

    with harness(settings=ProbeSettings(audit=False)) as h:
        tools = ToolCatalog(h.engine, tier="read")
        tools.add(define(hold).spec(), custom=True)
        waited = asyncio.run(asyncio.wait_for(run(tools), 30))
    # The thread noticed before the cancellation went on (within the grace, not at its end).
    assert stopped.is_set() and waited < _catalog._CANCEL_GRACE


def test_change_listeners_hear_tools_changed_until_they_unsubscribe() -> None:
    tools = ToolCatalog(None, tier="read")
    heard: list[str] = []
    unsubscribe = tools.on_change(lambda: heard.append("changed"))
    assert tools.add(define(echo).spec(), custom=True)
    tools.tools_changed()
    unsubscribe()
    tools.tools_changed()
    assert heard == ["changed"] and "echo" in {t["name"] for t in tools.list_tools()}


def test_an_abandoned_call_s_thread_does_not_hold_the_app_s_exit() -> None:
    """A cancelled call's thread may be stuck (a hop to a UI thread that never answers): the
    app's exit must not wait for it, as Python waits for a ThreadPoolExecutor's threads."""
    code = f"""
import asyncio, sys, threading
sys.path.insert(0, {str(UNIT)!r})
from wpfprobe.mcp import catalog
from wpfprobe.mcp.catalog import ToolCatalog
from wpfprobe.mcp.custom import define
catalog._CANCEL_GRACE = 0.2
running = threading.Event()
def stuck() -> str:
    '''Never returns, and checks no control.'''
    running.set()
    threading.Event().wait()
    return "never"
tools = ToolCatalog(None, tier="read")
tools.add(define(stuck).spec(), custom=True)
async def run():
    task = asyncio.ensure_future(tools.call_tool("stuck", {{}}, progress=None))
    # Cancelled once the call is stuck on its worker thread: that thread is the one exit must not wait for.
    assert await asyncio.to_thread(running.wait, 30), "the call never reached its thread"
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        print("cancelled", flush=True)
asyncio.run(run())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "cancelled", out.stderr


def test_calls_beyond_the_worker_limit_wait_for_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_catalog, "MAX_WORKERS", 2)
    monkeypatch.setattr(_catalog, "_WORKERS", _catalog._Workers())
    lock = threading.Lock()
    running = {"now": 0, "most": 0}

    def busy() -> str:
        """Holds a worker a moment."""
        with lock:
            running["now"] += 1
            running["most"] = max(running["most"], running["now"])
        time.sleep(0.1)
        with lock:
            running["now"] -= 1
        return "done"

    async def run(tools: ToolCatalog) -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(tools.call_tool("busy", {}, progress=None) for _ in range(6))))

    tools = ToolCatalog(None, tier="read")
    tools.add(define(busy).spec(), custom=True)
    results = asyncio.run(asyncio.wait_for(run(tools), 30))
    assert [r["structuredContent"] for r in results] == [{"result": "done"}] * 6
    assert running["most"] == 2


def test_released_workers_leave_no_tool_thread_behind(monkeypatch: pytest.MonkeyPatch) -> None:
    """A stopped probe left its idle 'wpfprobe-tool' threads in the app for WORKER_IDLE (10 s):
    test_lifecycle's handler cycles found one after stop(). ``release_workers`` ends them now,
    and the pool makes new ones for the next start."""
    monkeypatch.setattr(_catalog, "_WORKERS", _catalog._Workers())
    earlier = set(threading.enumerate())  # other tests' pools: not this one's

    def answer() -> str:
        """Answers at once."""
        return "done"

    def tool_threads() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "wpfprobe-tool" and t not in earlier]

    tools = ToolCatalog(None, tier="read")
    tools.add(define(answer).spec(), custom=True)
    first = asyncio.run(asyncio.wait_for(tools.call_tool("answer", {}, progress=None), 30))
    assert first["structuredContent"] == {"result": "done"}
    assert tool_threads(), "the call's thread waits for the next call"
    _catalog.release_workers()
    # A thread that answered just before the release ends as it finishes, not WORKER_IDLE later.
    end = time.monotonic() + 5.0
    while tool_threads() and time.monotonic() < end:
        time.sleep(0.01)
    assert tool_threads() == []
    again = asyncio.run(asyncio.wait_for(tools.call_tool("answer", {}, progress=None), 30))
    assert again["structuredContent"] == {"result": "done"}
    _catalog.release_workers()
