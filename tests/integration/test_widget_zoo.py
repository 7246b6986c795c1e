"""The widget zoo through the Python API: a bare pythonnet walk of each window against the probe's tree.

The zoo (examples/zoo_app.py) is shown on the example's UI thread for this
module (conftest.py, ``widget_zoo_app``). Every node of a bare walk of each of
its windows (tests/integration/bare_walk.py) must be in ``probe.tree(max_depth=10)``
under the node of its parent; items, which a bare walk of Controls does not
list, are checked against what their controls hold. The per-control tests are
in test_widget_zoo_controls.py, the same through MCP in test_widget_zoo_mcp.py.
"""

from __future__ import annotations

from typing import Any

import pytest
import widget_zoo
from bare_walk import walk

pytestmark = pytest.mark.toolkit("winforms")

ROWS = widget_zoo.ROWS
ITEMS = widget_zoo.ITEMS
WINDOWS = ("zooWindow", "findWindow", "documentsWindow")


@pytest.fixture
def zoo_app(widget_zoo_app: Any) -> Any:
    return widget_zoo_app


@pytest.fixture
def probe(zoo_probe: Any) -> Any:
    return zoo_probe


# -- the differential walk -----------------------------------------------------------------


@pytest.mark.parametrize("window", WINDOWS)
def test_every_control_of_a_bare_walk_is_in_the_tree_under_the_same_parent(
    zoo_app: Any, probe: Any, window: str
) -> None:
    bare = zoo_app.invoke(lambda: walk(zoo_app.zoo.control(window)))
    tree = probe.tree(f"#{window}", max_depth=10).model_dump()
    assert widget_zoo.missing(bare, tree["root"]) == []
    assert widget_zoo.count(bare) > {"zooWindow": 100, "findWindow": 4, "documentsWindow": 8}[window]


def test_the_bare_walk_reaches_menus_tool_strip_items_and_mdi_children(zoo_app: Any) -> None:
    # The differential proves nothing about what the bare walk never lists.
    def names(node: dict[str, Any]) -> set[str]:
        return {node["name"]} | {n for kid in node["children"] for n in names(kid)}

    main = names(zoo_app.invoke(lambda: walk(zoo_app.zoo.form)))
    documents = names(zoo_app.invoke(lambda: walk(zoo_app.zoo.documents_window)))
    assert {"aboutMenuItem", "emailShareItem", "busyBar", "feedMenuItem", "tallyButton", "streetBox"} <= main
    assert {"documentsMenu", "cascadeMenuItem", "document1", "document2Text"} <= documents


def test_items_are_what_their_controls_hold(zoo_app: Any, probe: Any) -> None:
    zoo = zoo_app.zoo

    def held() -> dict[str, Any]:
        def texts(items: Any) -> list[str]:
            return [str(item) for item in items]

        def control(name: str) -> Any:
            return zoo.control(name)

        return {
            "fruitList": texts(control("fruitList").Items),
            "catalogList": texts(control("catalogList").Items),
            "toppingList": texts(control("toppingList").Items),
            "cityCombo": texts(control("cityCombo").Items),
            "paintList": texts(control("paintList").Items),
            "zooTabs": [page.Text for page in control("zooTabs").TabPages],
            "animalTree": [node.Text for node in control("animalTree").Nodes],
            "peopleView": [[cell.Text for cell in row.SubItems] for row in control("peopleView").Items],
            "ordersGrid": [column.HeaderText for column in control("ordersGrid").Columns],
        }

    expected = zoo_app.invoke(held)
    for name in ("fruitList", "catalogList", "toppingList", "cityCombo", "paintList", "zooTabs", "animalTree"):
        kids = probe.locator(f"#{name}").tree(max_depth=1).root.children
        assert [kid.text for kid in kids if kid.type not in ("ContextMenuStrip",)] == expected[name], name
    assert len(expected["catalogList"]) == ITEMS
    rows = probe.locator("#peopleView > ListViewItem").all()
    assert [[cell.text for cell in row.tree(max_depth=1).root.children] for row in rows] == expected["peopleView"]
    assert [h.node().text for h in probe.locator("#peopleView > ColumnHeader").all()] == ["Name", "Age", "City"]
    grid = probe.locator("#ordersGrid").node()
    columns = [
        n.text for n in probe.locator("#ordersGrid").tree(max_depth=1).root.children if n.type.endswith("Column")
    ]
    assert columns == expected["ordersGrid"]
    assert grid.total_count is not None and grid.total_count >= ROWS + len(columns)


def test_a_python_defined_window_counts_the_controls_added_to_it(zoo_app: Any, probe: Any) -> None:
    """Regression: the zoo's main window is a Form subclass written in Python, whose child
    events the structure counter did not hook; without a count the name index could not be
    trusted and every snapshot of the zoo ran in one hold (0.8 s with 10,000 list items)."""
    from System.Windows.Forms import Label

    from wpfprobe_clr.net import derived

    adapter = probe.engine.adapter
    window = zoo_app.invoke(lambda: derived.handle_of(zoo_app.zoo.form))
    assert type(window) is derived.DerivedHandle
    assert probe.engine.ui.run(lambda: adapter.watch_structure(window)) is True
    assert probe.engine.ui.run(lambda: adapter.watch_structure(window)) is True  # hooked once, not twice
    before = probe.engine.ui.run(adapter.structure_version)
    label = zoo_app.invoke(lambda: Label())
    zoo_app.invoke(lambda: zoo_app.zoo.form.Controls.Add(label))
    try:
        assert probe.engine.ui.run(adapter.structure_version) == before + 1
    finally:
        zoo_app.invoke(lambda: (zoo_app.zoo.form.Controls.Remove(label), label.Dispose()))
    assert probe.engine.ui.run(adapter.structure_version) == before + 2
