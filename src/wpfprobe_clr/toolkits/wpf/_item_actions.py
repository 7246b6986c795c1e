"""Actions on items: reaching an item, selecting it in its list or tree, expanding nodes, editing grid cells.

A data item WPF has made no container for is reached as a user would reach
it (``_realise``): the tree nodes above it expanded, the submenus above it
opened, its list scrolled to it (the virtualizing panel brings its index into
view), and then its container is used. An item is selected through its list
(the SelectionItem pattern of the list's item peers, or SelectedIndex) and a
tree node through its container; ``wpf_select`` on a tree takes a path of node
texts (``Vegetables/Carrot``) and expands each node on the way. A DataGrid
cell is typed into as a user edits one: made current, BeginEdit, the text
typed into its editing TextBox, then CommitEdit of the row, so the row's data
(a DataRowView) changes.

The texts items are chosen by are the texts a user reads (``_item_text_at``),
and never a secret: a list whose display path names one is chosen from by
index only.
"""

from __future__ import annotations

from typing import Any

from System import Object

from wpfprobe.core.errors import ElementNotInteractableError, InvalidArgumentError
from wpfprobe.core.protocol import ItemRef, PlainValue
from wpfprobe.core.redaction import REDACTED, Redactor
from wpfprobe_clr.toolkits._wpf_items import choose_item, split_item_path
from wpfprobe_clr.toolkits.wpf._input import _cannot, _pattern, _peer
from wpfprobe_clr.toolkits.wpf._keyboard import _KeyboardMixin
from wpfprobe_clr.toolkits.wpf._load import _WPF_LOAD_ERROR
from wpfprobe_clr.toolkits.wpf._properties import _PropertiesMixin
from wpfprobe_clr.toolkits.wpf._tree import _MAX_DEPTH, _describe

if _WPF_LOAD_ERROR is None:
    from System.Windows import DependencyObject, FrameworkElement
    from System.Windows.Automation.Peers import AutomationPeer, ItemAutomationPeer, PatternInterface
    from System.Windows.Automation.Provider import IExpandCollapseProvider, ISelectionItemProvider
    from System.Windows.Controls import (
        ComboBox,
        DataGrid,
        DataGridCell,
        DataGridCellInfo,
        DataGridEditingUnit,
        DataGridRow,
        DataGridSelectionUnit,
        Expander,
        ItemCollection,
        ItemContainerGenerator,
        ItemsControl,
        ListBox,
        ListBoxItem,
        MenuItem,
        TabItem,
        TextBox,
        TreeView,
        TreeViewItem,
        VirtualizingPanel,
    )
    from System.Windows.Controls.Primitives import Selector, ToggleButton

    _CELL_UNIT = str(DataGridSelectionUnit.Cell)

# Item peers are made for every item: for a very long list, set the index directly.
_MAX_ITEM_PEERS = 2000
# Judges item texts the adapter compares or reports itself (the engine judges what it shows).
_SECRETS = Redactor()


class _ItemActionsMixin(_KeyboardMixin, _PropertiesMixin):
    """Items for the actions of WpfAdapter: reaching, reading, selecting, expanding and editing them."""

    # -- reaching an item

    def _realise(self, ref: ItemRef) -> DependencyObject | None:
        """The container of a data item, made as a user would make WPF make it; None if it cannot be."""
        owner: Any = ref.owner
        if isinstance(owner, ItemRef):
            owner = self._realise(owner)
        if not isinstance(owner, ItemsControl):
            return None
        generator: ItemContainerGenerator = owner.ItemContainerGenerator
        container = generator.ContainerFromIndex(ref.index)
        if isinstance(container, DependencyObject):
            return container
        if isinstance(owner, TreeViewItem):
            # Its node and the nodes above it open, as a user opens them to reach it.
            self._expand_ancestors(owner)
            if not owner.IsExpanded:
                owner.IsExpanded = True
        elif isinstance(owner, MenuItem) and not owner.IsSubmenuOpen:
            self._open_menu_chain(owner)
            owner.IsSubmenuOpen = True
        elif isinstance(owner, ComboBox):
            return None  # its items are made when it drops down: it is selected through the list
        owner.UpdateLayout()
        container = generator.ContainerFromIndex(ref.index)
        if not isinstance(container, DependencyObject):
            host = self._items_host(owner)
            if isinstance(host, VirtualizingPanel):
                # Scrolls the list until the panel has made the item's container.
                host.BringIndexIntoViewPublic(ref.index)
                owner.UpdateLayout()
                container = generator.ContainerFromIndex(ref.index)
        if isinstance(container, FrameworkElement):
            container.BringIntoView()
            return container
        return container if isinstance(container, DependencyObject) else None

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

    # -- an item's text, as the user reads it

    def _item_element(self, owner: ItemsControl, index: int) -> Any:
        """Item ``index`` of ``owner`` as an element: its container, the item if it is an element, else an ItemRef."""
        generator: ItemContainerGenerator = owner.ItemContainerGenerator
        container = generator.ContainerFromIndex(index)
        if isinstance(container, DependencyObject):
            return container
        items: ItemCollection = owner.Items
        item = items[index]
        return item if isinstance(item, DependencyObject) else ItemRef(owner, index)

    def _item_text_at(self, owner: ItemsControl, index: int) -> str | None:
        """The text a user reads on item ``index`` of ``owner``; REDACTED where it is a secret."""
        element = self._item_element(owner, index)
        prop = self.text_property(element)
        if prop is None:
            return None
        if _SECRETS.is_redacted(prop):
            return REDACTED
        reading = self.read_property(element, prop)
        if reading.value is None:
            return None
        if _SECRETS.type_is_secret(reading.value_type_name):
            return REDACTED
        return self.display_text(element, str(reading.value))[0]

    def _item_texts(self, owner: ItemsControl, stop_at: str | None = None) -> list[str | None]:
        """The items' texts, for choosing one, up to the first that is ``stop_at`` exactly.

        An item whose text cannot be read (its getter throws) has none: it cannot be chosen by text.
        """
        items: ItemCollection = owner.Items
        texts: list[str | None] = []
        for index in range(int(items.Count)):
            try:
                text = self._item_text_at(owner, index)
            except Exception:  # noqa: BLE001 - an item whose getter throws cannot be chosen by text
                text = None
            texts.append(text)
            if stop_at is not None and text == stop_at:
                break
        return texts

    def _choose(self, owner: ItemsControl, item: str | None, index: int | None) -> int:
        """The index to select: ``index`` if in range, else the item whose text is ``item`` (see choose_item)."""
        items: ItemCollection = owner.Items
        if index is not None and 0 <= index < int(items.Count):
            return index
        texts = self._item_texts(owner, stop_at=item)
        return choose_item(texts, item, index, secret=REDACTED in texts)

    def _selection_state(self, selector: Selector) -> dict[str, PlainValue]:
        index = int(selector.SelectedIndex)
        try:
            text = self._item_text_at(selector, index) if index >= 0 else None
        except Exception:  # noqa: BLE001 - an action's result still comes back without the selected text
            text = None
        return {"selectedIndex": index, "selectedItem": text}

    def _tree_selection_text(self, tree: TreeView) -> str | None:
        """The text of a tree's selected node (its container is the selected TreeViewItem)."""
        selected = tree.SelectedItem
        if selected is None:
            return None
        node: Any = selected if isinstance(selected, TreeViewItem) else self._selected_node(tree)
        if node is None:
            return None
        prop = self.text_property(node)
        if prop is None:
            return None
        if _SECRETS.is_redacted(prop):
            return REDACTED
        reading = self.read_property(node, prop)
        return None if reading.value is None else self.display_text(node, str(reading.value))[0]

    def _selected_node(self, tree: TreeView) -> TreeViewItem | None:
        """The selected container of a tree whose items are data (it has focus-independent IsSelected)."""
        pending: list[ItemsControl] = [tree]
        seen = 0
        while pending and seen < 10_000:
            control: ItemsControl = pending.pop(0)
            generator: ItemContainerGenerator = control.ItemContainerGenerator
            items: ItemCollection = control.Items
            for index in range(int(items.Count)):
                seen += 1
                node = generator.ContainerFromIndex(index)
                if isinstance(node, TreeViewItem):
                    if node.IsSelected:
                        return node
                    pending.append(node)
        return None

    # -- selecting

    def _select_index(self, selector: Selector, index: int) -> None:
        items: ItemCollection = selector.Items
        wanted = items[index]
        if isinstance(selector, ListBox):
            selector.ScrollIntoView(wanted)
        elif isinstance(selector, DataGrid):
            selector.ScrollIntoView(wanted)
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

    def _select_data_item(self, ref: ItemRef) -> None:
        """Select a data item no container could be made for, through its list."""
        owner = ref.owner
        if isinstance(owner, Selector):
            self._select_index(owner, ref.index)
            if isinstance(owner, ComboBox) and owner.IsDropDownOpen:
                owner.IsDropDownOpen = False
            return
        raise _cannot(ref.owner, "selecting this item", "Select it through its list with wpf_select, by index.")

    def _select_in_tree(self, root: Any, item: str | None, index: int | None) -> None:
        """Select a node of a tree by a path of node texts from ``root`` (a TreeView or a node), or by index."""
        if isinstance(root, ItemRef):
            root = self._realise(root)
        if not isinstance(root, (TreeView, TreeViewItem)):
            raise _cannot(root, "select", "Use wpf_select on a TreeView or one of its nodes.")
        current: ItemsControl = root
        steps: list[str | None] = [None] if index is not None else list(split_item_path(item or ""))
        node: Any = None
        for depth, step in enumerate(steps):
            try:
                chosen = self._choose(current, step, index)
            except InvalidArgumentError as err:
                err.detail["under"] = "/".join(str(s) for s in steps[:depth])
                raise
            node = self._realise(ItemRef(current, chosen))
            if not isinstance(node, TreeViewItem):
                raise ElementNotInteractableError(
                    f"The node {step!r} of {_describe(root)} could not be brought into view.",
                    suggestion="Expand the nodes above it with wpf_toggle, then select it.",
                    detail={"reason": "hidden", "path": "/".join(str(s) for s in steps[: depth + 1])},
                )
            current = node
        if not isinstance(node, TreeViewItem):
            return
        if not node.IsEnabled:
            raise ElementNotInteractableError(
                f"The node {_describe(node)} is disabled.",
                suggestion="Select an enabled node.",
                detail={"reason": "disabled"},
            )
        self._select_node(node)

    def _expand_ancestors(self, node: TreeViewItem) -> None:
        """Expand the tree nodes above ``node``, so that it is shown."""
        above = ItemsControl.ItemsControlFromItemContainer(node)
        for _ in range(_MAX_DEPTH):
            if not isinstance(above, TreeViewItem):
                break
            if not above.IsExpanded:
                above.IsExpanded = True
            above = ItemsControl.ItemsControlFromItemContainer(above)

    def _select_node(self, node: TreeViewItem) -> None:
        self._expand_ancestors(node)
        provider = _pattern(node, PatternInterface.SelectionItem)
        if provider is not None:
            selection = ISelectionItemProvider(provider)
            selection.Select()
        if not node.IsSelected:
            node.IsSelected = True
        node.BringIntoView()
        self._take_focus(node)

    # -- clicking an item

    def _click_item(self, element: Any) -> bool:
        """A left click on an item selects it through its list, as a user's does; False if not an item."""
        if isinstance(element, ListBoxItem) or isinstance(element, TabItem):
            owner = ItemsControl.ItemsControlFromItemContainer(element)
            if isinstance(owner, Selector):
                index = int(owner.ItemContainerGenerator.IndexFromContainer(element))
                if index >= 0:
                    # A list or tab item's own peer is a wrapper without patterns;
                    # the selection goes through its list, as a click's does.
                    if isinstance(element, FrameworkElement):
                        element.BringIntoView()
                    self._take_focus(element)
                    self._select_index(owner, index)
                    if isinstance(owner, ComboBox) and owner.IsDropDownOpen:
                        owner.IsDropDownOpen = False
                    return True
            return False
        if isinstance(element, TreeViewItem):
            self._select_node(element)
            return True
        if isinstance(element, DataGridRow):
            grid = ItemsControl.ItemsControlFromItemContainer(element)
            if not isinstance(grid, DataGrid):
                return False
            if str(grid.SelectionUnit) == _CELL_UNIT:
                return False  # rows are not selected in this grid: the click focuses the row
            index = int(grid.ItemContainerGenerator.IndexFromContainer(element))
            if index < 0:
                return False
            self._select_index(grid, index)
            self._take_focus(element)
            return True
        if isinstance(element, DataGridCell):
            self._click_cell(element)
            return True
        return False

    def _click_cell(self, cell: DataGridCell) -> None:
        """Make the cell current and select it (or its row), as a click on it does."""
        grid = _grid_of(cell)
        if grid is None:
            self._take_focus(cell)
            return
        cell.BringIntoView()
        grid.CurrentCell = DataGridCellInfo(cell)
        if str(grid.SelectionUnit) == _CELL_UNIT:
            grid.SelectedCells.Clear()
            cell.IsSelected = True
        else:
            row = DataGridRow.GetRowContainingElement(cell)
            if row is not None:
                index = int(grid.ItemContainerGenerator.IndexFromContainer(row))
                if index >= 0:
                    self._select_index(grid, index)
        self._take_focus(cell)

    # -- toggling an item

    def _toggle_node(self, element: Any, state: bool | None) -> bool:
        """Expand or collapse a tree node or an expander; False if ``element`` is neither (or a leaf)."""
        if isinstance(element, TreeViewItem):
            if not element.HasItems:
                return False
            expanded = bool(element.IsExpanded)
        elif isinstance(element, Expander):
            expanded = bool(element.IsExpanded)
        else:
            return False
        want = (not expanded) if state is None else state
        if want == expanded:
            return True
        provider = _pattern(element, PatternInterface.ExpandCollapse)
        if provider is not None:
            pattern = IExpandCollapseProvider(provider)
            if want:
                pattern.Expand()
            else:
                pattern.Collapse()
        elif isinstance(element, TreeViewItem):
            element.IsExpanded = want
        elif isinstance(element, Expander):
            element.IsExpanded = want
        return True

    def _item_toggle(self, element: Any) -> ToggleButton | None:
        """The check box an item shows (a list item's content, a cell's, a leaf node's header), if any."""
        content: Any = None
        if isinstance(element, ListBoxItem):
            content = element.Content
        elif isinstance(element, DataGridCell):
            content = element.Content
        elif isinstance(element, TreeViewItem) and not element.HasItems:
            content = element.Header
        return content if isinstance(content, ToggleButton) else None

    # -- typing into a grid cell

    def _type_into_cell(self, cell: DataGridCell, text: str, replace: bool) -> None:
        """Edit a cell as a user does: make it current, begin editing, type, commit the row."""
        grid = _grid_of(cell)
        if grid is None:
            raise _cannot(cell, "typed text (it is not in a DataGrid)", "Type into a text box instead.")
        if cell.IsReadOnly:
            raise ElementNotInteractableError(
                f"{_describe(cell)} is read-only (its column or its grid is).",
                suggestion="Type into an editable cell.",
                detail={"reason": "read-only"},
            )
        cell.BringIntoView()
        grid.CurrentCell = DataGridCellInfo(cell)
        self._take_focus(cell)
        if not cell.IsEditing:
            grid.BeginEdit()
        editor = cell.Content
        if not isinstance(editor, TextBox):
            grid.CancelEdit()
            raise _cannot(cell, "typed text (its column does not edit as text)", "Use wpf_toggle or wpf_select.")
        self._take_focus(editor)
        if replace:
            editor.Clear()
        else:
            editor.Select(len(str(editor.Text or "").encode("utf-16-le")) // 2, 0)
        # A line break ends the edit, as Enter does in a grid.
        for ch in text.replace("\r\n", "\n").replace("\r", "\n").split("\n", 1)[0]:
            self._text_input(editor, ch)
        grid.CommitEdit(DataGridEditingUnit.Row, True)


def _grid_of(cell: DataGridCell) -> DataGrid | None:
    row = DataGridRow.GetRowContainingElement(cell)
    if row is None:
        return None
    grid = ItemsControl.ItemsControlFromItemContainer(row)
    return grid if isinstance(grid, DataGrid) else None


def _is_item(element: Any) -> bool:
    """Whether toolkit input reaches ``element`` through its list rather than the pointer."""
    return isinstance(element, (ItemRef, ListBoxItem, TabItem, TreeViewItem, DataGridRow, DataGridCell))


__all__: list[str] = []
