"""An element's place in the tree and the basic facts every node reads: naming, state, bounds.

WinForms has one tree, whether asked as visual or logical: a Form's controls
(its MainMenu first, where it has one), a ToolStrip's items, a drop-down item's
items, an old-style Menu's items. The same facts are read for every node of
every walk, so this is the hot path: each read here is one getter, or a cache.
Screen geometry lives here too: bounds, the centre a click lands on, the form
an element is on, and the memoised parent origin a walk reads bounds from
(each screen read is an X11 round trip on Mono).
"""

from __future__ import annotations

from typing import Any, cast

from System import Object
from System.Drawing import Point
from System.Windows.Forms import (
    Application,
    Control,
    Form,
    ToolStrip,
    ToolStripDropDownItem,
    ToolStripItem,
)

from wpfprobe.core.protocol import Bounds, ElementState, Naming
from wpfprobe_clr.toolkits.winforms import items
from wpfprobe_clr.toolkits.winforms.kinds import is_menu


class TypeNames:
    """Each Python type's .NET short and full name, read from GetType once per type."""

    def __init__(self) -> None:
        self._names: dict[type, tuple[str, str]] = {}

    def of(self, element: Any) -> tuple[str, str]:
        key = type(element)
        names = self._names.get(key)
        if names is None:
            net_type = element.GetType()
            names = (str(net_type.Name), str(net_type.FullName))
            self._names[key] = names
        return names


def roots(main: Any | None) -> list[Any]:
    """The open forms, the app's main form first."""
    forms = [f for f in Application.OpenForms if not f.IsDisposed]
    ordered = []
    if main is not None and not main.IsDisposed:
        ordered.append(main)
    ordered.extend(f for f in forms if main is None or not Object.ReferenceEquals(f, main))
    return ordered


def children(element: Any) -> list[Any]:
    item = items.item_of(element)
    if item is not None:
        return item.children(element)
    if isinstance(element, ToolStrip):
        return list(element.Items)
    if isinstance(element, Control):
        kids = list(element.Controls)
        menu = getattr(element, "Menu", None) if isinstance(element, Form) else None
        kids = [menu, *kids] if menu is not None else kids
        return kids + items.control_children(element)  # its items and context menus
    if isinstance(element, ToolStripDropDownItem):
        # Reading DropDownItems creates the drop-down; ask first.
        return list(element.DropDownItems) if element.HasDropDownItems else []
    if is_menu(element):
        return list(element.MenuItems)
    return []


def parent(element: Any) -> Any | None:
    item = items.item_of(element)
    if item is not None:
        return item.parent(element)
    if isinstance(element, Control):
        return element.Parent if element.Parent is not None else items.detached_parent(element)
    if isinstance(element, ToolStripItem):
        return element.OwnerItem if element.OwnerItem is not None else element.Owner
    if is_menu(element):
        parent = getattr(element, "Parent", None)
        if parent is not None:
            return parent
        get_form = getattr(element, "GetForm", None)
        return get_form() if get_form is not None else items.detached_parent(element)
    return None


def is_alive(element: Any) -> bool:
    item = items.item_of(element)
    if item is not None:
        return item.is_alive(element)
    disposed = getattr(element, "IsDisposed", None)
    return not bool(disposed) if disposed is not None else True


def naming(element: Any, type_names: TypeNames) -> Naming:
    item = items.item_of(element)
    if item is not None:
        return item.naming(element, type_names)
    short, full = type_names.of(element)
    name = getattr(element, "Name", None)
    return Naming(short, full, str(name) if name else None, None)


def describe_element(element: Any) -> str:
    """How a message names an element: its type, and its Name when it has one."""
    item = items.item_of(element)
    if item is not None:
        return item.describe(element)
    name = getattr(element, "Name", None)
    kind = type(element).__name__
    return f"{kind}#{name}" if name else kind


def state(element: Any) -> ElementState:
    item = items.item_of(element)
    if item is not None:
        return item.state(element)
    if isinstance(element, Control):
        found = ElementState(bool(element.Visible), bool(element.Enabled), bool(element.Focused))
    elif isinstance(element, ToolStripItem):
        found = ElementState(bool(element.Visible), bool(element.Enabled), bool(element.Selected))
    else:
        visible = getattr(element, "Visible", True)
        enabled = getattr(element, "Enabled", True)
        found = ElementState(bool(visible), bool(enabled), False)
    return items.refine_state(element, found)  # check marks, drop-downs, a tab's selection


def is_active_window(element: Any) -> bool:
    active = Form.ActiveForm
    return active is not None and bool(Object.ReferenceEquals(active, element))


def form_of(element: Any) -> Any | None:
    """The form an element is on, through the tool strip a menu item belongs to."""
    if isinstance(element, ToolStripItem):
        owner = element
        while isinstance(owner, ToolStripItem) and owner.OwnerItem is not None:
            owner = owner.OwnerItem
        strip = owner.Owner if isinstance(owner, ToolStripItem) else None
        if strip is None:
            return None
        host = strip if strip.Parent is not None else items.detached_parent(strip) or strip  # a context menu
        return host.FindForm()
    if isinstance(element, Form):
        return element
    if isinstance(element, Control):
        return element.FindForm()
    return items.owner_form(element)


# -- screen geometry ---------------------------------------------------------


def bounds(element: Any) -> Bounds | None:
    item = items.item_of(element)
    if item is not None:
        return item.bounds(element)
    if isinstance(element, Control):
        if element.Parent is None:
            r = element.Bounds
        elif element.Parent.IsHandleCreated:
            r = element.Parent.RectangleToScreen(element.Bounds)
        else:
            return None
        return Bounds(int(r.X), int(r.Y), int(r.Width), int(r.Height))
    if isinstance(element, ToolStripItem):
        owner = element.Owner
        if owner is None or not owner.IsHandleCreated or not element.Visible:
            return None
        r = owner.RectangleToScreen(element.Bounds)
        return Bounds(int(r.X), int(r.Y), int(r.Width), int(r.Height))
    return None


def click_point(element: Any) -> tuple[int, int] | None:
    actor = items.actor_of(element)
    if actor is not None:
        return actor.click_point(element)  # an item's own rectangle; a tab page's tab
    box = bounds(element)
    if box is None or box.width <= 0 or box.height <= 0:
        return None
    return box.x + box.width // 2, box.y + box.height // 2


def client_origin(control: Any, memo: dict[Any, Any]) -> tuple[int, int] | None:
    """The screen position of the control's client area's top-left corner, memoised for one walk."""
    key = ("origin", control)
    if key not in memo:
        if control.IsHandleCreated:
            p = control.PointToScreen(Point(0, 0))
            memo[key] = (int(p.X), int(p.Y))
        else:
            memo[key] = None
    return cast("tuple[int, int] | None", memo[key])


def walk_bounds(element: Any, parent: Any, memo: dict[Any, Any]) -> Bounds | None:
    """``bounds`` from the parent's screen origin, read once per walk (each read is an X11 round trip on Mono)."""
    if parent is None or not isinstance(parent, Control):
        return bounds(element)
    if isinstance(element, ToolStripItem) and not element.Visible:
        return None
    origin = client_origin(parent, memo)
    if origin is None:
        return None
    r = element.Bounds
    return Bounds(origin[0] + int(r.X), origin[1] + int(r.Y), int(r.Width), int(r.Height))
