"""``wpfprobe stop APP``, and ``wpfprobe run --port/--token-env``: an app ended and registered by hand.

The app is scripts/ending_app.py (a plain pythonnet app), under ``wpfprobe run``
or with ``wpfprobe.start`` in it; the CLI runs as a user would run it, in a
process of its own with the same WPFPROBE_HOME.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wpfprobe.mcp import manifest as _manifest

pytestmark = pytest.mark.timeout(600)  # each case starts a Mono app, on a machine other tests load too

APP = Path(__file__).parent / "scripts" / "ending_app.py"
DEADLINE = 120.0


class App:
    """ending_app.py in a process of its own; its stdout lines are read as they come."""

    def __init__(self, home: Path, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.home = home
        environment = {
            **os.environ, "WPFPROBE_HOME": str(home), "MONO_THREADS_SUSPEND": "preemptive",
            "PYTHONWARNINGS": "ignore:Hosting Mono versions:UserWarning", **(env or {}),
        }  # fmt: skip
        self.proc = subprocess.Popen(
            [sys.executable, *argv], env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.lines: list[str] = []

    def wait_for(self, prefix: str) -> str:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return line.rstrip("\n")
        raise AssertionError(f"the app ended (status {self.proc.wait(10)}) before {prefix!r}: {self.lines}")

    def manifest(self) -> _manifest.Manifest:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            for found in _manifest.read_all(self.home / "sessions", clean=False):
                if found.pid == self.proc.pid:
                    return found
            assert self.proc.poll() is None, "the app ended before its probe wrote a manifest"
            time.sleep(0.05)
        raise AssertionError("no manifest appeared")

    def end(self) -> tuple[int, list[str], str]:
        out, err = self.proc.communicate(timeout=DEADLINE)
        return self.proc.returncode, self.lines + out.splitlines(), err

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


@pytest.fixture
def apps(display: str | None) -> Iterator[list[App]]:
    started: list[App] = []
    yield started
    for app in started:
        app.kill()


def cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "WPFPROBE_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "wpfprobe", *args], env=env, capture_output=True, text=True, timeout=DEADLINE
    )


def manifests_left(home: Path) -> list[Path]:
    sessions = home / "sessions"
    return sorted(sessions.glob("*.json")) if sessions.is_dir() else []


def test_stop_closes_the_app_as_its_user_would(apps: list[App], tmp_path: Path) -> None:
    home = tmp_path / "home"
    app = App(home, ["-m", "wpfprobe", "run", str(APP), "--ui", "main"])
    apps.append(app)
    app.wait_for("UP ")
    app.manifest()
    stopped = cli(home, "stop", "ending_app")
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout.startswith("stopped ending-app (pid ") and ": closed" in stopped.stdout, stopped.stdout
    status, lines, err = app.end()
    # Closed, not killed: the app's own code after its UI loop ran, and it exited with its own status.
    assert status == 0, err
    assert "UI-ENDED" in " ".join(lines) and lines[-1] == "MAIN-ENDS", lines
    assert err.replace("Could not set X locale modifiers\n", "") == ""
    assert manifests_left(home) == []


@pytest.mark.parametrize("modal", ["box", "dialog"])
def test_stop_closes_an_app_with_a_modal_dialog_open(apps: list[App], tmp_path: Path, modal: str) -> None:
    """Mono's Application.Exit, called while a modal dialog runs its own message loop, closes every
    form, and that loop takes the quit message for itself: the app's Application.Run never
    returned, and its process stayed with no window until `stop` killed it (by SIGTERM after
    --timeout; Ctrl+C left it so for good). Now the modal dialogs are closed first (as their user
    would: they return Cancel) and the exit is asked for once their loops have ended."""
    home = tmp_path / "home"
    app = App(home, [str(APP), "--ui", "main", "--probe", "--modal", modal])
    apps.append(app)
    app.wait_for("MODAL-OPENS")
    app.manifest()
    stopped = cli(home, "stop", "--timeout", "30", "ending-app")
    assert stopped.returncode == 0, stopped.stderr
    assert ": closed" in stopped.stdout, stopped.stdout
    status, lines, err = app.end()
    assert status == 0, (lines, err)
    assert "MODAL-RETURNED Cancel" in lines and "MAIN-ENDS" in lines, lines
    assert manifests_left(home) == []


def test_stop_sends_sigterm_to_an_app_that_refuses_to_close(apps: list[App], tmp_path: Path) -> None:
    home = tmp_path / "home"
    app = App(home, [str(APP), "--ui", "thread", "--join", "--probe", "--refuse-close"])
    apps.append(app)
    app.wait_for("UP ")
    app.manifest()
    stopped = cli(home, "stop", "--timeout", "1")  # the only app running: APP may be left out
    assert stopped.returncode == 0, stopped.stderr
    assert ": did not close within 1 s: terminated" in stopped.stdout, stopped.stdout
    status, lines, _err = app.end()
    assert status == (-signal.SIGTERM if sys.platform != "win32" else 1), lines
    assert manifests_left(home) == []


def test_stop_without_such_an_app_says_so(tmp_path: Path) -> None:
    stopped = cli(tmp_path / "home", "stop", "no-such-app")
    assert stopped.returncode == 3, stopped
    assert "APP_NOT_AVAILABLE" in stopped.stderr
    assert cli(tmp_path / "home", "stop", "--timeout", "-1").returncode == 2


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_run_serves_on_the_port_and_token_given(apps: list[App], tmp_path: Path) -> None:
    home = tmp_path / "home"
    port = free_port()
    token = secrets.token_urlsafe(32)
    argv = ["-m", "wpfprobe", "run", "--port", str(port), "--token-env", "APP_PROBE_TOKEN", str(APP), "--ui", "main"]
    app = App(home, [*argv, "--show-env", "APP_PROBE_TOKEN"], env={"APP_PROBE_TOKEN": token})
    apps.append(app)
    # The token left the app's environment, so nothing it starts inherits it.
    assert app.wait_for("ENV ") == "ENV None"
    app.wait_for("UP ")
    manifest = app.manifest()
    assert manifest.url == f"http://127.0.0.1:{port}/mcp"
    assert manifest.token == token
    assert token not in " ".join(app.proc.args)  # type: ignore[arg-type]

    async def windows() -> Any:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client:
                return (await client.call_tool("wpf_get_windows", {})).structured_content

    assert [w["title"] for w in asyncio.run(windows())["windows"]] == ["ending app"]
    # The close request is the token holder's only: no token, a wrong one, a foreign Host, not POST.
    close = f"http://127.0.0.1:{port}/wpfprobe/close"
    assert http_status(close, None) == 401
    assert http_status(close, secrets.token_urlsafe(32)) == 401
    assert http_status(close, token, host="evil.example:80") == 421
    assert http_status(close, token, method="GET") == 405
    assert app.proc.poll() is None, "a refused close request closed the app"
    assert cli(home, "stop").returncode == 0
    assert app.end()[0] == 0


def http_status(url: str, token: str | None, *, method: str = "POST", host: str | None = None) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if host:
        headers["Host"] = host
    request = urllib.request.Request(url, data=b"" if method == "POST" else None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        refused.close()
        return refused.code


def test_run_refuses_a_short_token_or_a_missing_variable(tmp_path: Path) -> None:
    short = cli(tmp_path, "run", "--token", "too-short", str(APP))
    assert short.returncode == 2 and "at least 32 characters" in short.stderr
    missing = cli(tmp_path, "run", "--token-env", "NO_SUCH_VARIABLE_HERE", str(APP))
    assert missing.returncode == 2 and "NO_SUCH_VARIABLE_HERE" in missing.stderr
    assert cli(tmp_path, "run", "--port", "70000", str(APP)).returncode == 2
