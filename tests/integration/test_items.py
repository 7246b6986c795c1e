"""Items as elements (SPEC section 8) through the Python API, on a real WinForms window.

The items window (scripts/items_app.py) is shown beside the example app, on
the example's UI thread, for this module only, and read through the session's
probe. Every handler of the window records what it did (``window.seen``), so
a test sees that the app's own code ran, not only that a property changed.
Reads of live controls go through ``running_app.invoke`` (the cross-thread
check is on).
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import wpfprobe
from wpfprobe import ProbeError
from wpfprobe.errors import ElementNotInteractableError, InvalidArgumentError

pytestmark = pytest.mark.toolkit("winforms")

SCRIPT = Path(__file__).parent / "scripts" / "items_app.py"


def load_items_app() -> Any:
    spec = importlib.util.spec_from_file_location("items_app", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def items_app(example: Any) -> Any:
    return load_items_app()


@pytest.fixture(scope="module")
def window(running_app: Any, items_app: Any, probe: Any) -> Iterator[Any]:
    shown = items_app.show_on(running_app.invoke)
    try:
        # A grid knows which rows are in view once it has laid them out: wait for the first one.
        probe.wait_for("#grid > DataGridViewRow", "exists")
        yield shown
    finally:
        running_app.invoke(lambda: (shown.form.Close(), shown.form.Dispose()))


@pytest.fixture
def ui(running_app: Any) -> Any:
    return running_app.invoke


def last_event(window: Any) -> str | None:
    return window.seen[-1] if window.seen else None


# -- the tree ------------------------------------------------------------------------


def test_the_tree_lists_every_kind_of_item_with_text_state_and_a_locator(probe: Any, window: Any) -> None:
    tree = probe.locator("#itemsWindow").tree(max_depth=6)
    nodes = tree.walk()
    by_type: dict[str, list[Any]] = {}
    for node in nodes:
        by_type.setdefault(node.type, []).append(node)

    fruits = next(n for n in nodes if n.name == "fruits")
    listed = fruits.children or []
    assert [c.text for c in listed if c.type == "ListBoxItem"] == list(window_fruits())
    assert [c.name for c in listed if c.type != "ListBoxItem"] == ["fruitsMenu"]  # its context menu, last
    assert [n.text for n in by_type["CheckedListBoxItem"]] == ["Cheese", "Ham", "Olives"]
    assert [n.checked for n in by_type["CheckedListBoxItem"]] == [False, False, True]
    combo = by_type["ComboBoxItem"]
    assert [n.text for n in combo] == ["Small", "Medium", "Large"]
    assert [n.selected for n in combo] == [True, False, False]
    assert not any(n.visible for n in combo)  # a closed drop-down: nothing of it shows
    assert [n.text for n in by_type["ColumnHeader"]][:3] == ["Name", "Age", "City"]
    assert [n.text for n in by_type["ListViewItem"]][:3] == ["Ada", "Grace", "Linus"]
    assert [n.text for n in by_type["ListViewSubItem"]][:3] == ["Ada", "36", "London"]
    nodes_by_text = {n.text: n for n in by_type["TreeNode"]}
    # Children of a collapsed node are there, not visible, and the node says it is collapsed.
    assert nodes_by_text["Vegetables"].expanded is False and nodes_by_text["Carrot"].visible is False
    assert nodes_by_text["Chores"].expanded is True and nodes_by_text["Dishes"].checked is False
    assert nodes_by_text["Apple"].checked is None  # no check boxes in that tree
    pages = {n.name: n for n in by_type["TabPage"]}
    assert pages["generalPage"].selected is True and pages["advancedPage"].selected is False
    assert by_type["ContextMenuStrip"][0].name == "fruitsMenu"
    assert by_type["ContextMenu"][0].locator.startswith("TextBox#notes/")
    assert {n.name for n in by_type["MenuItem"]} == {"pasteMenuItem"}
    for node in nodes:
        assert probe.locator(node.locator).node().node_id == node.node_id, node.locator


def window_fruits() -> tuple[str, ...]:
    module = sys.modules["items_app"]
    return tuple(module.FRUITS)


def test_a_grid_lists_its_columns_and_only_the_rows_in_view_with_the_total(probe: Any, window: Any) -> None:
    grid = probe.locator("#grid").tree(max_depth=2).root
    assert grid.children is not None
    columns = [c for c in grid.children if c.type.endswith("Column")]
    rows = [c for c in grid.children if c.type == "DataGridViewRow"]
    assert [c.text for c in columns] == ["Name", "Age"]
    assert 0 < len(rows) < 20, "only the rows in view are listed"
    total_rows = sys.modules["items_app"].GRID_ROWS + 1  # and the new-row placeholder
    assert grid.total_count is not None and grid.total_count >= len(columns) + total_rows
    assert grid.total_count > grid.child_count
    first = rows[0]
    assert first.text == "Person 0 | 20"
    assert first.children is not None and [c.text for c in first.children] == ["Person 0", "20"]
    cell = probe.locator(first.children[1].locator)
    assert cell.property("Column").value == "Age"
    bounds = cell.inspect().bounds
    assert bounds is not None and bounds.width > 0 and bounds.height > 0


def test_a_virtual_list_view_lists_the_rows_in_view_and_keeps_their_ids(probe: Any, window: Any) -> None:
    log = probe.locator("#eventLog").tree(max_depth=2).root
    rows = [c for c in log.children or [] if c.type == "ListViewItem"]
    total = sys.modules["items_app"].VIRTUAL_ROWS
    assert 0 < len(rows) < 20 and log.total_count == 2 + total  # two columns, every row
    assert rows[0].text == "Event 0" and [c.text for c in rows[0].children or []] == ["Event 0", "1000"]
    # The app makes a new object each time it is asked; the row is still the same element.
    again = probe.locator(rows[1].locator).node()
    assert again.node_id == rows[1].node_id and again.text == "Event 1"
    picked = probe.locator('#eventLog > text="Event 2"').click()
    assert picked.after is not None and picked.after.selected is True and last_event(window) == "event 2"


def test_an_item_inspects_with_bounds_inside_its_list_a_path_and_its_facts(probe: Any, window: Any) -> None:
    item = probe.locator('#fruits > text="Banana"')
    info = item.inspect()
    assert info.node.type == "ListBoxItem" and info.node.text == "Banana"
    assert info.parent is not None and info.parent.name == "fruits"
    assert info.path.endswith("/ListBox[0]/ListBoxItem[1]")
    assert probe.locator(info.path).node().node_id == info.node.node_id
    box = probe.locator("#fruits").inspect().bounds
    assert info.bounds is not None and box is not None
    assert (
        box.x <= info.bounds.x and info.bounds.y >= box.y and info.bounds.y + info.bounds.height <= box.y + box.height
    )
    facts = {p.name: p.value for p in item.properties().items}
    assert facts["Text"] == "Banana" and facts["Index"] == 1 and facts["ValueType"] == "System.String"
    # Scrolled out of view: still an element, not visible, without bounds.
    lemon = probe.locator('#fruits > text="Lemon"').inspect()
    assert lemon.node.visible is False and lemon.bounds is None


def test_items_are_found_by_type_text_nth_and_path(probe: Any, window: Any) -> None:
    assert probe.locator("ListBox#fruits > ListBoxItem").count() == len(window_fruits())
    assert probe.locator('#fruits > text="Cherry"').node().text == "Cherry"
    assert probe.locator("#fruits > ListBoxItem:nth(2)").node().text == "Cherry"
    assert probe.locator("ListBox#fruits/ListBoxItem[3]").node().text == "Date"
    assert probe.locator('TreeNode[text="Carrot"]').node().name == "carrotNode"
    assert probe.locator('ListViewItem[text="Grace"] > [Column="City"]').node().text == "Arlington"
    assert probe.locator('DataGridViewRow[text*="Person 2 |"]').count() == 1


# -- captions: what the user reads ------------------------------------------------------


def test_captions_read_without_their_access_key_markers(probe: Any, window: Any) -> None:
    """Issue 11: menu and button captions kept their markers ("&Edit", "Select &All", "&Close")."""
    edit = probe.locator("#editMenu").node()
    assert (edit.text, edit.access_key) == ("Edit", "E")
    select_all = probe.locator('text="Select All"').node()
    assert (select_all.name, select_all.access_key) == ("selectAllMenuItem", "A")
    assert probe.locator("menu:Edit/Select All").node().name == "selectAllMenuItem"
    close = probe.find(text="Close").results
    assert [(r.node.name, r.node.access_key) for r in close] == [("closeButton", "C")]
    paste = probe.locator("#pasteMenuItem").inspect().node
    assert (paste.text, paste.access_key) == ("Paste", "P")


# -- actions ----------------------------------------------------------------------------


def test_clicking_a_list_item_selects_it_and_runs_the_apps_handler(probe: Any, window: Any) -> None:
    result = probe.locator('#fruits > text="Banana"').click()
    assert result.after is not None and result.after.selected is True and "selected" in result.changed
    assert last_event(window) == "fruit Banana"
    assert result.focused is not None and result.focused.name == "fruits"
    double = probe.locator('#fruits > text="Cherry"').click(click_count=2)
    assert double.after is not None and double.after.selected
    assert window.seen[-2:] == ["fruit Cherry", "opened Cherry"]


def test_an_item_scrolled_out_of_view_is_selected_by_the_toolkit_not_by_the_pointer(probe: Any, window: Any) -> None:
    lemon = probe.locator('#fruits > text="Lemon"')
    probe.locator('#fruits > text="Apple"').click()  # scrolls back to the top
    assert lemon.node().visible is False
    with pytest.raises(ElementNotInteractableError) as refused:
        lemon.click(mode="os")
    assert refused.value.detail["reason"] == "offscreen"
    assert refused.value.suggestion and "mode=auto" in refused.value.suggestion
    result = lemon.click()
    assert result.before.visible is False and result.after is not None and result.after.visible is True
    assert last_event(window) == "fruit Lemon"


def test_an_os_click_lands_on_the_item_where_its_bounds_say(probe: Any, window: Any) -> None:
    probe.locator('#fruits > text="Apple"').click()
    probe.wait_for('#fruits > text="Cherry"', "visible")
    probe.locator('#fruits > text="Cherry"').click(mode="os")
    probe.wait_for("#itemsStatus", "propertyEquals", property="Text", value="fruit Cherry")


def test_an_item_of_a_disabled_list_is_disabled(probe: Any, window: Any) -> None:
    beta = probe.locator('#lockedList > text="Beta"')
    assert beta.node().enabled is False
    with pytest.raises(ElementNotInteractableError) as refused:
        beta.click()
    assert refused.value.detail["reason"] == "disabled" and "lockedList" in refused.value.message


def test_select_an_item_itself_or_by_its_text_on_the_list(probe: Any, window: Any) -> None:
    picked = probe.locator("#multiList > ListBoxItem:nth(1)").select()
    assert picked.after is not None and picked.after.selected is True
    listed = probe.locator("#fruits").select("date")
    assert listed.after is not None and listed.after.selected_item == "Date"
    assert last_event(window) == "fruit Date"
    with pytest.raises(InvalidArgumentError):
        probe.locator("#fruits").select()  # a list is not an item: which one?


def test_toggling_a_checked_list_item_runs_item_check(probe: Any, ui: Any, window: Any) -> None:
    ham = probe.locator('#toppings > text="Ham"')
    before = ham.node().checked
    result = ham.toggle()
    assert result.after is not None and result.after.checked is (not before)
    assert last_event(window) == f"topping Ham {'Checked' if not before else 'Unchecked'}"
    assert ham.toggle(before).after.checked is before  # type: ignore[union-attr]
    toppings = window.form.Controls.Find("toppings", True)[0]
    assert ui(lambda: bool(toppings.GetItemChecked(1))) is before


def test_a_click_on_a_selected_checked_list_item_flips_its_check(probe: Any, window: Any) -> None:
    cheese = probe.locator('#toppings > text="Cheese"')
    cheese.toggle(False)
    probe.locator("#toppings").select("Ham")  # selecting through the list flips nothing
    first = cheese.click()  # CheckOnClick is off: the first click selects it
    assert first.after is not None and first.after.selected is True and first.after.checked is False
    second = cheese.click()  # a click on the selected item flips the check, as for a user
    assert second.changed == ["checked"] and last_event(window) == "topping Cheese Checked"
    cheese.toggle(False)


def test_clicking_a_combo_box_item_chooses_it(probe: Any, window: Any) -> None:
    result = probe.locator('#sizes > text="Large"').click()
    assert result.after is not None and result.after.selected is True
    assert last_event(window) == "size Large"
    assert probe.locator("#sizes").node().text == "Large"
    probe.locator("#sizes").select(index=0)


def test_list_view_rows_cells_and_column_headers_take_clicks(probe: Any, window: Any) -> None:
    grace = probe.locator('ListViewItem[text="Grace"]').click()
    assert grace.after is not None and grace.after.selected is True and last_event(window) == "person Grace"
    cell = probe.locator('ListViewItem[text="Linus"] > [Column="City"]')
    assert cell.node().text == "Helsinki"
    cell.click()
    assert last_event(window) == "person Linus"
    probe.locator("ColumnHeader#ageColumn").click()
    assert last_event(window) == "sort by Age"


def test_a_tree_node_expands_and_collapses_with_toggle(probe: Any, window: Any) -> None:
    vegetables = probe.locator('#foods TreeNode[text="Vegetables"]')
    if vegetables.node().expanded:
        vegetables.toggle(False)
    opened = vegetables.toggle()
    assert (opened.before.expanded, opened.after.expanded) == (False, True)  # type: ignore[union-attr]
    assert last_event(window) == "expanded Vegetables"
    assert probe.locator('TreeNode[text="Carrot"]').node().visible is True
    closed = vegetables.toggle(False)
    assert closed.after is not None and closed.after.expanded is False
    assert last_event(window) == "collapsed Vegetables"
    with pytest.raises(ElementNotInteractableError) as leaf:
        probe.locator('#foods TreeNode[text="Apple"]').toggle()
    assert leaf.value.detail["reason"] == "unsupported"


def test_selecting_a_tree_path_expands_its_parents_and_selects_the_node(probe: Any, window: Any) -> None:
    probe.locator('#foods TreeNode[text="Vegetables"]').toggle(False)
    result = probe.locator("#foods").select("Vegetables/Carrot")
    assert result.after is not None and result.after.selected_item == "Vegetables/Carrot"
    assert last_event(window) == "node Vegetables\\Carrot"
    carrot = probe.locator('TreeNode[text="Carrot"]').node()
    assert carrot.selected is True and carrot.visible is True
    assert probe.locator('TreeNode[text="Vegetables"]').node().expanded is True
    with pytest.raises(InvalidArgumentError) as missing:
        probe.locator("#foods").select("Vegetables/Turnip")
    assert missing.value.detail["items"] == ["Carrot", "Potato"]


def test_in_a_tree_with_check_boxes_toggle_checks_and_a_double_click_expands(probe: Any, window: Any) -> None:
    dishes = probe.locator('#tasks TreeNode[text="Dishes"]')
    result = dishes.toggle(True)
    assert result.after is not None and result.after.checked is True and last_event(window) == "task Dishes done"
    dishes.toggle(False)
    chores = probe.locator('#tasks TreeNode[text="Chores"]')
    assert chores.toggle().after.checked is True  # type: ignore[union-attr]
    chores.toggle(False)
    assert chores.node().expanded is True
    collapsed = chores.click(click_count=2)
    assert collapsed.after is not None and collapsed.after.expanded is False
    assert last_event(window) == "collapsed Chores"
    chores.click(click_count=2)


def test_a_tab_is_selected_by_clicking_or_selecting_its_page(probe: Any, window: Any) -> None:
    advanced = probe.locator("TabPage#advancedPage")
    clicked = advanced.click()
    assert clicked.after is not None and clicked.after.selected is True and last_event(window) == "tab Advanced"
    general = probe.locator("#generalPage").select()
    assert general.after is not None and general.after.selected is True and last_event(window) == "tab General"
    assert advanced.node().selected is False


def test_typing_into_a_grid_cell_commits_to_the_bound_table(probe: Any, ui: Any, window: Any) -> None:
    cell = probe.locator('DataGridViewRow[text*="Person 1 |"] > [Column="Name"]')
    result = cell.type_text("Adam")
    assert result.before.text == "Person 1" and result.after is not None and result.after.text == "Adam"
    assert last_event(window) == "cell Name=Adam"
    assert ui(lambda: str(window.table.Rows[1]["Name"])) == "Adam"
    age = probe.locator('DataGridViewRow[text*="Adam |"] > [Column="Age"]').type_text("99")
    assert age.after is not None and age.after.text == "99"
    assert ui(lambda: int(window.table.Rows[1]["Age"])) == 99


def test_selecting_a_grid_row_by_index_scrolls_it_into_view(probe: Any, window: Any) -> None:
    result = probe.locator("#grid").select(index=45)
    assert result.after is not None and result.after.selected_index == 45
    row = probe.locator('DataGridViewRow[text*="Person 45 |"]').node()  # listed now: it is in view
    assert row.visible is True
    with pytest.raises(InvalidArgumentError):
        probe.locator("#grid").select("Person 3")  # by text would read every row
    probe.locator("#grid").select(index=0)


def test_a_context_menu_item_is_clicked_on_the_control_it_belongs_to(probe: Any, window: Any) -> None:
    copy = probe.locator("#copyMenuItem")
    assert copy.node().visible is False  # closed, until a right click opens it
    assert probe.locator("#fruitsMenu").inspect().parent.name == "fruits"  # type: ignore[union-attr]
    copy.click()
    assert last_event(window) == "copy from fruits"  # the handler read SourceControl
    probe.locator("#pasteMenuItem").click()
    assert last_event(window) == "paste"


# -- thousands of items --------------------------------------------------------------------


def test_a_list_of_five_thousand_items_stays_affordable(running_app: Any, items_app: Any) -> None:
    big = items_app.show_on(running_app.invoke, big=5000)
    probe = wpfprobe.attach(running_app.app, settings=wpfprobe.ProbeSettings(ui_timeout=30))
    try:
        probe.wait_for("#bigList", "visible")
        timings: dict[str, float] = {}

        def timed(label: str, fn: Any) -> Any:
            start = time.perf_counter()
            value = fn()
            timings[label] = time.perf_counter() - start
            return value

        timed("census", lambda: probe.engine.hop(lambda h: (setattr(h.engine, "name_index", None), h.census())))
        last = timed("path locator", lambda: probe.locator("ListBox#bigList/ListBoxItem[4999]").node())
        assert last.text == "Row 4999" and last.locator == "ListBox#bigList/ListBoxItem[4999]"
        assert timed("nth locator", lambda: probe.locator("#bigList > ListBoxItem:nth(4321)").node()).text == "Row 4321"
        assert timed("text locator", lambda: probe.locator('#bigList > text="Row 4000"').node()).text == "Row 4000"
        tree = timed("tree", lambda: probe.locator("#bigWindow").tree(max_depth=3))
        assert tree.returned_node_count == 5000 and tree.truncated  # the node cap, not the list, ends it
        page = timed("children page", lambda: probe.children(last.node_id.rsplit(".", 1)[0], take=50))
        assert page.total_count == 5000 and len(page.items) == 50
        print("5,000-item list:", {k: f"{v * 1000:.0f} ms" for k, v in timings.items()})
        # Generous bounds on a shared machine; measured on an idle one: census 21 ms, locators 55-200 ms,
        # the 5,000-node tree 0.65 s (docs/locators.md).
        assert timings["census"] < 2 and timings["path locator"] < 3 and timings["nth locator"] < 3
        assert timings["tree"] < 15
    finally:
        running_app.invoke(lambda: (big.form.Close(), big.form.Dispose()))
    with pytest.raises(ProbeError):
        probe.locator("#bigList").node()
