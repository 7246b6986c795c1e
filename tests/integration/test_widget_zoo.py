"""The widget zoo through the Python API: the differential walk, then each control kind inspected and used.

The zoo (examples/zoo_app.py) runs once for this module on a UI thread of its
own, beside whatever else the session runs. A bare pythonnet walk of each of
its windows must be inside the probe's tree with the same parents; items are
checked against what their controls hold. Each control kind then gets an
inspect test (what the node and its properties say) and an action test (what
a user does with it), whose witness is the app's own status bar: every
handler writes what it did there.
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


def status(probe: Any) -> str | None:
    """What the status bar says: the last thing one of the app's handlers did."""
    return probe.locator("#statusText").node().text  # type: ignore[no-any-return]


def on_page(probe: Any, page: str) -> None:
    """Bring a tab page to the front, as a user does before touching what is on it."""
    probe.locator(f"TabPage#{page}").select()
    assert probe.locator(f"TabPage#{page}").node().selected


def value(probe: Any, selector: str, name: str) -> Any:
    return probe.locator(selector).property(name).value


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
