"""List views in the .NET walk: a ListView's columns, its rows and their cells, read as records in .NET.

A ListView that is not in virtual mode lists every row as a child, and in
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

Python reads those texts and the cell's Name with ``str()``, so a null reads
"None" there: the walk writes the same. A row or column of a class written in
Python is rich (the engine reads it and its cells). A list view in virtual
mode stays rich: its rows are ``ItemRef(list view, index)`` made for the rows
in view only, and its node carries a ``totalCount`` the walked node has no
field for. The ``Column`` fact of a cell is a property, not part of a node.

The Python path stays the oracle: ``tests/integration/test_walker_live.py``
compares the two on the zoo's list view and on list views in the states the
zoo lacks (reordered columns, other views, check boxes, selection and focus,
hidden, hundreds of rows).
"""

from __future__ import annotations

from typing import Any

import clr
from System import Array, Int32, Math, Object
from System import Type as NetType
from System.Collections.Generic import List
from System.Drawing import Rectangle
from System.Linq import Enumerable
from System.Linq.Expressions import Expression
from System.Windows.Forms import ColumnHeader, ColumnHeaderStyle, ListView, ListViewItem, View

from wpfprobe_clr.net import bridge
from wpfprobe_clr.net import expr as E
from wpfprobe_clr.toolkits._walk_frame import WalkFrame

__all__ = ["CELL_TYPE", "ViewWalk"]

#: A cell's type names (``ListViewCell.naming``): a subitem is read through its row, with no type of its own asked.
CELL_TYPE = ("ListViewSubItem", "System.Windows.Forms.ListViewItem+ListViewSubItem")

_Columns = List[ColumnHeader]


def _linq(name: str, arity: int, *types: Any) -> Any:
    """``Enumerable.name<types>`` taking ``arity`` arguments (the overload without a comparer)."""
    for m in clr.GetClrType(Enumerable).GetMethods():
        if m.Name == name and m.GetParameters().Length == arity and m.GetGenericArguments().Length == len(types):
            return m.MakeGenericMethod(Array[NetType]([E.typeof(t) for t in types]))
    raise LookupError(f"Enumerable.{name} with {arity} parameters")


def _by_display_index() -> Any:
    column = E.param(ColumnHeader, "column")
    return E.compile_lambda(E.func(ColumnHeader, int), E.prop(column, "DisplayIndex"), column)


def _enum(value: Any, kind: Any) -> Any:
    return E.convert(E.const(int(value), int), kind)


def _as_python_str(read: Any) -> Any:
    """``read`` as Python's ``str()`` shows it: a null is "None" (the item classes read texts with ``str``)."""
    return Expression.Coalesce(read, E.const("None", str))


class ViewWalk:
    """The list view part of one walk's expression, over the walk's frame ``f`` (whose element is a Control)."""

    def __init__(self, f: WalkFrame) -> None:
        self.f = f
        #: The list view's columns in DisplayIndex order, read with its count (before the record's children).
        self.columns = E.variable(_Columns, "viewColumns")
        #: How many children the list view has beyond its Controls (0: not a list view, or rich).
        self.count = E.variable(int, "viewCount")
        self.variables = [self.columns, self.count]

    def _details(self, lv: Any) -> Any:
        return Expression.Equal(E.prop(lv, "View"), _enum(View.Details, View))

    def rich(self, c: Any) -> Any:
        """Whether the control ``c`` is a list view the walk leaves to the engine (virtual mode)."""
        return Expression.AndAlso(E.is_type(c, ListView), E.prop(E.convert(c, ListView), "VirtualMode"))

    def reset(self) -> Any:
        return E.assign(self.count, self.f.first)

    def read(self, c: Any) -> Any:
        """For a list view ``c`` that is not rich: its columns in order, and its count of children beyond Controls.

        Part of the record's guarded rich test: a read that throws leaves the
        list view rich, for the engine to read (and fault) its own way.
        """
        lv = E.convert(c, ListView)
        # Python's sorted is stable, and so is OrderBy: columns of one DisplayIndex keep their order.
        cast = E.static_call(Enumerable, _linq("Cast", 1, ColumnHeader), E.prop(lv, "Columns"))
        key = E.const(_by_display_index(), E.func(ColumnHeader, int))
        ordered = E.static_call(Enumerable, _linq("OrderBy", 2, ColumnHeader, Int32), cast, key)
        return Expression.IfThen(
            E.is_type(c, ListView),
            self.f.pack.void(
                Expression.IfThenElse(
                    self._details(lv),
                    E.assign(self.columns, E.static_call(Enumerable, _linq("ToList", 1, ColumnHeader), ordered)),
                    E.assign(self.columns, E.new(_Columns)),
                ),
                E.assign(
                    self.count, Expression.Add(E.prop(self.columns, "Count"), E.prop(E.prop(lv, "Items"), "Count"))
                ),
            ),
        )

    def enqueue(self) -> Any:
        """Queue the list view's (``f.c``'s) columns, then its rows, after its controls (``read`` came first)."""
        f = self.f
        items = E.prop(E.convert(f.c, ListView), "Items")
        column = E.call(self.columns, E.method(_Columns, "get_Item", int), f.k)
        row = E.call(items, E.method(ListView.ListViewItemCollection, "get_Item", int), f.k)
        rows = Expression.Subtract(self.count, E.prop(self.columns, "Count"))
        return Expression.IfThen(
            Expression.GreaterThan(self.count, f.first),
            f.pack.void(
                E.for_range(f.k, E.prop(self.columns, "Count"), f.below_cap(f.enqueue_node(column))),
                E.for_range(f.k, rows, f.below_cap(f.enqueue_node(row))),
            ),
        )

    # -- records ---------------------------------------------------------------

    def node_record(self, others: Any) -> Any:
        """The record of a queued item object: a row or a column of a list view, else ``others`` (a tree node)."""
        node = self.f.queued_node()
        return Expression.IfThenElse(
            E.is_type(node, ListViewItem),
            self._row_record(),
            Expression.IfThenElse(E.is_type(node, ColumnHeader), self._column_record(), others),
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
        lv = E.convert(f.c, ListView)
        column = E.variable(ColumnHeader, "column")
        net_type = E.variable(NetType, "columnType")
        no_header = _enum(getattr(ColumnHeaderStyle, "None"), ColumnHeaderStyle)
        return E.block(
            [column, net_type],
            E.assign(column, E.convert(f.queued_node(), ColumnHeader)),
            f.position(),
            f.id_field(column),
            self._type_fields(column, net_type),
            pack.string_field(E.prop(column, "Name")),
            pack.string_field(_as_python_str(E.prop(column, "Text"))),
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
                E.prop(lv, "ClientRectangle"), E.method(Rectangle, "IntersectsWith", Rectangle), E.prop(row, "Bounds")
            ),
        )

    def _row_record(self) -> Any:
        f, pack = self.f, self.f.pack
        void = pack.void
        lv = E.convert(f.c, ListView)
        row = E.variable(ListViewItem, "row")
        net_type = E.variable(NetType, "rowType")
        cells = E.variable(int, "cells")
        sub_items = E.prop(E.prop(row, "SubItems"), "Count")
        columns = E.prop(E.prop(lv, "Columns"), "Count")
        return E.block(
            [row, net_type, cells],
            E.assign(row, E.convert(f.queued_node(), ListViewItem)),
            f.position(),
            f.id_field(row),
            self._type_fields(row, net_type),
            pack.string_field(E.prop(row, "Name")),
            pack.string_field(_as_python_str(E.prop(row, "Text"))),
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
            Expression.Assign(f.is_rich, E.is_type(row, bridge.DERIVED_INTERFACE)),
            f.rich_field(row),
            pack.bool_field(E.prop(row, "Selected")),
            pack.null(),  # expanded: a row has nothing to expand
            Expression.IfThen(
                Expression.AndAlso(Expression.Not(f.is_rich), Expression.LessThan(f.depth, f.max_depth)),
                E.for_range(f.k, cells, f.below_cap(f.enqueue_node_item(f.k))),
            ),
        )

    def cell_record(self) -> Any:
        """The record of a queued cell: item ``f.queued_item()`` of the row the entry stands for (``f.c`` its list view)."""
        f, pack = self.f, self.f.pack
        lv = E.convert(f.c, ListView)
        row = E.variable(ListViewItem, "cellRow")
        i = E.variable(int, "cellIndex")
        sub = E.prop(row, "SubItems")
        sub_item = E.call(sub, E.method(ListViewItem.ListViewSubItemCollection, "get_Item", int), i)
        bounds = E.variable(Rectangle, "cellBounds")
        width = E.prop(
            E.call(E.prop(lv, "Columns"), E.method(ListView.ColumnHeaderCollection, "get_Item", int), i), "Width"
        )
        # The first subitem's bounds are the whole row's; its cell is the first column's width.
        first_cell = E.new(Rectangle, E.prop(bounds, "X"), E.prop(bounds, "Y"), width, E.prop(bounds, "Height"))
        cell_shown = E.block(
            [bounds],
            E.assign(bounds, E.prop(sub_item, "Bounds")),
            Expression.IfThen(Expression.Equal(i, f.first), E.assign(bounds, first_cell)),
            E.call(E.prop(lv, "ClientRectangle"), E.method(Rectangle, "IntersectsWith", Rectangle), bounds),
        )
        return E.block(
            [row, i],
            E.assign(row, E.convert(f.queued_node(), ListViewItem)),
            E.assign(i, f.queued_item()),
            f.position(),
            f.item_id_field(i),
            pack.role_field(CELL_TYPE),
            pack.string_field(_as_python_str(E.prop(sub_item, "Name"))),
            pack.string_field(_as_python_str(E.prop(sub_item, "Text"))),
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
