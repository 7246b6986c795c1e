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
