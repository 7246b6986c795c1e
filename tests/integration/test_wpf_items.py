"""Items as elements in WPF (SPEC section 8), against the live WPF example, through the Python API and MCP.

The example's itemsPanel holds peopleList (200 DataRowViews shown by their
Name, virtualized), accountsList (shown by their Password), fruitCombo
(strings), foodTree (a data-bound tree: Fruits expanded, Vegetables and Root
vegetables collapsed), ordersGrid (300 orders) and detailsTabs (optionsList of
check boxes, notesBox); View > Word Wrap is a checkable menu item. WPF only
runs on Windows: this module runs in .github/workflows/windows.yml with
WPFPROBE_EXAMPLE=wpf. The Python API tests share the session's app and put
back what they change; the MCP tests drive an app of their own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_mcp_interact import Driven

from wpfprobe import REDACTED, ProbeError

pytestmark = pytest.mark.toolkit("wpf")

PEOPLE = 200
ORDERS = 300


def logical_children(probe: Any, locator: str, take: int = 200) -> Any:
    """The page of an element's children in the logical tree."""
    return probe.children(probe.locator(locator).node().node_id, tree_type="logical", take=take)


def status(probe: Any) -> str | None:
    return probe.locator("#statusLabel").node().text  # type: ignore[no-any-return]


# -- lists: containers where WPF made them, data items for the rest ------------------------


def test_a_virtualized_list_has_containers_for_some_items_and_data_items_for_the_rest(probe: Any) -> None:
    people = probe.locator("#peopleList").node()
    page = probe.children(people.node_id, tree_type="logical", take=200)
    assert page.total_count == PEOPLE and not page.has_more
    items = page.items
    assert [n.text for n in items[:3]] == ["Ada Lovelace", "Alan Turing", "Grace Hopper"], "DisplayMemberPath"
    assert {n.type for n in items} == {"ListBoxItem"}, "a data item is named by the container it would get"
    containers = [n for n in items if n.type_name == "System.Windows.Controls.ListBoxItem"]
    data = [n for n in items if n.type_name == "System.Data.DataRowView"]
    assert containers and data and len(containers) + len(data) == PEOPLE
    last = items[-1]
    assert last.text == "Person 200" and last.node_id == f"{people.node_id}.{PEOPLE - 1}"
    assert last.visible is False and last.enabled is True and last.selected is False
    assert last.locator == f"logical:ListBox#peopleList/ListBoxItem[{PEOPLE - 1}]"
    assert probe.node(last.node_id).inspect().bounds is None, "no container, nothing on screen"
    # The visual tree draws the containers only; their panel says how many items there are in all.
    panel = probe.locator("#peopleList VirtualizingStackPanel").node()
    assert panel.child_count == len(containers) and panel.total_count == PEOPLE
    drawn = probe.find("ListBoxItem", root="#peopleList", max_results=100).results
    assert {r.node.node_id for r in drawn} == {n.node_id for n in containers}


def test_every_item_in_the_logical_tree_has_a_locator_that_refinds_it(probe: Any) -> None:
    for root in ("#peopleList", "#fruitCombo", "#foodTree", "#detailsTabs"):
        tree = probe.tree(root, max_depth=4, tree_type="logical")
        nodes = list(tree.walk())
        assert len(nodes) > 3, root
        for node in nodes:
            assert probe.locator(node.locator).node().node_id == node.node_id, node.locator


def test_clicking_a_data_item_brings_it_into_view_and_selects_it(probe: Any) -> None:
    people_id = probe.locator("#peopleList").node().node_id
    item = probe.node(f"{people_id}.150")
    before = item.node()
    assert before.text == "Person 151" and before.type_name == "System.Data.DataRowView"
    assert before.visible is False, "scrolled out of view: WPF has made no container for it"
    clicked = item.click()
    assert clicked.completed and clicked.app_error is None
    assert clicked.after is not None and clicked.after.selected_index == 150
    assert clicked.after.selected_item == "Person 151"
    assert status(probe) == "Person Person 151", "the app's SelectionChanged handler ran"
    after = item.node()
    assert after.selected is True and after.visible is True, "its container answers for it now"
    assert item.inspect().bounds is not None


def test_os_input_cannot_reach_a_data_item_that_is_not_on_screen(probe: Any) -> None:
    people_id = probe.locator("#peopleList").node().node_id
    probe.node(f"{people_id}.0").click()  # back to the top: the last items have no containers
    far = probe.node(f"{people_id}.{PEOPLE - 1}")
    assert far.node().visible is False
    with pytest.raises(ProbeError) as refused:
        far.click(mode="os")
    assert refused.value.code == "ELEMENT_NOT_INTERACTABLE" and refused.value.detail["reason"] == "offscreen"
    assert 'mode="auto"' in refused.value.message


def test_a_data_item_lists_its_own_properties_and_hides_its_secrets(probe: Any, example: Any) -> None:
    people_id = probe.locator("#peopleList").node().node_id
    person = probe.node(f"{people_id}.120")
    rows = {p.name: p for p in person.properties(include_defaults=True).items}
    assert rows["Name"].value == "Person 121" and rows["Email"].value == "user121@example.org"
    assert rows["Password"].is_redacted and rows["Password"].value == REDACTED
    assert person.inspect().data_context_type == "System.Data.DataRowView"
    assert example.ACCOUNT_SECRET not in person.properties(include_defaults=True).model_dump_json()


def test_a_getter_that_throws_costs_its_property_row_not_a_fake_value(
    probe: Any, running_app: Any, tmp_path: Path
) -> None:
    # The WPF adapter turned a throwing getter into the value "<Type: message>"; the row now says error.
    from System.IO import FileInfo

    missing = FileInfo(str(tmp_path / "missing.txt"))  # its Length throws FileNotFoundException
    options = running_app.invoke(lambda: running_app.main_window.FindName("optionsList"))
    running_app.invoke(lambda: options.Items.Add(missing))
    try:
        options_id = probe.locator("#optionsList").node().node_id
        rows = {p.name: p for p in probe.node(f"{options_id}.2").properties(include_defaults=True).items}
        length = rows["Length"]
        assert length.error is not None and length.error.type == "System.IO.FileNotFoundException"
        assert length.value is None and length.value_source == "error"
        assert rows["Name"].value == "missing.txt" and rows["Name"].error is None, "the other rows are read"
    finally:
        running_app.invoke(lambda: options.Items.Remove(missing))


def test_the_items_of_a_disabled_list_are_disabled(probe: Any, running_app: Any) -> None:
    def enable(on: bool) -> None:
        running_app.main_window.FindName("peopleList").IsEnabled = on

    people_id = probe.locator("#peopleList").node().node_id
    running_app.invoke(lambda: enable(False))
    try:
        data_item = probe.node(f"{people_id}.90")
        assert data_item.node().enabled is False
        with pytest.raises(ProbeError) as refused:
            data_item.click()
        assert refused.value.code == "ELEMENT_NOT_INTERACTABLE" and refused.value.detail["reason"] == "disabled"
        container = probe.node(f"{people_id}.0")
        assert container.node().enabled is False
        with pytest.raises(ProbeError) as also:
            container.click()
        assert also.value.detail["reason"] == "disabled"
    finally:
        running_app.invoke(lambda: enable(True))
    assert probe.node(f"{people_id}.90").node().enabled is True


# -- a combo box of strings ----------------------------------------------------------------


def test_a_combo_box_s_items_are_data_items_until_it_drops_down(probe: Any) -> None:
    page = logical_children(probe, "#fruitCombo")
    items = page.items
    # A combo box item shows "_" as it is: no access key there.
    assert [n.text for n in items] == ["Apple", "Banana", "Cherry", "Snake_fruit"]
    assert all(n.type == "ComboBoxItem" and n.access_key is None for n in items)
    assert items[0].selected is True and items[2].selected is False
    picked = probe.node(items[2].node_id).click()
    assert picked.after is not None and picked.after.selected_item == "Cherry" and picked.after.selected_index == 2
    assert status(probe) == "Fruit Cherry"
    assert probe.locator("#fruitCombo").node().expanded is False, "picked without leaving it open"
    probe.locator("#fruitCombo").select(index=0)


# -- a tree: nodes present whether expanded or not --------------------------------------------


def test_tree_nodes_are_listed_whether_expanded_or_not(probe: Any) -> None:
    tree = probe.tree("#foodTree", max_depth=4, tree_type="logical")
    fruits, vegetables = tree.root.children
    assert (fruits.type, fruits.text, fruits.expanded) == ("TreeViewItem", "Fruits", True)
    assert [c.text for c in fruits.children] == ["Apple", "Banana"]
    assert fruits.children[0].type_name == "System.Windows.Controls.TreeViewItem", "expanded: made"
    assert (vegetables.text, vegetables.expanded) == ("Vegetables", False)
    carrot, pea, roots = vegetables.children
    assert [n.text for n in (carrot, pea, roots)] == ["Carrot", "Pea", "Root vegetables"]
    assert all(n.type == "TreeViewItem" and n.type_name == "System.Data.DataRowView" for n in (carrot, pea, roots))
    assert carrot.expanded is None, "a leaf"
    assert roots.expanded is False
    # Under a data item, its children as its HierarchicalDataTemplate names them.
    assert [n.text for n in roots.children] == ["Potato", "Beet"]
    assert roots.children[1].node_id == f"{vegetables.node_id}.2.1"
    # The visual tree draws what is expanded only.
    assert probe.find(text="Carrot", root="#foodTree").results == []
    assert [r.node.text for r in probe.find(text="Carrot", root="#foodTree", tree_type="logical").results] == ["Carrot"]


def test_a_data_item_node_toggles_by_being_brought_into_view_first(probe: Any) -> None:
    vegetables = probe.locator('logical:TreeView#foodTree > text="Vegetables"')
    roots = probe.tree("#foodTree", max_depth=3, tree_type="logical").root.children[1].children[2]
    assert (roots.text, roots.type_name, roots.expanded) == ("Root vegetables", "System.Data.DataRowView", False)
    opened = probe.node(roots.node_id).toggle(True)
    assert opened.before.expanded is False
    assert opened.after is not None and opened.after.expanded is True
    assert vegetables.node().expanded is True, "its parent opened to reach it"
    assert probe.node(roots.node_id).node().visible is True, "its container answers for it now"
    probe.node(roots.node_id).toggle(False)
    vegetables.toggle(False)


def test_selecting_a_tree_path_expands_each_node_on_the_way(probe: Any) -> None:
    tree = probe.locator("#foodTree")
    picked = tree.select("Vegetables/Root vegetables/Beet")
    assert picked.completed and picked.after is not None and picked.after.selected_item == "Beet"
    assert status(probe) == "Food Beet"
    vegetables = probe.tree("#foodTree", max_depth=3, tree_type="logical").root.children[1]
    assert vegetables.expanded is True
    beet = vegetables.children[2].children[1]
    assert (beet.text, beet.selected, beet.type_name) == ("Beet", True, "System.Windows.Controls.TreeViewItem")
    with pytest.raises(ProbeError) as missing:
        tree.select("vegetables/Turnip")
    assert missing.value.code == "INVALID_ARGUMENT"
    assert missing.value.detail["under"] == "vegetables"
    assert missing.value.detail["items"] == ["Carrot", "Pea", "Root vegetables"]
    # Put it back as it was: Root vegetables and Vegetables collapsed.
    probe.locator('logical:TreeView#foodTree > text="Vegetables" > text="Root vegetables"').toggle(False)
    probe.locator('logical:TreeView#foodTree > text="Vegetables"').toggle(False)


def test_toggle_expands_and_collapses_a_node_and_refuses_a_leaf(probe: Any) -> None:
    vegetables = probe.locator('logical:TreeView#foodTree > text="Vegetables"')
    opened = vegetables.toggle()
    assert opened.before.expanded is False and opened.after is not None and opened.after.expanded is True
    assert "expanded" in opened.changed
    carrot = probe.locator('logical:TreeView#foodTree > text="Vegetables" > text="Carrot"')
    assert carrot.node().type_name == "System.Windows.Controls.TreeViewItem", "expanding made its container"
    with pytest.raises(ProbeError) as leaf:
        carrot.toggle()
    assert leaf.value.code == "ELEMENT_NOT_INTERACTABLE" and leaf.value.detail["reason"] == "unsupported"
    closed = vegetables.toggle(False)
    assert closed.after is not None and closed.after.expanded is False


# -- a grid: rows and cells ----------------------------------------------------------------------


def test_grid_rows_are_items_and_a_realised_row_s_cells_are_its_children(probe: Any) -> None:
    page = logical_children(probe, "#ordersGrid")
    assert page.total_count == ORDERS
    rows = page.items
    assert {r.type for r in rows} == {"DataGridRow"}
    first = rows[0]
    assert first.type_name == "System.Windows.Controls.DataGridRow" and first.text == "Alan 1", "TextSearch.TextPath"
    cells = probe.children(first.node_id, tree_type="logical").items
    assert [c.type for c in cells] == ["DataGridCell"] * 3
    assert [c.text for c in cells] == ["1", "Alan 1", "2.5"]
    far = rows[250]
    assert (far.type_name, far.text, far.child_count) == ("System.Data.DataRowView", "Alan 251", 0)
    presenter = probe.locator("#ordersGrid DataGridRowsPresenter").node()
    assert presenter.total_count == ORDERS and 0 < presenter.child_count < ORDERS
    # A cell's text is found as the cell's (and its row's, by TextSearch.TextPath), not its TextBlock's too.
    found = probe.find('text="Alan 1"', root="#ordersGrid").results
    assert sorted(r.node.type for r in found) == ["DataGridCell", "DataGridRow"]


def test_typing_into_a_grid_cell_edits_and_commits_the_row(probe: Any) -> None:
    cell = probe.locator("logical:DataGrid#ordersGrid/DataGridRow[0]/DataGridCell[1]")
    assert cell.node().text == "Alan 1"
    typed = cell.type_text("Zed")
    assert typed.completed and typed.app_error is None
    assert typed.after is not None and typed.after.text == "Zed"
    assert status(probe) == "Order 1 is now Zed", "the DataTable's RowChanged ran: the data changed"
    assert logical_children(probe, "#ordersGrid", take=1).items[0].text == "Zed"
    cell.type_text("Alan 1")
    assert status(probe) == "Order 1 is now Alan 1"
    with pytest.raises(ProbeError) as read_only:
        probe.locator("logical:DataGrid#ordersGrid/DataGridRow[0]/DataGridCell[0]").type_text("9")
    assert read_only.value.code == "ELEMENT_NOT_INTERACTABLE" and read_only.value.detail["reason"] == "read-only"


# -- check boxes, tabs, menus, access keys ---------------------------------------------------------


def test_a_list_item_that_shows_a_check_box_is_checked_and_toggles(probe: Any) -> None:
    email_item, call_item = logical_children(probe, "#optionsList").items
    assert (email_item.type, email_item.checked, call_item.checked) == ("ListBoxItem", False, False)
    assert [k.name for k in probe.children(email_item.node_id, tree_type="logical").items] == ["emailOption"]
    on = probe.node(email_item.node_id).toggle()
    assert on.after is not None and on.after.checked is True
    assert status(probe) == "Email me on"
    assert probe.locator("#emailOption").node().checked is True
    off = probe.node(email_item.node_id).toggle(False)
    assert off.after is not None and off.after.checked is False and status(probe) == "Email me off"


def test_tabs_are_items_selected_by_the_text_the_user_reads(probe: Any) -> None:
    tabs = logical_children(probe, "#detailsTabs").items
    assert [(t.name, t.text, t.access_key, t.selected) for t in tabs] == [
        ("generalTab", "General", "G", True),
        ("notesTab", "Notes", "N", False),
    ]
    picked = probe.locator("#detailsTabs").select("Notes")
    assert picked.after is not None and picked.after.selected_item == "Notes"
    assert status(probe) == "Tab Notes"
    assert probe.locator("#notesBox").node().visible is True
    probe.locator("#detailsTabs").select(index=0)


def test_a_checkable_menu_item_reports_checked_and_toggles(probe: Any) -> None:
    item = probe.locator("menu:View/Word Wrap")
    node = item.node()
    assert (node.name, node.text, node.access_key, node.checked) == ("wordWrapMenuItem", "Word Wrap", "W", False)
    on = item.toggle()
    assert on.after is not None and on.after.checked is True and status(probe) == "Word wrap on"
    assert item.node().checked is True
    off = item.toggle(False)
    assert off.after is not None and off.after.checked is False and status(probe) == "Word wrap off"


def test_captions_read_without_their_access_key_markers(probe: Any) -> None:
    assert [(n.text, n.access_key) for n in (probe.locator("#fileMenu").node(), probe.locator("#viewMenu").node())] == [
        ("File", "F"),
        ("View", "V"),
    ]
    save_as = probe.locator("menu:File/Save As").node()
    assert (save_as.name, save_as.text, save_as.access_key) == ("saveAsMenuItem", "Save As", "A")
    assert probe.locator('logical:text="Save As"').node().name == "saveAsMenuItem"
    assert probe.locator("menu:file/exit").node().access_key == "X"
    option = probe.locator("#emailOption").node()
    assert (option.text, option.access_key) == ("Email me", "E")


# -- a list shown by a secret ---------------------------------------------------------------


def test_a_list_shown_by_a_secret_property_never_shows_it(probe: Any, example: Any) -> None:
    secret = example.ACCOUNT_SECRET
    items = logical_children(probe, "#accountsList").items
    assert [n.text for n in items] == [REDACTED, REDACTED]
    visual = probe.tree("#accountsList", max_depth=12)
    shown = [n.text for n in visual.walk() if n.type == "TextBlock" and n.text is not None]
    assert shown == [REDACTED, REDACTED], "the TextBlock of the DisplayMemberPath template too"
    dumped = visual.model_dump_json() + probe.tree("#accountsList", max_depth=3, tree_type="logical").model_dump_json()
    assert secret not in dumped
    assert probe.find(text=secret, tree_type="logical").results == []
    with pytest.raises(ProbeError) as refused:
        probe.locator("#accountsList").select(f"{secret}-ada")
    assert refused.value.code == "PROPERTY_REDACTED" and secret not in str(refused.value.detail)
    picked = probe.locator("#accountsList").select(index=1)
    assert picked.after is not None and picked.after.selected_item == REDACTED
    assert secret not in picked.model_dump_json()


# -- through MCP, as an agent ------------------------------------------------------------------


@pytest.fixture(scope="module")
def driven(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Driven]:
    app = Driven("interact", tmp_path_factory.mktemp("wpf-items"))
    try:
        yield app
    finally:
        violations = app.close()
    assert violations == [], violations


def tool_text(driven: Driven, tool: str, **arguments: Any) -> str:
    result = driven.session(lambda c: c.call_tool(tool, arguments))
    assert not result.is_error, result.structured_content
    return "\n".join(b.text for b in result.content if b.type == "text")


def test_an_agent_reads_a_list_s_items_and_picks_one(driven: Driven) -> None:
    people = driven.call("wpf_inspect_element", locator="#peopleList")["node"]
    page = driven.call("wpf_get_children", nodeId=people["nodeId"], treeType="logical", take=200)
    assert page["totalCount"] == PEOPLE
    last = page["items"][-1]
    assert (last["type"], last["typeName"], last["text"]) == ("ListBoxItem", "System.Data.DataRowView", "Person 200")
    picked = driven.call("wpf_click", nodeId=last["nodeId"])
    assert picked["after"]["selectedIndex"] == PEOPLE - 1 and picked["after"]["selectedItem"] == "Person 200"
    assert driven.text_of("#statusLabel") == "Person Person 200"
    # Its locator still finds the item, now through the container WPF made for it.
    again = driven.call("wpf_inspect_element", locator=last["locator"])["node"]
    assert again["text"] == "Person 200" and again["selected"] is True
    err = driven.error("wpf_click", nodeId=f"{people['nodeId']}.5", mode="os")
    assert err["code"] == "ELEMENT_NOT_INTERACTABLE" and err["detail"]["reason"] == "offscreen"


def test_an_agent_sees_a_tree_s_states_and_selects_a_node_by_its_path(driven: Driven) -> None:
    text = tool_text(driven, "wpf_get_visual_tree", locator="#foodTree", treeType="logical", maxDepth=3)
    lines = {line.split('"')[1]: line for line in text.splitlines() if '"' in line}
    assert "expanded" in lines["Fruits"].split() and "collapsed" in lines["Vegetables"].split()
    assert "collapsed" in lines["Root vegetables"].split() and "hidden" in lines["Beet"].split()
    picked = driven.call("wpf_select", locator="#foodTree", item="Vegetables/Carrot")
    assert picked["after"]["selectedItem"] == "Carrot"
    assert driven.text_of("#statusLabel") == "Food Carrot"
    closed = driven.call("wpf_toggle", locator='logical:TreeView#foodTree > text="Vegetables"', state=False)
    assert closed["before"]["expanded"] is True and closed["after"]["expanded"] is False


def test_an_agent_edits_a_grid_cell_and_toggles_a_menu_item(driven: Driven) -> None:
    typed = driven.call(
        "wpf_type_text", locator="logical:DataGrid#ordersGrid/DataGridRow[1]/DataGridCell[1]", text="Barbara"
    )
    assert typed["before"]["text"] == "Grace 2" and typed["after"]["text"] == "Barbara"
    assert driven.text_of("#statusLabel") == "Order 2 is now Barbara"
    toggled = driven.call("wpf_toggle", locator="menu:View/Word Wrap")
    assert toggled["after"]["checked"] is True and driven.text_of("#statusLabel") == "Word wrap on"
