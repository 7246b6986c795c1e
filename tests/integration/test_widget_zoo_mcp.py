"""The widget zoo through a real MCP client: the differential walk against wpf_get_visual_tree, and what an agent does.

The zoo runs in a process of its own (scripts/widget_zoo_mcp.py) at the mutate
tier; every call is the official SDK client over streamable HTTP with the
bearer token. A representative set of controls is driven here; all of them
are driven through the Python API in test_widget_zoo_controls.py.
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
import widget_zoo

pytestmark = pytest.mark.toolkit("winforms")

SCRIPT = Path(__file__).parent / "scripts" / "widget_zoo_mcp.py"


class ZooServer:
    def __init__(self, home: Path) -> None:
        env = {**os.environ, "WPFPROBE_HOME": str(home), "MONO_THREADS_SUSPEND": "preemptive"}
        env.pop("DISPLAY", None)  # a display of its own
        self.stderr = home / "stderr.txt"
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), "--rows", str(widget_zoo.ROWS), "--items", str(widget_zoo.ITEMS)],
            env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr.open("w"),
        )  # fmt: skip
        started = self._line()
        self.url, self.token = started["url"], started["token"]

    def _line(self) -> Any:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(10)
            raise AssertionError(f"the zoo stopped:\n{self.stderr.read_text()[-3000:]}")
        return json.loads(line)

    def bare_walks(self) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("walk\n")
        self.proc.stdin.flush()
        return self._line()  # type: ignore[no-any-return]

    def _call(self, tool: str, arguments: dict[str, Any]) -> Any:
        async def converse() -> Any:
            import httpx2
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": f"Bearer {self.token}"}
            async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
                async with Client(streamable_http_client(self.url, http_client=http)) as client:
                    return await client.call_tool(tool, arguments)

        return asyncio.run(asyncio.wait_for(converse(), 90))

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self._call(tool, arguments)
        assert not result.is_error, f"{tool} failed: {result.structured_content}"
        return result.structured_content  # type: ignore[no-any-return]

    def text(self, tool: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
        result = self._call(tool, arguments)
        assert not result.is_error, f"{tool} failed: {result.structured_content}"
        shown = "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")
        return shown, result.structured_content

    def error(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self._call(tool, arguments)
        assert result.is_error, f"{tool} should have failed: {result.structured_content}"
        return result.structured_content  # type: ignore[no-any-return]

    def status(self) -> str | None:
        return self.call("wpf_inspect_element", locator="#statusText")["node"].get("text")

    def page(self, name: str) -> None:
        self.call("wpf_select", locator=f"TabPage#{name}")

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
        return lines[-1]["threadViolations"] if lines else ["the zoo did not report"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def zoo(display: str | None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ZooServer]:
    running = ZooServer(tmp_path_factory.mktemp("widget-zoo"))
    try:
        yield running
    finally:
        violations = running.close()
    assert violations == [], violations


def test_every_control_of_a_bare_walk_is_in_wpf_get_visual_tree_under_the_same_parent(zoo: ZooServer) -> None:
    walks = zoo.bare_walks()
    for window, bare in walks.items():
        tree = zoo.call("wpf_get_visual_tree", locator=f"#{window}", maxDepth=10, format="json")
        assert not tree["truncated"]
        assert widget_zoo.missing(bare, tree["root"]) == [], window
    assert widget_zoo.count(walks["zooWindow"]) > 100


def test_the_compact_tree_of_the_zoo_costs_few_characters_per_node(zoo: ZooServer) -> None:
    shown, tree = zoo.text("wpf_get_visual_tree", maxDepth=10)
    nodes = tree["returnedNodeCount"]
    per_node = len(shown) / nodes
    print(f"\nzoo compact tree: {len(shown)} characters, {nodes} nodes, {per_node:.1f} characters per node")
    assert nodes > 200 and per_node < 60
    lines = shown.splitlines()
    wrap = next(line for line in lines if "CheckBox#wrapCheck" in line)
    assert wrap.endswith('"Word wrap" key=W checked')  # a check box says it is checked
    catalog = lines.index(next(line for line in lines if "ListBox#catalogList" in line))
    assert lines[catalog + 26].strip() == f"+{widget_zoo.ITEMS - 25} more"  # 25 items, then how many more


def test_an_agent_clicks_a_button_and_a_link(zoo: ZooServer) -> None:
    zoo.page("buttonsPage")
    zoo.call("wpf_click", locator="#helloButton")
    assert zoo.status() == "Hello clicked"
    zoo.call("wpf_click", locator="#helpLink")
    assert zoo.status() == "Help link clicked"


def test_an_agent_toggles_a_check_box_and_picks_a_radio_button(zoo: ZooServer) -> None:
    zoo.page("buttonsPage")
    toggled = zoo.call("wpf_toggle", locator="#wrapCheck", state=False)
    assert toggled["after"]["checked"] is False and zoo.status() == "Word wrap off"
    zoo.call("wpf_click", locator="#smallRadio")
    assert zoo.status() == "Size Small"
    node = zoo.call("wpf_inspect_element", locator="#smallRadio")["node"]
    assert node["checked"] is True


def test_an_agent_types_into_a_masked_box_and_a_rich_text_box(zoo: ZooServer) -> None:
    zoo.page("textPage")
    zoo.call("wpf_type_text", locator="#phoneBox", text="5551234567")
    assert zoo.status() == "Phone (555) 123-4567"
    typed = zoo.call("wpf_type_text", locator="#notesBox", text="One\nTwo")
    assert typed["after"]["text"] == "One\nTwo" and zoo.status() == "Notes 2 lines"


def test_an_agent_selects_list_combo_list_view_and_tree_items(zoo: ZooServer) -> None:
    zoo.page("listsPage")
    zoo.call("wpf_select", locator="#fruitList", item="Banana")
    assert zoo.status() == "Fruit Banana"
    zoo.call("wpf_select", locator="#portionCombo", item="Small")
    assert zoo.status() == "Portion Small"
    zoo.call("wpf_click", locator="#personAda")
    assert zoo.status() == "Person Ada"
    zoo.call("wpf_toggle", locator="#reptilesNode", state=True)
    assert zoo.status() == "Expanded Reptiles"
    zoo.call("wpf_select", locator="#animalTree", item="Reptiles/Gecko")
    assert zoo.status() == "Animal Reptiles/Gecko"


def test_an_agent_uses_a_context_menu_and_an_old_style_main_menu(zoo: ZooServer) -> None:
    zoo.call("wpf_click", locator="#feedMenuItem")
    assert zoo.status().startswith("Fed ") and zoo.status().endswith("(from animalTree)")  # type: ignore[union-attr]
    zoo.call("wpf_click", locator="#tileMenuItem")
    assert zoo.status() == "Tiled"


def test_an_agent_moves_a_track_bar_and_a_number_by_setting_them(zoo: ZooServer) -> None:
    zoo.page("valuesPage")
    zoo.call("wpf_set_property", locator="#volumeTrack", propertyName="Value", value="64")
    assert zoo.status() == "Volume 64"
    bar = zoo.call("wpf_get_properties", locator="#volumeBar", filter="Value")
    assert [p["value"] for p in bar["items"] if p["name"] == "Value"] == [64]
    zoo.call("wpf_send_keys", locator="#quantityUpDown", keys="Down")
    assert zoo.status() == "Quantity 4"


def test_an_agent_edits_a_grid_cell_of_a_far_row(zoo: ZooServer) -> None:
    zoo.page("gridPage")
    zoo.call("wpf_select", locator="#ordersGrid", index=1999)
    assert zoo.status() == "Order 2000 selected"
    zoo.call("wpf_type_text", locator='DataGridViewRow[text*="2000 | "] > [Column="Customer"]', text="Zoe")
    assert zoo.status() == "Order 2000 Customer=Zoe"


def test_an_agent_refused_a_date_as_text_is_told_why(zoo: ZooServer) -> None:
    refused = zoo.error("wpf_set_property", locator="#startPicker", propertyName="Value", value="2024-02-29")
    assert refused["code"] == "UNSUPPORTED_PROPERTY_TYPE"


def test_the_locator_worth_keeping_finds_each_element_of_the_zoo_again(zoo: ZooServer) -> None:
    """Every element of the zoo's window: wpf_generate_locator's choice finds exactly that element again.

    Controls, grid columns and rows, list and tree items, tool strip and menu items: each candidate is
    checked when it is made, and this checks the checking, through find as a test would use it.
    """
    zoo.page("gridPage")

    async def converse() -> tuple[list[str], dict[str, int]]:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {zoo.token}"}
        wrong: list[str] = []
        kinds: dict[str, int] = {}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(zoo.url, http_client=http)) as client:
                tree = await client.call_tool(
                    "wpf_get_visual_tree", {"locator": "#zooWindow", "maxDepth": 10, "format": "json"}
                )
                stack = [tree.structured_content["root"]]
                while stack:
                    node = stack.pop()
                    stack.extend(node.get("children") or [])
                    kept = await client.call_tool("wpf_generate_locator", {"nodeId": node["nodeId"]})
                    assert not kept.is_error, kept.structured_content
                    locator = kept.structured_content["locator"]
                    kinds[kept.structured_content["kind"]] = kinds.get(kept.structured_content["kind"], 0) + 1
                    found = await client.call_tool("wpf_find_elements", {"locator": locator, "maxResults": 2})
                    ids = [r["node"]["nodeId"] for r in (found.structured_content or {}).get("results", [])]
                    if found.is_error or ids != [node["nodeId"]]:
                        wrong.append(f"{node['locator']}: {locator} -> {ids}")
        return wrong, kinds

    wrong, kinds = asyncio.run(asyncio.wait_for(converse(), 600))
    print(f"\nthe zoo's window: locators worth keeping by kind {kinds}")
    assert wrong == []
    assert kinds.get("name", 0) > 100 and kinds.get("text", 0) > 10
