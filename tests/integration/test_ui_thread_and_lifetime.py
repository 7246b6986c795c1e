"""Marshalling, errors from the UI thread, and element lifetime on the live app."""

from __future__ import annotations

import gc
import threading
import time
from typing import Any

import pytest

import wpfprobe
from wpfprobe import ProbeError
from wpfprobe.errors import DispatcherBusyError


def test_blocked_ui_thread_gives_dispatcher_busy_then_the_probe_recovers(running_app: Any) -> None:
    quick = wpfprobe.attach(running_app.app, timeout=0.5)
    release = threading.Event()
    entered = threading.Event()

    def block() -> None:
        entered.set()
        release.wait(20)  # the test holds the UI thread on purpose

    with pytest.raises(DispatcherBusyError):
        quick.engine.ui.run(block, timeout=0.05)
    assert entered.wait(5), "the blocking call reached the UI thread"
    try:
        started = time.monotonic()
        with pytest.raises(ProbeError) as err:
            quick.windows()
        waited = time.monotonic() - started
        assert err.value.code == "DISPATCHER_BUSY"
        assert 0.4 <= waited < 3.0, waited
    finally:
        release.set()
    assert quick.windows()[0].name == "mainWindow"


def test_python_exception_on_the_ui_thread_comes_back_as_probe_error(probe: Any) -> None:
    def fail() -> None:
        raise KeyError("lost")

    with pytest.raises(ProbeError) as err:
        probe.engine.ui.run(fail)
    assert err.value.detail["exceptionType"] == "KeyError"
    assert "lost" in err.value.message


def test_dotnet_exception_on_the_ui_thread_keeps_its_type_and_message(probe: Any) -> None:
    from System import Int32

    with pytest.raises(ProbeError) as err:
        probe.engine.ui.run(lambda: Int32.Parse("not a number"))
    assert err.value.detail["exceptionType"] == "System.FormatException"
    assert err.value.detail["exceptionMessage"]


def test_result_comes_back_and_inline_call_on_the_ui_thread_works(probe: Any) -> None:
    ui = probe.engine.ui
    assert ui.run(lambda: 41 + 1) == 42
    # A call made from the UI thread itself runs inline instead of deadlocking.
    assert ui.run(lambda: ui.run(lambda: threading.get_ident())) == ui.thread_id


@pytest.mark.toolkit("winforms")
def test_closed_window_gives_node_not_found_and_is_collectable(running_app: Any, probe: Any) -> None:
    from System import GC, WeakReference
    from System.Windows.Forms import Form

    def open_second() -> Any:
        second = Form()
        second.Name = "secondWindow"
        second.Text = "second"
        second.Show()
        return WeakReference(second)

    weak = running_app.invoke(open_second)
    node_id = probe.locator("#secondWindow").node().node_id
    assert any(w.node_id == node_id for w in probe.windows())

    def close_second() -> None:
        target = weak.Target
        target.Close()
        target.Dispose()

    running_app.invoke(close_second)
    with pytest.raises(ProbeError) as err:
        probe.node(node_id).node()
    assert err.value.code == "NODE_NOT_FOUND"
    assert all(w.node_id != node_id for w in probe.windows(include_hidden=True))
    deadline = time.monotonic() + 10
    while weak.IsAlive and time.monotonic() < deadline:
        # Mono scans thread stacks conservatively: a stale slot on the UI thread's or
        # the poster thread's stack can hold the form for a while. A hop through each
        # overwrites them; what must never hold it is the probe's registry.
        running_app.invoke(lambda: None)
        probe.windows()
        gc.collect()
        GC.Collect()
        GC.WaitForPendingFinalizers()
    assert not weak.IsAlive, "the probe's registry must not keep a closed window alive"


@pytest.mark.toolkit("winforms")
def test_redacted_getter_is_never_called(running_app: Any, probe: Any) -> None:
    import clr
    from System.Windows.Forms import Panel

    calls = {"ApiKey": 0, "Plain": 0}

    class SecretPanel(Panel):
        __namespace__ = "WpfProbeTests"

        def _get_api_key(self) -> str:
            calls["ApiKey"] += 1
            return "s3cr3t-key"

        def _get_plain(self) -> str:
            calls["Plain"] += 1
            return "plain-value"

        ApiKey = clr.clrproperty(str, _get_api_key)
        Plain = clr.clrproperty(str, _get_plain)

    kept: list[Any] = []

    def add_panel() -> None:
        panel = SecretPanel()
        panel.Name = "secretPanel"
        running_app.app.Controls.Find("formPanel", True)[0].Controls.Add(panel)
        # This test's own clean-up touches the panel from Python: without a Python reference,
        # pythonnet frees its .NET side at the next GC and every later call on it fails
        # (test_derived_controls.py is about that; this one is about redaction).
        kept.append(panel)

    running_app.invoke(add_panel)
    try:
        secret = probe.locator("#secretPanel")
        page = secret.properties(include_defaults=True, take=200)
        by_name = {p.name: p for p in page.items}
        assert by_name["ApiKey"].is_redacted and by_name["ApiKey"].value == wpfprobe.REDACTED
        assert by_name["Plain"].value == "plain-value"
        probe.tree(max_depth=10, include_properties=["ApiKey", "Plain"])
        probe.find(property_conditions=[{"property": "ApiKey", "operator": "Regex", "value": "^s3"}])
        assert probe.locator("[ApiKey~=s3cr3t]").count() == 0
        secret.property("ApiKey")
        assert calls["Plain"] > 0, "the non-secret getter runs, so the counter works"
        assert calls["ApiKey"] == 0, "the redacted getter must never run"
        assert "s3cr3t" not in page.model_dump_json()
    finally:

        def remove_panel() -> None:
            for control in kept:
                control.Parent.Controls.Remove(control)
                control.Dispose()

        running_app.invoke(remove_panel)


@pytest.mark.toolkit("winforms")
def test_main_menu_items_are_in_the_tree(running_app: Any, probe: Any) -> None:
    from System.Windows.Forms import Form, MainMenu, MenuItem

    def open_menu_form() -> None:
        form = Form()
        form.Name = "menuWindow"
        form.Text = "menus"
        menu = MainMenu()
        file_item = MenuItem("File")
        file_item.Name = "classicFile"
        open_item = MenuItem("Open")
        open_item.Name = "classicOpen"
        file_item.MenuItems.Add(open_item)
        menu.MenuItems.Add(file_item)
        form.Menu = menu
        form.Show()

    running_app.invoke(open_menu_form)
    try:
        window = probe.locator("#menuWindow")
        tree = window.tree(max_depth=5)
        labels = [(n.type, n.text) for n in tree.walk()]
        assert ("MainMenu", None) in labels
        assert ("MenuItem", "File") in labels and ("MenuItem", "Open") in labels
        open_node = probe.locator("#classicOpen").node()
        assert probe.locator(open_node.locator).node().node_id == open_node.node_id
        assert [a.type for a in probe.locator("#classicOpen").ancestors()][:2] == ["MenuItem", "MainMenu"]
    finally:

        def close_menu_form() -> None:
            from System.Windows.Forms import Application

            for form in list(Application.OpenForms):
                if form.Name == "menuWindow":
                    form.Close()

        running_app.invoke(close_menu_form)


@pytest.mark.toolkit("winforms")
def test_menu_strip_items_have_screen_bounds_when_shown(probe: Any) -> None:
    info = probe.locator("#fileMenu").inspect()
    assert info.bounds is not None and info.bounds.width > 0
    assert info.parent is not None and info.parent.name == "menuBar"
