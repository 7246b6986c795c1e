"""Items in the .NET walk: list box, checked list box and combo box values, and tree nodes, read as records in .NET.

A list of thousands of items was the slow part of a walked snapshot: every
item was read the engine's way (a dozen pythonnet calls each, ~85 us). The
walk queues a list's items, and a tree view's nodes, after the control's own
children and writes one record per item.

A value item is read as ``items/lists.py`` reads it:

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

A tree node is read as ``items/trees.py`` reads it: an object of its own (its
id the registry's, its type and Name its own), its Text, visible while its
tree is and it is (``IsVisible``), enabled as its tree, selected, focused
when selected in a focused tree, checked in a tree with check boxes,
expanded when it has children; its children are its Nodes, expanded or not,
queued after it. A node of a class written in Python is rich.

The record is written with the walk's frame (``toolkits/_walk_frame.py``),
as the walker writes a control's. The Python path stays
the oracle: ``tests/integration/test_walker_live.py`` compares the two on the
widget zoo's lists (plain, checked, owner-drawn, combo boxes).
"""

from __future__ import annotations

from typing import Any

from System import Exception as NetException
from System import Int32, Object
from System import Type as NetType
from System.Collections.Generic import List
from System.Linq.Expressions import Expression

from wpfprobe_clr.net import bridge
from wpfprobe_clr.net import expr as E
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits._walk_frame import WalkFrame
from wpfprobe_clr.toolkits.winforms.items.lists import CheckedListItem, ComboItem, ValueItem

Drawing = clr_namespace("System.Drawing")
WF = clr_namespace("System.Windows.Forms")

__all__ = [
    "enqueue_tree_nodes",
    "is_value_owner",
    "tree_node_count",
    "tree_node_record",
    "value_count",
    "value_item_record",
    "value_item_roles",
]


#: A value item's role (its type names), by its owner's type, most derived first: ``items.lists.item_kind_for``.
def value_item_roles() -> tuple[tuple[Any, tuple[str, str]], ...]:
    return tuple(
        (owner, kind.role)
        for owner, kind in (
            (WF.types.CheckedListBox, CheckedListItem),
            (WF.types.ListBox, ValueItem),
            (WF.types.ComboBox, ComboItem),
        )
        if kind.role is not None
    )


def is_value_owner(c: Any) -> Any:
    """Whether the control ``c`` lists value items (``items.lists.item_kind_for``)."""
    return Expression.OrElse(E.is_type(c, WF.types.ListBox), E.is_type(c, WF.types.ComboBox))


def value_count(c: Any) -> Any:
    """How many value items the owner ``c`` holds (``is_value_owner``)."""
    return E.condition(
        E.is_type(c, WF.types.ListBox),
        E.prop(E.prop(E.convert(c, WF.types.ListBox), "Items"), "Count"),
        E.prop(E.prop(E.convert(c, WF.types.ComboBox), "Items"), "Count"),
        int,
    )


def value_item_record(f: WalkFrame) -> Any:
    """The record of the queued item the frame is at (its owner is ``f.c``), as the walker writes a control's."""
    pack, owner = f.pack, f.c
    i = E.variable(int, "item")
    void = pack.void
    is_list = E.is_type(owner, WF.types.ListBox)
    as_list = E.convert(owner, WF.types.ListBox)
    as_combo = E.convert(owner, WF.types.ComboBox)
    as_lc = E.convert(owner, WF.types.ListControl)
    value = E.condition(
        is_list,
        E.call(
            E.prop(as_list, "Items"), E.method(WF.types.ListBox.GetNestedType("ObjectCollection"), "get_Item", int), i
        ),
        E.call(
            E.prop(as_combo, "Items"), E.method(WF.types.ComboBox.GetNestedType("ObjectCollection"), "get_Item", int), i
        ),
        object,
    )
    selected_index = E.prop(as_lc, "SelectedIndex")
    selected = E.condition(
        Expression.AndAlso(
            is_list,
            Expression.NotEqual(E.prop(as_list, "SelectionMode"), E.enum_member(WF.types.SelectionMode, "One")),
        ),
        E.call(as_list, E.method(WF.types.ListBox, "GetSelected", int), i),
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
                Expression.Equal(E.prop(as_list, "DrawMode"), E.enum_member(WF.types.DrawMode, "OwnerDrawVariable")),
            ),
            E.call(
                E.prop(as_list, "ClientRectangle"),
                E.method(Drawing.Rectangle, "IntersectsWith", Drawing.Rectangle),
                E.call(as_list, E.method(WF.types.ListBox, "GetItemRectangle", int), i),
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
    check = E.call(
        E.convert(owner, WF.types.CheckedListBox), E.method(WF.types.CheckedListBox, "GetItemCheckState", int), i
    )
    checked = Expression.IfThenElse(
        E.is_type(owner, WF.types.CheckedListBox),
        Expression.IfThenElse(
            Expression.Equal(check, E.enum_member(WF.types.CheckState, "Indeterminate")),
            void(pack.null()),
            void(pack.flag(Expression.Equal(check, E.enum_member(WF.types.CheckState, "Checked")))),
        ),
        void(pack.null()),
    )

    def role(part: int) -> Any:
        found = E.const(value_item_roles()[-1][1][part], str)
        for owner_type, names in reversed(value_item_roles()[:-1]):
            found = E.condition(E.is_type(owner, owner_type), E.const(names[part], str), found, str)
        return found

    return E.block(
        [i],
        E.assign(i, E.call(f.item_of, E.method(List[Int32], "get_Item", int), f.index)),
        f.position(),
        f.item_id_field(i),
        pack.type_field(role(1), role(0), role(1)),
        pack.null(),  # Name: an item has none
        pack.string_field(E.call(as_lc, E.method(WF.types.ListControl, "GetItemText", object), value)),
        pack.false(),  # no access key
        pack.bool_field(Expression.AndAlso(E.prop(owner, "Visible"), in_view)),
        pack.bool_field(E.prop(owner, "Enabled")),
        pack.bool_field(
            Expression.AndAlso(
                Expression.AndAlso(selected, E.prop(owner, "Focused")), Expression.Equal(selected_index, i)
            )
        ),
        pack.guarded(void(checked)),
        pack.zero(),  # no children
        pack.false(),  # never rich
        pack.bool_field(selected),
        pack.null(),  # expanded: a list item has nothing to expand
    )


def tree_node_record(f: WalkFrame) -> Any:
    """The record of the queued tree node the frame is at (its TreeView is ``f.c``), as ``items/trees.py`` reads it.

    A node is an object of its own: its id is the registry's, its type its
    own, and its children (its Nodes, expanded or not) are queued after it.
    """
    pack = f.pack
    void = pack.void
    node = E.variable(WF.types.TreeNode, "node")
    net_type = E.variable(NetType, "nodeType")
    tree = E.convert(f.c, WF.types.TreeView)
    nodes = E.prop(node, "Nodes")
    child = E.call(nodes, E.method(WF.types.TreeNodeCollection, "get_Item", int), f.k)
    count = E.variable(int, "nodeCount")
    return E.block(
        [node, net_type, count],
        E.assign(node, E.convert(f.queued_node(), WF.types.TreeNode)),
        f.position(),
        f.id_field(node),
        E.assign(net_type, E.call(E.convert(node, object), E.method(Object, "GetType"))),
        pack.type_field(
            net_type, E.prop(net_type, "Name"), Expression.Coalesce(E.prop(net_type, "FullName"), E.const("", str))
        ),
        pack.string_field(E.prop(node, "Name")),
        pack.string_field(E.prop(node, "Text")),
        pack.false(),  # no access key
        pack.bool_field(Expression.AndAlso(E.prop(tree, "Visible"), E.prop(node, "IsVisible"))),
        pack.bool_field(E.prop(tree, "Enabled")),
        pack.bool_field(Expression.AndAlso(E.prop(node, "IsSelected"), E.prop(tree, "Focused"))),
        pack.guarded(
            Expression.IfThenElse(
                E.prop(tree, "CheckBoxes"), void(pack.flag(E.prop(node, "Checked"))), void(pack.null())
            )
        ),
        pack.guarded(void(E.assign(count, E.prop(nodes, "Count")), pack.int_field(count))),
        # A node of a class written in Python: its members are read the engine's way.
        Expression.Assign(f.is_rich, E.is_type(node, bridge.DERIVED_INTERFACE)),
        f.rich_field(node),
        pack.bool_field(E.prop(node, "IsSelected")),
        pack.guarded(
            Expression.IfThenElse(
                Expression.GreaterThan(E.prop(nodes, "Count"), E.const(0, int)),
                void(pack.flag(E.prop(node, "IsExpanded"))),
                void(pack.null()),
            )
        ),
        # Its children, expanded or not (a Nodes that threw was a children fault above: none queued).
        E.try_catch(
            Expression.IfThen(
                Expression.LessThan(f.depth, f.max_depth),
                E.for_range(f.k, E.prop(nodes, "Count"), f.below_cap(f.enqueue_node(child))),
            ),
            NetException,
            "ex",
            lambda _ex: Expression.Empty(),
        ),
    )


def tree_node_count(c: Any) -> Any:
    """How many top-level nodes the TreeView ``c`` holds."""
    return E.prop(E.prop(E.convert(c, WF.types.TreeView), "Nodes"), "Count")


def enqueue_tree_nodes(f: WalkFrame, count: Any) -> Any:
    """Queue the TreeView's (``f.c``'s) first ``count`` top-level nodes, after its controls."""
    nodes = E.prop(E.convert(f.c, WF.types.TreeView), "Nodes")
    child = E.call(nodes, E.method(WF.types.TreeNodeCollection, "get_Item", int), f.k)
    return E.for_range(f.k, count, f.below_cap(f.enqueue_node(child)))
