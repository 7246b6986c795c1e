"""Node ids: stable while the element lives, weakly held, validated."""

from __future__ import annotations

import gc
import weakref

import pytest
from fake_toolkit import FakeElement, Harness, by_name

from wpfprobe.core.errors import InvalidArgumentError, NodeNotFoundError
from wpfprobe.engine.engine import Target


def test_node_id_is_stable_across_calls(fake: Harness) -> None:
    first = fake.engine.node(Target(locators=("#saveButton",))).node_id
    via_find = fake.engine.find(name="saveButton").results[0].node.node_id
    via_tree = {n.name: n.node_id for n in fake.engine.tree(max_depth=10).walk()}["saveButton"]
    toolbar_id = fake.engine.node(Target(locators=("#toolbar",))).node_id
    via_children = fake.engine.children(toolbar_id).items[0].node_id
    assert first == via_find == via_tree == via_children
    assert fake.engine.node(Target(node_id=first)).name == "saveButton"


def test_window_ids_are_stable(fake: Harness) -> None:
    a = [w.node_id for w in fake.engine.windows(include_hidden=True)]
    b = [n.node_id for n in fake.engine.children().items]
    assert a == b
    assert len(set(a)) == 3


def test_distinct_elements_get_distinct_ids(fake: Harness) -> None:
    ids = [n.node_id for n in fake.engine.tree(max_depth=10).walk()]
    assert len(ids) == len(set(ids))


def test_closed_window_gives_node_not_found(fake: Harness) -> None:
    settings = by_name(fake.app, "settingsWindow")
    window_id = fake.engine.node(Target(locators=("Window#settingsWindow",))).node_id
    child_id = fake.engine.node(Target(locators=("#applyButton",))).node_id
    fake.app.close(settings)
    for node_id in (window_id, child_id):
        with pytest.raises(NodeNotFoundError) as info:
            fake.engine.node(Target(node_id=node_id))
        assert info.value.code == "NODE_NOT_FOUND"
        assert info.value.detail["nodeId"] == node_id
        assert info.value.suggestion
    assert window_id not in [w.node_id for w in fake.engine.windows(include_hidden=True)]


def test_removed_and_disposed_element_gives_node_not_found(fake: Harness) -> None:
    save = by_name(fake.app, "saveButton")
    node_id = fake.engine.node(Target(locators=("#saveButton",))).node_id
    save.parent.remove(save, dispose=True)  # type: ignore[union-attr]
    with pytest.raises(NodeNotFoundError):
        fake.engine.inspect(Target(node_id=node_id))
    with pytest.raises(NodeNotFoundError):
        fake.engine.properties(Target(node_id=node_id))


def test_dropped_element_is_collected_although_its_id_was_handed_out(fake: Harness) -> None:
    toolbar = by_name(fake.app, "toolbar")
    button = toolbar.add(FakeElement("Button", "temporary", text="Temp"))
    node_id = fake.engine.find(name="temporary").results[0].node.node_id
    # A cursor snapshot listing it must not keep it alive either.
    page = fake.engine.children(fake.engine.node(Target(locators=("#toolbar",))).node_id, take=1)
    assert page.next_cursor is not None
    assert fake.engine.node(Target(node_id=node_id)).name == "temporary"
    assert len(fake.objects) > 0

    ref = weakref.ref(button)
    toolbar.remove(button)  # not disposed: only unreachable
    del button
    gc.collect()
    assert ref() is None, gc.get_referrers(ref()) if ref() is not None else None
    with pytest.raises(NodeNotFoundError):
        fake.engine.node(Target(node_id=node_id))
    assert fake.ui.run(lambda: fake.objects.get(node_id)) is None


def test_garbage_id_is_node_not_found(fake: Harness) -> None:
    for node_id in ("zz999999", "not-an-id", "n0"):
        with pytest.raises(NodeNotFoundError) as info:
            fake.engine.node(Target(node_id=node_id))
        assert info.value.code == "NODE_NOT_FOUND"


@pytest.mark.parametrize("node_id", [5, 1.5, b"n1", ["n1"], True])
def test_non_string_id_is_invalid_argument(fake: Harness, node_id: object) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        fake.engine.node(Target(node_id=node_id))  # type: ignore[arg-type]
    assert info.value.code == "INVALID_ARGUMENT"


@pytest.mark.parametrize("node_id", [5, "", "x" * 65])
def test_bad_id_in_children_is_invalid_argument(fake: Harness, node_id: object) -> None:
    with pytest.raises(InvalidArgumentError):
        fake.engine.children(node_id)  # type: ignore[arg-type]


def test_target_needs_exactly_one_of_id_and_locator() -> None:
    with pytest.raises(InvalidArgumentError):
        Target()
    with pytest.raises(InvalidArgumentError):
        Target(node_id="n1", locators=("Button",))


def test_probe_node_fails_once_the_element_is_gone(fake: Harness) -> None:
    node_id = fake.probe.locator("#applyButton").node().node_id
    loc = fake.probe.node(node_id)
    assert loc.node().text == "Apply"
    fake.app.close(by_name(fake.app, "settingsWindow"))
    with pytest.raises(NodeNotFoundError):
        loc.inspect()
