"""wpf_get_visual_tree: depth, node cap, tree types, includeProperties."""

from __future__ import annotations

import pytest
from fake_toolkit import PASSWORD, PIN, FakeApp, FakeElement, Harness, harness

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.models import Node
from wpfprobe.core.redaction import REDACTED
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.engine import Target


def depth_of(tree_root: Node) -> dict[str, int]:
    out: dict[str, int] = {}
    stack = [(tree_root, 0)]
    while stack:
        node, d = stack.pop()
        out[node.node_id] = d
        stack.extend((k, d + 1) for k in node.children or [])
    return out


def chain(depth: int) -> FakeApp:
    """A window with a single chain of ``depth`` nested panels."""
    root = FakeElement("Window", "w", text="W")
    el = root
    for i in range(depth):
        el = el.add(FakeElement("StackPanel", f"p{i}"))
    return FakeApp(root)


def test_default_tree_is_the_main_window_to_depth_three() -> None:
    with harness(chain(6)) as h:
        tree = h.engine.tree()
        assert tree.root.name == "w"
        depths = depth_of(tree.root)
        assert max(depths.values()) == 3
        assert tree.returned_node_count == 4
        deepest = next(n for n in tree.walk() if depths[n.node_id] == 3)
        assert deepest.children is None
        assert deepest.children_truncated is True
        assert deepest.child_count == 1
        assert tree.truncated is False  # cut by depth, not by the cap


def test_max_depth_zero_is_the_root_only(fake: Harness) -> None:
    tree = fake.engine.tree(max_depth=0)
    assert tree.root.children is None
    assert tree.root.children_truncated is True
    assert tree.returned_node_count == 1
    assert tree.root.child_count == 1


def test_max_depth_ten_reaches_deep_elements() -> None:
    with harness(chain(10)) as h:
        tree = h.engine.tree(max_depth=10)
        assert tree.returned_node_count == 11
        assert all(n.children_truncated is not True for n in tree.walk())


def test_node_without_children_is_not_marked_truncated(fake: Harness) -> None:
    tree = fake.engine.tree(max_depth=10)
    for node in tree.walk():
        if node.child_count == 0:
            assert node.children_truncated is not True


def test_tree_of_a_target(fake: Harness) -> None:
    tree = fake.engine.tree(Target(locators=("#toolbar",)), max_depth=1)
    assert tree.root.name == "toolbar"
    assert [c.text for c in tree.root.children or []] == ["Save", "Cancel", "Help", "Dup A", "Dup B", "Print", "Odd"]
    assert tree.returned_node_count == 8


def test_node_cap_truncates_and_counts_what_it_returns() -> None:
    with harness(settings=ProbeSettings(max_tree_nodes=5)) as h:
        tree = h.engine.tree(Target(locators=("#toolbar",)), max_depth=3)
        nodes = tree.walk()
        assert tree.truncated is True
        assert tree.returned_node_count == len(nodes) == 5
        assert tree.root.children_truncated is True
        assert tree.root.child_count == 7


def test_node_cap_cuts_whole_levels_breadth_first() -> None:
    with harness(settings=ProbeSettings(max_tree_nodes=4)) as h:
        tree = h.engine.tree(max_depth=10)
        nodes = tree.walk()
        assert tree.truncated is True
        assert tree.returned_node_count == len(nodes) == 4
        depths = depth_of(tree.root)
        # Window, Grid, and the Grid's first two children: the shallowest nodes first.
        assert sorted(depths.values()) == [0, 1, 2, 2]
        cut = [n for n in nodes if n.children_truncated]
        assert cut, "nodes whose children were left out must say so"
        for n in nodes:
            if n.child_count and not n.children:
                assert n.children_truncated is True


def test_node_cap_in_the_whole_app_tree() -> None:
    with harness(settings=ProbeSettings(max_tree_nodes=50)) as h:
        tree = h.engine.tree(Target(locators=("Window#settingsWindow",)), max_depth=10)
        assert tree.truncated is True
        assert tree.returned_node_count == len(tree.walk()) == 50
        big = next(n for n in tree.walk() if n.name == "bigList")
        assert big.children_truncated is True
        assert big.child_count == 120
        assert len(big.children or []) < 120


def test_tree_under_the_cap_is_not_truncated(fake: Harness) -> None:
    tree = fake.engine.tree(max_depth=10)
    assert tree.truncated is False
    assert tree.returned_node_count == len(tree.walk())


@pytest.mark.parametrize("depth", [-1, 11, "3", True, 2.0, None])
def test_max_depth_out_of_range_is_invalid_argument(fake: Harness, depth: object) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        fake.engine.tree(max_depth=depth)  # type: ignore[arg-type]
    assert info.value.code == "INVALID_ARGUMENT"


def test_logical_tree_is_accepted_and_skips_template_parts(fake: Harness) -> None:
    visual = fake.engine.tree(max_depth=10)
    logical = fake.engine.tree(max_depth=10, tree_type="logical")
    assert logical.tree_type == "logical"
    assert "Border" in {n.type for n in visual.walk()}
    assert "Border" not in {n.type for n in logical.walk()}
    grid = logical.root.children[0]  # type: ignore[index]
    assert [c.type for c in grid.children or []] == ["StackPanel", "StackPanel", "TextBlock"]


@pytest.mark.parametrize("tree_type", ["physical", "Visual", "", None, 1])
def test_unknown_tree_type_is_rejected(fake: Harness, tree_type: object) -> None:
    with pytest.raises(InvalidArgumentError):
        fake.engine.tree(tree_type=tree_type)  # type: ignore[arg-type]


def test_include_properties_values_are_present(fake: Harness) -> None:
    tree = fake.engine.tree(Target(locators=("#toolbar",)), max_depth=1, include_properties=["Width", "isenabled"])
    for node in tree.walk():
        assert node.properties is not None
        assert node.properties["Width"] == 100.0
    cancel = next(n for n in tree.walk() if n.name == "cancelButton")
    assert cancel.properties == {"Width": 100.0, "IsEnabled": False}


def test_include_properties_skips_properties_an_element_lacks(fake: Harness) -> None:
    tree = fake.engine.tree(Target(locators=("#toolbar",)), max_depth=1, include_properties=["Content"])
    assert tree.root.properties == {}
    save = next(n for n in tree.walk() if n.name == "saveButton")
    assert save.properties == {"Content": "Save"}


def test_include_properties_are_redacted(fake: Harness) -> None:
    tree = fake.engine.tree(max_depth=10, include_properties=["Password", "Text", "Name"])
    by = {n.name: n for n in tree.walk() if n.name}
    assert by["passwordBox"].properties == {"Password": REDACTED, "Name": "passwordBox"}
    assert by["pinBox"].properties == {"Text": REDACTED, "Name": "pinBox"}
    assert by["userName"].properties == {"Text": "alice", "Name": "userName"}
    dumped = tree.model_dump_json()
    assert PASSWORD not in dumped and PIN not in dumped


def test_password_box_text_is_redacted_in_trees(fake: Harness) -> None:
    by = {n.name: n for n in fake.engine.tree(max_depth=10).walk() if n.name}
    assert by["passwordBox"].text == REDACTED
    assert by["pinBox"].text == REDACTED
    assert by["userName"].text == "alice"


def test_more_than_ten_included_properties_are_rejected(fake: Harness) -> None:
    fake.engine.tree(include_properties=[f"P{i}" for i in range(10)])
    with pytest.raises(InvalidArgumentError) as info:
        fake.engine.tree(include_properties=[f"P{i}" for i in range(11)])
    assert info.value.code == "INVALID_ARGUMENT"


@pytest.mark.parametrize("names", ["Width", [""], [5], ["x" * 201]])
def test_bad_include_properties_are_rejected(fake: Harness, names: object) -> None:
    with pytest.raises(InvalidArgumentError):
        fake.engine.tree(include_properties=names)  # type: ignore[arg-type]


def test_tree_nodes_carry_state(fake: Harness) -> None:
    by = {n.name: n for n in fake.engine.tree(max_depth=10).walk() if n.name}
    assert by["cancelButton"].enabled is False
    assert by["statusLabel"].visible is False
    assert by["userName"].focused is True
    assert by["saveButton"].type == "Button"
    assert by["saveButton"].type_name == "Fake.Controls.Button"
    assert by["toolbar"].child_count == 7


def test_hidden_window_tree(fake: Harness) -> None:
    tree = fake.engine.tree(Target(locators=("Window#toolWindow",)), max_depth=2)
    assert tree.root.visible is False
    assert all(not n.visible for n in tree.walk())
