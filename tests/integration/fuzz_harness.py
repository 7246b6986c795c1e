"""scripts/fuzz_app.py in a process of its own: start it, talk to it, hear everything it prints.

``FuzzApp`` starts the app with a fresh secret, reads the one line it prints
when it serves, and keeps reading its stdout and stderr on threads of their
own: every other line is something the app printed, which the tests and the
fuzzer assert never happens. ``session`` opens the official SDK client over
HTTP with the bearer token. Used by test_hostile_input.py, test_fuzz_mcp.py
and benchmarks/fuzz_mcp.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SCRIPT = HERE / "scripts" / "fuzz_app.py"


class FuzzApp:
    """One fuzz app process serving MCP at ``allow`` (mutate by default: every tool listed)."""

    def __init__(self, home: Path, *, allow: str = "mutate", start_timeout: float = 120.0) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.secret = "fz-" + secrets.token_urlsafe(18)
        env = {**os.environ, "WPFPROBE_HOME": str(home), "MONO_THREADS_SUSPEND": "preemptive"}
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), "--secret", self.secret, "--allow", allow],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        self.printed: list[str] = []  # every line the app printed once it served, not its own protocol
        self.startup_output: list[str] = []
        self.facts: dict[str, Any] | None = None
        self._started = threading.Event()
        self._lock = threading.Lock()
        self.url = self.token = ""
        self.pid = self.proc.pid
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        if not self._started.wait(start_timeout) or not self.url:
            self.kill()
            raise AssertionError(f"the fuzz app did not start:\n{self.output()[-4000:]}")

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            parsed = _json_line(line)
            if parsed is not None and "url" in parsed and not self.url:
                self.url, self.token = parsed["url"], parsed["token"]
                with self._lock:
                    # Mono's own start-up, before the probe serves: now and then, on a loaded machine,
                    # its X11 keyboard set-up prints "Could not set X locale modifiers". Kept apart:
                    # the tests judge what the app prints once clients talk to it.
                    self.startup_output, self.printed[:] = list(self.printed), []
                self._started.set()
            elif parsed is not None and "facts" in parsed:
                self.facts = parsed["facts"]
            else:
                with self._lock:
                    self.printed.append("stdout: " + line.rstrip("\n"))
        self._started.set()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._lock:
                self.printed.append("stderr: " + line.rstrip("\n"))

    def output(self) -> str:
        with self._lock:
            return "\n".join(self.printed)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def session(self, body: Callable[[Any], Awaitable[Any]], deadline: float = 600.0) -> Any:
        return asyncio.run(asyncio.wait_for(self.converse(body), deadline))

    async def converse(self, body: Callable[[Any], Awaitable[Any]]) -> Any:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {self.token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=120) as http:
            async with Client(streamable_http_client(self.url, http_client=http)) as client:
                return await body(client)

    def close(self, timeout: float = 60.0) -> dict[str, Any] | None:
        """Ask the app to end; its facts (None when it had ended without them)."""
        if self.alive():
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.write("close\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                pass
        deadline = time.monotonic() + timeout
        while self.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        if self.alive():
            self.kill()
        return self.facts

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)


def _json_line(line: str) -> dict[str, Any] | None:
    if not line.startswith("{"):
        return None
    try:
        parsed = json.loads(line)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None
