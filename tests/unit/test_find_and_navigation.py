"""wpf_find_elements, wpf_get_ancestors, wpf_get_windows, wpf_inspect_element, screenshots, session info."""

from __future__ import annotations

import io

import pytest
from fake_toolkit import FakeApp, Harness, by_name, harness

from wpfprobe.core.errors import (
    ElementNotRenderableError,
    InvalidArgumentError,
    LocatorNotFoundError,
    NodeNotFoundError,
)
from wpfprobe.core.models import PropertyCondition
from wpfprobe.engine.engine import Target


def names(results) -> list[str | None]:  # type: ignore[no-untyped-def]
    return [r.node.name for r in results.results]


# -- find ------------------------------------------------------------------------------


def test_find_by_type_name(fake: Harness) -> None:
    res = fake.engine.find(type_name="TextBox")
    assert names(res) == ["userName", "pinBox", "dup"]
    assert all(r.node.type == "TextBox" for r in res.results)


def test_find_by_full_type_name(fake: Harness) -> None:
    assert names(fake.engine.find(type_name="Demo.Views.ConnectionPanel")) == ["connection"]


def test_find_by_name(fake: Harness) -> None:
    assert names(fake.engine.find(name="dup")) == ["dup", "dup", "dup"]
    assert {r.node.type for r in fake.engine.find(name="dup").results} == {"Button", "TextBox"}


def test_find_by_name_and_type(fake: Harness) -> None:
    res = fake.engine.find(name="dup", type_name="TextBox")
    assert [(r.node.type, r.node.text) for r in res.results] == [("TextBox", "not a button")]


def test_find_by_automation_id(fake: Harness) -> None:
    res = fake.engine.find(automation_id="printAuto")
    assert [r.node.text for r in res.results] == ["Print"]
    assert fake.engine.find(automation_id="saveButton").results == []  # a name is not an automation id


def test_find_by_text_is_a_case_insensitive_substring(fake: Harness) -> None:
    assert [r.node.text for r in fake.engine.find(text="DUP").results] == ["Dup A", "Dup B"]
    assert [r.node.text for r in fake.engine.find(text="ave").results] == ["Save"]


def test_find_by_text_ignores_elements_without_text(fake: Harness) -> None:
    # "nul" is in no element's text; elements without any text must not match it.
    assert fake.engine.find(text="nul", max_results=100).results == []


def test_find_by_property_equals(fake: Harness) -> None:
    res = fake.engine.find(property_conditions=[{"property": "IsEnabled", "operator": "Equals", "value": "false"}])
    assert names(res) == ["cancelButton"]


def test_find_by_property_contains(fake: Harness) -> None:
    cond = PropertyCondition(property="Content", operator="Contains", value="DUP")
    assert [r.node.text for r in fake.engine.find(property_conditions=[cond]).results] == ["Dup A", "Dup B"]


def test_find_by_property_regex(fake: Harness) -> None:
    cond = {"property": "Title", "operator": "Regex", "value": "^Sett"}
    assert names(fake.engine.find(property_conditions=[cond])) == ["settingsWindow"]


def test_find_property_condition_default_operator_is_equals(fake: Harness) -> None:
    assert names(fake.engine.find(property_conditions=[{"property": "Name", "value": "toolbar"}])) == ["toolbar"]


def test_find_combines_criteria(fake: Harness) -> None:
    res = fake.engine.find(
        type_name="Button", text="o", property_conditions=[{"property": "IsEnabled", "value": "true"}]
    )
    assert [r.node.text for r in res.results] == ["Odd", "OK", "Tool", "OK"]


def test_find_with_locator(fake: Harness) -> None:
    res = fake.engine.find(locator="StackPanel#toolbar > Button[IsEnabled=false]")
    assert names(res) == ["cancelButton"]


def test_find_with_locator_and_criteria(fake: Harness) -> None:
    res = fake.engine.find(locator="StackPanel#toolbar > Button", text="dup")
    assert [r.node.text for r in res.results] == ["Dup A", "Dup B"]


def test_find_scoped_to_a_root_node(fake: Harness) -> None:
    settings_id = fake.engine.node(Target(locators=("Window#settingsWindow",))).node_id
    res = fake.engine.find(root=Target(node_id=settings_id), type_name="Button")
    assert [r.node.text for r in res.results] == ["Apply", "OK", "Alpha", "Beta"]
    whole = fake.engine.find(type_name="Button", max_results=100)
    assert len(whole.results) == 13


def test_find_scoped_by_root_locator(fake: Harness) -> None:
    res = fake.engine.find(root=Target(locators=("#toolbar",)), text="e")
    assert [r.node.text for r in res.results] == ["Save", "Cancel", "Help"]


def test_find_scoped_to_a_dead_root_is_node_not_found(fake: Harness) -> None:
    settings_id = fake.engine.node(Target(locators=("Window#settingsWindow",))).node_id
    fake.app.close(by_name(fake.app, "settingsWindow"))
    with pytest.raises(NodeNotFoundError):
        fake.engine.find(root=Target(node_id=settings_id), type_name="Button")


def test_find_max_results_and_truncated(fake: Harness) -> None:
    res = fake.engine.find(type_name="ListBoxItem", max_results=5)
    assert len(res.results) == 5
    assert res.truncated is True
    assert [r.node.text for r in res.results] == [f"Item {i}" for i in range(5)]
    full = fake.engine.find(type_name="Button", max_results=13)
    assert len(full.results) == 13 and full.truncated is False


def test_find_default_max_results_is_twenty(fake: Harness) -> None:
    res = fake.engine.find(type_name="ListBoxItem")
    assert len(res.results) == 20 and res.truncated is True


def test_find_reports_what_it_scanned(fake: Harness) -> None:
    res = fake.engine.find(name="toolButton")
    assert res.total_scanned > 0
    assert names(res) == ["toolButton"]


def test_find_results_carry_paths(fake: Harness) -> None:
    (result,) = fake.engine.find(name="cancelButton").results
    assert result.path == "Window[0]/Grid[0]/StackPanel[0]/Button[1]"


def test_find_with_no_criteria_returns_everything(fake: Harness) -> None:
    res = fake.engine.find(max_results=100)
    assert res.truncated is True
    assert names(res)[0] == "mainWindow"


@pytest.mark.parametrize("max_results", [0, -1, 101, "5", True, 2.5])
def test_find_invalid_max_results(fake: Harness, max_results: object) -> None:
    with pytest.raises(InvalidArgumentError):
        fake.engine.find(type_name="Button", max_results=max_results)  # type: ignore[arg-type]


@pytest.mark.parametrize("pattern", ["(", "[a-", "*x"])
def test_find_invalid_regex_is_invalid_argument(fake: Harness, pattern: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        fake.engine.find(property_conditions=[{"property": "Name", "operator": "Regex", "value": pattern}])
    assert info.value.code == "INVALID_ARGUMENT"


@pytest.mark.parametrize(
    "cond",
    [
        {"property": "Name", "operator": "StartsWith", "value": "x"},
        {"property": "Name"},
        {"operator": "Equals", "value": "x"},
        "Name=x",
    ],
)
def test_find_malformed_condition_is_invalid_argument(fake: Harness, cond: object) -> None:
    with pytest.raises(InvalidArgumentError):
        fake.engine.find(property_conditions=[cond])  # type: ignore[list-item]


@pytest.mark.parametrize("kwargs", [{"name": ""}, {"type_name": 5}, {"text": "x" * 501}, {"automation_id": ["a"]}])
def test_find_bad_criteria_are_invalid_argument(fake: Harness, kwargs: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(InvalidArgumentError):
        fake.engine.find(**kwargs)


def test_find_too_many_conditions(fake: Harness) -> None:
    conds = [{"property": "Name", "value": "x"}] * 21
    with pytest.raises(InvalidArgumentError):
        fake.engine.find(property_conditions=conds)


def test_find_malformed_locator(fake: Harness) -> None:
    with pytest.raises(InvalidArgumentError):
        fake.engine.find(locator="Button[")


def test_find_logical_tree(fake: Harness) -> None:
    assert fake.engine.find(type_name="Border").results
    assert fake.engine.find(type_name="Border", tree_type="logical").results == []
    assert [r.node.text for r in fake.engine.find(text="Footer", tree_type="logical").results] == ["Footer"]


def test_probe_find(fake: Harness) -> None:
    res = fake.probe.find("Button", root="#toolbar", text="dup")
    assert [r.node.text for r in res.results] == ["Dup A", "Dup B"]


# -- ancestors ---------------------------------------------------------------------------


def test_ancestors_parent_first_root_last(fake: Harness) -> None:
    ancestors = fake.engine.ancestors(Target(locators=("#saveButton",)))
    assert [(a.type, a.name) for a in ancestors] == [
        ("StackPanel", "toolbar"),
        ("Grid", None),
        ("Window", "mainWindow"),
    ]
    assert all(a.data_context_type == "Demo.MainViewModel" for a in ancestors)


def test_ancestors_max_levels(fake: Harness) -> None:
    assert [a.name for a in fake.engine.ancestors(Target(locators=("#saveButton",)), max_levels=1)] == ["toolbar"]
    assert len(fake.engine.ancestors(Target(locators=("#saveButton",)), max_levels=2)) == 2
    assert len(fake.engine.ancestors(Target(locators=("#saveButton",)), max_levels=50)) == 3


def test_ancestors_of_a_window_are_empty(fake: Harness) -> None:
    assert fake.engine.ancestors(Target(locators=("Window#mainWindow",))) == []


def test_ancestors_nodes_re_find_themselves(fake: Harness) -> None:
    for a in fake.engine.ancestors(Target(locators=('text="Footer"',))):
        assert fake.engine.resolve_ids(Target(locators=(a.locator,))) == [a.node_id]


@pytest.mark.parametrize("levels", [0, -1, "2", True])
def test_ancestors_bad_max_levels(fake: Harness, levels: object) -> None:
    with pytest.raises(InvalidArgumentError):
        fake.engine.ancestors(Target(locators=("#saveButton",)), max_levels=levels)  # type: ignore[arg-type]


# -- windows, inspect, screenshot, session ----------------------------------------------------


def test_windows_main_first_hidden_excluded(fake: Harness) -> None:
    windows = fake.engine.windows()
    assert [w.name for w in windows] == ["mainWindow", "settingsWindow"]
    main = windows[0]
    assert main.title == "Main Window"
    assert main.active is True and windows[1].active is False
    assert main.bounds is not None and (main.bounds.width, main.bounds.height) == (800, 600)


def test_windows_include_hidden(fake: Harness) -> None:
    windows = fake.engine.windows(include_hidden=True)
    assert [w.name for w in windows] == ["mainWindow", "settingsWindow", "toolWindow"]
    assert windows[2].visible is False


def test_inspect_element(fake: Harness) -> None:
    info = fake.engine.inspect(Target(locators=("#cancelButton",)))
    assert info.node.type_name == "Fake.Controls.Button"
    assert info.node.text == "Cancel" and info.node.enabled is False
    assert info.path == "Window[0]/Grid[0]/StackPanel[0]/Button[1]"
    assert fake.engine.resolve_ids(Target(locators=(info.locator,))) == [info.node.node_id]
    assert info.parent is not None and info.parent.name == "toolbar"
    assert info.bounds is not None and info.bounds.width == 100
    assert info.data_context_type == "Demo.MainViewModel"
    assert info.binding_error_count == 0
    window = fake.engine.inspect(Target(locators=("Window#mainWindow",)))
    assert window.parent is None and window.binding_error_count == 2


def test_screenshot_of_an_element(fake: Harness) -> None:
    shot = fake.engine.screenshot(Target(locators=("#saveButton",)))
    assert shot.png.startswith(b"\x89PNG\r\n\x1a\n")
    assert (shot.width, shot.height) == (2, 2)
    img = shot.image()
    assert img.size == (2, 2)
    assert img.convert("RGB").getpixel((0, 0)) == (0, 0, 255)  # BGRA blue
    assert img.convert("RGB").getpixel((0, 1)) == (255, 0, 0)  # BGRA red
    assert shot.node_id == fake.engine.node(Target(locators=("#saveButton",))).node_id


def test_screenshot_defaults_to_the_main_window(fake: Harness) -> None:
    shot = fake.engine.screenshot()
    assert shot.node_id == fake.engine.windows()[0].node_id


def test_screenshot_of_a_hidden_element_is_not_renderable(fake: Harness) -> None:
    with pytest.raises(ElementNotRenderableError) as info:
        fake.engine.screenshot(Target(locators=("#statusLabel",)))
    assert info.value.code == "ELEMENT_NOT_RENDERABLE"


def test_probe_screenshot_is_a_pil_image(fake: Harness) -> None:
    img = fake.probe.locator("#saveButton").screenshot()
    assert img.size == (2, 2)
    buf = io.BytesIO()
    img.save(buf, format="PNG")


def test_no_window_is_node_not_found() -> None:
    with harness(FakeApp()) as h:
        with pytest.raises(NodeNotFoundError):
            h.engine.tree()
        assert h.engine.windows() == []


def test_session_info(fake: Harness) -> None:
    info = fake.engine.session_info(tier="interact")
    assert info.toolkit == "wpf"
    assert info.tier == "interact"
    assert info.app_name == "Fake Demo"
    assert info.app_id.startswith("fake-demo-")
    assert info.dispatchers[0].thread_id == fake.worker.ident
    assert info.dispatchers[0].windows == [w.node_id for w in fake.engine.windows(include_hidden=True)]
    assert info.capabilities == ["tree", "properties", "screenshot"]


def test_locator_not_found_for_chained_tree(fake: Harness) -> None:
    with pytest.raises(LocatorNotFoundError):
        fake.probe.locator("#toolbar").locator("TextBox").tree()
