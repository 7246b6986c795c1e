"""The public API against the real example app, from a thread that is not its UI thread."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import wpfprobe
from wpfprobe import REDACTED, ProbeError

SECRET = "hunter2"


def test_tests_run_off_the_ui_thread(probe: Any) -> None:
    probe.windows()  # the first hop records the UI thread's identity
    assert probe.engine.ui.thread_id is not None
    assert probe.engine.ui.thread_id != threading.get_ident()


def test_windows_lists_the_main_window_first_with_title_and_bounds(probe: Any) -> None:
    windows = probe.windows()
    main = windows[0]
    assert main.name == "mainWindow"
    assert main.title == "wpfprobe demo"
    assert main.visible
    assert main.bounds is not None and main.bounds.width > 100 and main.bounds.height > 100
    assert main.locator == f"{main.type}#mainWindow"


def test_tree_shows_nested_layout_states_and_hides_the_password(probe: Any) -> None:
    tree = probe.tree(max_depth=10)
    nodes = {n.name: n for n in tree.walk() if n.name}
    for name in ("formPanel", "nameBox", "passwordBox", "greetingLabel", "itemsList", "saveButton", "menuBar"):
        assert name in nodes, f"{name} missing from the tree"
    assert nodes["nameBox"].text == "Ada"
    assert nodes["passwordBox"].text == REDACTED
    assert nodes["greetingLabel"].text == "Hello, Ada"
    assert nodes["disabledButton"].enabled is False
    assert nodes["hiddenLabel"].visible is False
    assert nodes["saveButton"].visible and nodes["saveButton"].enabled
    assert SECRET not in tree.model_dump_json()
    assert not tree.truncated
    assert tree.returned_node_count == len(tree.walk())


def test_tree_max_depth_cuts_children_and_flags_them(probe: Any) -> None:
    tree = probe.tree(max_depth=1)
    root = tree.root
    assert root.children, "depth 1 keeps the window's children"
    assert all(child.children is None for child in root.children)
    assert any(child.children_truncated for child in root.children if child.child_count)


def test_every_node_locator_refinds_that_node(probe: Any) -> None:
    tree = probe.tree(max_depth=10)
    for node in tree.walk():
        found = probe.locator(node.locator).node()
        assert found.node_id == node.node_id, f"{node.locator} found {found.node_id}, not {node.node_id}"


def test_locator_forms_find_the_expected_elements(probe: Any) -> None:
    assert probe.locator("#saveButton").node().text == "Save"
    assert probe.locator('text="Save"').node().name == "saveButton"
    assert probe.locator("text=disab").node().name == "disabledButton"
    assert probe.locator("text=/^Hello, A/").node().name == "greetingLabel"
    assert probe.locator("Button[IsEnabled=false]").node().name == "disabledButton"
    assert probe.locator("#buttonPanel > Button:nth(1)").node().name == "disabledButton"
    if probe.toolkit == "winforms":
        assert probe.locator("#mainWindow #fileMenu #exitMenuItem").node().text == "Exit"
    else:
        # A closed WPF submenu's items live only in the logical tree until it opens.
        exit_item = probe.find(name="exitMenuItem", tree_type="logical").results[0].node
        assert exit_item.text == "Exit"
    assert probe.locator("#formPanel").locator("#nameBox").node().text == "Ada"
    assert probe.locator("Button").count() >= 2


def test_path_form_from_inspect_resolves_back(probe: Any) -> None:
    info = probe.locator("#saveButton").inspect()
    assert "/" in info.path
    assert probe.locator(info.path).node().node_id == info.node.node_id


def test_ambiguous_and_missing_locators_raise_clear_errors(probe: Any) -> None:
    with pytest.raises(ProbeError) as ambiguous:
        probe.locator("Button").node()
    assert ambiguous.value.code == "LOCATOR_AMBIGUOUS"
    assert len(ambiguous.value.detail["candidates"]) >= 2
    with pytest.raises(ProbeError) as missing:
        probe.locator("#noSuchThing").node()
    assert missing.value.code == "LOCATOR_NOT_FOUND"
    with pytest.raises(ProbeError) as malformed:
        probe.locator("Button[")
    assert malformed.value.code == "INVALID_ARGUMENT"


def test_inspect_reports_bounds_parent_path_and_states(probe: Any) -> None:
    window = probe.windows()[0]
    info = probe.locator("#saveButton").inspect()
    assert info.node.name == "saveButton" and info.node.text == "Save"
    assert info.parent is not None and info.parent.name == "buttonPanel"
    assert info.locator == info.node.locator
    b, w = info.bounds, window.bounds
    assert b is not None and w is not None
    assert w.x <= b.x and b.x + b.width <= w.x + w.width
    assert w.y <= b.y and b.y + b.height <= w.y + w.height
    assert info.binding_error_count == 0


def test_ancestors_go_from_parent_to_root(probe: Any) -> None:
    names = [a.name for a in probe.locator("#saveButton").ancestors()]
    assert names[0] == "buttonPanel"
    assert names[-1] == "mainWindow"
    assert "formPanel" in names
    assert [a.name for a in probe.locator("#saveButton").ancestors(max_levels=1)] == ["buttonPanel"]


def test_find_by_criteria_and_property_conditions(probe: Any) -> None:
    by_text = probe.find(text="save")
    assert any(r.node.name == "saveButton" for r in by_text.results)
    assert by_text.total_scanned > 10
    disabled = probe.find(property_conditions=[{"property": "Enabled", "operator": "Equals", "value": "false"}])
    # WPF's template parts inherit IsEnabled; the named elements are the app's own.
    assert [r.node.name for r in disabled.results if r.node.name] == ["disabledButton"]
    scoped = probe.find("Button", root="#buttonPanel")
    assert {r.node.name for r in scoped.results} == {"saveButton", "disabledButton", "loadButton"}
    limited = probe.find("*", max_results=3)
    assert len(limited.results) == 3 and limited.truncated


def test_find_cannot_probe_the_secret_through_conditions(probe: Any) -> None:
    hits = probe.find(property_conditions=[{"property": "Text", "operator": "Regex", "value": "^hun"}])
    assert hits.results == []


def test_properties_show_binding_local_and_default_values(probe: Any) -> None:
    page = probe.locator("#greetingLabel").properties(filter="Text")
    text = next(p for p in page.items if p.name == "Text")
    assert text.value == "Hello, Ada"
    assert text.is_data_bound and text.value_source == "binding"
    everything = probe.locator("#greetingLabel").properties(include_defaults=True, take=200)
    names = [p.name for p in everything.items]
    assert names == sorted(names, key=str.lower)
    assert any(p.value_source == "default" for p in everything.items)
    assert any(p.is_read_only for p in everything.items)
    unfiltered = probe.locator("#greetingLabel").properties(take=200)
    assert not any(p.value_source == "default" for p in unfiltered.items), "defaults hidden unless asked for"
    # A filter names what it wants: its matches show at their default too (issue 11).
    assert any(p.value_source == "default" for p in page.items)


def _all_property_names(locator: Any, take: int) -> tuple[list[str], int]:
    names: list[str] = []
    page = locator.properties(include_defaults=True, take=take)
    while True:
        names.extend(p.name for p in page.items)
        if not page.has_more:
            return names, page.total_count
        page = locator.properties(include_defaults=True, take=take, cursor=page.next_cursor)


def test_properties_pages_cover_everything_once(probe: Any) -> None:
    button = probe.locator("#saveButton")
    big, total = _all_property_names(button, 200)
    small, small_total = _all_property_names(button, 7)
    assert small == big and len(big) == total == small_total
    assert len(set(big)) == len(big)
    with pytest.raises(ProbeError) as bad:
        button.properties(cursor="not-a-cursor")
    assert bad.value.code == "INVALID_ARGUMENT"


def test_password_box_properties_are_redacted(probe: Any) -> None:
    page = probe.locator("#passwordBox").properties(include_defaults=True, take=200)
    by_name = {p.name: p for p in page.items}
    held_in = {"winforms": ("Text", "Lines", "SelectedText", "PasswordChar"), "wpf": ("Password", "SecurePassword")}
    for name in held_in[probe.toolkit]:
        assert by_name[name].is_redacted and by_name[name].value == REDACTED, name
    assert SECRET not in page.model_dump_json()


def test_children_pages_with_cursor(probe: Any) -> None:
    panel = probe.locator("#formPanel").node()
    first = probe.children(panel.node_id, take=2)
    assert first.total_count == panel.child_count and first.has_more
    collected = list(first.items)
    page = first
    while page.has_more:
        page = probe.children(panel.node_id, take=2, cursor=page.next_cursor)
        collected.extend(page.items)
    assert len({n.node_id for n in collected}) == panel.child_count
    tops = probe.children()
    assert tops.items[0].name == "mainWindow"


def test_screenshot_of_window_and_element(probe: Any) -> None:
    window = probe.screenshot()
    assert window.width > 100 and window.height > 100
    assert len(window.convert("L").getcolors(256) or []) > 5, "a real rendering has more than a few shades"
    button = probe.locator("#saveButton")
    image = button.screenshot()
    bounds = button.inspect().bounds
    assert bounds is not None and image.size == (bounds.width, bounds.height)
    png = button.screenshot_png()
    assert png.png.startswith(b"\x89PNG") and png._repr_png_() == png.png


@pytest.mark.toolkit("winforms")
def test_a_screenshot_copies_the_screen_off_the_ui_thread(probe: Any) -> None:
    """The copy of a 1200x900 window took 60-130 ms on the UI thread (the heartbeat benchmark's longest freeze)."""
    import threading

    from wpfprobe_clr.toolkits.winforms import capture

    copied_on: list[threading.Thread] = []
    original = capture._copy_screen

    def spy(*area: int) -> Any:
        copied_on.append(threading.current_thread())
        return original(*area)

    capture._copy_screen = spy  # type: ignore[assignment]
    try:
        window = probe.screenshot()
    finally:
        capture._copy_screen = original  # type: ignore[assignment]
    assert copied_on == [threading.current_thread()]
    assert len(window.convert("L").getcolors(256) or []) > 5, "a real rendering has more than a few shades"


def test_hidden_element_cannot_be_captured(probe: Any) -> None:
    with pytest.raises(ProbeError) as err:
        probe.locator("#hiddenLabel").screenshot()
    assert err.value.code == "ELEMENT_NOT_RENDERABLE"


def test_node_ids_are_stable_and_unknown_ids_are_not_found(probe: Any) -> None:
    a = probe.locator("#nameBox").node().node_id
    b = probe.locator("#nameBox").node().node_id
    assert a == b
    assert probe.node(a).node().name == "nameBox"
    with pytest.raises(ProbeError) as err:
        probe.node("zz999999").node()
    assert err.value.code == "NODE_NOT_FOUND"


def test_attach_without_an_app_finds_the_running_ui(running_app: Any) -> None:
    found = wpfprobe.attach()
    assert found.windows()[0].name == "mainWindow"


def test_jupyter_renderings(probe: Any) -> None:
    assert "saveButton" in probe.tree(max_depth=10)._repr_html_()
    assert "saveButton" in probe.locator("#saveButton").inspect()._repr_html_()
    assert "<li>" in probe.locator("#nameBox").properties()._repr_html_()


def test_session_info_describes_runtime_and_toolkit(probe: Any, toolkit: str) -> None:
    info = probe.session_info()
    assert info.toolkit == toolkit
    assert info.runtime.kind in ("mono", "netfx", "coreclr") and info.runtime.version
    assert info.dispatchers[0].windows and info.dispatchers[0].thread_id == probe.engine.ui.thread_id
    assert info.wpfprobe_version == wpfprobe.__version__


def test_no_adapter_call_ran_off_the_ui_thread(probe: Any) -> None:
    probe.tree(max_depth=10)
    probe.locator("#nameBox").properties(include_defaults=True, take=200)
    assert probe.engine.adapter.calls > 100
    assert probe.engine.thread_violations == []
    with pytest.raises(ProbeError):
        probe.engine.adapter.roots()  # called here, off the UI thread, on purpose
    assert probe.engine.thread_violations, "the checker must notice an off-thread call"
    probe.engine.thread_violations.clear()


@pytest.mark.toolkit("winforms")
def test_password_does_not_leak_through_tostring_of_ui_objects(running_app: Any, probe: Any) -> None:
    """Regression: Mono's AccessibleObject.ToString (and Control.ToString) embed the Text."""
    page = probe.locator("#passwordBox").properties(include_defaults=True, take=200)
    accessibility = next(p for p in page.items if p.name == "AccessibilityObject")
    assert SECRET not in str(accessibility.value)

    def focus_password() -> None:
        running_app.app.ActiveControl = running_app.app.Controls.Find("passwordBox", True)[0]

    running_app.invoke(focus_password)
    try:
        active = probe.locator("#mainWindow").property("ActiveControl")
        assert active.value == "<TextBox#passwordBox>"
        for element in ("#mainWindow", "#formPanel", "#fieldsTable"):
            dump = probe.locator(element).properties(include_defaults=True, take=200).model_dump_json()
            assert SECRET not in dump, element
    finally:
        running_app.invoke(lambda: running_app.app.Controls.Find("nameBox", True)[0].Focus())
