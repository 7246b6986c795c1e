"""The catalog behind the SDK's low-level Server (toolserver.py), pinned against the installed SDK.

What is declared is what is served (tools with listChanged; prompts and resources neither
declared nor answered), strings arrive as sent, the gate's errors are structured, and building
the server leaves the app's logging alone. Driven with the SDK's own in-memory client, in both
eras, on the fake toolkit's engine.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from typing import Any, cast

import pytest
from fake_toolkit import harness
from mcp import Client
from mcp.shared.exceptions import MCPError

from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Engine
from wpfprobe.mcp import wirelog
from wpfprobe.mcp.catalog import close_matches, unknown_tool
from wpfprobe.mcp.custom import define
from wpfprobe.mcp.toolserver import ToolServer


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


def test_building_a_server_leaves_the_root_logger_as_it_was() -> None:
    """The SDK's MCPServer called logging.basicConfig; in an app with no logging set up
    that gave the root logger a stderr handler. The low-level server must not either."""
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    for handler in saved:
        root.removeHandler(handler)
    try:
        root.setLevel(logging.ERROR)
        ToolServer(cast(Engine, None), tier="read")
        assert root.handlers == [] and root.level == logging.ERROR
    finally:
        for handler in saved:
            root.addHandler(handler)
        root.setLevel(level)


def test_close_matches() -> None:
    known = ["wpf_get_windows", "wpf_get_visual_tree", "wpf_click"]
    assert close_matches("wpf_get_windows ", known) == ["wpf_get_windows"]
    assert close_matches("wpf_get_windows\x00", known) == ["wpf_get_windows"]
    assert close_matches("WPF_CLICK", known) == ["wpf_click"]
    assert close_matches("wpf_get_windowz", known)[0] == "wpf_get_windows"
    assert close_matches("zzz", known) == []
    assert close_matches("w" * 1_000_000, known) == []
    err = unknown_tool("q" * 1000, known)
    assert err.code == "INVALID_ARGUMENT" and len(err.message) < 200 and "tools/list" in err.suggestion


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_library_records_from_the_probe_s_threads_go_to_its_own_log_only() -> None:
    wirelog.install()
    root, wire = Collect(), Collect()
    logging.getLogger().addHandler(root)
    wire_logger = logging.getLogger(wirelog.WIRE_LOGGER)
    wire_logger.addHandler(wire)
    previous = wire_logger.level
    wire_logger.setLevel(logging.DEBUG)
    library = logging.getLogger("mcp.server.test_wirelog")
    try:

        def log(message: str) -> None:
            library.error(message)

        threads = (
            ("wpfprobe-mcp-http", "from the probe"),
            # The start-up's thread imports the SDK and makes the HTTP server (starting.py).
            ("wpfprobe-start", "from the probe's start-up"),
            ("someone-else", "from the app"),
        )
        for name, message in threads:
            thread = threading.Thread(target=log, args=(message,), name=name)
            thread.start()
            thread.join()
        logging.getLogger("uvicorn.access").warning("GET /mcp")  # this thread: the app's own
    finally:
        logging.getLogger().removeHandler(root)
        wire_logger.removeHandler(wire)
        wire_logger.setLevel(previous)
    assert [(r.getMessage(), r.levelname) for r in wire.records] == [
        ("from the probe", "DEBUG"),
        ("from the probe's start-up", "DEBUG"),
    ]
    # Further up, the probe's record is a wpfprobe DEBUG record like any other (this process
    # asked for DEBUG); the others reach the root logger's handlers as they were.
    assert {(r.getMessage(), r.levelname) for r in root.records} == {
        ("from the probe", "DEBUG"),
        ("from the probe's start-up", "DEBUG"),
        ("from the app", "ERROR"),
        ("GET /mcp", "WARNING"),
    }
