"""Why an action cannot happen now: unsupported, hidden, disabled, zero-size, modal, offscreen or covered.

The engine asks before it acts, so that a refusal names its reason (and the
element in the way) instead of the action silently doing nothing. A modal
dialog and the screens are judged from user32 (WPF runs on Windows only):
WPF's own IsEnabled does not show that a dialog disabled a window.
"""

from __future__ import annotations

import ctypes
import math
from ctypes import CDLL
from typing import Any

from System import Object

from wpfprobe.core.protocol import ActionKind, Blocker, InputMode, ItemRef
from wpfprobe_clr.toolkits.wpf._input import _pattern, _source_of
from wpfprobe_clr.toolkits.wpf._item_actions import _is_item
from wpfprobe_clr.toolkits.wpf._items import _ItemsAdapter
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._tree import _MAX_DEPTH, _describe

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        ContentElement,
        DependencyObject,
        FrameworkElement,
        Point,
        PresentationSource,
        Size,
        SystemParameters,
        UIElement,
        UIElement3D,
        Visibility,
        Window,
    )
    from System.Windows.Automation.Peers import PatternInterface
    from System.Windows.Automation.Provider import IValueProvider
    from System.Windows.Controls import (
        ComboBox,
        DataGridCell,
        DataGridRow,
        Expander,
        ItemsControl,
        ListBoxItem,
        Menu,
        MenuItem,
        PasswordBox,
        TabItem,
        TreeView,
        TreeViewItem,
    )
    from System.Windows.Controls.Primitives import MenuBase, Selector, TextBoxBase, ToggleButton
    from System.Windows.Interop import WindowInteropHelper
    from System.Windows.Media import HitTestResult, Matrix, Visual, VisualTreeHelper

    _CLICK_PATTERNS: tuple[PatternInterface, ...] = (
        PatternInterface.Invoke,
        PatternInterface.SelectionItem,
        PatternInterface.ExpandCollapse,
        PatternInterface.Toggle,
    )
    _VISIBLE = str(Visibility.Visible)


class _BlockersMixin(_ItemsAdapter):
    """WpfAdapter.blocker and click_point."""

    def blocker(self, element: Any, action: ActionKind, mode: InputMode) -> Blocker | None:
        if action == "set":
            return None  # a property can be set on any element, shown or not
        if isinstance(element, ItemRef):
            container = self._ref_container(element)
            if container is None:
                return self._data_item_blocker(element, action, mode)
            element = container  # WPF has made its container since: judge that
        unsupported = self._unsupported(element, action, mode)
        if unsupported is not None:
            return Blocker("unsupported", unsupported)
        # In toolkit mode a menu item in a closed drop-down is reached by opening
        # the menus above it (File/Save As), as a user would; an item scrolled out
        # of view or under a collapsed node, by scrolling to it or expanding it.
        reachable = mode == "toolkit" and (
            (isinstance(element, MenuItem) and self._menu_reachable(element))
            or (_is_item(element) and self._list_shown(element))
        )
        found = self._state_blocker(element, action, reachable)
        if found is None:
            found = self._modal_blocker(element)
        # An item takes a toolkit click through its list (scrolled to, then selected), not the pointer.
        if found is None and (mode == "os" or (action == "click" and not _is_item(element))):
            found = self._pointer_blocker(element, mode)
        return found

    def _data_item_blocker(self, ref: ItemRef, action: ActionKind, mode: InputMode) -> Blocker | None:
        """A data item WPF has made no container for: reached through its list in toolkit mode only."""
        control = self._items_control_of(ref)
        in_tree = self._tree_view_of(ref) is not None
        reachable = isinstance(ref.owner, Selector) or in_tree or isinstance(control, (MenuItem, MenuBase))
        why: str | None = None
        if action == "select":
            why = "It is an item: click it, or use wpf_select on its list."
        elif action in ("type", "keys"):
            why = "It is a data item without a container: it takes no keys or text (a DataGrid cell does)."
        elif action == "toggle" and not (in_tree and self._hierarchy_items(ref)):
            why = "Only a tree node with children (it expands) toggles among data items."
        elif not reachable:
            why = "It is a data item of a list that selects nothing (a plain ItemsControl): nothing takes a click."
        if why is not None:
            return Blocker("unsupported", why)
        if control is None:
            return Blocker("hidden", "Its list is gone.")
        if not control.IsEnabled:
            return Blocker("disabled", "Its list, or an element the list is in, is disabled.")
        shown = bool(control.IsVisible) or (isinstance(control, MenuItem) and self._menu_reachable(control))
        if not shown:
            return Blocker("hidden", "Its list, or an element the list is in, is collapsed or hidden, or not shown.")
        found = self._modal_blocker(control)
        if found is None and mode == "os":
            found = Blocker(
                "offscreen",
                "It is a data item WPF has made no container for (scrolled out of view, or under a collapsed "
                'node): it has no point on screen. mode="auto" brings it into view first.',
            )
        return found

    def _list_shown(self, item: Any) -> bool:
        """Whether the list or tree an item container is in is shown (then the item can be scrolled to)."""
        current: Any = item
        for _ in range(_MAX_DEPTH):
            if not isinstance(current, DependencyObject):
                return False
            owner = ItemsControl.ItemsControlFromItemContainer(current)
            if owner is None:
                return False
            if not isinstance(owner, TreeViewItem):
                return bool(owner.IsVisible)
            current = owner
        return False

    def click_point(self, element: Any) -> tuple[int, int] | None:
        if isinstance(element, ItemRef):
            container = self._ref_container(element)
            return self.click_point(container) if container is not None else None
        if not isinstance(element, UIElement) or not element.IsVisible:
            return None
        if PresentationSource.FromVisual(element) is None:
            return None
        box = self._box(element)
        if box.width <= 0 or box.height <= 0:
            return None
        try:
            # PointToScreen answers in physical pixels (it applies the monitor's DPI).
            centre: Point = box.visual.PointToScreen(Point(box.x + box.width / 2, box.y + box.height / 2))
        except Exception:  # noqa: BLE001 - the source can go away between the check and the call
            return None
        return math.floor(centre.X + 0.5), math.floor(centre.Y + 0.5)

    def _unsupported(self, element: Any, action: ActionKind, mode: InputMode) -> str | None:
        """Why ``element`` has no such action at all (a BlockReason "unsupported"), or None."""
        if not isinstance(element, (UIElement, ContentElement, UIElement3D)):
            return "It is not an input element (UIElement or ContentElement)."
        if action == "click":
            if mode == "toolkit" and not self._has_click_route(element):
                return (
                    "It has nothing to click through the toolkit (no Invoke, Toggle, SelectionItem or "
                    'ExpandCollapse automation pattern, and it takes no focus); use mode="os".'
                )
        elif action == "type":
            if isinstance(element, TextBoxBase) or isinstance(element, PasswordBox):
                return None
            if isinstance(element, DataGridCell):
                return None  # edited as a user edits a cell
            if isinstance(element, ComboBox) and not element.IsEditable:
                return "It is a drop-down list without a text box; choose an item with wpf_select."
            if _pattern(element, PatternInterface.Value) is None:
                return "It takes no typed text."
        elif action == "select":
            if not isinstance(element, (Selector, TreeView, TreeViewItem)):
                return "It has no items to select."
        elif action == "toggle":
            if isinstance(element, ToggleButton) or isinstance(element, Expander):
                return None
            if isinstance(element, TreeViewItem) and element.HasItems:
                return None  # it expands and collapses
            if self._shows_toggle(element):
                return None
            if not (isinstance(element, MenuItem) and element.IsCheckable):
                return (
                    "It is not a check box, radio button, toggle button, checkable menu item, "
                    "tree node with children, expander or item showing a check box."
                )
        elif action == "focus":  # noqa: SIM102 - one branch per action, as above
            if not _focusable(element):
                return "It cannot take keyboard focus (Focusable is false)."
        return None

    def _state_blocker(self, element: Any, action: ActionKind, reachable: bool) -> Blocker | None:
        """Hidden (unless ``reachable``: toolkit input opens its menus, scrolls its list), disabled, zero-size, read-only."""
        if isinstance(element, UIElement):
            if not element.IsVisible and not reachable:
                return Blocker("hidden", "It, or an element it is in, is collapsed or hidden, or not shown.")
            if not element.IsEnabled:
                return Blocker("disabled", "It, or an element it is in, is disabled.")
            if element.IsVisible:
                width, height = _layout_size(element)
                if width <= 0 or height <= 0:
                    return Blocker("zero-size", f"Its size is {width:g} x {height:g}.")
        elif isinstance(element, UIElement3D):
            if not element.IsVisible:
                return Blocker("hidden", "It, or an element it is in, is not visible.")
            if not element.IsEnabled:
                return Blocker("disabled", "It, or an element it is in, is disabled.")
        elif isinstance(element, ContentElement):
            if not self._host_visible(element):
                return Blocker("hidden", "The element that shows it is not visible.")
            if not element.IsEnabled:
                return Blocker("disabled", "It, or an element it is in, is disabled.")
        if action == "type":
            if isinstance(element, TextBoxBase) and element.IsReadOnly:
                return Blocker("read-only", "It is a read-only text box.")
            if isinstance(element, DataGridCell):
                return Blocker("read-only", "It is a read-only cell.") if element.IsReadOnly else None
            if not isinstance(element, TextBoxBase) and not isinstance(element, PasswordBox):
                provider = _pattern(element, PatternInterface.Value)
                if provider is not None:
                    value = IValueProvider(provider)
                    if value.IsReadOnly:
                        return Blocker("read-only", "Its value is read-only.")
        return None

    def _menu_reachable(self, item: MenuItem) -> bool:
        """Whether a hidden menu item shows once the menus above it open: all enabled, the top one shown."""
        if item.IsVisible:
            return False  # nothing to open: it is on screen already
        current: MenuItem = item
        for _ in range(_MAX_DEPTH):
            if str(current.Visibility) != _VISIBLE or not current.IsEnabled:
                return False
            parent = ItemsControl.ItemsControlFromItemContainer(current)
            if not isinstance(parent, MenuItem):
                # A top-level item: it must be on a menu bar that is shown.
                return isinstance(parent, Menu) and bool(current.IsVisible)
            current = parent
        return False

    def _modal_blocker(self, element: Any) -> Blocker | None:
        if not isinstance(element, DependencyObject):
            return None
        host = Window.GetWindow(element)
        user32 = _user32()
        if host is None or user32 is None:
            return None
        hwnd = _hwnd(host)
        # A modal dialog (ShowDialog, a message box) disables every other window
        # of its thread; the WPF windows' IsEnabled does not show it, the HWND does.
        if hwnd == 0 or user32.IsWindowEnabled(hwnd):
            return None
        modal: Window | None = None
        for window in self.roots():
            if not isinstance(window, Window):
                continue
            if Object.ReferenceEquals(window, host) or not window.IsVisible:
                continue
            other = _hwnd(window)
            if other == 0 or not user32.IsWindowEnabled(other):
                continue
            if modal is None or _owned_by(window, host) or window.IsActive:
                modal = window
        if modal is None:
            return Blocker("modal", "A modal dialog that is not a WPF window (a message box?) blocks its window.")
        return Blocker("modal", f"The modal dialog {_describe(modal)} is open.", modal)

    def _pointer_blocker(self, element: Any, mode: InputMode) -> Blocker | None:
        point = self.click_point(element)
        if point is None:
            if mode == "toolkit":
                return None  # a menu item in a closed drop-down, a content element: reached without a pointer
            return Blocker("offscreen", "It has no point on screen to click.")
        x, y = point
        if not _on_screen(x, y, element):
            return Blocker("offscreen", f"Its centre ({x}, {y}) is outside every screen.")
        if isinstance(element, UIElement):
            cover = self._cover(element, x, y)
            if cover is not None:
                return Blocker("covered", f"{_describe(cover)} is on top of its centre.", cover)
        return None

    def _cover(self, element: UIElement, x: int, y: int) -> Any | None:
        """What a click at screen point (x, y) lands on instead of ``element``, within its window."""
        source = PresentationSource.FromVisual(element)
        root: Visual | None = source.RootVisual if source is not None else None
        if root is None:
            return None
        try:
            local: Point = root.PointFromScreen(Point(float(x), float(y)))
        except Exception:  # noqa: BLE001 - the source can go away between the check and the call
            return None
        result: HitTestResult | None = VisualTreeHelper.HitTest(root, local)
        hit = result.VisualHit if result is not None else None
        if hit is None or Object.ReferenceEquals(hit, element) or element.IsAncestorOf(hit):
            return None
        if isinstance(hit, Visual) and hit.IsAncestorOf(element):
            # Nothing is on top: the element is transparent there (no background)
            # and the click falls through to what it is in.
            return None
        return _presentable(hit)

    def _shows_toggle(self, element: Any) -> bool:
        """A list item or cell whose content is a check box, or a leaf node whose header is one."""
        content: Any = None
        if isinstance(element, ListBoxItem):
            content = element.Content
        elif isinstance(element, DataGridCell):
            content = element.Content
        elif isinstance(element, TreeViewItem):
            content = element.Header
        return isinstance(content, ToggleButton)

    def _has_click_route(self, element: Any) -> bool:
        if isinstance(element, MenuItem) or isinstance(element, ToggleButton) or isinstance(element, TreeViewItem):
            return True
        if isinstance(element, DataGridRow) or isinstance(element, DataGridCell):
            return True
        if (isinstance(element, ListBoxItem) or isinstance(element, TabItem)) and isinstance(
            ItemsControl.ItemsControlFromItemContainer(element), Selector
        ):
            return True
        for pattern in _CLICK_PATTERNS:
            if _pattern(element, pattern) is not None:
                return True
        return _focusable(element)


def _focusable(element: Any) -> bool:
    if isinstance(element, UIElement):
        return bool(element.Focusable)
    if isinstance(element, ContentElement):
        return bool(element.Focusable)
    if isinstance(element, UIElement3D):
        return bool(element.Focusable)
    return False


def _layout_size(element: UIElement) -> tuple[float, float]:
    if isinstance(element, FrameworkElement):
        return float(element.ActualWidth), float(element.ActualHeight)
    size: Size = element.RenderSize
    return float(size.Width), float(size.Height)


def _presentable(hit: Any) -> Any:
    """The element a user would name for a hit: a template's part stands for the control it draws."""
    current = hit
    for _ in range(_MAX_DEPTH):
        if not isinstance(current, FrameworkElement):
            break
        templated = current.TemplatedParent
        if templated is None:
            break
        current = templated
    return current


def _owned_by(window: Window, owner: Window) -> bool:
    current = window.Owner
    for _ in range(_MAX_DEPTH):
        if current is None:
            return False
        if Object.ReferenceEquals(current, owner):
            return True
        current = current.Owner
    return False


# -- screens and windows (user32; WPF runs on Windows only) --------------------


class _POINT(ctypes.Structure):
    _fields_ = [("x", ctypes.c_long), ("y", ctypes.c_long)]


_USER32: list[CDLL | None] = []


def _user32() -> CDLL | None:
    """user32.dll with the signatures used here, or None where there is none."""
    if not _USER32:
        windll = getattr(ctypes, "windll", None)
        user32: CDLL | None = None
        if windll is not None:
            user32 = windll.user32
            user32.IsWindowEnabled.argtypes = [ctypes.c_void_p]
            user32.IsWindowEnabled.restype = ctypes.c_int
            user32.MonitorFromPoint.argtypes = [_POINT, ctypes.c_uint32]
            user32.MonitorFromPoint.restype = ctypes.c_void_p
        _USER32.append(user32)
    return _USER32[0]


def _hwnd(window: Window) -> int:
    handle = WindowInteropHelper(window).Handle
    return int(handle.ToInt64()) if hasattr(handle, "ToInt64") else int(handle)


def _on_screen(x: int, y: int, element: Any) -> bool:
    user32 = _user32()
    if user32 is not None:
        return bool(user32.MonitorFromPoint(_POINT(x, y), 0))  # MONITOR_DEFAULTTONULL
    # SystemParameters speaks device-independent units; the point is in pixels.
    scale = 1.0
    source = _source_of(element)
    if source is not None and source.CompositionTarget is not None:
        matrix: Matrix = source.CompositionTarget.TransformToDevice
        scale = float(matrix.M11)
    left = float(SystemParameters.VirtualScreenLeft) * scale
    top = float(SystemParameters.VirtualScreenTop) * scale
    width = float(SystemParameters.VirtualScreenWidth) * scale
    height = float(SystemParameters.VirtualScreenHeight) * scale
    return left <= x < left + width and top <= y < top + height
