"""The broker's pure parts: schemas with ``app``, tool-name prefixing, stable appIds, launch plans."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from wpfprobe.apps.targets import slug
from wpfprobe.broker import broker as _broker
from wpfprobe.broker import wire
from wpfprobe.broker.broker import call_timeout
from wpfprobe.broker.launch import launch_plan
from wpfprobe.broker.naming import broker_ids, exposed_name
from wpfprobe.broker.wire import LaunchArgs, with_app_argument
from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.mcp.manifest import Manifest

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def manifest(name: str, pid: int) -> Manifest:
    return Manifest(
        app_id=f"{slug(name)}-{pid}", app_name=name, pid=pid, process_start_time=1.0, exe="python",
        toolkit="winforms", runtime="mono", url="http://127.0.0.1:1/mcp", token="t" * 43, tier="read",
        started_at="now", version="0",
    )  # fmt: skip


def test_app_is_added_to_a_schema_as_an_optional_string_without_touching_the_original() -> None:
    original: dict[str, Any] = {
        "type": "object",
        "properties": {"locator": {"type": "string"}},
        "required": ["locator"],
        "additionalProperties": False,
    }
    out = with_app_argument(original)
    assert out["properties"]["app"]["type"] == "string"
    assert out["required"] == ["locator"] and out["additionalProperties"] is False
    assert "app" not in original["properties"], "the source schema is not modified"
    assert with_app_argument({})["properties"] == {"app": wire.APP_ARGUMENT}


def test_every_standard_tool_is_listed_with_app_and_its_own_arguments() -> None:
    from wpfprobe.mcp.tools import all_tools

    async def listing() -> list[Any]:
        broker = _broker.Broker(directory=Path("/nonexistent-wpfprobe-home/sessions"))
        await broker.registry.refresh()
        return await broker.list_tools()

    tools = asyncio.run(listing())
    by_name = {t.name: t for t in tools}
    for spec in all_tools(tier="mutate"):
        tool = by_name[spec.name]
        props = tool.input_schema["properties"]
        assert "app" in props, spec.name
        wire = {f.alias or n for n, f in spec.args.model_fields.items()}
        assert wire <= set(props), spec.name
        assert tool.output_schema is not None, spec.name
    assert {"wpf_list_apps", "wpf_launch_app"} <= set(by_name)
    assert all(TOOL_NAME.match(t.name) for t in tools)


@pytest.mark.parametrize(
    ("app_id", "tool", "expected"),
    [
        ("orders", "reload", "orders__reload"),
        ("orders-1234", "reload_all", "orders-1234__reload_all"),
        ("my.app", "do it", "my-app__do-it"),
    ],
)
def test_custom_tools_are_prefixed_with_the_app_id(app_id: str, tool: str, expected: str) -> None:
    assert exposed_name(app_id, tool) == expected


def test_long_names_are_shortened_deterministically_and_stay_distinct() -> None:
    app_id = "a-very-long-application-name-that-goes-on-1234567"
    one = exposed_name(app_id, "refresh_every_order_in_the_current_view")
    two = exposed_name(app_id, "refresh_every_order_in_the_current_view_now")
    assert len(one) == len(two) == 64
    assert TOOL_NAME.match(one) and TOOL_NAME.match(two)
    assert one != two
    assert one == exposed_name(app_id, "refresh_every_order_in_the_current_view"), "same input, same name"
    assert one.startswith(app_id + "__")
    assert len(exposed_name("x" * 30, "y" * 32)) == 64 and exposed_name("x" * 30, "y" * 32).endswith("y")


def test_broker_ids_are_name_slugs_unless_two_apps_share_one() -> None:
    a, b, c = manifest("Orders", 11), manifest("orders", 12), manifest("Stock Viewer", 13)
    assert broker_ids([c]) == {"stock-viewer-13": "stock-viewer"}
    ids = broker_ids([a, b, c])
    assert ids == {"orders-11": "orders-11", "orders-12": "orders-12", "stock-viewer-13": "stock-viewer"}
    # Restarted under the same name (new pid): the same broker id as before.
    assert broker_ids([manifest("Stock Viewer", 99)])["stock-viewer-99"] == "stock-viewer"


def test_a_slug_that_is_another_apps_probe_id_is_not_used() -> None:
    # App "x 5" slugs to "x-5", which is the probe id of app "x" with pid 5.
    clash, other = manifest("x 5", 77), manifest("x", 5)
    ids = broker_ids([clash, other])
    assert ids["x-5-77"] == "x-5-77" and ids["x-5"] == "x"
    assert len(set(ids.values())) == 2


def test_call_timeouts_cover_the_tools_own_waits() -> None:
    assert call_timeout("wpf_get_windows", {}) == _broker.CALL_TIMEOUT
    assert call_timeout("wpf_wait_for", {"timeoutMs": 60000}) >= 75
    assert call_timeout("wpf_wait_for", {"timeoutMs": "60000"}) == _broker.CALL_TIMEOUT
    assert call_timeout("wpf_wait_for", {"timeoutMs": True}) == _broker.CALL_TIMEOUT
    assert call_timeout("reload", {}, custom=True) == _broker.CUSTOM_CALL_TIMEOUT


def test_launch_takes_python_scripts_only(tmp_path: Path) -> None:
    script = tmp_path / "app.py"
    script.write_text("")
    command, options = launch_plan(
        LaunchArgs.model_validate({"script": "app.py", "args": ["-x"], "cwd": str(tmp_path)})
    )
    assert command == [str(script.resolve()), "-x"]
    assert options["allow"] == "read" and options["cwd"] == str(tmp_path.resolve()) and options["timeout"] == 60.0
    exe = tmp_path / "tool.sh"
    exe.write_text("")
    with pytest.raises(InvalidArgumentError, match="not a python script"):
        launch_plan(LaunchArgs.model_validate({"script": str(exe)}))
    with pytest.raises(InvalidArgumentError, match="No such script"):
        launch_plan(LaunchArgs.model_validate({"script": str(tmp_path / "missing.py")}))
    with pytest.raises(InvalidArgumentError, match="not a directory"):
        launch_plan(LaunchArgs.model_validate({"script": "app.py", "cwd": str(tmp_path / "nope")}))


@pytest.mark.parametrize(
    "raw",
    [
        {},
        {"script": "a.py", "profile": "p"},
        {"profile": "p", "args": ["x"]},
        {"script": "a.py", "allow": "root"},
        {"script": "a.py", "command": "rm -rf /"},
        {"script": "a.py", "timeoutSeconds": 0},
    ],
)
def test_launch_arguments_are_checked(raw: dict[str, Any]) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        LaunchArgs.model_validate(raw, by_alias=True, by_name=False)


def test_bad_input_to_the_broker_is_an_error_result_not_a_crash() -> None:
    broker = _broker.Broker(directory=Path("/nonexistent-wpfprobe-home/sessions"))

    async def calls() -> list[Any]:
        return [
            await broker.call_tool("wpf_get_windows", {"app": ["x"]}),
            await broker.call_tool("wpf_get_windows", None),
            await broker.call_tool("no_such_tool", {}),
            await broker.call_tool("app__tool", {}),
            await broker.call_tool("wpf_list_apps", {"bogus": 1}),
            await broker.call_tool("wpf_launch_app", {"script": "/bin/sh"}),
            await broker.call_tool("wpf_list_apps", {}),
        ]

    results = asyncio.run(calls())
    codes = [r.structured_content.get("code") for r in results[:-1]]
    assert codes == [
        "INVALID_ARGUMENT", "APP_NOT_AVAILABLE", "INVALID_ARGUMENT", "APP_NOT_AVAILABLE", "INVALID_ARGUMENT",
        "INVALID_ARGUMENT",
    ]  # fmt: skip
    assert all(r.is_error for r in results[:-1])
    listing = results[-1].structured_content
    assert listing["apps"] == [] and not results[-1].is_error
    # Running pythonnet apps with no probe (this machine's, whatever they are) are listed as attachable.
    assert set(listing) == {"apps", "attachable"} and isinstance(listing["attachable"], list)


def test_the_broker_module_names_no_executable_launcher() -> None:
    # wpf_launch_app's schema has no way to pass an executable or a shell command.
    props = set(LaunchArgs.model_json_schema(by_alias=True)["properties"])
    assert props == {"profile", "script", "args", "cwd", "allow", "name", "timeoutSeconds"}
    assert sys.executable  # the launcher runs scripts with this interpreter
