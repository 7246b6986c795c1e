"""The tests' SDK reference (sdk_reference.py: the catalog behind the SDK's low-level Server),
pinned against the installed SDK, so that the twin tests compare the kernel with a reference
that is itself right.

What is declared is what is served (tools with listChanged; prompts and resources neither
declared nor answered), strings arrive as sent, the gate's errors are structured. Driven with
the SDK's own in-memory client, in both eras, on the fake toolkit's engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from fake_toolkit import harness
from mcp import Client
from mcp.shared.exceptions import MCPError
from sdk_reference import ToolServer

from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Engine
from wpfprobe.mcp.custom import define


def echo(value: str | None = None, items: list[int] | None = None) -> dict[str, object]:
    """What arrived."""
    return {"value": value, "type": type(value).__name__, "items": items}


def converse(body: Callable[[Any], Awaitable[Any]], *, mode: str = "legacy") -> Any:
    async def run(engine: Engine) -> Any:
        tools = ToolServer(engine, tier="read")
        tools.add(define(echo).spec(), custom=True)
        async with Client(tools.server, mode=mode) as client:
            return await body(client)

    with harness(settings=ProbeSettings(audit=False)) as h:
        return asyncio.run(asyncio.wait_for(run(h.engine), 30))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_the_capabilities_are_tools_with_list_changed_and_nothing_else(mode: str) -> None:
    # "auto" discovers (server/discover, 2026-07-28); it would fall back to the handshake on a bad answer.
    version, declared = converse(lambda c: asyncio.sleep(0, (c.protocol_version, c.server_capabilities)), mode=mode)
    assert (version == "2026-07-28") == (mode == "auto")
    assert declared.tools is not None and declared.tools.list_changed is True
    assert (declared.prompts, declared.resources, declared.logging, declared.completions) == (None,) * 4
    # The gate's tier is advertised where the era's result carries extensions (2026 discovery).
    if mode == "auto":
        assert declared.extensions == {"dev.wpfprobe/gate": {"tier": "read"}}


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_prompt_and_resource_methods_are_not_found(mode: str) -> None:
    async def body(client: Any) -> list[int]:
        codes = []
        for request in (
            lambda: client.list_prompts(),
            lambda: client.get_prompt("nope"),
            lambda: client.list_resources(),
            lambda: client.list_resource_templates(),
            lambda: client.read_resource("file:///x"),
        ):
            with pytest.raises(MCPError) as refused:
                await request()
            codes.append(refused.value.error.code)
        return codes

    assert converse(body, mode=mode) == [-32601] * 5


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize("value", ["[1]", "{}", "null", "true", "3", '"x"'])
def test_a_string_argument_arrives_as_the_string_sent(value: str, mode: str) -> None:
    result = converse(lambda c: c.call_tool("echo", {"value": value}), mode=mode)
    assert not result.is_error, result
    assert result.structured_content == {"result": {"value": value, "type": "str", "items": None}}


def test_a_list_sent_as_json_text_is_refused_not_parsed() -> None:
    result = converse(lambda c: c.call_tool("echo", {"items": "[1, 2]"}))
    assert result.is_error and result.structured_content["code"] == "INVALID_ARGUMENT", result


def test_an_unknown_tool_gets_the_structured_error() -> None:
    result = converse(lambda c: c.call_tool("ecoh", {}))
    assert result.is_error and result.structured_content["code"] == "INVALID_ARGUMENT"
    assert result.structured_content["detail"]["closeMatches"] == ["echo"]
