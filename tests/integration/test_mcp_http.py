"""The MCP server over streamable HTTP, driven by the official SDK client as an agent would.

One server per test session (``mcp_server`` in conftest.py: ``wpfprobe.start`` on the
live example app, read tier, UI timeout 1 s). Each test opens its own client session.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import os
import platform
import re
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import jsonschema
import pytest
from PIL import Image

import wpfprobe
from wpfprobe.errors import DispatcherBusyError

READ_TOOLS = {
    "wpf_get_session_info",
    "wpf_get_windows",
    "wpf_get_visual_tree",
    "wpf_get_children",
    "wpf_get_ancestors",
    "wpf_find_elements",
    "wpf_inspect_element",
    "wpf_get_properties",
    "wpf_capture_screenshot",
    "wpf_get_binding_info",
    "wpf_run_diagnostics",
    "wpf_get_resources",
    "wpf_get_triggers",
    "wpf_get_behaviors",
    "wpf_get_app_events",
    "wpf_generate_locator",
}
HIGHER_TIER_TOOLS = {
    "wpf_click": "INPUT_DISABLED",
    "wpf_type_text": "INPUT_DISABLED",
    "wpf_send_keys": "INPUT_DISABLED",
    "wpf_select": "INPUT_DISABLED",
    "wpf_toggle": "INPUT_DISABLED",
    "wpf_focus": "INPUT_DISABLED",
    "wpf_wait_for": "INPUT_DISABLED",
    "wpf_set_property": "MUTATION_DISABLED",
}
ERROR_KEYS = {"code", "message", "suggestion", "detail"}
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def run(make: Callable[[], Awaitable[Any]], deadline: float = 30.0) -> Any:
    """Run one test's client conversation on a fresh event loop, bounded by a deadline."""

    async def bounded() -> Any:
        return await asyncio.wait_for(make(), deadline)

    return asyncio.run(bounded())


def texts(result: Any) -> list[str]:
    return [b.text for b in result.content if b.type == "text"]


def ok(result: Any, tool: str = "") -> dict[str, Any]:
    assert not result.is_error, f"{tool} failed: {texts(result)}"
    assert isinstance(result.structured_content, dict), tool
    assert texts(result) and all(t.strip() for t in texts(result)), f"{tool}: no text rendering"
    return result.structured_content


def tool_error(result: Any, code: str) -> dict[str, Any]:
    """The SPEC section 5 shape: a tool error whose structured content is {code, message, suggestion, detail}."""
    assert result.is_error, f"expected {code}, got a success: {texts(result)[:1]}"
    err = result.structured_content
    assert isinstance(err, dict), texts(result)
    assert set(err) == ERROR_KEYS, err
    assert err["code"] == code, err
    assert isinstance(err["message"], str) and err["message"]
    assert isinstance(err["suggestion"], str) and err["suggestion"], "the suggestion names the next call"
    assert isinstance(err["detail"], dict)
    assert texts(result) and texts(result)[0].startswith(code), texts(result)
    return err


def schema_at(schema: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """A property's schema and every branch of its anyOf/oneOf/allOf (refs resolved)."""
    defs = schema.get("$defs", {})

    def resolve(s: dict[str, Any]) -> dict[str, Any]:
        ref = s.get("$ref")
        return resolve(defs[ref.rsplit("/", 1)[-1]]) if ref else s

    found: list[dict[str, Any]] = []
    pending = [resolve(schema["properties"][name])]
    while pending:
        s = pending.pop()
        found.append(s)
        for key in ("anyOf", "oneOf", "allOf"):
            pending.extend(resolve(x) for x in s.get(key, []))
    return found


def bound(schema: dict[str, Any], name: str, keyword: str) -> Any:
    values = [s[keyword] for s in schema_at(schema, name) if keyword in s]
    assert values, f"{name} has no {keyword} in {schema['properties'][name]}"
    return min(values)


async def tools_by_name(client: Any) -> dict[str, Any]:
    listed = await client.list_tools()
    return {t.name: t for t in listed.tools}


def validate(tool: Any, structured: dict[str, Any]) -> None:
    validator_cls = jsonschema.validators.validator_for(tool.output_schema)
    validator_cls.check_schema(tool.output_schema)
    validator_cls(tool.output_schema).validate(structured)


# -- tools/list ----------------------------------------------------------------


def test_tools_list_is_the_read_tier_with_schemas_and_bounds(mcp_connect: Any) -> None:
    async def main() -> dict[str, Any]:
        async with mcp_connect() as client:
            return await tools_by_name(client)

    tools = run(main)
    assert set(tools) == READ_TOOLS, "a read-tier server lists the read tools, nothing more"
    assert not set(tools) & set(HIGHER_TIER_TOOLS)
    for name, tool in tools.items():
        assert TOOL_NAME.match(name)
        assert tool.description and len(tool.description) > 20, name
        assert tool.input_schema.get("type") == "object", name
        assert tool.output_schema and tool.output_schema.get("type") == "object", f"{name} has no output schema"
        jsonschema.validators.validator_for(tool.output_schema).check_schema(tool.output_schema)
        assert tool.annotations is not None and tool.annotations.read_only_hint is True, name
        for prop in tool.input_schema.get("properties", {}):
            assert re.fullmatch(r"[a-z][a-zA-Z]*", prop), f"{name}.{prop} is not camelCase"

    tree = tools["wpf_get_visual_tree"].input_schema
    assert bound(tree, "maxDepth", "maximum") == 10
    assert bound(tree, "includeProperties", "maxItems") == 10
    assert {"nodeId", "locator", "treeType", "format"} <= set(tree["properties"])
    assert bound(tools["wpf_get_children"].input_schema, "take", "maximum") == 200
    assert bound(tools["wpf_get_properties"].input_schema, "take", "maximum") == 200
    assert bound(tools["wpf_find_elements"].input_schema, "maxResults", "maximum") == 100
    for name in ("wpf_inspect_element", "wpf_get_ancestors", "wpf_get_properties", "wpf_capture_screenshot"):
        assert {"nodeId", "locator"} <= set(tools[name].input_schema["properties"]), name


# -- every tool, with nodeId and with locator ------------------------------------


def test_every_tool_answers_and_its_structured_content_matches_its_output_schema(mcp_connect: Any) -> None:
    async def main() -> dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]:
        async with mcp_connect() as client:
            tools = await tools_by_name(client)
            answers: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}

            async def call(name: str, args: dict[str, Any]) -> dict[str, Any]:
                structured = ok(await client.call_tool(name, args), name)
                validate(tools[name], structured)
                answers.setdefault(name, []).append((args, structured))
                return structured

            await call("wpf_get_session_info", {})
            windows = await call("wpf_get_windows", {})
            await call("wpf_get_windows", {"includeHidden": True})
            main_id = windows["windows"][0]["nodeId"]
            found = await call("wpf_find_elements", {"typeName": "Button"})
            save = next(r["node"] for r in found["results"] if r["node"].get("name") == "saveButton")
            await call("wpf_find_elements", {"locator": "Button#saveButton"})
            await call("wpf_find_elements", {"text": "sav", "maxResults": 100})
            await call("wpf_find_elements", {"rootNodeId": main_id, "name": "greetingLabel", "treeType": "logical"})
            await call(
                "wpf_find_elements",
                {"propertyConditions": [{"property": "Text", "operator": "Regex", "value": "^Sa.e$"}]},
            )
            await call("wpf_get_visual_tree", {})
            await call("wpf_get_visual_tree", {"nodeId": main_id, "maxDepth": 10, "format": "json"})
            await call(
                "wpf_get_visual_tree",
                {
                    "locator": "#formPanel",
                    "maxDepth": 1,
                    "treeType": "logical",
                    "includeProperties": ["Text", "Enabled"],
                },
            )
            panel = await call("wpf_inspect_element", {"locator": "#formPanel"})
            first = await call("wpf_get_children", {"nodeId": panel["node"]["nodeId"], "take": 1})
            assert first["hasMore"] and first["nextCursor"], first
            await call(
                "wpf_get_children", {"nodeId": panel["node"]["nodeId"], "take": 1, "cursor": first["nextCursor"]}
            )
            await call("wpf_get_children", {})
            await call("wpf_get_ancestors", {"locator": "#saveButton"})
            await call("wpf_get_ancestors", {"nodeId": save["nodeId"], "maxLevels": 1})
            await call("wpf_inspect_element", {"locator": "Button#saveButton"})
            await call("wpf_inspect_element", {"nodeId": save["nodeId"]})
            await call("wpf_get_properties", {"locator": "#greetingLabel"})
            await call("wpf_get_properties", {"nodeId": save["nodeId"], "filter": "Text", "take": 1})
            await call("wpf_get_properties", {"locator": "#saveButton", "includeDefaults": True, "take": 200})
            await call("wpf_capture_screenshot", {})
            await call("wpf_capture_screenshot", {"locator": "#saveButton"})
            await call("wpf_capture_screenshot", {"nodeId": save["nodeId"]})
            await call("wpf_get_binding_info", {"locator": "#greetingLabel", "propertyName": "Text"})
            await call("wpf_get_binding_info", {"nodeId": save["nodeId"], "propertyName": "Text"})
            await call("wpf_run_diagnostics", {})
            await call(
                "wpf_run_diagnostics",
                {"locator": "#formPanel", "providers": ["clipped"], "minLevel": "warning", "take": 1},
            )
            await call("wpf_get_resources", {})
            await call("wpf_get_resources", {"locator": "#saveButton", "resourceKey": "Accent", "take": 5})
            await call("wpf_get_triggers", {"locator": "#saveButton"})
            await call("wpf_get_behaviors", {"nodeId": save["nodeId"]})
            kept = await call("wpf_generate_locator", {"nodeId": save["nodeId"]})
            assert (kept["locator"], kept["kind"]) == ("Button#saveButton", "name"), kept
            first_look = await call("wpf_get_app_events", {})
            await call("wpf_get_app_events", {"sinceSeq": first_look["nextSeq"]})
            answers["(listed)"] = [({}, {"names": sorted(tools)})]
            return answers

    answers = run(main)
    listed = set(answers.pop("(listed)")[0][1]["names"])
    assert set(answers) == listed == READ_TOOLS, "every listed tool was called"

    (_, by_locator), (_, by_id) = answers["wpf_inspect_element"][1:]
    assert by_locator["node"]["nodeId"] == by_id["node"]["nodeId"], "nodeId and locator name the same element"
    assert by_locator["node"]["name"] == "saveButton" and by_locator["locator"]

    ancestors_by_locator = answers["wpf_get_ancestors"][0][1]["ancestors"]
    ancestors_by_id = answers["wpf_get_ancestors"][1][1]["ancestors"]
    assert ancestors_by_locator[-1]["name"] == "mainWindow", "parent first, window last"
    assert [a["nodeId"] for a in ancestors_by_id] == [ancestors_by_locator[0]["nodeId"]]

    children_pages = answers["wpf_get_children"]
    assert len(children_pages[0][1]["items"]) == 1 and children_pages[0][1]["totalCount"] >= 2
    assert children_pages[1][1]["items"][0]["nodeId"] != children_pages[0][1]["items"][0]["nodeId"]

    properties = {p["name"]: p for p in answers["wpf_get_properties"][0][1]["items"]}
    assert properties["Text"]["value"] == "Hello, Ada" and properties["Text"]["isDataBound"] is True
    filtered = answers["wpf_get_properties"][1][1]
    assert len(filtered["items"]) == 1 and "text" in filtered["items"][0]["name"].lower()

    shots = answers["wpf_capture_screenshot"]
    assert shots[1][1]["nodeId"] == shots[2][1]["nodeId"] != shots[0][1]["nodeId"]


def test_screenshot_is_a_png_of_the_reported_size_plus_a_text_block(mcp_connect: Any) -> None:
    async def main() -> list[Any]:
        async with mcp_connect() as client:
            return [
                await client.call_tool("wpf_capture_screenshot", {}),
                await client.call_tool("wpf_capture_screenshot", {"locator": "Button#saveButton"}),
            ]

    for result in run(main):
        info = ok(result, "wpf_capture_screenshot")
        images = [b for b in result.content if b.type == "image"]
        assert len(images) == 1 and images[0].mime_type == "image/png"
        png = base64.b64decode(images[0].data)
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        image = Image.open(io.BytesIO(png))
        image.load()
        assert image.format == "PNG"
        assert image.size == (info["width"], info["height"]) and info["width"] > 0 and info["height"] > 0
        colors = image.convert("RGB").getcolors(maxcolors=1 << 20)
        assert colors is None or len(colors) > 1, "a real capture, not a blank image"
        (text,) = texts(result)
        described = json.loads(text)
        assert (described["width"], described["height"], described["nodeId"]) == (
            info["width"],
            info["height"],
            info["nodeId"],
        )


def test_tree_text_has_one_line_per_node(mcp_connect: Any) -> None:
    async def main() -> Any:
        async with mcp_connect() as client:
            return await client.call_tool("wpf_get_visual_tree", {"maxDepth": 10})

    result = run(main)
    tree = ok(result, "wpf_get_visual_tree")
    (text,) = texts(result)
    lines = text.splitlines()
    nodes: list[tuple[int, dict[str, Any]]] = []
    stack = [(0, tree["root"])]
    while stack:
        depth, node = stack.pop()
        nodes.append((depth, node))
        stack.extend((depth + 1, c) for c in reversed(node.get("children") or []))
    assert len(nodes) == tree["returnedNodeCount"]
    node_lines, footer = lines[:-1], lines[-1]
    assert len(node_lines) == len(nodes), "one line per node, plus a footer"
    assert footer.startswith("(") and str(tree["returnedNodeCount"]) in footer
    for line, (depth, node) in zip(node_lines, nodes, strict=True):
        assert line.split()[0] == node["nodeId"], line
        assert len(line) - len(line.lstrip(" ")) == depth, f"indentation shows depth: {line!r}"
    assert any(line.split()[1] == "Button#saveButton" for line in node_lines), text
    assert "Button#saveButton" in text
    assert "hunter2" not in text, "the password box is redacted in the tree text"


# -- errors ----------------------------------------------------------------------

LONG_LOCATOR = "Button#" + "a" * 100_000
ERROR_CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("unknown nodeId", "wpf_inspect_element", {"nodeId": "zz999999"}, "NODE_NOT_FOUND"),
    ("unknown nodeId, other tool", "wpf_get_properties", {"nodeId": "nope"}, "NODE_NOT_FOUND"),
    ("unknown rootNodeId", "wpf_find_elements", {"rootNodeId": "zz999999", "typeName": "Button"}, "NODE_NOT_FOUND"),
    ("locator not found", "wpf_inspect_element", {"locator": "#noSuchElement"}, "LOCATOR_NOT_FOUND"),
    ("locator not found, tree", "wpf_get_visual_tree", {"locator": "Button#nothing"}, "LOCATOR_NOT_FOUND"),
    ("malformed locator", "wpf_inspect_element", {"locator": "Button[Text="}, "INVALID_ARGUMENT"),
    ("malformed locator, quote", "wpf_find_elements", {"locator": 'text="unterminated'}, "INVALID_ARGUMENT"),
    ("malformed cursor", "wpf_get_children", {"cursor": "not-a-cursor!!"}, "INVALID_ARGUMENT"),
    (
        "malformed properties cursor",
        "wpf_get_properties",
        {"locator": "#saveButton", "cursor": "x"},
        "INVALID_ARGUMENT",
    ),
    ("maxDepth of the wrong type", "wpf_get_visual_tree", {"maxDepth": "x"}, "INVALID_ARGUMENT"),
    ("includeHidden of the wrong type", "wpf_get_windows", {"includeHidden": "maybe"}, "INVALID_ARGUMENT"),
    ("nodeId of the wrong type", "wpf_inspect_element", {"nodeId": 12}, "INVALID_ARGUMENT"),
    ("includeProperties of the wrong type", "wpf_get_visual_tree", {"includeProperties": "Text"}, "INVALID_ARGUMENT"),
    ("maxDepth above the cap", "wpf_get_visual_tree", {"maxDepth": 11}, "INVALID_ARGUMENT"),
    ("negative maxDepth", "wpf_get_visual_tree", {"maxDepth": -1}, "INVALID_ARGUMENT"),
    ("huge take", "wpf_get_children", {"take": 10**9}, "INVALID_ARGUMENT"),
    ("huge properties take", "wpf_get_properties", {"locator": "#saveButton", "take": 10**9}, "INVALID_ARGUMENT"),
    ("zero take", "wpf_get_children", {"take": 0}, "INVALID_ARGUMENT"),
    ("huge maxResults", "wpf_find_elements", {"typeName": "Button", "maxResults": 10**9}, "INVALID_ARGUMENT"),
    ("100 kB locator", "wpf_inspect_element", {"locator": LONG_LOCATOR}, "INVALID_ARGUMENT"),
    ("100 kB find locator", "wpf_find_elements", {"locator": LONG_LOCATOR}, "INVALID_ARGUMENT"),
    (
        "11 includeProperties",
        "wpf_get_visual_tree",
        {"includeProperties": [f"P{i}" for i in range(11)]},
        "INVALID_ARGUMENT",
    ),
    ("unknown extra argument", "wpf_get_windows", {"bogus": 1}, "INVALID_ARGUMENT"),
    ("unknown extra argument, no-arg tool", "wpf_get_session_info", {"verbose": True}, "INVALID_ARGUMENT"),
    (
        "nodeId and locator both",
        "wpf_inspect_element",
        {"nodeId": "zz1", "locator": "#saveButton"},
        "INVALID_ARGUMENT",
    ),
    ("neither nodeId nor locator", "wpf_inspect_element", {}, "INVALID_ARGUMENT"),
    (
        "unknown condition operator",
        "wpf_find_elements",
        {"propertyConditions": [{"property": "Text", "operator": "Like", "value": "x"}]},
        "INVALID_ARGUMENT",
    ),
    ("empty locator", "wpf_inspect_element", {"locator": ""}, "INVALID_ARGUMENT"),
    ("unknown treeType", "wpf_get_visual_tree", {"treeType": "physical"}, "INVALID_ARGUMENT"),
    ("zero maxLevels", "wpf_get_ancestors", {"locator": "#saveButton", "maxLevels": 0}, "INVALID_ARGUMENT"),
]


def test_bad_calls_are_structured_tool_errors_and_leave_app_and_server_answering(mcp_connect: Any, probe: Any) -> None:
    async def main() -> tuple[list[tuple[str, Any]], Any, dict[str, Any]]:
        async with mcp_connect() as client:
            results = []
            for label, tool, args, _ in ERROR_CASES:
                results.append((label, await client.call_tool(tool, args)))
            ambiguous = await client.call_tool("wpf_inspect_element", {"locator": "Button"})
            # Afterwards the same session still works.
            windows = ok(await client.call_tool("wpf_get_windows", {}), "wpf_get_windows")
            return results, ambiguous, windows

    started = time.monotonic()
    results, ambiguous, windows = run(main, deadline=45)
    failures = []
    for (label, result), (_, tool, _, code) in zip(results, ERROR_CASES, strict=True):
        try:
            tool_error(result, code)
        except AssertionError as exc:
            failures.append(f"{label} ({tool}): {exc}")
    assert not failures, "\n".join(failures)

    err = tool_error(ambiguous, "LOCATOR_AMBIGUOUS")
    candidates = err["detail"].get("candidates")
    assert isinstance(candidates, list) and len(candidates) >= 2, err
    listed = json.dumps(candidates)
    assert "saveButton" in listed and "disabledButton" in listed, "the candidates name the matches"

    assert windows["windows"][0]["name"] == "mainWindow"
    # The UI thread is free and the app itself still answers.
    assert probe.engine.ui.run(lambda: 6 * 7) == 42
    assert probe.locator("#saveButton").inspect().node.name == "saveButton"
    assert time.monotonic() - started < 30


def test_snake_case_argument_names_are_refused_not_silently_ignored(mcp_connect: Any) -> None:
    """The wire names are camelCase; ``max_depth`` is not an argument of the tool. Accepting it
    at validation and then dropping it would run the call with the default depth instead."""

    async def main() -> Any:
        async with mcp_connect() as client:
            return await client.call_tool("wpf_get_visual_tree", {"max_depth": 0})

    result = run(main)
    if not result.is_error:
        root = result.structured_content["root"]
        pytest.fail(
            "wpf_get_visual_tree accepted max_depth=0 and answered with "
            f"{result.structured_content['returnedNodeCount']} nodes ({len(root.get('children') or [])} children "
            "under the root): the argument was silently ignored"
        )
    err = tool_error(result, "INVALID_ARGUMENT")
    assert "max_depth" in err["message"] + json.dumps(err["detail"])


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("wpf_find_elements", {"propertyConditions": [{"property": "Text", "operator": "Regex", "value": "("}]}),
        ("wpf_find_elements", {"typeName": ""}),
        ("wpf_find_elements", {"name": ""}),
    ],
    ids=["malformed regex", "empty typeName", "empty name"],
)
def test_invalid_find_arguments_come_with_a_suggestion(mcp_connect: Any, tool: str, args: dict[str, Any]) -> None:
    async def main() -> Any:
        async with mcp_connect() as client:
            return await client.call_tool(tool, args)

    tool_error(run(main), "INVALID_ARGUMENT")  # checks that the suggestion names what to do next


def test_error_detail_of_bad_arguments_names_the_argument(mcp_connect: Any) -> None:
    async def main() -> Any:
        async with mcp_connect() as client:
            return await client.call_tool("wpf_get_visual_tree", {"maxDepth": "x"})

    err = tool_error(run(main), "INVALID_ARGUMENT")
    assert "maxDepth" in err["message"] + json.dumps(err["detail"])


def test_higher_tier_tools_are_refused_on_a_read_tier_server(mcp_connect: Any) -> None:
    async def main() -> dict[str, Any]:
        async with mcp_connect() as client:
            listed = await tools_by_name(client)
            assert "wpf_click" not in listed and "wpf_set_property" not in listed
            return {
                name: await client.call_tool(
                    name, {"locator": "#saveButton", "propertyName": "Text", "value": "x", "text": "x"}
                )
                for name in HIGHER_TIER_TOOLS
            }

    for name, result in run(main).items():
        err = tool_error(result, HIGHER_TIER_TOOLS[name])
        assert err["detail"].get("tier") == "read", err


def test_session_info_reports_tier_toolkit_runtime_and_versions(
    mcp_connect: Any, mcp_server: Any, running_app: Any
) -> None:
    async def main() -> tuple[dict[str, Any], dict[str, Any]]:
        async with mcp_connect() as client:
            info = ok(await client.call_tool("wpf_get_session_info", {}))
            windows = ok(await client.call_tool("wpf_get_windows", {}))
            return info, windows

    info, windows = run(main)
    assert info["tier"] == "read"
    assert info["toolkit"] == str(running_app.toolkit)
    expected_runtime = "mono" if not sys.platform.startswith("win") else info["runtime"]["kind"]
    assert info["runtime"]["kind"] in {"netfx", "coreclr", "mono"} and info["runtime"]["kind"] == expected_runtime
    assert info["runtime"]["version"] and info["runtime"]["description"]
    assert info["pid"] == os.getpid()
    assert info["appId"] == mcp_server.app_id and info["appName"] == "mcp-tests"
    assert info["wpfprobeVersion"] == wpfprobe.__version__
    assert info["pythonVersion"] == platform.python_version()
    window_ids = [w for d in info["dispatchers"] for w in d["windows"]]
    assert windows["windows"][0]["nodeId"] in window_ids
    assert info["capabilities"]


# -- concurrency ---------------------------------------------------------------


def test_concurrent_sessions_finish_without_deadlock_and_agree(mcp_connect: Any) -> None:
    sessions, calls_per_session = 4, 25
    mix: list[tuple[str, dict[str, Any]]] = [
        ("wpf_inspect_element", {"locator": "#saveButton"}),
        ("wpf_get_windows", {}),
        ("wpf_get_visual_tree", {"maxDepth": 4}),
        ("wpf_find_elements", {"typeName": "Button"}),
        ("wpf_get_properties", {"locator": "#greetingLabel", "filter": "Text"}),
        ("wpf_get_ancestors", {"locator": "#saveButton"}),
        ("wpf_get_children", {"take": 5}),
        ("wpf_get_session_info", {}),
    ]

    async def session(index: int) -> list[tuple[str, dict[str, Any]]]:
        async with mcp_connect() as client:
            calls = [mix[(index + i) % len(mix)] for i in range(calls_per_session)]
            results = await asyncio.gather(*(client.call_tool(name, args) for name, args in calls))
            return [(name, ok(r, name)) for (name, _), r in zip(calls, results, strict=True)]

    async def main() -> list[list[tuple[str, dict[str, Any]]]]:
        return list(await asyncio.gather(*(session(i) for i in range(sessions))))

    started = time.monotonic()
    answers = [a for per_session in run(main, deadline=40) for a in per_session]
    assert len(answers) == sessions * calls_per_session
    assert time.monotonic() - started < 40

    def fingerprint(name: str, s: dict[str, Any]) -> Any:
        if name == "wpf_inspect_element":
            return s["node"]["nodeId"], s["locator"]
        if name == "wpf_get_windows":
            return [w["nodeId"] for w in s["windows"]]
        if name == "wpf_get_visual_tree":
            return s["returnedNodeCount"], s["root"]["nodeId"]
        if name == "wpf_find_elements":
            return [r["node"]["nodeId"] for r in s["results"]]
        if name == "wpf_get_properties":
            return [(p["name"], p.get("value")) for p in s["items"]]
        if name == "wpf_get_ancestors":
            return [a["nodeId"] for a in s["ancestors"]]
        if name == "wpf_get_children":
            return [n["nodeId"] for n in s["items"]]
        return s["appId"], s["tier"]

    seen: dict[str, set[str]] = {}
    for name, structured in answers:
        seen.setdefault(name, set()).add(json.dumps(fingerprint(name, structured)))
    assert set(seen) == {name for name, _ in mix}
    inconsistent = {name: values for name, values in seen.items() if len(values) != 1}
    assert not inconsistent, f"the same question got different answers: {inconsistent}"


# -- a blocked UI thread -----------------------------------------------------------


def test_blocked_ui_thread_gives_dispatcher_busy_over_mcp_then_recovers(
    mcp_connect: Any, mcp_server: Any, probe: Any
) -> None:
    ui_timeout = mcp_server.probe.engine.settings.ui_timeout
    assert ui_timeout == 1.0, "the session's server was started with timeout=1.0"
    release = threading.Event()
    entered = threading.Event()

    def block() -> None:
        entered.set()
        release.wait(20)  # holds the UI thread on purpose until the test releases it

    async def busy_call() -> tuple[Any, float]:
        async with mcp_connect() as client:
            started = time.monotonic()
            result = await client.call_tool("wpf_inspect_element", {"locator": "#saveButton"})
            return result, time.monotonic() - started

    async def next_call() -> Any:
        async with mcp_connect() as client:
            return await client.call_tool("wpf_inspect_element", {"locator": "#saveButton"})

    try:
        with pytest.raises(DispatcherBusyError):
            probe.engine.ui.run(block, timeout=0.05)
        assert entered.wait(5), "the blocking call reached the UI thread"
        result, waited = run(busy_call, deadline=15)
    finally:
        release.set()
    err = tool_error(result, "DISPATCHER_BUSY")
    assert err["suggestion"]
    assert ui_timeout * 0.8 <= waited < ui_timeout + 3.0, waited
    assert mcp_server.running
    after = ok(run(next_call), "wpf_inspect_element")
    assert after["node"]["name"] == "saveButton"


# -- the threads Mono's exit waits for ---------------------------------------------


def test_the_servers_thread_never_becomes_a_clr_thread(mcp_server: Any, mcp_connect: Any) -> None:
    """Regression: uvicorn looked for websockets and wsproto on the server's thread. An import no
    finder resolves asks pythonnet's finder, which calls into the CLR, and Mono then counts the
    thread as its own: its exit (pythonnet's shutdown) waits, with no limit, for every such thread
    still alive, so an app whose probe was not stopped first would never exit."""
    import shutil

    import pythonnet
    from exit_watchdog import mono_threads

    info = pythonnet.get_runtime_info()
    if info is None or info.kind.lower() != "mono":
        kind = "no runtime" if info is None else info.kind
        pytest.skip(f"{kind}: only Mono's shutdown waits for the threads that called into it (the Windows WPF run)")
    assert shutil.which("gdb"), "gdb tells which threads Mono counts: the README's test command installs it"

    async def main() -> None:
        async with mcp_connect() as client:
            ok(await client.call_tool("wpf_get_windows", {}), "wpf_get_windows")
            ok(await client.call_tool("wpf_get_visual_tree", {"maxDepth": 2}), "wpf_get_visual_tree")

    run(main)
    names = {t.ident: t.name for t in threading.enumerate()}
    servers = [t.ident for t in threading.enumerate() if t.name.startswith("wpfprobe-mcp")]
    assert servers, f"no server thread found among {sorted(names.values())}"
    attached = [names[i] for i in mono_threads() if i in servers]
    assert attached == [], "the server's thread called into the CLR"
