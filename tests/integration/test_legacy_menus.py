"""Old-style menus (MainMenu/MenuItem) in an app the probe was never imported into: the bugs of issue 11.

scripts/legacy_menu_app.py is a word processor in the style of pythonnet's
demo/wordpad.py (a Python subclass of Form, a MainMenu, a RichTextBox), run
unmodified under `wpfprobe run --allow interact`; the tests are an agent's
MCP calls against the manifest it writes. Reported against the demo:

- ``wpf_click`` on Format > Word Wrap, found with ``wpf_find_elements``, was
  refused with ELEMENT_NOT_INTERACTABLE (offscreen) "It has no position on
  screen", suggesting mode=auto, which was already the mode;
- captions kept their access-key markers ("&File", "Save &As");
- a property asked for by name (``filter="WordWrap"``) answered "(0 of 0)".
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wpfprobe.mcp import manifest as _manifest

pytestmark = pytest.mark.toolkit("winforms")

HERE = Path(__file__).parent
SRC = HERE.parents[1] / "src"
SCRIPT = "scripts/legacy_menu_app.py"
DEADLINE = 90.0


class Wordpad:
    """The app under `wpfprobe run`, and an MCP client for its probe."""

    def __init__(self, home: Path) -> None:
        argv = [sys.executable, "-m", "wpfprobe", "run", "--allow", "interact", SCRIPT]
        # This checkout's wpfprobe, whatever the working directory (the app runs in HERE, as run's tests do).
        path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
        env = {**os.environ, "WPFPROBE_HOME": str(home), "PYTHONPATH": path}
        self.proc = subprocess.Popen(argv, cwd=HERE, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + DEADLINE
        found = None
        while found is None:
            found = next((m for m in _manifest.read_all(home / "sessions") if m.pid == self.proc.pid), None)
            if found is None:
                assert self.proc.poll() is None, f"the app ended before its probe listened: {self.proc.stderr.read()}"  # type: ignore[union-attr]
                assert time.monotonic() < deadline, "no manifest appeared"
                time.sleep(0.05)
        self.manifest = found

    def _call(self, tool: str, arguments: dict[str, Any]) -> Any:
        async def converse() -> Any:
            import httpx2
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": f"Bearer {self.manifest.token}"}
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
                async with Client(streamable_http_client(self.manifest.url, http_client=http)) as client:
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

    def stop(self) -> tuple[int | None, str, str]:
        if self.proc.poll() is None:
            self.proc.kill()
        out, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, out, err


@pytest.fixture(scope="module")
def wordpad(display: str | None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wordpad]:
    app = Wordpad(tmp_path_factory.mktemp("wordpad"))
    try:
        yield app
    finally:
        app.stop()


def test_a_property_asked_for_by_name_is_listed_at_its_default(wordpad: Wordpad) -> None:
    """WordWrap at its default value answered "(0 of 0)", as if the RichTextBox had no such property."""
    page = wordpad.call("wpf_get_properties", locator="RichTextBox", filter="WordWrap")
    assert [(p["name"], p["value"], p["valueSource"]) for p in page["items"]] == [("WordWrap", True, "default")]
    assert page["totalCount"] == 1
    assert "(1 of 1)" in wordpad.text("wpf_get_properties", locator="RichTextBox", filter="WordWrap")


def test_classic_menu_captions_read_without_access_key_markers(wordpad: Wordpad) -> None:
    """ "&File" and "Save &As" were shown, and found, with their markers."""
    tree = wordpad.text("wpf_get_visual_tree", maxDepth=3, format="text")
    assert 'MenuItem "File" key=F' in tree and 'MenuItem "Save As" key=A' in tree and "&" not in tree
    found = wordpad.call("wpf_find_elements", locator='text="Save As"')["results"]
    assert [(r["node"]["text"], r["node"]["accessKey"]) for r in found] == [("Save As", "A")]
    by_path = wordpad.call("wpf_find_elements", locator="menu:File/Save As")["results"]
    assert [r["node"]["nodeId"] for r in by_path] == [found[0]["node"]["nodeId"]]
    exit_item = wordpad.call("wpf_inspect_element", locator="menu:File/Exit")["node"]
    assert (exit_item["text"], exit_item["accessKey"]) == ("Exit", "X")


def test_a_classic_main_menu_item_is_clicked_without_screen_bounds(wordpad: Wordpad) -> None:
    """Format > Word Wrap was refused as offscreen: a toolkit click needs no position (PerformClick)."""
    found = wordpad.call("wpf_find_elements", text="Word Wrap")["results"]
    assert len(found) == 1 and found[0]["node"]["checked"] is True
    clicked = wordpad.call("wpf_click", nodeId=found[0]["node"]["nodeId"])
    assert clicked["completed"] and clicked["before"]["checked"] is True and clicked["after"]["checked"] is False
    assert "checked" in clicked["changed"]
    # The app's own handler ran: it turned the text box's WordWrap off.
    row = wordpad.call("wpf_get_properties", locator="RichTextBox", filter="WordWrap")["items"][0]
    assert (row["value"], row["valueSource"]) == (False, "local")
    toggled = wordpad.call("wpf_toggle", locator='text="Word Wrap"', state=True)
    assert toggled["after"]["checked"] is True
    assert wordpad.call("wpf_toggle", locator='text="Word Wrap"', state=True)["changed"] == []  # already on


def test_refusals_of_a_classic_menu_item_suggest_what_helps(wordpad: Wordpad) -> None:
    """The refusal suggested mode=auto while the mode was auto: the suggestion follows the mode."""
    disabled = wordpad.error("wpf_click", locator='text="Disabled"')
    assert disabled["code"] == "ELEMENT_NOT_INTERACTABLE" and disabled["detail"]["reason"] == "disabled"
    assert "mode=auto" not in disabled["suggestion"]
    os_click = wordpad.error("wpf_click", locator='text="Word Wrap"', mode="os")
    assert os_click["detail"]["reason"] == "offscreen" and os_click["detail"]["mode"] == "os"
    assert "mode=auto" in os_click["suggestion"]


def test_the_exit_menu_item_ends_the_app(wordpad: Wordpad) -> None:
    opened = wordpad.call("wpf_click", locator="menu:Format")  # a menu with items raises its Popup
    assert opened["completed"]
    # The app ends while it answers, so the answer may be lost: what it printed is the evidence.
    with contextlib.suppress(Exception):
        wordpad._call("wpf_click", {"locator": "menu:File/Exit"})
    wordpad.proc.wait(DEADLINE)
    code, out, err = wordpad.stop()
    assert code == 0, err
    lines = out.splitlines()
    assert [line for line in lines if line.startswith("word wrap")] == ["word wrap off", "word wrap on"]
    assert "format menu opened" in lines and lines[-1] == "exit"
