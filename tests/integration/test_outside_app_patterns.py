"""Patterns from apps nobody here wrote (docs/compatibility.md), reproduced in an app of our own.

scripts/mdi_records_app.py runs unmodified under `wpfprobe run --allow
interact`; the tests are an agent's MCP calls against the manifest it writes.
Found by driving a public pythonnet app (an MDI records app whose buttons
listen on MouseClick) through `wpfprobe mcp`:

- every control of an MDI child was found twice (the child is in
  Application.OpenForms, so it was searched as a window and again inside its
  parent's MdiClient): an action on any of them failed with LOCATOR_AMBIGUOUS
  listing the same node id twice, and the child's name was never unique;
- a toolkit click on a button did nothing when the app's handler was on
  MouseClick (PerformClick raises Click only); only mode=os worked;
- an OS click on a button laid out outside its dialog's client area (the
  About box of pythonnet's wordpad demo) answered "no change to the element":
  the pointer went to whatever was at that point, the button was never hit.
"""

from __future__ import annotations

import asyncio
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
SCRIPT = "scripts/mdi_records_app.py"
DEADLINE = 90.0


class RecordsApp:
    """The app under `wpfprobe run`, and an MCP client for its probe."""

    def __init__(self, home: Path) -> None:
        argv = [sys.executable, "-m", "wpfprobe", "run", "--allow", "interact", SCRIPT]
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

    def error(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self._call(tool, arguments)
        assert result.is_error, f"{tool} should have failed: {result.structured_content}"
        return result.structured_content  # type: ignore[no-any-return]

    def open_people(self) -> None:
        if not self.call("wpf_find_elements", locator="#peopleForm")["results"]:
            assert self.call("wpf_click", locator='text="People"')["completed"]

    def stop(self) -> tuple[int | None, str, str]:
        if self.proc.poll() is None:
            self.proc.kill()
        out, err = self.proc.communicate(timeout=30)
        return self.proc.returncode, out, err


@pytest.fixture(scope="module")
def records(display: str | None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RecordsApp]:
    app = RecordsApp(tmp_path_factory.mktemp("records"))
    try:
        yield app
    finally:
        app.stop()


def test_an_mdi_childs_controls_are_found_once(records: RecordsApp) -> None:
    """Each control inside an MDI child matched twice, with the same node id, and no action could take it."""
    records.open_people()
    found = records.call("wpf_find_elements", locator='text="Add"')["results"]
    assert len(found) == 1
    assert len(records.call("wpf_find_elements", locator="DataGridView")["results"]) == 1
    child = records.call("wpf_inspect_element", locator="#peopleForm")["node"]
    assert child["locator"].endswith("#peopleForm")  # its name is unique now, so the locator uses it
    # The child lives in its parent's tree, not beside it as a top-level window.
    assert [w["text"] for w in records.call("wpf_get_windows")["windows"]] == ["Records"]


def test_a_toolkit_click_runs_a_buttons_mouse_click_handler(records: RecordsApp) -> None:
    """Add and Save listen on MouseClick: a toolkit click ran neither (PerformClick raises Click only)."""
    records.open_people()
    clicked = records.call("wpf_click", locator="#addButton")
    assert [w["text"] for w in clicked["openedWindows"]] == ["Person"]
    records.call("wpf_type_text", locator="#nameBox", text="Linus")
    saved = records.call("wpf_click", locator="#saveButton")
    assert [w["text"] for w in saved["closedWindows"]] == ["Person"]
    rows = records.call("wpf_find_elements", locator="DataGridViewRow")["results"]
    assert [r["node"].get("text") for r in rows] == ["Ada", "Grace", "Linus"]


def test_keys_without_a_target_go_to_the_focused_control_of_the_active_mdi_child(records: RecordsApp) -> None:
    """MDI children are no longer windows of their own: keys with no target must still find the child's focus."""
    records.open_people()
    records.call("wpf_focus", locator="#filterBox")
    records.call("wpf_send_keys", keys="a d a")
    assert records.call("wpf_inspect_element", locator="#filterBox")["node"]["text"] == "ada"


def test_an_os_click_on_a_button_its_dialog_cuts_off_is_refused(records: RecordsApp) -> None:
    """The pointer went to whatever lay at the button's centre and the click was reported as done."""
    records.open_people()
    assert [w["text"] for w in records.call("wpf_click", locator="#addButton")["openedWindows"]] == ["Person"]
    refused = records.error("wpf_click", locator="#helpButton", mode="os")
    assert refused["code"] == "ELEMENT_NOT_INTERACTABLE" and refused["detail"]["reason"] == "offscreen"
    assert "personDialog" in refused["message"] and "mode=auto" in refused["suggestion"]
    # Input through the toolkit needs no pointer, as the suggestion says.
    records.call("wpf_click", locator="#helpButton")
    assert records.call("wpf_inspect_element", locator="#nameBox")["node"]["text"] == "help shown"
    records.call("wpf_click", locator="#saveButton")
