"""The .NET walk's value items: a ListBox's, CheckedListBox's or ComboBox's items, read as records in .NET.

A list of thousands of items was the slow part of a walked snapshot: every
item was read the engine's way (a dozen pythonnet calls each, ~85 us). The
walk now queues a list's items after its child controls and writes one
record per item, reading what ``items/lists.py`` reads, the same way:

- its id: the owner's id, a dot and the index (``_objects``: an ``ItemRef``);
- its type: the item kind's role (``ValueItem.role`` and its subclasses);
- its text: the owner's ``GetItemText`` of the item;
- its state: visible while the owner is and the item is in view (a list's rows
  from TopIndex down, or the item's rectangle in a multi-column or variable
  owner-drawn list; a combo box's items while it is dropped down), enabled as
  the owner, selected (SelectedIndex, or GetSelected in a multi-selection
  list), focused when selected in a focused owner at SelectedIndex, and a
  checked list's check (indeterminate: ``n``);
- no children, never rich.

The record is written with the walk's frame (``toolkits/_walk_frame.py``),
as the walker writes a control's. The Python path stays
the oracle: ``tests/integration/test_walker_live.py`` compares the two on the
widget zoo's lists (plain, checked, owner-drawn, combo boxes).
"""

from __future__ import annotations

from typing import Any

from System import Int32
from System.Collections.Generic import List
from System.Drawing import Rectangle
from System.Linq.Expressions import Expression
from System.Windows.Forms import CheckedListBox, CheckState, ComboBox, DrawMode, ListBox, ListControl, SelectionMode

from wpfprobe_clr.net import expr as E
from wpfprobe_clr.toolkits._walk_frame import WalkFrame
from wpfprobe_clr.toolkits.winforms.items.lists import CheckedListItem, ComboItem, ValueItem

__all__ = ["VALUE_ITEM_ROLES", "is_value_owner", "value_count", "value_item_record"]

#: A value item's role (its type names), by its owner's type, most derived first: ``items.lists.item_kind_for``.
VALUE_ITEM_ROLES: tuple[tuple[Any, tuple[str, str]], ...] = tuple(
    (owner, kind.role) for owner, kind in ((CheckedListBox, CheckedListItem), (ListBox, ValueItem), (ComboBox, ComboItem))
    if kind.role is not None
)  # fmt: skip


def is_value_owner(c: Any) -> Any:
    """Whether the control ``c`` lists value items (``items.lists.item_kind_for``)."""
    return Expression.OrElse(E.is_type(c, ListBox), E.is_type(c, ComboBox))


def value_count(c: Any) -> Any:
    """How many value items the owner ``c`` holds (``is_value_owner``)."""
    return E.condition(
        E.is_type(c, ListBox),
        E.prop(E.prop(E.convert(c, ListBox), "Items"), "Count"),
        E.prop(E.prop(E.convert(c, ComboBox), "Items"), "Count"),
        int,
    )


def _enum(value: Any, kind: Any) -> Any:
    return E.convert(E.const(int(value), int), kind)


def value_item_record(f: WalkFrame) -> Any:
    """The record of the queued item the frame is at (its owner is ``f.c``), as the walker writes a control's."""
    pack, owner = f.pack, f.c
    i = E.variable(int, "item")
    text, void = pack.text, pack.void
    is_list = E.is_type(owner, ListBox)
    as_list = E.convert(owner, ListBox)
    as_combo = E.convert(owner, ComboBox)
    as_lc = E.convert(owner, ListControl)
    value = E.condition(
        is_list,
        E.call(E.prop(as_list, "Items"), E.method(ListBox.ObjectCollection, "get_Item", int), i),
        E.call(E.prop(as_combo, "Items"), E.method(ComboBox.ObjectCollection, "get_Item", int), i),
        object,
    )
    selected_index = E.prop(as_lc, "SelectedIndex")
    selected = E.condition(
        Expression.AndAlso(
            is_list, Expression.NotEqual(E.prop(as_list, "SelectionMode"), _enum(SelectionMode.One, SelectionMode))
        ),
        E.call(as_list, E.method(ListBox, "GetSelected", int), i),
        Expression.Equal(selected_index, i),
        bool,
    )
    # A list's rows of one height from TopIndex down; by rectangle where rows are not that simple.
    row = Expression.Subtract(i, E.prop(as_list, "TopIndex"))
    list_in_view = Expression.AndAlso(
        E.prop(as_list, "IsHandleCreated"),
        E.condition(
            Expression.OrElse(
                E.prop(as_list, "MultiColumn"),
                Expression.Equal(E.prop(as_list, "DrawMode"), _enum(DrawMode.OwnerDrawVariable, DrawMode)),
            ),
            E.call(
                E.prop(as_list, "ClientRectangle"),
                E.method(Rectangle, "IntersectsWith", Rectangle),
                E.call(as_list, E.method(ListBox, "GetItemRectangle", int), i),
            ),
            Expression.AndAlso(
                Expression.GreaterThanOrEqual(row, E.const(0, int)),
                Expression.LessThan(
                    Expression.Multiply(row, E.prop(as_list, "ItemHeight")),
                    E.prop(E.prop(as_list, "ClientSize"), "Height"),
                ),
            ),
            bool,
        ),
    )
    in_view = E.condition(is_list, list_in_view, E.prop(as_combo, "DroppedDown"), bool)
    check = E.call(E.convert(owner, CheckedListBox), E.method(CheckedListBox, "GetItemCheckState", int), i)
    checked = Expression.IfThenElse(
        E.is_type(owner, CheckedListBox),
        Expression.IfThenElse(
            Expression.Equal(check, _enum(CheckState.Indeterminate, CheckState)),
            void(text("n")),
            void(pack.flag(Expression.Equal(check, _enum(CheckState.Checked, CheckState)))),
        ),
        void(text("n")),
    )

    def role(part: int) -> Any:
        found = E.const(VALUE_ITEM_ROLES[-1][1][part], str)
        for owner_type, names in reversed(VALUE_ITEM_ROLES[:-1]):
            found = E.condition(E.is_type(owner, owner_type), E.const(names[part], str), found, str)
        return found

    return E.block(
        [i],
        E.assign(i, E.call(f.item_of, E.method(List[Int32], "get_Item", int), f.index)),
        f.position(),
        f.item_id_field(i),
        text("s"),
        pack.counted(role(0)),
        text("s"),
        pack.counted(role(1)),
        text("n"),  # Name: an item has none
        pack.string_field(E.call(as_lc, E.method(ListControl, "GetItemText", object), value)),
        text("b0"),  # no access key
        pack.bool_field(Expression.AndAlso(E.prop(owner, "Visible"), in_view)),
        pack.bool_field(E.prop(owner, "Enabled")),
        pack.bool_field(
            Expression.AndAlso(
                Expression.AndAlso(selected, E.prop(owner, "Focused")), Expression.Equal(selected_index, i)
            )
        ),
        pack.guarded(void(checked)),
        text("i0;"),  # no children
        text("b0"),  # never rich
        pack.bool_field(selected),
    )
