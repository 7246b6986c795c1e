"""What abandoned MCP sessions cost an app: its RSS after N initializes that are never deleted.

    python benchmarks/bench_sessions.py [--sessions 3000] [--json PATH]

Starts the example app (examples/winforms_app.py) with ``wpfprobe.start()`` in a
process of its own (its own Xvfb), opens one session and calls a tool (the warm-up),
then sends N ``initialize`` requests over raw HTTP and never deletes the sessions,
as a client that crashes or forgets would. Reports the app's RSS after the warm-up
and after the N sessions, the growth per session, and how many of the N sessions
still answer (the rest were evicted). Measures the checkout it is in (its ``src/``
first on the child's path). Exit status 0, or 2 if the app did not start. Nothing is
asserted. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}


def app() -> None:
    """The child: the example app with the probe, until stdin closes."""
    import importlib.util

    import wpfprobe
    import wpfprobe_clr
    from wpfprobe.testing import virtual_display

    with virtual_display():
        wpfprobe_clr.ensure_clr()
        spec = importlib.util.spec_from_file_location("winforms_app", ROOT / "examples" / "winforms_app.py")
        assert spec is not None and spec.loader is not None
        example = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(example)
        running = example.start_in_background()
        handle = wpfprobe.start(running.app, name="bench-sessions")
        print(json.dumps({"url": handle.url, "token": handle.token, "pid": os.getpid()}), flush=True)
        try:
            sys.stdin.read()
        finally:
            handle.stop()
            running.close()


def post(conn: http.client.HTTPConnection, netloc: str, token: str, body: dict[str, Any], session: str = "") -> Any:
    headers = {
        "Host": netloc,
        "Authorization": f"Bearer {token}",
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    if session:
        headers |= {"Mcp-Session-Id": session, "Mcp-Protocol-Version": "2025-06-18"}
    conn.request("POST", "/mcp", body=json.dumps(body).encode(), headers=headers)
    response = conn.getresponse()
    response.read()
    return response


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_sessions", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=3000)
    parser.add_argument("--json", default=str(ROOT / "artifacts" / "bench_sessions.json"))
    parser.add_argument("--app", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.app:
        app()
        return 0
    import psutil

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    env.pop("DISPLAY", None)
    child = subprocess.Popen(
        [sys.executable, __file__, "--app"], env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        if not line:
            print("the app did not start", file=sys.stderr)
            return 2
        started = json.loads(line)
        url = urlsplit(started["url"])
        proc = psutil.Process(started["pid"])
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        first = post(conn, url.netloc, started["token"], INIT)
        session = first.getheader("mcp-session-id") or ""
        post(conn, url.netloc, started["token"], {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "wpf_get_windows"}}
        post(conn, url.netloc, started["token"], call, session)
        time.sleep(1.0)  # let the warm-up's allocations settle before the baseline
        before = proc.memory_info().rss
        started_at = time.perf_counter()
        sessions = []
        for _ in range(args.sessions):
            sessions.append(post(conn, url.netloc, started["token"], INIT).getheader("mcp-session-id") or "")
        took = time.perf_counter() - started_at
        time.sleep(1.0)
        after = proc.memory_info().rss
        ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
        alive = sum(1 for s in sessions if post(conn, url.netloc, started["token"], ping, s).status == 200)
        conn.close()
        result = {
            "sessions": args.sessions,
            "rssBeforeMiB": round(before / 2**20, 1),
            "rssAfterMiB": round(after / 2**20, 1),
            "growthKiBPerSession": round((after - before) / 1024 / args.sessions, 1),
            "stillAnswering": alive,
            "initializeSeconds": round(took, 2),
        }
        print(json.dumps(result, indent=1))
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        return 0
    finally:
        if child.stdin is not None:
            child.stdin.close()
        try:
            child.wait(30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(10)


if __name__ == "__main__":
    sys.exit(main())
