"""The SDK-free kernel at the handshake era (2024-11-05 ... 2025-11-25), as the SDK's stdio kernel
answers the same messages: initialize and its gate, unknown methods, params, results, errors,
progress, concurrency and cancellation, list_changed (drivers: kernel_twin.py)."""

from __future__ import annotations

import asyncio

import pytest
from kernel_twin import (
    DEADLINE,
    INIT,
    TOOLS,
    Message,
    Wire,
    both,
    catalog_of,
    handshake,
    note,
    request,
)

from wpfprobe.core.version import __version__
from wpfprobe.mcp.catalog import INSTRUCTIONS

# --- the handshake era ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2030-01-01", "x"])
def test_initialize_echoes_a_handshake_version_and_answers_others_with_the_latest(version: str) -> None:
    async def script(wire: Wire) -> None:
        await wire.call(request(1, "initialize", {**INIT["params"], "protocolVersion": version}))

    [answer] = both(script)
    expected = version if version.startswith(("2024", "2025")) else "2025-11-25"
    assert answer["result"] == {
        "protocolVersion": expected,
        "capabilities": {"tools": {"listChanged": True}},
        "serverInfo": {"name": "wpfprobe", "version": __version__},
        "instructions": INSTRUCTIONS,
    }


def test_served_methods_other_than_ping_wait_for_initialize() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(request(1, "ping"))
        await wire.call(request(2, "tools/list"))
        await wire.call(request(3, "tools/call", {"name": "echo"}))
        await wire.call(INIT)
        await wire.call(request(4, "tools/list"))  # before notifications/initialized: the answer opened the gate

    ping, listed, called, _, after = both(script)
    assert ping["result"] == {}
    gated = {"code": -32602, "message": "Invalid request parameters", "data": ""}
    assert listed["error"] == gated and called["error"] == gated
    assert "tools" in after["result"]


def test_a_request_pipelined_behind_initialize_sees_the_gate_open() -> None:
    async def script(wire: Wire) -> None:
        await wire.post(INIT)  # not waited for: the next request follows at once
        await wire.post(request(1, "tools/list"))
        await wire.answer(1)

    transcript = both(script)
    assert [m["id"] for m in transcript] == [0, 1] and "result" in transcript[1]


@pytest.mark.parametrize(
    "method",
    [
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "completion/complete",
        "nope/nothing",
        "logging/setLevel",
        "server/discover",
        "subscriptions/listen",
    ],
)
def test_a_method_not_served_is_not_found_with_its_name_as_data(method: str) -> None:
    served_shape: dict[str, Message] = {
        "completion/complete": {"ref": {"type": "ref/prompt", "name": "p"}, "argument": {"name": "a", "value": "b"}},
        "logging/setLevel": {"level": "debug"},
        "subscriptions/listen": {"notifications": {}},
    }
    params = served_shape.get(method)

    async def script(wire: Wire) -> None:
        await wire.call(request(1, method, params))  # before initialize too
        await handshake(wire)
        await wire.call(request(2, method, params))

    before, _, after = both(script)
    assert before["error"] == after["error"] == {"code": -32601, "message": "Method not found", "data": method}


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tools/list", {"cursor": 5}),
        ("tools/list", {"_meta": []}),
        ("tools/list", {"_meta": {"progressToken": 1.5}}),
        ("tools/call", None),
        ("tools/call", {}),
        ("tools/call", {"name": 5}),
        ("tools/call", {"name": "echo", "arguments": [1]}),
        ("tools/call", {"name": "echo", "task": {"ttl": "x"}}),
        ("ping", {"_meta": 3}),
        ("prompts/get", {}),  # a spec method we do not serve: its params are judged first
        ("resources/read", {"uri": 1}),
        ("logging/setLevel", {"level": "loud"}),
    ],
)
def test_params_the_schema_refuses_are_invalid_params_with_empty_data(method: str, params: Message | None) -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.call(request(1, method, params))

    answer = both(script)[-1]
    assert answer["error"] == {"code": -32602, "message": "Invalid request parameters", "data": ""}


@pytest.mark.parametrize(
    "params",
    [
        {"protocolVersion": "2025-06-18", "capabilities": {}},
        {"protocolVersion": 5, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        {"protocolVersion": "2025-06-18", "capabilities": {"roots": 5}, "clientInfo": {"name": "t", "version": "1"}},
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {"experimental": {"a": 1}},
            "clientInfo": {"name": "t", "version": "1"},
        },
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1", "icons": [{}]},
        },
    ],
)
def test_a_malformed_initialize_is_invalid_params_and_opens_nothing(params: Message) -> None:
    async def script(wire: Wire) -> None:
        await wire.call(request(1, "initialize", params))
        await wire.call(request(2, "tools/list"))

    refused, gated = both(script)
    assert refused["error"]["code"] == gated["error"]["code"] == -32602


def test_lax_params_the_schema_admits_are_served() -> None:
    async def script(wire: Wire) -> None:
        await wire.call(request(1, "initialize", {**INIT["params"], "capabilities": {"roots": {"listChanged": "yes"}}}))
        await wire.call(request(2, "ping", {"_meta": {"progressToken": True}}))
        await wire.call(request(3, "tools/list", {"cursor": None, "extra": 1}))
        await wire.call(request(4, "tools/call", {"name": "echo", "arguments": None, "task": {"ttl": "5"}}))

    assert all("result" in m for m in both(script, reference="catalog"))


def test_tools_list_and_call_results_as_the_sdk_shapes_them_at_the_handshake() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.call(request(1, "tools/list"))
        await wire.call(request(2, "tools/call", {"name": "echo", "arguments": {"value": "[1]"}}))

    _, listed, called = both(script, reference="catalog")
    assert listed["result"] == {"tools": TOOLS}
    assert called["result"]["structuredContent"] == {"result": {"arguments": {"value": "[1]"}, "seen": None}}
    assert called["result"]["isError"] is False


def test_a_handler_exception_is_error_code_zero_with_its_text_at_the_handshake() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.call(request(1, "tools/call", {"name": "boom"}))

    assert both(script, reference="catalog")[-1]["error"] == {"code": 0, "message": "it broke"}


def test_progress_goes_on_the_request_only_when_it_carried_a_token() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.call(request(1, "tools/call", {"name": "tick"}))
        await wire.call(request(2, "tools/call", {"name": "tick", "_meta": {"progressToken": "p"}}))
        await wire.call(request(3, "tools/call", {"name": "tick", "_meta": {"progressToken": True}}))

    transcript = both(script, reference="catalog")
    progress = [m["params"] for m in transcript if m.get("method") == "notifications/progress"]
    assert progress == [
        {"progressToken": "p", "progress": 1, "message": "first"},
        {"progressToken": "p", "progress": 2.5, "total": 10},
    ]


def test_requests_run_concurrently_and_a_cancelled_one_is_never_answered() -> None:
    async def script(wire: Wire) -> None:
        catalog = catalog_of(wire)
        await handshake(wire)
        await wire.post(request(7, "tools/call", {"name": "slow"}))
        await asyncio.wait_for(catalog.started.wait(), DEADLINE)
        await wire.call(request(8, "tools/list"))  # answered while 7 waits
        await wire.post(note("notifications/cancelled", {"requestId": "7"}))  # "7" correlates with 7
        await asyncio.wait_for(catalog.cancelled.wait(), DEADLINE)
        await wire.call(request(9, "ping"))

    transcript = both(script, reference="catalog")
    assert [m.get("id") for m in transcript] == [0, 8, 9]


def test_an_id_cancelled_before_its_request_started_is_answered_when_reused() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        await wire.post(request(5, "tools/call", {"name": "slow"}))
        await wire.post(note("notifications/cancelled", {"requestId": 5}))  # before the request's task ran
        await wire.call(request(5, "ping"))

    assert [m.get("id") for m in both(script, reference="catalog")] == [0, 5]


def test_progress_reported_after_the_answer_is_dropped() -> None:
    async def script(wire: Wire) -> None:
        catalog = catalog_of(wire)
        await handshake(wire)
        await wire.call(request(1, "tools/call", {"name": "keep", "_meta": {"progressToken": 1}}))
        assert catalog.kept is not None
        await catalog.kept(1, None, None)
        await wire.call(request(2, "ping"))

    assert [m.get("id") for m in both(script, reference="catalog")] == [0, 1, 2]


def test_a_slow_call_answers_after_a_later_quick_one() -> None:
    async def script(wire: Wire) -> None:
        catalog = catalog_of(wire)
        await handshake(wire)
        await wire.post(request(1, "tools/call", {"name": "slow"}))
        await asyncio.wait_for(catalog.started.wait(), DEADLINE)
        await wire.call(request(2, "ping"))
        catalog.release.set()
        await wire.answer(1)

    assert [m.get("id") for m in both(script, reference="catalog")] == [0, 2, 1]


def test_tools_changed_reaches_an_initialized_handshake_connection() -> None:
    async def script(wire: Wire) -> None:
        await handshake(wire)
        catalog_of(wire).change()
        await wire.next()

    assert both(script)[-1] == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
