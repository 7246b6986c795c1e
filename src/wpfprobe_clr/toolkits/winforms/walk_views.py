"""List views in the .NET walk: a ListView's columns, its rows and their cells, read as records in .NET.

A ListView lists every row as a child (only those in view in virtual mode), and in
details view every row has one cell per column: a list view of 5,000 rows
was 25,000 nodes read the engine's way (a dozen pythonnet calls each, about
85 us). The walk now queues them after the control's own children and writes
one record each, with the reads of ``items/listview.py`` mirrored exactly:

- the ListView's children: its ColumnHeaders in DisplayIndex order (a stable
  sort, as Python's ``sorted``; details view only), then its Items
  (``listview.children_of``); its child count adds them to its Controls;
- a column (``ListViewColumn``): an object of its own (the registry's id, its
  own type and Name), its Text; visible while the list view is and shows a
  header (HeaderStyle not None), enabled as the list view, never focused, no
  children;
- a row (``ListViewRow``): an object of its own, its Text; visible while the
  list view is, has a window and the row's Bounds meet its client area;
  enabled as the list view, focused when it is the focused item of a focused
  list view, selected, checked in a list view with CheckBoxes; its children
  (details view only) one cell per column it has a subitem for, queued after
  it as items of the row (the frame's ``item_index``);
- a cell (``ListViewCell``, ``ItemRef(row, column)``): its id the row's, a
  dot and the column index; the type ``ListViewSubItem``, the subitem's Name
  and Text; visible as its row is and its own bounds (the first column's
  width for the first cell, whose Bounds are the whole row's) meet the client
  area; enabled as the list view; no children, never rich.

A list view in virtual mode makes its rows on request (RetrieveVirtualItem):
its rows are ``ItemRef(list view, index)`` (``VirtualRow``), and only those in
view are listed (``listview._virtual_rows``: from the top row down a page and
two, or the first 50 while there is no top row), its node's ``totalCount``
its Controls, columns and VirtualListSize. The walk lists the same rows (id:
the list view's, a dot and the index), each asked for once through
``Items[index]`` (RetrieveVirtualItem, often a Python handler of the app's;
``row_of`` asks again for every read of the same row) and read with the
row's reads above, and its cells (id: the row's, a dot and the column). A
row of a class written in Python, one its list view does not own, or one
the handler failed to give (it threw, or gave none), is handed to the engine
as its ``ItemRef`` (``WalkFrame.rich_field``'s ``item``), which reads it and
its cells its own way (and shows the fault).

Python reads those texts and the cell's Name with ``str()``, so a null reads
"None" there: the walk writes the same. A row or column of a class written in
Python is rich (the engine reads it and its cells). The ``Column`` fact of a
cell is a property, not part of a node.

The Python path stays the oracle: ``tests/integration/test_walker_live.py``
compares the two on the zoo's list view and on list views in the states the
zoo lacks (reordered columns, other views, check boxes, selection and focus,
hidden, hundreds of rows, virtual lists of 5,000 rows scrolled, in list view,
empty, of rows of a Python class, and with a handler that fails).
"""

from __future__ import annotations

from typing import Any

import clr
from System import Array, Int32, Math, Object
from System import Exception as NetException
from System import Type as NetType
from System.Collections.Generic import List
from System.Linq import Enumerable
from System.Linq.Expressions import Expression

from wpfprobe_clr.net import bridge
from wpfprobe_clr.net import expr as E
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits._walk_frame import WalkFrame
from wpfprobe_clr.toolkits.winforms.items.listview import VIRTUAL_PAGE

Drawing = clr_namespace("System.Drawing")
WF = clr_namespace("System.Windows.Forms")

__all__ = ["CELL_TYPE", "ViewWalk", "as_python_str", "linq"]

#: A row's type names, for the record of a virtual row that could not be read (the engine reads it).
ROW_TYPE = ("ListViewItem", "System.Windows.Forms.ListViewItem")
#: A cell's type names (``ListViewCell.naming``): a subitem is read through its row, with no type of its own asked.
CELL_TYPE = ("ListViewSubItem", "System.Windows.Forms.ListViewItem+ListViewSubItem")


def _column_list() -> Any:
    return E.list_of(WF.types.ColumnHeader)


def linq(name: str, arity: int, *types: Any) -> Any:
    """``Enumerable.name<types>`` taking ``arity`` arguments (the overload without a comparer)."""
    for m in clr.GetClrType(Enumerable).GetMethods():
        if m.Name == name and m.GetParameters().Length == arity and m.GetGenericArguments().Length == len(types):
            return m.MakeGenericMethod(Array[NetType]([E.typeof(t) for t in types]))
    raise LookupError(f"Enumerable.{name} with {arity} parameters")


def _by_display_index() -> Any:
    column = E.param(WF.types.ColumnHeader, "column")
    return E.compile_lambda(E.func(WF.types.ColumnHeader, int), E.prop(column, "DisplayIndex"), column)


def as_python_str(read: Any) -> Any:
    """``read`` as Python's ``str()`` shows it: a null is "None" (the item classes read texts with ``str``)."""
    return Expression.Coalesce(read, E.const("None", str))


class ViewWalk:
    """The list view part of one walk's expression, over the walk's frame ``f`` (whose element is a Control)."""

    def __init__(self, f: WalkFrame) -> None:
        self.f = f
        #: The list view's columns in DisplayIndex order, read with its count (before the record's children).
        self.columns = E.variable(_column_list(), "viewColumns")
        #: How many children the list view has beyond its Controls (0: not a list view, or rich).
        self.count = E.variable(int, "viewCount")
        #: A list view in virtual mode: its rows in view are ``first`` and on (``listview._virtual_rows``).
        self.virtual = E.variable(bool, "viewVirtual")
        self.first = E.variable(int, "viewFirst")
        #: A virtual list view's columns and VirtualListSize (``totalCount`` less its Controls); -1 otherwise.
        self.total = E.variable(int, "viewTotal")
        self.variables = [self.columns, self.count, self.virtual, self.first, self.total]

    def _details(self, lv: Any) -> Any:
        return Expression.Equal(E.prop(lv, "View"), E.enum_member(WF.types.View, "Details"))

    def reset(self) -> Any:
        f = self.f
        return f.pack.void(
            E.assign(self.count, f.first), E.assign(self.virtual, E.const(False, bool)),
            E.assign(self.total, E.const(-1, int)),
        )  # fmt: skip

    def read(self, c: Any) -> Any:
        """For a list view ``c`` that is not rich: its columns in order, and its count of children beyond Controls.

        Part of the record's guarded rich test: a read that throws leaves the
        list view rich, for the engine to read (and fault) its own way.
        """
        lv = E.convert(c, WF.types.ListView)
        # Python's sorted is stable, and so is OrderBy: columns of one DisplayIndex keep their order.
        cast = E.static_call(Enumerable, linq("Cast", 1, WF.types.ColumnHeader), E.prop(lv, "Columns"))
        key = E.const(_by_display_index(), E.func(WF.types.ColumnHeader, int))
        ordered = E.static_call(Enumerable, linq("OrderBy", 2, WF.types.ColumnHeader, Int32), cast, key)
        return Expression.IfThen(
            E.is_type(c, WF.types.ListView),
            self.f.pack.void(
                Expression.IfThenElse(
                    self._details(lv),
                    E.assign(
                        self.columns, E.static_call(Enumerable, linq("ToList", 1, WF.types.ColumnHeader), ordered)
                    ),
                    E.assign(self.columns, E.new(_column_list())),
                ),
                Expression.IfThenElse(
                    E.prop(lv, "VirtualMode"),
                    self._read_virtual(lv),
                    E.assign(
                        self.count, Expression.Add(E.prop(self.columns, "Count"), E.prop(E.prop(lv, "Items"), "Count"))
                    ),
                ),
            ),
        )

    def _read_virtual(self, lv: Any) -> Any:
        """``listview._virtual_rows``: the rows in view (the first 50 while there is no top row), and the total."""
        f = self.f
        void = f.pack.void
        size = E.variable(int, "virtualSize")
        end = E.variable(int, "virtualEnd")
        top = E.variable(WF.types.ListViewItem, "topRow")
        lowest = E.method(Math, "Min", int, int)
        per_page = Expression.Add(
            Expression.Divide(
                E.prop(E.prop(lv, "ClientSize"), "Height"),
                E.static_call(
                    Math, E.method(Math, "Max", int, int), E.prop(E.prop(top, "Bounds"), "Height"), E.const(1, int)
                ),
            ),
            E.const(2, int),
        )
        in_view = E.condition(
            E.prop(lv, "IsHandleCreated"), E.prop(lv, "TopItem"), E.null(WF.types.ListViewItem), WF.types.ListViewItem
        )
        rows = Expression.Subtract(end, self.first)
        return E.block(
            [size, end, top],
            E.assign(self.virtual, E.const(True, bool)),
            E.assign(size, E.prop(lv, "VirtualListSize")),
            E.assign(self.first, f.first),
            E.assign(end, f.first),
            Expression.IfThen(
                Expression.GreaterThan(size, f.first),
                void(
                    E.assign(top, in_view),
                    Expression.IfThenElse(
                        Expression.ReferenceEqual(top, E.null(WF.types.ListViewItem)),
                        E.assign(end, E.static_call(Math, lowest, size, E.const(VIRTUAL_PAGE, int))),
                        void(
                            E.assign(self.first, E.prop(top, "Index")),
                            E.assign(end, E.static_call(Math, lowest, size, Expression.Add(self.first, per_page))),
                        ),
                    ),
                ),
            ),
            E.assign(end, E.static_call(Math, E.method(Math, "Max", int, int), end, self.first)),
            E.assign(self.count, Expression.Add(E.prop(self.columns, "Count"), rows)),
            E.assign(self.total, Expression.Add(E.prop(self.columns, "Count"), size)),
        )

    def enqueue(self) -> Any:
        """Queue the list view's (``f.c``'s) columns, then its rows, after its controls (``read`` came first).

        A virtual list's rows are items of the list view (``ItemRef(list view, index)``, ``virtual_record``).
        """
        f = self.f
        items = E.prop(E.convert(f.c, WF.types.ListView), "Items")
        column = E.call(self.columns, E.method(_column_list(), "get_Item", int), f.k)
        row = E.call(items, E.method(WF.types.ListView.GetNestedType("ListViewItemCollection"), "get_Item", int), f.k)
        rows = Expression.Subtract(self.count, E.prop(self.columns, "Count"))
        return Expression.IfThen(
            Expression.GreaterThan(self.count, f.first),
            f.pack.void(
                E.for_range(f.k, E.prop(self.columns, "Count"), f.below_cap(f.enqueue_node(column))),
                Expression.IfThenElse(
                    self.virtual,
                    E.for_range(f.k, rows, f.below_cap(f.enqueue(f.c, Expression.Add(self.first, f.k)))),
                    E.for_range(f.k, rows, f.below_cap(f.enqueue_node(row))),
                ),
            ),
        )

    # -- records ---------------------------------------------------------------

    def node_record(self, others: Any) -> Any:
        """The record of a queued item object: a row or a column of a list view, else ``others`` (a tree node)."""
        node = self.f.queued_node()
        return Expression.IfThenElse(
            E.is_type(node, WF.types.ListViewItem),
            self._row_record(),
            Expression.IfThenElse(E.is_type(node, WF.types.ColumnHeader), self._column_record(), others),
        )

    def _type_fields(self, of: Any, net_type: Any) -> Any:
        pack = self.f.pack
        return pack.void(
            E.assign(net_type, E.call(E.convert(of, object), E.method(Object, "GetType"))),
            pack.type_field(
                net_type, E.prop(net_type, "Name"), Expression.Coalesce(E.prop(net_type, "FullName"), E.const("", str))
            ),
        )

    def _column_record(self) -> Any:
        f, pack = self.f, self.f.pack
        lv = E.convert(f.c, WF.types.ListView)
        column = E.variable(WF.types.ColumnHeader, "column")
        net_type = E.variable(NetType, "columnType")
        no_header = E.enum_member(WF.types.ColumnHeaderStyle, "None")
        return E.block(
            [column, net_type],
            E.assign(column, E.convert(f.queued_node(), WF.types.ColumnHeader)),
            f.position(),
            f.id_field(column),
            self._type_fields(column, net_type),
            pack.string_field(E.prop(column, "Name")),
            pack.string_field(as_python_str(E.prop(column, "Text"))),
            pack.false(),  # no access key
            pack.bool_field(
                Expression.AndAlso(E.prop(lv, "Visible"), Expression.NotEqual(E.prop(lv, "HeaderStyle"), no_header))
            ),
            pack.bool_field(E.prop(lv, "Enabled")),
            pack.false(),  # a header is never focused
            pack.null(),  # nor checked
            pack.zero(),  # no children
            Expression.Assign(f.is_rich, E.is_type(column, bridge.DERIVED_INTERFACE)),
            f.rich_field(column),
            pack.null(),
            pack.null(),  # selected, expanded: a header has neither
        )

    def _row_shown(self, lv: Any, row: Any) -> Any:
        """``ListViewRow.client_rect(row) is not None``: the list view shown, with a window, the row in its client area."""
        return Expression.AndAlso(
            Expression.AndAlso(E.prop(lv, "Visible"), E.prop(lv, "IsHandleCreated")),
            E.call(
                E.prop(lv, "ClientRectangle"),
                E.method(Drawing.Rectangle, "IntersectsWith", Drawing.Rectangle),
                E.prop(row, "Bounds"),
            ),
        )

    def virtual_record(self) -> Any:
        """The record of a queued row of a list view (``f.c``) in virtual mode: ``ItemRef(list view, index)``.

        ``VirtualRow`` reads the row through its index (``row_of``: the list
        view's ``Items[index]``, its RetrieveVirtualItem, often a Python
        handler of the app's, asked again for every read). The walk asks once
        and reads what it gave; its cells are queued as parts of that row
        (``WalkFrame.enqueue_parts``). A row the engine must read (of a class
        written in Python, or one its list view does not own) is handed back
        as its ``ItemRef``.
        """
        return self._row_record(virtual=True)

    def _row_record(self, *, virtual: bool = False) -> Any:
        f, pack = self.f, self.f.pack
        void = pack.void
        lv = E.convert(f.c, WF.types.ListView)
        row = E.variable(WF.types.ListViewItem, "row")
        net_type = E.variable(NetType, "rowType")
        cells = E.variable(int, "cells")
        sub_items = E.prop(E.prop(row, "SubItems"), "Count")
        columns = E.prop(E.prop(lv, "Columns"), "Count")
        index = E.call(f.item_of, E.method(List[Int32], "get_Item", int), f.index)
        rich = E.is_type(row, bridge.DERIVED_INTERFACE)
        if virtual:
            rich = Expression.OrElse(rich, Expression.ReferenceNotEqual(E.prop(row, "ListView"), lv))
        below = f.enqueue_parts(row, cells) if virtual else E.for_range(
            f.k, cells, f.below_cap(f.enqueue_node_item(f.k))
        )  # fmt: skip
        record = E.block(
            [net_type, cells],
            f.position(),
            f.item_id_field(index) if virtual else f.id_field(row),
            self._type_fields(row, net_type),
            pack.string_field(E.prop(row, "Name")),
            pack.string_field(as_python_str(E.prop(row, "Text"))),
            pack.false(),  # no access key
            pack.bool_field(self._row_shown(lv, row)),
            pack.bool_field(E.prop(lv, "Enabled")),
            pack.bool_field(Expression.AndAlso(E.prop(row, "Focused"), E.prop(lv, "Focused"))),
            pack.guarded(
                Expression.IfThenElse(
                    E.prop(lv, "CheckBoxes"), void(pack.flag(E.prop(row, "Checked"))), void(pack.null())
                )
            ),
            # Its cells: one per column it has a subitem for, in details view only.
            E.assign(cells, f.first),
            pack.guarded(
                void(
                    Expression.IfThen(
                        self._details(lv),
                        E.assign(
                            cells,
                            E.static_call(Math, E.method(Math, "Min", int, int), sub_items, columns),
                        ),
                    ),
                    pack.int_field(cells),
                )
            ),
            # A row of a class written in Python: the engine reads it, and its cells.
            Expression.Assign(f.is_rich, rich),
            f.rich_field(row, item=index if virtual else None),
            pack.bool_field(E.prop(row, "Selected")),
            pack.null(),  # expanded: a row has nothing to expand
            Expression.IfThen(
                Expression.AndAlso(Expression.Not(f.is_rich), Expression.LessThan(f.depth, f.max_depth)), below
            ),
        )
        if not virtual:
            return E.block([row], E.assign(row, E.convert(f.queued_node(), WF.types.ListViewItem)), record)
        # The app's RetrieveVirtualItem may throw, or give no row: that row is the engine's to read (and fault).
        fetch = E.call(
            E.prop(lv, "Items"),
            E.method(WF.types.ListView.GetNestedType("ListViewItemCollection"), "get_Item", int),
            index,
        )
        return E.block(
            [row],
            E.try_catch(
                void(E.assign(row, fetch)),
                NetException,
                "ex",
                lambda _ex: void(E.assign(row, E.null(WF.types.ListViewItem))),
            ),
            Expression.IfThenElse(
                Expression.ReferenceEqual(row, E.null(WF.types.ListViewItem)), self._unread_row(index), record
            ),
        )

    def _unread_row(self, index: Any) -> Any:
        """The record of a virtual row the list view could not give (``index``): rich, its fields unread."""
        f, pack = self.f, self.f.pack
        return pack.void(
            f.position(),
            f.item_id_field(index),
            pack.role_field(ROW_TYPE),
            pack.null(),  # name
            pack.null(),  # text
            pack.false(),  # no access key
            pack.false(),  # visible
            pack.false(),  # enabled
            pack.false(),  # focused
            pack.null(),  # checked
            pack.zero(),  # no children walked
            E.assign(f.is_rich, E.const(True, bool)),
            f.rich_field(f.c, item=index),
            pack.null(),
            pack.null(),  # selected, expanded
        )

    def cell_record(self) -> Any:
        """The record of a queued cell: item ``f.queued_item()`` of the row the entry stands for (``f.c`` its list view)."""
        f, pack = self.f, self.f.pack
        lv = E.convert(f.c, WF.types.ListView)
        row = E.variable(WF.types.ListViewItem, "cellRow")
        i = E.variable(int, "cellIndex")
        sub = E.prop(row, "SubItems")
        sub_item = E.call(
            sub, E.method(WF.types.ListViewItem.GetNestedType("ListViewSubItemCollection"), "get_Item", int), i
        )
        bounds = E.variable(Drawing.Rectangle, "cellBounds")
        width = E.prop(
            E.call(
                E.prop(lv, "Columns"),
                E.method(WF.types.ListView.GetNestedType("ColumnHeaderCollection"), "get_Item", int),
                i,
            ),
            "Width",
        )
        # The first subitem's bounds are the whole row's; its cell is the first column's width.
        first_cell = E.new(Drawing.Rectangle, E.prop(bounds, "X"), E.prop(bounds, "Y"), width, E.prop(bounds, "Height"))
        cell_shown = E.block(
            [bounds],
            E.assign(bounds, E.prop(sub_item, "Bounds")),
            Expression.IfThen(Expression.Equal(i, f.first), E.assign(bounds, first_cell)),
            E.call(
                E.prop(lv, "ClientRectangle"), E.method(Drawing.Rectangle, "IntersectsWith", Drawing.Rectangle), bounds
            ),
        )
        return E.block(
            [row, i],
            E.assign(row, E.convert(f.queued_node(), WF.types.ListViewItem)),
            E.assign(i, f.queued_item()),
            f.position(),
            f.item_id_field(i),
            pack.role_field(CELL_TYPE),
            pack.string_field(as_python_str(E.prop(sub_item, "Name"))),
            pack.string_field(as_python_str(E.prop(sub_item, "Text"))),
            pack.false(),  # no access key
            pack.bool_field(Expression.AndAlso(self._row_shown(lv, row), cell_shown)),
            pack.bool_field(E.prop(lv, "Enabled")),
            pack.false(),  # a cell is never focused (its row is)
            pack.null(),  # nor checked
            pack.zero(),  # no children
            pack.false(),  # never rich
            pack.null(),
            pack.null(),  # selected, expanded: its row's, not the cell's
        )
