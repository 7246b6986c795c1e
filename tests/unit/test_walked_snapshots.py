"""Tree snapshots made from a toolkit's walk (engine/walked.py) equal the engine's own, node for node.

On the fake toolkit with its walk on (``fake_walk.FakeWalk``, three elements a
slice): names repeated and unique, items, a list of only some of its children
with their total, a password box, access keys, check
boxes, hidden branches, reads that throw, every depth cut and node cap; and a
name the census has not seen sends the snapshot down the engine's own path.
"""

from __future__ import annotations

from typing import Any

import pytest
from fake_toolkit import FakeApp, FakeElement, harness

from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine import walked

TINY = 1e-9


def _app() -> tuple[FakeApp, FakeElement]:
    broken_label = FakeElement("Label", "broken", text="never shown")
    broken_label.broken = {"display_text": RuntimeError("text fails"), "naming": KeyError("name")}
    stubborn = FakeElement("StackPanel", "stubborn", children=[FakeElement("Button", "lost", text="Lost")])
    stubborn.broken = {"children": ValueError("children fail"), "state": OSError("state fails")}
    grid = FakeElement("DataGrid", "orders", children=[FakeElement("DataGridRow", text=f"row {i}") for i in range(3)])
    grid.total_children = 500  # only the rows in view are children: the node says how many there are
    save = FakeElement("Button", "save", text="Save &As")
    save.mnemonic = True
    panel = FakeElement(
        "StackPanel",
        "form",
        children=[
            FakeElement("TextBox", "user", text="ada"),
            FakeElement("PasswordBox", "pin", text="1234", password_char=True),
            save,
            FakeElement("CheckBox", "agree", text="Agree", checked=True),
            FakeElement("Button", "dup", text="One"),
            FakeElement("Button", "dup", text="Two"),
            FakeElement("ListBox", "fruit", children=[FakeElement("ListBoxItem", text=t) for t in "abc"]),
            FakeElement("StackPanel", "hidden", visible=False, children=[FakeElement("Label", text="deep")]),
            broken_label,
            stubborn,
            grid,
        ],
    )
    side = FakeElement("StackPanel", children=[FakeElement("Label", f"l{i}", text=str(i)) for i in range(6)])
    return FakeApp(FakeElement("Window", "main", text="Main", children=[panel, side])), panel


def _both(h: Any, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    kept = h.engine.settings
    h.adapter.walks = True
    fast = h.engine.tree(**kwargs).model_dump()
    h.adapter.walks = False
    h.engine.settings = kept.model_copy(update={"toolkit_walk": False})
    own = h.engine.tree(**kwargs).model_dump()
    h.engine.settings = kept
    return fast, own


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3, 5])
def test_a_walked_snapshot_equals_the_engines_own_at_every_depth(max_depth: int) -> None:
    app, _panel = _app()
    with harness(app, ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        fast, own = _both(h, max_depth=max_depth)
        assert fast == own
        assert h.adapter.calls["walk"] == 1
        if max_depth >= 2:
            assert h.adapter.last_walk.slices > 1, "the walk went on over several slices"


@pytest.mark.parametrize("cap", [1, 2, 3, 5, 8, 13, 21])
def test_a_walked_snapshot_is_cut_at_the_same_node_cap(cap: int) -> None:
    app, _panel = _app()
    with harness(app, ProbeSettings(ui_slice=TINY, max_tree_nodes=cap)) as h:
        h.adapter.versioned = True
        fast, own = _both(h, max_depth=5)
        assert fast == own
        assert fast["returned_node_count"] <= cap


def test_the_walked_snapshot_shows_what_the_engine_shows() -> None:
    app, _panel = _app()
    with harness(app, ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        h.adapter.walks = True
        tree = h.engine.tree(max_depth=5)
        nodes, stack = {}, [tree.root]
        while stack:
            node = stack.pop()
            nodes.setdefault(node.name, node)
            stack.extend(node.children or ())
        assert nodes["pin"].text == "[REDACTED]"
        assert (nodes["save"].text, nodes["save"].access_key) == ("Save As", "A")
        assert nodes["agree"].checked is True
        # A repeated name gives a path; a unique one anchors the locator.
        assert nodes["dup"].locator == "StackPanel#form/Button[2]" and nodes["user"].locator == "TextBox#user"
        assert nodes["stubborn"].error is not None and nodes["stubborn"].error.reads == ["children", "state"]
        assert tree.error_count == 2
        assert len(nodes["fruit"].children or ()) == 3, "a list's items come from the engine's own reads"
        assert (nodes["orders"].total_count, len(nodes["orders"].children or ())) == (500, 3)
        walked_grid = next(n for n in h.adapter.last_walk.nodes() if n.naming.name == "orders")
        assert walked_grid.complete and walked_grid.total_count == 500, "the walk made the partial list's node itself"


def test_a_name_the_census_has_not_seen_sends_the_snapshot_down_the_engines_own_path() -> None:
    app, panel = _app()
    with harness(app, ProbeSettings(ui_slice=TINY)) as h:
        h.adapter.versioned = True
        h.adapter.walks = True
        h.engine.tree(max_depth=5)  # the name index is built and kept
        panel.children[0].name = "renamed"  # a Name set with no event: the census cannot know
        built: list[Any] = []
        build = walked.build

        def counted(prepared: Any) -> Any:
            built.append(result := build(prepared))
            return result

        walked.build = counted  # type: ignore[assignment]
        try:
            fast = h.engine.tree(max_depth=5).model_dump()
        finally:
            walked.build = build  # type: ignore[assignment]
        assert built == [None], "the walk's snapshot was given up"
        h.adapter.walks = False
        assert fast == h.engine.tree(max_depth=5).model_dump()
        assert "TextBox#renamed" in str(fast)


def test_a_list_longer_than_the_node_cap_is_read_only_as_far_as_the_cap_reaches() -> None:
    items = [FakeElement("ListBoxItem", text=f"item {i}") for i in range(40)]
    big = FakeElement("ListBox", "big", children=items)
    app = FakeApp(FakeElement("Window", "main", children=[FakeElement("Label", "top", text="x"), big]))
    with harness(app, ProbeSettings(ui_slice=TINY, max_tree_nodes=10)) as h:
        h.adapter.versioned = True
        built: list[Any] = []
        build = walked.build

        projected: list[int] = []

        def counted(prepared: Any) -> Any:
            projected.append(len(prepared.projected))
            built.append(result := build(prepared))
            return result

        walked.build = counted  # type: ignore[assignment]
        try:
            fast, own = _both(h, max_depth=3)
        finally:
            walked.build = build  # type: ignore[assignment]
        assert built and built[0] is not None, "made from the walk, not given up"
        assert fast == own and fast["truncated"]
        # The fake walk reads items as elements: 7 of them fit its cap of 10 nodes (with the window, the
        # label and the list). The engine reads the list and its next 3 items: 10 items, all the cap can show.
        assert projected == [1 + 3], "the list, and as many of its 40 items as the cap could show"


@pytest.mark.parametrize(("keywords", "walked_through"), [((), True), (("title",), False)])
def test_a_walk_whose_text_properties_the_redactor_judges_apart_is_left_for_the_engines_own_path(
    keywords: tuple[str, ...], walked_through: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # WPF's texts come from Title, Text, Header or Content: one verdict for all, or no walk.
    from fake_walk import FakeWalk

    from wpfprobe.core.protocol import PropertyDescriptor

    title = PropertyDescriptor("Title", "System.String", None, False)
    monkeypatch.setattr(FakeWalk, "text_properties", (title,), raising=False)
    app, _panel = _app()
    with harness(app, ProbeSettings(ui_slice=TINY, extra_redaction_keywords=keywords)) as h:
        h.adapter.versioned = True
        fast, own = _both(h, max_depth=5)
        assert fast == own
        assert (h.adapter.last_walk.slices > 0) is walked_through
