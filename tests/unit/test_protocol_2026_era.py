"""The SDK-free kernel at the 2026-07-28 era, as the SDK's stdio kernel answers the same messages:
discover, result stamps, the method table, the envelope, listen streams, errors, progress and
cancellation (drivers: kernel_twin.py)."""

from __future__ import annotations

import asyncio

import pytest
from kernel_twin import (
    DEADLINE,
    ENVELOPE,
    TOOLS,
    V2026,
    Message,
    Wire,
    both,
    catalog_of,
    modern,
    note,
    request,
)

from wpfprobe.core.version import __version__
from wpfprobe.mcp.catalog import INSTRUCTIONS

# --- the 2026-07-28 era -------------------------------------------------------------------------------


def test_discover_advertises_the_gate_and_the_cache_hints() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "server/discover"))

    [answer] = both(script)
    assert answer["result"] == {
        "supportedVersions": [V2026],
        "capabilities": {"tools": {"listChanged": True}, "extensions": {"dev.wpfprobe/gate": {"tier": "read"}}},
        "instructions": INSTRUCTIONS,
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "wpfprobe", "version": __version__}},
    }


def test_2026_results_carry_result_type_and_the_server_info_stamp() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "tools/list"))
        await wire.call(modern(2, "tools/call", {"name": "echo", "arguments": {"value": "v"}}))

    listed, called = both(script, reference="catalog")
    stamp = {"io.modelcontextprotocol/serverInfo": {"name": "wpfprobe", "version": __version__}}
    assert listed["result"] == {
        "tools": TOOLS,
        "ttlMs": 0,
        "cacheScope": "private",
        "resultType": "complete",
        "_meta": stamp,
    }
    assert called["result"]["resultType"] == "complete" and called["result"]["_meta"] == stamp


@pytest.mark.parametrize("method", ["ping", "logging/setLevel", "resources/subscribe", "nope"])
def test_methods_the_2026_table_lacks_are_not_found(method: str) -> None:
    params: Message | None = {"logging/setLevel": {"level": "debug"}, "resources/subscribe": {"uri": "x"}}.get(method)

    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "server/discover"))
        await wire.call(modern(2, method, params))

    assert both(script)[-1]["error"] == {"code": -32601, "message": "Method not found", "data": method}


@pytest.mark.parametrize(
    "meta",
    [
        {"io.modelcontextprotocol/clientCapabilities": {}},  # no version: no envelope, a handshake opening
        {"io.modelcontextprotocol/protocolVersion": V2026},
        {"io.modelcontextprotocol/protocolVersion": "2030-01-01", "io.modelcontextprotocol/clientCapabilities": {}},
        {"io.modelcontextprotocol/protocolVersion": 5, "io.modelcontextprotocol/clientCapabilities": {}},
        {**ENVELOPE, "io.modelcontextprotocol/clientCapabilities": {"roots": 5}},
        {**ENVELOPE, "io.modelcontextprotocol/clientInfo": {"name": "t"}},
        {**ENVELOPE, "io.modelcontextprotocol/logLevel": "loud"},
    ],
)
def test_the_envelope_ladder_on_a_2026_stdio_connection(meta: Message) -> None:
    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "server/discover"))
        await wire.call(request(2, "tools/list", {"_meta": meta}))

    answer = both(script)[-1]
    assert "error" in answer


def test_listen_acknowledges_then_forwards_list_changed_until_cancelled() -> None:
    async def script(wire: Wire) -> None:
        filters = {"toolsListChanged": True, "promptsListChanged": False, "resourceSubscriptions": ["a"]}
        await wire.post(modern("L", "subscriptions/listen", {"notifications": filters}))
        await wire.next()
        catalog_of(wire).change()
        await wire.next()
        await wire.post(note("notifications/cancelled", {"requestId": "L"}))
        await wire.call(modern(2, "tools/list"))

    transcript = both(script)
    subscription = {"io.modelcontextprotocol/subscriptionId": "L"}
    assert transcript[0] == note(
        "notifications/subscriptions/acknowledged",
        {"notifications": {"toolsListChanged": True, "resourceSubscriptions": ["a"]}, "_meta": subscription},
    )
    assert transcript[1] == note("notifications/tools/list_changed", {"_meta": subscription})
    assert transcript[2]["id"] == 2


def test_a_handler_exception_is_internal_error_in_2026() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(modern(1, "tools/call", {"name": "boom"}))

    assert both(script, reference="catalog")[-1]["error"] == {"code": -32603, "message": "Internal server error"}


def test_progress_and_cancellation_in_2026() -> None:
    async def script(wire: Wire) -> None:
        catalog = catalog_of(wire)
        await wire.call(modern(1, "tools/call", {"name": "tick"}, progressToken=5))
        await wire.post(modern(2, "tools/call", {"name": "slow"}))
        await asyncio.wait_for(catalog.started.wait(), DEADLINE)
        await wire.post(note("notifications/cancelled", {"requestId": 2}))
        await asyncio.wait_for(catalog.cancelled.wait(), DEADLINE)
        await wire.call(modern(3, "tools/list"))

    transcript = both(script, reference="catalog")
    assert [m.get("id", m.get("method")) for m in transcript] == ["notifications/progress"] * 2 + [1, 3]
