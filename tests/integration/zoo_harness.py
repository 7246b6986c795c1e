"""Running scripts/zoo_app.py (WinForms controls written in Python) in a process of its own.

``Zoo`` starts it with the probe mode and CLR loading a test asks for, talks to
its MCP server with the official SDK client (one session for many calls), and
at the end collects the facts the app recorded (clicks, exceptions that reached
its message loop, secret getters run) and its stderr. ``run_driver`` runs a
function of a test module inside the app, against ``wpfprobe.attach()``: the
Python API used from inside the app, as a notebook would.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
SCRIPT = HERE / "scripts" / "zoo_app.py"
DEADLINE = 120.0


def zoo_env(home: Path, **changes: str | None) -> dict[str, str]:
    """The environment of a zoo process: this one's (its display included), a private WPFPROBE_HOME,
    Mono's safe thread-suspend mode (DESIGN.md: the default one deadlocks pythonnet calls from
    several threads during a garbage collection, and the zoo collects garbage on purpose), and
    ``changes`` (None removes a variable)."""
    env = {**os.environ, "WPFPROBE_HOME": str(home), "MONO_THREADS_SUSPEND": "preemptive"}
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


class Zoo:
    """One zoo process serving MCP (``--probe start`` or ``start-form``)."""

    def __init__(self, home: Path, *args: str, env: dict[str, str] | None = None) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self.stderr_path = home / "stderr.txt"
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), *args],
            env=env or zoo_env(home),
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr_path.open("w"),
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(10)
            raise AssertionError(f"the zoo did not start:\n{self.stderr[-3000:]}")
        started = json.loads(line)
        self.url, self.token = started["url"], started["token"]
        self.facts: dict[str, Any] | None = None

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def session(self, body: Callable[[Any], Awaitable[Any]], deadline: float = DEADLINE) -> Any:
        """``await body(client)`` in one MCP session."""
        return mcp_session(self.url, self.token, body, deadline)

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The structured content of one successful call, in a session of its own."""
        return self.session(lambda client: ok(client, tool, **arguments))  # type: ignore[no-any-return]

    def close(self) -> dict[str, Any]:
        """Stop the app; the facts it recorded."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write("close\n")
            self.proc.stdin.flush()
            rest = self.proc.stdout.read()
            self.proc.wait(30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
        self.facts = last_facts(rest)
        return self.facts


def mcp_session(url: str, token: str, body: Callable[[Any], Awaitable[Any]], deadline: float = DEADLINE) -> Any:
    """``await body(client)`` in one session of the official SDK client, with the bearer token."""

    async def converse() -> Any:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                return await body(client)

    return asyncio.run(asyncio.wait_for(converse(), deadline))


async def ok(client: Any, tool: str, **arguments: Any) -> dict[str, Any]:
    """The structured content of a successful call (fails the test on a tool error)."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, f"{tool} {arguments} failed: {result.structured_content or result.content}"
    return result.structured_content  # type: ignore[no-any-return]


def last_facts(stdout: str) -> dict[str, Any]:
    for line in reversed(stdout.splitlines()):
        if line.startswith("{") and '"facts"' in line:
            return json.loads(line)["facts"]  # type: ignore[no-any-return]
    raise AssertionError(f"the zoo reported no facts:\n{stdout[-2000:]}")


def run_driver(home: Path, function: Callable[..., Any], *args: str, env: dict[str, str] | None = None) -> Any:
    """Run ``function(probe, facts, collect)`` of a test module inside a zoo (``--probe attach``).

    Returns (its result, the app's facts, the app's stderr).
    """
    home.mkdir(parents=True, exist_ok=True)
    module = sys.modules[function.__module__]
    driver = f"{module.__file__}::{function.__name__}"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--probe", "attach", "--driver", driver, *args],
        env=env or zoo_env(home),
        capture_output=True,
        text=True,
        timeout=DEADLINE * 3,
    )
    lines = [json.loads(x) for x in done.stdout.splitlines() if x.startswith("{")]
    results = [x["result"] for x in lines if "result" in x]
    assert done.returncode == 0 and results, f"the driver failed ({done.returncode}):\n{done.stderr[-4000:]}"
    return results[0], last_facts(done.stdout), done.stderr


def nodes(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """Every node of a visual tree result, depth first."""
    found = []
    stack = [tree]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(node.get("children") or []))
    return found


def by_name(tree: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n["name"]: n for n in nodes(tree) if n.get("name")}
