"""The compact text agents read: one line per node, ``id Type#name "text" states +N @locator``."""

from __future__ import annotations

from typing import Any

import pytest

from wpfprobe.core.models import Node, Tree
from wpfprobe.mcp.text import MAX_LOCATOR, MAX_TEXT, node_line, tree_text


def node(**fields: Any) -> Node:
    base: dict[str, Any] = {
        "node_id": "a1",
        "type": "Button",
        "type_name": "System.Windows.Controls.Button",
        "visible": True,
        "enabled": True,
        "child_count": 0,
        "locator": "Button#saveButton",
        "name": "saveButton",
    }
    base.update(fields)
    return Node(**base)


def test_id_type_and_name_come_first() -> None:
    assert node_line(node()) == "a1 Button#saveButton"


def test_automation_id_stands_in_for_a_missing_name() -> None:
    line = node_line(node(name=None, automation_id="SaveAid", locator="Button#SaveAid"))
    assert line == "a1 Button#SaveAid"


def test_no_name_gives_the_bare_type() -> None:
    line = node_line(node(name=None, locator="Window[0]/Button[2]"))
    assert line.split()[:2] == ["a1", "Button"]


def test_text_is_quoted() -> None:
    assert node_line(node(text="Save")) == 'a1 Button#saveButton "Save"'


def test_text_equal_to_the_name_is_not_repeated() -> None:
    assert node_line(node(name="OK", text="OK", locator="Button#OK")) == "a1 Button#OK"


def test_quotes_in_text_are_escaped() -> None:
    line = node_line(node(text='say "hi"'))
    assert line.endswith(r'"say \"hi\""')


def test_long_text_is_clipped_with_an_ellipsis() -> None:
    exact = "x" * MAX_TEXT
    assert f'"{exact}"' in node_line(node(text=exact))
    long_line = node_line(node(text="y" * (MAX_TEXT + 50)))
    quoted = long_line.split(" ", 2)[2]
    assert quoted == '"' + "y" * (MAX_TEXT - 1) + '…"'


def test_whitespace_and_newlines_in_text_collapse_onto_one_line() -> None:
    line = node_line(node(text="first line\n\tsecond   line\r\n"))
    assert "\n" not in line and "\r" not in line
    assert line.endswith('"first line second line"')


def test_states_hidden_disabled_focused_in_that_order() -> None:
    assert node_line(node()).split()[2:] == []
    line = node_line(node(visible=False, enabled=False, focused=True))
    assert line.split()[2:] == ["hidden", "disabled", "focused"]
    assert node_line(node(enabled=False)).split()[2:] == ["disabled"]


def test_left_out_children_show_as_plus_n() -> None:
    assert node_line(node(child_count=7)).endswith(" +7")
    child = node(node_id="a2", name="inner", locator="Button#inner")
    assert "+" not in node_line(node(child_count=1, children=[child])), "children shown: no +N"
    assert "+" not in node_line(node(child_count=0))


def test_locator_only_when_it_says_more_and_is_short() -> None:
    assert "@" not in node_line(node(locator="Button#saveButton")), "the same as Type#name: left out"
    path = "Window[0]/Grid[0]/Button[2]"
    assert len(path) <= MAX_LOCATOR
    assert node_line(node(name=None, locator=path)).endswith(" @" + path)
    long_path = "Window[0]/Grid[0]/StackPanel[1]/Border[0]/Button[2]"
    assert len(long_path) > MAX_LOCATOR
    assert "@" not in node_line(node(name=None, locator=long_path))
    short = "x" * MAX_LOCATOR
    assert node_line(node(name=None, locator=short)).endswith("@" + short)
    assert "@" not in node_line(node(name=None, locator="x" * (MAX_LOCATOR + 1)))


def test_requested_properties_follow_as_json_values() -> None:
    line = node_line(node(properties={"Width": 75.0, "IsDefault": True, "Content": "a b"}))
    assert line.endswith('Width=75.0 IsDefault=true Content="a b"')


@pytest.mark.parametrize(
    "fields",
    [
        {"name": "two\nlines", "locator": "Button[0]"},
        {"name": None, "automation_id": "aid\r\nx", "locator": "Button[0]"},
        {"properties": {"Text": "a\nb"}},
    ],
    ids=["name", "automationId", "property"],
)
def test_a_node_line_is_one_line_whatever_the_element_is_called(fields: dict[str, Any]) -> None:
    """Names, automation ids and locators are app data: a newline in one must not break the
    one-line-per-node layout the agent relies on."""
    line = node_line(node(**fields))
    assert "\n" not in line and "\r" not in line, repr(line)


def test_tree_text_of_an_app_with_a_multiline_name_keeps_one_line_per_node() -> None:
    """End to end through the engine: WinForms names and WPF automation ids are free text."""
    from fake_toolkit import FakeApp, FakeElement, harness

    window = FakeElement(
        "Window", "main", text="Main", children=[
            FakeElement("Button", "two\nlines", text="A"),
            FakeElement("Button", automation_id="aid\r\nx", text="B"),
            FakeElement("Button", "plain", text="C\nD"),
        ],
    )  # fmt: skip
    with harness(FakeApp(window)) as h:
        tree = h.engine.tree(max_depth=2)
    lines = tree_text(tree).splitlines()
    assert len(lines) == tree.returned_node_count + 1, lines


def make_tree(truncated: bool = False) -> Tree:
    leaf1 = node(node_id="a3", name="saveButton", text="Save", locator="Button#saveButton")
    leaf2 = node(node_id="a4", name="cancelButton", enabled=False, locator="Button#cancelButton")
    panel = node(
        node_id="a2",
        type="StackPanel",
        name="toolbar",
        locator="StackPanel#toolbar",
        child_count=2,
        children=[leaf1, leaf2],
    )
    hidden = node(node_id="a5", type="Grid", name=None, visible=False, child_count=4, locator="Window[0]/Grid[0]")
    root = node(
        node_id="a1", type="Window", name="mainWindow", text="Demo", locator="Window#mainWindow", child_count=2,
        children=[panel, hidden],
    )  # fmt: skip
    return Tree(root=root, tree_type="visual", truncated=truncated, returned_node_count=5)


def test_tree_text_is_one_indented_line_per_node_and_a_footer() -> None:
    lines = tree_text(make_tree()).splitlines()
    assert lines == [
        'a1 Window#mainWindow "Demo"',
        " a2 StackPanel#toolbar",
        '  a3 Button#saveButton "Save"',
        "  a4 Button#cancelButton disabled",
        " a5 Grid hidden +4 @Window[0]/Grid[0]",
        "(5 nodes, visual tree)",
    ]


def test_tree_text_says_when_the_node_cap_cut_it() -> None:
    footer = tree_text(make_tree(truncated=True)).splitlines()[-1]
    assert footer.startswith("(5 nodes") and "truncated" in footer
