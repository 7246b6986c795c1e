"""wpf_get_children pages: take, cursors over snapshots, staleness, validation."""

from __future__ import annotations

import pytest
from fake_toolkit import FakeElement, Harness, by_name, harness

from wpfprobe.core.errors import InvalidArgumentError
from wpfprobe.core.settings import ProbeSettings
from wpfprobe.engine.cursors import CursorStore
from wpfprobe.engine.engine import Target


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def big_list_id(h: Harness) -> str:
    return h.engine.node(Target(locators=("#bigList",))).node_id


def test_walking_pages_returns_every_child_once_in_order(fake: Harness) -> None:
    list_id = big_list_id(fake)
    seen: list[str | None] = []
    cursor = None
    pages = 0
    while True:
        page = fake.engine.children(list_id, cursor=cursor, take=50)
        pages += 1
        assert page.total_count == 120
        assert page.stale is False
        seen.extend(n.text for n in page.items)
        if not page.has_more:
            assert page.next_cursor is None
            break
        assert page.next_cursor is not None
        cursor = page.next_cursor
    assert pages == 3
    assert seen == [f"Item {i}" for i in range(120)]


def test_page_sizes_and_flags(fake: Harness) -> None:
    list_id = big_list_id(fake)
    first = fake.engine.children(list_id, take=50)
    assert (len(first.items), first.has_more, first.total_count) == (50, True, 120)
    second = fake.engine.children(list_id, cursor=first.next_cursor, take=50)
    assert (len(second.items), second.has_more) == (50, True)
    third = fake.engine.children(list_id, cursor=second.next_cursor, take=50)
    assert (len(third.items), third.has_more, third.next_cursor) == (20, False, None)


def test_default_take_is_fifty(fake: Harness) -> None:
    page = fake.engine.children(big_list_id(fake))
    assert len(page.items) == 50


def test_take_two_hundred_returns_all(fake: Harness) -> None:
    page = fake.engine.children(big_list_id(fake), take=200)
    assert len(page.items) == 120
    assert page.has_more is False and page.next_cursor is None


def test_single_page_has_no_cursor(fake: Harness) -> None:
    toolbar_id = fake.engine.node(Target(locators=("#toolbar",))).node_id
    page = fake.engine.children(toolbar_id)
    assert page.total_count == 7 and page.has_more is False and page.next_cursor is None


def test_children_of_nothing_are_the_top_level_windows(fake: Harness) -> None:
    page = fake.engine.children()
    assert [n.name for n in page.items] == ["mainWindow", "settingsWindow", "toolWindow"]


def test_children_of_a_leaf_is_an_empty_page(fake: Harness) -> None:
    save_id = fake.engine.node(Target(locators=("#saveButton",))).node_id
    page = fake.engine.children(save_id)
    assert page.items == [] and page.total_count == 0 and page.has_more is False


def test_logical_children(fake: Harness) -> None:
    grid_id = fake.engine.node(Target(locators=("Window#mainWindow > Grid",))).node_id
    visual = [n.type for n in fake.engine.children(grid_id).items]
    logical = [n.type for n in fake.engine.children(grid_id, tree_type="logical").items]
    assert visual == ["StackPanel", "StackPanel", "Border"]
    assert logical == ["StackPanel", "StackPanel", "TextBlock"]


def test_cursor_keeps_the_snapshot_when_a_child_is_added(fake: Harness) -> None:
    list_id = big_list_id(fake)
    first = fake.engine.children(list_id, take=100)
    by_name(fake.app, "bigList").add(FakeElement("ListBoxItem", text="Late"))
    rest = fake.engine.children(list_id, cursor=first.next_cursor, take=100)
    assert rest.total_count == 120
    assert [n.text for n in rest.items] == [f"Item {i}" for i in range(100, 120)]
    assert fake.engine.children(list_id, take=200).total_count == 121


def test_cursor_skips_a_child_removed_since_the_snapshot(fake: Harness) -> None:
    list_id = big_list_id(fake)
    first = fake.engine.children(list_id, take=100)
    big = by_name(fake.app, "bigList")
    big.remove(big.children[110], dispose=True)
    rest = fake.engine.children(list_id, cursor=first.next_cursor, take=100)
    texts = [n.text for n in rest.items]
    assert "Item 110" not in texts
    assert texts == [f"Item {i}" for i in range(100, 120) if i != 110]


def test_expired_cursor_gives_the_fresh_first_page_marked_stale(fake: Harness) -> None:
    clock = Clock()
    fake.engine.cursors = CursorStore(ttl=10.0, max_snapshots=8, clock=clock)
    list_id = big_list_id(fake)
    first = fake.engine.children(list_id, take=30)
    by_name(fake.app, "bigList").add(FakeElement("ListBoxItem", text="Late"))
    clock.now += 11.0
    again = fake.engine.children(list_id, cursor=first.next_cursor, take=30)
    assert again.stale is True
    assert [n.text for n in again.items] == [f"Item {i}" for i in range(30)]
    assert again.total_count == 121
    assert again.next_cursor is not None
    # The new cursor is fresh and works.
    nxt = fake.engine.children(list_id, cursor=again.next_cursor, take=30)
    assert nxt.stale is False
    assert nxt.items[0].text == "Item 30"


def test_cursor_within_ttl_is_not_stale(fake: Harness) -> None:
    clock = Clock()
    fake.engine.cursors = CursorStore(ttl=10.0, max_snapshots=8, clock=clock)
    list_id = big_list_id(fake)
    first = fake.engine.children(list_id, take=30)
    clock.now += 9.0
    page = fake.engine.children(list_id, cursor=first.next_cursor, take=30)
    assert page.stale is False and page.items[0].text == "Item 30"


def test_evicted_snapshot_gives_a_stale_first_page() -> None:
    with harness(settings=ProbeSettings(max_cursors=1)) as h:
        list_id = big_list_id(h)
        first = h.engine.children(list_id, take=10)
        h.engine.children(list_id, take=10)  # a second snapshot evicts the first
        page = h.engine.children(list_id, cursor=first.next_cursor, take=10)
        assert page.stale is True
        assert page.items[0].text == "Item 0"


def tamper(cursor: str) -> list[str]:
    body, _, sig = cursor.rpartition(".")
    flipped_sig = sig[:-1] + ("0" if sig[-1] != "0" else "1")
    flipped_body = ("A" if body[0] != "A" else "B") + body[1:]
    return [f"{body}.{flipped_sig}", f"{flipped_body}.{sig}", body, cursor + "x", cursor[:-3]]


def test_tampered_cursor_is_invalid_argument(fake: Harness) -> None:
    list_id = big_list_id(fake)
    cursor = fake.engine.children(list_id, take=10).next_cursor
    assert cursor is not None
    for bad in tamper(cursor):
        with pytest.raises(InvalidArgumentError) as info:
            fake.engine.children(list_id, cursor=bad, take=10)
        assert info.value.code == "INVALID_ARGUMENT"
        assert info.value.suggestion


@pytest.mark.parametrize("bad", ["", "abc", "....", "x" * 600, "eyJzIjoxfQ.0000000000000000", "!!!.@@@"])
def test_malformed_cursor_is_invalid_argument(fake: Harness, bad: str) -> None:
    with pytest.raises(InvalidArgumentError):
        fake.engine.children(big_list_id(fake), cursor=bad)


@pytest.mark.parametrize(
    "bad", ["a.\u00b2", "\U0005f583.\u00b2", "\ud800.x", "x.\udfff", "é" * 20 + ".0000000000000000"]
)
def test_a_cursor_with_non_ascii_characters_is_invalid_argument(fake: Harness, bad: str) -> None:
    """Found by the MCP fuzzer (issue 18): a signature part with a non-ASCII character made the HMAC
    comparison raise TypeError, an INTERNAL error with a traceback on the app's stderr; a lone surrogate
    in the body failed its encoding the same way."""
    with pytest.raises(InvalidArgumentError):
        fake.engine.children(big_list_id(fake), cursor=bad)
    with pytest.raises(InvalidArgumentError):
        fake.engine.properties(Target(node_id=big_list_id(fake)), cursor=bad)


def test_cursor_from_another_engine_is_invalid_argument() -> None:
    with harness() as a, harness() as b:
        cursor = a.engine.children(big_list_id(a), take=10).next_cursor
        with pytest.raises(InvalidArgumentError):
            b.engine.children(big_list_id(b), cursor=cursor, take=10)


def test_cursor_with_different_arguments_is_invalid_argument(fake: Harness) -> None:
    list_id = big_list_id(fake)
    toolbar_id = fake.engine.node(Target(locators=("#toolbar",))).node_id
    cursor = fake.engine.children(list_id, take=10).next_cursor
    with pytest.raises(InvalidArgumentError):
        fake.engine.children(toolbar_id, cursor=cursor, take=10)
    with pytest.raises(InvalidArgumentError):
        fake.engine.children(list_id, cursor=cursor, take=10, tree_type="logical")
    with pytest.raises(InvalidArgumentError):
        fake.engine.children(None, cursor=cursor, take=10)
    # ... and with the right arguments it still works.
    assert fake.engine.children(list_id, cursor=cursor, take=10).items[0].text == "Item 10"


def test_children_cursor_is_not_a_properties_cursor(fake: Harness) -> None:
    list_id = big_list_id(fake)
    cursor = fake.engine.children(list_id, take=1).next_cursor
    with pytest.raises(InvalidArgumentError):
        fake.engine.properties(Target(node_id=list_id), cursor=cursor)


@pytest.mark.parametrize("take", [0, -1, 201, "5", 5.0, True, None])
def test_bad_take_is_invalid_argument(fake: Harness, take: object) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        fake.engine.children(big_list_id(fake), take=take)  # type: ignore[arg-type]
    assert info.value.code == "INVALID_ARGUMENT"


def test_bad_tree_type_is_invalid_argument(fake: Harness) -> None:
    with pytest.raises(InvalidArgumentError):
        fake.engine.children(tree_type="both")  # type: ignore[arg-type]


def test_page_json_shape(fake: Harness) -> None:
    data = fake.engine.children(big_list_id(fake), take=2).to_json_dict()
    assert set(data) == {"items", "nextCursor", "totalCount", "hasMore", "stale"}
    assert data["totalCount"] == 120 and data["hasMore"] is True and data["stale"] is False
    assert data["items"][0]["nodeId"]
