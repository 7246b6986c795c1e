"""Clicks, typing, selection and toggles through the toolkit (the interact tier).

Each action goes the way a user's would: a button is invoked through its
automation peer, a list item selected through its list, a menu item reached
by opening the menus above it, text typed as key and text input events on the
focused box (``_keyboard``), a right click opens the nearest context menu.
What the action queued runs before it returns (``_settle``).
"""

from __future__ import annotations

from typing import Any

from System import Environment

from wpfprobe.core.errors import ElementNotInteractableError, InvalidArgumentError
from wpfprobe.core.protocol import ItemRef, MouseButton, PlainValue
from wpfprobe_clr.toolkits.wpf._input import _args, _cannot, _flip, _pattern, _run_command
from wpfprobe_clr.toolkits.wpf._item_actions import _ItemActionsMixin
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._properties import _plain
from wpfprobe_clr.toolkits.wpf._tree import _MAX_DEPTH, _describe

if _WPF_LOAD_ERROR is None:
    from System.Windows import (
        DependencyObject,
        FrameworkContentElement,
        FrameworkElement,
        RoutedEvent,
        RoutedEventArgs,
        UIElement,
    )
    from System.Windows.Automation.Peers import PatternInterface
    from System.Windows.Automation.Provider import (
        IInvokeProvider,
        ISelectionItemProvider,
        IToggleProvider,
        IValueProvider,
    )
    from System.Windows.Controls import (
        ComboBox,
        ContextMenu,
        Control,
        DataGridCell,
        Expander,
        ItemsControl,
        MenuItem,
        PasswordBox,
        RadioButton,
        RichTextBox,
        TextBox,
        TreeView,
        TreeViewItem,
    )
    from System.Windows.Controls.Primitives import ButtonBase, RangeBase, Selector, TextBoxBase, ToggleButton
    from System.Windows.Input import Mouse, MouseButtonEventArgs
    from System.Windows.Input import MouseButton as NetMouseButton
    from System.Windows.Media import Visual, VisualTreeHelper


class _ActionsMixin(_ItemActionsMixin):
    """The actions of WpfAdapter: action_state, click, type_text, select, toggle, focus."""

    def action_state(self, element: Any) -> dict[str, PlainValue]:
        if isinstance(element, ItemRef):
            container = self._ref_container(element)
            if container is not None:
                return self.action_state(container)  # WPF has made its container since
            return self._data_item_action_state(element)
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
            state.update(self._selection_state(element))
        if isinstance(element, ComboBox):
            state["expanded"] = bool(element.IsDropDownOpen)
        if isinstance(element, Expander):
            state["expanded"] = bool(element.IsExpanded)
        if isinstance(element, TreeViewItem):
            state["expanded"] = bool(element.IsExpanded)
            tree = self._tree_view_of(element)
            if tree is not None:
                state["selectedItem"] = self._tree_selection_text(tree)
        if isinstance(element, TreeView):
            state["selectedItem"] = self._tree_selection_text(element)
        if isinstance(element, RangeBase):
            state["value"] = _plain(float(element.Value))
        if isinstance(element, DependencyObject) and not isinstance(element, Selector):
            # An item shows what its click changes: its list's selection, the check box it holds.
            owner = ItemsControl.ItemsControlFromItemContainer(element)
            if isinstance(owner, Selector):
                state.update(self._selection_state(owner))
            toggle = self._item_toggle(element)
            if toggle is not None and "checked" not in state:
                checked_now = toggle.IsChecked
                state["checked"] = None if checked_now is None else bool(checked_now)
        return state

    def _data_item_action_state(self, ref: ItemRef) -> dict[str, PlainValue]:
        owner = ref.owner
        if isinstance(owner, Selector):
            return self._selection_state(owner)
        tree = self._tree_view_of(ref)
        if tree is None:
            return {}
        return {"selectedItem": self._tree_selection_text(tree), "expanded": False}

    def click(self, element: Any, *, button: MouseButton, count: int) -> None:
        if isinstance(element, ItemRef):
            container = self._realise(element)
            if container is None:
                if button != "left":
                    raise _cannot(element, f"a {button} click (it is not shown)", "Click it with the left button.")
                # No container can be made for it here (a closed combo box's item): its list selects it.
                self._select_data_item(element)
                self._settle()
                return
            element = container
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
        if isinstance(element, DataGridCell):
            self._type_into_cell(element, text, replace)
            self._settle()
            return
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
        if isinstance(element, ItemRef) or isinstance(element, TreeView) or isinstance(element, TreeViewItem):
            # A tree: item is a path of node texts from here (Vegetables/Carrot), index a node at this level.
            self._select_in_tree(element, item, index)
            self._settle()
            return
        if not isinstance(element, Selector):
            raise _cannot(element, "select", "Use wpf_click or wpf_toggle for this element.")
        chosen = self._choose(element, item, index)
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
        if isinstance(element, ItemRef):
            container = self._realise(element)
            if container is None:
                raise _cannot(element, "toggle", "Expand its tree node or open its list first.")
            element = container
        if self._toggle_node(element, state):
            self._settle()
            return
        shown = self._item_toggle(element)
        if shown is not None:
            self.toggle(shown, state=state)  # the check box the item shows
            return
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
            element,
            "toggle",
            "Check boxes, radio buttons, toggle buttons, checkable menu items, tree nodes with children, "
            "expanders and items that show a check box toggle.",
        )

    def focus(self, element: Any) -> None:
        if isinstance(element, ItemRef):
            container = self._realise(element)
            if container is None:
                raise _cannot(element, "keyboard focus", "Select it through its list (wpf_select) instead.")
            element = container
        super().focus(element)

    def _left_click(self, element: Any) -> None:
        if isinstance(element, MenuItem):
            self._click_menu_item(element)
            return
        if isinstance(element, ToggleButton):
            self._toggle_once(element)
            return
        if self._click_item(element):
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
