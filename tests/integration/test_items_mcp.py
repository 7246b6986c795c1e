"""Items as elements through a real MCP client: what an agent sees of lists, trees, tabs and grids, and does to them.

The items window (scripts/items_app.py) runs in a process of its own with a
probe at the interact tier, under its own X display; the tests are the
official SDK client over streamable HTTP with the bearer token. The app's
status label says which of its handlers ran last.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.toolkit("winforms")

SCRIPT = Path(__file__).parent / "scripts" / "items_app.py"


class ItemsApp:
    def __init__(self, home: Path) -> None:
        env = {**os.environ, "WPFPROBE_HOME": str(home)}
        env.pop("DISPLAY", None)  # a display of its own
        self.stderr = home / "stderr.txt"
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), "interact"], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr.open("w"),
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(10)
            raise AssertionError(f"the items app did not start:\n{self.stderr.read_text()[-3000:]}")
        started = json.loads(line)
        self.url, self.token = started["url"], started["token"]

    def _call(self, tool: str, arguments: dict[str, Any]) -> Any:
        async def converse() -> Any:
            import httpx2
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": f"Bearer {self.token}"}
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
                async with Client(streamable_http_client(self.url, http_client=http)) as client:
                    return await client.call_tool(tool, arguments)

        return asyncio.run(asyncio.wait_for(converse(), 60))

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self._call(tool, arguments)
        assert not result.is_error, f"{tool} failed: {result.structured_content}"
        return result.structured_content  # type: ignore[no-any-return]

    def text(self, tool: str, **arguments: Any) -> str:
        result = self._call(tool, arguments)
        assert not result.is_error, f"{tool} failed: {result.structured_content}"
        return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")

    def error(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self._call(tool, arguments)
        assert result.is_error, f"{tool} should have failed: {result.structured_content}"
        return result.structured_content  # type: ignore[no-any-return]

    def status(self) -> str | None:
        return self.call("wpf_inspect_element", locator="#itemsStatus")["node"].get("text")

    def close(self) -> list[str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write("close\n")
            self.proc.stdin.flush()
            last = self.proc.stdout.read()
            self.proc.wait(30)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
        lines = [json.loads(x) for x in last.splitlines() if x.strip()]
        return lines[-1]["threadViolations"] if lines else ["the app did not report"]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ItemsApp]:
    running = ItemsApp(tmp_path_factory.mktemp("items"))
    try:
        yield running
    finally:
        violations = running.close()
    assert violations == [], violations


def test_the_tree_text_shows_items_with_their_states(app: ItemsApp) -> None:
    shown = app.text("wpf_get_visual_tree", locator="#itemsWindow", maxDepth=4, format="text")
    assert 'ListBoxItem "Banana"' in shown
    assert 'CheckedListBoxItem "Olives" checked' in shown
    assert 'ComboBoxItem "Small" hidden selected' in shown
    assert 'TreeNode#vegetablesNode "Vegetables" collapsed' in shown
    assert 'TabPage#generalPage "General" selected' in shown
    assert 'ToolStripMenuItem#editMenu "Edit" key=E' in shown
    grid_line = next(line for line in shown.splitlines() if "DataGridView#grid" in line)
    assert "of=" in grid_line  # the rows listed are the rows in view; of= counts them all


def test_an_item_node_has_text_state_bounds_and_a_locator(app: ItemsApp) -> None:
    found = app.call("wpf_find_elements", locator='#fruits > text="Banana"')
    assert len(found["results"]) == 1
    node = found["results"][0]["node"]
    assert (node["type"], node["text"], node["visible"], node["selected"]) == ("ListBoxItem", "Banana", True, False)
    info = app.call("wpf_inspect_element", nodeId=node["nodeId"])
    assert info["bounds"]["width"] > 0 and info["parent"]["name"] == "fruits"
    again = app.call("wpf_inspect_element", locator=info["locator"])
    assert again["node"]["nodeId"] == node["nodeId"]
    rows = app.call("wpf_get_children", nodeId=app.call("wpf_inspect_element", locator="#grid")["node"]["nodeId"])
    assert rows["totalCount"] == len(rows["items"])  # the page lists what the grid lists: columns, rows in view
    grid = app.call("wpf_inspect_element", locator="#grid")["node"]
    assert grid["totalCount"] > grid["childCount"]


def test_an_agent_picks_items_and_the_apps_handlers_run(app: ItemsApp) -> None:
    clicked = app.call("wpf_click", locator='#fruits > text="Banana"')
    assert clicked["after"]["selected"] is True and "selected" in clicked["changed"]
    assert app.status() == "fruit Banana"

    toggled = app.call("wpf_toggle", locator='#toppings > text="Ham"', state=True)
    assert toggled["after"]["checked"] is True and app.status() == "topping Ham Checked"

    path = app.call("wpf_select", locator="#foods", item="Vegetables/Carrot")
    assert path["after"]["selectedItem"] == "Vegetables/Carrot" and app.status() == "node Vegetables\\Carrot"

    expanded = app.call("wpf_toggle", locator='TreeNode[text="Fruits"]')
    assert expanded["after"]["expanded"] is True and app.status() == "expanded Fruits"

    tab = app.call("wpf_select", locator="TabPage#advancedPage")
    assert tab["after"]["selected"] is True and app.status() == "tab Advanced"

    typed = app.call("wpf_type_text", locator='DataGridViewRow[text*="Person 0 |"] > [Column="Name"]', text="Zoe")
    assert typed["after"]["text"] == "Zoe" and app.status() == "cell Name=Zoe"

    app.call("wpf_click", locator="#copyMenuItem")
    assert app.status() == "copy from fruits"


def test_refusals_name_what_to_do(app: ItemsApp) -> None:
    locked = app.error("wpf_click", locator='#lockedList > text="Alpha"')
    assert locked["code"] == "ELEMENT_NOT_INTERACTABLE" and locked["detail"]["reason"] == "disabled"
    app.call("wpf_click", locator='#fruits > text="Apple"')  # back to the top: Lemon is out of view
    offscreen = app.error("wpf_click", locator='#fruits > text="Lemon"', mode="os")
    assert offscreen["detail"]["reason"] == "offscreen" and "mode=auto" in offscreen["suggestion"]
    not_an_item = app.error("wpf_select", locator="#fruits")
    assert not_an_item["code"] == "INVALID_ARGUMENT"
    unknown = app.error("wpf_select", locator="#foods", item="Vegetables/Turnip")
    assert unknown["code"] == "INVALID_ARGUMENT" and unknown["detail"]["items"] == ["Carrot", "Potato"]
