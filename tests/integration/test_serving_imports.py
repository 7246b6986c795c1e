"""An app served over HTTP never imports the MCP SDK, whatever its clients speak (issue 22).

The SDK (``mcp``, ``mcp_types``, and starlette/sse-starlette that only it uses) costs an app
~0.5 s and ~33 MiB at start. Both eras are served by the SDK-free kernel: the 2026-07-28 era
by httpserve.py, the handshake era (sessions, event streams) by handshake.py. So neither the
clients that speak 2026 (the Python SDK's Client in auto mode, wpfprobe's ProbeClient, raw
requests) nor a handshake client (an Inspector, Claude Code, a raw initialize) bring it in.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from test_mcp_golden import exchange, modern_headers, modern_request
from wire_harness import WireApp

SDK_MODULES = ["mcp", "mcp_types", "sse_starlette", "starlette"]


@pytest.fixture
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WireApp]:
    app = WireApp(tmp_path_factory.mktemp("imports"))
    try:
        yield app
    finally:
        app.close()


def test_no_client_of_either_era_makes_the_app_import_the_sdk(fresh: WireApp, monkeypatch: pytest.MonkeyPatch) -> None:
    before = fresh.printed()
    raw = exchange(fresh, body=modern_request(1, "server/discover"), headers=modern_headers("server/discover"))
    assert raw["status"] == 200, raw
    # Served, so the server is made: whatever its making imports is in by now.
    assert fresh.ask("modules") == {"modules": []}, "imported at start"
    listed = exchange(fresh, body=modern_request(2, "tools/list"), headers=modern_headers("tools/list"))
    assert listed["status"] == 200 and listed["messages"][0]["result"]["tools"], listed

    async def era_and_call(client: Any) -> tuple[str, bool]:
        result = await client.call_tool("wpf_get_windows", {})
        return client.protocol_version, bool(result.is_error)

    assert fresh.session(era_and_call) == ("2026-07-28", False)

    from wpfprobe.mcp import manifest as manifests
    from wpfprobe.mcp.client import ProbeClient

    monkeypatch.setenv("WPFPROBE_HOME", str(fresh.stderr_path.parent))
    # The manifest is written once the start-up is over (the walk compiled), after the first answers.
    deadline = time.monotonic() + 120
    while not (found := [m for m in manifests.read_all() if m.url == fresh.url]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert len(found) == 1, found

    async def probe_client() -> str:
        async with ProbeClient(found[0]) as client:
            await client.call_tool("wpf_get_session_info", {})
            return str(client.session.protocol_version)

    assert asyncio.run(asyncio.wait_for(probe_client(), 60)) == "2026-07-28"
    assert fresh.ask("modules") == {"modules": []}, "a 2026 client made the app import the SDK"

    session, result = fresh.initialize()
    assert result["serverInfo"]["name"] == "wpfprobe"
    assert fresh.rpc(session, "tools/list")["result"]["tools"]
    called = fresh.rpc(session, "tools/call", {"name": "wpf_get_windows", "arguments": {}})
    assert not called["result"].get("isError"), called

    async def legacy_call(client: Any) -> tuple[str, bool]:
        result = await client.call_tool("wpf_get_windows", {})
        return client.protocol_version, bool(result.is_error)

    assert fresh.session(legacy_call, mode="legacy") == ("2025-11-25", False)
    assert fresh.ask("modules") == {"modules": []}, "a handshake client made the app import the SDK"
    assert fresh.printed() == before, fresh.printed()[len(before) :]
