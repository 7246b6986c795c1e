"""``wpfprobe mcp``, the broker: several apps behind one stdio MCP server, as an agent sees them.

Every app is a process of its own (scripts/broker_app.py: the example app with a probe),
all on the session's shared X display, with a private WPFPROBE_HOME per module. The broker
is ``python -m wpfprobe mcp`` driven by the SDK's stdio client, as an MCP client would.
Every process a test starts is stopped when the test ends, whatever happened.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest
from PIL import Image

SCRIPTS = Path(__file__).parent / "scripts"
APP_SCRIPT = SCRIPTS / "broker_app.py"
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ERROR_KEYS = {"code", "message", "suggestion", "detail"}


# -- processes ------------------------------------------------------------------------------


class Lines:
    """A subprocess's stdout lines, read on a thread, taken with a deadline."""

    def __init__(self, stream: Any) -> None:
        self.queue: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: Any) -> None:
        for line in stream:
            self.queue.put(line)
        self.queue.put(None)

    def json(self, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError("no JSON line in time")
            line = self.queue.get(timeout=left)
            if line is None:
                raise AssertionError("the process ended without its JSON line")
            if line.startswith("{"):
                return json.loads(line)  # type: ignore[no-any-return]


def child_env(home: Path, display: str | None) -> dict[str, str]:
    env = {**os.environ, "WPFPROBE_HOME": str(home)}
    if display:
        env["DISPLAY"] = display
    return env


class App:
    """One broker_app.py process."""

    def __init__(
        self,
        name: str,
        home: Path,
        display: str | None,
        *,
        allow: str = "interact",
        custom: bool = False,
        extra: tuple[str, ...] = (),
    ) -> None:
        self.name = name
        self.stderr_path = home / f"{name}-{time.monotonic_ns()}.stderr"
        args = [sys.executable, str(APP_SCRIPT), "--name", name, "--allow", allow, *(["--custom"] if custom else [])]
        args += extra
        self.proc = subprocess.Popen(
            args, env=child_env(home, display), text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr_path.open("w"),
        )  # fmt: skip
        assert self.proc.stdout is not None
        self.lines = Lines(self.proc.stdout)
        try:
            started = self.lines.json(90)
        except BaseException:
            self.kill()
            raise AssertionError(f"{name} did not start:\n{self.stderr_path.read_text()[-3000:]}") from None
        self.pid: int = started["pid"]
        self.app_id: str = started["appId"]

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(15)

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("close")
                self.proc.wait(20)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("broker-home")


@pytest.fixture(scope="module")
def apps(home: Path, display: str | None) -> Iterator[dict[str, App]]:
    started: dict[str, App] = {}
    try:
        for name, allow, custom in (
            ("orders", "interact", True),
            ("stock", "read", False),
            ("billing", "interact", False),
        ):
            started[name] = App(name, home, display, allow=allow, custom=custom)
        yield started
    finally:
        for app in started.values():
            app.close()


# -- the broker -------------------------------------------------------------------------------


class Session:
    """An SDK client session to ``python -m wpfprobe mcp`` and the notifications it got."""

    def __init__(self, client: Any, notes: list[Any]) -> None:
        self.client = client
        self.notes = notes

    def list_changed(self) -> int:
        return sum(1 for n in self.notes if type(n).__name__ == "ToolListChangedNotification")

    async def call(self, tool: str, **arguments: Any) -> Any:
        return await self.client.call_tool(tool, arguments)

    async def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = await self.call(tool, **arguments)
        assert not result.is_error, f"{tool} failed: {result.structured_content}"
        assert isinstance(result.structured_content, dict)
        return result.structured_content

    async def error(self, tool: str, code: str, **arguments: Any) -> dict[str, Any]:
        result = await self.call(tool, **arguments)
        assert result.is_error, f"{tool} should have failed with {code}: {result.structured_content}"
        err = result.structured_content
        assert isinstance(err, dict) and set(err) == ERROR_KEYS, err
        assert err["code"] == code, err
        assert err["suggestion"], err
        return err

    async def tool_names(self) -> set[str]:
        return {t.name for t in (await self.client.list_tools()).tools}

    async def wait_for_tools(self, check: Any, timeout: float = 20.0) -> set[str]:
        deadline = time.monotonic() + timeout
        while True:
            names = await self.tool_names()
            if check(names) or time.monotonic() > deadline:
                return names
            await asyncio.sleep(0.2)


@asynccontextmanager
async def broker(
    home: Path, *, mode: str = "legacy", errlog: Any = None, extra_args: list[str] | None = None
) -> AsyncIterator[Session]:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**os.environ, "WPFPROBE_HOME": str(home)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "wpfprobe", "mcp", "--log-level", "INFO", *(extra_args or [])], env=env
    )
    notes: list[Any] = []

    async def on_message(message: Any) -> None:
        notes.append(message)

    log = errlog if errlog is not None else (home / "broker.log").open("a")
    async with Client(stdio_client(params, errlog=log), mode=mode, message_handler=on_message) as client:
        yield Session(client, notes)


def run(body: Any, deadline: float = 90.0) -> Any:
    return asyncio.run(asyncio.wait_for(body(), deadline))


def assert_no_token(text: str, home: Path) -> None:
    for path in (home / "sessions").glob("*.json"):
        token = json.loads(path.read_text())["token"]
        assert token not in text, "a token leaked"


# -- many apps, one broker ----------------------------------------------------------------------


def test_three_apps_listed_and_each_reached_by_id_name_or_pid(apps: dict[str, App], home: Path) -> None:
    async def body() -> None:
        async with broker(home) as s:
            names = await s.tool_names()
            assert {"wpf_list_apps", "wpf_launch_app", "wpf_get_visual_tree", "wpf_click", "wpf_set_property"} <= names
            assert all(TOOL_NAME.match(n) for n in names)
            listed = {t.name: t for t in (await s.client.list_tools()).tools}
            for name in ("wpf_get_visual_tree", "wpf_click", "wpf_get_session_info"):
                schema = listed[name].input_schema
                assert schema["properties"]["app"]["type"] == "string"
                assert "app" not in schema.get("required", [])

            result = await s.call("wpf_list_apps")
            assert not result.is_error
            listing = result.structured_content["apps"]
            assert {a["name"] for a in listing} == {"orders", "stock", "billing"}
            by_name = {a["name"]: a for a in listing}
            for app in apps.values():
                entry = by_name[app.name]
                assert entry["appId"] == app.name, "a unique name is its own stable appId"
                assert entry["probeAppId"] == app.app_id and entry["pid"] == app.pid
                assert entry["toolkit"] == "winforms" and entry["windows"] == ["wpfprobe demo"]
                assert "token" not in json.dumps(entry).lower()
            assert by_name["stock"]["tier"] == "read" and by_name["orders"]["tier"] == "interact"
            assert_no_token(json.dumps(result.structured_content) + result.content[0].text, home)

            err = await s.error("wpf_get_session_info", "APP_AMBIGUOUS")
            assert {a["name"] for a in err["detail"]["apps"]} == {"orders", "stock", "billing"}
            assert all(set(a) == {"appId", "name", "pid"} for a in err["detail"]["apps"])

            for app in apps.values():
                for target in (app.name, app.app_id, app.name.upper(), f"pid:{app.pid}", str(app.pid)):
                    info = await s.ok("wpf_get_session_info", app=target)
                    assert (info["appName"], info["pid"]) == (app.name, app.pid), target

            # Results pass through unchanged: structured content, text and the image block.
            shot = await s.call("wpf_capture_screenshot", app="billing")
            png = next(b for b in shot.content if b.type == "image")
            size = Image.open(io.BytesIO(base64.b64decode(png.data))).size
            assert size == (shot.structured_content["width"], shot.structured_content["height"])
            tree = await s.ok("wpf_get_visual_tree", app="stock", maxDepth=2)
            assert tree["returnedNodeCount"] > 3

            # The app's own errors come back as they are, tier refusals included.
            await s.error("wpf_inspect_element", "LOCATOR_NOT_FOUND", app="orders", locator="#noSuchThing")
            await s.error("wpf_click", "INPUT_DISABLED", app="stock", locator="Button#saveButton")
            clicked = await s.ok("wpf_click", app="billing", locator="Button#saveButton")
            assert clicked["changed"] is not None

            err = await s.error("wpf_get_windows", "APP_NOT_AVAILABLE", app="nosuchapp")
            assert "wpf_list_apps" in err["suggestion"]
            assert {a["name"] for a in err["detail"]["apps"]} == {"orders", "stock", "billing"}
            await s.error("wpf_get_windows", "INVALID_ARGUMENT", app=42)
            await s.error("wpf_get_windows", "INVALID_ARGUMENT", app="pid:abc")
            await s.error("wpf_no_such_tool", "INVALID_ARGUMENT")
            await s.error("wpf_launch_app", "INVALID_ARGUMENT", script="/bin/sh")
            await s.error("wpf_launch_app", "INVALID_ARGUMENT")
            # Still serving after all that bad input.
            assert (await s.ok("wpf_get_session_info", app="stock"))["pid"] == apps["stock"].pid

    run(body)
    assert_no_token((home / "broker.log").read_text(), home)


def test_calls_to_different_apps_run_concurrently(apps: dict[str, App], home: Path) -> None:
    async def body() -> None:
        async with broker(home) as s:
            slow = asyncio.ensure_future(s.call("orders__slow", seconds=6))
            # Once the slow call is running inside orders, calls to the other apps must
            # all come back while it still runs: nothing serializes them behind it.
            assert await asyncio.to_thread(apps["orders"].lines.json, 30) == {"slowStarted": 6}
            quick = await asyncio.gather(
                *(s.call("wpf_get_windows", app=name) for name in ("stock", "billing") for _ in range(3)),
                s.call("wpf_find_elements", app="stock", locator="Button"),
            )
            assert all(not r.is_error for r in quick), [r.structured_content for r in quick if r.is_error]
            assert not slow.done(), "calls to other apps waited for the slow one"
            answer = await slow
            assert not answer.is_error and answer.structured_content == {"result": "done"}

    run(body)


def test_custom_tools_are_prefixed_and_follow_the_app(apps: dict[str, App], home: Path) -> None:
    async def body() -> None:
        async with broker(home) as s:
            names = await s.tool_names()
            assert {"orders__order_count", "orders__slow"} <= names
            assert not any(n.startswith(("stock__", "billing__")) for n in names)
            listed = {t.name: t for t in (await s.client.list_tools()).tools}
            assert "prefix" in listed["orders__order_count"].input_schema["properties"]
            assert "app" not in listed["orders__order_count"].input_schema["properties"]
            answer = await s.ok("orders__order_count", prefix="open")
            assert answer == {"result": "open: 42"}
            await s.error("orders__order_count", "INVALID_ARGUMENT", nope=1)

            before = s.list_changed()
            apps["billing"].send("add")
            names = await s.wait_for_tools(lambda n: "billing__late_tool" in n)
            assert "billing__late_tool" in names
            assert s.list_changed() > before, "the app's own list_changed reached the agent"
            assert (await s.ok("billing__late_tool")) == {"result": "late"}
            await s.error("gone__tool", "APP_NOT_AVAILABLE")

    run(body)


def test_an_app_killed_during_a_call_fails_fast_and_the_others_still_answer(
    apps: dict[str, App], home: Path, display: str | None
) -> None:
    victim = App("victim", home, display, custom=True)
    try:

        async def body() -> None:
            async with broker(home) as s:
                names = await s.wait_for_tools(lambda n: "victim__slow" in n)
                assert "victim__slow" in names
                changes = s.list_changed()
                waiting = asyncio.ensure_future(
                    s.call("wpf_wait_for", app="victim", locator="#neverThere", timeoutMs=60000)
                )
                slow = asyncio.ensure_future(s.call("victim__slow", seconds=60))
                # The app says when the slow call has reached it (wpf_wait_for went first).
                assert await asyncio.to_thread(victim.lines.json, 30) == {"slowStarted": 60}
                assert not slow.done() and not waiting.done()
                killed = time.monotonic()
                os.kill(victim.pid, signal.SIGKILL)
                victim.proc.wait(10)
                for call in (slow, waiting):
                    result = await asyncio.wait_for(call, 10)
                    assert result.is_error and result.structured_content["code"] == "APP_NOT_AVAILABLE"
                    assert "wpf_list_apps" in result.structured_content["suggestion"]
                assert time.monotonic() - killed < 5, "a dead app is noticed quickly"
                assert (await s.ok("wpf_get_session_info", app="stock"))["appName"] == "stock"
                await s.error("wpf_get_windows", "APP_NOT_AVAILABLE", app="victim")
                names = await s.wait_for_tools(lambda n: "victim__slow" not in n)
                assert "victim__slow" not in names
                assert s.list_changed() > changes
                listed = await s.ok("wpf_list_apps")
                assert "victim" not in {a["name"] for a in listed["apps"]}

        run(body)
    finally:
        victim.kill()
    # The killed app's manifest was stale: cleaned up by the broker's scans.
    assert not (home / "sessions" / f"{victim.app_id}.json").exists()


def test_a_restarted_app_is_reached_by_name_without_restarting_the_broker(
    apps: dict[str, App], home: Path, display: str | None
) -> None:
    first = App("phoenix", home, display, custom=True)
    second: App | None = None
    try:

        async def body() -> None:
            nonlocal second
            async with broker(home) as s:
                info = await s.ok("wpf_get_session_info", app="phoenix")
                assert info["pid"] == first.pid
                assert "phoenix__order_count" in await s.tool_names()
                changes = s.list_changed()
                first.close()
                names = await s.wait_for_tools(lambda n: "phoenix__order_count" not in n)
                assert "phoenix__order_count" not in names
                await s.error("wpf_get_session_info", "APP_NOT_AVAILABLE", app="phoenix")
                second = await asyncio.to_thread(App, "phoenix", home, display, custom=True)
                info = await s.ok("wpf_get_session_info", app="phoenix")
                assert info["pid"] == second.pid != first.pid
                names = await s.wait_for_tools(lambda n: "phoenix__order_count" in n)
                assert "phoenix__order_count" in names, "same name, same tool names after a restart"
                assert (await s.ok("phoenix__order_count"))["result"] == "orders: 42"
                assert s.list_changed() >= changes + 2, "told when the app went and when it came back"

        run(body, deadline=150)
    finally:
        first.close()
        if second is not None:
            second.close()


def test_the_modern_protocol_client_hears_list_changed_on_its_listen_stream(
    apps: dict[str, App], home: Path, display: str | None
) -> None:
    async def body() -> None:
        async with broker(home, mode="auto") as s:
            assert s.client.protocol_version >= "2026"
            assert (await s.ok("wpf_get_session_info", app="billing"))["appName"] == "billing"
            async with s.client.listen(tools_list_changed=True) as events:
                # Its custom tools change the broker's tool list (an app without any does not).
                newcomer = await asyncio.to_thread(App, "newcomer", home, display, custom=True)
                try:
                    event = await asyncio.wait_for(events.__anext__(), 20)
                    assert type(event).__name__ == "ToolsListChanged"
                    info = await s.ok("wpf_get_session_info", app="newcomer")
                    assert info["pid"] == newcomer.pid
                    assert "newcomer__order_count" in await s.tool_names()
                finally:
                    newcomer.close()

    run(body, deadline=120)


# -- manifests that must not be trusted -------------------------------------------------------


FAKE_SERVER = r"""
import http.server, json, sys
log = open(sys.argv[1], "a")
class H(http.server.BaseHTTPRequestHandler):
    def _any(self):
        log.write(json.dumps({"path": self.path, "auth": self.headers.get("Authorization")}) + "\n"); log.flush()
        self.send_response(404); self.end_headers()
    do_GET = do_POST = do_DELETE = _any
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"""


def write_manifest(directory: Path, data: dict[str, Any], mode: int = 0o600) -> Path:
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = directory / f"{data['appId']}.json"
    path.write_text(json.dumps(data))
    os.chmod(path, mode)
    return path


def test_stale_and_forged_manifests_are_ignored_and_never_get_the_token(
    apps: dict[str, App], home: Path, tmp_path: Path
) -> None:
    import psutil

    sessions = tmp_path / "sessions"
    real = json.loads((home / "sessions" / f"{apps['stock'].app_id}.json").read_text())
    me = psutil.Process()
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait(10)
    requests_log = tmp_path / "fake-requests.jsonl"
    fake = subprocess.Popen([sys.executable, "-c", FAKE_SERVER, str(requests_log)], stdout=subprocess.PIPE, text=True)
    try:
        assert fake.stdout is not None
        fake_port = int(fake.stdout.readline())
        secret = "forged-token-" + "x" * 40
        base = {**real, "token": secret, "url": f"http://127.0.0.1:{fake_port}/mcp"}
        dead = write_manifest(sessions, {**base, "appId": "dead-1", "appName": "dead", "pid": gone.pid})
        reused = write_manifest(
            sessions,
            {
                **base,
                "appId": "reused-1",
                "appName": "reused",
                "pid": me.pid,
                "processStartTime": me.create_time() - 100,
            },
        )
        # A live pid (this test process) with the right start time, but the url is served by another process.
        forged = write_manifest(
            sessions,
            {**base, "appId": "forged-1", "appName": "forged", "pid": me.pid, "processStartTime": me.create_time()},
        )
        # The url's server is the named process itself, but it is no probe.
        impostor = write_manifest(
            sessions,
            {**base, "appId": "impostor-1", "appName": "impostor", "pid": fake.pid,
             "processStartTime": psutil.Process(fake.pid).create_time()},
        )  # fmt: skip
        # The real app's manifest, but writable by the group: not trusted.
        loose = write_manifest(sessions, {**real, "appId": "loose-1", "appName": "loose"}, mode=0o620)
        # The same real manifest, owner-only: trusted (so it is the mode that made the difference).
        write_manifest(sessions, real)

        async def body() -> list[dict[str, Any]]:
            async with broker(tmp_path, errlog=(tmp_path / "broker.log").open("w")) as s:
                listed = await s.ok("wpf_list_apps")
                await s.error("wpf_get_windows", "APP_NOT_AVAILABLE", app="forged")
                await s.error("wpf_get_windows", "APP_NOT_AVAILABLE", app="impostor")
                await s.ok("wpf_get_windows")  # the one real app needs no app argument
                return listed["apps"]  # type: ignore[no-any-return]

        listed = run(body)
        assert [a["name"] for a in listed] == ["stock"]
        assert not dead.exists() and not reused.exists(), "stale manifests are cleaned up"
        assert forged.exists() and loose.exists() and impostor.exists(), "live but untrusted: left alone, ignored"
        seen = [json.loads(line) for line in requests_log.read_text().splitlines()] if requests_log.exists() else []
        # The forged manifest's url was never contacted (the port check comes first); the impostor
        # owns its port, so it was asked who it is, and its answer got it ignored.
        assert all(r["auth"] in (None, f"Bearer {secret}") for r in seen), seen
        log_text = (tmp_path / "broker.log").read_text()
        assert secret not in log_text and real["token"] not in log_text
    finally:
        fake.kill()
        fake.wait(10)


# -- the people CLI -----------------------------------------------------------------------------


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wpfprobe", *args], env={**os.environ, "WPFPROBE_HOME": str(home)},
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_cli_ls_tree_find_props_screenshot(apps: dict[str, App], home: Path, tmp_path: Path) -> None:
    listed = cli(home, "ls")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0].split()[:5] == ["APPID", "NAME", "PID", "TOOLKIT", "TIER"]
    assert all(app.name in listed.stdout and str(app.pid) in listed.stdout for app in apps.values())
    as_json = cli(home, "ls", "--json")
    rows = json.loads(as_json.stdout)
    assert {r["name"] for r in rows} >= {"orders", "stock", "billing"}
    assert all({"appId", "name", "pid", "toolkit", "tier", "started", "url"} <= set(r) for r in rows)
    assert_no_token(listed.stdout + as_json.stdout, home)

    tree = cli(home, "tree", "stock", "--depth", "2")
    assert tree.returncode == 0, tree.stderr
    assert "Form#mainWindow" in tree.stdout
    tree_json = json.loads(cli(home, "tree", "stock", "--locator", "#formPanel", "--depth", "1", "--json").stdout)
    assert tree_json["root"]["name"] == "formPanel"

    found = cli(home, "find", "billing", "Button#saveButton")
    assert found.returncode == 0 and "saveButton" in found.stdout, found.stderr
    found_json = json.loads(cli(home, "find", f"pid:{apps['stock'].pid}", "Button", "--max", "2", "--json").stdout)
    assert len(found_json["results"]) == 2

    props = cli(home, "props", "stock", "#greetingLabel", "--filter", "Text")
    assert props.returncode == 0 and "Text" in props.stdout, props.stderr
    props_json = json.loads(cli(home, "props", "stock", "#greetingLabel", "--all", "--json").stdout)
    names = [p["name"] for p in props_json["items"]]
    assert "Text" in names and len(names) == props_json["totalCount"] > 20

    png = tmp_path / "shot.png"
    shot = cli(home, "screenshot", "STOCK", "--locator", "Button#saveButton", "-o", str(png), "--json")
    assert shot.returncode == 0, shot.stderr
    info = json.loads(shot.stdout)
    assert Image.open(png).size == (info["width"], info["height"]) and info["file"] == str(png)


def test_cli_exit_codes(apps: dict[str, App], home: Path, tmp_path: Path) -> None:
    missing = cli(home, "tree", "stock", "--locator", "#noSuchThing")
    assert missing.returncode == 1 and "LOCATOR_NOT_FOUND" in missing.stderr and "hint:" in missing.stderr
    nothing = cli(home, "find", "stock", "#noSuchThing", "--json")
    assert nothing.returncode == 1 and json.loads(nothing.stdout)["results"] == []
    inspect = cli(home, "props", "stock", "#noSuchThing")
    assert inspect.returncode == 1 and "LOCATOR_NOT_FOUND" in inspect.stderr
    ambiguous = cli(home, "tree")
    assert ambiguous.returncode == 3 and "APP_AMBIGUOUS" in ambiguous.stderr
    assert all(name in ambiguous.stderr for name in ("orders", "stock", "billing")), "the apps are listed"
    unknown = cli(home, "tree", "nosuchapp")
    assert unknown.returncode == 3 and "APP_NOT_AVAILABLE" in unknown.stderr
    usage = cli(home, "tree", "stock", "--depth", "many")
    assert usage.returncode == 2
    bad_locator = cli(home, "find", "stock", "Button[")
    assert bad_locator.returncode == 2 and "INVALID_ARGUMENT" in bad_locator.stderr
    empty = tmp_path / "empty-home"
    none = cli(empty, "tree")
    assert none.returncode == 3 and "No wpfprobe app is running" in none.stderr
    assert cli(empty, "ls").returncode == 0
    # The people commands never load the CLR: they only talk to the app.
    probe = subprocess.run(
        [sys.executable, "-c",
         "import sys\nfrom wpfprobe.cli.parser import main\ncode = main(['tree', 'stock', '--depth', '1'])\n"
         "assert 'clr' not in sys.modules and 'pythonnet' not in sys.modules, 'CLR loaded'\nsys.exit(code)"],
        env={**os.environ, "WPFPROBE_HOME": str(home)}, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert probe.returncode == 0, probe.stderr


def test_free_port_helper_is_not_a_probe() -> None:
    # A plain listening socket of this process: the port check says this pid serves it.
    from wpfprobe.mcp.client import owns_port
    from wpfprobe.mcp.manifest import Manifest

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        port = sock.getsockname()[1]
        base = {"appId": "x-1", "appName": "x", "pid": os.getpid(), "processStartTime": 0.0, "exe": "python",
                "toolkit": "winforms", "runtime": "mono", "token": "t" * 43, "tier": "read",
                "startedAt": "now", "version": "0"}  # fmt: skip
        assert owns_port(Manifest.model_validate({**base, "url": f"http://127.0.0.1:{port}/mcp"})) is True
        assert (
            owns_port(
                Manifest.model_validate({**base, "url": f"http://127.0.0.1:{port + 1 if port < 65535 else 1}/mcp"})
            )
            is False
        )
        assert owns_port(Manifest.model_validate({**base, "url": f"http://example.com:{port}/mcp"})) is False
        assert owns_port(Manifest.model_validate({**base, "url": f"https://127.0.0.1:{port}/mcp"})) is False


# -- the wire ----------------------------------------------------------------------------------


def test_the_broker_declares_what_it_serves_and_an_unknown_tool_names_close_ones(tmp_path: Path) -> None:
    """Regression: an unknown tool name got INVALID_ARGUMENT without the names it was close to.
    The capabilities declare tools (whose list changes as apps come and go) and nothing else."""
    from mcp.shared.exceptions import MCPError

    async def body() -> None:
        async with broker(tmp_path, mode="legacy") as s:
            declared = s.client.server_capabilities
            assert declared.tools is not None and declared.tools.list_changed is True
            assert (declared.prompts, declared.resources, declared.logging, declared.completions) == (None,) * 4
            for name in ("wpf_get_windowz", "wpf_get_windows ", "wpf_get_windows\x00", "WPF_LIST_APPS"):
                err = await s.error(name, "INVALID_ARGUMENT")
                assert err["detail"]["closeMatches"], (name, err)
                assert err["detail"]["closeMatches"][0] in ("wpf_get_windows", "wpf_list_apps"), err
                assert err["detail"]["closeMatches"][0] in err["suggestion"]
            far = await s.error("zzzz", "INVALID_ARGUMENT")
            assert far["detail"]["closeMatches"] == [] and "wpf_list_apps" in far["suggestion"]
            for request in (s.client.list_prompts(), s.client.list_resources()):
                with pytest.raises(MCPError) as refused:
                    await request
                assert refused.value.error.code == -32601

    run(body)


def test_json_looking_strings_reach_an_app_through_the_broker_as_strings(apps: dict[str, App], home: Path) -> None:
    """Regression: an app's SDK parsed "[]" in an optional string into a list (a validation error
    without {code, message}) and "null" into None (a filter silently ignored)."""

    async def body() -> None:
        async with broker(home) as s:
            found = await s.ok("wpf_find_elements", app="stock", name="[]")
            assert found["results"] == []
            await s.ok("wpf_find_elements", app="stock", text="{}")
            filtered = await s.ok("wpf_get_properties", app="stock", locator="#nameBox", filter="null")
            assert filtered["totalCount"] == 0, filtered
            assert (await s.ok("orders__order_count", prefix="[1]")) == {"result": "[1]: 42"}
            assert (await s.ok("orders__order_count", prefix="null")) == {"result": "null: 42"}

    run(body)


# -- done when: one registration, apps started every way -------------------------------------


PLAIN_APP = SCRIPTS / "plain_winforms_app.py"


def test_one_broker_drives_apps_from_wpfprobe_run_wpfprobe_start_and_wpf_launch_app(
    display: str | None, tmp_path: Path
) -> None:
    """The agent registers `wpfprobe mcp` once; two unmodified WinForms scripts run under
    `wpfprobe run`, one app calls wpfprobe.start itself, and the agent launches one more."""
    own_home = tmp_path / "home"
    own_home.mkdir()
    env = child_env(own_home, display)
    controls = {name: tmp_path / f"{name}.stop" for name in ("ledger", "inventory", "launched")}
    runs: list[subprocess.Popen[bytes]] = []
    started: App | None = None
    launched_pid: int | None = None
    try:
        for name in ("ledger", "inventory"):
            runs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "wpfprobe",
                        "run",
                        "--allow",
                        "interact",
                        "--name",
                        name,
                        str(PLAIN_APP),
                        str(controls[name]),
                    ],
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=(tmp_path / f"{name}.out").open("wb"),
                    stderr=subprocess.STDOUT,
                )
            )
        started = App("console", own_home, display, custom=True)

        async def body() -> None:
            nonlocal launched_pid
            async with broker(own_home) as s:
                deadline = time.monotonic() + 90
                while True:
                    listed = await s.ok("wpf_list_apps")
                    if {a["name"] for a in listed["apps"]} >= {"ledger", "inventory", "console"}:
                        break
                    assert time.monotonic() < deadline, f"apps did not come up: {listed}"
                    await asyncio.sleep(0.5)
                by_name = {a["name"]: a for a in listed["apps"]}
                assert by_name["ledger"]["windows"] == ["plain app"] and by_name["ledger"]["tier"] == "interact"
                await s.error("wpf_get_windows", "APP_AMBIGUOUS")

                for name in ("ledger", "inventory"):
                    info = await s.ok("wpf_get_session_info", app=name)
                    assert info["appName"] == name and info["toolkit"] == "winforms"
                    tree = await s.ok("wpf_get_visual_tree", app=name)
                    assert tree["root"]["name"] == "plainWindow"
                    await s.ok("wpf_click", app=name, locator="Button#pingButton")
                    waited = await s.ok(
                        "wpf_wait_for", app=name, locator="#plainStatus", condition="textMatches", value="Pinged"
                    )
                    assert waited["node"]["text"] == "Pinged"
                # Both run apps run the same script: a script target names them both.
                err = await s.error("wpf_get_windows", "APP_AMBIGUOUS", app="script:plain_winforms_app.py")
                assert {a["name"] for a in err["detail"]["apps"]} == {"ledger", "inventory"}

                await s.ok("wpf_type_text", app="console", locator="#nameBox", text="Grace")
                assert (await s.ok("wpf_inspect_element", app="console", locator="#nameBox"))["node"]["text"] == "Grace"
                assert (await s.ok("console__order_count"))["result"] == "orders: 42"

                changes = s.list_changed()
                launched = await s.ok(
                    "wpf_launch_app", script=str(PLAIN_APP), args=[str(controls["launched"])], allow="interact",
                    name="launched", timeoutSeconds=90,
                )  # fmt: skip
                launched_pid = launched["pid"]
                assert launched["name"] == "launched" and launched["windows"] == ["plain app"]
                assert launched["appId"] == "launched" and "token" not in json.dumps(launched).lower()
                await s.ok("wpf_click", app="launched", locator="Button#pingButton")
                assert s.list_changed() >= changes  # no custom tools: the list may stay the same
                listed = await s.ok("wpf_list_apps")
                assert {a["name"] for a in listed["apps"]} == {"ledger", "inventory", "console", "launched"}

        run(body, deadline=240)
    finally:
        for control in controls.values():
            control.write_text("return")
        if started is not None:
            started.close()
        for proc in runs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        if launched_pid is not None:
            deadline = time.monotonic() + 30
            import psutil

            while psutil.pid_exists(launched_pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            if psutil.pid_exists(launched_pid):
                os.kill(launched_pid, signal.SIGKILL)
    assert [p.returncode for p in runs] == [0, 0], [
        (tmp_path / f"{n}.out").read_text()[-2000:] for n in ("ledger", "inventory")
    ]


def test_a_200_mib_frame_does_not_grow_the_broker(tmp_path: Path) -> None:
    """The broker read a stdio frame whole, as the app's stdio server did (test_mcp_stdio): a
    client's line of 200 MiB with no end grew it by as much. It reads through the same bounded
    streams now: the frame is dropped in 4 MiB pieces and the next message is answered."""
    env = dict(os.environ, WPFPROBE_HOME=str(tmp_path))
    broker = subprocess.Popen(
        [sys.executable, "-m", "wpfprobe", "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    answers: queue.Queue[bytes] = queue.Queue()
    assert broker.stdin is not None and broker.stdout is not None
    reader = threading.Thread(target=lambda: [answers.put(line) for line in broker.stdout], daemon=True)  # type: ignore[union-attr]
    reader.start()

    def send(message: dict[str, Any]) -> None:
        broker.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        broker.stdin.flush()  # type: ignore[union-attr]

    def answer(request_id: int) -> dict[str, Any]:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                frame = json.loads(answers.get(timeout=max(0.1, deadline - time.monotonic())))
            except queue.Empty:
                break
            if frame.get("id") == request_id:
                return dict(frame)
        pytest.fail(f"the broker did not answer request {request_id}")

    def rss_mib() -> float:
        return float(psutil.Process(broker.pid).memory_info().rss) / (1 << 20)

    try:
        params = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        assert answer(1)["result"]["serverInfo"]
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        before = rss_mib()
        broker.stdin.write(b'{"jsonrpc": "2.0", "id": 2, "method": "ping", "pad": "' + b"a" * (200 << 20) + b'"}\n')
        send({"jsonrpc": "2.0", "id": 3, "method": "ping"})
        assert answer(3)["result"] == {}
        grew = rss_mib() - before
        broker.stdin.close()
        assert broker.wait(timeout=30) == 0
    finally:
        if broker.poll() is None:
            broker.kill()
            broker.wait(10)
    assert grew < 40, f"the broker grew by {grew:.0f} MiB reading a 200 MiB frame"
