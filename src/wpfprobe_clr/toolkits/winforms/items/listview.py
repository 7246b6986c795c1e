"""ListView items, their cells, and its columns.

A ListView shows rows (ListViewItem objects) and, in details view, a header
of columns with one cell per column on each row. The elements mirror that,
as UI Automation and a DataGridView's do: the ColumnHeaders come first under
the ListView (details view only: other views show no header), then the
items; in details view each item has one child per column, its subitem, an
``ItemRef(item, column)`` (a subitem knows no owner of its own), whose text
is what that cell shows and whose ``Column`` property is the header text. So
a cell can be found (``ListViewItem[text="Ada"] > [Column="Age"]``), read and
clicked like the row it is on, and its bounds are the cell's.

A list in virtual mode makes its items on request (RetrieveVirtualItem), a
new object each time unless the app caches them: its rows are
``ItemRef(list view, index)``, so a row keeps its node id and locator while
the app hands out fresh objects, and only the rows in view are listed
(``child_total`` counts them all).
"""

from __future__ import annotations

from typing import Any

from wpfprobe.core.protocol import ActionKind, ElementState, ItemRef, Naming
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms.items.base import Fact, Item, call_protected, visible_in

Drawing = clr_namespace("System.Drawing")
WF = clr_namespace("System.Windows.Forms")

#: Rows listed for a list in virtual mode when none is in view yet (no handle, hidden).
VIRTUAL_PAGE = 50


def details(lv: Any) -> bool:
    return int(lv.View) == int(WF.View.Details)


def children_of(lv: Any) -> list[Any]:
    """The ListView's columns (details view), then its items (only those in view in virtual mode)."""
    columns = sorted(lv.Columns, key=lambda c: int(c.DisplayIndex)) if details(lv) else []
    if lv.VirtualMode:
        return [*columns, *(ItemRef(lv, i) for i in _virtual_rows(lv))]
    return [*columns, *lv.Items]


def row_of(el: Any) -> Any:
    """The ListViewItem a row element stands for: itself, or a virtual list's item at the ref's index."""
    return el.owner.Items[el.index] if isinstance(el, ItemRef) else el


def child_total(lv: Any) -> int | None:
    if not lv.VirtualMode:
        return None
    return (int(lv.Columns.Count) if details(lv) else 0) + int(lv.VirtualListSize)


def _virtual_rows(lv: Any) -> range:
    size = int(lv.VirtualListSize)
    if size == 0:
        return range(0)
    top = lv.TopItem if lv.IsHandleCreated else None
    if top is None:
        return range(min(size, VIRTUAL_PAGE))
    first = int(top.Index)
    height = max(int(top.Bounds.Height), 1)
    per_page = int(lv.ClientSize.Height) // height + 2
    return range(first, min(size, first + per_page))


class ListViewRow(Item):
    kind_label = "list view item"

    def owner(self, el: Any) -> Any:
        return el.ListView

    def children(self, el: Any) -> list[Any]:
        lv = el.ListView
        if lv is None or not details(lv):
            return []
        count = min(int(el.SubItems.Count), int(lv.Columns.Count))
        return [ItemRef(el, i) for i in range(count)]

    def is_alive(self, el: Any) -> bool:
        lv = el.ListView
        return lv is not None and not lv.IsDisposed

    def client_rect(self, el: Any) -> Any | None:
        lv = el.ListView
        if not lv.Visible or not lv.IsHandleCreated:
            return None
        rect = el.Bounds
        return rect if visible_in(lv, rect) else None

    def state(self, el: Any) -> ElementState:
        lv = el.ListView
        selected = bool(el.Selected)
        return ElementState(
            visible=self.client_rect(el) is not None,
            enabled=bool(lv.Enabled),
            focused=bool(el.Focused) and bool(lv.Focused),
            selected=selected,
            checked=bool(el.Checked) if lv.CheckBoxes else None,
        )

    def text(self, el: Any) -> str | None:
        return str(el.Text)

    def unsupported(self, el: Any, action: ActionKind) -> str | None:
        if action == "toggle":
            return None if el.ListView.CheckBoxes else "Its list view has no check boxes."
        return super().unsupported(el, action)

    def select(self, el: Any) -> None:
        lv = el.ListView
        if not lv.VirtualMode:
            el.EnsureVisible()
        lv.SelectedIndices.Clear()
        el.Selected = True
        el.Focused = True

    def toggle(self, el: Any, state: bool | None) -> None:
        wanted = (not el.Checked) if state is None else state
        if bool(el.Checked) != wanted:
            el.Checked = wanted  # raises ItemCheck and ItemChecked, as the check box does

    def action_state(self, el: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"selected": bool(el.Selected)}
        if el.ListView.CheckBoxes:
            out["checked"] = bool(el.Checked)
        return out


class VirtualRow(Item):
    """A row of a list view in virtual mode, ``ItemRef(list view, index)``: a ListViewRow read through its index."""

    kind_label = "list view item"

    def owner(self, el: ItemRef) -> Any:
        return el.owner

    def is_alive(self, el: ItemRef) -> bool:
        lv = el.owner
        return not lv.IsDisposed and bool(lv.VirtualMode) and 0 <= el.index < int(lv.VirtualListSize)

    def naming(self, el: ItemRef, type_names: Any) -> Naming:
        return _ROW.naming(row_of(el), type_names)

    def children(self, el: ItemRef) -> list[Any]:
        return [ItemRef(el, cell.index) for cell in _ROW.children(row_of(el))]

    def client_rect(self, el: ItemRef) -> Any | None:
        return _ROW.client_rect(row_of(el))

    def state(self, el: ItemRef) -> ElementState:
        return _ROW.state(row_of(el))

    def text(self, el: ItemRef) -> str | None:
        return _ROW.text(row_of(el))

    def facts(self, el: ItemRef) -> list[Fact]:
        return [
            Fact("Text", "System.String", self.text),
            Fact("Index", "System.Int32", lambda e: e.index),
            Fact("Selected", "System.Boolean", lambda e: bool(row_of(e).Selected)),
        ]

    def unsupported(self, el: ItemRef, action: ActionKind) -> str | None:
        return _ROW.unsupported(row_of(el), action)

    def select(self, el: ItemRef) -> None:
        _ROW.select(row_of(el))

    def toggle(self, el: ItemRef, state: bool | None) -> None:
        _ROW.toggle(row_of(el), state)

    def action_state(self, el: ItemRef) -> dict[str, Any]:
        return _ROW.action_state(row_of(el))


class ListViewCell(Item):
    """One subitem of a row in details view: ``ItemRef(row, column index)`` (the row a ListViewItem or a virtual row)."""

    kind_label = "list view cell"

    def owner(self, el: ItemRef) -> Any:
        return row_of(el.owner).ListView

    def parent(self, el: ItemRef) -> Any:
        return el.owner

    def sub(self, el: ItemRef) -> Any:
        return row_of(el.owner).SubItems[el.index]

    def is_alive(self, el: ItemRef) -> bool:
        if isinstance(el.owner, ItemRef) and not _VIRTUAL.is_alive(el.owner):
            return False
        row = row_of(el.owner)
        lv = row.ListView
        return (
            lv is not None
            and not lv.IsDisposed
            and details(lv)
            and 0 <= el.index < min(int(row.SubItems.Count), int(lv.Columns.Count))
        )

    def naming(self, el: ItemRef, type_names: Any) -> Naming:
        name = self.sub(el).Name
        return Naming("ListViewSubItem", "System.Windows.Forms.ListViewItem+ListViewSubItem", str(name) or None, None)

    def column(self, el: ItemRef) -> Any:
        return self.owner(el).Columns[el.index]

    def client_rect(self, el: ItemRef) -> Any | None:
        row = row_of(el.owner)
        lv = row.ListView
        if not lv.Visible or not lv.IsHandleCreated or not visible_in(lv, row.Bounds):
            return None
        rect = self.sub(el).Bounds
        if el.index == 0:
            # The first subitem's bounds are the whole row's; its cell is the first column's width.
            rect = Drawing.Rectangle(rect.X, rect.Y, int(self.column(el).Width), rect.Height)
        return rect if visible_in(lv, rect) else None

    def state(self, el: ItemRef) -> ElementState:
        return ElementState(self.client_rect(el) is not None, bool(self.owner(el).Enabled), False)

    def text(self, el: ItemRef) -> str | None:
        return str(self.sub(el).Text)

    def facts(self, el: ItemRef) -> list[Fact]:
        return [
            Fact("Text", "System.String", self.text),
            Fact("Column", "System.String", lambda e: str(self.column(e).Text)),
            Fact("ColumnIndex", "System.Int32", lambda e: e.index),
            Fact("Name", "System.String", lambda e: str(self.sub(e).Name)),
        ]

    def select(self, el: ItemRef) -> None:
        _ROW.select(row_of(el.owner))  # a cell is picked with its row, as the list view draws it

    def action_state(self, el: ItemRef) -> dict[str, Any]:
        return {"selected": bool(row_of(el.owner).Selected)}


class ListViewColumn(Item):
    """A ColumnHeader: clicking it raises the ListView's ColumnClick, where apps sort."""

    kind_label = "column header"

    def owner(self, el: Any) -> Any:
        return el.ListView

    def is_alive(self, el: Any) -> bool:
        lv = el.ListView
        return lv is not None and not lv.IsDisposed and details(lv)

    def client_rect(self, el: Any) -> Any | None:
        lv = el.ListView
        if not lv.Visible or not lv.IsHandleCreated or not details(lv) or str(lv.HeaderStyle) == "None":
            return None
        top = lv.TopItem
        if top is None:
            return None  # the header's height is known only from the first row under it
        row = top.Bounds
        left = int(row.X) + sum(
            int(c.Width) for c in lv.Columns if int(c.DisplayIndex) < int(el.DisplayIndex)
        )  # fmt: skip
        rect = Drawing.Rectangle(left, 0, int(el.Width), int(row.Y))
        return rect if rect.Height > 0 and visible_in(lv, rect) else None

    def state(self, el: Any) -> ElementState:
        lv = el.ListView
        return ElementState(bool(lv.Visible) and str(lv.HeaderStyle) != "None", bool(lv.Enabled), False)

    def text(self, el: Any) -> str | None:
        return str(el.Text)

    def unsupported(self, el: Any, action: ActionKind) -> str | None:
        if action == "click":
            return None
        return "A column header is clicked (to sort), not selected, toggled or typed into."

    def pointer_free(self, el: Any) -> bool:
        return True

    def pick(self, el: Any) -> None:
        call_protected(el.ListView, WF.ListView, "OnColumnClick", WF.ColumnClickEventArgs(int(el.Index)))

    def mouse(self, el: Any, button: str, count: int) -> None:
        pass  # a header click raises ColumnClick only

    def action_state(self, el: Any) -> dict[str, Any]:
        return {}


_ROW = ListViewRow()
_VIRTUAL = VirtualRow()
