"""DataGridViews in the .NET walk: a grid's columns, its rows in view and their cells, read as records in .NET.

A grid lists its columns and only the rows the user sees (``items/grids.py``),
each row with one cell per column: a grid in view was some 30 rows and 200
cells read the engine's way (a dozen pythonnet calls each, ~85 us). The walk
now queues them after the grid's own controls and writes one record each,
with the reads of ``items/grids.py`` mirrored exactly:

- the grid's children: its columns in DisplayIndex order (a stable sort, as
  Python's ``sorted``), then the rows whose state is Displayed (found through
  the row states, which never unshare a row; the rows themselves read as
  ``Rows[i]``, as Python does); its child count adds them to its Controls,
  and its ``totalCount`` is its Controls, every column and every row
  (``grids.child_total``);
- a column (``GridColumn``): an object of its own (the registry's id, its own
  type and Name), its HeaderText; visible while the grid is, the column is
  Visible and Displayed and the grid shows its headers; enabled as the grid,
  never focused, selected as the column is; no children;
- a row (``GridRow``): an object of its own, no Name; its text is its visible
  cells' texts in display order joined with " | " (none when that is only
  separators and spaces); visible while the grid is and the row is Visible
  and Displayed; enabled as the grid, focused when the current cell is on it
  in a focused grid, selected; its children are its cells, one per column in
  display order (hidden columns too), queued after it;
- a cell (``GridCell``): an object of its own, no Name; its text its
  FormattedValue (none for a check box cell); visible while the grid is and
  the cell is Visible, its row and its column Displayed (Mono never sets a
  cell's own Displayed); enabled as the grid; focused when it is the current
  cell of a focused grid; selected; a check box cell's check from its Value
  (``grids.cell_checked``); no children.

Python shows a value with ``str()``: pythonnet turns a boxed Int32 or Double
into a Python number first, so ``1.0`` reads "1.0" in Python and "1" through
.NET's ToString. The walk writes what ``str()`` would where it is sure (a
string, a Boolean, an integer, anything else pythonnet leaves a .NET object
and so shows with ToString) and leaves the row or cell to the engine where it
is not (a Double or a Single, a Python object, a ToString that returns
null). A row or cell of a class written in Python, or of a type with a member
called Name (``Item.naming`` reads one by name), is left to the engine too.
Nothing about a grid is redacted by the engine's reads (a cell's text is an
item's ``Text``, never a property the redactor judges), so the walk redacts
nothing either.

The Python path stays the oracle: ``tests/integration/test_walker_live.py``
compares the two on the zoo's bound grid and on grids the zoo lacks (unbound,
virtual mode, 5,000 rows, scrolled, hidden columns and rows, null and
formatted values, check box cells, a row header, selection and focus).
"""

from __future__ import annotations

from typing import Any

from System import (
    Array,
    Boolean,
    Byte,
    Char,
    DBNull,
    Double,
    IFormatProvider,
    IFormattable,
    Int16,
    Int32,
    Int64,
    Object,
    SByte,
    Single,
    String,
    UInt16,
    UInt32,
    UInt64,
)
from System import Type as NetType
from System.Globalization import CultureInfo
from System.Linq import Enumerable
from System.Linq.Expressions import Expression
from System.Reflection import BindingFlags
from System.Text import StringBuilder

from wpfprobe_clr.net import bridge
from wpfprobe_clr.net import expr as E
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits._walk_frame import WalkFrame, any_of, memo_per_type
from wpfprobe_clr.toolkits.winforms.items.grids import ROW_TEXT_SEPARATOR
from wpfprobe_clr.toolkits.winforms.walk_views import as_python_str, linq

WF = clr_namespace("System.Windows.Forms")

__all__ = ["GridWalk", "python_str"]


def _column_list() -> Any:
    return E.list_of(WF.types.DataGridViewColumn)


def _row_list() -> Any:
    return E.list_of(WF.types.DataGridViewRow)


def _cell_list() -> Any:
    return E.list_of(WF.types.DataGridViewCell)


#: What Python's ``str.strip(ROW_TEXT_SEPARATOR)`` takes off a row's text: its characters, not the string.
_STRIPPED = sorted(set(ROW_TEXT_SEPARATOR))
#: Boxed integers pythonnet turns into Python ints: ``str()`` shows them as the invariant culture does.
_INTEGERS = (Int16, Int32, Int64, Byte, SByte, UInt16, UInt32, UInt64)
#: Boxed numbers whose Python ``str()`` is not .NET's ToString (``1.0`` against "1").
_FLOATS = (Double, Single)
_DISPLAY_INDEX_KEY = ("winforms.grid_display_index", 1)


def _by_display_index() -> Any:
    column = E.param(WF.types.DataGridViewColumn, "column")
    return E.compile_lambda(E.func(WF.types.DataGridViewColumn, int), E.prop(column, "DisplayIndex"), column)


def _build_named() -> Any:
    """``Func<Type, bool>``: whether the type has a public member called Name (``Item.naming`` reads it by name)."""
    t = E.param(NetType, "type")
    flags = BindingFlags.Public | BindingFlags.Instance | BindingFlags.Static | BindingFlags.FlattenHierarchy
    members = E.call(
        t, E.method(NetType, "GetMember", str, BindingFlags), E.const("Name", str), E.const(flags, BindingFlags)
    )
    return E.compile_lambda(
        E.func(NetType, bool), Expression.GreaterThan(E.prop(members, "Length"), E.const(0, int)), t
    )


def python_str(value: Any, unsure: Any) -> Any:
    """``str(value)`` as Python shows a .NET value pythonnet handed it (``value``: an Object that is not null).

    A String. ``unsure`` (a bool variable) is set, and null returned, where
    the walk cannot be sure it writes what Python would (``_FLOATS``, an
    object of a class written in Python or of pythonnet's own, a ToString
    that returns null).
    """
    s = E.variable(String, "shown")
    the_type = E.call(value, E.method(Object, "GetType"))
    doubt = any_of([
        *(E.is_type(value, t) for t in _FLOATS),
        E.is_type(value, bridge.DERIVED_INTERFACE),
        Expression.Equal(E.prop(the_type, "Namespace"), E.const("Python.Runtime", str)),
    ])  # fmt: skip
    invariant = E.const(CultureInfo.InvariantCulture, IFormatProvider)
    as_integer = E.call(
        E.convert(value, IFormattable), E.method(IFormattable, "ToString", String, IFormatProvider), E.null(String),
        invariant,
    )  # fmt: skip
    shown = E.block(
        [s],
        E.assign(s, E.call(value, E.method(Object, "ToString"))),
        Expression.IfThen(Expression.ReferenceEqual(s, E.null(String)), E.assign(unsure, E.const(True, bool))),
        s,
    )
    found: Any = shown
    found = E.condition(doubt, E.block([], E.assign(unsure, E.const(True, bool)), E.null(String)), found, String)
    found = E.condition(any_of([E.is_type(value, t) for t in _INTEGERS]), as_integer, found, String)
    found = E.condition(
        E.is_type(value, Boolean),
        E.condition(E.convert(value, Boolean), E.const("True", str), E.const("False", str), String),
        found,
        String,
    )
    return E.condition(E.is_type(value, String), E.convert(value, String), found, String)


class GridWalk:
    """The DataGridView part of one walk's expression, over the walk's frame ``f`` (whose element is a Control)."""

    def __init__(self, f: WalkFrame) -> None:
        self.f = f
        #: The grid's columns in DisplayIndex order, and its rows in view, read with its count.
        self.columns = E.variable(_column_list(), "gridColumns")
        self.rows = E.variable(_row_list(), "gridRows")
        #: How many children the grid has beyond its Controls (0: not a grid, or rich).
        self.count = E.variable(int, "gridCount")
        #: Every column and every row (``totalCount`` less the Controls); -1: not a grid.
        self.total = E.variable(int, "gridTotal")
        #: A read the walk cannot be sure to show as Python does (``python_str``): the element is rich.
        self.unsure = E.variable(bool, "gridUnsure")
        self.variables = [self.columns, self.rows, self.count, self.total, self.unsure]

    def reset(self) -> Any:
        return self.f.pack.void(E.assign(self.count, self.f.first), E.assign(self.total, E.const(-1, int)))

    def _ordered(self, grid: Any) -> Any:
        """``grids._display_order``: the columns by DisplayIndex (stable, as Python's ``sorted``), as a list."""
        cast = E.static_call(Enumerable, linq("Cast", 1, WF.types.DataGridViewColumn), E.prop(grid, "Columns"))
        key = E.const(E.compiled(_DISPLAY_INDEX_KEY, _by_display_index), E.func(WF.types.DataGridViewColumn, int))
        ordered = E.static_call(Enumerable, linq("OrderBy", 2, WF.types.DataGridViewColumn, Int32), cast, key)
        return E.static_call(Enumerable, linq("ToList", 1, WF.types.DataGridViewColumn), ordered)

    def read(self, c: Any) -> Any:
        """For a grid ``c`` that is not rich: its columns in order, its rows in view, its counts.

        Part of the record's guarded rich test: a read that throws leaves the
        grid rich, for the engine to read (and fault) its own way.
        """
        f = self.f
        grid = E.convert(c, WF.types.DataGridView)
        rows = E.prop(grid, "Rows")
        shown = E.enum_member(WF.types.DataGridViewElementStates, "Displayed")
        at = E.variable(int, "rowAt")
        done = Expression.Label("rowsDone")
        get_row = E.method(WF.types.DataGridViewRowCollection, "get_Item", int)
        displayed = E.block(
            [at],
            E.assign(
                at,
                E.call(
                    rows,
                    E.method(WF.types.DataGridViewRowCollection, "GetFirstRow", WF.types.DataGridViewElementStates),
                    shown,
                ),
            ),
            Expression.Loop(
                Expression.IfThenElse(
                    Expression.GreaterThanOrEqual(at, f.first),
                    f.pack.void(
                        E.call(
                            self.rows, E.method(_row_list(), "Add", WF.types.DataGridViewRow), E.call(rows, get_row, at)
                        ),
                        E.assign(
                            at,
                            E.call(
                                rows,
                                E.method(
                                    WF.types.DataGridViewRowCollection,
                                    "GetNextRow",
                                    int,
                                    WF.types.DataGridViewElementStates,
                                ),
                                at,
                                shown,
                            ),
                        ),
                    ),
                    Expression.Break(done),
                ),
                done,
            ),
        )
        return Expression.IfThen(
            E.is_type(c, WF.types.DataGridView),
            f.pack.void(
                E.assign(self.columns, self._ordered(grid)),
                E.assign(self.rows, E.new(_row_list())),
                # ``displayed_rows``: none while the grid is hidden or has no window.
                Expression.IfThen(
                    Expression.AndAlso(E.prop(grid, "Visible"), E.prop(grid, "IsHandleCreated")), displayed
                ),
                E.assign(self.count, Expression.Add(E.prop(self.columns, "Count"), E.prop(self.rows, "Count"))),
                E.assign(self.total, Expression.Add(E.prop(E.prop(grid, "Columns"), "Count"), E.prop(rows, "Count"))),
            ),
        )

    def enqueue(self) -> Any:
        """Queue the grid's (``f.c``'s) columns, then its rows in view, after its controls (``read`` came first)."""
        f = self.f
        column = E.call(self.columns, E.method(_column_list(), "get_Item", int), f.k)
        row = E.call(self.rows, E.method(_row_list(), "get_Item", int), f.k)
        return Expression.IfThen(
            Expression.GreaterThan(self.count, f.first),
            f.pack.void(
                E.for_range(f.k, E.prop(self.columns, "Count"), f.below_cap(f.enqueue_node(column))),
                E.for_range(f.k, E.prop(self.rows, "Count"), f.below_cap(f.enqueue_node(row))),
            ),
        )

    # -- records ---------------------------------------------------------------

    def node_record(self, others: Any) -> Any:
        """The record of a queued item object: a grid's column, row or cell, else ``others``."""
        node = self.f.queued_node()
        return Expression.IfThenElse(
            E.is_type(node, WF.types.DataGridViewCell),
            self._cell_record(),
            Expression.IfThenElse(
                E.is_type(node, WF.types.DataGridViewRow),
                self._row_record(),
                Expression.IfThenElse(E.is_type(node, WF.types.DataGridViewColumn), self._column_record(), others),
            ),
        )

    def _type_fields(self, of: Any, net_type: Any) -> Any:
        pack = self.f.pack
        return pack.void(
            E.assign(net_type, E.call(E.convert(of, object), E.method(Object, "GetType"))),
            pack.type_field(
                net_type, E.prop(net_type, "Name"), Expression.Coalesce(E.prop(net_type, "FullName"), E.const("", str))
            ),
        )

    def _odd(self, of: Any, net_type: Any) -> Any:
        """Whether a row or cell is left to the engine: a class written in Python, a Name, or an unsure read."""
        named = memo_per_type(("winforms.grid_named", 1), _build_named, net_type)
        return any_of([self.unsure, E.is_type(of, bridge.DERIVED_INTERFACE), named])

    def _column_record(self) -> Any:
        f, pack = self.f, self.f.pack
        grid = E.convert(f.c, WF.types.DataGridView)
        column = E.variable(WF.types.DataGridViewColumn, "gridColumn")
        net_type = E.variable(NetType, "gridColumnType")
        return E.block(
            [column, net_type],
            E.assign(column, E.convert(f.queued_node(), WF.types.DataGridViewColumn)),
            f.position(),
            f.id_field(column),
            self._type_fields(column, net_type),
            pack.string_field(E.prop(column, "Name")),
            pack.string_field(as_python_str(E.prop(column, "HeaderText"))),
            pack.false(),  # no access key
            pack.bool_field(
                Expression.AndAlso(
                    Expression.AndAlso(E.prop(grid, "Visible"), E.prop(column, "Visible")),
                    Expression.AndAlso(E.prop(column, "Displayed"), E.prop(grid, "ColumnHeadersVisible")),
                )
            ),
            pack.bool_field(E.prop(grid, "Enabled")),
            pack.false(),  # a header is never focused
            pack.null(),  # nor checked
            pack.zero(),  # no children
            Expression.Assign(f.is_rich, E.is_type(column, bridge.DERIVED_INTERFACE)),
            f.rich_field(column),
            pack.bool_field(E.prop(column, "Selected")),
            pack.null(),  # expanded: a column has nothing to expand
        )

    def _current_on(self, grid: Any, row_index: Any, column_index: Any | None = None) -> Any:
        """Whether the grid's current cell is on the row (and column) given, in a focused grid."""
        current = E.variable(WF.types.DataGridViewCell, "currentCell")
        on = Expression.Equal(E.prop(current, "RowIndex"), row_index)
        if column_index is not None:
            on = Expression.AndAlso(on, Expression.Equal(E.prop(current, "ColumnIndex"), column_index))
        return E.block(
            [current],
            E.assign(current, E.prop(grid, "CurrentCell")),
            Expression.AndAlso(
                Expression.AndAlso(Expression.ReferenceNotEqual(current, E.null(WF.types.DataGridViewCell)), on),
                E.prop(grid, "Focused"),
            ),
        )

    def _cell_text(self, cell: Any) -> Any:
        """``grids.cell_text``: the cell's FormattedValue as ``str()`` shows it, or null."""
        value = E.variable(object, "formatted")
        return E.block(
            [value],
            E.assign(value, E.prop(cell, "FormattedValue")),
            E.condition(
                Expression.ReferenceEqual(value, E.null(Object)), E.null(String), python_str(value, self.unsure), String
            ),
        )

    def _row_text(self, grid: Any, row: Any) -> Any:
        """``GridRow.text``: the visible cells' texts in display order, joined; null when only separators."""
        f = self.f
        columns = E.variable(_column_list(), "textColumns")
        column = E.variable(WF.types.DataGridViewColumn, "textColumn")
        i = E.variable(int, "textAt")
        sb = E.variable(StringBuilder, "rowText")
        first = E.variable(bool, "firstText")
        part = E.variable(String, "cellText")
        joined = E.variable(String, "joined")
        cell = E.call(
            E.prop(row, "Cells"),
            E.method(WF.types.DataGridViewCellCollection, "get_Item", int),
            E.prop(column, "Index"),
        )
        append = E.method(StringBuilder, "Append", String)
        trim = E.method(String, "Trim", E.array_of(Char))
        stripped = E.const(Array[Char](list(_STRIPPED)), E.array_of(Char))
        return E.block(
            [columns, column, i, sb, first, part, joined],
            E.assign(columns, self._ordered(grid)),
            E.assign(sb, E.new(StringBuilder)),
            E.assign(first, E.const(True, bool)),
            E.for_range(
                i,
                E.prop(columns, "Count"),
                E.block(
                    [],
                    E.assign(column, E.call(columns, E.method(_column_list(), "get_Item", int), i)),
                    Expression.IfThen(
                        E.prop(column, "Visible"),
                        f.pack.void(
                            Expression.IfThen(
                                Expression.Not(first), E.call(sb, append, E.const(ROW_TEXT_SEPARATOR, str))
                            ),
                            E.assign(first, E.const(False, bool)),
                            E.assign(part, self._cell_text(cell)),
                            Expression.IfThen(
                                Expression.ReferenceNotEqual(part, E.null(String)), E.call(sb, append, part)
                            ),
                        ),
                    ),
                ),
            ),
            E.assign(joined, E.call(sb, E.method(StringBuilder, "ToString"))),
            E.condition(
                Expression.Equal(E.prop(E.call(joined, trim, stripped), "Length"), f.first),
                E.null(String),
                joined,
                String,
            ),
        )

    def _row_record(self) -> Any:
        f, pack = self.f, self.f.pack
        void = pack.void
        grid = E.convert(f.c, WF.types.DataGridView)
        row = E.variable(WF.types.DataGridViewRow, "gridRow")
        net_type = E.variable(NetType, "gridRowType")
        columns = E.variable(_column_list(), "cellColumns")
        cells = E.variable(_cell_list(), "rowCells")
        column = E.call(columns, E.method(_column_list(), "get_Item", int), f.k)
        cell_of = E.call(
            E.prop(row, "Cells"),
            E.method(WF.types.DataGridViewCellCollection, "get_Item", int),
            E.prop(column, "Index"),
        )
        cell = E.call(cells, E.method(_cell_list(), "get_Item", int), f.k)
        return E.block(
            [row, net_type, columns, cells],
            E.assign(row, E.convert(f.queued_node(), WF.types.DataGridViewRow)),
            E.assign(self.unsure, E.const(False, bool)),
            f.position(),
            f.id_field(row),
            self._type_fields(row, net_type),
            pack.null(),  # Name: a row has none (a type with one is left to the engine, below)
            pack.string_field(self._row_text(grid, row)),
            pack.false(),  # no access key
            pack.bool_field(
                Expression.AndAlso(
                    Expression.AndAlso(E.prop(grid, "Visible"), E.prop(row, "Visible")), E.prop(row, "Displayed")
                )
            ),
            pack.bool_field(E.prop(grid, "Enabled")),
            pack.bool_field(self._current_on(grid, E.prop(row, "Index"))),
            pack.null(),  # a row is not checked
            # Its cells: one per column in display order, hidden ones too; listed whole or not at all.
            E.assign(cells, E.new(_cell_list())),
            pack.guarded(
                void(
                    E.assign(columns, self._ordered(grid)),
                    E.for_range(
                        f.k,
                        E.prop(columns, "Count"),
                        E.call(cells, E.method(_cell_list(), "Add", WF.types.DataGridViewCell), cell_of),
                    ),
                    pack.int_field(E.prop(cells, "Count")),
                )
            ),
            Expression.Assign(f.is_rich, self._odd(row, net_type)),
            f.rich_field(row),
            pack.bool_field(E.prop(row, "Selected")),
            pack.null(),  # expanded: a row has nothing to expand
            Expression.IfThen(
                Expression.AndAlso(Expression.Not(f.is_rich), Expression.LessThan(f.depth, f.max_depth)),
                E.for_range(f.k, E.prop(cells, "Count"), f.below_cap(f.enqueue_node(cell))),
            ),
        )

    def _cell_checked(self, cell: Any) -> Any:
        """``grids.cell_checked`` written as the field: null for an indeterminate CheckState."""
        pack = self.f.pack
        void = pack.void
        value = E.variable(object, "cellValue")
        shown = E.variable(String, "valueText")
        check = E.convert(value, WF.types.CheckState)
        lower = E.call(shown, E.method(String, "ToLowerInvariant"))
        yes = any_of([Expression.Equal(lower, E.const(s, str)) for s in ("true", "1", "checked")])
        return E.block(
            [value, shown],
            E.assign(value, E.prop(cell, "Value")),
            Expression.IfThenElse(
                Expression.OrElse(Expression.ReferenceEqual(value, E.null(Object)), E.is_type(value, DBNull)),
                void(pack.false()),
                Expression.IfThenElse(
                    E.is_type(value, Boolean),
                    void(pack.flag(E.convert(value, Boolean))),
                    Expression.IfThenElse(
                        E.is_type(value, WF.types.CheckState),
                        Expression.IfThenElse(
                            Expression.Equal(check, E.enum_member(WF.types.CheckState, "Indeterminate")),
                            void(pack.null()),
                            void(pack.flag(Expression.Equal(check, E.enum_member(WF.types.CheckState, "Checked")))),
                        ),
                        void(
                            E.assign(shown, python_str(value, self.unsure)),
                            pack.flag(Expression.AndAlso(Expression.ReferenceNotEqual(shown, E.null(String)), yes)),
                        ),
                    ),
                ),
            ),
        )

    def _cell_record(self) -> Any:
        f, pack = self.f, self.f.pack
        void = pack.void
        grid = E.convert(f.c, WF.types.DataGridView)
        cell = E.variable(WF.types.DataGridViewCell, "gridCell")
        net_type = E.variable(NetType, "gridCellType")
        is_check = E.is_type(cell, WF.types.DataGridViewCheckBoxCell)
        # ``_cell_displayed``: its row and its column displayed (Mono never sets a cell's own Displayed).
        displayed = Expression.AndAlso(
            E.prop(E.prop(cell, "OwningRow"), "Displayed"), E.prop(E.prop(cell, "OwningColumn"), "Displayed")
        )
        return E.block(
            [cell, net_type],
            E.assign(cell, E.convert(f.queued_node(), WF.types.DataGridViewCell)),
            E.assign(self.unsure, E.const(False, bool)),
            f.position(),
            f.id_field(cell),
            self._type_fields(cell, net_type),
            pack.null(),  # Name: a cell has none (a type with one is left to the engine, below)
            Expression.IfThenElse(is_check, void(pack.null()), pack.string_field(self._cell_text(cell))),
            pack.false(),  # no access key
            pack.bool_field(
                Expression.AndAlso(Expression.AndAlso(E.prop(grid, "Visible"), E.prop(cell, "Visible")), displayed)
            ),
            pack.bool_field(E.prop(grid, "Enabled")),
            pack.bool_field(self._current_on(grid, E.prop(cell, "RowIndex"), E.prop(cell, "ColumnIndex"))),
            pack.guarded(Expression.IfThenElse(is_check, self._cell_checked(cell), void(pack.null()))),
            pack.zero(),  # no children
            Expression.Assign(f.is_rich, self._odd(cell, net_type)),
            f.rich_field(cell),
            pack.bool_field(E.prop(cell, "Selected")),
            pack.null(),  # expanded: a cell has nothing to expand
        )
