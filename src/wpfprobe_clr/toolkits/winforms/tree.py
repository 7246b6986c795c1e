"""An element's place in the tree and the basic facts every node reads: naming, state, bounds.

WinForms has one tree, whether asked as visual or logical: a Form's controls
(its MainMenu first, where it has one), a ToolStrip's items, a drop-down item's
items, an old-style Menu's items. The same facts are read for every node of
every walk, so this is the hot path: each read here is one getter, or a cache.
Screen geometry lives here too: bounds, the centre a click lands on, the form
an element is on, and the memoised parent origin a walk reads bounds from
(each screen read is an X11 round trip on Mono).

A control of a class written in Python (``__namespace__``) is met here as a
``DerivedHandle``: every read that can return a control (children, Parent,
Owner, the open forms, the active form) goes through ``net.derived``, and
every type test through ``is_a`` (see that module for why).
"""

from __future__ import annotations

from typing import Any, cast

from wpfprobe.core.protocol import Bounds, ElementState, Naming
from wpfprobe_clr.net.derived import DerivedHandle, call, get, is_a, members_of, same, type_names
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms import items
from wpfprobe_clr.toolkits.winforms.kinds import is_menu

Drawing = clr_namespace("System.Drawing")
WF = clr_namespace("System.Windows.Forms")


class TypeNames:
    """Each Python type's .NET short and full name, read from GetType once per type."""

    def __init__(self) -> None:
        self._names: dict[type, tuple[str, str]] = {}

    def of(self, element: Any) -> tuple[str, str]:
        if type(element) is DerivedHandle:
            return element.names
        key = type(element)
        names = self._names.get(key)
        if names is None:
            net_type = element.GetType()
            names = (str(net_type.Name), str(net_type.FullName))
            self._names[key] = names
        return names


def roots(main: Any | None) -> list[Any]:
    """The open top-level forms, the app's main form first.

    An MDI child (or a form put in a panel with TopLevel off) is in OpenForms
    too, but it is a control inside its parent's tree: listed as a root as
    well, every search would meet it and its controls twice.
    """
    forms = [f for f in members_of(WF.Application.OpenForms) if not f.IsDisposed and get(f, "Parent") is None]
    ordered = []
    if main is not None and not main.IsDisposed:
        ordered.append(main)
    ordered.extend(f for f in forms if main is None or not same(f, main))
    return ordered


def children(element: Any) -> list[Any]:
    item = items.item_of(element)
    if item is not None:
        return item.children(element)
    if is_a(element, WF.types.ToolStrip):
        return members_of(element.Items)
    if is_a(element, WF.types.Control):
        kids = members_of(element.Controls)
        menu = getattr(element, "Menu", None) if is_a(element, WF.types.Form) else None
        kids = [menu, *kids] if menu is not None else kids
        return kids + items.control_children(element)  # its items and context menus
    if is_a(element, WF.types.ToolStripDropDownItem):
        # Reading DropDownItems creates the drop-down; ask first.
        return members_of(element.DropDownItems) if element.HasDropDownItems else []
    if is_menu(element):
        return members_of(element.MenuItems)
    return []


def parent(element: Any) -> Any | None:
    item = items.item_of(element)
    if item is not None:
        return item.parent(element)
    if is_a(element, WF.types.Control):
        up = get(element, "Parent")
        return up if up is not None else items.detached_parent(element)
    if is_a(element, WF.types.ToolStripItem):
        owner_item = get(element, "OwnerItem")
        return owner_item if owner_item is not None else get(element, "Owner")
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
    if type(element) is DerivedHandle and not element.alive:
        return False
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
    kind = type_names(element)[0]
    return f"{kind}#{name}" if name else kind


def state(element: Any) -> ElementState:
    item = items.item_of(element)
    if item is not None:
        return item.state(element)
    if is_a(element, WF.types.Control):
        found = ElementState(
            bool(element.Visible), bool(element.Enabled), bool(element.Focused), checked=_checked(element)
        )
    elif is_a(element, WF.types.ToolStripItem):
        found = ElementState(bool(element.Visible), bool(element.Enabled), bool(element.Selected))
    else:
        visible = getattr(element, "Visible", True)
        enabled = getattr(element, "Enabled", True)
        found = ElementState(bool(visible), bool(enabled), False)
    return items.refine_state(element, found)  # check marks, drop-downs, a tab's selection


def _checked(control: Any) -> bool | None:
    """A check box's or radio button's check, as the user sees it; None for anything else (and a third state)."""
    if is_a(control, WF.types.CheckBox):
        check = get(control, "CheckState")
        return None if check == WF.CheckState.Indeterminate else check == WF.CheckState.Checked
    if is_a(control, WF.types.RadioButton):
        return bool(get(control, "Checked"))
    return None


def is_active_window(element: Any) -> bool:
    active = get(WF.Form, "ActiveForm")
    return active is not None and same(active, element)


def form_of(element: Any) -> Any | None:
    """The form an element is on, through the tool strip a menu item belongs to."""
    if is_a(element, WF.types.ToolStripItem):
        owner = element
        while is_a(owner, WF.types.ToolStripItem) and (up := get(owner, "OwnerItem")) is not None:
            owner = up
        strip = get(owner, "Owner") if is_a(owner, WF.types.ToolStripItem) else None
        if strip is None:
            return None
        host = strip if get(strip, "Parent") is not None else items.detached_parent(strip) or strip  # a context menu
        return call(host, "FindForm")
    if is_a(element, WF.types.Form):
        return element
    if is_a(element, WF.types.Control):
        return call(element, "FindForm")
    return items.owner_form(element)


# -- screen geometry ---------------------------------------------------------


def bounds(element: Any) -> Bounds | None:
    item = items.item_of(element)
    if item is not None:
        return item.bounds(element)
    if is_a(element, WF.types.Control):
        up = get(element, "Parent")
        if up is None:
            r = element.Bounds
        elif up.IsHandleCreated:
            r = up.RectangleToScreen(element.Bounds)
        else:
            return None
        return Bounds(int(r.X), int(r.Y), int(r.Width), int(r.Height))
    if is_a(element, WF.types.ToolStripItem):
        owner = get(element, "Owner")
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
            p = control.PointToScreen(Drawing.Point(0, 0))
            memo[key] = (int(p.X), int(p.Y))
        else:
            memo[key] = None
    return cast("tuple[int, int] | None", memo[key])


def walk_bounds(element: Any, parent: Any, memo: dict[Any, Any]) -> Bounds | None:
    """``bounds`` from the parent's screen origin, read once per walk (each read is an X11 round trip on Mono)."""
    if parent is None or not is_a(parent, WF.types.Control):
        return bounds(element)
    if is_a(element, WF.types.ToolStripItem) and not element.Visible:
        return None
    origin = client_origin(parent, memo)
    if origin is None:
        return None
    r = element.Bounds
    return Bounds(origin[0] + int(r.X), origin[1] + int(r.Y), int(r.Width), int(r.Height))
