"""Long calls tell the client they are alive, and stop when the client cancels them.

A client that sends a progressToken gets ``notifications/progress`` about every second
while a call runs, so its idle timeout does not cut a long ``wpf_wait_for``, a scenario
or a launch; ``notifications/cancelled`` (or, on the 2026 HTTP wire, closing the call's
stream) ends the work itself: a cancelled wait stops polling the UI thread, a cancelled
broker call cancels the app's call, a cancelled launch leaves no app running. The
app's side is seen through its own JSON-lines log (one record per tool call, with its
outcome and duration), the client's through the SDK's ``progress_callback`` and task
cancellation, over a real socket to the app and real stdio to ``wpfprobe mcp``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import psutil
import pytest
from test_broker import PLAIN_APP, App, Session, run

WAIT = {"locator": "#neverThere", "timeoutMs": 60000}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("long-calls-home")


@pytest.fixture(scope="module")
def solo(home: Path, display: str | None) -> Iterator[App]:
    app = App("solo", home, display, custom=True, extra=("--log-file", str(home / "solo.log")))
    try:
        yield app
    finally:
        app.close()


class Heard:
    """The progress notifications of one call, as the SDK's progress_callback hears them."""

    def __init__(self) -> None:
        self.notes: list[tuple[float, float, str | None]] = []
        self.began = time.monotonic()

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        self.notes.append((time.monotonic(), progress, message))

    async def first(self, count: int = 1, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while len(self.notes) < count:
            assert time.monotonic() < deadline, f"{len(self.notes)} progress notifications in {timeout} s"
            await asyncio.sleep(0.05)

    def check(self, ended: float, *, at_least: int) -> None:
        """At least ``at_least`` notifications, increasing, none of the call's stretches silent
        for long (1 s is promised; 3 s allowed for a loaded machine)."""
        values = [p for _, p, _ in self.notes]
        assert len(values) >= at_least, self.notes
        assert all(b > a for a, b in pairwise(values)), values
        times = [self.began, *(t for t, _, _ in self.notes), ended]
        gaps = [round(b - a, 2) for a, b in pairwise(times)]
        assert max(gaps) < 3.0, gaps


def app_log(home: Path) -> list[dict[str, Any]]:
    path = home / "solo.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def logged(home: Path, seen: int, tool: str, outcome: str, timeout: float = 20.0) -> dict[str, Any]:
    """The first record after the ``seen`` first ones of a ``tool`` call that ended with ``outcome``."""
    deadline = time.monotonic() + timeout
    while True:
        for record in app_log(home)[seen:]:
            if record.get("tool") == tool and record.get("outcome") == outcome:
                return record
        assert time.monotonic() < deadline, f"no {tool} call ended {outcome} in the app within {timeout} s"
        await asyncio.sleep(0.1)


@asynccontextmanager
async def direct(home: Path, app: App, mode: str) -> AsyncIterator[Any]:
    """An SDK client session to the app's own server (streamable HTTP, the manifest's token)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    manifest = json.loads((home / "sessions" / f"{app.app_id}.json").read_text())
    headers = {"Authorization": f"Bearer {manifest['token']}"}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
        async with Client(streamable_http_client(manifest["url"], http_client=http), mode=mode) as client:
            yield client


@asynccontextmanager
async def broker(home: Path, *extra: str) -> AsyncIterator[Session]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "wpfprobe", "mcp", "--log-level", "INFO", *extra],
        env={**os.environ, "WPFPROBE_HOME": str(home)},
    )
    with (home / "broker.log").open("a") as log:
        async with Client(stdio_client(params, errlog=log), mode="legacy") as client:
            yield Session(client, [])


async def cancel(task: asyncio.Future[Any]) -> None:
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


# -- the app's own server --------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_wpf_wait_for_reports_progress_about_every_second_while_it_waits(solo: App, home: Path, mode: str) -> None:
    async def body() -> None:
        async with direct(home, solo, mode) as client:
            heard = Heard()
            result = await client.call_tool(
                "wpf_wait_for", {"locator": "#neverThere", "timeoutMs": 4000}, progress_callback=heard
            )
            heard.check(time.monotonic(), at_least=2)
            assert result.is_error and result.structured_content["code"] == "OPERATION_TIMED_OUT"
            # The wait says what it waits for and what it saw last.
            assert all("#neverThere" in (message or "") and "polls" in (message or "") for *_, message in heard.notes)

    run(body, deadline=60)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_cancelled_wpf_wait_for_stops_in_the_app_and_leaves_the_ui_answering(
    solo: App, home: Path, mode: str
) -> None:
    async def body() -> None:
        async with direct(home, solo, mode) as client:
            seen = len(app_log(home))
            heard = Heard()
            waiting = asyncio.ensure_future(client.call_tool("wpf_wait_for", WAIT, progress_callback=heard))
            await heard.first()  # the wait is running in the app
            await cancel(waiting)
            record = await logged(home, seen, "wpf_wait_for", "cancelled")
            assert record["durationMs"] < 30000, record
            # Nothing was left behind: the UI thread answers, and no other wait ended later.
            windows = await client.call_tool("wpf_get_windows", {})
            assert not windows.is_error and windows.structured_content["windows"][0]["title"] == "wpfprobe demo"
            later = [r for r in app_log(home)[seen:] if r.get("tool") == "wpf_wait_for"]
            assert [r["outcome"] for r in later] == ["cancelled"], later

    run(body, deadline=90)


# -- through the broker ----------------------------------------------------------------------------


def test_the_broker_relays_an_apps_progress_and_a_cancelled_call_cancels_the_apps_call(solo: App, home: Path) -> None:
    async def body() -> None:
        async with broker(home) as s:
            heard = Heard()
            result = await s.client.call_tool(
                "wpf_wait_for", {"app": "solo", "locator": "#neverThere", "timeoutMs": 4000}, progress_callback=heard
            )
            heard.check(time.monotonic(), at_least=2)
            assert result.structured_content["code"] == "OPERATION_TIMED_OUT"
            # The app's own words come through, not only the broker's heartbeat.
            assert any("#neverThere" in (message or "") for *_, message in heard.notes), heard.notes

            # An app's own tool that says nothing still keeps the client's idle timer alive.
            heard = Heard()
            slow = await s.client.call_tool("solo__slow", {"seconds": 3}, progress_callback=heard)
            heard.check(time.monotonic(), at_least=1)
            assert slow.structured_content == {"result": "done"}

            seen = len(app_log(home))
            heard = Heard()
            waiting = asyncio.ensure_future(
                s.client.call_tool("wpf_wait_for", {"app": "solo", **WAIT}, progress_callback=heard)
            )
            await heard.first()
            await cancel(waiting)
            await logged(home, seen, "wpf_wait_for", "cancelled")
            # The broker and the app go on as before.
            assert (await s.ok("wpf_get_windows", app="solo"))["windows"][0]["title"] == "wpfprobe demo"

    run(body, deadline=120)


def test_wpf_run_scenario_reports_progress_and_a_cancelled_run_stops_and_files_nothing(
    solo: App, home: Path, tmp_path: Path
) -> None:
    scenario = tmp_path / "long.yaml"
    scenario.write_text(
        "id: long-wait\nsteps:\n  - action: wait_for\n    locator: '#neverThere'\n    timeoutMs: 60000\n",
        encoding="utf-8",
    )
    artifacts = tmp_path / "artifacts"

    async def body() -> None:
        async with broker(home, "--artifacts", str(artifacts)) as s:
            seen = len(app_log(home))
            heard = Heard()
            running = asyncio.ensure_future(
                s.client.call_tool("wpf_run_scenario", {"path": str(scenario), "app": "solo"}, progress_callback=heard)
            )
            await heard.first(2)
            assert all(b > a for (_, a, _), (_, b, _) in pairwise(heard.notes))
            await cancel(running)
            # The step in flight is cancelled in the app, and the run ends without a ticket.
            await logged(home, seen, "wpf_wait_for", "cancelled")
            assert (await s.ok("wpf_get_windows", app="solo"))["windows"][0]["title"] == "wpfprobe demo"
        # The broker has exited: whatever the run was going to write, it has written.
        assert not list(artifacts.rglob("ticket.json")), list(artifacts.rglob("*"))

    run(body, deadline=120)


def test_wpf_launch_app_reports_progress_and_a_cancelled_launch_leaves_no_app_running(
    home: Path, tmp_path: Path
) -> None:
    # An app that takes a few seconds before its UI comes up, like a real one loading its data.
    slow_start = tmp_path / "slow_start.py"
    slow_start.write_text(
        "import runpy, sys, time\n"
        "time.sleep(3)\n"
        f"sys.argv = [{str(PLAIN_APP)!r}, *sys.argv[1:]]\n"
        f"runpy.run_path({str(PLAIN_APP)!r}, run_name='__main__')\n",
        encoding="utf-8",
    )
    control = tmp_path / "launched.stop"
    pids: list[int] = []

    def processes(name: str) -> list[psutil.Process]:
        found = []
        for proc in psutil.process_iter(["cmdline"]):
            cmdline = proc.info["cmdline"] or []
            if str(slow_start) in cmdline and name in cmdline:
                found.append(proc)
        return found

    async def until(check: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not check():
            assert time.monotonic() < deadline, what
            await asyncio.sleep(0.2)

    async def body() -> None:
        async with broker(home) as s:
            heard = Heard()
            result = await s.client.call_tool(
                "wpf_launch_app",
                {"script": str(slow_start), "args": [str(control)], "name": "patient", "timeoutSeconds": 90},
                progress_callback=heard,
            )
            assert not result.is_error, result.structured_content
            pids.append(result.structured_content["pid"])
            heard.check(time.monotonic(), at_least=2)
            assert "waiting for its UI" in (heard.notes[0][2] or ""), heard.notes

            heard = Heard()
            launching = asyncio.ensure_future(
                s.client.call_tool(
                    "wpf_launch_app",
                    {"script": str(slow_start), "args": [str(control)], "name": "withdrawn", "timeoutSeconds": 90},
                    progress_callback=heard,
                )
            )
            await heard.first()
            started = processes("withdrawn")
            assert started, "the launch had started the app"
            pids.extend(p.pid for p in started)
            await cancel(launching)
            await until(lambda: not processes("withdrawn"), "the cancelled launch's app still runs")
            assert "withdrawn" not in {a["name"] for a in (await s.ok("wpf_list_apps"))["apps"]}

    try:
        run(body, deadline=180)
    finally:
        control.write_text("return")
        for pid in pids:
            with contextlib.suppress(psutil.Error):
                proc = psutil.Process(pid)
                try:
                    proc.wait(30)
                except psutil.TimeoutExpired:
                    proc.kill()
