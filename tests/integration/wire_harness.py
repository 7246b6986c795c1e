"""Running scripts/wire_app.py (the example app at the interact tier with custom tools, no
logging configured) in a process of its own, and talking to its server: raw HTTP where the
exact bytes matter, the official SDK client elsewhere. ``printed()`` is the app's stderr.
test_mcp_wire.py and test_mcp_conformance.py use it.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

SCRIPT = Path(__file__).parent / "scripts" / "wire_app.py"
HANDSHAKE = "2025-06-18"


class Reply:
    def __init__(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def messages(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages in the body, whether plain JSON or server-sent events."""
        text = self.body.decode("utf-8", "replace")
        if "text/event-stream" in (self.header("content-type") or ""):
            return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]
        return [json.loads(text)] if text.strip() else []

    def __repr__(self) -> str:
        return f"<{self.status} {self.body[:300]!r}>"


class WireApp:
    def __init__(self, home: Path, *, tier: str = "interact") -> None:
        env = {**os.environ, "WPFPROBE_HOME": str(home)}
        env.pop("DISPLAY", None)
        for variable in ("WPFPROBE_LOG_LEVEL", "WPFPROBE_LOG_FILE"):
            env.pop(variable, None)
        self.stderr_path = home / "stderr.txt"
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), tier], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr_path.open("w"),
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(10)
            raise AssertionError(f"the app did not start:\n{self.stderr_path.read_text()[-3000:]}")
        self.started = json.loads(line)
        self.url: str = self.started["url"]
        self.token: str = self.started["token"]
        parts = urlsplit(self.url)
        self.host, self.port, self.path = parts.hostname or "127.0.0.1", int(parts.port or 0), parts.path
        self.netloc = parts.netloc

    def printed(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    # -- raw HTTP --

    def send(
        self,
        method: str = "POST",
        *,
        path: str | None = None,
        body: Any = None,
        headers: dict[str, str] | None = None,
        session: str | None = None,
    ) -> Reply:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=20)
        try:
            all_headers = {
                "Host": self.netloc,
                "Authorization": f"Bearer {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
            }
            if session is not None:
                all_headers["Mcp-Session-Id"] = session
                all_headers["Mcp-Protocol-Version"] = HANDSHAKE
            all_headers.update(headers or {})
            payload = json.dumps(body).encode() if body is not None else None
            conn.request(method, path or self.path, body=payload, headers=all_headers)
            response = conn.getresponse()
            if method == "GET" and response.status == 200:
                # A standalone event stream stays open: its headers are the answer.
                return Reply(response.status, response.getheaders(), b"")
            return Reply(response.status, response.getheaders(), response.read())
        finally:
            conn.close()

    def initialize(self, version: str = HANDSHAKE) -> tuple[str, dict[str, Any]]:
        reply = self.send(body=initialize_body(version))
        assert reply.status == 200, reply
        session = reply.header("mcp-session-id")
        assert session, reply
        done = self.send(body={"jsonrpc": "2.0", "method": "notifications/initialized"}, session=session)
        assert done.status == 202, done
        return session, reply.messages()[0]["result"]

    def rpc(self, session: str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": method}
        if params is not None:
            body["params"] = params
        reply = self.send(body=body, session=session)
        messages = [m for m in reply.messages() if m.get("id") == 7]
        assert len(messages) == 1, reply
        return messages[0]

    # -- the SDK client --

    def session(self, body: Any, *, mode: str = "auto", deadline: float = 60.0) -> Any:
        async def converse() -> Any:
            import httpx2
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": f"Bearer {self.token}"}
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
                async with Client(streamable_http_client(self.url, http_client=http), mode=mode) as client:
                    return await body(client)

        return asyncio.run(asyncio.wait_for(converse(), deadline))

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        return self.session(lambda c: c.call_tool(tool, arguments))

    def command(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def ask(self, text: str) -> Any:
        """A stdin command's JSON answer line."""
        self.command(text)
        assert self.proc.stdout is not None
        return json.loads(self.proc.stdout.readline())

    def close(self) -> None:
        try:
            self.command("close")
            self.proc.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            pass
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)


def initialize_body(version: str = HANDSHAKE) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
