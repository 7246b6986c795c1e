"""Clicks, typing, selection and toggles through the toolkit (the interact tier).

Each action goes the way a user's would: a button is invoked through its
automation peer, a list item selected through its list, a menu item reached
by opening the menus above it, text typed as key and text input events on the
focused box (``_keyboard``), a right click opens the nearest context menu.
What the action queued runs before it returns (``_settle``).
"""

from __future__ import annotations

from typing import Any

from System import Environment, Object
from System.ComponentModel import PropertyDescriptor as NetPropertyDescriptor
from System.ComponentModel import TypeDescriptor

from wpfprobe.core.errors import ElementNotInteractableError, InvalidArgumentError
from wpfprobe.core.protocol import MouseButton, PlainValue
from wpfprobe_clr._values import to_plain
from wpfprobe_clr.toolkits.wpf._input import _args, _cannot, _flip, _pattern, _peer, _run_command
from wpfprobe_clr.toolkits.wpf._keyboard import _KeyboardMixin
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._properties import _plain
from wpfprobe_clr.toolkits.wpf._tree import _MAX_DEPTH, _describe

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        ContentElement,
        DependencyObject,
        FrameworkContentElement,
        FrameworkElement,
        RoutedEvent,
        RoutedEventArgs,
        UIElement,
    )
    from System.Windows.Automation.Peers import AutomationPeer, ItemAutomationPeer, PatternInterface
    from System.Windows.Automation.Provider import (
        IExpandCollapseProvider,
        IInvokeProvider,
        ISelectionItemProvider,
        IToggleProvider,
        IValueProvider,
    )
    from System.Windows.Controls import (
        ComboBox,
        ContentControl,
        ContextMenu,
        Control,
        Expander,
        HeaderedContentControl,
        HeaderedItemsControl,
        ItemCollection,
        ItemsControl,
        ListBoxItem,
        MenuItem,
        PasswordBox,
        RadioButton,
        RichTextBox,
        TabItem,
        TextBlock,
        TextBox,
        TreeViewItem,
    )
    from System.Windows.Controls.Primitives import ButtonBase, RangeBase, Selector, TextBoxBase, ToggleButton
    from System.Windows.Input import Mouse, MouseButtonEventArgs
    from System.Windows.Input import MouseButton as NetMouseButton
    from System.Windows.Media import Visual, VisualTreeHelper
    from System.Windows.Media.Media3D import Visual3D

_MAX_ITEM_PEERS = 2000


class _ActionsMixin(_KeyboardMixin):
    """The actions of WpfAdapter: action_state, click, type_text, select, toggle."""

    def action_state(self, element: Any) -> dict[str, PlainValue]:
        state: dict[str, PlainValue] = {}
        if isinstance(element, ToggleButton):
            checked = element.IsChecked
            state["checked"] = None if checked is None else bool(checked)
        if isinstance(element, MenuItem):
            if element.IsCheckable:
                state["checked"] = bool(element.IsChecked)
            if element.HasItems:
                state["expanded"] = bool(element.IsSubmenuOpen)
        if isinstance(element, Selector):
            state["selectedIndex"] = int(element.SelectedIndex)
            state["selectedItem"] = self._item_text(element, element.SelectedItem)
        if isinstance(element, ComboBox):
            state["expanded"] = bool(element.IsDropDownOpen)
        if isinstance(element, Expander):
            state["expanded"] = bool(element.IsExpanded)
        if isinstance(element, TreeViewItem):
            state["expanded"] = bool(element.IsExpanded)
        if isinstance(element, RangeBase):
            state["value"] = _plain(float(element.Value))
        return state

    def click(self, element: Any, *, button: MouseButton, count: int) -> None:
        if button == "right":
            self._open_context_menu(element)
            self._settle()
            return
        if button != "left":
            raise _cannot(element, f"a {button} click through the toolkit", 'Use mode="os" for a real mouse click.')
        for n in range(max(count, 1)):
            if n == 1 and isinstance(element, UIElement):
                # A second click within the double-click time: WPF's Controls raise
                # MouseDoubleClick on the second button press, before its click.
                self._double_click(element)
            self._left_click(element)
            self._settle()

    def type_text(self, element: Any, text: str, *, replace: bool) -> None:
        if isinstance(element, TextBoxBase) or isinstance(element, PasswordBox):
            if isinstance(element, TextBoxBase) and element.IsReadOnly:
                raise ElementNotInteractableError(
                    f"{_describe(element)} is read-only.",
                    suggestion="Type into an editable element instead.",
                    detail={"reason": "read-only"},
                )
            self._take_focus(element)
            _prepare_text_box(element, replace)
            for ch in text.replace("\r\n", "\n").replace("\r", "\n"):
                if ch == "\n":
                    # A line break is the Enter key: a new line where the box accepts
                    # returns, the default button where it does not, as for a user.
                    self._stroke(element, "Enter", None)
                else:
                    self._text_input(element, ch)
            self._settle()
            return
        provider = _pattern(element, PatternInterface.Value)
        if provider is None:
            raise _cannot(element, "typed text", "Type into a text box, password box or editable combo box.")
        value = IValueProvider(provider)
        if value.IsReadOnly:
            raise ElementNotInteractableError(
                f"{_describe(element)} is read-only.",
                suggestion="Type into an editable element instead.",
                detail={"reason": "read-only"},
            )
        self._take_focus(element)
        value.SetValue(text if replace else str(value.Value or "") + text)

    def select(self, element: Any, *, item: str | None, index: int | None) -> None:
        if not isinstance(element, Selector):
            raise _cannot(element, "select", "Use wpf_click or wpf_toggle for this element.")
        items: ItemCollection = element.Items
        count = int(items.Count)
        chosen = -1
        if index is not None and 0 <= index < count:
            chosen = index
        else:
            texts = [self._item_text(element, items[i]) or "" for i in range(count)]
            chosen = _choose(texts, item, index)
        container = element.ItemContainerGenerator.ContainerFromIndex(chosen)
        if isinstance(container, UIElement) and not container.IsEnabled:
            raise ElementNotInteractableError(
                f"Item {chosen} of {_describe(element)} is disabled.",
                suggestion="Select an enabled item.",
                detail={"reason": "disabled", "index": chosen},
            )
        self._select_index(element, chosen)
        self._settle()

    def toggle(self, element: Any, *, state: bool | None) -> None:
        if isinstance(element, RadioButton):
            if state is False:
                raise InvalidArgumentError(
                    "A radio button is unchecked by checking another one in its group.",
                    suggestion="Toggle the radio button that should be checked (state=true).",
                )
            if not element.IsChecked:
                self._toggle_once(element)
            self._settle()
            return
        if isinstance(element, ToggleButton):
            # Clicks, as a user would: a three-state box may need two to get there.
            for _ in range(1 if state is None else 3):
                if state is not None and element.IsChecked == state:
                    break
                self._toggle_once(element)
            self._settle()
            return
        if isinstance(element, MenuItem) and element.IsCheckable:
            if state is None or bool(element.IsChecked) != state:
                provider = _pattern(element, PatternInterface.Toggle)
                if provider is not None:
                    toggle = IToggleProvider(provider)
                    toggle.Toggle()
                else:
                    element.IsChecked = not element.IsChecked
            return
        raise _cannot(
            element, "toggle", "Only check boxes, radio buttons, toggle buttons and checkable menu items toggle."
        )

    def _left_click(self, element: Any) -> None:
        if isinstance(element, MenuItem):
            self._click_menu_item(element)
            return
        if isinstance(element, ToggleButton):
            self._toggle_once(element)
            return
        if isinstance(element, ListBoxItem) or isinstance(element, TabItem):
            owner = ItemsControl.ItemsControlFromItemContainer(element)
            if isinstance(owner, Selector):
                index = int(owner.ItemContainerGenerator.IndexFromContainer(element))
                if index >= 0:
                    # A list or tab item's own peer is a wrapper without patterns;
                    # the selection goes through its list, as a click's does.
                    self._take_focus(element)
                    self._select_index(owner, index)
                    if isinstance(owner, ComboBox) and owner.IsDropDownOpen:
                        owner.IsDropDownOpen = False
                    return
        if isinstance(element, TreeViewItem):
            self._take_focus(element)
            element.IsSelected = True
            return
        provider = _pattern(element, PatternInterface.Invoke)
        if provider is not None:
            # ButtonAutomationPeer queues the click at input priority; _settle runs it.
            invoke = IInvokeProvider(provider)
            invoke.Invoke()
            return
        provider = _pattern(element, PatternInterface.SelectionItem)
        if provider is not None:
            selection = ISelectionItemProvider(provider)
            selection.Select()
            return
        provider = _pattern(element, PatternInterface.ExpandCollapse)
        if provider is not None:
            _flip(provider)
            return
        provider = _pattern(element, PatternInterface.Toggle)
        if provider is not None:
            toggle = IToggleProvider(provider)
            toggle.Toggle()
            return
        # A click on a text box (or anything else focusable) focuses it.
        if not self._take_focus(element):
            raise _cannot(element, "a click through the toolkit", 'Use mode="os" for a real mouse click.')

    def _click_menu_item(self, item: MenuItem) -> None:
        self._open_menu_chain(item)
        provider = _pattern(item, PatternInterface.Invoke)
        if provider is not None:
            # MenuItem closes its menus, then raises Click after the next render
            # (so a dialog its handler opens is not drawn under an open menu).
            invoke = IInvokeProvider(provider)
            invoke.Invoke()
            return
        provider = _pattern(item, PatternInterface.ExpandCollapse)
        if provider is not None:
            _flip(provider)
            return
        item.IsSubmenuOpen = not item.IsSubmenuOpen

    def _open_menu_chain(self, item: MenuItem) -> None:
        """Open the menus above ``item``, top first, as a user clicking its path would."""
        chain: list[MenuItem] = []
        parent = ItemsControl.ItemsControlFromItemContainer(item)
        while isinstance(parent, MenuItem) and len(chain) < _MAX_DEPTH:
            chain.append(parent)
            parent = ItemsControl.ItemsControlFromItemContainer(parent)
        for header in reversed(chain):
            if not isinstance(header, MenuItem):
                continue
            if header.IsSubmenuOpen:
                continue
            provider = _pattern(header, PatternInterface.ExpandCollapse)
            if provider is not None:
                expand = IExpandCollapseProvider(provider)
                expand.Expand()
            else:
                header.IsSubmenuOpen = True

    def _toggle_once(self, button: ToggleButton) -> None:
        """One click on a toggle button: toggle it, then Click and its command, as ToggleButton.OnClick does."""
        if isinstance(button, RadioButton):
            provider = _pattern(button, PatternInterface.SelectionItem)
            if provider is not None:
                selection = ISelectionItemProvider(provider)
                selection.Select()
            else:
                button.IsChecked = True
        else:
            provider = _pattern(button, PatternInterface.Toggle)
            if provider is not None:
                toggle = IToggleProvider(provider)
                toggle.Toggle()
            else:
                button.IsChecked = not bool(button.IsChecked)
        # The Toggle pattern only toggles; a click also raises Click and runs the command.
        button.RaiseEvent(RoutedEventArgs(ButtonBase.ClickEvent, button))
        _run_command(button.Command, button.CommandParameter, button.CommandTarget, button)

    def _select_index(self, selector: Selector, index: int) -> None:
        items: ItemCollection = selector.Items
        wanted = items[index]
        # Item peers are made for every item: for a very long list, set the index directly.
        peer: AutomationPeer | None = _peer(selector) if int(items.Count) <= _MAX_ITEM_PEERS else None
        if peer is not None:
            # The SelectionItem pattern lives on the list's item peers (the peer of
            # an item container is a wrapper without patterns).
            matches: list[ItemAutomationPeer] = []
            for child in peer.GetChildren() or []:
                if isinstance(child, ItemAutomationPeer) and Object.Equals(child.Item, wanted):
                    matches.append(child)
            if len(matches) == 1:
                match: ItemAutomationPeer = matches[0]
                provider = match.GetPattern(PatternInterface.SelectionItem)
                if provider is not None:
                    selection = ISelectionItemProvider(provider)
                    selection.Select()
                    if int(selector.SelectedIndex) == index:
                        return
        selector.SelectedIndex = index

    def _open_context_menu(self, element: Any) -> None:
        node: Any = element
        for _ in range(_MAX_DEPTH):
            menu: ContextMenu | None = None
            if isinstance(node, FrameworkElement):
                menu = node.ContextMenu
            elif isinstance(node, FrameworkContentElement):
                menu = node.ContextMenu
            if menu is not None:
                # The nearest element with a context menu opens it, as WPF does for a right click.
                if isinstance(node, UIElement):
                    menu.PlacementTarget = node
                menu.IsOpen = True
                return
            node = self.parent(node, "visual")
            if node is None:
                break
        raise _cannot(element, "a right click through the toolkit (it has no context menu)", 'Use mode="os".')

    def _double_click(self, element: UIElement) -> None:
        """Raise (Preview)MouseDoubleClick on every Control from ``element`` up, as WPF's Control does."""
        controls: list[Control] = []
        node: DependencyObject | None = element
        while node is not None and len(controls) < _MAX_DEPTH:
            if isinstance(node, Control):
                controls.append(node)
            node = VisualTreeHelper.GetParent(node) if isinstance(node, Visual) else None
        for control in reversed(controls):  # the preview tunnels from the root
            if isinstance(control, Control):
                control.RaiseEvent(_mouse_args(Control.PreviewMouseDoubleClickEvent, element))
        for control in controls:
            if isinstance(control, Control):
                control.RaiseEvent(_mouse_args(Control.MouseDoubleClickEvent, element))

    def _item_text(self, owner: ItemsControl | None, item: Any) -> str | None:
        """An item's display text: its content or header, else the data item's display member or text."""
        if item is None:
            return None
        if isinstance(item, str):
            return item
        value: Any = item
        if isinstance(item, PasswordBox):
            return None
        if isinstance(item, HeaderedContentControl):
            value = item.Header
        elif isinstance(item, HeaderedItemsControl):
            value = item.Header
        elif isinstance(item, ContentControl):
            value = item.Content
        elif isinstance(item, TextBlock):
            value = item.Text
        elif isinstance(item, TextBox):
            value = item.Text
        elif owner is not None and owner.DisplayMemberPath:
            value = _member_value(item, str(owner.DisplayMemberPath))
        if isinstance(value, TextBlock):
            value = value.Text
        if value is None or isinstance(value, (Visual, Visual3D, ContentElement)):
            return None  # an element shown as content has no text of its own here
        return value if isinstance(value, str) else str(to_plain(value))


def _mouse_args(event: RoutedEvent, source: UIElement) -> MouseButtonEventArgs:
    args = MouseButtonEventArgs(*_args(Mouse.PrimaryDevice, Environment.TickCount, NetMouseButton.Left))
    args.RoutedEvent = event
    args.Source = source
    return args


def _prepare_text_box(element: Any, replace: bool) -> None:
    """Clear the box (replace), or put the caret at the end of its text (append)."""
    if isinstance(element, PasswordBox):
        if replace:
            element.Clear()
        # Otherwise the text goes where the caret is: PasswordBox does not expose it.
    elif isinstance(element, TextBox):
        if replace:
            element.Clear()
        else:
            # .NET counts UTF-16 units: a character beyond the BMP is two.
            element.Select(len(str(element.Text or "").encode("utf-16-le")) // 2, 0)
    elif isinstance(element, RichTextBox):
        if replace:
            element.SelectAll()
            element.Selection.Text = ""
        else:
            element.CaretPosition = element.Document.ContentEnd
    elif isinstance(element, TextBoxBase) and replace:
        element.SelectAll()  # the first character typed replaces the selection


def _choose(texts: list[str], item: str | None, index: int | None) -> int:
    """The index of the item to select: by index, else by text (exact, then case-insensitive)."""
    if index is not None:
        if not 0 <= index < len(texts):
            raise InvalidArgumentError(
                f"index {index} is out of range: there are {len(texts)} items.",
                suggestion="Pass an index from 0 to the item count minus one, or the item's text.",
                detail={"count": len(texts), "items": texts[:50]},
            )
        return index
    if item is not None:
        if item in texts:
            return texts.index(item)
        folded = [t.casefold() for t in texts]
        if item.casefold() in folded:
            return folded.index(item.casefold())
    raise InvalidArgumentError(
        f"No item has the text {item!r}.",
        suggestion="Pick one of detail.items (exact text, case-insensitive), or pass index.",
        detail={"count": len(texts), "items": texts[:50]},
    )


def _member_value(item: Any, path: str) -> Any:
    """A data item's DisplayMemberPath value (a single property name only, as a binding reads it)."""
    if "." in path or "[" in path:
        return None
    try:
        found: NetPropertyDescriptor | None = TypeDescriptor.GetProperties(item).Find(path, False)
        return None if found is None else found.GetValue(item)
    except Exception:  # noqa: BLE001 - an app's getter may throw; the item just has no text then
        return None
