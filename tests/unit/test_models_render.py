"""DTO rendering (Jupyter reprs) and the camelCase JSON shape."""

from __future__ import annotations

import html

from fake_toolkit import Harness

from wpfprobe.core.models import Node, Screenshot
from wpfprobe.engine.engine import Target


def test_node_repr_html_contains_the_labels(fake: Harness) -> None:
    node = fake.engine.tree(Target(locators=("#toolbar",)), max_depth=1).root
    out = node._repr_html_()
    assert html.escape(node.label()) in out
    for child in node.children or []:
        assert html.escape(child.label()) in out
    assert "saveButton" in out and "&quot;Save&quot;" in out


def test_node_label_shows_state(fake: Harness) -> None:
    cancel = fake.engine.node(Target(locators=("#cancelButton",)))
    assert "disabled" in cancel.label() and cancel.node_id in cancel.label()
    status = fake.engine.node(Target(locators=("#statusLabel",)))
    assert "hidden" in status.label()


def test_tree_repr_html(fake: Harness) -> None:
    tree = fake.engine.tree(max_depth=2)
    out = tree._repr_html_()
    assert f"{tree.returned_node_count} nodes" in out
    for node in tree.walk():
        assert html.escape(node.label()) in out


def test_tree_str_is_indented_text(fake: Harness) -> None:
    tree = fake.engine.tree(Target(locators=("#toolbar",)), max_depth=1)
    lines = str(tree).splitlines()
    assert lines[0].startswith("StackPanel#toolbar")
    assert lines[1].startswith("  Button#saveButton")


def test_page_repr_html(fake: Harness) -> None:
    page = fake.engine.children(fake.engine.node(Target(locators=("#bigList",))).node_id, take=3)
    out = page._repr_html_()
    assert "3 of 120" in out
    for node in page.items:
        assert html.escape(node.label()) in out


def test_element_info_repr_html(fake: Harness) -> None:
    info = fake.engine.inspect(Target(locators=("#saveButton",)))
    out = info._repr_html_()
    assert "Fake.Controls.Button" in out
    assert html.escape(info.locator) in out
    assert html.escape(info.path) in out


def test_html_escapes_element_text() -> None:
    node = Node(node_id="n1", type="Button", type_name="X.Button", text="<b>hi</b>", visible=True,
                enabled=True, child_count=0, locator="Button")  # fmt: skip
    out = node._repr_html_()
    assert "<b>hi</b>" not in out
    assert "&lt;b&gt;hi&lt;/b&gt;" in out


def test_screenshot_repr_png_returns_the_png_bytes(fake: Harness) -> None:
    shot = fake.engine.screenshot(Target(locators=("#saveButton",)))
    assert shot._repr_png_() == shot.png
    assert shot._repr_png_().startswith(b"\x89PNG")
    manual = Screenshot(node_id="n1", width=1, height=1, png=b"\x89PNG-data")
    assert manual._repr_png_() == b"\x89PNG-data"


def test_node_json_is_camel_case_without_nones(fake: Harness) -> None:
    data = fake.engine.node(Target(locators=("#saveButton",))).to_json_dict()
    assert {"nodeId", "type", "typeName", "name", "text", "visible", "enabled", "focused", "childCount",
            "locator"} <= set(data)  # fmt: skip
    assert "automationId" not in data  # None is left out
    assert not any("_" in k for k in data)
    by_aid = fake.engine.node(Target(locators=("#printAuto",))).to_json_dict()
    assert by_aid["automationId"] == "printAuto"


def test_tree_json_is_camel_case(fake: Harness) -> None:
    data = fake.engine.tree(max_depth=1, include_properties=["Width"]).to_json_dict()
    assert set(data) == {"root", "treeType", "truncated", "returnedNodeCount"}
    root = data["root"]
    assert "childrenTruncated" not in root  # None is left out
    assert root["properties"] == {"Width": 100.0}
    grid = root["children"][0]
    assert grid["childCount"] == 3
    assert grid["childrenTruncated"] is True


def test_find_and_property_json_is_camel_case(fake: Harness) -> None:
    found = fake.engine.find(name="saveButton").to_json_dict()
    assert set(found) == {"results", "totalScanned", "truncated"}
    assert set(found["results"][0]) == {"node", "path"}
    prop = fake.engine.property(Target(locators=("#saveButton",)), "Content").to_json_dict()
    assert {"name", "typeName", "value", "valueSource", "isLocallySet", "isDataBound", "hasBindingError",
            "isReadOnly", "isRedacted"} <= set(prop)  # fmt: skip


def test_models_accept_camel_case_input() -> None:
    node = Node.model_validate({"nodeId": "n1", "type": "B", "typeName": "X.B", "visible": True,
                                "enabled": True, "childCount": 0, "locator": "B"})  # fmt: skip
    assert node.node_id == "n1" and node.child_count == 0
    assert Node.model_validate(node.to_json_dict()) == node
