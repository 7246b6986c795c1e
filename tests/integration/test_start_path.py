"""``wpfprobe.start()`` returns before the probe has attached to the app's UI (mcp/starting.py).

A client may call a tool at once: the call waits for the attach and answers as it would
have later. If the attach fails in the background, nothing hangs: the failure is logged,
``wait_ready()`` raises it, the manifest is written so clients find the probe, and every
tool call answers the error.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from wpfprobe.mcp import manifest as _manifest

APP = Path(__file__).parent / "scripts" / "early_start_app.py"
DEADLINE = 120.0

pytestmark = pytest.mark.toolkit("winforms")


class App:
    def __init__(self, tmp_path: Path, mode: str, display: str | None) -> None:
        self.home = tmp_path / "home"
        env = {
            **os.environ, "WPFPROBE_HOME": str(self.home), "MONO_THREADS_SUSPEND": "preemptive",
            "WPFPROBE_LOG_LEVEL": "INFO", "PYTHONWARNINGS": "ignore:Hosting Mono versions:UserWarning",
        }  # fmt: skip
        if display:
            env["DISPLAY"] = display
        self.proc = subprocess.Popen(
            [sys.executable, str(APP), "--mode", mode], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        self.log: list[dict[str, Any]] = []
        self.stderr: list[str] = []
        self._logged = threading.Condition()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._logged:
                self.stderr.append(line.rstrip("\n"))
                try:
                    record = json.loads(line)
                except ValueError:
                    record = None
                if isinstance(record, dict):
                    self.log.append(record)
                self._logged.notify_all()

    def wait_for_log(self, text: str) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            return next((r for r in self.log if text in str(r.get("message", r.get("msg", "")))), None)

        with self._logged:
            assert self._logged.wait_for(lambda: found() is not None or self.proc.poll() is not None, DEADLINE)
            record = found()
        assert record is not None, (text, self.stderr[-30:])
        return record

    def manifest(self) -> _manifest.Manifest:
        """The app's manifest, once the probe's start-up has written it."""
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            found = _manifest.read_all(self.home / "sessions", clean=False)
            if found:
                [manifest] = found
                return manifest
            assert self.proc.poll() is None, self.stderr[-30:]
            time.sleep(0.05)
        raise AssertionError(f"no manifest was written: {self.stderr[-30:]}")

    def line(self, prefix: str) -> str:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith(prefix):
                return line.rstrip("\n")
        raise AssertionError(f"the app ended (status {self.proc.wait(10)}) before {prefix!r}: {self.stderr[-30:]}")

    def tell(self, line: str = "go") -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def end(self) -> int:
        try:
            self.tell("close")
            self.line("ENDED")
            return self.proc.wait(60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)


async def _call(url: str, token: str, tool: str) -> Any:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=DEADLINE) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return await client.call_tool(tool, {})


def call_in_thread(url: str, token: str, tool: str) -> tuple[threading.Thread, dict[str, Any]]:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["answer"] = asyncio.run(_call(url, token, tool))
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


def assert_answered_with_the_window(thread: threading.Thread, box: dict[str, Any]) -> None:
    thread.join(DEADLINE)
    assert not thread.is_alive(), "the call never returned"
    assert "error" not in box, box
    answer = box["answer"]
    assert not answer.is_error, answer
    assert [w["title"] for w in answer.structured_content["windows"]] == ["early start"]


def test_a_tool_call_before_the_probe_attached_waits_and_answers(tmp_path: Path, display: str | None) -> None:
    """The app calls start() before its message loop runs: the probe can attach only once it
    does. A client's call made meanwhile is answered once it has, with the app's window."""
    app = App(tmp_path, "before-loop", display)
    try:
        _, url, token = app.line("STARTED ").split()
        thread, box = call_in_thread(url, token, "wpf_get_windows")
        # The call has reached the probe and waits for the attach (which waits for the loop).
        app.wait_for_log("a tool call waits for the probe to attach")
        assert thread.is_alive(), box
        app.tell()  # now the app runs its message loop
        assert_answered_with_the_window(thread, box)
        # Written once the start-up is over: a client that finds the app through it finds it all there.
        assert app.manifest().url == url
    finally:
        status = app.end()
    assert status == 0, app.stderr[-30:]


def test_a_ui_thread_busy_past_the_timeout_at_start_delays_the_attach_but_does_not_fail_it(
    tmp_path: Path, display: str | None
) -> None:
    """Regression: the attach's first call to the UI thread had the start's timeout (1 s here),
    so an app busy for longer when the probe started (loading its data, say) was left with a
    probe that had failed for good, every call answering so until it was started again. Now
    the attach waits for the UI thread, a call made meanwhile waits with it, and both go on
    once the UI thread is free."""
    app = App(tmp_path, "busy-ui", display)
    try:
        _, url, token = app.line("STARTED ").split()
        thread, box = call_in_thread(url, token, "wpf_get_windows")
        app.wait_for_log("a tool call waits for the probe to attach")
        # Twice the start's timeout has passed with the UI thread busy: the attach waits on.
        app.wait_for_log("has not answered the probe for 2 s")
        assert not any("could not attach" in str(r) for r in app.log), app.stderr[-30:]
        assert thread.is_alive(), box
        app.tell("release")
        assert app.line("READY ") == "READY ok"
        assert_answered_with_the_window(thread, box)
        assert app.manifest().url == url
    finally:
        status = app.end()
    assert status == 0, app.stderr[-30:]


def test_an_attach_that_fails_in_the_background_is_reported_and_answered(tmp_path: Path, display: str | None) -> None:
    """The UI thread is busy past the attach's own wait, so the attach fails after start() has
    returned: wait_ready raises it, the log says so, the manifest is there, and a tool call
    answers the error at once (no hang), saying the probe could not attach."""
    app = App(tmp_path, "stuck-ui", display)
    try:
        _, url, token = app.line("STARTED ").split()
        assert app.line("READY ") == "READY DISPATCHER_BUSY"
        record = app.wait_for_log("could not attach")
        assert record.get("outcome") == "DISPATCHER_BUSY", record
        assert app.manifest().url == url
        thread, box = call_in_thread(url, token, "wpf_get_windows")
        thread.join(DEADLINE)
        assert not thread.is_alive(), "the call never returned"
        assert "error" not in box, box
        answer = box["answer"]
        assert answer.is_error, answer
        text = json.dumps([getattr(c, "text", "") for c in answer.content])
        assert "DISPATCHER_BUSY" in text and "could not attach" in text, text
        app.tell("release")
    finally:
        status = app.end()
    assert status == 0, app.stderr[-30:]


ORDER_APP = """
import json, sys
sys.path.insert(0, sys.argv[1])
import winforms_app
app = winforms_app.start_in_background()
import wpfprobe
import wpfprobe_clr.toolkits as toolkits
from wpfprobe.mcp import server
from wpfprobe_clr import _compiling
seen = {}
real = toolkits.prepare_walk
def prepare(kind):
    handle = server.active_handle()
    seen["tools_made"] = handle is not None and handle._tools_made.is_set()
    real(kind)
toolkits.prepare_walk = prepare
handle = wpfprobe.start(app.app, name="compile-order")
handle.wait_ready(120)
_compiling.wait(120)
print("ORDER " + json.dumps(seen), flush=True)
handle.stop()
app.close()
"""


def test_the_walks_compile_waits_for_the_servers_tools(tmp_path: Path, display: str | None) -> None:
    """The walk's compile, the server's imports and the engine's are mostly Python: run at once
    on their three threads they competed for the GIL (the first answer came later, the app's
    Python handlers waited longer). The compile begins only once the server's tools are made."""
    assert run_example_script(ORDER_APP, "ORDER", tmp_path, display) == {"tools_made": True}


def run_example_script(code: str, label: str, tmp_path: Path, display: str | None) -> Any:
    """Run ``code`` (``run_example``); the JSON it printed on its one line ``<label> ...``."""
    done = run_example(code, tmp_path, display)
    found = [line for line in done.stdout.splitlines() if line.startswith(label + " ")]
    assert len(found) == 1, (done.stdout[-2000:], done.stderr[-3000:])
    return json.loads(found[0].removeprefix(label + " "))


def run_example(code: str, tmp_path: Path, display: str | None, **env_extra: str) -> subprocess.CompletedProcess[str]:
    """Run ``code``, given the examples folder as its argument, in a Python process of its own
    with the probe's test environment (plus ``env_extra``); it must end with status 0."""
    env = {
        **os.environ, "WPFPROBE_HOME": str(tmp_path / "home"), "MONO_THREADS_SUSPEND": "preemptive",
        "PYTHONWARNINGS": "ignore:Hosting Mono versions:UserWarning", **env_extra,
    }  # fmt: skip
    if display:
        env["DISPLAY"] = display
    examples = Path(__file__).resolve().parents[2] / "examples"
    done = subprocess.run(
        [sys.executable, "-c", code, str(examples)], env=env, capture_output=True, text=True, timeout=DEADLINE
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


DEFERRED_APP = """
import json, sys
sys.path.insert(0, sys.argv[1])
import winforms_app
app = winforms_app.start_in_background()
import wpfprobe
import wpfprobe_clr.toolkits as toolkits
from wpfprobe.mcp import server
from wpfprobe_clr import _compiling
seen = {}
def listed(catalog):
    # Made: the Tool object tools/list sends, per tool (``_Tool._listed``; the attribute every
    # tool had at once before the listing was deferred).
    return [vars(tool).get("_listed") is not None for tool in catalog._tools.values()]
real_make, real_prepare = server.ProbeHandle._make_catalog, toolkits.prepare_walk
def make_tools(self):
    tools = real_make(self)
    seen["listed_when_made"] = any(listed(tools))
    return tools
def prepare(kind):
    seen["listed_before_compile"] = all(listed(server.active_handle()._tools))
    real_prepare(kind)
server.ProbeHandle._make_catalog, toolkits.prepare_walk = make_tools, prepare
handle = wpfprobe.start(app.app, name="deferred")
handle.wait_ready(120)
_compiling.wait(120)
from wpfprobe.core import defer, models
from wpfprobe.mcp import tools
seen["deferring"] = defer.DEFER_BUILD
# Models no read-tier start-up uses (an input tool's result and arguments): not built yet.
seen["built"] = {m.__name__: m.__pydantic_complete__ for m in (models.ActionResult, models.WaitResult, tools.ClickArgs)}
print("DEFERRED " + json.dumps(seen), flush=True)
handle.stop()
app.close()
"""


def test_the_start_up_builds_no_model_it_does_not_use_and_lists_the_tools_after_it(
    tmp_path: Path, display: str | None
) -> None:
    """Building pydantic models and the tools' JSON schemas was a quarter of the start-up's
    Python on the way to the first answer (issue 22): the catalog is made without its listing,
    which is made once the start-up is over and before the walk's compile (it competes with
    neither), and the models an app's read-tier probe never uses are never built."""
    seen = run_example_script(DEFERRED_APP, "DEFERRED", tmp_path, display)
    if not seen["deferring"]:
        pytest.skip("this pydantic builds a model on first use only unsafely across threads (core/defer.py)")
    assert seen == {
        "listed_when_made": False,
        "listed_before_compile": True,
        "deferring": True,
        "built": {"ActionResult": False, "WaitResult": False, "ClickArgs": False},
    }


TURNS_APP = """
import json, sys, threading
sys.path.insert(0, sys.argv[1])
import winforms_app
app = winforms_app.start_in_background()
import wpfprobe, wpfprobe_clr
import wpfprobe_clr.toolkits as toolkits
from wpfprobe.mcp import server
from wpfprobe_clr import _compiling
steps = []
def mark(step):
    handle = server.active_handle()
    over = handle is not None and handle._startup.done
    steps.append([step, threading.current_thread().name, over])
real_connect, real_make, real_prepare = wpfprobe_clr.connect, server.ProbeHandle._make_catalog, toolkits.prepare_walk
def connect(*args, **kwargs):
    mark("attach")
    return real_connect(*args, **kwargs)
def make_tools(self):
    mark("tools")
    return real_make(self)
def prepare(kind):
    mark("compile")
    steps[-1].append(sys.getswitchinterval())
    real_prepare(kind)
wpfprobe_clr.connect, server.ProbeHandle._make_catalog, toolkits.prepare_walk = connect, make_tools, prepare
handle = wpfprobe.start(app.app, name="start-turns")
handle.wait_ready(120)
_compiling.wait(120)
print("STEPS " + json.dumps(steps), flush=True)
handle.stop()
app.close()
"""


def test_the_start_up_runs_its_python_in_turns_on_one_thread(tmp_path: Path, display: str | None) -> None:
    """Every Python thread of the probe busy at start made the app's Python handlers, on its UI
    thread, wait longer for the GIL (docs/benchmarks-mcp.md): the server's SDK and tools were
    made on the server's thread while the start-up's thread imported and attached. Now the
    start-up's thread makes the server before the attach, and the walk's compile begins only
    once the start-up is over, with the interpreter's switch interval still 1 ms."""
    steps = run_example_script(TURNS_APP, "STEPS", tmp_path, display)
    assert steps == [
        ["tools", "wpfprobe-start", False],
        ["attach", "wpfprobe-start", False],
        ["compile", "wpfprobe-compile", True, 0.001],
    ]


BROKEN_SERVER_APP = """
import sys
sys.path.insert(0, sys.argv[1])
import winforms_app
app = winforms_app.start_in_background()
import wpfprobe
from wpfprobe.mcp import server
def broken(self):
    raise ImportError("a broken install of the MCP SDK")
server.ProbeHandle._make_catalog = broken
handle = wpfprobe.start(app.app, name="broken-server")
print("STOPPED " + str(handle.wait(120)), flush=True)
handle._stopped.wait(120)  # the stop the failure began, on a thread of its own, finished
print("RUNNING " + str(handle.running), flush=True)
app.close()
"""


def test_a_server_that_cannot_be_made_stops_the_probe(tmp_path: Path, display: str | None) -> None:
    """The server is made on the start-up's thread and handed to the server's: when it cannot be
    made, the server's thread still reports it (logged) and the probe stops, socket and all,
    rather than leave clients queued on a socket nobody serves."""
    done = run_example(BROKEN_SERVER_APP, tmp_path, display, WPFPROBE_LOG_LEVEL="INFO")
    assert "STOPPED True" in done.stdout and "RUNNING False" in done.stdout, (done.stdout, done.stderr[-3000:])
    assert "the MCP server could not run" in done.stderr, done.stderr[-3000:]
