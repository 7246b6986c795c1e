"""What stops an action on an element now, and why, before the probe tries it.

In the order a user would run into them: the element does not take the action
at all; a modal dialog blocks its window; it (or a container, or for a menu item
any menu above it) is hidden, disabled, without size or read-only; and for a
pointer its centre is off the screen or covered by another control, found by
hit testing down from its top-level window. Every read here that can return a
control (the open forms, an owner, the control under a point) goes through
``net.derived``, so a control of a class written in Python is met as a handle.
"""

from __future__ import annotations

from typing import Any

from wpfprobe.core.protocol import ActionKind, Blocker, InputMode
from wpfprobe_clr.net.derived import call, get, is_a, members_of, same
from wpfprobe_clr.net.lazy import clr_namespace
from wpfprobe_clr.toolkits.winforms import items
from wpfprobe_clr.toolkits.winforms.items import menus
from wpfprobe_clr.toolkits.winforms.kinds import is_menu
from wpfprobe_clr.toolkits.winforms.tree import click_point, describe_element, form_of

Drawing = clr_namespace("System.Drawing")
WF = clr_namespace("System.Windows.Forms")


def blocker(element: Any, action: ActionKind, mode: InputMode) -> Blocker | None:
    actor = items.actor_of(element)
    if actor is not None:
        return _item_blocker(element, actor, action, mode)
    if is_menu(element):
        return _legacy_menu_blocker(element, action, mode)
    unsupported = _unsupported_reason(element, action)
    if unsupported is not None:
        return Blocker("unsupported", unsupported)
    # Before the rest: a modal dialog disables the windows it blocks, and
    # "modal" says what to do about it where "disabled" would not.
    modal = _modal_over(element)
    if modal is not None:
        return Blocker("modal", f"The modal dialog {describe_element(modal)} is open.", modal)
    if is_a(element, WF.types.ToolStripItem):
        found = _menu_blocker(element, mode)
    else:
        found = _control_blocker(element, action)
    if found is not None:
        return found
    if mode == "os" or action == "click":
        return _pointer_blocker(element, mode)
    return None


def _unsupported_reason(element: Any, action: ActionKind) -> str | None:
    if action == "type":
        target = element.ComboBox if is_a(element, WF.types.ToolStripComboBox) else element
        if is_a(target, WF.types.ComboBox) and target.DropDownStyle == WF.ComboBoxStyle.DropDownList:
            return "It is a drop-down list without a text box; choose an item with wpf_select."
        if not is_a(target, (WF.types.TextBoxBase, WF.types.ComboBox, WF.types.NumericUpDown)):
            return "It takes no typed text."
    elif action == "select":
        target = element.ComboBox if is_a(element, WF.types.ToolStripComboBox) else element
        if not is_a(
            target,
            (
                WF.types.ListBox,
                WF.types.ComboBox,
                WF.types.TabControl,
                WF.types.ListView,
                WF.types.TreeView,
                WF.types.DataGridView,
            ),
        ):
            return "It has no items to select."
    elif action == "toggle":
        if not is_a(element, (WF.types.CheckBox, WF.types.RadioButton, WF.types.ToolStripMenuItem)):
            return "It is not a check box, radio button or checkable menu item."
    elif action in ("focus", "keys") and not is_a(element, (WF.types.Control, WF.types.ToolStripItem)):
        return "It cannot take keyboard focus."
    return None


def _control_blocker(element: Any, action: ActionKind) -> Blocker | None:
    if not is_a(element, WF.types.Control):
        return None
    if not element.Visible:
        return Blocker("hidden", "It, or a container it is in, is not visible.")
    if not element.Enabled:
        return Blocker("disabled", "It, or a container it is in, is disabled.")
    if element.Width <= 0 or element.Height <= 0:
        return Blocker("zero-size", f"Its size is {element.Width}x{element.Height}.")
    if action == "type" and is_a(element, WF.types.TextBoxBase) and element.ReadOnly:
        return Blocker("read-only", "It is a read-only text box.")
    return None


def _menu_blocker(item: Any, mode: InputMode) -> Blocker | None:
    # A user reaches a menu item by opening each menu above it: the whole
    # chain must be enabled and present, and the menu bar shown.
    chain = []
    current = item
    while current is not None:
        chain.append(current)
        current = get(current, "OwnerItem")
    for link in chain:
        if not link.Available:
            return Blocker("hidden", f"The menu item {describe_element(link)} is not shown.")
        if not link.Enabled:
            return Blocker("disabled", f"The menu item {describe_element(link)} is disabled.")
    strip = get(chain[-1], "Owner")
    if strip is not None and not strip.Visible and mode != "os" and menus.is_context_menu(strip):
        # A closed context menu opens on its control first, as a right click would open it.
        host = items.detached_parent(strip)
        if host is None:
            return Blocker("hidden", "Its context menu is not assigned to any control.")
        if not host.Visible or not host.Enabled:
            state = "not shown" if not host.Visible else "disabled"
            return Blocker("hidden" if not host.Visible else "disabled", f"The control its menu opens on is {state}.")
    elif strip is None or not strip.Visible:
        return Blocker("hidden", "The menu it belongs to is not shown.")
    if not strip.Enabled:
        return Blocker("disabled", "The menu it belongs to is disabled.")
    if mode == "os" and not item.Visible:
        return Blocker("hidden", "Its drop-down is closed; OS input needs it open (click the menu above it).")
    return None


# -- items and old-style menus -------------------------------------------------


def _item_blocker(element: Any, actor: items.Item, action: ActionKind, mode: InputMode) -> Blocker | None:
    """An item is blocked by what blocks its owner control, by itself, or (the pointer) by its place."""
    unsupported = actor.unsupported(element, action)
    if unsupported is not None:
        return Blocker("unsupported", unsupported)
    modal = _modal_over(element)
    if modal is not None:
        return Blocker("modal", f"The modal dialog {describe_element(modal)} is open.", modal)
    owner = actor.owner(element)
    found = _control_blocker(owner, action)
    if found is not None:
        # What to fix is the control that shows the item.
        why = {"hidden": "is not visible", "disabled": "is disabled", "zero-size": "has no size"}.get(found.reason)
        message = f"The {describe_element(owner)} it is in {why} (or a container of it is)." if why else found.message
        return Blocker(found.reason, message, found.by)
    found = actor.blocker(element, action, mode)
    if found is not None:
        return found
    if mode != "os" and action != "click":
        return None
    point = actor.click_point(element)
    if point is None:
        if mode != "os" and actor.pointer_free(element):
            return None  # the toolkit scrolls to it, or needs no drop-down open
        return Blocker(
            "offscreen",
            f"It is not in view (scrolled out of {describe_element(owner)}, under a collapsed node or in a closed "
            "drop-down), so the pointer cannot reach it.",
        )
    return _point_blocker(owner, point, mode)


def _legacy_menu_blocker(element: Any, action: ActionKind, mode: InputMode) -> Blocker | None:
    unsupported = menus.legacy_unsupported(element, action)
    if unsupported is not None:
        return Blocker("unsupported", unsupported)
    modal = _modal_over(element)
    if modal is not None:
        return Blocker("modal", f"The modal dialog {describe_element(modal)} is open.", modal)
    return menus.legacy_blocker(element, mode)


# -- modal dialogs -----------------------------------------------------------


def _modal_over(element: Any) -> Any | None:
    form = form_of(element)
    for other in members_of(WF.Application.OpenForms):
        if other.IsDisposed or not other.Visible or not other.Modal:
            continue
        if form is None or same(other, form) or _owned_by(form, other):
            continue
        return other
    return None


def _owned_by(form: Any, owner: Any) -> bool:
    current = get(form, "Owner")
    while current is not None:
        if same(current, owner):
            return True
        current = get(current, "Owner")
    return False


# -- the pointer: on screen, and not covered ---------------------------------


def _pointer_blocker(element: Any, mode: InputMode) -> Blocker | None:
    point = click_point(element)
    if point is None:
        if is_a(element, WF.types.ToolStripItem) and mode != "os":
            return None  # PerformClick reaches an item in a closed drop-down
        return Blocker("offscreen", "It has no position on screen.")
    return _point_blocker(element, point, mode)


def _point_blocker(element: Any, point: tuple[int, int], mode: InputMode) -> Blocker | None:
    """The point must be on a screen, and ``element`` (or a part of it) the topmost thing there."""
    screen = WF.SystemInformation.VirtualScreen
    x, y = point
    if not (screen.X <= x < screen.X + screen.Width and screen.Y <= y < screen.Y + screen.Height):
        return Blocker("offscreen", f"Its centre ({x}, {y}) is outside the screen.")
    clipping = _clipped_by(element, x, y) if mode == "os" else None
    if clipping is not None:
        # Hit testing would not notice: GetChildAtPoint finds a child by its bounds,
        # even where its parent does not show it. The pointer would land on whatever is there.
        return Blocker(
            "offscreen",
            f"Its centre ({x}, {y}) is outside the visible area of {describe_element(clipping)}, "
            "which cuts it off, so the pointer cannot reach it.",
        )
    hit = _hit(element, x, y)
    if hit is not None and not _is_self_or_descendant(element, hit):
        return Blocker("covered", f"{describe_element(hit)} is on top of its centre.", hit)
    return None


def _clipped_by(element: Any, x: int, y: int) -> Any | None:
    """The nearest container whose client area does not hold the screen point, if any."""
    container = get(element, "Owner") if is_a(element, WF.types.ToolStripItem) else get(element, "Parent")
    while container is not None and is_a(container, WF.types.Control):
        if not container.ClientRectangle.Contains(container.PointToClient(Drawing.Point(x, y))):
            return container
        container = get(container, "Parent")
    return None


def _hit(element: Any, x: int, y: int) -> Any | None:
    """The topmost control (or tool strip item) under a screen point, within the element's window."""
    owner = get(element, "Owner") if is_a(element, WF.types.ToolStripItem) else element
    root = get(owner, "TopLevelControl") if is_a(owner, WF.types.Control) else None
    if root is None:
        return None
    current = root
    skip = WF.GetChildAtPointSkip.Invisible
    while True:
        child = call(current, "GetChildAtPoint", current.PointToClient(Drawing.Point(x, y)), skip)
        if child is None:
            break
        current = child
    if is_a(current, WF.types.ToolStrip):
        item = call(current, "GetItemAt", current.PointToClient(Drawing.Point(x, y)))
        if item is not None:
            return item
    return current


def _is_self_or_descendant(element: Any, hit: Any) -> bool:
    if same(element, hit):
        return True
    if is_a(element, WF.types.Control) and is_a(hit, WF.types.Control):
        return bool(call(element, "Contains", hit))
    return False
