"""``wpfprobe.start`` and ``stop`` in a process of their own: facts for test_mcp_security.py.

A test process may start the server only once, so what needs several starts
runs here: a second start while one runs, stop, a fresh start (a new token),
and the app's exit stopping the server. WPFPROBE_HOME must be set by the
caller. Prints one line, ``RESULT {json}``, and exits 0.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from example_app import load_example


def refuses(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=2):
            return False
    except OSError:
        return True


def describe(handle: Any) -> dict[str, Any]:
    path = handle.manifest_path
    return {
        "token": handle.token,
        "url": handle.url,
        "appId": handle.app_id,
        "manifest": str(path),
        "manifestExists": path.exists(),
        "manifestMode": stat.S_IMODE(path.stat().st_mode),
        "dirMode": stat.S_IMODE(path.parent.stat().st_mode),
        "manifestToken": json.loads(path.read_text(encoding="utf-8"))["token"],
    }


def main() -> int:
    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.testing import virtual_display

    wpfprobe_clr.ensure_clr()
    facts: dict[str, Any] = {}
    with virtual_display():
        example = load_example()
        app = example.start_in_background()
        try:
            first = wpfprobe.start(app.app, name="start-stop")
            facts["first"] = describe(first)
            try:
                wpfprobe.start(app.app, name="start-stop")
                facts["secondStart"] = "started"
            except wpfprobe.ProbeError as exc:
                facts["secondStart"] = exc.code
            first.stop()
            first.stop()  # twice is fine
            facts["firstStopped"] = {
                "running": first.running,
                "manifestExists": Path(facts["first"]["manifest"]).exists(),
                "urlRefused": refuses(first.url),
            }
            facts["probeThreadsAfterStop"] = sorted(
                t.name for t in threading.enumerate() if t.name.startswith("wpfprobe")
            )
            again = wpfprobe.start(app.app, name="start-stop")
            facts["again"] = describe(again)
        finally:
            app.close()
        # The app's exit stops the server by itself.
        deadline = time.monotonic() + 10
        while again.running and time.monotonic() < deadline:
            time.sleep(0.02)
        facts["afterAppExit"] = {
            "running": again.running,
            "manifestExists": Path(facts["again"]["manifest"]).exists(),
            "urlRefused": refuses(again.url),
        }
        sessions = Path(os.environ["WPFPROBE_HOME"]) / "sessions"
        facts["sessionsLeft"] = sorted(p.name for p in sessions.iterdir()) if sessions.is_dir() else []
    print("RESULT " + json.dumps(facts), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
