"""The interact and mutate tiers (``_actions.Driver``) over the fake toolkit.

Actions run through the Python API (``probe.locator(...).click()``) on a real
worker thread standing in for the UI thread; a handler that opens a "modal"
runs a nested loop on it (``UiWorker.pump_until``).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fake_toolkit import (
    FakeApp,
    FakeElement,
    FakeOsInput,
    FakeProp,
    Harness,
    by_name,
    harness,
)

from wpfprobe import audit
from wpfprobe.core.calls import CallCancelled, CallControl, controlling
from wpfprobe.core.convert import Converted
from wpfprobe.core.errors import (
    DispatcherBusyError,
    ElementNotInteractableError,
    InvalidArgumentError,
    LocatorAmbiguousError,
    LocatorNotFoundError,
    NodeNotFoundError,
    OperationTimedOutError,
    ProbeError,
    PropertyNotFoundError,
    PropertyReadOnlyError,
    PropertyRedactedError,
)
from wpfprobe.core.keys import parse_keys
from wpfprobe.core.protocol import Blocker, Bounds
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Target

SECRET_TEXT = "typed-s3cret-Zq81"
SECRET_VALUE = "set-s3cret-Wm42"


def quiet(**overrides: Any) -> ProbeSettings:
    """No audit log, no OS-input settle delay."""
    return ProbeSettings(audit=False, os_input_settle=0, **overrides)


def audited(tmp_path: Path, **overrides: Any) -> ProbeSettings:
    return ProbeSettings(
        audit_log=tmp_path / "audit" / "fake-demo.jsonl",
        audit_key_file=tmp_path / "keys" / "audit.key",
        os_input_settle=0,
        **overrides,
    )


@pytest.fixture
def h() -> Iterator[Harness]:
    with harness(settings=quiet()) as hh:
        yield hh


def later(delay: float, fn: Callable[[], Any]) -> threading.Timer:
    """Run ``fn`` after ``delay`` seconds from a timer thread (the test joins it)."""
    timer = threading.Timer(delay, fn)
    timer.start()
    return timer


def settle(h: Harness) -> None:
    """Wait until everything queued on the fake UI thread so far has run."""
    h.ui.run(lambda: None, timeout=10)


# -- click -----------------------------------------------------------------------------


def test_click_reports_before_after_changed_and_focus(h: Harness) -> None:
    save = by_name(h.app, "saveButton")
    threads: list[int] = []

    def on_click(el: FakeElement) -> None:
        threads.append(threading.get_ident())
        el.text = "Saved"

    save.on_click = on_click
    result = h.probe.locator("#saveButton").click()

    assert result.action == "click"
    assert result.mode == "toolkit"
    assert result.completed is True
    assert result.app_error is None
    assert result.node.name == "saveButton"
    assert result.node.text == "Save"  # as it was before
    assert result.before.text == "Save"
    assert result.after is not None and result.after.text == "Saved"
    assert result.changed == ["text"]
    assert result.focused is not None and result.focused.name == "userName"
    assert result.opened_windows == [] and result.closed_windows == []
    # The handler ran once, on the UI thread, never on the caller's.
    assert threads == [h.worker.ident]
    assert threads[0] != threading.get_ident()
    assert [(kind, el, args) for kind, el, args, _ in h.adapter.actions] == [
        ("click", save, {"button": "left", "count": 1})
    ]


def test_click_passes_button_and_count(h: Harness) -> None:
    h.probe.locator("#saveButton").click(button="right", click_count=2)
    h.probe.locator("#saveButton").click(button="middle", click_count=3)
    assert [args for _, _, args, _ in h.adapter.actions] == [
        {"button": "right", "count": 2},
        {"button": "middle", "count": 3},
    ]


def test_click_by_node_id_and_json_shape(h: Harness) -> None:
    node_id = h.id_of(by_name(h.app, "saveButton"))
    result = h.probe.node(node_id).click()
    assert result.node.node_id == node_id
    shape = result.to_json_dict()
    assert shape["completed"] is True
    assert shape["before"]["text"] == "Save"
    assert {"openedWindows", "closedWindows", "changed", "node", "after"} <= set(shape)


def test_click_on_a_removed_node_id_is_node_not_found(h: Harness) -> None:
    save = by_name(h.app, "saveButton")
    node_id = h.id_of(save)
    h.ui.run(lambda: by_name(h.app, "toolbar").remove(save, dispose=True))
    with pytest.raises(NodeNotFoundError) as info:
        h.probe.node(node_id).click()
    assert info.value.code == "NODE_NOT_FOUND"
    assert h.adapter.actions == []


def test_a_handler_that_closes_its_own_window_reports_gone(h: Harness) -> None:
    settings_window = by_name(h.app, "settingsWindow")
    ok = by_name(settings_window, "okButton")  # another okButton is in the hidden tool window
    ok.on_click = lambda el: h.app.close(settings_window)
    result = h.probe.locator("Window#settingsWindow Button#okButton").click()
    assert result.completed is True
    assert result.after is None
    assert result.changed == ["gone"]
    assert [w.name for w in result.closed_windows] == ["settingsWindow"]
    assert result.closed_windows[0].title == "Settings"


def test_actions_stay_on_the_ui_thread() -> None:
    with harness(settings=quiet(check_thread_affinity=True)) as h:
        box = h.probe.locator("#userName")
        h.probe.locator("#saveButton").click()
        box.type_text("bob")
        box.send_keys("End")
        h.probe.locator("#rememberMe").toggle()
        h.probe.locator("#bigList").select("Item 2")
        h.probe.locator("#saveButton").focus()
        box.set_property("Width", "120")
        box.wait_for("textMatches", value="bob")
        assert h.engine.thread_violations == []
        assert h.objects.off_thread_calls == []
        assert {ident for *_, ident in h.adapter.actions} == {h.worker.ident}


# -- the other actions ---------------------------------------------------------------------


def test_type_text_replaces_or_appends_and_focuses(h: Harness) -> None:
    user = by_name(h.app, "userName")
    user.focused = False
    result = h.probe.locator("#userName").type_text("bob")
    assert result.action == "type"
    assert result.before.text == "alice" and result.after is not None and result.after.text == "bob"
    assert result.changed == ["text", "focused"]
    assert result.focused is not None and result.focused.name == "userName"

    result = h.probe.locator("#userName").type_text(" smith", replace=False)
    assert user.text == "bob smith"
    assert result.changed == ["text"]


def test_type_text_accepts_the_longest_text(h: Harness) -> None:
    text = "x" * 10_000
    h.probe.locator("#userName").type_text(text)
    assert by_name(h.app, "userName").text == text


def test_send_keys_to_a_target_focuses_it(h: Harness) -> None:
    save = by_name(h.app, "saveButton")
    result = h.probe.locator("#saveButton").send_keys("ctrl+shift+s Return")
    assert result.action == "keys"
    assert save.keys == list(parse_keys("Ctrl+Shift+S Enter"))
    assert save.focused and not by_name(h.app, "userName").focused
    assert result.focused is not None and result.focused.name == "saveButton"
    assert result.changed == ["focused"]


def test_send_keys_without_target_goes_to_the_focused_element(h: Harness) -> None:
    result = h.probe.send_keys("Tab Tab")
    assert result.node.name == "userName"
    assert by_name(h.app, "userName").keys == list(parse_keys("Tab Tab"))
    # The engine resolved the focused element and handed it to the adapter.
    assert [(kind, el) for kind, el, *_ in h.adapter.actions] == [("keys", by_name(h.app, "userName"))]


def test_send_keys_without_target_and_without_focus_is_node_not_found(h: Harness) -> None:
    by_name(h.app, "userName").focused = False
    with pytest.raises(NodeNotFoundError) as info:
        h.probe.send_keys("Enter")
    assert info.value.code == "NODE_NOT_FOUND"
    assert info.value.suggestion
    assert h.adapter.actions == []


def test_toggle_flips_and_sets(h: Harness) -> None:
    box = h.probe.locator("#rememberMe")
    result = box.toggle()
    assert result.action == "toggle"
    assert result.before.checked is False and result.after is not None and result.after.checked is True
    assert result.changed == ["checked"]
    assert box.toggle(True).changed == []
    result = box.toggle(False)
    assert result.after is not None and result.after.checked is False


def test_select_by_item_and_by_index(h: Harness) -> None:
    result = h.probe.locator("#bigList").select("Item 3")
    assert result.action == "select"
    assert result.before.selected_index == -1 and result.before.selected_item is None
    assert result.after is not None
    assert (result.after.selected_index, result.after.selected_item) == (3, "Item 3")
    assert result.changed == ["selectedIndex", "selectedItem"]
    result = h.probe.locator("#bigList").select(index=119)
    assert result.after is not None and result.after.selected_item == "Item 119"


def test_select_with_neither_item_nor_index_selects_the_target_item_itself(h: Harness) -> None:
    items = by_name(h.app, "bigList").children
    for item in items:
        item.item_selected = False  # items that know whether they are selected
    result = h.probe.locator('#bigList > text="Item 7"').select()
    assert result.before.selected is False and result.after is not None and result.after.selected is True
    assert result.changed == ["selected"]
    kind, element, args, _ = h.adapter.actions[-1]
    assert (kind, element, args) == ("select", items[7], {"item": None, "index": None})
    assert by_name(h.app, "bigList").selected == 7


def test_select_with_neither_on_what_is_not_an_item_is_refused_before_acting(h: Harness) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        h.probe.locator("#saveButton").select()
    assert "item or index" in info.value.message and info.value.suggestion
    assert h.adapter.actions == [] and h.ui.posts == 0


def test_focus(h: Harness) -> None:
    result = h.probe.locator("#saveButton").focus()
    assert result.action == "focus"
    assert result.before.focused is False and result.after is not None and result.after.focused is True
    assert result.changed == ["focused"]
    assert result.focused is not None and result.focused.name == "saveButton"


def test_menu_locator_clicks_through_the_logical_tree(h: Harness) -> None:
    clicked: list[str] = []
    save_as = FakeElement("MenuItem", "saveAsItem", text="Save _As...", on_click=lambda el: clicked.append("saveAs"))
    menu = FakeElement(
        "Menu",
        children=[
            FakeElement(
                "MenuItem",
                text="_File",
                children=[
                    FakeElement("Border", visual_only=True, children=[FakeElement("MenuItem", text="_Open"), save_as])
                ],
            )
        ],
    )
    by_name(h.app, "mainWindow").children[0].add(menu)
    result = h.probe.locator("menu:file/SAVE AS...").click()
    assert result.node.name == "saveAsItem"
    assert clicked == ["saveAs"]
    with pytest.raises(LocatorNotFoundError):
        h.probe.locator("menu:File/Save").click()


# -- modal dialogs ---------------------------------------------------------------------------


def test_a_modal_dialog_does_not_hold_the_probe(h: Harness) -> None:
    release = threading.Event()
    handler_finished = threading.Event()
    ok = FakeElement("Button", "dialogOk", text="OK")
    dialog = FakeElement(
        "Window", "confirmDialog", text="Confirm", bounds=Bounds(100, 100, 300, 200),
        children=[FakeElement("StackPanel", children=[ok])],
    )  # fmt: skip

    def show_dialog(el: FakeElement) -> None:
        h.app.open(dialog)
        h.worker.pump_until(release, timeout=20)  # ShowDialog: a nested loop until it closes
        el.text = "Saved"
        handler_finished.set()

    def close_dialog(el: FakeElement) -> None:
        h.app.close(dialog)
        release.set()

    by_name(h.app, "saveButton").on_click = show_dialog
    ok.on_click = close_dialog

    started = time.monotonic()
    first = h.probe.locator("#saveButton").click()
    assert time.monotonic() - started < 3  # it did not wait for the dialog
    assert first.completed is False
    assert [w.name for w in first.opened_windows] == ["confirmDialog"]
    opened = first.opened_windows[0]
    assert opened.title == "Confirm" and opened.active is True
    assert opened.bounds is not None and (opened.bounds.width, opened.bounds.height) == (300, 200)
    assert first.closed_windows == []
    assert first.app_error is None
    assert first.after is not None and first.after.text == "Save"  # the handler has not got that far
    assert not handler_finished.is_set()
    assert h.worker.nesting == 1

    # The probe keeps answering from inside the dialog's loop.
    assert "Confirm" in [w.title for w in h.probe.windows()]
    assert h.probe.locator("#dialogOk").node().text == "OK"
    assert h.probe.locator("#dialogOk").count() == 1

    second = h.probe.locator("#dialogOk").click()
    assert second.completed is True
    assert [w.name for w in second.closed_windows] == ["confirmDialog"]
    assert second.opened_windows == []
    assert second.after is None and second.changed == ["gone"]

    assert handler_finished.wait(5)
    settle(h)
    assert h.worker.nesting == 0
    assert by_name(h.app, "saveButton").text == "Saved"
    assert "Confirm" not in [w.title for w in h.probe.windows()]
    assert h.ui.dropped == []


# -- what the app's handler did ------------------------------------------------------------------


def test_an_app_handler_error_is_reported_not_raised(h: Harness) -> None:
    def fail(el: FakeElement) -> None:
        el.text = "half done"
        raise RuntimeError("database is locked\n  at Save()")

    by_name(h.app, "saveButton").on_click = fail
    result = h.probe.locator("#saveButton").click()
    assert result.completed is True
    assert result.app_error is not None
    assert result.app_error.type == "RuntimeError"
    assert result.app_error.message == "database is locked"
    assert result.changed == ["text"]  # the input happened: its effects are reported too
    assert h.ui.dropped == []  # caught by the action itself, not by post's guard
    assert h.probe.locator("#saveButton").node().text == "half done"  # the probe still works


def test_an_app_error_names_the_innermost_dotnet_exception(h: Harness) -> None:
    class DotNetError(Exception):
        InnerException = None
        Message = "Value cannot be null.\r\nParameter name: item"

        def GetType(self) -> Any:
            return SimpleNamespace(Name="ArgumentNullException")

    class Wrapper(Exception):
        def __init__(self, inner: BaseException) -> None:
            super().__init__("TargetInvocationException")
            self.InnerException = inner

    def fail(el: FakeElement) -> None:
        raise Wrapper(Wrapper(DotNetError()))

    by_name(h.app, "saveButton").on_click = fail
    error = h.probe.locator("#saveButton").click().app_error
    assert error is not None
    assert (error.type, error.message) == ("ArgumentNullException", "Value cannot be null.")


def test_an_app_error_message_is_capped(h: Harness) -> None:
    def fail(el: FakeElement) -> None:
        raise ValueError("x" * 5000)

    by_name(h.app, "saveButton").on_click = fail
    error = h.probe.locator("#saveButton").click().app_error
    assert error is not None and error.message == "x" * 500


def test_an_app_error_in_another_action(h: Harness) -> None:
    def fail(el: FakeElement, kind: str) -> None:
        raise KeyError(kind)

    by_name(h.app, "userName").on_action = fail
    result = h.probe.locator("#userName").type_text("bob")
    assert result.app_error is not None and result.app_error.type == "KeyError"
    assert result.after is not None and result.after.text == "bob"


def test_a_probe_error_from_the_posted_action_is_raised(h: Harness) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        h.probe.locator("#bigList").select("Item 500")
    assert info.value.code == "INVALID_ARGUMENT"
    assert "Item 500" in info.value.message
    assert info.value.detail["itemCount"] == 120
    with pytest.raises(InvalidArgumentError):
        h.probe.locator("#bigList").select(index=120)
    assert by_name(h.app, "bigList").selected == -1
    # The refusal happened inside the posted action, on the UI thread.
    assert [kind for kind, *_ in h.adapter.actions] == ["select", "select"]
    assert h.ui.posts == 2


# -- not interactable ------------------------------------------------------------------------------


def test_a_covered_element_names_what_covers_it(h: Harness) -> None:
    overlay = FakeElement("Border", "busyOverlay", bounds=Bounds(0, 0, 800, 600))
    by_name(h.app, "mainWindow").children[0].add(overlay)
    save = by_name(h.app, "saveButton")
    save.covered_by = overlay
    save_id = h.id_of(save)
    with pytest.raises(ElementNotInteractableError) as info:
        h.probe.locator("#saveButton").click()
    err = info.value
    assert err.code == "ELEMENT_NOT_INTERACTABLE"
    assert err.detail["reason"] == "covered"
    assert err.detail["action"] == "click"
    assert err.detail["nodeId"] == save_id
    blocked_by = err.detail["blockedBy"]
    assert isinstance(blocked_by, dict)
    assert blocked_by["name"] == "busyOverlay" and blocked_by["type"] == "Border"
    assert blocked_by["nodeId"] == h.id_of(overlay)
    assert blocked_by["locator"]
    assert "Button#saveButton" in err.message and "covered" in err.message
    assert "blockedBy" in (err.suggestion or "")
    json.dumps(err.to_dict())  # plain data only
    assert h.adapter.actions == [] and h.ui.posts == 0


@pytest.mark.parametrize(
    ("locator", "act", "reason"),
    [
        ("#cancelButton", lambda loc: loc.click(), "disabled"),
        ("#statusLabel", lambda loc: loc.click(), "hidden"),
        ("#saveButton", lambda loc: loc.select("Save"), "unsupported"),
        ("#saveButton", lambda loc: loc.toggle(), "unsupported"),
        ("#readOnlyBox", lambda loc: loc.type_text("x"), "read-only"),
        ("#flatButton", lambda loc: loc.click(), "zero-size"),
        ("#insideDisabled", lambda loc: loc.focus(), "disabled"),
    ],
)
def test_blockers(h: Harness, locator: str, act: Callable[[Any], Any], reason: str) -> None:
    panel = by_name(h.app, "toolbar")
    panel.add(FakeElement("TextBox", "readOnlyBox", text="fixed", read_only=True))
    panel.add(FakeElement("Button", "flatButton", text="Flat", bounds=Bounds(0, 0, 0, 30)))
    panel.add(FakeElement("StackPanel", enabled=False, children=[FakeElement("Button", "insideDisabled", text="In")]))
    with pytest.raises(ElementNotInteractableError) as info:
        act(h.probe.locator(locator))
    err = info.value
    assert err.detail["reason"] == reason
    assert "blockedBy" not in err.detail
    assert err.suggestion
    assert h.adapter.actions == []


def test_ambiguous_and_missing_targets(h: Harness) -> None:
    with pytest.raises(LocatorAmbiguousError) as info:
        h.probe.locator("#dup").click()
    assert info.value.code == "LOCATOR_AMBIGUOUS"
    assert info.value.detail["count"] == 3
    with pytest.raises(LocatorNotFoundError) as missing:
        h.probe.locator("#noSuchThing").type_text("x")
    assert missing.value.code == "LOCATOR_NOT_FOUND"
    assert h.adapter.actions == [] and h.ui.posts == 0
    # :nth picks one of the candidates.
    assert h.probe.locator("Button#dup").nth(1).click().node.text == "Dup B"


# -- bad arguments -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "act",
    [
        pytest.param(lambda p: p.locator("#saveButton").click(click_count=0), id="click_count=0"),
        pytest.param(lambda p: p.locator("#saveButton").click(click_count=4), id="click_count=4"),
        pytest.param(lambda p: p.locator("#saveButton").click(click_count=True), id="click_count=True"),
        pytest.param(lambda p: p.locator("#saveButton").click(click_count=1.0), id="click_count=1.0"),
        pytest.param(lambda p: p.locator("#saveButton").click(click_count="1"), id="click_count='1'"),
        pytest.param(lambda p: p.locator("#saveButton").click(button="side"), id="button=side"),
        pytest.param(lambda p: p.locator("#saveButton").click(button=None), id="button=None"),
        pytest.param(lambda p: p.locator("#saveButton").click(mode="x"), id="click-mode=x"),
        pytest.param(lambda p: p.locator("#saveButton").click(mode="toolkit"), id="click-mode=toolkit"),
        pytest.param(lambda p: p.locator("#userName").type_text("a\x00b"), id="type-NUL"),
        pytest.param(lambda p: p.locator("#userName").type_text("x" * 10_001), id="type-too-long"),
        pytest.param(lambda p: p.locator("#userName").type_text(5), id="type-not-str"),
        pytest.param(lambda p: p.locator("#userName").type_text(None), id="type-None"),
        pytest.param(lambda p: p.locator("#userName").type_text("x", mode="x"), id="type-mode=x"),
        pytest.param(lambda p: p.locator("#bigList").select("Item 1", index=1), id="select-both"),
        pytest.param(lambda p: p.locator("#bigList").select(), id="select-neither"),
        pytest.param(lambda p: p.locator("#bigList").select(""), id="select-empty-item"),
        pytest.param(lambda p: p.locator("#bigList").select(5), id="select-item-not-str"),
        pytest.param(lambda p: p.locator("#bigList").select("x" * 1001), id="select-item-too-long"),
        pytest.param(lambda p: p.locator("#bigList").select(index=-1), id="select-index=-1"),
        pytest.param(lambda p: p.locator("#bigList").select(index=True), id="select-index=True"),
        pytest.param(lambda p: p.locator("#rememberMe").toggle("yes"), id="toggle-state=yes"),
        pytest.param(lambda p: p.locator("#rememberMe").toggle(1), id="toggle-state=1"),
        pytest.param(lambda p: p.send_keys(""), id="keys-empty"),
        pytest.param(lambda p: p.send_keys("Ctrl++"), id="keys-Ctrl++"),
        pytest.param(lambda p: p.send_keys("Hyper+S"), id="keys-bad-modifier"),
        pytest.param(lambda p: p.send_keys("Ctrl"), id="keys-modifier-only"),
        pytest.param(lambda p: p.locator("#userName").send_keys("Nope"), id="keys-unknown"),
        pytest.param(lambda p: p.locator("#userName").send_keys(" ".join(["Tab"] * 51)), id="keys-too-many"),
        pytest.param(lambda p: p.send_keys("Enter", mode="x"), id="keys-mode=x"),
        pytest.param(lambda p: p.locator("#userName").set_property("", "1"), id="set-empty-name"),
        pytest.param(lambda p: p.locator("#userName").set_property("Width", 12), id="set-value-not-str"),
        pytest.param(lambda p: p.locator("#userName").set_property("Width", "1" * 10_001), id="set-too-long"),
        pytest.param(lambda p: p.locator("#userName").wait_for("appears"), id="wait-bad-condition"),
        pytest.param(lambda p: p.locator("#userName").wait_for(timeout=61), id="wait-timeout=61"),
        pytest.param(lambda p: p.locator("#userName").wait_for(timeout=-1), id="wait-timeout=-1"),
        pytest.param(lambda p: p.locator("#userName").wait_for("propertyEquals", value="x"), id="wait-no-property"),
        pytest.param(lambda p: p.locator("#userName").wait_for("propertyEquals", property="Text"), id="wait-no-value"),
        pytest.param(lambda p: p.locator("#userName").wait_for("textMatches"), id="wait-no-pattern"),
        pytest.param(lambda p: p.locator("#userName").wait_for("textMatches", value="(unclosed"), id="wait-bad-regex"),
    ],
)
def test_bad_arguments(h: Harness, act: Callable[[Any], Any]) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        act(h.probe)
    assert info.value.code == "INVALID_ARGUMENT"
    assert h.adapter.actions == [] and h.adapter.set_values == []
    assert h.ui.posts == 0


def test_driver_checks_timeout_ms(h: Harness) -> None:
    target = Target(locators=("#userName",))
    for bad in (-1, 60_001, True, 1.5):
        with pytest.raises(InvalidArgumentError):
            h.engine.driver.wait_for(target, timeout_ms=bad)  # type: ignore[arg-type]


# -- OS input ------------------------------------------------------------------------------------------


def test_os_click_goes_to_the_click_point_from_the_callers_thread() -> None:
    os_input = FakeOsInput()
    with harness(settings=quiet(), os_input=os_input) as h:
        result = h.probe.locator("#saveButton").click(mode="os", button="right", click_count=2)
        assert result.mode == "os" and result.completed is True
        assert os_input.calls == [("click", 60, 35, "right", 2)]  # the centre of Bounds(10, 20, 100, 30)
        assert os_input.threads == [threading.get_ident()]  # never the UI thread
        assert h.adapter.actions == [] and h.ui.posts == 0  # not through the toolkit


def test_os_type_text_clicks_selects_all_and_types() -> None:
    os_input = FakeOsInput()
    with harness(settings=quiet(), os_input=os_input) as h:
        h.probe.locator("#userName").type_text("bob", mode="os")
        assert os_input.calls == [
            ("click", 60, 35, "left", 1),
            ("send_keys", parse_keys("Ctrl+A Delete")),
            ("type_text", "bob"),
        ]
        os_input.calls.clear()
        h.probe.locator("#userName").type_text("!", replace=False, mode="os")
        assert os_input.calls == [("click", 60, 35, "left", 1), ("type_text", "!")]


def test_os_send_keys_with_and_without_target() -> None:
    os_input = FakeOsInput()
    with harness(settings=quiet(), os_input=os_input) as h:
        h.probe.locator("#saveButton").send_keys("Alt+F4", mode="os")
        assert os_input.calls == [("click", 60, 35, "left", 1), ("send_keys", parse_keys("Alt+F4"))]
        os_input.calls.clear()
        result = h.probe.send_keys("Tab Enter", mode="os")
        assert result.node.name == "userName"
        assert os_input.calls == [("send_keys", parse_keys("Tab Enter"))]  # no click: it has focus


def test_os_mode_needs_a_point_on_screen() -> None:
    os_input = FakeOsInput()
    with harness(settings=quiet(), os_input=os_input) as h:
        by_name(h.app, "saveButton").bounds = None
        with pytest.raises(ElementNotInteractableError) as info:
            h.probe.locator("#saveButton").click(mode="os")
        assert info.value.detail["reason"] == "offscreen"
        assert os_input.calls == []
        assert h.probe.locator("#saveButton").click().completed  # toolkit mode needs no point


def test_a_refusal_in_auto_mode_does_not_suggest_auto_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 11: an old-style menu item was refused with "offscreen", and the suggestion said to use
    mode=auto, which was already the mode. The suggestion depends on the mode that was refused."""
    os_input = FakeOsInput()
    with harness(settings=quiet(), os_input=os_input) as h:
        refuse = Blocker("offscreen", "It has no position on screen.")
        monkeypatch.setattr(h.adapter, "blocker", lambda element, action, mode: refuse)
        with pytest.raises(ElementNotInteractableError) as auto:
            h.probe.locator("#saveButton").click()
        assert auto.value.detail["mode"] == "toolkit"
        assert auto.value.suggestion and "mode=auto" not in auto.value.suggestion
        with pytest.raises(ElementNotInteractableError) as os_mode:
            h.probe.locator("#saveButton").click(mode="os")
        assert os_mode.value.detail["mode"] == "os"
        assert os_mode.value.suggestion and "mode=auto" in os_mode.value.suggestion
        covered = Blocker("covered", "Something is on top of it.")
        monkeypatch.setattr(h.adapter, "blocker", lambda element, action, mode: covered)
        with pytest.raises(ElementNotInteractableError) as info:
            h.probe.locator("#saveButton").click()
        assert info.value.suggestion and "mode=auto" not in info.value.suggestion
        assert os_input.calls == [] and h.adapter.actions == []


def test_os_mode_unavailable_names_the_reason() -> None:
    os_input = FakeOsInput(reason="xdotool is not installed")
    with harness(settings=quiet(), os_input=os_input) as h:
        with pytest.raises(InvalidArgumentError) as info:
            h.probe.locator("#saveButton").click(mode="os")
        assert "xdotool is not installed" in info.value.message
        assert info.value.detail == {"mode": "os"}
        assert info.value.suggestion and "auto" in info.value.suggestion
        assert os_input.calls == [] and h.ui.runs == 0
        assert h.probe.locator("#saveButton").click().completed  # auto mode still works


def test_os_mode_without_a_back_end() -> None:
    with harness(settings=quiet()) as h:
        for act in (
            lambda: h.probe.locator("#saveButton").click(mode="os"),
            lambda: h.probe.locator("#userName").type_text("x", mode="os"),
            lambda: h.probe.send_keys("Enter", mode="os"),
        ):
            with pytest.raises(InvalidArgumentError) as info:
                act()
            assert "no OS input back end" in info.value.message
        assert h.ui.runs == 0


# -- a UI thread that stays busy --------------------------------------------------------------------------


def test_busy_after_toolkit_input_raises_dispatcher_busy_then_recovers() -> None:
    release = threading.Event()
    with harness(settings=quiet(ui_timeout=0.3)) as h:
        save = by_name(h.app, "saveButton")
        save.on_click = lambda el: release.wait(10)  # the handler holds the UI thread until released
        with pytest.raises(DispatcherBusyError) as info:
            h.probe.locator("#saveButton").click()
        assert info.value.code == "DISPATCHER_BUSY"
        assert [kind for kind, *_ in h.adapter.actions] == ["click"]  # the input was delivered
        release.set()
        settle(h)
        assert h.probe.locator("#saveButton").node().name == "saveButton"
        save.on_click = None
        assert h.probe.locator("#saveButton").click().completed is True


def test_busy_after_toolkit_input_says_the_input_was_delivered() -> None:
    # The settle hop queued behind the handler is the one that times out here (fixed in ef87f6b).
    release = threading.Event()
    with harness(settings=quiet(ui_timeout=0.3)) as h:
        by_name(h.app, "saveButton").on_click = lambda el: release.wait(10)
        with pytest.raises(DispatcherBusyError) as info:
            h.probe.locator("#saveButton").click()
        release.set()
        settle(h)
        assert info.value.detail.get("delivered") is True
        assert info.value.message.startswith("The input was delivered")


def test_busy_after_os_input_says_the_input_was_delivered() -> None:
    os_input = FakeOsInput()
    release = threading.Event()
    with harness(settings=quiet(ui_timeout=0.3), os_input=os_input) as h:
        # The OS hands the click to the app, whose handler holds the UI thread until released.
        os_input.on_click = lambda x, y: h.worker.post(lambda: release.wait(10))
        with pytest.raises(DispatcherBusyError) as info:
            h.probe.locator("#saveButton").click(mode="os")
        err = info.value
        assert err.code == "DISPATCHER_BUSY"
        assert err.detail["delivered"] is True
        assert err.message.startswith("The input was delivered")
        release.set()
        settle(h)
        os_input.on_click = None
        assert h.probe.locator("#saveButton").click(mode="os").completed is True


# -- wait_for ---------------------------------------------------------------------------------------------------


def test_wait_for_an_element_that_appears_later(h: Harness) -> None:
    toolbar = by_name(h.app, "toolbar")
    timer = later(0.3, lambda: h.ui.post(lambda: toolbar.add(FakeElement("Label", "toast", text="Saved"))))
    try:
        result = h.probe.locator("#toast").wait_for("exists", timeout=5)
    finally:
        timer.join()
    assert result.condition == "exists"
    assert result.node is not None and result.node.name == "toast" and result.node.text == "Saved"
    assert result.observed == 1
    assert result.polls > 1
    assert 200 <= result.elapsed_ms < 5000


def test_wait_for_returns_at_once_when_it_already_holds(h: Harness) -> None:
    result = h.probe.locator("#saveButton").wait_for(timeout=0)
    assert result.polls == 1 and result.node is not None
    assert h.probe.locator("#dup").wait_for().observed == 3  # exists does not need one match


def test_wait_for_times_out_with_the_last_observation(h: Harness) -> None:
    started = time.monotonic()
    with pytest.raises(OperationTimedOutError) as info:
        h.probe.locator("#neverThere").wait_for(timeout=0.3)
    assert 0.25 <= time.monotonic() - started < 3
    err = info.value
    assert err.code == "OPERATION_TIMED_OUT"
    assert err.detail["condition"] == "exists"
    assert err.detail["lastObserved"] == 0
    assert err.detail["polls"] > 1
    assert err.detail["timeoutMs"] == 300
    assert "#neverThere" in err.message and err.suggestion

    with pytest.raises(OperationTimedOutError) as hidden:
        h.probe.locator("#statusLabel").wait_for("visible", timeout=0.1)
    assert hidden.value.detail["lastObserved"] is False
    with pytest.raises(OperationTimedOutError) as missing:
        h.probe.locator("#neverThere").wait_for("enabled", timeout=0)
    assert missing.value.detail["lastObserved"] == "<not found>"
    assert missing.value.detail["polls"] == 1


def test_wait_for_gone(h: Harness) -> None:
    result = h.probe.locator("#neverThere").wait_for("gone", timeout=0)
    assert (result.observed, result.node, result.polls) == (0, None, 1)

    toolbar = by_name(h.app, "toolbar")
    timer = later(0.2, lambda: h.ui.post(lambda: toolbar.remove(by_name(toolbar, "saveButton"), dispose=True)))
    try:
        result = h.probe.locator("#saveButton").wait_for("gone", timeout=5)
    finally:
        timer.join()
    assert result.observed == 0 and result.node is None and result.polls > 1

    with pytest.raises(OperationTimedOutError) as info:
        h.probe.locator("Button#dup").wait_for("gone", timeout=0.1)
    assert info.value.detail["lastObserved"] == 2


def test_wait_for_visible_and_enabled(h: Harness) -> None:
    label, cancel = by_name(h.app, "statusLabel"), by_name(h.app, "cancelButton")

    def show() -> None:
        label.visible = True
        cancel.enabled = True

    timer = later(0.2, lambda: h.ui.post(show))
    try:
        visible = h.probe.locator("#statusLabel").wait_for("visible", timeout=5)
        enabled = h.probe.locator("#cancelButton").wait_for("enabled", timeout=5)
    finally:
        timer.join()
    assert visible.observed is True and visible.node is not None and visible.node.visible
    assert enabled.observed is True
    assert h.probe.locator("#toolButton").wait_for("hidden", timeout=0).observed is False  # its window is hidden
    with pytest.raises(OperationTimedOutError) as info:
        h.probe.locator("#saveButton").wait_for("disabled", timeout=0.05)
    assert info.value.detail["lastObserved"] is True


def test_wait_for_property_equals(h: Harness) -> None:
    user = by_name(h.app, "userName")
    timer = later(0.2, lambda: h.ui.post(lambda: setattr(user, "text", "bob")))
    try:
        result = h.probe.locator("#userName").wait_for("propertyEquals", property="text", value="bob", timeout=5)
    finally:
        timer.join()
    assert result.observed == "bob" and result.polls > 1
    assert result.node is not None and result.node.text == "bob"
    # Numbers compare as numbers, booleans as true/false.
    assert h.probe.locator("#userName").wait_for("propertyEquals", property="Width", value="100", timeout=0)
    assert h.probe.locator("#cancelButton").wait_for("propertyEquals", property="IsEnabled", value="false", timeout=0)
    with pytest.raises(OperationTimedOutError) as info:
        h.probe.locator("#userName").wait_for("propertyEquals", property="Width", value="5", timeout=0.05)
    assert info.value.detail["lastObserved"] == 100.0


def test_wait_for_property_errors(h: Harness) -> None:
    api_key = by_name(h.app, "connection").prop("ApiKey")
    with pytest.raises(PropertyRedactedError) as info:
        h.probe.locator("#connection").wait_for("propertyEquals", property="ApiKey", value="x", timeout=1)
    assert info.value.code == "PROPERTY_REDACTED"
    assert api_key.calls == 0
    with pytest.raises(PropertyNotFoundError) as missing:
        h.probe.locator("#userName").wait_for("propertyEquals", property="Nope", value="x", timeout=1)
    assert missing.value.detail == {"property": "Nope"}


@pytest.mark.parametrize("name", ["passwordBox", "pinBox"])
def test_wait_for_text_of_a_secret_is_refused_without_reading_it(name: str) -> None:
    with harness(settings=quiet()) as h:
        box = by_name(h.app, name)
        assert box.text_prop is not None
        started = time.monotonic()
        with pytest.raises(PropertyRedactedError) as info:
            h.probe.locator(f"#{name}").wait_for("textMatches", value="hunter", timeout=5)
        assert time.monotonic() - started < 2  # refused at once, not polled until the timeout
        assert info.value.code == "PROPERTY_REDACTED"
        assert box.text_prop.calls == 0


def test_wait_for_text_matches(h: Harness) -> None:
    result = h.probe.locator("#statusLabel").wait_for("textMatches", value=r"ready$", timeout=0)
    assert result.observed == "Status: ready"
    with pytest.raises(OperationTimedOutError) as info:
        h.probe.locator("#statusLabel").wait_for("textMatches", value="^Saved", timeout=0.05)
    assert info.value.detail["lastObserved"] == "Status: ready"


def test_wait_for_an_ambiguous_target_fails_at_once(h: Harness) -> None:
    started = time.monotonic()
    with pytest.raises(LocatorAmbiguousError):
        h.probe.locator("#dup").wait_for("visible", timeout=5)
    assert time.monotonic() - started < 2


def test_wait_for_resolves_the_locator_on_every_poll(h: Harness) -> None:
    toolbar = by_name(h.app, "toolbar")
    old = by_name(toolbar, "saveButton")
    old_id = h.id_of(old)

    def replace() -> None:
        toolbar.remove(old, dispose=True)
        toolbar.add(FakeElement("Button", "saveButton", text="Saved"))

    timer = later(0.2, lambda: h.ui.post(replace))
    try:
        result = h.probe.locator("#saveButton").wait_for("textMatches", value="^Saved$", timeout=5)
    finally:
        timer.join()
    assert result.node is not None and result.node.text == "Saved"
    assert result.node.node_id != old_id
    assert result.polls > 1


def test_a_wait_under_a_call_control_notes_its_polls_and_stops_once_cancelled(h: Harness) -> None:
    """What the MCP server relies on: a client that cancels a running wait stops its polls."""
    control = CallControl()
    ended: list[BaseException] = []

    def wait() -> None:
        with controlling(control):
            try:
                h.probe.locator("#neverThere").wait_for(timeout=60)
            except BaseException as exc:
                ended.append(exc)

    worker = threading.Thread(target=wait)
    worker.start()
    try:
        deadline = time.monotonic() + 10
        while control.last_note is None:  # noted after each poll
            assert time.monotonic() < deadline and not ended, ended
            time.sleep(0.01)
        note = control.last_note or ""
        assert "#neverThere" in note and "last observed 0" in note, note
        control.cancel()
        worker.join(10)
    finally:
        control.cancel()
        worker.join(10)
    assert not worker.is_alive(), "the wait went on after its call was cancelled"
    assert len(ended) == 1 and isinstance(ended[0], CallCancelled), ended
    # Without a control (the Python API, the test kit) a wait behaves as it always did.
    with pytest.raises(OperationTimedOutError):
        h.probe.locator("#neverThere").wait_for(timeout=0.1)


def test_a_poll_that_meets_a_busy_ui_thread_is_not_fatal() -> None:
    with harness(settings=quiet(ui_timeout=0.2)) as h:
        entered, release = threading.Event(), threading.Event()

        def busy() -> None:
            entered.set()
            release.wait(10)

        h.worker.post(busy)
        assert entered.wait(5)
        # The app stays busy for a while (past one poll's 0.2 s), then frees its UI thread.
        freer = threading.Timer(0.5, release.set)
        freer.start()
        try:
            result = h.probe.locator("#saveButton").wait_for("exists", timeout=5)
        finally:
            freer.cancel()
            release.set()
        assert result.polls > 1
        assert result.node is not None and result.node.name == "saveButton"

        held = threading.Event()
        h.worker.post(lambda: held.wait(10))
        try:
            with pytest.raises(OperationTimedOutError) as info:
                h.probe.locator("#saveButton").wait_for("exists", timeout=0.3)
        finally:
            held.set()
        assert info.value.detail["lastObserved"] == "<UI thread busy>"
        settle(h)


# -- set_property --------------------------------------------------------------------------------------------------


def test_set_property_double(h: Harness) -> None:
    user = by_name(h.app, "userName")
    result = h.probe.locator("#userName").set_property("width", " 150 ")
    assert result.property == "Width"
    assert result.type_name == "System.Double"
    assert result.previous_value == 100.0
    assert result.new_value == 150.0
    assert result.value_source == "local"
    assert result.node.name == "userName"
    assert h.adapter.set_values == [(user, "Width", Converted("float", "System.Double", (150.0,)))]


def test_set_property_text_bool_and_fixed_enum(h: Harness) -> None:
    user = by_name(h.app, "userName")
    result = h.probe.locator("#userName").set_property("Text", "carol")
    assert (result.previous_value, result.new_value) == ("alice", "carol")
    assert user.text == "carol"
    assert user.prop("Text").sets == [Converted("string", "System.String", ("carol",))]

    result = h.probe.locator("#userName").set_property("IsEnabled", "False")
    assert (result.previous_value, result.new_value) == (True, False)
    assert user.enabled is False
    assert h.adapter.set_values[-1][2] == Converted("bool", "System.Boolean", (False,))

    result = h.probe.locator("#userName").set_property("Visibility", "collapsed")
    assert h.adapter.set_values[-1][2] == Converted("enum", "System.Windows.Visibility", (2,))
    assert (result.previous_value, result.new_value) == ("Visible", "Collapsed")
    assert user.visible is False  # set_property works on hidden elements too
    assert h.probe.locator("#userName").set_property("Visibility", "Visible").new_value == "Visible"


def test_set_property_declared_enum(h: Harness) -> None:
    mode = FakeProp("Mode", "Demo.ScanMode", "Fast", enum_members={"Fast": 0, "Slow": 1, "Off": 4})
    by_name(h.app, "toolbar").add(FakeElement("Scanner", "scanner", props=[mode]))
    result = h.probe.locator("#scanner").set_property("Mode", "slow")
    assert h.adapter.set_values[-1][2] == Converted("enum", "Demo.ScanMode", (1,))
    assert (result.previous_value, result.new_value) == ("Fast", "Slow")


def test_set_property_read_only(h: Harness) -> None:
    with pytest.raises(PropertyReadOnlyError) as info:
        h.probe.locator("#userName").set_property("ActualWidth", "5")
    assert info.value.code == "PROPERTY_READ_ONLY"
    assert info.value.detail == {"property": "ActualWidth", "typeName": "System.Double"}
    assert h.adapter.set_values == []


@pytest.mark.parametrize(("locator", "prop"), [("#connection", "ApiKey"), ("#passwordBox", "Password")])
def test_set_property_secret_is_refused_without_reading_it(h: Harness, locator: str, prop: str) -> None:
    element = by_name(h.app, locator[1:])
    secret = element.prop(prop)
    with pytest.raises(PropertyRedactedError) as info:
        h.probe.locator(locator).set_property(prop, SECRET_VALUE)
    assert info.value.code == "PROPERTY_REDACTED"
    assert info.value.detail == {"property": prop}
    assert SECRET_VALUE not in json.dumps(info.value.to_dict())
    assert secret.calls == 0
    assert h.adapter.set_values == []


def test_set_property_unsupported_type(h: Harness) -> None:
    by_name(h.app, "toolbar").add(
        FakeElement(
            "Viewport", "viewport",
            props=[FakeProp("Transform", "Demo.Matrix3D", "identity"), FakeProp("Kind", "Demo.Undeclared", "A")],
        )
    )  # fmt: skip
    for name, type_name in (("Transform", "Demo.Matrix3D"), ("Kind", "Demo.Undeclared")):
        with pytest.raises(ProbeError) as info:
            h.probe.locator("#viewport").set_property(name, "1")
        assert info.value.code == "UNSUPPORTED_PROPERTY_TYPE"
        assert info.value.detail["typeName"] == type_name
    assert h.adapter.set_values == []


def test_set_property_conversion_failure_does_not_repeat_the_value(h: Harness) -> None:
    width = by_name(h.app, "userName").prop("Width")
    with pytest.raises(ProbeError) as info:
        h.probe.locator("#userName").set_property("Width", SECRET_VALUE)
    err = info.value
    assert err.code == "TYPE_CONVERSION_FAILED"
    assert err.detail["typeName"] == "System.Double"
    for shown in (json.dumps(err.to_dict()), str(err), repr(err), err.suggestion or ""):
        assert SECRET_VALUE not in shown
    assert err.__context__ is None and err.__cause__ is None
    assert h.adapter.set_values == [] and width.value == 100.0


def test_set_property_not_found(h: Harness) -> None:
    with pytest.raises(PropertyNotFoundError) as info:
        h.probe.locator("#userName").set_property("NoSuchThing", "1")
    assert info.value.code == "PROPERTY_NOT_FOUND"
    assert info.value.detail == {"property": "NoSuchThing"}
    assert "TextBox" in info.value.message


# -- audit -----------------------------------------------------------------------------------------------------------


def _entries(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_action_and_mutation_is_audited_without_values(tmp_path: Path) -> None:
    settings = audited(tmp_path)
    with harness(settings=settings) as h:
        user = h.probe.locator("#userName")
        h.probe.locator("#saveButton").click()
        user.type_text(SECRET_TEXT)
        user.send_keys("Ctrl+A")
        h.probe.send_keys("Tab")
        h.probe.locator("#bigList").select("Item 3")
        h.probe.locator("#rememberMe").toggle()
        h.probe.locator("#saveButton").focus()
        user.set_property("Text", SECRET_VALUE)
        with pytest.raises(ElementNotInteractableError):
            h.probe.locator("#cancelButton").click()
        with pytest.raises(InvalidArgumentError):
            h.probe.locator("#bigList").select("Item 999")
        with pytest.raises(PropertyReadOnlyError):
            user.set_property("ActualWidth", SECRET_VALUE)
        with pytest.raises(LocatorAmbiguousError):
            h.probe.locator("#dup").type_text(SECRET_TEXT)
        with pytest.raises(ProbeError):
            user.set_property("Width", SECRET_VALUE)  # TYPE_CONVERSION_FAILED
        log = h.engine.driver.audit_log()
        assert log is not None
        path = log.path

    assert path == settings.audit_log
    rows = [(e["tool"], e["target"], e["action"], e["property"], e["outcome"]) for e in _entries(path)]
    assert rows == [
        ("wpf_click", "#saveButton", "click", None, "ok"),
        ("wpf_type_text", "#userName", "type", None, "ok"),
        ("wpf_send_keys", "#userName", "keys", None, "ok"),
        ("wpf_send_keys", None, "keys", None, "ok"),
        ("wpf_select", "#bigList", "select", None, "ok"),
        ("wpf_toggle", "#rememberMe", "toggle", None, "ok"),
        ("wpf_focus", "#saveButton", "focus", None, "ok"),
        ("wpf_set_property", "#userName", "set", "Text", "ok"),
        ("wpf_click", "#cancelButton", "click", None, "ELEMENT_NOT_INTERACTABLE"),
        ("wpf_select", "#bigList", "select", None, "INVALID_ARGUMENT"),
        ("wpf_set_property", "#userName", "set", "ActualWidth", "PROPERTY_READ_ONLY"),
        ("wpf_type_text", "#dup", "type", None, "LOCATOR_AMBIGUOUS"),
        ("wpf_set_property", "#userName", "set", "Width", "TYPE_CONVERSION_FAILED"),
    ]
    key = audit.load_key(settings.audit_key_file)
    report = audit.verify(path, key=key)
    assert report.ok, report.summary()
    assert report.entries == len(rows)
    for file in tmp_path.rglob("*"):
        if file.is_file():
            data = file.read_bytes()
            assert SECRET_TEXT.encode() not in data, file
            assert SECRET_VALUE.encode() not in data, file
            assert b"Ctrl+A" not in data, file


def test_an_app_error_is_audited_as_ok(tmp_path: Path) -> None:
    settings = audited(tmp_path)
    with harness(settings=settings) as h:

        def fail(el: FakeElement) -> None:
            raise RuntimeError("boom")

        by_name(h.app, "saveButton").on_click = fail
        h.engine.driver.click(Target(node_id=h.id_of(by_name(h.app, "saveButton"))))
    (entry,) = _entries(settings.audit_log)  # type: ignore[arg-type]
    assert entry["outcome"] == "ok"  # the input happened
    assert entry["target"].startswith("node n")


def test_nothing_is_written_with_audit_off(tmp_path: Path) -> None:
    settings = ProbeSettings(
        audit=False, audit_log=tmp_path / "a.jsonl", audit_key_file=tmp_path / "a.key", os_input_settle=0
    )
    with harness(settings=settings) as h:
        h.probe.locator("#saveButton").click()
        h.probe.locator("#userName").type_text(SECRET_TEXT)
        h.probe.locator("#userName").set_property("Width", "120")
        with pytest.raises(ElementNotInteractableError):
            h.probe.locator("#cancelButton").click()
        assert h.engine.driver.audit_log() is None
    assert list(tmp_path.iterdir()) == []


def test_wait_for_is_not_audited(tmp_path: Path) -> None:
    settings = audited(tmp_path)
    with harness(settings=settings) as h:
        h.probe.locator("#saveButton").wait_for(timeout=0)
        with pytest.raises(OperationTimedOutError):
            h.probe.locator("#neverThere").wait_for(timeout=0.05)
    assert list(tmp_path.iterdir()) == []  # neither the log nor the key was even created


def test_harness_refuses_to_audit_into_the_real_home() -> None:
    with harness(settings=ProbeSettings(os_input_settle=0)) as h, pytest.raises(AssertionError, match="real home"):
        h.probe.locator("#saveButton").click()


def test_audit_lines_continue_one_chain_across_engines(tmp_path: Path) -> None:
    settings = audited(tmp_path)
    for _ in range(2):
        with harness(
            FakeApp(FakeElement("Window", "w", text="W", children=[FakeElement("Button", "b")])), settings
        ) as h:
            h.probe.locator("#b").click()
    entries = _entries(settings.audit_log)  # type: ignore[arg-type]
    assert [e["seq"] for e in entries] == [1, 2]
    assert audit.verify(settings.audit_log, key=audit.load_key(settings.audit_key_file)).ok  # type: ignore[arg-type]


def test_an_action_that_cannot_be_audited_is_not_performed(tmp_path: Path) -> None:
    settings = audited(tmp_path)
    key_file = settings.audit_key_file
    assert key_file is not None
    key_file.parent.mkdir()
    key_file.write_text("ab" * 32 + "\n")
    key_file.chmod(0o644)  # others could read it and forge the log
    with harness(settings=settings) as h:
        for act in (
            lambda: h.probe.locator("#saveButton").click(),
            lambda: h.probe.locator("#userName").set_property("Width", "120"),
        ):
            with pytest.raises(ProbeError) as info:
                act()
            assert "audit key" in info.value.message
        assert h.adapter.actions == [] and h.adapter.set_values == []
        assert h.ui.runs == 0
        # Waiting is not audited, so it still works.
        assert h.probe.locator("#saveButton").wait_for(timeout=0).polls == 1
    assert not (tmp_path / "audit").exists()


def test_a_failed_audit_append_does_not_lose_the_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with harness(settings=audited(tmp_path)) as h:
        log = h.engine.driver.audit_log()
        assert log is not None

        def broken(*args: Any, **kwargs: Any) -> None:
            raise OSError("disk full")

        monkeypatch.setattr(log, "record", broken)
        by_name(h.app, "saveButton").on_click = lambda el: setattr(el, "text", "Saved")
        result = h.probe.locator("#saveButton").click()
        assert result.completed is True and result.changed == ["text"]
