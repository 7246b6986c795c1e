"""`wpfprobe run`, `wpfprobe launch` and profiles on an app that never imports wpfprobe.

scripts/plain_winforms_app.py loads Mono, shows a form and prints known lines;
it closes when its control file appears, whose content says how it ends. The
same command runs once under plain python and once under `wpfprobe run`:
stdout, stderr and the exit status must be the same, and in between the probe
must answer over MCP from the manifest it wrote. Every process a test starts
is stopped in a finally block; launched apps run in their own process group.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from wpfprobe.apps.launch import launch
from wpfprobe.core.errors import AppNotAvailableError
from wpfprobe.mcp import manifest as _manifest

HERE = Path(__file__).parent
SCRIPT = "scripts/plain_winforms_app.py"  # relative to HERE, the working directory: argv[0] as given
DEADLINE = 90.0
MONO_NOISE_LINE = "Could not set X locale modifiers"
"""A line of Mono's System.Windows.Forms.dll (its X11 keyboard code), not of wpfprobe,
which it prints on stderr in some runs and not others, with or without the probe."""


def _without_mono_noise(result: tuple[int, str, str]) -> tuple[int, str, str]:
    code, out, err = result
    return code, out, err.replace(f"{MONO_NOISE_LINE}\n", "")


def env_for(home: Path) -> dict[str, str]:
    return {**os.environ, "WPFPROBE_HOME": str(home)}


def run_to_end(argv: list[str], home: Path, timeout: float = DEADLINE) -> tuple[int, str, str]:
    proc = subprocess.Popen(
        argv, cwd=HERE, env=env_for(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        stop(proc)
    return proc.returncode, out, err


def stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait(10)


def wait_for_manifest(home: Path, pid: int, alive: Callable[[], bool]) -> _manifest.Manifest:
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        for manifest in _manifest.read_all(home / "sessions"):
            if manifest.pid == pid:
                return manifest
        assert alive(), "the app ended before its probe wrote a manifest"
        time.sleep(0.05)
    raise AssertionError("no manifest appeared")


def mcp(manifest: _manifest.Manifest, body: Callable[[Any], Awaitable[Any]]) -> Any:
    async def converse() -> Any:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {manifest.token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with Client(streamable_http_client(manifest.url, http_client=http)) as client:
                return await body(client)

    return asyncio.run(asyncio.wait_for(converse(), 60))


async def drive(client: Any) -> dict[str, Any]:
    """What an agent would do: list, look, click, look again."""
    names = {t.name for t in (await client.list_tools()).tools}
    windows = (await client.call_tool("wpf_get_windows", {})).structured_content
    click = await client.call_tool("wpf_click", {"locator": "#pingButton"})
    status = (await client.call_tool("wpf_inspect_element", {"locator": "#plainStatus"})).structured_content
    return {"names": names, "windows": windows, "click": click, "status": status}


def probed_run(
    home: Path, control: Path, ending: str, app_args: list[str]
) -> tuple[tuple[int, str, str], dict[str, Any], _manifest.Manifest]:
    """The app under `wpfprobe run`: driven over MCP, then told to end with ``ending``."""
    argv = [sys.executable, "-m", "wpfprobe", "run", "--allow", "interact", SCRIPT, *app_args]
    proc = subprocess.Popen(
        argv, cwd=HERE, env=env_for(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        manifest = wait_for_manifest(home, proc.pid, lambda: proc.poll() is None)
        seen = mcp(manifest, drive)
        control.write_text(ending, encoding="utf-8")
        out, err = proc.communicate(timeout=DEADLINE)
    finally:
        stop(proc)
    return (proc.returncode, out, err), seen, manifest


@pytest.mark.parametrize(
    ("ui_thread", "ending", "status"),
    [("main", "exit 3", 3), ("worker", "raise", 1), ("main", "return", 0)],
    ids=["main-thread-exit-3", "worker-thread-uncaught-exception", "main-thread-returns"],
)
def test_run_serves_the_app_and_changes_nothing_it_prints(
    display: str | None, tmp_path: Path, ui_thread: str, ending: str, status: int
) -> None:
    home = tmp_path / "home"
    control = tmp_path / "control"
    app_args = [str(control), "--ui-thread", ui_thread, "alpha", "--beta=1", "-x"]
    control.write_text(ending, encoding="utf-8")  # the plain run ends as soon as its form is shown
    plain = run_to_end([sys.executable, SCRIPT, *app_args], home)
    control.unlink()
    probed, seen, manifest = probed_run(home, control, ending, app_args)
    assert plain[0] == status, plain
    # Mono's WinForms prints this line of its own now and then, probe or not (seen in a
    # plain run too): it is not compared. Everything else must match byte for byte.
    assert _without_mono_noise(probed) == _without_mono_noise(plain), (
        f"stdout/stderr/status differ:\nplain={plain!r}\nprobed={probed!r}"
    )
    facts = json.loads(probed[1].splitlines()[0])
    assert facts["argv"] == [SCRIPT, *app_args]
    assert facts["name"] == "__main__"
    assert facts["file"] == str(HERE / SCRIPT)
    assert facts["path0"] == str((HERE / "scripts").resolve())
    assert facts["cwd"] == str(HERE)
    if ending == "raise":
        assert 'raise RuntimeError("the plain app failed on purpose")' in probed[2]
        assert "wpfprobe" not in probed[2], "the traceback must start at the script, as python prints it"
    # The probe answered while the app ran.
    assert manifest.app_name == "plain_winforms_app" and manifest.tier == "interact"
    assert {"wpf_get_windows", "wpf_click"} <= seen["names"]
    assert [w["title"] for w in seen["windows"]["windows"]] == ["plain app"]
    assert not seen["click"].is_error, seen["click"].content
    assert seen["status"]["node"]["text"] == "Pinged"
    # ... and cleaned up after itself.
    assert not any(m.pid == manifest.pid for m in _manifest.read_all(tmp_path / "home" / "sessions", clean=False))


def test_run_reports_a_missing_script_as_python_does(tmp_path: Path) -> None:
    code, out, err = run_to_end([sys.executable, "-m", "wpfprobe", "run", "no_such_app.py", "x"], tmp_path)
    assert code == 2
    assert out == ""
    assert "can't open file" in err and "no_such_app.py" in err


# -- launch and profiles -----------------------------------------------------------------


@contextlib.contextmanager
def reaped(pid: int) -> Any:
    """Kill a launched app's process group if the test leaves it running."""
    try:
        yield
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


def wait_gone(pid: int, timeout: float = DEADLINE) -> None:
    try:
        psutil.Process(pid).wait(timeout)
    except psutil.NoSuchProcess:
        pass


def test_launch_detaches_the_app_logs_its_output_and_returns_once_its_probe_listens(
    display: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WPFPROBE_HOME", str(tmp_path / "home"))
    control = tmp_path / "control"
    launched = launch([sys.executable, str(HERE / SCRIPT), str(control)], name="launched", timeout=DEADLINE)
    with reaped(launched.pid):
        assert launched.manifest.pid == launched.pid == launched.process.pid
        assert launched.manifest.app_name == "launched" and launched.manifest.tier == "read"
        assert os.getpgid(launched.pid) == launched.pid, "the app runs in a process group of its own"
        assert launched.log_path == tmp_path / "home" / "logs" / f"launched-{launched.pid}.log"
        windows = mcp(launched.manifest, lambda c: c.call_tool("wpf_get_windows", {}))
        assert windows.structured_content["windows"][0]["title"] == "plain app"
        control.write_text("exit 0", encoding="utf-8")
        assert launched.process.wait(DEADLINE) == 0
    log = launched.log_path.read_text(encoding="utf-8")
    assert "plain app: starting" in log and "plain app: a line on stderr" in log


def test_launch_fails_with_the_log_tail_when_the_app_exits_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WPFPROBE_HOME", str(tmp_path / "home"))
    with pytest.raises(AppNotAvailableError) as caught:
        launch([sys.executable, str(tmp_path / "missing_app.py")], timeout=DEADLINE)
    err = caught.value
    assert err.code == "APP_NOT_AVAILABLE"
    assert err.detail["exitCode"] == 2
    assert "can't open file" in err.detail["logTail"] and "can't open file" in err.message


def test_launch_stops_an_app_that_shows_no_ui_in_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WPFPROBE_HOME", str(tmp_path / "home"))
    script = tmp_path / "no_ui.py"
    script.write_text("import threading\nprint('waiting forever', flush=True)\nthreading.Event().wait()\n")
    started = time.monotonic()
    with pytest.raises(AppNotAvailableError) as caught:
        launch([str(script)], timeout=3)
    assert time.monotonic() - started < 30
    assert "did not show a UI within 3 s" in caught.value.message
    assert "waiting forever" in caught.value.detail["logTail"]
    pid = caught.value.detail["pid"]
    with reaped(pid):
        assert not psutil.pid_exists(pid), "the app must be stopped after a timeout"


def test_profiles_are_saved_listed_launched_and_removed_from_the_command_line(
    display: str | None, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    control = tmp_path / "control"

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "wpfprobe", *args], cwd=tmp_path, env=env_for(home),
            capture_output=True, text=True, timeout=DEADLINE,
        )  # fmt: skip

    added = cli("profiles", "add", "plain-app", "--allow", "interact", "--cwd", str(HERE), "--env", "PLAIN_SECRET=s3cr3t",
                "--", sys.executable, SCRIPT, str(control))  # fmt: skip
    assert added.returncode == 0, added.stderr
    listed = json.loads(cli("profiles", "list", "--json").stdout)
    # The script as it runs from anywhere: relative to the profile's --cwd, made absolute.
    assert listed == [{"name": "plain-app", "command": [sys.executable, str(HERE / SCRIPT), str(control)], "cwd": str(HERE),
                       "allow": "interact", "allowActions": [], "confirmDestructive": False,
                       "env": ["PLAIN_SECRET"]}]  # fmt: skip
    assert "s3cr3t" not in cli("profiles", "list").stdout
    again = cli("profiles", "add", "plain-app", "--", sys.executable, str(HERE / SCRIPT))
    assert again.returncode == 2 and "--replace" in again.stderr
    launched = cli("launch", "--profile", "plain-app", "--json")
    assert launched.returncode == 0, launched.stderr
    facts = json.loads(launched.stdout)
    with reaped(facts["pid"]):
        assert facts["appName"] == "plain-app" and facts["tier"] == "interact"
        # The id `wpfprobe ls` shows (it printed the probe's own, plain-app-<pid>, before).
        assert facts["appId"] == "plain-app" and facts["probeAppId"] == f"plain-app-{facts['pid']}"
        assert [a["appId"] for a in json.loads(cli("ls", "--json").stdout)] == ["plain-app"]
        assert facts["url"].startswith("http://127.0.0.1:")
        manifest = next(m for m in _manifest.read_all(home / "sessions") if m.pid == facts["pid"])
        assert manifest.token not in launched.stdout + launched.stderr
        control.write_text("exit 0", encoding="utf-8")
        wait_gone(facts["pid"])
    unknown = cli("launch", "--profile", "nope")
    assert unknown.returncode == 2 and "plain-app" in unknown.stderr
    assert cli("profiles", "remove", "plain-app").returncode == 0
    assert json.loads(cli("profiles", "list", "--json").stdout) == []


def test_an_app_an_agent_closes_through_a_tool_exits_promptly(display: str | None, tmp_path: Path) -> None:
    """Regression: clicking File > Exit over MCP closed the window but the process never exited.

    The MCP server's worker thread had posted to the UI thread itself, so it was
    known to Mono, whose shutdown waits for every such thread to end: it never
    did. The click also waited the full UI timeout for hops that could no longer run.
    """
    home = tmp_path / "home"
    example = Path(__file__).resolve().parents[2] / "examples" / "winforms_app.py"
    argv = [sys.executable, "-m", "wpfprobe", "run", "--allow", "interact", str(example)]
    proc = subprocess.Popen(
        argv, cwd=HERE, env=env_for(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        manifest = wait_for_manifest(home, proc.pid, lambda: proc.poll() is None)

        async def click_exit(client: Any) -> tuple[Any, float]:
            started = time.monotonic()
            answer = await client.call_tool("wpf_click", {"locator": "menu:File/Exit"})
            return answer, time.monotonic() - started

        answer, took = mcp(manifest, click_exit)
        # The UI is gone, so the hops that read the result cannot run: the call says so at once.
        assert answer.is_error and answer.structured_content["code"] == "APP_NOT_AVAILABLE", answer
        assert took < 3.0, f"the click waited {took:.1f} s for a UI thread that had ended"
        _out, err = proc.communicate(timeout=60)
    finally:
        stop(proc)
    assert proc.returncode == 0, err
    assert "Traceback" not in err, err
