"""The snapshot made from the .NET walk (engine/walked.py + the toolkit's walker) against the engine's own.

The engine's own path (``toolkit_walk=False``: every element read from Python)
is the oracle. For every window of the example that runs (WinForms here, and
WPF too in the Windows workflow: ``toolkits/winforms/walker.py`` or
``toolkits/wpf/_walker.py``), and for the WinForms widget zoo (every standard
control, items, MDI, Python-defined windows and panels), the two snapshots
must be equal node for node: ids, types, names, texts as the user reads them
(redacted the same way), states, child counts, locators, errors, the node cap
and the depth cut.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

# Every test runs on the example the run drives (WPFPROBE_EXAMPLE); the zoo's are WinForms only.
pytestmark = [pytest.mark.toolkit("winforms", "wpf")]
#: WinForms here is Mono's; on Windows it is the .NET Framework's, which formats some values otherwise.
MONO = not sys.platform.startswith("win")


@pytest.fixture(autouse=True)
def _walk_compiled(probe: Any, toolkit: str) -> None:
    """Attaching started the walk's compile: on a thread of its own (waited for), or, in Mono's
    unsafe suspend modes, posted to the UI thread (a hop after it finds it done)."""
    from wpfprobe_clr import _compiling

    if toolkit == "wpf":
        from wpfprobe_clr.toolkits.wpf import _walker as walker
    else:
        from wpfprobe_clr.toolkits.winforms import walker  # type: ignore[no-redef]

    assert _compiling.wait(120)
    probe.engine.hop(lambda h: None)
    assert walker.ready()


#: The walks ``_both`` took, as ``walked.prepare_steps`` handed them to ``build``.
_prepared: list[Any] = []


def _both(probe: Any, root: str | None, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    from wpfprobe.engine import walked

    engine = probe.engine
    kept = engine.settings
    built: list[Any] = []
    build = walked.build

    def counted(prepared: Any) -> Any:
        _prepared.append(prepared)
        built.append(result := build(prepared))
        return result

    try:
        engine.settings = kept.model_copy(update={"toolkit_walk": True})
        walked.build = counted  # type: ignore[assignment]
        try:
            fast = probe.tree(root, **kwargs).model_dump()
        finally:
            walked.build = build  # type: ignore[assignment]
        assert len(built) == 1 and built[0] is not None, "the snapshot was made from the walk"
        engine.settings = kept.model_copy(update={"toolkit_walk": False})
        own = probe.tree(root, **kwargs).model_dump()
    finally:
        engine.settings = kept
    return fast, own


def _differences(fast: dict[str, Any], own: dict[str, Any], at: str = "") -> Iterator[str]:
    for key in sorted(set(fast) | set(own)):
        if key == "children":
            continue
        if fast.get(key) != own.get(key):
            yield f"{at or 'root'}: {key} walk={fast.get(key)!r} own={own.get(key)!r}"
    fast_kids, own_kids = fast.get("children") or [], own.get("children") or []
    if len(fast_kids) != len(own_kids):
        yield f"{at or 'root'}: {len(fast_kids)} children walked, {len(own_kids)} read"
    for a, b in zip(fast_kids, own_kids, strict=False):
        yield from _differences(a, b, b.get("locator") or "?")


def _left_to_the_engine(probe: Any, root: str, **kwargs: Any) -> tuple[int, list[tuple[str, str | None]]]:
    """``_assert_same``, and the (type, name) of the nodes the walk left to the engine's own reads."""
    _prepared.clear()
    count = _assert_same(probe, root, **kwargs)
    return count, sorted((node["type"], node["name"]) for node, _kids in _prepared[0].projected.values())


def _nodes(tree: dict[str, Any]) -> int:
    return 1 + sum(_nodes(k) for k in tree.get("children") or ())


def _assert_same(probe: Any, root: str | None, **kwargs: Any) -> int:
    fast, own = _both(probe, root, **kwargs)
    problems = [f"{k}: walk={fast[k]!r} own={own[k]!r}" for k in fast if k != "root" and fast[k] != own[k]]
    problems += _differences(fast["root"], own["root"])
    assert problems == [], "\n".join(problems[:40])
    assert fast == own  # and nothing else differs (truncation, counts)
    return _nodes(own["root"])


@pytest.mark.usefixtures("running_app")
def test_the_walk_snapshots_every_window_of_the_example_as_the_engine_does(probe: Any) -> None:
    windows = probe.windows()
    assert windows
    total = 0
    _prepared.clear()
    for window in windows:
        total += _assert_same(probe, window.locator, max_depth=10)
    assert total > 20
    # The walk itself made most nodes: a walk that left everything to the engine would pass the rest.
    walked_whole = sum(n.complete for p in _prepared for n in p.walk.nodes())
    assert walked_whole >= 10, (walked_whole, total)


@pytest.mark.usefixtures("running_app")
def test_the_walk_cuts_at_the_same_depth_and_node_cap(probe: Any) -> None:
    for depth in (0, 1, 2):
        _assert_same(probe, None, max_depth=depth)
    engine = probe.engine
    kept = engine.settings
    engine.settings = kept.model_copy(update={"max_tree_nodes": 7})
    try:
        _assert_same(probe, None, max_depth=10)
    finally:
        engine.settings = kept


@pytest.mark.usefixtures("running_app")
def test_the_walk_redacts_the_password_box(probe: Any) -> None:
    from wpfprobe.core.redaction import REDACTED

    fast, _own = _both(probe, None, max_depth=10)
    texts = []
    stack = [fast["root"]]
    while stack:
        node = stack.pop()
        texts.append(node.get("text"))
        stack.extend(node.get("children") or ())
    assert REDACTED in texts


@pytest.mark.toolkit("winforms")
def test_the_walk_snapshots_the_widget_zoo_as_the_engine_does(zoo_probe: Any) -> None:
    total = 0
    for window in zoo_probe.windows():
        total += _assert_same(zoo_probe, window.locator, max_depth=10)
    assert total > 300, total


@pytest.mark.toolkit("winforms")
def test_a_walk_in_many_slices_snapshots_the_zoo_as_one_in_a_single_slice(zoo_probe: Any) -> None:
    """Slices of 0.3 ms: the walk stops every few dozen controls and goes on from where it stopped."""
    engine = zoo_probe.engine
    kept = engine.settings
    whole = zoo_probe.tree(None, max_depth=10).model_dump()
    engine.settings = kept.model_copy(update={"ui_slice": 0.0003})
    try:
        sliced = zoo_probe.tree(None, max_depth=10).model_dump()
        _assert_same(zoo_probe, None, max_depth=10)
    finally:
        engine.settings = kept
    assert sliced == whole


def _list_patterns() -> Any:
    """A form of list boxes and combo boxes in the states and set-ups the zoo's own lists lack."""
    from System import Array, Object
    from System.Collections.Generic import KeyValuePair
    from System.Windows.Forms import (
        CheckedListBox,
        CheckState,
        ComboBox,
        ContextMenuStrip,
        DrawMode,
        Form,
        ListBox,
        SelectionMode,
        TreeView,
    )

    form = Form()
    form.Name = "listPatterns"
    form.Text = "List patterns"

    def place(control: Any, name: str, x: int, y: int, w: int = 120, h: int = 80) -> Any:
        control.Name = name
        control.SetBounds(x, y, w, h)
        form.Controls.Add(control)
        return control

    many = place(ListBox(), "multiList", 0, 0)
    many.SelectionMode = SelectionMode.MultiExtended
    many.Items.AddRange(Array[Object]([f"row {i}" for i in range(40)]))
    for i in (1, 3, 30):
        many.SetSelected(i, True)
    columns = place(ListBox(), "columnList", 130, 0)
    columns.MultiColumn = True
    columns.Items.AddRange(Array[Object]([f"col {i}" for i in range(60)]))
    variable = place(ListBox(), "variableList", 260, 0)
    variable.DrawMode = DrawMode.OwnerDrawVariable
    variable.Items.AddRange(Array[Object](["a", "b", "c"]))
    pairs = place(ListBox(), "pairList", 390, 0)
    pairs.DisplayMember = "Value"
    for key, value in (("k1", "first"), ("k2", "second")):
        pairs.Items.Add(KeyValuePair[str, str](key, value))
    pairs.SelectedIndex = 1
    numbers = place(ListBox(), "formattedList", 0, 90)
    numbers.FormattingEnabled = True
    numbers.FormatString = "N2"
    numbers.Items.AddRange(Array[Object]([1.5, 2.25, 1000]))
    checks = place(CheckedListBox(), "checkList", 130, 90)
    checks.Items.AddRange(Array[Object](["on", "off", "maybe"]))
    checks.SetItemCheckState(0, CheckState.Checked)
    checks.SetItemCheckState(2, CheckState.Indeterminate)
    checks.SelectedIndex = 2
    hidden = place(ListBox(), "hiddenList", 260, 90)
    hidden.Items.Add("unseen")
    hidden.Visible = False
    off = place(ComboBox(), "disabledCombo", 390, 90, 120, 24)
    off.Items.AddRange(Array[Object](["x", "y"]))
    off.SelectedIndex = 0
    off.Enabled = False
    menu_list = place(ListBox(), "menuList", 0, 180)  # a context menu: read the engine's way, as before
    menu_list.Items.Add("with a menu")
    menu_list.ContextMenuStrip = ContextMenuStrip()
    empty = place(ListBox(), "emptyList", 130, 180)
    empty.SelectionMode = getattr(SelectionMode, "None")
    # Tree views: nodes nested, expanded or not, checked, selected, named; one with 300 nodes.
    plain = place(TreeView(), "plainTree", 260, 180)
    for g in range(3):
        group = plain.Nodes.Add(f"key{g}", f"Group {g}")
        for i in range(4):
            group.Nodes.Add(f"Item {g}.{i}").Nodes.Add(f"Leaf {g}.{i}")
    plain.Nodes[1].Expand()
    checked = place(TreeView(), "checkTree", 390, 180)
    checked.CheckBoxes = True
    for i in range(3):
        checked.Nodes.Add(f"Option {i}").Checked = i == 1
    big = place(TreeView(), "bigTree", 0, 270, 250, 80)
    for i in range(30):
        branch = big.Nodes.Add(f"Branch {i}")
        for j in range(9):
            branch.Nodes.Add(f"Twig {i}.{j}")
    form.Show()
    many.TopIndex = 20  # scrolled (once it has a window): rows before 20 are out of view
    plain.SelectedNode = plain.Nodes[2].Nodes[1]
    checks.Focus()
    return form


@pytest.mark.toolkit("winforms")
@pytest.mark.usefixtures("running_app")
def test_list_items_and_tree_nodes_are_walked_in_net_as_the_engine_reads_them(probe: Any, running_app: Any) -> None:
    """Selections (single, multiple, none), scrolling, columns, owner-drawn rows, display members, formatting,
    check states (indeterminate too), focus, hidden and disabled owners, tree nodes nested, expanded or not,
    checked and selected: the items the walk reads in .NET equal the engine's own reads, and a list with a
    context menu is still left to the engine."""
    form = running_app.invoke(_list_patterns)
    try:
        count, left_to_the_engine = _left_to_the_engine(probe, "Form#listPatterns", max_depth=10)
        assert count > 450
        # The list with a context menu, its item and its menu: nothing else is read the engine's way.
        assert left_to_the_engine == [("ContextMenuStrip", None), ("ListBox", "menuList"), ("ListBoxItem", None)]
        tree = probe.tree("Form#listPatterns", max_depth=10).model_dump()["root"]
        lists = {kid["name"]: kid for kid in tree["children"]}
        scrolled = lists["multiList"]["children"]
        assert [k["selected"] for k in scrolled[:4]] == [False, True, False, True]
        assert (scrolled[3]["visible"], scrolled[20]["visible"]) == (False, True)
        assert [k["checked"] for k in lists["checkList"]["children"]] == [True, False, None]
        assert lists["checkList"]["children"][2]["focused"] is True
        assert [k["text"] for k in lists["pairList"]["children"]] == ["first", "second"]
        groups = lists["plainTree"]["children"]
        # Group 1 expanded by hand, group 2 by selecting a node in it (WinForms expands its parents).
        assert [g["expanded"] for g in groups] == [False, True, True] and groups[0]["name"] == "key0"
        assert groups[2]["children"][1]["selected"] is True and groups[2]["children"][1]["expanded"] is False
        assert groups[0]["children"][0]["children"][0]["expanded"] is None  # a leaf, collapsed parents or not
        assert [n["checked"] for n in lists["checkTree"]["children"]] == [False, True, False]
        assert sum(len(b["children"]) for b in lists["bigTree"]["children"]) == 270
        assert [k["text"] for k in lists["formattedList"]["children"]] == ["1.50", "2.25", "1,000.00"]
    finally:
        running_app.invoke(lambda: (form.Close(), form.Dispose()))


def _view_patterns() -> Any:
    """A form of list views in the set-ups and states the zoo's own list view lacks.

    A form of its own: a focused row needs a focused list view, and the list
    patterns' form keeps its focus on its checked list.
    """
    from System import EventHandler
    from System.Windows.Forms import (
        ColumnHeader,
        ColumnHeaderStyle,
        Form,
        ListView,
        ListViewItem,
        RetrieveVirtualItemEventHandler,
        View,
    )

    form = Form()
    form.Name = "viewPatterns"
    form.Text = "List view patterns"

    def place(name: str, view: Any, x: int, y: int, w: int = 150, h: int = 90) -> Any:
        lv = ListView()
        lv.Name = name
        lv.View = view
        lv.SetBounds(x, y, w, h)
        form.Controls.Add(lv)
        return lv

    def columns(lv: Any, *titles: str | None) -> list[Any]:
        made = []
        for i, title in enumerate(titles):
            header = ColumnHeader()
            header.Text = title
            if i == 0:
                header.Name = f"{lv.Name}First"
            header.Width = 50
            lv.Columns.Add(header)
            made.append(header)
        return made

    def rows(lv: Any, count: int, cells: int) -> None:
        for i in range(count):
            row = ListViewItem(f"{lv.Name} {i}")
            for j in range(1, cells):
                row.SubItems.Add(f"{i}.{j}")
            lv.Items.Add(row)

    details = place("detailsView", View.Details, 0, 0, 200, 120)
    details.MultiSelect = True
    details.FullRowSelect = True
    name, age, city = columns(details, "Name", "Age", "City")
    city.DisplayIndex = 0  # shown first: the columns are listed in display order
    for header in (name, age, city):
        header.Width = 120  # the last column shown (Age) is out of view: its cells are not visible
    rows(details, 30, 3)
    details.Items[2].SubItems.RemoveAt(2)  # fewer subitems than columns: fewer cells
    details.Items[4].SubItems.Add("beyond the columns")  # more: no cell for it
    details.Items[6].Name = "namedRow"
    details.Items[6].SubItems[1].Name = "namedCell"
    for i in (1, 3):
        details.Items[i].Selected = True
    checks = place("checkView", View.List, 210, 0)
    checks.CheckBoxes = True
    columns(checks, "Ignored")  # a list view shows no header out of details view: no column children
    rows(checks, 8, 2)
    for i in (0, 5):
        checks.Items[i].Checked = True
    icons = place("iconView", View.LargeIcon, 370, 0)
    columns(icons, "Ignored")
    rows(icons, 5, 1)
    hidden = place("hiddenView", View.Details, 0, 130)
    columns(hidden, "Only")
    rows(hidden, 3, 1)
    hidden.Visible = False
    headless = place("headlessView", View.Details, 160, 130)
    headless.HeaderStyle = getattr(ColumnHeaderStyle, "None")
    columns(headless, "A", None)  # a column without a text: Python's str() reads it "None"
    rows(headless, 4, 2)
    headless.Enabled = False
    empty = place("emptyView", View.Details, 320, 130)
    columns(empty, "Nothing", "Yet")
    big = place("bigView", View.Details, 0, 230, 250, 100)
    columns(big, "Key", "Value")
    rows(big, 300, 2)
    virtual = place("virtualView", View.Details, 260, 230)
    columns(virtual, "Row")
    virtual.VirtualMode = True
    virtual.VirtualListSize = 40

    def make_row(_sender: Any, args: Any) -> None:
        args.Item = ListViewItem(f"virtual {args.ItemIndex}")

    virtual.RetrieveVirtualItem += RetrieveVirtualItemEventHandler(make_row)
    # Virtual lists: 5,000 rows with cells and check boxes (scrolled, some selected), one in list view (no
    # columns, no cells), an empty one, and one handing out rows of a class written in Python (left to the engine).
    huge = place("hugeVirtual", View.Details, 420, 230, 200, 100)
    columns(huge, "Key", "Value")
    huge.CheckBoxes = True
    huge.VirtualMode = True
    huge.VirtualListSize = 5000

    def make_huge_row(_sender: Any, args: Any) -> None:
        i = int(args.ItemIndex)
        row = ListViewItem(f"key {i}")
        row.SubItems.Add(f"value {i}")
        row.Checked = i % 3 == 0
        if i % 7 == 0:
            row.Name = f"virtual{i}"
        args.Item = row

    huge.RetrieveVirtualItem += RetrieveVirtualItemEventHandler(make_huge_row)
    listed = place("listVirtual", View.List, 0, 340, 150, 60)
    columns(listed, "Ignored")
    listed.VirtualMode = True
    listed.VirtualListSize = 12
    listed.RetrieveVirtualItem += RetrieveVirtualItemEventHandler(make_row)
    nothing = place("emptyVirtual", View.Details, 160, 340, 150, 60)
    columns(nothing, "None yet")
    nothing.VirtualMode = True
    nothing.VirtualListSize = 0
    nothing.RetrieveVirtualItem += RetrieveVirtualItemEventHandler(make_row)

    class PythonRow(ListViewItem):  # type: ignore[misc, valid-type]
        __namespace__ = "WalkerLiveTests"

    odd = place("oddVirtual", View.Details, 320, 340, 150, 60)
    columns(odd, "Row")
    odd.VirtualMode = True
    odd.VirtualListSize = 3

    def make_python_row(_sender: Any, args: Any) -> None:
        row = PythonRow()
        row.Text = f"python {args.ItemIndex}"
        args.Item = row

    odd.RetrieveVirtualItem += RetrieveVirtualItemEventHandler(make_python_row)
    # An app's handler that fails for some rows: it throws for row 1 and gives no row for row 2.
    faulty = place("faultyVirtual", View.Details, 480, 340, 150, 60)
    columns(faulty, "Row")
    faulty.VirtualMode = True
    faulty.VirtualListSize = 4

    def make_faulty_row(_sender: Any, args: Any) -> None:
        i = int(args.ItemIndex)
        if i == 1:
            raise ValueError("no row 1 here")
        if i != 2:
            args.Item = ListViewItem(f"faulty {i}")

    faulty.RetrieveVirtualItem += RetrieveVirtualItemEventHandler(make_faulty_row)
    form.Shown += EventHandler(lambda *_: None)
    form.Show()
    details.EnsureVisible(25)  # scrolled (once it has a window): the first rows are out of view
    huge.EnsureVisible(2520)
    details.Focus()
    details.FocusedItem = details.Items[3]
    return form


@pytest.mark.toolkit("winforms")
@pytest.mark.usefixtures("running_app")
def test_list_view_columns_rows_and_cells_are_walked_in_net_as_the_engine_reads_them(
    probe: Any, running_app: Any
) -> None:
    """Columns in display order (details view only), rows and their cells (fewer or more subitems than columns,
    named ones), list and icon views, check boxes, selection, focus, scrolling, a hidden, a disabled and a
    headerless list view, an empty one, 300 rows, and lists in virtual mode (their rows in view only, and their
    total; rows of a Python class, and an app's handler that throws or gives no row): walked in .NET, equal to
    the engine's own reads."""
    form = running_app.invoke(_view_patterns)
    try:
        count, left_to_the_engine = _left_to_the_engine(probe, "Form#viewPatterns", max_depth=10)
        assert count > 1000
        # The rows of a Python class in a virtual list, and their cells, and the rows an app's handler failed to
        # give: the engine reads them, as ItemRefs (the last two as it reads a row it cannot get).
        assert set(left_to_the_engine) == {("PythonRow", None), ("ListViewSubItem", None), ("ItemRef", None)}
        assert len(left_to_the_engine) == 8
        tree = probe.tree("Form#viewPatterns", max_depth=10).model_dump()["root"]
        views = {kid["name"]: kid for kid in tree["children"]}
        shown = views["detailsView"]["children"]
        assert [k["text"] for k in shown[:3]] == ["City", "Name", "Age"] and shown[0]["type"] == "ColumnHeader"
        rows = shown[3:]
        assert [r["selected"] for r in rows[:4]] == [False, True, False, True]
        assert rows[3]["focused"] is True and rows[1]["focused"] is False
        assert (rows[0]["visible"], rows[25]["visible"]) == (False, True)
        assert [len(r["children"]) for r in rows[1:5]] == [3, 2, 3, 3]
        assert [c["visible"] for c in rows[25]["children"]] == [True, False, True]  # Name, Age, City
        assert rows[6]["name"] == "namedRow" and rows[6]["children"][1]["name"] == "namedCell"
        assert rows[6]["children"][1]["node_id"] == rows[6]["node_id"] + ".1"
        checks = views["checkView"]["children"]
        assert [r["checked"] for r in checks[:6]] == [True, False, False, False, False, True]
        assert all(r["type"] == "ListViewItem" and not r["children"] for r in checks)
        assert [r["text"] for r in views["iconView"]["children"]][:2] == ["iconView 0", "iconView 1"]
        assert all(r["visible"] is False for r in views["hiddenView"]["children"])
        headers = views["headlessView"]["children"][:2]
        assert [(h["text"], h["visible"], h["enabled"]) for h in headers] == [
            ("A", False, False),
            ("None", False, False),
        ]
        assert [k["type"] for k in views["emptyView"]["children"]] == ["ColumnHeader", "ColumnHeader"]
        assert len(views["bigView"]["children"]) == 302
        assert views["virtualView"]["total_count"] == 41
        huge = views["hugeVirtual"]
        assert huge["total_count"] == 5002 and 5 < len(huge["children"]) < 40
        rows = huge["children"][2:]
        first = int(rows[0]["text"][4:])
        assert rows[0]["node_id"] == f"{huge['node_id']}.{first}" and 2490 < first <= 2520
        assert [r["name"] for r in rows] == [
            f"virtual{i}" if i % 7 == 0 else None for i in range(first, first + len(rows))
        ]
        assert all(r["checked"] == (int(r["text"][4:]) % 3 == 0) for r in rows)
        assert [c["text"] for c in rows[0]["children"]] == [rows[0]["text"], "value" + rows[0]["text"][3:]]
        listed = views["listVirtual"]
        assert listed["total_count"] == 12 and [r["text"] for r in listed["children"]] == [
            f"virtual {i}" for i in range(len(listed["children"]))
        ]
        assert (views["emptyVirtual"]["total_count"], len(views["emptyVirtual"]["children"])) == (1, 1)
        faulty = views["faultyVirtual"]["children"][1:]  # its column, then its rows
        assert [r["text"] for r in faulty] == ["faulty 0", None, None, "faulty 3"]
        assert faulty[1]["error"]["message"] == "no row 1 here" and faulty[2]["error"] is not None
        # Cut between a row and its cells, at a node cap inside a list view's rows, and in slices of 0.3 ms.
        for depth in (1, 2):
            _assert_same(probe, "Form#viewPatterns", max_depth=depth)
        engine = probe.engine
        kept_settings = engine.settings
        for update in ({"max_tree_nodes": 40}, {"max_tree_nodes": 500}, {"ui_slice": 0.0003}):
            engine.settings = kept_settings.model_copy(update=update)
            try:
                _assert_same(probe, "Form#viewPatterns", max_depth=10)
            finally:
                engine.settings = kept_settings
    finally:
        running_app.invoke(lambda: (form.Close(), form.Dispose()))


@pytest.mark.toolkit("winforms")
@pytest.mark.usefixtures("running_app")
def test_a_walk_hands_its_result_over_in_a_slice_of_its_own_and_the_next_walk_reuses_its_state(
    probe: Any, running_app: Any
) -> None:
    """Handing 5,000 nodes to Python took 2-11 ms at the end of a slice already used up; and a new set of
    .NET lists and builders per walk brought on a major collection of Mono's every few snapshots."""
    from System import Object

    from wpfprobe_clr.toolkits.winforms import walker

    registry = probe.engine.objects.registry

    def walk_twice() -> tuple[list[Any], list[int]]:
        root = probe.engine.adapter.roots()[0]
        states, counts = [], []
        for _ in range(2):
            walk = walker.walking(root, registry, max_depth=10, cap=5000)
            assert not walk.advance(10.0), "all walked, nothing handed over yet"
            states.append(walk.state)
            assert walk.advance(10.0) and walk.state is None
            counts.append(len(walk.nodes()))
        return states, counts

    states, counts = running_app.invoke(walk_twice)
    assert Object.ReferenceEquals(states[0], states[1])
    assert counts[0] == counts[1] > 20


def _settled(probe: Any, root: str, timeout: float = 60.0) -> None:
    """Wait until ``root``'s tree reads the same twice in a row: a grid just shown and scrolled marks its
    columns and rows Displayed as it paints, over a few passes of the message loop."""
    import time

    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        now = probe.tree(root, max_depth=10).model_dump()
        if now == last:
            return
        last = now
        time.sleep(0.1)
    raise AssertionError(f"{root} kept changing for {timeout} s")


def _grid_patterns() -> Any:
    """A form of grids in the set-ups and states the zoo's bound grid lacks."""
    import clr

    clr.AddReference("System.Data")
    from System import Boolean, DateTime, DBNull, Decimal, Double, Int32
    from System.Data import DataTable
    from System.Windows.Forms import (
        CheckState,
        DataGridView,
        DataGridViewCellValueEventHandler,
        DataGridViewCheckBoxColumn,
        DataGridViewImageColumn,
        DataGridViewSelectionMode,
        DataGridViewTextBoxColumn,
        Form,
    )

    form = Form()
    form.Name = "gridPatterns"
    form.Text = "Grid patterns"
    form.SetBounds(0, 0, 900, 800)

    def place(name: str, x: int, y: int, w: int = 420, h: int = 200) -> Any:
        grid = DataGridView()
        grid.Name = name
        grid.SetBounds(x, y, w, h)
        form.Controls.Add(grid)
        return grid

    # Bound to 5,000 orders: formatted prices and dates, nulls, a hidden column, columns reordered, scrolled,
    # rows selected, the current cell set in a focused grid, a row header with a value.
    table = DataTable("Orders")
    table.Columns.Add("Id", clr.GetClrType(Int32))
    table.Columns.Add("Customer")
    table.Columns.Add("Price", clr.GetClrType(Decimal))
    table.Columns.Add("Due", clr.GetClrType(DateTime))
    table.Columns.Add("Secret")
    table.Columns.Add("Shipped", clr.GetClrType(Boolean))
    table.BeginLoadData()
    for i in range(5000):
        customer = DBNull.Value if i % 5 == 0 else f"customer {i}"
        shipped = DBNull.Value if i % 7 == 0 else i % 2 == 0
        table.Rows.Add(i, customer, Decimal(i) / Decimal(4), DateTime(2024, 1, 1).AddDays(i), f"s{i}", shipped)
    table.EndLoadData()
    bound = place("boundGrid", 0, 0)
    bound.DataSource = table
    bound.SelectionMode = DataGridViewSelectionMode.FullRowSelect
    bound.MultiSelect = True
    # Unbound: text and three-state check box columns, values of many kinds, a hidden row, the new row.
    unbound = place("unboundGrid", 430, 0, 440, 300)
    key = DataGridViewTextBoxColumn()
    key.Name = "key"
    key.HeaderText = "Key"
    amount = DataGridViewTextBoxColumn()
    amount.Name = "amount"
    amount.HeaderText = ""
    amount.DefaultCellStyle.Format = "N2"
    amount.DefaultCellStyle.NullValue = "(none)"
    done = DataGridViewCheckBoxColumn()
    done.Name = "done"
    done.HeaderText = "Done"
    maybe = DataGridViewCheckBoxColumn()
    maybe.Name = "maybe"
    maybe.HeaderText = "Maybe"
    maybe.ThreeState = True
    spare = DataGridViewCheckBoxColumn()
    spare.Name = "spare"
    spare.Visible = False
    for column in (key, amount, done, maybe, spare):
        unbound.Columns.Add(column)
    values = [
        ("plain", Double(1.5), True, CheckState.Checked),
        (None, None, False, CheckState.Indeterminate),
        ("  ", Int32(3), None, CheckState.Unchecked),
        ("|", Double(1000), "true", None),
        ("one", None, "1", None),
        ("checked", None, "Checked", None),
        ("dbnull", None, DBNull.Value, None),
        ("hidden row", None, True, None),
        # str(1.0) is "1.0" in Python, "1" in .NET: a Double in the row's text leaves the row (and its cells) to
        # the engine, one only in a hidden column leaves its cell's check.
        ("float", None, Double(1.0), None),
        ("int", None, Int32(1), None, Double(1.0)),
    ]
    for row_values in values:
        unbound.Rows.Add(*row_values)
    unbound.Rows[7].Visible = False
    unbound.Rows[0].HeaderCell.Value = "R1"
    # Virtual mode: 5,000 rows whose values the app hands out, scrolled.
    virtual = place("virtualGrid", 0, 310)
    virtual.VirtualMode = True
    for name in ("Index", "Square"):
        column = DataGridViewTextBoxColumn()
        column.Name = f"v{name}"
        column.HeaderText = name
        virtual.Columns.Add(column)
    virtual.AllowUserToAddRows = False
    virtual.RowCount = 5000

    def value_needed(_sender: Any, args: Any) -> None:
        row = int(args.RowIndex)
        args.Value = str(row) if args.ColumnIndex == 0 else str(row * row)

    virtual.CellValueNeeded += DataGridViewCellValueEventHandler(value_needed)
    # Hidden, and one without headers: no rows in view, and columns not shown.
    hidden = place("hiddenGrid", 430, 310, 200, 100)
    hidden.Columns.Add("only", "Only")
    hidden.Rows.Add("unseen")
    hidden.Visible = False
    headless = place("headlessGrid", 640, 310, 230, 100)
    headless.Columns.Add("a", "A")
    headless.Columns.Add("b", "B")
    for i in range(3):
        headless.Rows.Add(f"a{i}", f"b{i}")
    headless.ColumnHeadersVisible = False
    headless.RowHeadersVisible = False
    headless.Enabled = False
    empty = place("emptyGrid", 430, 420, 200, 80)
    empty.AllowUserToAddRows = False
    # Rows whose text is only separators and spaces have none; an image column shows its image's ToString.
    blank = place("blankGrid", 640, 420, 230, 120)
    blank.Columns.Add("first", "First")
    blank.Columns.Add("second", "Second")
    blank.Columns.Add(DataGridViewImageColumn())
    blank.AllowUserToAddRows = False
    for pair in (("", None), (" ", "|"), ("|", "x")):
        blank.Rows.Add(*pair)
    blank.Columns[2].Visible = False
    form.Show()
    # Once shown: columns reordered and hidden, scrolled, selected, the current cell, focus.
    bound.Columns["Secret"].Visible = False
    bound.Columns["Price"].DefaultCellStyle.Format = "C2"
    bound.Columns["Due"].DefaultCellStyle.Format = "yyyy-MM-dd"
    bound.Columns["Shipped"].DisplayIndex = 0
    bound.FirstDisplayedScrollingRowIndex = 2500
    bound.Focus()
    bound.CurrentCell = bound.Rows[2503].Cells["Customer"]  # selects its row (full-row selection)
    bound.Rows[2501].Selected = True
    virtual.CurrentCell = virtual.Rows[4000].Cells[0]  # scrolls it into view
    virtual.FirstDisplayedScrollingRowIndex = 4000
    # A grid marks its rows and columns Displayed when it paints: paint now, so both reads see the same grids.
    form.Refresh()
    return form


@pytest.mark.toolkit("winforms")
@pytest.mark.usefixtures("running_app")
def test_grid_columns_rows_in_view_and_cells_are_walked_in_net_as_the_engine_reads_them(
    probe: Any, running_app: Any
) -> None:
    """Bound (5,000 rows, scrolled, formatted values, nulls, a hidden and a reordered column, selected rows, the
    current cell in a focused grid), unbound (check boxes of every value kind, a three-state one, an empty header,
    a hidden row, the new row, a row header), virtual mode (5,000 rows, scrolled), hidden, headerless and disabled,
    and empty grids: the columns, the rows in view and their cells walked in .NET equal the engine's own reads,
    and each grid's node counts all its rows."""
    form = running_app.invoke(_grid_patterns)
    try:
        _settled(probe, "Form#gridPatterns")
        count, left_to_the_engine = _left_to_the_engine(probe, "Form#gridPatterns", max_depth=10)
        assert count > 150
        # The row showing a Double, its cells, and the hidden check box cell holding one: nothing else is read
        # the engine's way. (Mono's check box cells format a value as it is; the .NET Framework's as a Boolean.)
        expected = [
            *[("DataGridViewCheckBoxCell", None)] * 4,
            ("DataGridViewRow", None),
            *[("DataGridViewTextBoxCell", None)] * 2,
        ]
        if MONO:
            assert left_to_the_engine == expected, left_to_the_engine
        else:
            assert set(left_to_the_engine) <= set(expected), left_to_the_engine
        tree = probe.tree("Form#gridPatterns", max_depth=10).model_dump()["root"]
        grids = {kid["name"]: kid for kid in tree["children"]}
        bound = grids["boundGrid"]
        columns = {k["name"]: k for k in bound["children"] if k["type"].endswith("Column")}
        controls = [k for k in bound["children"] if not k["type"].startswith("DataGridView")]
        # Its controls (scroll bars), six columns, 5,000 rows and the new row.
        assert bound["total_count"] == len(controls) + 6 + 5001
        assert columns["Secret"]["visible"] is False and columns["Id"]["visible"] is True
        rows = [k for k in bound["children"] if k["type"] == "DataGridViewRow"]
        assert 5 < len(rows) < 30 and all(r["visible"] for r in rows)
        # A row's cells come in the columns' order: the Id and Customer cells are where their columns are.
        order = [k["name"] for k in bound["children"] if k["type"].endswith("Column")]
        at_id, at_customer = order.index("Id"), order.index("Customer")
        by_id = {r["children"][at_id]["text"]: r for r in rows}
        assert {k for k, r in by_id.items() if r["selected"]} == {"2501", "2503"}
        assert [r["focused"] for r in rows].count(True) == 1 and by_id["2503"]["focused"]
        assert [c["focused"] for c in by_id["2503"]["children"]] == [i == at_customer for i in range(6)]
        assert by_id["2500"]["children"][at_customer]["text"] is None  # a null customer
        assert by_id["2503"]["children"][at_customer]["text"] == "customer 2503"
        assert "s2503" not in by_id["2503"]["text"]  # the hidden column's cell is not in the row's text
        unbound = [k for k in grids["unboundGrid"]["children"] if k["type"] == "DataGridViewRow"]
        texts = [r["text"].split(" | ")[0] for r in unbound]
        assert texts == ["plain", "", "  ", "|", "one", "checked", "dbnull", "float", "int", ""]
        if MONO:
            assert unbound[8]["text"] == "int |  | 1 | Indeterminate"
        checks = [[c["checked"] for c in r["children"][2:]] for r in unbound]
        assert checks[:9] == [
            [True, True, False], [False, None, False], [False, False, False], [True, False, False],
            [True, False, False], [True, False, False], [False, False, False], [False, False, False],
            [True, False, False],
        ]  # fmt: skip
        headers = [c["text"] for c in grids["unboundGrid"]["children"] if c["type"].endswith("Column")]
        assert headers[:2] == ["Key", None]
        virtual = grids["virtualGrid"]
        assert virtual["total_count"] == 2 + 2 + 5000
        virtual_rows = [k for k in virtual["children"] if k["type"] == "DataGridViewRow"]
        assert virtual_rows and all(3990 < int(r["text"].split(" | ")[0]) < 4030 for r in virtual_rows), [
            r["text"] for r in virtual_rows
        ]
        top = int(virtual_rows[0]["text"].split(" | ")[0])
        assert virtual_rows[0]["text"] == f"{top} | {top * top}"
        hidden = grids["hiddenGrid"]
        # No row is in view in a hidden grid: its one row and the new row count all the same.
        assert hidden["total_count"] == len(hidden["children"]) + 2
        assert not any(k["visible"] for k in hidden["children"])
        headless = grids["headlessGrid"]
        assert [k["visible"] for k in headless["children"] if k["type"].endswith("Column")] == [False, False]
        assert not any(k["enabled"] for k in headless["children"] if k["type"].startswith("DataGridView"))
        assert [r["text"] for r in grids["blankGrid"]["children"] if r["type"] == "DataGridViewRow"] == [
            None,
            None,
            "| | x",
        ]
        # Cut between a row and its cells, at a node cap inside a grid's rows, and in slices of 0.3 ms.
        for depth in (1, 2, 3):
            _assert_same(probe, "Form#gridPatterns", max_depth=depth)
        engine = probe.engine
        kept_settings = engine.settings
        for update in ({"max_tree_nodes": 30}, {"max_tree_nodes": 120}, {"ui_slice": 0.0003}):
            engine.settings = kept_settings.model_copy(update=update)
            try:
                _assert_same(probe, "Form#gridPatterns", max_depth=10)
            finally:
                engine.settings = kept_settings
    finally:
        running_app.invoke(lambda: (form.Close(), form.Dispose()))
