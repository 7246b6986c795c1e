"""What the kernel does for streamable HTTP, where a header (not the first request) decides the
era: no era lock, the 2026 envelope ladder with its routing headers as the SDK's inbound ladder
judges them, the era of each header value."""

from __future__ import annotations

import pytest
from kernel_twin import (
    INIT,
    V2026,
    FakeCatalog,
    KernelWire,
    Message,
    handshake,
    modern,
    run_kernel,
)

from wpfprobe.mcp import jsonrpc, protocol


def test_an_http_handshake_session_serves_an_enveloped_request() -> None:
    # Over HTTP the header routed the request, so the SDK's HTTP loop has no era lock.
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        await handshake(wire)
        assert "tools" in (await wire.call(modern(1, "tools/list")))["result"]

    run_kernel(script, era="handshake")


def test_an_http_2026_session_answers_initialize_not_found() -> None:
    async def script(wire: KernelWire, catalog: FakeCatalog) -> None:
        answer = await wire.call(modern(1, "initialize", INIT["params"]))
        assert answer["error"] == {"code": -32601, "message": "Method not found", "data": "initialize"}

    run_kernel(script, era=V2026)


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        ([("MCP-Protocol-Version", V2026), ("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")], None),
        ([("MCP-Protocol-Version", V2026), ("Mcp-Method", "tools/call"), ("Mcp-Name", "=?base64?ZWNobw==?=")], None),
        ([("MCP-Protocol-Version", V2026), ("Mcp-Method", "tools/call"), ("Mcp-Name", "other")], -32020),
        ([("MCP-Protocol-Version", V2026), ("Mcp-Method", "tools/list"), ("Mcp-Name", "echo")], -32020),
        ([("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")], -32020),
        ([("MCP-Protocol-Version", "2030-01-01"), ("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")], -32020),
        ([("MCP-Protocol-Version", V2026), ("mcp-protocol-version", V2026), ("Mcp-Method", "tools/call")], -32020),
    ],
)
def test_the_envelope_ladder_with_headers_as_the_sdk_judges_it(
    headers: list[tuple[str, str]], code: int | None
) -> None:
    from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request, find_duplicated_routing_header

    body = modern(1, "tools/call", {"name": "echo"})
    ours = protocol.envelope_error(body, headers=headers)
    duplicated = find_duplicated_routing_header(headers)
    verdict = classify_inbound_request(body, headers={k.lower(): v for k, v in headers})
    if duplicated is not None:
        expected: Message | None = jsonrpc.error(1, -32020, f"{duplicated} header appears more than once")
    elif isinstance(verdict, InboundLadderRejection):
        expected = jsonrpc.error(1, verdict.code, verdict.message, verdict.data)
    else:
        expected = None
    assert ours == expected
    assert (ours or {}).get("error", {}).get("code") == code


@pytest.mark.parametrize("version", [None, "2026-07-28", "2025-06-18", "2024-11-05", "x", "2030-01-01", ""])
def test_the_http_era_by_header(version: str | None) -> None:
    handshake_versions = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
    expected = "handshake" if version is None or version in handshake_versions else V2026
    assert protocol.era_of_header(version) == expected
