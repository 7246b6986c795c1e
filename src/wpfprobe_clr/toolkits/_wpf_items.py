"""The rules of WPF items that need no CLR: names, texts, paths and access keys.

The WPF adapter (``wpf/_items.py``) applies them to live objects. They live
outside the ``wpf`` package, whose import loads the CLR, so that the unit
tests check them on any machine.

- An item without a container of its own (``ItemRef``) is named by the
  container its list would make for it (``ListBoxItem``, ``TreeViewItem``,
  ``DataGridRow``...), so a locator reads the same whether WPF has realised
  the item or not; its full type name is the data item's own type.
- Its text is what the list shows: the value at ``DisplayMemberPath``, else at
  ``TextSearch.TextPath``, else the item's string, unless that string is only
  its type's name (``Object.ToString``), which no user reads as text.
- A path is evaluated only if it is plain property names (``Address.City``);
  indexers, attached properties and ``/`` steps are not.
- Access keys follow WPF's AccessText: the first ``_`` not doubled marks the
  key and is removed; ``__`` reads ``_``; later single ``_`` stay.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wpfprobe.core.errors import InvalidArgumentError, PropertyRedactedError
from wpfprobe.core.redaction import REDACTED

#: Items of one list listed in the logical tree at most; ``child_total`` gives the rest's count.
MAX_LISTED_ITEMS = 1000

#: Lists by their type (most derived first wins), and the container each makes for an item.
_CONTAINERS: dict[str, str] = {
    "System.Windows.Controls.ListView": "ListViewItem",
    "System.Windows.Controls.ComboBox": "ComboBoxItem",
    "System.Windows.Controls.ListBox": "ListBoxItem",
    "System.Windows.Controls.TabControl": "TabItem",
    "System.Windows.Controls.TreeView": "TreeViewItem",
    "System.Windows.Controls.TreeViewItem": "TreeViewItem",
    "System.Windows.Controls.Primitives.MenuBase": "MenuItem",
    "System.Windows.Controls.MenuItem": "MenuItem",
    "System.Windows.Controls.DataGrid": "DataGridRow",
    "System.Windows.Controls.Primitives.StatusBar": "StatusBarItem",
}
#: What a plain ItemsControl wraps each item in.
_DEFAULT_CONTAINER = "ContentPresenter"

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def container_type_name(owner_types: Sequence[str]) -> str:
    """The short type name of the container a list makes for an item, from the list's type chain.

    ``owner_types`` are the full names of the list's type and its base types,
    most derived first; a container's own type name works too (the items under
    a TreeViewItem are TreeViewItems).
    """
    for full_name in owner_types:
        found = _CONTAINERS.get(full_name)
        if found is not None:
            return found
    return _DEFAULT_CONTAINER


def parse_property_path(path: str | None) -> tuple[str, ...] | None:
    """The property names of a plain path (``Address.City``): () for none, None for a path not evaluated here.

    Indexers (``[0]``), attached properties (``(Grid.Row)``), the current item
    (``/``) and XPath are WPF binding features this probe does not re-implement.
    """
    text = (path or "").strip()
    if not text:
        return ()
    parts = tuple(part.strip() for part in text.split("."))
    if all(_NAME.fullmatch(part) for part in parts):
        return parts
    return None


@dataclass(frozen=True, slots=True)
class TextSource:
    """Where an item's text comes from: a path on the item ("" for the item itself)."""

    path: str
    #: The path's property names; None when the path is of a kind not evaluated here.
    segments: tuple[str, ...] | None

    @property
    def descriptor_name(self) -> str:
        """The name the item's text is described by: its path, so redaction judges the path's names."""
        return self.path or "Item"


def item_text_source(display_member_path: str | None, text_path: str | None) -> TextSource:
    """DisplayMemberPath (what the list shows) wins over TextSearch.TextPath (what it searches by)."""
    for path in (display_member_path, text_path):
        text = (path or "").strip()
        if text:
            return TextSource(text, parse_property_path(text))
    return TextSource("", ())


def readable_string(text: str | None, type_full_name: str | None) -> str | None:
    """An item's string as a user reads it: None when empty or only its type's name (Object.ToString)."""
    if text is None or text == "":
        return None
    if type_full_name is not None and text == type_full_name:
        return None
    return text


def strip_wpf_access_key(raw: str) -> tuple[str, str | None]:
    """The text WPF's AccessText shows for ``raw``, and its access key (upper case), if any.

    As ``AccessText.RemoveAccessKeyMarker``: the first ``_`` that is not part
    of a ``__`` pair, if a character follows it, marks the key and is removed;
    then every ``__`` reads ``_``. Later single underscores stay as they are.
    """
    index = _find_access_key_marker(raw)
    key: str | None = None
    text = raw
    if 0 <= index < len(raw) - 1:
        following = raw[index + 1]
        key = None if following.isspace() else following.upper()
        text = raw[:index] + raw[index + 1 :]
    return text.replace("__", "_"), key


def _find_access_key_marker(text: str) -> int:
    start = 0
    while start < len(text):
        index = text.find("_", start)
        if index == -1:
            return -1
        if index + 1 < len(text) and text[index + 1] != "_":
            return index
        start = index + 2
    return -1


def split_item_path(path: str) -> list[str]:
    """``Vegetables/Root vegetables/Beet`` -> the node texts from the top, for wpf_select on a tree.

    ``\\/`` is a slash inside a node's text and ``\\\\`` a backslash; each
    segment is stripped of surrounding spaces and must not be empty.
    """
    segments: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(path):
        ch = path[i]
        if ch == "\\" and i + 1 < len(path) and path[i + 1] in "/\\":
            current.append(path[i + 1])
            i += 2
            continue
        if ch == "/":
            segments.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    segments.append("".join(current))
    stripped = [s.strip() for s in segments]
    if not path.strip() or any(not s for s in stripped):
        raise InvalidArgumentError(
            f"Bad tree path {path!r}: give the node texts from the top, separated by '/'.",
            suggestion=r"Write item='Vegetables/Carrot'; a '/' inside a node's text is written '\/'.",
            detail={"path": path},
        )
    return stripped


def choose_item(texts: Sequence[str | None], item: str | None, index: int | None, *, secret: bool = False) -> int:
    """The index of the item to select: by index, else by text (exact, then case-insensitive).

    With ``secret`` the texts are secrets (the list shows a property whose
    name says so): they are never compared nor listed, so only an index works.
    """
    shown = [REDACTED if secret else (t or "") for t in texts]
    detail: dict[str, object] = {"count": len(texts), "items": shown[:50]}
    if index is not None:
        if not 0 <= index < len(texts):
            raise InvalidArgumentError(
                f"index {index} is out of range: there are {len(texts)} items.",
                suggestion="Pass an index from 0 to the item count minus one, or the item's text.",
                detail=detail,
            )
        return index
    if secret:
        raise PropertyRedactedError(
            "The items' texts are secrets (the list shows a property whose name says so): the probe does not match them.",
            suggestion="Select the item by index.",
            detail=detail,
        )
    if item is not None:
        plain = [t or "" for t in texts]
        if item in plain:
            return plain.index(item)
        folded = [t.casefold() for t in plain]
        if item.casefold() in folded:
            return folded.index(item.casefold())
    raise InvalidArgumentError(
        f"No item has the text {item!r}.",
        suggestion="Pick one of detail.items (exact text, case-insensitive), or pass index.",
        detail=detail,
    )


__all__ = [
    "MAX_LISTED_ITEMS",
    "TextSource",
    "choose_item",
    "container_type_name",
    "item_text_source",
    "parse_property_path",
    "readable_string",
    "split_item_path",
    "strip_wpf_access_key",
]
