"""Menus of every kind beyond the menu bar: context menus, and the state and input of old-style menus.

A context menu (ContextMenuStrip, or the old ContextMenu) belongs to no parent
control: WinForms shows it as a window of its own. The probe lists it under
the control it is assigned to, and remembers that control, so the menu's
parent and its window are known before it was ever shown.

Old-style menus (MainMenu, MenuItem, ContextMenu: .NET Framework and Mono)
draw natively and tell nobody where an item is, so they have no bounds: the
toolkit clicks them (``PerformClick``) and OS input cannot aim at them. A menu
item with items opens under the pointer only; a click on it raises its Popup
event, where apps enable and disable what it holds.
"""

from __future__ import annotations

from typing import Any

from System import EventArgs, Object, WeakReference
from System.Runtime.CompilerServices import ConditionalWeakTable

from wpfprobe.core.protocol import Blocker, ElementState, InputMode, PlainValue
from wpfprobe_clr.net.lazy import clr_namespace, is_instance
from wpfprobe_clr.toolkits.winforms.items.base import call_protected

Drawing = clr_namespace("System.Drawing")
WF = clr_namespace("System.Windows.Forms")

# The old menus (ContextMenu, MainMenu, MenuItem) exist on .NET Framework and Mono only:
# ``WF.types.optional`` is None for them elsewhere.

#: A context menu -> a WeakReference to the control it was last listed under.
_owners: Any = None


def context_menus(control: Any) -> list[Any]:
    """The context menus assigned to ``control`` (new and old kind), remembered as its children.

    Every control of every walk is asked, so it is two property reads when it has none.
    """
    strip = control.ContextMenuStrip
    old = control.ContextMenu if WF.types.optional("ContextMenu") is not None else None
    if strip is None and old is None:
        return []
    found = [menu for menu in (strip, old) if menu is not None]
    for menu in found:
        _remember(menu, control)
    return found


def _remember(menu: Any, control: Any) -> None:
    global _owners
    if _owners is None:
        _owners = ConditionalWeakTable[Object, WeakReference]()
    found, ref = _owners.TryGetValue(menu)
    if found:
        if ref.Target is not None and bool(ref.Target.Equals(control)):
            return
        _owners.Remove(menu)
    _owners.Add(menu, WeakReference(control))


def menu_owner(menu: Any) -> Any | None:
    """The control a context menu belongs to: the one it was listed under, else the one it was shown for."""
    if _owners is not None:
        found, ref = _owners.TryGetValue(menu)
        if found and ref.Target is not None:
            return ref.Target
    return getattr(menu, "SourceControl", None)


def is_context_menu(element: Any) -> bool:
    old = WF.types.optional("ContextMenu")
    return is_instance(element, WF.types.ContextMenuStrip) or (old is not None and is_instance(element, old))


def open_context_menu(strip: Any, host: Any | None = None) -> None:
    """Open a ContextMenuStrip on its control (``host``, else its own), as a right click does (SourceControl set)."""
    host = host if host is not None else menu_owner(strip)
    if host is None:
        return
    # Mono sets SourceControl only where a right click on the control does (an internal setter whose
    # name changed between versions); .NET sets it in Show itself.
    for setter in ("SetSourceControl", "SetOwnerControl"):
        try:
            call_protected(strip, WF.ContextMenuStrip, setter, host)
            break
        except AttributeError:
            continue
    strip.Show(host, Drawing.Point(max(int(host.Width) // 2, 0), max(int(host.Height) // 2, 0)))


# -- state ----------------------------------------------------------------------


def tool_strip_state(item: Any, base: ElementState) -> ElementState:
    """A menu item's check mark (when it has one) and whether its drop-down is open."""
    if not is_instance(item, WF.types.ToolStripMenuItem):
        return base
    checked = bool(item.Checked) if (item.CheckOnClick or item.Checked) else None
    expanded = bool(item.DropDown.Visible) if item.HasDropDownItems else None
    return ElementState(base.visible, base.enabled, base.focused, checked=checked, expanded=expanded)


def legacy_state(item: Any) -> ElementState:
    visible = bool(getattr(item, "Visible", True))
    enabled = bool(getattr(item, "Enabled", True))
    checked = None
    if _is_legacy_item(item) and (item.Checked or item.RadioCheck):
        checked = bool(item.Checked)
    return ElementState(visible, enabled, False, checked=checked)


def legacy_action_state(item: Any) -> dict[str, PlainValue]:
    # Whether a leaf is checkable cannot be told: report its mark, so a click that clears it shows.
    if _is_legacy_item(item) and not item.IsParent:
        return {"checked": bool(item.Checked)}
    return {}


def _is_legacy_item(element: Any) -> bool:
    old = WF.types.optional("MenuItem")
    return old is not None and is_instance(element, old)


# -- where it is ------------------------------------------------------------------


def legacy_form(item: Any) -> Any | None:
    """The form an old-style menu item is on: its MainMenu's form, or its context menu's control's form."""
    top = _top_menu(item)
    main_menu = WF.types.optional("MainMenu")
    if main_menu is not None and top is not None and is_instance(top, main_menu):
        return top.GetForm()
    owner = menu_owner(top) if top is not None else None
    return owner.FindForm() if owner is not None else None


def _top_menu(item: Any) -> Any | None:
    current = item
    while _is_legacy_item(current):
        current = current.Parent
    return current


# -- input ------------------------------------------------------------------------


def legacy_unsupported(item: Any, action: str) -> str | None:
    if action == "click":
        return None if _is_legacy_item(item) else "It is a menu, not a menu item: click one of its items."
    if action == "toggle":
        if _is_legacy_item(item) and not item.IsParent:
            return None
        return "It is not a checkable menu item."
    if action == "select":
        return "It has no items to select; click the menu item instead."
    if action in ("focus", "keys"):
        return "An old-style menu item cannot take keyboard focus."
    return "It takes no typed text."


def legacy_blocker(item: Any, mode: InputMode) -> Blocker | None:
    """The whole chain a user opens must be shown and enabled, and the menu's window too."""
    current = item
    while _is_legacy_item(current):
        if not current.Visible:
            return Blocker("hidden", f"The menu item {_describe(current)} is not shown.")
        if not current.Enabled:
            return Blocker("disabled", f"The menu item {_describe(current)} is disabled.")
        current = current.Parent
    host = legacy_form(item) if not is_context_menu(current) else menu_owner(current)
    if host is None:
        return Blocker("hidden", "Its menu is not attached to a window or control.")
    if not host.Visible:
        return Blocker("hidden", "The window or control its menu belongs to is not shown.")
    if not host.Enabled:
        return Blocker("disabled", "The window or control its menu belongs to is disabled.")
    if mode == "os":
        return Blocker(
            "offscreen",
            "WinForms does not tell where an old-style menu item is drawn, so OS input cannot aim at it.",
        )
    return None


def legacy_click(item: Any) -> None:
    top = _top_menu(item)
    if is_context_menu(top):
        _popup(top)
    chain = []
    current = item.Parent
    while _is_legacy_item(current):
        chain.append(current)
        current = current.Parent
    for link in reversed(chain):
        _popup(link)  # each menu above it opens first, as the user opens them
    if item.IsParent:
        _popup(item)
    else:
        item.PerformClick()


def legacy_toggle(item: Any, state: bool | None) -> None:
    if state is None or bool(item.Checked) != state:
        legacy_click(item)  # the app's Click handler sets the mark, as it does for the user


def _popup(menu: Any) -> None:
    declaring = WF.MenuItem if _is_legacy_item(menu) else WF.ContextMenu
    call_protected(menu, declaring, "OnPopup", EventArgs.Empty)


def _describe(item: Any) -> str:
    text = str(item.Text or "")
    name = getattr(item, "Name", None)
    return f"MenuItem#{name}" if name else f'MenuItem "{text}"'
