"""Locators of elements outside the visual tree: built and resolved in the logical tree.

WPF keeps some elements only in its logical tree: the items of a closed
submenu, the nodes under a collapsed tree node, the items a virtualizing list
has made no container for. Their visual parents do not lead to a window, so a
visual path cannot re-find them; the engine gives them a ``logical:`` path.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fake_toolkit import FakeAdapter, FakeApp, FakeElement, Harness, by_name, by_text, harness

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.models import Node
from wpfprobe.core.protocol import TreeType
from wpfprobe.engine.engine import Target
from wpfprobe.engine.locators import PathLocator, Selector, parse_locator

E = FakeElement


def build() -> FakeApp:
    window = E(
        "Window",
        "main",
        text="Demo",
        children=[
            E(
                "StackPanel",
                children=[
                    E(
                        "Menu",
                        "menuBar",
                        children=[
                            E(
                                "MenuItem",
                                text="File",
                                children=[
                                    E("MenuItem", text="Save As", logical_only=True),
                                    E(
                                        "MenuItem",
                                        "exitItem",
                                        text="Exit",
                                        logical_only=True,
                                        children=[E("MenuItem", text="Now")],
                                    ),
                                ],
                            )
                        ],
                    ),
                    E(
                        "ListBox",
                        "fruits",
                        children=[
                            E("Border", visual_only=True, children=[E("ListBoxItem", text="Apple")]),
                            E("ListBoxItem", text="Banana", logical_only=True),
                        ],
                    ),
                    E("Button", "okButton", text="OK"),
                ],
            )
        ],
    )
    return FakeApp(window)


@pytest.fixture
def app() -> Iterator[Harness]:
    with harness(build()) as h:
        yield h


def resolve(h: Harness, *locators: str) -> list[str]:
    return h.engine.resolve_ids(Target(locators=tuple(locators)))


def nodes(h: Harness, tree_type: TreeType) -> list[Node]:
    window = h.engine.windows(include_hidden=True)[0]
    tree = h.engine.tree(Target(node_id=window.node_id), max_depth=10, tree_type=tree_type)
    return list(tree.walk())


def test_every_logical_tree_node_carries_a_locator_that_refinds_it(app: Harness) -> None:
    found = nodes(app, "logical")
    assert {"Save As", "Exit", "Now", "Banana"} <= {n.text for n in found}
    for node in found:
        assert resolve(app, node.locator) == [node.node_id], node.locator
        assert app.engine.inspect(Target(node_id=node.node_id)).locator == node.locator


def test_visual_tree_nodes_keep_visual_locators(app: Harness) -> None:
    found = nodes(app, "visual")
    assert "Banana" not in {n.text for n in found}
    for node in found:
        assert not node.locator.startswith("logical:"), node.locator
        assert resolve(app, node.locator) == [node.node_id], node.locator


def test_an_element_only_in_the_logical_tree_gets_a_logical_path_from_its_named_ancestor(app: Harness) -> None:
    banana = app.engine.node(Target(node_id=app.id_of(by_text(app.app, "Banana"))))
    assert banana.locator == "logical:ListBox#fruits/ListBoxItem[1]"
    info = app.engine.inspect(Target(node_id=banana.node_id))
    assert info.path.startswith("logical:Window[0]/StackPanel[0]/ListBox")
    assert resolve(app, info.path) == [banana.node_id]


def test_a_name_unique_in_the_logical_tree_anchors_its_locator(app: Harness) -> None:
    # exitItem is not in the visual tree at all, so only the logical census knows it is unique.
    exit_item = app.engine.node(Target(node_id=app.id_of(by_name(app.app, "exitItem"))))
    assert exit_item.locator == "logical:MenuItem#exitItem"
    now = app.engine.node(Target(node_id=app.id_of(by_text(app.app, "Now"))))
    assert now.locator == "logical:MenuItem#exitItem/MenuItem[0]"
    assert resolve(app, now.locator) == [now.node_id]


def test_find_in_the_logical_tree_returns_paths_that_refind(app: Harness) -> None:
    results = app.engine.find(type_name="MenuItem", tree_type="logical").results
    assert [r.node.text for r in results] == ["File", "Save As", "Exit", "Now"]
    for r in results:
        assert resolve(app, r.path) == [r.node.node_id], r.path
        assert resolve(app, r.node.locator) == [r.node.node_id], r.node.locator
    assert not results[0].path.startswith("logical:"), "File is shown on the menu bar"


def test_find_with_a_logical_locator_searches_the_logical_tree(app: Harness) -> None:
    found = app.engine.find(locator='logical:text="Banana"').results
    assert [r.node.text for r in found] == ["Banana"]
    assert app.engine.find(locator='text="Banana"').results == []
    assert [r.node.text for r in app.engine.find(locator="menu:File/Exit").results] == ["Exit"]


def test_inspect_and_ancestors_show_the_logical_parent_of_an_element_outside_the_visual_tree(app: Harness) -> None:
    target = Target(node_id=app.id_of(by_text(app.app, "Save As")))
    info = app.engine.inspect(target)
    assert info.parent is not None and info.parent.text == "File"
    chain = [(a.type, a.name or a.text) for a in app.engine.ancestors(target)]
    assert chain == [("MenuItem", "File"), ("Menu", "menuBar"), ("StackPanel", None), ("Window", "main")]
    # A window has no parent, in either tree.
    assert app.engine.ancestors(Target(locators=("#main",))) == []


def test_the_logical_prefix_parses_both_forms() -> None:
    path = parse_locator("logical:ListBox#fruits/ListBoxItem[1]")
    assert isinstance(path, PathLocator) and path.tree_type == "logical" and len(path.segments) == 2
    selector = parse_locator('Logical: ListBox#fruits > text="Banana"')
    assert isinstance(selector, Selector) and selector.tree_type == "logical" and len(selector.steps) == 2
    lone = parse_locator("logical:Window[0]")
    assert isinstance(lone, PathLocator) and lone.tree_type == "logical"
    assert parse_locator("ListBox#fruits/ListBoxItem[1]").tree_type == "visual"
    with pytest.raises(InvalidArgumentError):
        parse_locator("logical:  ")


def test_selectors_and_chains_search_the_tree_they_name(app: Harness) -> None:
    banana = app.id_of(by_text(app.app, "Banana"))
    assert resolve(app, 'text="Banana"') == []
    assert resolve(app, 'logical:text="Banana"') == [banana]
    apple = app.id_of(by_text(app.app, "Apple"))
    assert resolve(app, "#fruits", "ListBoxItem") == [apple], "the visual tree has only the realised item"
    assert resolve(app, "#fruits", "logical:ListBoxItem") == [apple, banana]
    assert resolve(app, "#fruits", "logical:ListBoxItem[1]") == [banana]


def test_a_visual_tree_rooted_outside_the_visual_tree_gives_locators_that_refind(app: Harness) -> None:
    exit_id = app.id_of(by_name(app.app, "exitItem"))
    tree = app.engine.tree(Target(node_id=exit_id), max_depth=5)
    walked = list(tree.walk())
    assert [n.text for n in walked] == ["Exit", "Now"]
    for node in walked:
        assert resolve(app, node.locator) == [node.node_id], node.locator


class UnlistingAdapter(FakeAdapter):
    """Names the parent of an element that the parent does not list (a toolkit may, for its items)."""

    def parent(self, element: Any, tree_type: TreeType) -> Any | None:
        if tree_type == "visual" and element.logical_only:
            return element.parent
        return super().parent(element, tree_type)


def test_a_parent_that_does_not_list_its_child_does_not_make_a_visual_path() -> None:
    h = Harness(build())
    try:
        h.adapter = UnlistingAdapter(h.app)
        h.engine.adapter = h.adapter
        banana = h.engine.node(Target(node_id=h.id_of(by_text(h.app, "Banana"))))
        assert banana.locator == "logical:ListBox#fruits/ListBoxItem[1]"
        assert resolve(h, banana.locator) == [banana.node_id]
        # The steps above it are still in the visual tree.
        assert h.engine.node(Target(locators=("#fruits",))).locator == "ListBox#fruits"
    finally:
        h.close()
