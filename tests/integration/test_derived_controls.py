"""Controls whose classes are written in Python answer every time, after pythonnet has orphaned them.

scripts/zoo_app.py builds its UI in a function that keeps no reference to its
controls (some with ``__namespace__``, so each is a .NET type of its own, some
without), then runs both garbage collectors: pythonnet has then freed the .NET
side of each Python object, and any conversion of those controls into Python
yields an object whose every call fails (wpfprobe_clr/net/bridge.py). On
main's adapter the tree stopped at the first such control, unnamed and
childless, and nothing below it could be found, inspected or clicked. The
probe now holds them as handles and reads them in .NET: these tests read,
find, inspect, list and click them hundreds of times, collecting garbage
between rounds, over MCP and through the Python API from inside the app.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from zoo_harness import Zoo, by_name, ok, run_driver

ROUNDS = 200

#: name -> (type, typeName) the tree must show, whatever the garbage collectors did.
EXPECTED_TYPES = {
    "zooWindow": ("ZooForm", "ZooApp.ZooForm"),
    "fancyPanel": ("FancyPanel", "ZooApp.FancyPanel"),
    "plainButton": ("Button", "System.Windows.Forms.Button"),
    "fancyButton": ("FancyButton", "ZooApp.FancyButton"),
    "innerPanel": ("FancyPanel", "ZooApp.FancyPanel"),
    "innerBox": ("TextBox", "System.Windows.Forms.TextBox"),
    # No __namespace__: no .NET type of its own, so the probe sees its .NET base.
    "nonsPanel": ("Panel", "System.Windows.Forms.Panel"),
    "nonsLabel": ("Label", "System.Windows.Forms.Label"),
    "statusLabel": ("Label", "System.Windows.Forms.Label"),
}
EXPECTED_CHILDREN = {
    "fancyPanel": ["plainButton", "fancyButton", "innerPanel"],
    "innerPanel": ["innerBox"],
    "nonsPanel": ["nonsLabel"],
}


def check_tree(tree: dict[str, Any]) -> dict[str, dict[str, Any]]:
    named = by_name(tree["root"])
    for name, (short, full) in EXPECTED_TYPES.items():
        assert name in named, f"{name} is missing from the tree: {sorted(named)}"
        assert (named[name]["type"], named[name]["typeName"]) == (short, full), named[name]
        assert "error" not in named[name], named[name]
    for name, kids in EXPECTED_CHILDREN.items():
        assert [k["name"] for k in named[name].get("children", [])] == kids, named[name]
    assert tree["root"]["name"] == "zooWindow"
    return named


def test_a_form_of_python_defined_controls_reads_finds_inspects_and_clicks_every_round_over_mcp(zoo: Zoo) -> None:
    async def rounds(client: Any) -> dict[str, Any]:
        ids: dict[str, str] | None = None
        before = (await ok(client, "app_facts"))["result"]["clicks"]  # the zoo is shared by the session
        for n in range(before + 1, before + ROUNDS + 1):
            tree = await ok(client, "wpf_get_visual_tree", maxDepth=4)
            named = check_tree(tree)
            seen = {name: node["nodeId"] for name, node in named.items()}
            # Keyed by the .NET object, not by whatever Python object read it: the same id every time.
            assert ids is None or seen == ids, (seen, ids)
            ids = seen
            found = await ok(client, "wpf_find_elements", name="fancyButton")
            assert [r["node"]["nodeId"] for r in found["results"]] == [ids["fancyButton"]], found
            assert found["results"][0]["path"] == "ZooForm[0]/FancyPanel[0]/FancyButton[0]"
            inspected = await ok(client, "wpf_inspect_element", locator="FancyPanel#innerPanel")
            assert inspected["node"]["childCount"] == 1
            assert inspected["parent"]["nodeId"] == ids["fancyPanel"]
            assert inspected["bounds"]["width"] == 200 and inspected["bounds"]["height"] == 80
            rows = await ok(client, "wpf_get_properties", nodeId=ids["innerPanel"], filter="Level")
            assert {r["name"]: r["value"] for r in rows["items"]}["Level"] == 5
            clicked = await ok(client, "wpf_click", nodeId=ids["fancyButton"])
            assert clicked["node"]["type"] == "FancyButton"
            status = await ok(client, "wpf_inspect_element", locator="#statusLabel")
            assert status["node"]["text"] == f"Clicked {n}"
            await ok(client, "collect_garbage")
        after = await ok(client, "app_facts")
        return {"clicks": after["result"]["clicks"] - before, "threadExceptions": after["result"]["threadExceptions"]}

    facts = zoo.session(rounds, deadline=900)
    assert facts == {"clicks": ROUNDS, "threadExceptions": []}


def test_clrproperties_are_listed_with_their_values_and_secret_ones_are_never_read(zoo: Zoo) -> None:
    rows = zoo.call("wpf_get_properties", locator="#fancyPanel", includeDefaults=True, take=200)
    by_row = {r["name"]: r for r in rows["items"]}
    assert by_row["Level"]["value"] == 3 and by_row["Level"]["typeName"] == "System.Int32"
    assert by_row["Name"]["value"] == "fancyPanel"
    # A property whose value is a Python-defined control shows it by type and name.
    assert by_row["Parent"]["value"] == "<ZooForm#zooWindow>"
    for secret in ("ApiKey", "Password"):
        assert by_row[secret]["isRedacted"] is True and by_row[secret]["value"] == "[REDACTED]", by_row[secret]
    # A getter that throws costs its own row, not the call.
    assert by_row["Broken"]["error"]["message"] == "the Broken getter fails on purpose", by_row["Broken"]
    assert rows["errorCount"] == 1
    window = zoo.call("wpf_get_properties", locator="#zooWindow", filter="Visits")
    assert {r["name"]: r["value"] for r in window["items"]}["Visits"] == 7
    assert zoo.call("app_facts")["result"]["secretReads"] == 0


def test_typing_focus_bindings_ancestors_diagnostics_and_screenshots_reach_python_defined_controls(zoo: Zoo) -> None:
    async def use(client: Any) -> dict[str, Any]:
        await ok(client, "collect_garbage")
        typed = await ok(client, "wpf_type_text", locator="#fancyBox", text="typed into a derived box")
        focused = await ok(client, "wpf_focus", locator="#fancyBox")
        box = await ok(client, "wpf_inspect_element", locator="#fancyBox")
        binding = await ok(client, "wpf_get_binding_info", locator="#boundLabel", propertyName="Text")
        ancestors = await ok(client, "wpf_get_ancestors", locator="#innerBox")
        panel = await ok(client, "wpf_inspect_element", locator="#fancyPanel")
        children = await ok(client, "wpf_get_children", nodeId=panel["node"]["nodeId"])
        diagnostics = await ok(client, "wpf_run_diagnostics")
        shot = await client.call_tool("wpf_capture_screenshot", {"locator": "#fancyPanel"})
        return {
            "typed": typed, "focused": focused, "box": box, "binding": binding, "ancestors": ancestors,
            "children": children, "diagnostics": diagnostics, "shot": shot,
        }  # fmt: skip

    seen = zoo.session(use)
    assert seen["typed"]["node"]["type"] == "FancyBox"
    assert seen["box"]["node"]["text"] == "typed into a derived box" and seen["box"]["node"]["focused"] is True
    assert seen["focused"]["node"]["focused"] is True
    binding = seen["binding"]
    assert binding["path"] == "Greeting" and binding["status"] == "active", binding
    assert binding["resolvedValue"] == "Hello zoo" and binding["sourceTypeName"] == "System.Data.DataTable"
    assert [a["name"] for a in seen["ancestors"]["ancestors"]] == ["innerPanel", "fancyPanel", "zooWindow"]
    assert [c["name"] for c in seen["children"]["items"]] == ["plainButton", "fancyButton", "innerPanel"]
    # Judged like any control, and so are the plain controls inside derived ones.
    located = {(f["provider"], f["locator"]) for f in seen["diagnostics"]["items"]}
    assert any(where == "FancyBox#fancyBox" for _, where in located), located
    assert ("unnamed-input", "TextBox#innerBox") in located, located
    assert not seen["shot"].is_error, seen["shot"].content
    info = seen["shot"].structured_content
    assert (info["width"], info["height"]) == (250, 150), info
    assert any(b.type == "image" for b in seen["shot"].content)


def test_a_derived_form_given_to_start_and_then_dropped_by_the_app_still_answers(
    display: str | None, tmp_path: Path
) -> None:
    app = Zoo(tmp_path, "--probe", "start-form")
    try:

        async def look(client: Any) -> dict[str, Any]:
            windows = await ok(client, "wpf_get_windows")
            await ok(client, "collect_garbage")
            tree = await ok(client, "wpf_get_visual_tree", maxDepth=4)
            await ok(client, "wpf_click", locator="#fancyButton")
            return {"windows": windows, "tree": tree}

        seen = app.session(look)
    finally:
        facts = app.close()
    assert [(w["name"], w["type"]) for w in seen["windows"]["windows"]] == [("zooWindow", "ZooForm")]
    check_tree(seen["tree"])
    assert facts["clicks"] == 1 and facts["threadExceptions"] == []


# -- the Python API, from inside the app ----------------------------------------------------


def api_rounds(probe: Any, facts: Callable[[], dict[str, Any]], collect: Callable[[], int]) -> dict[str, Any]:
    """Runs inside zoo_app.py (``--probe attach``): the Python API on the orphaned controls."""
    ids: dict[str, str] | None = None
    for n in range(1, ROUNDS + 1):
        tree = probe.tree(max_depth=4)
        named = {node.name: node for node in tree.walk() if node.name}
        types = {name: (node.type, node.type_name) for name, node in named.items()}
        for name, expected in EXPECTED_TYPES.items():
            assert types.get(name) == expected, (name, types.get(name))
        seen = {name: node.node_id for name, node in named.items()}
        assert ids is None or seen == ids
        ids = seen
        inspected = probe.locator("FancyButton#fancyButton").inspect()
        assert inspected.node.node_id == ids["fancyButton"] and inspected.parent.name == "fancyPanel"
        rows = {row.name: row for row in probe.locator("#fancyPanel").properties(include_defaults=True, take=200).items}
        assert rows["Level"].value == 3 and rows["ApiKey"].is_redacted and rows["Broken"].error is not None
        probe.locator("#fancyButton").click()
        assert probe.locator("#statusLabel").inspect().node.text == f"Clicked {n}"
        collect()
    return {"rounds": ROUNDS, **facts()}


def test_a_form_of_python_defined_controls_answers_every_round_through_the_python_api(
    display: str | None, tmp_path: Path
) -> None:
    result, facts, _ = run_driver(tmp_path, api_rounds)
    assert result["rounds"] == ROUNDS
    assert facts["clicks"] == ROUNDS and facts["secretReads"] == 0 and facts["threadExceptions"] == []
