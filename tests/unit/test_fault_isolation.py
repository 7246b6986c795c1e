"""Per-element fault isolation (issue 11): a read that fails for one element or one property
never fails the call; the element or row carries an ``error`` and the result counts them."""

from __future__ import annotations

import pytest
from fake_toolkit import FakeApp, FakeElement, FakeProp, Harness, build_app, by_name, harness

from wpfprobe.core.protocol import ItemRef
from wpfprobe.engine.engine import Target
from wpfprobe.mcp.text import MAX_CHILDREN_SHOWN, tree_text


def broken(app: FakeApp, name: str, **reads: Exception) -> FakeElement:
    el = by_name(app, name)
    el.broken.update(reads)
    return el


@pytest.mark.parametrize("read", ["naming", "state", "children", "text_property"])
def test_one_failing_read_leaves_the_rest_of_the_tree_intact(read: str) -> None:
    app = build_app()
    broken(app, "toolbar", **{read: RuntimeError(f"{read} exploded")})
    with harness(app) as h:
        tree = h.engine.tree(max_depth=10)
        faulty = [n for n in tree.walk() if n.error is not None]
        assert tree.error_count == 1 and len(faulty) == 1
        error = faulty[0].error
        assert error is not None and error.type == "RuntimeError" and error.message == f"{read} exploded"
        expected = {"text_property": "text"}.get(read, read)
        assert error.reads == [expected]
        names = {n.name for n in tree.walk()}
        assert {"userName", "passwordBox", "rememberMe"} <= names  # the siblings' subtree is whole
        if read != "children":
            assert "saveButton" in names  # its own children are still walked


def test_a_broken_element_is_found_by_what_can_be_read_of_it() -> None:
    app = build_app()
    broken(app, "saveButton", text_property=RuntimeError("text exploded"))
    with harness(app) as h:
        found = h.engine.find(locator="Button")
        assert found.error_count == 1
        save = next(r.node for r in found.results if r.node.name == "saveButton")
        assert save.text is None and save.error is not None and save.error.reads == ["text"]
        # A text search skips it and still finds the rest.
        assert [r.node.name for r in h.engine.find(text="Cancel").results] == ["cancelButton"]


def test_a_property_whose_getter_throws_costs_one_row() -> None:
    el = FakeElement(
        "Widget",
        "w",
        common_props=False,
        props=[
            FakeProp("Fine", "System.String", "ok"),
            FakeProp("Explodes", "System.Int32", RuntimeError("getter exploded")),
        ],
    )
    with harness(FakeApp(FakeElement("Window", "main", children=[el]))) as h:
        page = h.engine.properties(Target(locators=("#w",)), include_defaults=True)
        rows = {p.name: p for p in page.items}
        assert rows["Fine"].value == "ok" and rows["Fine"].error is None
        bad = rows["Explodes"]
        assert bad.value is None and bad.value_source == "error"
        assert bad.error is not None and bad.error.type == "RuntimeError" and bad.error.message == "getter exploded"
        assert page.error_count == 1
        # A locator testing that property matches nothing instead of failing.
        assert h.engine.find(locator="[Explodes=1]").results == []


def test_a_healthy_answer_has_no_error_fields() -> None:
    with harness(build_app()) as h:
        data = h.engine.tree(max_depth=10).to_json_dict()
        assert "errorCount" not in data
        assert "error" not in str(data)


def test_error_messages_are_cut_and_on_one_line() -> None:
    app = build_app()
    broken(app, "saveButton", state=RuntimeError("line one\nline two " + "x" * 1000))
    with harness(app) as h:
        node = h.engine.node(Target(locators=("#saveButton",)))
        assert node.error is not None
        assert "\n" not in node.error.message and len(node.error.message) <= 300


# -- access keys, the name filter, item fields --------------------------------------


def test_text_has_no_access_key_markers_and_locators_match_the_plain_text() -> None:
    app = build_app()
    save = by_name(app, "saveButton")
    save.mnemonic = True
    save.text = "Save &As"
    with harness(app) as h:
        node = h.engine.node(Target(locators=("#saveButton",)))
        assert node.text == "Save As" and node.access_key == "A"
        assert h.engine.node(Target(locators=('text="Save As"',))).name == "saveButton"
        assert "key=A" in tree_text(h.engine.tree(Target(locators=("#toolbar",)), max_depth=1))


def test_a_name_filter_shows_properties_at_their_default() -> None:
    # Issue 11: filter="WordWrap" on a RichTextBox answered "(0 of 0)" because WordWrap was at its default.
    el = FakeElement(
        "RichTextBox",
        "rtb",
        common_props=False,
        props=[FakeProp("WordWrap", "System.Boolean", True, source="default"), FakeProp("Text", "System.String", "t")],
    )
    with harness(FakeApp(FakeElement("Window", "main", children=[el]))) as h:
        target = Target(locators=("#rtb",))
        assert [p.name for p in h.engine.properties(target, filter="WordWrap").items] == ["WordWrap"]
        assert [p.name for p in h.engine.properties(target).items] == ["Text"]  # no filter: defaults stay out
        assert h.engine.properties(target, filter="WordWrap", include_defaults=False).items == []


def test_item_state_and_totals_reach_the_node_and_the_text() -> None:
    items = [FakeElement("ListBoxItem", text=f"Item {i}") for i in range(40)]
    items[3].item_selected = True
    node = FakeElement("TreeViewItem", "veg", text="Vegetables")
    node.expanded = False
    grid = FakeElement("ListBox", "long", children=items)
    grid.total_children = 5000
    with harness(FakeApp(FakeElement("Window", "main", children=[grid, node]))) as h:
        tree = h.engine.tree(max_depth=3)
        by_text = {n.text: n for n in tree.walk()}
        assert by_text["Item 3"].selected is True and by_text["Item 2"].selected is None
        assert by_text["Vegetables"].expanded is False
        listed = next(n for n in tree.walk() if n.name == "long")
        assert listed.child_count == 40 and listed.total_count == 5000
        text = tree_text(tree)
        assert f"+{40 - MAX_CHILDREN_SHOWN} more" in text and "of=5000" in text and "collapsed" in text


def test_items_without_objects_have_ids_from_their_owner(fake: Harness) -> None:
    owner = by_name(fake.app, "bigList")
    ref_id = fake.ui.run(lambda: fake.objects.id_for(ItemRef(owner, 7)))
    owner_id = fake.id_of(owner)
    assert ref_id == f"{owner_id}.7"
    back = fake.ui.run(lambda: fake.objects.get(ref_id))
    assert isinstance(back, ItemRef) and back.owner is owner and back.index == 7
