"""The server's life follows the app's: one per process, gone with the UI thread."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "lifecycle_app.py"


def _event(proc: subprocess.Popen[str], name: str) -> dict[str, Any]:
    assert proc.stdout is not None
    for line in proc.stdout:
        event = json.loads(line)
        if event.get("event") == name:
            return event  # type: ignore[no-any-return]
    raise AssertionError(f"the app ended without reporting {name!r}")


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
    proc = subprocess.Popen(
        [sys.executable, str(SCRIPT)], env=env, text=True,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        second = _event(proc, "second-start")
        assert second["code"] == "INVALID_ARGUMENT" and "already" in second["message"]
        started = _event(proc, "started")
        manifest = Path(started["manifest"])
        assert manifest.parent == tmp_path / "sessions" and manifest.exists()
        assert _post_initialize(started["url"], started["token"]) == 200
        assert proc.stdin is not None
        proc.stdin.write("close\n")
        proc.stdin.flush()
        closed = _event(proc, "closed")
        assert closed["running"] is False, "the server must stop when the UI thread ends"
        assert closed["manifest_exists"] is False
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            _post_initialize(started["url"], started["token"])
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
