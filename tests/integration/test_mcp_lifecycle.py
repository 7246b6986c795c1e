"""The server's life follows the app's: one per process, gone with the UI thread."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

SCRIPTS = Path(__file__).parent / "scripts"
SCRIPT = SCRIPTS / "lifecycle_app.py"
DEADLINE = 60.0
"""Seconds any one wait may take on a loaded machine before a case fails."""


def _event(proc: subprocess.Popen[str], name: str, stderr: Path) -> dict[str, Any]:
    assert proc.stdout is not None
    for line in proc.stdout:
        event = json.loads(line)
        if event.get("event") == name:
            return event  # type: ignore[no-any-return]
    proc.wait(10)
    raise AssertionError(
        f"the app ended (code {proc.returncode}) without reporting {name!r}:\n{stderr.read_text()[-3000:]}"
    )


def _post_initialize(url: str, token: str) -> int:
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    ).encode()  # fmt: skip
    request = urllib.request.Request(
        url, data=body, method="POST",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json",
                 "Accept": "application/json, text/event-stream"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=10) as response:
        return int(response.status)


@pytest.mark.toolkit("winforms")
def test_server_stops_and_cleans_up_when_the_app_closes(tmp_path: Path) -> None:
    env = {**os.environ, "WPFPROBE_HOME": str(tmp_path)}
    env.pop("DISPLAY", None)
    errors = tmp_path / "stderr.txt"
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT)], env=env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors.open("w"),
    )  # fmt: skip
    try:
        second = _event(proc, "second-start", errors)
        assert second["code"] == "INVALID_ARGUMENT" and "already" in second["message"]
        started = _event(proc, "started", errors)
        manifest = Path(started["manifest"])
        assert manifest.parent == tmp_path / "sessions" and manifest.exists()
        assert _post_initialize(started["url"], started["token"]) == 200
        assert proc.stdin is not None
        proc.stdin.write("close\n")
        proc.stdin.flush()
        closed = _event(proc, "closed", errors)
        assert closed["running"] is False, "the server must stop when the UI thread ends"
        assert closed["manifest_exists"] is False
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            _post_initialize(started["url"], started["token"])
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def _line(proc: subprocess.Popen[str], prefix: str, seen: list[str]) -> str:
    assert proc.stdout is not None
    for line in proc.stdout:
        seen.append(line.rstrip("\n"))
        if line.startswith(prefix):
            return line[len(prefix) :].strip()
    raise AssertionError(f"the app ended (code {proc.wait(10)}) before printing {prefix!r}: {seen}")


async def _click(url: str, token: str, locator: str) -> Any:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=DEADLINE) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            return await client.call_tool("wpf_click", {"locator": locator})


@pytest.mark.toolkit("winforms")
def test_stop_in_a_click_handler_a_client_ran_answers_the_click_and_leaves_no_thread(
    tmp_path: Path, display: str | None
) -> None:
    """An app whose button handler calls ``handle.stop()``, the button clicked by a client: the
    stop runs on the UI thread while the click's call waits for that thread, and the server's
    shutdown waited for the call (uvicorn's graceful two seconds, the UI frozen), then cut it
    off (the client got a bare JSON-RPC -32603 error), and the call, going on after the stop,
    started a new poster thread that stayed in the app for good. Now the calls waiting for the
    UI thread fail at once when the stop runs on it, and a stopped probe's engine posts nothing."""
    env = {
        **os.environ, "WPFPROBE_HOME": str(tmp_path), "MONO_THREADS_SUSPEND": "preemptive",
        "PYTHONWARNINGS": "ignore:Hosting Mono versions:UserWarning",
    }  # fmt: skip
    errors = tmp_path / "stderr.txt"
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPTS / "stop_in_handler_app.py")], env=env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors.open("w"),
    )  # fmt: skip
    seen: list[str] = []
    try:
        url, token = _line(proc, "STARTED ", seen).split()
        answer = asyncio.run(_click(url, token, "#stopButton"))
        assert answer.is_error, answer
        assert answer.structured_content["code"] == "APP_NOT_AVAILABLE", answer.structured_content
        stopped = json.loads(_line(proc, "STOPPED ", seen))
        assert stopped["running"] is False, stopped
        assert proc.stdin is not None
        deadline = time.monotonic() + DEADLINE
        while True:  # the click's call ends after the stop; then nothing of the probe's may be left
            proc.stdin.write("threads\n")
            proc.stdin.flush()
            left = [name for name in json.loads(_line(proc, "THREADS ", seen)) if name.startswith("wpfprobe")]
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert left == [], f"threads of the stopped probe left in the app: {left}"
        proc.stdin.write("close\n")
        proc.stdin.flush()
        _line(proc, "UI-ENDED", seen)
        assert proc.wait(DEADLINE) == 0
        assert [line for line in errors.read_text().splitlines() if line != "Could not set X locale modifiers"] == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
