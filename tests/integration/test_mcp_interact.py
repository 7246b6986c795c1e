"""Driving the app through MCP alone: input, waits, mutation, tiers and the audit log.

The app runs in a process of its own (scripts/driven_app.py) with a probe that
allows mutation, under its own X display, and an agent's view is all the tests
have: the official SDK client over streamable HTTP with the bearer token.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

SCRIPT = Path(__file__).parent / "scripts" / "driven_app.py"
INTERACT_TOOLS = {
    "wpf_click", "wpf_type_text", "wpf_send_keys", "wpf_select", "wpf_toggle", "wpf_focus", "wpf_wait_for"
}  # fmt: skip


class Driven:
    """One app process with a probe at ``tier``, and a way to call its tools."""

    def __init__(self, tier: str, home: Path) -> None:
        self.home = home
        env = {**os.environ, "WPFPROBE_HOME": str(home)}
        env.pop("DISPLAY", None)  # its own display: OS input must reach this app only
        self.stderr = home / "stderr.txt"
        self.proc = subprocess.Popen(
            [sys.executable, str(SCRIPT), tier], env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr.open("w"),
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait(10)
            raise AssertionError(f"the driven app did not start:\n{self.stderr.read_text()[-3000:]}")
        started = json.loads(line)
        self.url, self.token = started["url"], started["token"]

    def session(self, body: Callable[[Any], Awaitable[Any]], deadline: float = 60.0) -> Any:
        async def converse() -> Any:
            import httpx2
            from mcp import Client
            from mcp.client.streamable_http import streamable_http_client

            headers = {"Authorization": f"Bearer {self.token}"}
            async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
                async with Client(streamable_http_client(self.url, http_client=http)) as client:
                    return await body(client)

        return asyncio.run(asyncio.wait_for(converse(), deadline))

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The structured content of a successful call (fails the test on a tool error)."""
        result = self.session(lambda c: c.call_tool(tool, arguments))
        assert not result.is_error, f"{tool} failed: {result.structured_content}"
        return result.structured_content  # type: ignore[no-any-return]

    def error(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The SPEC section 5 error of a call that must fail."""
        result = self.session(lambda c: c.call_tool(tool, arguments))
        assert result.is_error, f"{tool} should have failed: {result.structured_content}"
        return result.structured_content  # type: ignore[no-any-return]

    def text_of(self, locator: str) -> str | None:
        return self.call("wpf_inspect_element", locator=locator)["node"].get("text")

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
def driven(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Driven]:
    app = Driven("mutate", tmp_path_factory.mktemp("driven"))
    try:
        yield app
    finally:
        violations = app.close()
    assert violations == [], violations


# -- tiers ----------------------------------------------------------------------------


def test_the_mutate_tier_lists_every_tool_with_schemas_and_hints(driven: Driven) -> None:
    listed = driven.session(lambda c: c.list_tools())
    tools = {t.name: t for t in listed.tools}
    assert INTERACT_TOOLS | {"wpf_set_property", "wpf_get_session_info"} <= set(tools)
    assert tools["wpf_click"].annotations.read_only_hint is False
    assert tools["wpf_set_property"].annotations.destructive_hint is True
    assert tools["wpf_wait_for"].annotations.read_only_hint is True
    assert tools["wpf_click"].output_schema is not None
    assert "clickCount" in tools["wpf_click"].input_schema["properties"]
    info = driven.call("wpf_get_session_info")
    assert info["tier"] == "mutate" and "input" in info["capabilities"]


def test_the_interact_tier_has_input_but_refuses_set_property(tmp_path: Path) -> None:
    app = Driven("interact", tmp_path)
    try:
        listed = app.session(lambda c: c.list_tools())
        names = {t.name for t in listed.tools}
        assert names >= INTERACT_TOOLS and "wpf_set_property" not in names
        err = app.error("wpf_set_property", locator="#statusLabel", propertyName="Text", value="x")
        assert err["code"] == "MUTATION_DISABLED" and "mutate" in err["suggestion"]
        assert app.call("wpf_focus", locator="#nameBox")["action"] == "focus"
    finally:
        assert app.close() == []


# -- filling the form, as the "done when" says ------------------------------------


def test_an_agent_fills_the_form_presses_save_waits_and_sees_the_result(driven: Driven) -> None:
    typed = driven.call("wpf_type_text", locator="#nameBox", text="Grace")
    assert typed["before"]["text"] == "Ada" and typed["after"]["text"] == "Grace"
    assert "text" in typed["changed"] and typed["completed"] is True
    assert typed["focused"]["name"] == "nameBox"
    # The app's TextChanged handler ran: the data-bound greeting follows.
    assert driven.text_of("#greetingLabel") == "Hello, Grace"

    clicked = driven.call("wpf_click", locator="Button#saveButton")
    assert clicked["node"]["name"] == "saveButton" and clicked["completed"] is True
    waited = driven.call(
        "wpf_wait_for", locator="#statusLabel", condition="propertyEquals", property="Text", value="Saved Grace"
    )
    assert waited["node"]["text"] == "Saved Grace" and waited["observed"] == "Saved Grace"

    appended = driven.call("wpf_type_text", locator="#nameBox", text=" Hopper", replace=False)
    assert appended["after"]["text"] == "Grace Hopper"
    restored = driven.call("wpf_type_text", locator="#nameBox", text="Ada")
    assert restored["after"]["text"] == "Ada"


def test_typing_into_a_password_box_never_shows_the_text(driven: Driven) -> None:
    result = driven.session(lambda c: c.call_tool("wpf_type_text", {"locator": "#passwordBox", "text": "s3cret!"}))
    assert not result.is_error
    dumped = json.dumps(result.structured_content) + "".join(getattr(b, "text", "") for b in result.content)
    assert "s3cret" not in dumped and "hunter2" not in dumped
    assert result.structured_content["after"]["text"] == "[REDACTED]"


def test_toggle_sets_a_state_and_flips(driven: Driven) -> None:
    on = driven.call("wpf_toggle", locator="#subscribeCheck", state=True)
    assert on["before"]["checked"] is False and on["after"]["checked"] is True and on["changed"] == ["checked"]
    assert driven.text_of("#statusLabel") == "Subscribed"
    again = driven.call("wpf_toggle", locator="#subscribeCheck", state=True)
    assert again["changed"] == [] and again["after"]["checked"] is True
    flipped = driven.call("wpf_toggle", locator="#subscribeCheck")
    assert flipped["after"]["checked"] is False
    assert driven.text_of("#statusLabel") == "Unsubscribed"


def test_select_by_text_and_by_index_and_a_missing_item_lists_the_items(driven: Driven) -> None:
    picked = driven.call("wpf_select", locator="#itemsList", item="cherry")
    assert picked["after"]["selectedItem"] == "Cherry" and picked["after"]["selectedIndex"] == 2
    assert driven.text_of("#statusLabel") == "Selected Cherry"
    combo = driven.call("wpf_select", locator="#sizeCombo", index=1)
    assert combo["before"]["selectedItem"] == "Small" and combo["after"]["selectedItem"] == "Medium"
    err = driven.error("wpf_select", locator="#itemsList", item="Kiwi")
    assert err["code"] == "INVALID_ARGUMENT" and err["detail"]["items"] == ["Apple", "Banana", "Cherry"]
    err = driven.error("wpf_select", locator="#itemsList", index=7)
    assert err["code"] == "INVALID_ARGUMENT" and err["detail"]["count"] == 3
    err = driven.error("wpf_select", locator="#saveButton", item="x")
    assert err["code"] == "ELEMENT_NOT_INTERACTABLE" and err["detail"]["reason"] == "unsupported"


def test_keys_move_focus_run_shortcuts_and_press_the_default_button(driven: Driven) -> None:
    driven.call("wpf_set_property", locator="#statusLabel", propertyName="Text", value="Ready")
    tab = driven.call("wpf_send_keys", locator="#nameBox", keys="Tab")
    assert tab["focused"]["name"] == "passwordBox"
    driven.call("wpf_send_keys", keys="Ctrl+S")  # to whatever has focus: the menu shortcut
    assert driven.text_of("#statusLabel") == "Saved Ada"
    driven.call("wpf_set_property", locator="#statusLabel", propertyName="Text", value="Ready")
    driven.call("wpf_send_keys", locator="#nameBox", keys="Enter")  # the form's AcceptButton
    assert driven.text_of("#statusLabel") == "Saved Ada"
    err = driven.error("wpf_send_keys", locator="#nameBox", keys="Ctrl+Hyper")
    assert err["code"] == "INVALID_ARGUMENT" and "Ctrl+S" in err["suggestion"]


def test_focus_reports_where_focus_went(driven: Driven) -> None:
    result = driven.call("wpf_focus", locator="#passwordBox")
    assert result["after"]["focused"] is True and result["focused"]["name"] == "passwordBox"


# -- menus and a modal dialog ------------------------------------------------------------------


def test_a_menu_item_clicked_by_its_path_opens_a_modal_dialog_without_hanging(driven: Driven) -> None:
    opened = driven.call("wpf_click", locator="menu:File/Save As")
    assert opened["node"]["name"] == "saveAsMenuItem"
    assert opened["completed"] is False  # the handler waits in ShowDialog
    assert [w["name"] for w in opened["openedWindows"]] == ["saveAsDialog"]
    assert opened["openedWindows"][0]["title"] == "Save As"

    # The main window is blocked while the dialog is open, and the probe says so.
    err = driven.error("wpf_click", locator="#saveButton")
    assert err["code"] == "ELEMENT_NOT_INTERACTABLE" and err["detail"]["reason"] == "modal"
    assert err["detail"]["blockedBy"]["name"] == "saveAsDialog"

    driven.call("wpf_type_text", locator="#fileNameBox", text="report.txt")
    closed = driven.call("wpf_click", locator="#okButton")
    # The button went with its dialog: disposed (gone), or at least no longer shown.
    # Structured content leaves out what is None: a disposed button has no "after".
    assert closed.get("after") is None or closed["after"]["visible"] is False
    assert closed["changed"] == ["gone"] or "visible" in closed["changed"]
    assert [w["name"] for w in closed["closedWindows"]] == ["saveAsDialog"]
    assert driven.text_of("#statusLabel") == "Saved as report.txt"
    assert driven.call("wpf_wait_for", locator="#saveAsDialog", condition="gone")["observed"] == 0


# -- waits -------------------------------------------------------------------------------------


def test_wait_for_succeeds_when_the_app_changes_later_and_times_out_with_the_last_value(driven: Driven) -> None:
    clicked = driven.call("wpf_click", locator="#loadButton")
    assert clicked["completed"] is True
    assert driven.text_of("#statusLabel") == "Loading"  # the click returned before the timer fired
    waited = driven.call("wpf_wait_for", locator="#statusLabel", condition="textMatches", value="^Load(ed)$")
    assert waited["observed"] == "Loaded" and waited["polls"] >= 2 and waited["elapsedMs"] >= 100

    err = driven.error("wpf_wait_for", locator="#statusLabel", condition="textMatches", value="^Never$", timeoutMs=300)
    assert err["code"] == "OPERATION_TIMED_OUT" and err["detail"]["lastObserved"] == "Loaded"
    err = driven.error("wpf_wait_for", locator="#noSuchThing", condition="visible", timeoutMs=200)
    assert err["code"] == "OPERATION_TIMED_OUT" and err["detail"]["lastObserved"] == "<not found>"
    assert driven.call("wpf_wait_for", locator="#hiddenLabel", condition="hidden")["node"]["name"] == "hiddenLabel"
    assert driven.call("wpf_wait_for", locator="#disabledButton", condition="disabled", timeoutMs=0)["polls"] == 1
    err = driven.error("wpf_wait_for", locator="#statusLabel", condition="propertyEquals", value="x")
    assert err["code"] == "INVALID_ARGUMENT"


# -- refusals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("locator", "reason"),
    [
        ("#disabledButton", "disabled"),
        ("#hiddenLabel", "hidden"),
        ("#coveredButton", "covered"),
    ],
)
def test_an_element_that_cannot_be_clicked_is_refused_with_the_reason(
    driven: Driven, locator: str, reason: str
) -> None:
    err = driven.error("wpf_click", locator=locator)
    assert err["code"] == "ELEMENT_NOT_INTERACTABLE" and err["detail"]["reason"] == reason
    assert err["suggestion"]
    if reason == "covered":
        assert err["detail"]["blockedBy"]["name"] == "coverPanel"


def test_an_action_on_an_ambiguous_locator_lists_the_candidates(driven: Driven) -> None:
    err = driven.error("wpf_click", locator="Button")
    assert err["code"] == "LOCATOR_AMBIGUOUS" and len(err["detail"]["candidates"]) >= 3


def test_zero_size_elements_are_refused(driven: Driven) -> None:
    driven.call("wpf_set_property", locator="#loadButton", propertyName="Size", value="0,0")
    try:
        err = driven.error("wpf_click", locator="#loadButton")
        assert err["code"] == "ELEMENT_NOT_INTERACTABLE" and err["detail"]["reason"] == "zero-size"
    finally:
        driven.call("wpf_set_property", locator="#loadButton", propertyName="Size", value="75,23")


# -- set_property ---------------------------------------------------------------------------------


def test_set_property_converts_with_the_fixed_table_and_reports_both_values(driven: Driven) -> None:
    result = driven.call("wpf_set_property", locator="#formPanel", propertyName="Padding", value="4, 2, 4, 2")
    assert result["previousValue"] == "{Left=0,Top=0,Right=0,Bottom=0}"
    assert result["newValue"] == "{Left=4,Top=2,Right=4,Bottom=2}" and result["valueSource"] == "local"
    color = driven.call("wpf_set_property", locator="#statusLabel", propertyName="ForeColor", value="#FF0000")
    assert "255" in str(color["newValue"]) or "Red" in str(color["newValue"]) or "FF0000" in str(color["newValue"])
    dock = driven.call("wpf_set_property", locator="#greetingLabel", propertyName="TextAlign", value="MiddleCenter")
    assert dock["newValue"] == "MiddleCenter"


@pytest.mark.parametrize(
    ("locator", "prop", "value", "code"),
    [
        ("#saveButton", "Bottom", "3", "PROPERTY_READ_ONLY"),
        ("#saveButton", "Font", "Arial", "UNSUPPORTED_PROPERTY_TYPE"),
        ("#saveButton", "Width", "wide", "TYPE_CONVERSION_FAILED"),
        ("#passwordBox", "Text", "x", "PROPERTY_REDACTED"),
        ("#saveButton", "NoSuchProperty", "x", "PROPERTY_NOT_FOUND"),
        ("#noSuchThing", "Text", "x", "LOCATOR_NOT_FOUND"),
    ],
)
def test_set_property_errors(driven: Driven, locator: str, prop: str, value: str, code: str) -> None:
    err = driven.error("wpf_set_property", locator=locator, propertyName=prop, value=value)
    assert err["code"] == code and err["suggestion"]
    if code == "TYPE_CONVERSION_FAILED":
        assert err["detail"]["expectedFormat"] and "wide" not in json.dumps(err)


# -- OS input ----------------------------------------------------------------------------------------


def test_os_mode_clicks_and_types_with_real_input_events(driven: Driven) -> None:
    driven.call("wpf_set_property", locator="#statusLabel", propertyName="Text", value="Ready")
    typed = driven.call("wpf_type_text", locator="#nameBox", text="Linus", mode="os")
    assert typed["mode"] == "os" and typed["after"]["text"] == "Linus"
    clicked = driven.call("wpf_click", locator="#saveButton", mode="os")
    assert clicked["mode"] == "os"
    assert driven.call("wpf_wait_for", locator="#statusLabel", condition="textMatches", value="^Saved Linus$")
    err = driven.error("wpf_click", locator="#coveredButton", mode="os")
    assert err["detail"]["reason"] == "covered"
    driven.call("wpf_type_text", locator="#nameBox", text="Ada")


# -- the audit log --------------------------------------------------------------------------------------


def test_every_action_is_audited_without_values_and_tampering_is_detected(driven: Driven, tmp_path: Path) -> None:
    driven.call("wpf_type_text", locator="#nameBox", text="Audited Name")
    driven.call("wpf_type_text", locator="#nameBox", text="Ada")
    log = driven.home / "audit" / "driven.jsonl"
    assert log.exists(), sorted(p.name for p in (driven.home / "audit").iterdir())
    lines = log.read_text().splitlines()
    entries = [json.loads(x) for x in lines]
    tools = {e["tool"] for e in entries}
    assert {"wpf_type_text", "wpf_click", "wpf_set_property"} <= tools
    assert "wpf_wait_for" not in tools  # a wait changes nothing
    assert any(e["outcome"] == "ELEMENT_NOT_INTERACTABLE" for e in entries)
    text = log.read_text()
    for secret in ("Audited Name", "s3cret", "report.txt", "4, 2, 4, 2"):
        assert secret not in text

    cli = [sys.executable, "-m", "wpfprobe", "audit", "verify"]
    key = ["--key-file", str(driven.home / "audit.key")]
    ok = subprocess.run([*cli, str(log), *key], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stdout + ok.stderr

    copy = tmp_path / "copy.jsonl"
    tampered = list(lines)
    assert '"target":"' in tampered[1]
    tampered[1] = tampered[1].replace('"target":"', '"target":"x', 1)
    copy.write_text("\n".join(tampered) + "\n")
    bad = subprocess.run([*cli, str(copy), *key, "--ignore-missing-head"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "line 2" in bad.stdout, bad.stdout + bad.stderr


def test_os_mode_refuses_untypable_text_before_clearing_the_field(driven: Driven) -> None:
    before = driven.text_of("#nameBox")
    err = driven.error("wpf_type_text", locator="#nameBox", text="caf\u00e9 \u65e5", mode="os")
    assert err["code"] == "INVALID_ARGUMENT"
    assert driven.text_of("#nameBox") == before
