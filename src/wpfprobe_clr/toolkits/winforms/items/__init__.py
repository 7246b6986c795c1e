"""Items as elements: what a user sees and picks inside a control, in the tree and under input.

SPEC section 8. The adapter's modules ask here through a few hooks, so each
of them stays about its own concern:

- ``tree``: ``item_of`` (the kind of a pure item: its children, parent, naming,
  state, bounds, liveness), ``control_children`` (what a control shows beyond
  its Controls: its items, its context menus), ``detached_parent`` (the control
  a context menu belongs to), ``refine_state`` (a menu item's check mark and
  drop-down, a tab page's selection), ``child_total``;
- ``properties``: ``text_fact`` and ``facts`` (an item's text and the
  properties TypeDescriptor cannot list);
- ``blockers`` and ``actions``: ``actor_of`` (pure items and tab pages: their
  owner, what they support, their click point, click/select/toggle/typing).

One module per family of items, lowest first:

- ``base``: the ``Item`` base class, facts, geometry, protected members
- ``lists``: ListBox, CheckedListBox and ComboBox items (``ItemRef``: plain values)
- ``listview``: ListView columns, items and their cells
- ``trees``: TreeView nodes, and selecting a node by its path
- ``grids``: DataGridView columns, the rows in view and their cells
- ``tabs``: TabControl pages, selected by their tab
- ``menus``: context menus, menu items' check marks, old-style menus (MainMenu/MenuItem)

The kind of an element is decided once per Python type (isinstance on a .NET
type is slow; the tree asks for every node), an ``ItemRef`` by its owner's type.
"""

from __future__ import annotations

from typing import Any

from wpfprobe.core.protocol import ElementState, ItemRef
from wpfprobe_clr.net.lazy import clr_namespace, is_instance
from wpfprobe_clr.toolkits.winforms.items import grids, lists, listview, menus, tabs, trees
from wpfprobe_clr.toolkits.winforms.items.base import FACT_SOURCE, Fact, Item
from wpfprobe_clr.toolkits.winforms.kinds import is_menu

WF = clr_namespace("System.Windows.Forms")

__all__ = [
    "FACT_SOURCE",
    "Fact",
    "Item",
    "actor_of",
    "child_total",
    "control_children",
    "detached_parent",
    "item_of",
    "owner_form",
    "refine_state",
]

_TREE_NODE = trees.TreeNodeItem()
_LIST_VIEW_ROW = listview.ListViewRow()
_LIST_VIEW_CELL = listview.ListViewCell()
_LIST_VIEW_VIRTUAL_ROW = listview.VirtualRow()
_LIST_VIEW_COLUMN = listview.ListViewColumn()
_GRID_COLUMN = grids.GridColumn()
_GRID_ROW = grids.GridRow()
_GRID_CELL = grids.GridCell()
_TAB = tabs.TabItem()
_VALUE_KINDS: dict[str, Item] = {}

_MISSING = object()
#: Python type -> the Item kind of its objects (None: not a pure item).
_items: dict[type, Item | None] = {}
#: Python type of an ItemRef's owner -> the Item kind of its refs.
_ref_items: dict[type, Item | None] = {}
#: Python type of a control -> what it lists beyond its Controls: "values", "listview", "tree", "grid" or None.
_containers: dict[type, str | None] = {}
#: Python type -> how its state is refined: "tool-strip", "tab", "legacy" or None.
_refiners: dict[type, str | None] = {}


def item_of(element: Any) -> Item | None:
    """The kind of a pure item (an object that is not a control, tool strip item or menu), else None."""
    if isinstance(element, ItemRef):
        key = type(element.owner)
        kind = _ref_items.get(key, _MISSING)
        if kind is _MISSING:
            kind = _decide_ref(element.owner)
            _ref_items[key] = kind
        return kind  # type: ignore[return-value]
    key = type(element)
    kind = _items.get(key, _MISSING)
    if kind is _MISSING:
        kind = _decide(element)
        _items[key] = kind
    return kind  # type: ignore[return-value]


def _decide(element: Any) -> Item | None:
    if is_instance(element, WF.types.TreeNode):
        return _TREE_NODE
    if is_instance(element, WF.types.ListViewItem):
        return _LIST_VIEW_ROW
    if is_instance(element, WF.types.ColumnHeader):
        return _LIST_VIEW_COLUMN
    if is_instance(element, WF.types.DataGridViewColumn):
        return _GRID_COLUMN
    if is_instance(element, WF.types.DataGridViewRow):
        return _GRID_ROW
    if is_instance(element, WF.types.DataGridViewCell):
        return _GRID_CELL
    return None


def _decide_ref(owner: Any) -> Item | None:
    if is_instance(owner, (WF.types.ListViewItem, ItemRef)):
        return _LIST_VIEW_CELL  # a cell of a row (a virtual list's row is itself a ref)
    if is_instance(owner, WF.types.ListView):
        return _LIST_VIEW_VIRTUAL_ROW
    kind = lists.item_kind_for(owner)
    if kind is None:
        return None
    # One instance per kind class, shared by every owner type of that kind.
    return _VALUE_KINDS.setdefault(type(kind).__name__, kind)


def actor_of(element: Any) -> Item | None:
    """What takes input for an element the way an item does: a pure item, or a tab page (by its tab)."""
    kind = item_of(element)
    if kind is not None:
        return kind
    if _refiner(element) == "tab" and tabs.is_tab_page(element):
        return _TAB
    return None


# -- the tree -------------------------------------------------------------------


def control_children(control: Any) -> list[Any]:
    """What a control shows beyond its Controls: its items, then its context menus."""
    kind = _container(control)
    found: list[Any]
    if kind == "values":
        found = lists.value_items(control)
    elif kind == "listview":
        found = listview.children_of(control)
    elif kind == "tree":
        found = list(control.Nodes)
    elif kind == "grid":
        found = grids.children_of(control)
    else:
        found = []
    menus_of = menus.context_menus(control)
    return found + menus_of if menus_of else found


def _container(control: Any) -> str | None:
    key = type(control)
    kind = _containers.get(key, _MISSING)
    if kind is _MISSING:
        kind = _decide_container(control)
        _containers[key] = kind
    return kind  # type: ignore[return-value]


def _decide_container(control: Any) -> str | None:
    if lists.item_kind_for(control) is not None:
        return "values"
    if is_instance(control, WF.types.ListView):
        return "listview"
    if is_instance(control, WF.types.TreeView):
        return "tree"
    if is_instance(control, WF.types.DataGridView):
        return "grid"
    return None


def child_total(element: Any) -> int | None:
    """All children of a control that lists only some (a grid's rows in view), else None."""
    if isinstance(element, ItemRef):
        return None
    kind = _container(element)
    if kind == "grid":
        return len(element.Controls) + grids.child_total(element) + _menu_count(element)
    if kind == "listview":
        total = listview.child_total(element)
        return None if total is None else len(element.Controls) + total + _menu_count(element)
    return None


def _menu_count(control: Any) -> int:
    return len(menus.context_menus(control))


def detached_parent(element: Any) -> Any | None:
    """The parent of an element WinForms gives none: a context menu's control."""
    return menus.menu_owner(element) if menus.is_context_menu(element) else None


def refine_state(element: Any, base: ElementState) -> ElementState:
    """A control's or menu item's state with what it shows as an item: check marks, drop-downs, selection."""
    how = _refiner(element)
    if how == "tool-strip":
        return menus.tool_strip_state(element, base)
    if how == "tab" and tabs.is_tab_page(element):
        return _TAB.state(element)
    if how == "legacy":
        return menus.legacy_state(element)
    return base


def _refiner(element: Any) -> str | None:
    key = type(element)
    how = _refiners.get(key, _MISSING)
    if how is _MISSING:
        if is_instance(element, WF.types.ToolStripItem):
            how = "tool-strip"
        elif is_instance(element, WF.types.TabPage):
            how = "tab"
        elif is_menu(element):
            how = "legacy"
        else:
            how = None
        _refiners[key] = how
    return how  # type: ignore[return-value]


def owner_form(element: Any) -> Any | None:
    """The form an item (or an old-style menu item) is shown on."""
    if is_menu(element):
        return menus.legacy_form(element)
    kind = actor_of(element)
    if kind is None:
        return None
    owner = kind.owner(element)
    return owner.FindForm() if owner is not None else None
