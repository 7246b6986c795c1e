"""The WPF item rules that need no CLR: type names, text sources, paths, access keys, choosing an item.

The adapter applies them to live WPF objects, which only run on Windows; the
rules themselves are checked here.
"""

from __future__ import annotations

import pytest

from wpfprobe.core.errors import InvalidArgumentError, PropertyRedactedError
from wpfprobe.core.protocol import PropertyDescriptor
from wpfprobe.core.redaction import REDACTED, Redactor
from wpfprobe_clr.toolkits._wpf_items import (
    choose_item,
    container_type_name,
    item_text_source,
    parse_property_path,
    readable_string,
    split_item_path,
    strip_wpf_access_key,
)

LIST_VIEW = [
    "System.Windows.Controls.ListView",
    "System.Windows.Controls.ListBox",
    "System.Windows.Controls.Primitives.Selector",
    "System.Windows.Controls.ItemsControl",
]


# -- naming: a data item is named by the container its list would make for it -------------


@pytest.mark.parametrize(
    ("chain", "expected"),
    [
        (LIST_VIEW, "ListViewItem"),
        (LIST_VIEW[1:], "ListBoxItem"),
        (["System.Windows.Controls.ComboBox", "System.Windows.Controls.Primitives.Selector"], "ComboBoxItem"),
        (["System.Windows.Controls.TabControl"], "TabItem"),
        (["System.Windows.Controls.TreeView", "System.Windows.Controls.ItemsControl"], "TreeViewItem"),
        (["System.Windows.Controls.TreeViewItem"], "TreeViewItem"),
        (["System.Windows.Controls.ContextMenu", "System.Windows.Controls.Primitives.MenuBase"], "MenuItem"),
        (["System.Windows.Controls.MenuItem"], "MenuItem"),
        (["System.Windows.Controls.DataGrid", "System.Windows.Controls.Primitives.MultiSelector"], "DataGridRow"),
        (["System.Windows.Controls.Primitives.StatusBar"], "StatusBarItem"),
        (["MyApp.PeopleList", "System.Windows.Controls.ListBox"], "ListBoxItem"),
        (["System.Windows.Controls.ItemsControl"], "ContentPresenter"),
        ([], "ContentPresenter"),
    ],
)
def test_a_data_item_is_named_by_the_container_its_list_makes(chain: list[str], expected: str) -> None:
    assert container_type_name(chain) == expected


# -- item text: which path, and what a string reads as -------------------------------------


def test_display_member_path_wins_over_the_text_search_path() -> None:
    source = item_text_source("Name", "Code")
    assert (source.path, source.segments, source.descriptor_name) == ("Name", ("Name",), "Name")
    assert item_text_source("", "Code").path == "Code"
    assert item_text_source(None, "  Address.City ").segments == ("Address", "City")


def test_without_a_path_the_text_is_the_item_itself() -> None:
    source = item_text_source(None, "")
    assert (source.path, source.segments, source.descriptor_name) == ("", (), "Item")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("Name", ("Name",)),
        (" Address . City ", ("Address", "City")),
        ("", ()),
        (None, ()),
        ("Items[0]", None),
        ("(Grid.Row)", None),
        ("Orders/Total", None),
        ("Name.", None),
        ("1st", None),
    ],
)
def test_only_plain_property_paths_are_evaluated(path: str | None, expected: tuple[str, ...] | None) -> None:
    assert parse_property_path(path) == expected


def test_a_string_that_is_only_the_type_name_is_no_text() -> None:
    assert readable_string("System.Data.DataRowView", "System.Data.DataRowView") is None
    assert readable_string("", "System.String") is None
    assert readable_string(None, None) is None
    assert readable_string("Carrot", "System.String") == "Carrot"
    assert readable_string("Ada Lovelace", "People.Person") == "Ada Lovelace"


# -- redaction: a path that names a secret makes the text a secret -------------------------


@pytest.mark.parametrize(
    ("display", "text_path", "secret"),
    [
        ("Password", None, True),
        ("Account.ApiKey", None, True),
        (None, "Credentials.Pwd", True),
        ("Name", "Password", False),  # what the list shows is Name: the search path is not read
        ("Name", None, False),
        (None, None, False),
    ],
)
def test_an_item_whose_display_path_names_a_secret_has_a_redacted_text(
    display: str | None, text_path: str | None, secret: bool
) -> None:
    # The adapter describes an item's text by its path; the engine's redactor judges that name
    # before anything is read, as it does a property's.
    source = item_text_source(display, text_path)
    described = PropertyDescriptor(source.descriptor_name, "System.Object", None, True)
    assert Redactor().is_redacted(described) is secret


def test_an_item_that_is_a_secret_type_is_redacted_by_its_type() -> None:
    source = item_text_source(None, None)
    described = PropertyDescriptor(source.descriptor_name, "System.Net.NetworkCredential", None, True)
    assert Redactor().is_redacted(described)


# -- access keys, as WPF's AccessText shows them -------------------------------------------


@pytest.mark.parametrize(
    ("raw", "text", "key"),
    [
        ("_File", "File", "F"),
        ("Save _As", "Save As", "A"),
        ("Save_As_Copy", "SaveAs_Copy", "A"),  # only the first single marker is one
        ("R__D", "R_D", None),
        ("__init_", "_init_", None),  # a marker at the very end shows as it is
        ("a__b_c", "a_bc", "C"),
        ("_", "_", None),
        ("plain", "plain", None),
        ("_ x", " x", None),
        ("_ä", "ä", "Ä"),
    ],
)
def test_access_keys_read_as_access_text_shows_them(raw: str, text: str, key: str | None) -> None:
    assert strip_wpf_access_key(raw) == (text, key)


# -- tree paths for wpf_select ------------------------------------------------------------


def test_a_tree_path_splits_on_slashes_with_escapes() -> None:
    assert split_item_path("Vegetables/Carrot") == ["Vegetables", "Carrot"]
    assert split_item_path(" Vegetables / Root vegetables /Beet ") == ["Vegetables", "Root vegetables", "Beet"]
    assert split_item_path(r"Sizes/S\/M") == ["Sizes", "S/M"]
    assert split_item_path(r"C:\\Temp") == ["C:\\Temp"]
    assert split_item_path("Carrot") == ["Carrot"]


@pytest.mark.parametrize("path", ["", "  ", "/Carrot", "Vegetables/", "Vegetables//Carrot"])
def test_a_tree_path_with_an_empty_step_is_refused(path: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        split_item_path(path)
    assert "Vegetables/Carrot" in info.value.suggestion


# -- choosing the item to select -----------------------------------------------------------


def test_an_item_is_chosen_by_exact_text_then_case_insensitively_or_by_index() -> None:
    texts = ["Apple", "apple", "Banana", None]
    assert choose_item(texts, "apple", None) == 1
    assert choose_item(texts, "BANANA", None) == 2
    assert choose_item(texts, None, 3) == 3
    with pytest.raises(InvalidArgumentError) as missing:
        choose_item(texts, "Kiwi", None)
    assert missing.value.detail["items"] == ["Apple", "apple", "Banana", ""]
    with pytest.raises(InvalidArgumentError) as out_of_range:
        choose_item(texts, None, 4)
    assert out_of_range.value.detail["count"] == 4


def test_secret_item_texts_are_neither_matched_nor_listed() -> None:
    texts = ["hunter2", "s3cret"]
    with pytest.raises(PropertyRedactedError) as refused:
        choose_item(texts, "hunter2", None, secret=True)
    assert refused.value.detail["items"] == [REDACTED, REDACTED]
    assert "hunter2" not in str(refused.value.detail) and "index" in refused.value.suggestion
    assert choose_item(texts, None, 1, secret=True) == 1
    with pytest.raises(InvalidArgumentError) as out_of_range:
        choose_item(texts, None, 5, secret=True)
    assert "hunter2" not in str(out_of_range.value.detail)
