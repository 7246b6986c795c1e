"""One failing element or property costs its own entry, never the answer, on a real WinForms app.

scripts/zoo_app.py has the failures on purpose: fancyPanel's ``Broken``
clrproperty getter throws, and moodyPanel's ``Visible`` and ``Enabled`` (new
properties over Control's, which WinForms itself never reads) throw whenever
read. Through MCP and through the Python API (from inside the app), every
tree, property list and search comes back whole, with the failure recorded on
its own node or row and counted; afterwards the UI still answers (a click
lands), and no exception reached the app's message loop
(Application.ThreadException is hooked in the app and stays silent).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from zoo_harness import by_name, ok, run_driver

pytestmark = pytest.mark.toolkit("winforms")

HEALTHY = ["zooWindow", "fancyPanel", "plainButton", "fancyButton", "innerPanel", "innerBox", "moodyButton"]


def test_failures_cost_one_node_or_row_over_mcp_and_the_ui_still_answers(zoo: Any) -> None:
    async def probe_it(client: Any) -> dict[str, Any]:
        before = (await ok(client, "app_facts"))["result"]
        seen = {
            "tree": await ok(client, "wpf_get_visual_tree", maxDepth=4),
            "text": await client.call_tool("wpf_get_visual_tree", {"maxDepth": 4, "format": "text"}),
            "fancy": await ok(client, "wpf_get_properties", locator="#fancyPanel", includeDefaults=True, take=200),
            "moody": await ok(client, "wpf_get_properties", locator="#moodyPanel", filter="abled"),
            "found": await ok(
                client,
                "wpf_find_elements",
                propertyConditions=[{"property": "Enabled", "operator": "Equals", "value": "True"}],
                maxResults=100,
            ),
            "click": await ok(client, "wpf_click", locator="#moodyButton"),
            "go": await ok(client, "wpf_click", locator="#fancyButton"),
            "status": await ok(client, "wpf_inspect_element", locator="#statusLabel"),
        }
        seen["facts"] = (await ok(client, "app_facts"))["result"]
        seen["before"] = before
        return seen

    seen = zoo.session(probe_it)
    tree, named = seen["tree"], by_name(seen["tree"]["root"])
    # The tree: moodyPanel's state could not be read; it and its child are still there.
    assert tree["errorCount"] == 1
    moody = named["moodyPanel"]
    assert moody["error"]["reads"] == ["state"] and moody["error"]["message"] == "Visible fails on purpose"
    assert [c["name"] for c in moody["children"]] == ["moodyButton"]
    for name in HEALTHY:
        assert "error" not in named[name], named[name]
    text = "\n".join(b.text for b in seen["text"].content if b.type == "text")
    moody_line = next(line for line in text.splitlines() if "MoodyPanel#moodyPanel" in line)
    assert moody_line.endswith("!RuntimeError(state)") and "Button#moodyButton" in text
    # The property list: one row has the error, every other row its value.
    fancy = {r["name"]: r for r in seen["fancy"]["items"]}
    assert seen["fancy"]["errorCount"] == 1
    assert fancy["Broken"]["error"]["message"] == "the Broken getter fails on purpose"
    assert fancy["Broken"]["valueSource"] == "error" and fancy["Broken"].get("value") is None
    assert fancy["Level"]["value"] == 3 and fancy["Name"]["value"] == "fancyPanel"
    assert all("error" not in r for n, r in fancy.items() if n != "Broken")
    moody_rows = {r["name"]: r for r in seen["moody"]["items"]}
    assert moody_rows["Enabled"]["error"]["message"] == "Enabled fails on purpose"
    # The search: moodyPanel matches nothing (its Enabled cannot be read), the rest is searched.
    found = [r["node"]["name"] for r in seen["found"]["results"]]
    assert "moodyPanel" not in found and {"fancyButton", "moodyButton", "innerBox"} <= set(found)
    assert seen["found"]["errorCount"] >= 1
    # The UI answers, and nothing reached its message loop.
    assert seen["status"]["node"]["text"] == f"Clicked {seen['before']['clicks'] + 1}"
    assert seen["facts"]["threadExceptions"] == [] and seen["facts"]["secretReads"] == 0


def fault_isolation_through_the_api(probe: Any, facts: Callable[[], dict[str, Any]], collect: Any) -> dict[str, Any]:
    """Runs inside zoo_app.py (``--probe attach``)."""
    tree = probe.tree(max_depth=4)
    nodes = {n.name: n for n in tree.walk() if n.name}
    rows = probe.locator("#fancyPanel").properties(include_defaults=True, take=200)
    found = probe.find(
        property_conditions=[{"property": "Visible", "operator": "Equals", "value": "True"}], max_results=100
    )
    probe.locator("#fancyButton").click()
    return {
        "treeErrors": tree.error_count,
        "moodyError": nodes["moodyPanel"].error.model_dump() if nodes["moodyPanel"].error else None,
        "healthy": [name for name in HEALTHY if nodes[name].error is None],
        "rowErrors": rows.error_count,
        "broken": {r.name: r.error.message for r in rows.items if r.error is not None},
        "level": next(r.value for r in rows.items if r.name == "Level"),
        "found": sorted(r.node.name for r in found.results if r.node.name),
        "findErrors": found.error_count,
        "status": probe.locator("#statusLabel").inspect().node.text,
        **facts(),
    }


def test_failures_cost_one_node_or_row_through_the_python_api(display: str | None, tmp_path: Path) -> None:
    result, facts, _ = run_driver(tmp_path, fault_isolation_through_the_api)
    assert result["treeErrors"] == 1
    assert result["moodyError"] == {"type": "RuntimeError", "message": "Visible fails on purpose", "reads": ["state"]}
    assert result["healthy"] == HEALTHY
    assert result["rowErrors"] == 1 and result["broken"] == {"Broken": "the Broken getter fails on purpose"}
    assert result["level"] == 3
    assert "moodyPanel" not in result["found"] and {"fancyPanel", "moodyButton"} <= set(result["found"])
    assert result["findErrors"] >= 1
    assert result["status"] == "Clicked 1"
    assert facts["threadExceptions"] == [] and facts["clicks"] == 1
